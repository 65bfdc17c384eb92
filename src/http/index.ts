export { buildServer, registeredRoutes, type RegisteredRoute, type ServerOptions } from './server.js'
export type { SchemaFile } from './routes/schema-source.js'
