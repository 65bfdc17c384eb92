//! The part of tenantdb's row and key formats that a lookup join needs in the storage
//! layer's language: find one field of a stored row, and write its value as the key
//! of a one-value tuple. Both formats are owned by the TypeScript codec
//! (`src/codec/row.ts`, `src/codec/key.ts`; docs/format.md "Row encoding" and "Key
//! encoding"); this crate follows them for scalar values only, and the lookup that
//! uses it (`src/query/exec/lookup.ts`) is chosen only for fields whose type is scalar.
//! `test/query-lookup-native.test.ts` checks it against the TypeScript codec.

mod field;
mod key;
mod reader;

pub use field::field_key;
