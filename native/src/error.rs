//! The one place where storage errors become JavaScript errors.
//!
//! napi-rs only throws `Error<Status>`, whose `code` is a napi status, so the storage
//! error's stable code travels as a message prefix: `"<code>: <sentence>"`, e.g.
//! `"corrupted: page 12 is corrupted (checksum check failed)"`. `src/engine/` parses
//! it back into a typed `EngineError` (the only reader of this convention).

pub fn to_napi(err: storage::Error) -> napi::Error {
    napi::Error::new(napi::Status::GenericFailure, format!("{}: {err}", err.code()))
}

pub trait IntoNapi<T> {
    fn into_napi(self) -> napi::Result<T>;
}

impl<T> IntoNapi<T> for storage::Result<T> {
    fn into_napi(self) -> napi::Result<T> {
        self.map_err(to_napi)
    }
}
