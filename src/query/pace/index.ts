// A statement's pace on the shared event loop (docs/architecture.md, "Invariants", 8):
// when to yield and check the deadline, and a sort that yields as it goes.
export { charge, deadline, Pace, timedOut, type Deadline, type PaceOptions } from './pace.js'
export { pacedSort } from './paced-sort.js'
