// Running a checked statement: reading rows by the plan (batch, point and streaming
// paths), the stages, lookups, and the bounds on what a statement answers
// (result_bytes_max) and holds (statement_memory_bytes_max). Writes go to ../write/.
export { type Row } from './access.js'
export { type BatchRead, readBatchesSync, streamBatches, streamRawBatches } from './batch-pipeline.js'
export { execute, executeInsert, type ExecuteContext, type StatementResult } from './execute.js'
export { pointStagesOnly, readPoints } from './point-pipeline.js'
export { jsonBytesBound } from './json-bytes.js'
export { ResultBytes } from './result-bytes.js'
export { type QueryResult } from './result.js'
export { StatementMemory } from './statement-memory.js'
