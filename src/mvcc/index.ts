export { ConflictError, ConflictLog } from './conflict-log.js'
