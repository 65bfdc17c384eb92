// The codecs between Eel values and stored bytes: order-preserving keys (key.ts, with
// range helpers in key-range.ts), the in-memory order that agrees with them
// (compare.ts), and rows (row.ts). Everything they refuse throws CodecError.
export { CodecError } from './error.js'
export { kind_rank, kindOf, nesting_depth_max, type Kind } from './kind.js'
export { compareStrings, compareValues } from './compare.js'
export { decodeKey, encodeKey, encodeKeyScratch, prefixEnd } from './key.js'
export { componentRange, kindRange, prefixRange, type Bound, type KeyRange } from './key-range.js'
export { decodeRow, decodeRowAt, decodeRowColumnsAt, decodeRowFields, decodeRowFieldsAt, encodeRow, encodeRowFieldsScratch } from './row.js'
