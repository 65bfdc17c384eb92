// A snapshot-isolation checker for list-append histories (Elle's model, written by
// hand), and the workload that records such histories from tenantdb.
export type { AllowedCycle, Anomaly, AnomalyClass, Append, CheckResult, EdgeKind, History, Op, Outcome, Read, Step, Txn } from './history.js'
export { checkHistory } from './check.js'
export { default_shape, keyCount, planClient, type PlannedTxn, type WorkloadShape } from './workload.js'
export { rng } from '../rng.js'
export { createKeys, filler_first, filler_rows, list_append_schema } from './eel-txn.js'
export { Recorder, type Submit, type Submitted } from './record.js'
export { inProcess, overHttp } from './submit.js'
