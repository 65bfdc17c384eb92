// The write path: rows written through a transaction view with their index entries,
// unique claims, auto ids and references (docs/architecture.md, "The path of a
// query"). execute (../exec/) calls it; it reads no plan.
export { rowKeysUnder } from './index-prefix.js'
export { deleteRows, insertRows, updateRows, type WriteContext } from './write.js'
