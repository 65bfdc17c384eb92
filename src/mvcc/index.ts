export { ConflictError, ConflictLog, signalKey } from './conflict-log.js'
