export { buildServer, registeredRoutes, serverMetricsOf, type RegisteredRoute, type ServerOptions } from './server.js'
export type { SchemaFile } from './routes/schema-source.js'
