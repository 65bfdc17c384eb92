//! Reading a stored row's bytes: tags, LEB128 varints and lengths, each checked against
//! the bytes left. Any failure is `None`: the caller then names no key, and the
//! TypeScript decoder, which reads every row the join returns, reports the damage.

/// The row format's value tags (docs/format.md "Row encoding").
pub(crate) mod tag {
    pub const NULL: u8 = 0x00;
    pub const FALSE: u8 = 0x01;
    pub const TRUE: u8 = 0x02;
    pub const UINT: u8 = 0x03;
    pub const NEGINT: u8 = 0x04;
    pub const FLOAT: u8 = 0x05;
    pub const STRING: u8 = 0x06;
    pub const TIMESTAMP: u8 = 0x07;
    pub const TIMESTAMP_NEG: u8 = 0x08;
    pub const LIST: u8 = 0x09;
    pub const RECORD: u8 = 0x0a;
}

pub(crate) const ROW_FORMAT_VERSION: u8 = 0x01;

/// Varints are at most 8 bytes and 2^53 - 1 (the row format's rule).
const VARINT_BYTES_MAX: usize = 8;
const VARINT_VALUE_MAX: u64 = (1 << 53) - 1;

pub(crate) struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    pub(crate) fn new(bytes: &'a [u8]) -> Reader<'a> {
        Reader { bytes, at: 0 }
    }

    pub(crate) fn byte(&mut self) -> Option<u8> {
        let b = *self.bytes.get(self.at)?;
        self.at += 1;
        Some(b)
    }

    pub(crate) fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let end = self.at.checked_add(n)?;
        let slice = self.bytes.get(self.at..end)?;
        self.at = end;
        Some(slice)
    }

    /// Unsigned LEB128, refusing what the writer never writes (overlong, too long, too large).
    pub(crate) fn varint(&mut self) -> Option<u64> {
        let mut n: u64 = 0;
        for i in 0..VARINT_BYTES_MAX {
            let b = self.byte()?;
            n |= u64::from(b & 0x7f) << (7 * i);
            if b < 0x80 {
                if i > 0 && b == 0 {
                    return None;
                }
                return (n <= VARINT_VALUE_MAX).then_some(n);
            }
        }
        None
    }

    /// A count or length: more than the bytes left cannot be right.
    pub(crate) fn count(&mut self) -> Option<usize> {
        let n = usize::try_from(self.varint()?).ok()?;
        (n <= self.bytes.len() - self.at).then_some(n)
    }

    /// Steps over one value, however deeply it nests (with a stack of the items left
    /// at each level, not recursion: a row's nesting cannot exhaust the thread's stack).
    pub(crate) fn skip_value(&mut self) -> Option<()> {
        let mut left: Vec<usize> = Vec::new();
        let mut fields: Vec<bool> = Vec::new();
        loop {
            match self.byte()? {
                tag::NULL | tag::FALSE | tag::TRUE => {}
                tag::UINT | tag::NEGINT | tag::TIMESTAMP | tag::TIMESTAMP_NEG => {
                    self.varint()?;
                }
                tag::FLOAT => {
                    self.take(8)?;
                }
                tag::STRING => {
                    let n = self.count()?;
                    self.take(n)?;
                }
                container @ (tag::LIST | tag::RECORD) => {
                    left.push(self.count()?);
                    fields.push(container == tag::RECORD);
                }
                _ => return None,
            }
            // Close every container whose items are all read; open the next item.
            loop {
                match left.last_mut() {
                    None => return Some(()),
                    Some(0) => {
                        left.pop();
                        fields.pop();
                    }
                    Some(n) => {
                        *n -= 1;
                        if fields.last() == Some(&true) {
                            let name = self.count()?;
                            self.take(name)?;
                        }
                        break;
                    }
                }
            }
        }
    }
}
