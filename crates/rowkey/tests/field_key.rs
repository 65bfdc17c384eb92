//! The bytes of docs/format.md's "Row encoding" and "Key encoding" tables, written out
//! by hand: a field is found past every kind of value, its key is the table's, and
//! what has no key (null, containers, damage) names none and leaves `out` as it was.

use rowkey::field_key;

/// A row of the given fields (name, encoded value), as the row format lays it out.
fn row(fields: &[(&str, &[u8])]) -> Vec<u8> {
    let mut out = vec![0x01, fields.len() as u8];
    for (name, value) in fields {
        out.push(name.len() as u8);
        out.extend_from_slice(name.as_bytes());
        out.extend_from_slice(value);
    }
    out
}

fn key_of(row: &[u8], name: &str) -> Option<Vec<u8>> {
    let mut out = vec![0xaa]; // something already there must be kept
    let found = field_key(row, name.as_bytes(), &mut out);
    assert_eq!(out[0], 0xaa);
    if found {
        Some(out[1..].to_vec())
    } else {
        assert_eq!(out, vec![0xaa], "nothing is left behind when no key is named");
        None
    }
}

#[test]
fn numbers_are_big_endian_float64_with_the_sign_flipped() {
    // 1.0 is 0x3FF0_0000_0000_0000; positive: sign bit flipped.
    assert_eq!(key_of(&row(&[("n", &[0x03, 0x01])]), "n"), Some(vec![0x20, 0xbf, 0xf0, 0, 0, 0, 0, 0, 0]));
    // 0 (uint 0): sign bit flipped of all zeros.
    assert_eq!(key_of(&row(&[("n", &[0x03, 0x00])]), "n"), Some(vec![0x20, 0x80, 0, 0, 0, 0, 0, 0, 0]));
    // -1 (negint 1) is 0xBFF0_...: negative, every bit flipped.
    assert_eq!(key_of(&row(&[("n", &[0x04, 0x01])]), "n"), Some(vec![0x20, 0x40, 0x0f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]));
    // 300 as a varint is 0xAC 0x02; 300.0 is 0x4072_C000_0000_0000.
    assert_eq!(key_of(&row(&[("n", &[0x03, 0xac, 0x02])]), "n"), Some(vec![0x20, 0xc0, 0x72, 0xc0, 0, 0, 0, 0, 0]));
    // A float (little-endian in the row): 1.5 is 0x3FF8_0000_0000_0000.
    let mut float = vec![0x05];
    float.extend_from_slice(&1.5f64.to_le_bytes());
    assert_eq!(key_of(&row(&[("n", &float)]), "n"), Some(vec![0x20, 0xbf, 0xf8, 0, 0, 0, 0, 0, 0]));
    // An int and the float of the same number give the same key.
    let mut three = vec![0x05];
    three.extend_from_slice(&3.0f64.to_le_bytes());
    assert_eq!(key_of(&row(&[("n", &three)]), "n"), key_of(&row(&[("n", &[0x03, 0x03])]), "n"));
    // -0 is written as 0.
    let mut negative_zero = vec![0x05];
    negative_zero.extend_from_slice(&(-0.0f64).to_le_bytes());
    assert_eq!(key_of(&row(&[("n", &negative_zero)]), "n"), key_of(&row(&[("n", &[0x03, 0x00])]), "n"));
}

#[test]
fn strings_escape_nul_and_end_with_two_zero_bytes() {
    assert_eq!(key_of(&row(&[("s", &[0x06, 0x02, b'h', b'i'])]), "s"), Some(vec![0x30, b'h', b'i', 0, 0]));
    assert_eq!(key_of(&row(&[("s", &[0x06, 0x03, b'a', 0, b'b'])]), "s"), Some(vec![0x30, b'a', 0, 0xff, b'b', 0, 0]));
    assert_eq!(key_of(&row(&[("s", &[0x06, 0x00])]), "s"), Some(vec![0x30, 0, 0]));
    // UTF-8 bytes pass through as they are.
    assert_eq!(key_of(&row(&[("s", &[0x06, 0x02, 0xc3, 0xa9])]), "s"), Some(vec![0x30, 0xc3, 0xa9, 0, 0]));
}

#[test]
fn booleans_and_timestamps() {
    assert_eq!(key_of(&row(&[("b", &[0x01])]), "b"), Some(vec![0x10]));
    assert_eq!(key_of(&row(&[("b", &[0x02])]), "b"), Some(vec![0x11]));
    // 1000 ms after the epoch: a varint 0xE8 0x07; 1000.0 is 0x408F_4000_0000_0000.
    assert_eq!(key_of(&row(&[("t", &[0x07, 0xe8, 0x07])]), "t"), Some(vec![0x40, 0xc0, 0x8f, 0x40, 0, 0, 0, 0, 0]));
    // 1 ms before the epoch: -1.0, every bit flipped.
    assert_eq!(key_of(&row(&[("t", &[0x08, 0x01])]), "t"), Some(vec![0x40, 0x40, 0x0f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]));
}

