//! A value's bytes on pages: inline in its leaf, or in an overflow chain the pager
//! writes and verifies (`page/overflow.rs`), recorded in the leaf as `Value::Overflow`.

use super::node::{Bytes, Value};
use crate::error::{Error, Result};
use crate::limits::INLINE_VALUE_BYTES_MAX;
use crate::page::overflow::OverflowChain;
use crate::page::PageSink;
use crate::pager::Pager;
use crate::space::SpaceMap;

/// The bytes of a value, following and verifying an overflow chain if needed.
pub fn read_value(pager: &Pager, value: &Value) -> Result<Bytes> {
    match value {
        Value::Bytes(bytes) => Ok(bytes.clone()),
        &Value::Overflow { first_page, len, hash } => {
            let bytes = pager.read_overflow(OverflowChain { first_page, len, hash })?;
            assert_eq!(bytes.len(), len as usize, "a verified chain holds its recorded length");
            Ok(Bytes::from(bytes))
        }
        Value::Tree(_) => Err(Error::InvalidArgument("the entry holds a tree, not bytes".into())),
    }
}

/// Writes a large value to an overflow chain, through `sink`; returns the value as its
/// leaf records it and the chain's slots (see `Pager::write_overflow`).
pub fn write_overflow(pager: &Pager, books: &mut SpaceMap, sink: &mut dyn PageSink, bytes: &[u8], lsn: u64) -> Result<(Value, Vec<u64>)> {
    assert!(bytes.len() > INLINE_VALUE_BYTES_MAX, "only a value too large for its leaf goes to a chain");
    let (chain, pages) = pager.write_overflow(books, sink, bytes, lsn)?;
    let OverflowChain { first_page, len, hash } = chain;
    Ok((Value::Overflow { first_page, len, hash }, pages))
}
