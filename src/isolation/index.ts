// Isolation between tenants (docs/operations.md, "Isolation"): rate budgets shared by
// every thread, the fair scheduler of statements' turns on the event loop, and what
// each tenant used. Applied by the query runner; set through the tenants' limits.
export { BudgetTable } from './budget-table.js'
export { FairScheduler, scheduler, type Priority } from './fair-scheduler.js'
export { Governor, type Admission, type IsolationOptions, type SharedIsolation } from './governor.js'
export type { TenantUsage } from './usage.js'
