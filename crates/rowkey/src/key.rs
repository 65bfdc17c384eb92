//! One value as a one-value key (docs/format.md "Key encoding"; `src/codec/key.ts`
//! writes the same bytes). Scalars only.

use crate::reader::{tag, Reader};

const KEY_FALSE: u8 = 0x10;
const KEY_TRUE: u8 = 0x11;
const KEY_NUMBER: u8 = 0x20;
const KEY_STRING: u8 = 0x30;
const KEY_TIMESTAMP: u8 = 0x40;

/// Writes the key of the value at `reader` (its tag not yet read) to `out`. `None`
/// when it has no key here: null (a lookup of null matches nothing), a list or record
/// (not looked up natively), or bytes the row format does not allow.
pub(crate) fn write_value_key(reader: &mut Reader<'_>, out: &mut Vec<u8>) -> Option<()> {
    match reader.byte()? {
        tag::FALSE => out.push(KEY_FALSE),
        tag::TRUE => out.push(KEY_TRUE),
        tag::UINT => number(out, KEY_NUMBER, reader.varint()? as f64),
        tag::NEGINT => {
            let n = reader.varint()?;
            if n == 0 {
                return None;
            }
            number(out, KEY_NUMBER, -(n as f64));
        }
        tag::FLOAT => {
            let x = f64::from_le_bytes(reader.take(8)?.try_into().ok()?);
            if x.is_nan() {
                return None;
            }
            number(out, KEY_NUMBER, x);
        }
        tag::STRING => {
            let n = reader.count()?;
            let text = reader.take(n)?;
            out.reserve(n + 3);
            out.push(KEY_STRING);
            for &b in text {
                out.push(b);
                if b == 0 {
                    out.push(0xff);
                }
            }
            out.extend_from_slice(&[0, 0]);
        }
        tag::TIMESTAMP => number(out, KEY_TIMESTAMP, reader.varint()? as f64),
        tag::TIMESTAMP_NEG => {
            let ms = reader.varint()?;
            if ms == 0 {
                return None;
            }
            number(out, KEY_TIMESTAMP, -(ms as f64));
        }
        _ => return None, // null, list, record, or no tag at all
    }
    Some(())
}

/// A float64 big-endian with the sign bit flipped (all bits for a negative), so
/// that memcmp orders as the numbers do; -0 is written as 0.
fn number(out: &mut Vec<u8>, key_tag: u8, x: f64) {
    let x = if x == 0.0 { 0.0 } else { x };
    let bits = x.to_bits();
    let ordered = if bits >> 63 == 0 { bits ^ (1 << 63) } else { !bits };
    out.push(key_tag);
    out.extend_from_slice(&ordered.to_be_bytes());
}
