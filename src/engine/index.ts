export { Engine, type EngineStats } from './engine.js'
export { EngineError, type EngineErrorCode } from './engine-error.js'
