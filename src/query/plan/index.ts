// Planning a pipeline: the access path (primary get or range, index prefix, scan), the
// conjuncts it answers, the sort the tree order makes unnecessary, and which fields
// of a lookup's rows the rest of the pipeline reads.
export { withoutAnswered } from './answered.js'
export { lookupFieldsRead, rowFieldsRead } from './lookup-fields.js'
export { type Access, type KeyRange, type LookupHint, plan, type Plan, type PlanHint, planTemplate } from './plan.js'
