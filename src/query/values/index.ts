// Eel values: their static types, expressions evaluated over a row, the built-in
// functions, time, patterns (`like`, `matches`), and a row's values converted to
// their fields' types. Used by the checker, the planner, the executor and the write
// path, and by lazy migration (defaults, descriptions).
export { type EvalContext, evaluate, floatOverflow } from './evaluate.js'
export { functions } from './functions.js'
export { fieldPaths, mentionsField } from './mentions-field.js'
export { convertValue, defaultValue, validateFields } from './row-validate.js'
export { parseTimestamp } from './timestamp-text.js'
export { comparable, describeValue, type EelType, fromFieldType, isNumeric, t, typeName, typeOfValue } from './types.js'
