// The public surface of the tenantdb package.
export { Engine, EngineError, type EngineErrorCode, type EngineStats } from './engine/index.js'
export { buildServer, type ServerOptions, type SchemaFile } from './http/index.js'
export { version } from './version.js'