#[test]
fn the_field_is_found_past_values_of_every_kind() {
    let mut float = vec![0x05];
    float.extend_from_slice(&2.5f64.to_le_bytes());
    // A list of [1, "x", [null]] and a record {a: {b: true}} before the field.
    let list: &[u8] = &[0x09, 0x03, 0x03, 0x01, 0x06, 0x01, b'x', 0x09, 0x01, 0x00];
    let record: &[u8] = &[0x0a, 0x01, 0x01, b'a', 0x0a, 0x01, 0x01, b'b', 0x02];
    let fields: &[(&str, &[u8])] = &[
        ("a", &[0x00]), ("b", &[0x01]), ("c", &[0x03, 0x80, 0x01]), ("d", &[0x04, 0x05]), ("e", &float),
        ("f", &[0x06, 0x03, b'a', b'b', b'c']), ("g", &[0x07, 0x01]), ("h", &[0x08, 0x01]), ("i", list), ("j", record),
        ("id", &[0x03, 0x07]),
    ];
    assert_eq!(key_of(&row(fields), "id"), Some(vec![0x20, 0xc0, 0x1c, 0, 0, 0, 0, 0, 0]));
    // A name is matched whole, not as a prefix.
    assert_eq!(key_of(&row(&[("ids", &[0x03, 0x01]), ("id", &[0x03, 0x02])]), "id"), key_of(&row(&[("x", &[0x03, 0x02])]), "x"));
}

#[test]
fn values_without_a_key_here_name_none() {
    assert_eq!(key_of(&row(&[("n", &[0x00])]), "n"), None, "null matches nothing");
    assert_eq!(key_of(&row(&[("n", &[0x09, 0x00])]), "n"), None, "a list is not looked up natively");
    assert_eq!(key_of(&row(&[("n", &[0x0a, 0x00])]), "n"), None, "nor a record");
    assert_eq!(key_of(&row(&[("m", &[0x03, 0x01])]), "n"), None, "a missing field");
    assert_eq!(key_of(&row(&[]), "n"), None);
}

#[test]
fn damaged_rows_name_no_key() {
    let good = row(&[("x", &[0x06, 0x01, b'q']), ("n", &[0x03, 0x05])]);
    assert!(key_of(&good, "n").is_some());
    // Every truncation of a good row.
    for end in 0..good.len() {
        assert_eq!(key_of(&good[..end], "n"), None, "truncated at {end}");
    }
    let cases: &[&[u8]] = &[
        &[0x02, 0x01, 0x01, b'n', 0x03, 0x01],             // unknown format version
        &[0x01, 0x01, 0x01, b'n', 0x03, 0x81, 0x00],       // overlong varint
        &[0x01, 0x01, 0x01, b'n', 0x04, 0x00],             // negative zero
        &[0x01, 0x01, 0x01, b'n', 0x08, 0x00],             // timestamp -0
        &[0x01, 0x01, 0x01, b'n', 0x0b],                   // unknown tag
        &[0x01, 0x01, 0x01, b'n', 0x03, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01], // varint over 8 bytes
        &[0x01, 0x01, 0x01, b'n', 0x03, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x10], // 2^53: over 2^53 - 1
        &[0x01, 0x02, 0x01, b'x', 0x0c, 0x01, b'n', 0x03, 0x01], // unknown tag in a field stepped over
        &[0x01, 0x02, 0x01, b'x', 0x09, 0x09, 0x01, b'n', 0x03, 0x01], // a list counting more items than bytes
    ];
    for (i, bytes) in cases.iter().enumerate() {
        assert_eq!(key_of(bytes, "n"), None, "case {i}");
    }
    let mut nan = vec![0x01, 0x01, 0x01, b'n', 0x05];
    nan.extend_from_slice(&f64::NAN.to_le_bytes());
    assert_eq!(key_of(&nan, "n"), None, "NaN is never stored");
}

#[test]
fn deep_nesting_is_stepped_over_without_recursion() {
    // 100 000 nested lists of one item each, then the field: a recursive reader would
    // need a stack frame per level.
    let depth = 100_000;
    let mut value = Vec::new();
    for _ in 0..depth {
        value.extend_from_slice(&[0x09, 0x01]);
    }
    value.push(0x00);
    let mut bytes = vec![0x01, 0x02, 0x01, b'x'];
    bytes.extend_from_slice(&value);
    bytes.extend_from_slice(&[0x01, b'n', 0x02]); // "n": true
    assert_eq!(key_of(&bytes, "n"), Some(vec![0x11]));
}
