//! Finding one field of a stored row (docs/format.md "Row encoding": version, field
//! count, then each field's name and value).

use crate::key::write_value_key;
use crate::reader::{Reader, ROW_FORMAT_VERSION};

/// Appends to `out` the one-value key of field `name` of `row` and returns true; or
/// returns false with `out` as it was, when the row has no such field, its value has
/// no key here (null, a list or a record), or the bytes are not a row.
pub fn field_key(row: &[u8], name: &[u8], out: &mut Vec<u8>) -> bool {
    let start = out.len();
    let written = find_and_write(row, name, out).is_some();
    if !written {
        out.truncate(start);
    }
    written
}

fn find_and_write(row: &[u8], name: &[u8], out: &mut Vec<u8>) -> Option<()> {
    let mut reader = Reader::new(row);
    if reader.byte()? != ROW_FORMAT_VERSION {
        return None;
    }
    let fields = reader.count()?;
    for _ in 0..fields {
        let length = reader.count()?;
        if reader.take(length)? == name {
            return write_value_key(&mut reader, out);
        }
        reader.skip_value()?;
    }
    None
}
