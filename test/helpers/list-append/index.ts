// A snapshot-isolation checker for list-append histories (Elle's model, written by
// hand), and the workload that records such histories from tenantdb.
export type { AllowedCycle, Anomaly, AnomalyClass, Append, CheckResult, EdgeKind, History, Op, Outcome, Read, Step, Txn } from './history.js'
export { checkHistory } from './check.js'
