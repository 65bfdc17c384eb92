//! Work that touches the disk runs on the libuv thread pool as `AsyncTask`s. Each is a
//! `Work`, run as a `Contained` task: `compute` runs the delegate in `unwind::run` (so
//! a panic stops the database and becomes a `Failure`, never an abort), and `resolve`,
//! on the JavaScript thread, converts the result, also contained, or maps the failure
//! (`error.rs`).

use std::sync::Arc;

use napi::bindgen_prelude::{Buffer, ToNapiValue, TypeName};
use napi::{Env, Task};

use crate::completions::Completions;
use crate::convert::{self, CheckpointInfo, CloseInfo, CompactInfo, FrameBatch, VerifyInfo};
use crate::error::{to_js, Failure};
use crate::unwind::{self, Access, Stop};

/// One async call of the binding.
pub trait Work: Send + Sized {
    type Output: Send + 'static;
    type JsValue: ToNapiValue + TypeName;
    /// The entry point, as JavaScript calls it.
    const ENTRY: &'static str;
    const ACCESS: Access = Access::Read;
    fn stop(&self) -> Stop<'_>;
    /// On the thread pool.
    fn compute(&self) -> storage::Result<Self::Output>;
    /// On the JavaScript thread: the value the promise resolves with.
    fn resolve(&self, output: Self::Output) -> Self::JsValue;
    /// On the JavaScript thread, once the promise settles either way.
    fn settled(&self) {}
}

pub struct Contained<W>(pub W);

impl<W: Work> Task for Contained<W> {
    type Output = Result<W::Output, Failure>;
    type JsValue = W::JsValue;

    fn compute(&mut self) -> napi::Result<Self::Output> {
        let work = &self.0;
        Ok(unwind::run(work.stop(), W::ENTRY, W::ACCESS, || work.compute()))
    }

    fn resolve(&mut self, env: Env, output: Self::Output) -> napi::Result<W::JsValue> {
        let work = &self.0;
        let value = output.and_then(|output| unwind::contain(work.stop(), W::ENTRY, || work.resolve(output)).map_err(Failure::Panic));
        work.settled();
        value.map_err(|failure| to_js(&env, failure))
    }
}

pub struct Checkpoint(pub Arc<storage::Database>);

impl Work for Checkpoint {
    type Output = storage::CheckpointStats;
    type JsValue = CheckpointInfo;
    const ENTRY: &'static str = "checkpoint";
    const ACCESS: Access = Access::Write;
    fn stop(&self) -> Stop<'_> {
        Stop::Db(&self.0)
    }
    fn compute(&self) -> storage::Result<storage::CheckpointStats> {
        self.0.checkpoint()
    }
    fn resolve(&self, stats: storage::CheckpointStats) -> CheckpointInfo {
        convert::checkpoint(stats)
    }
}

pub struct CompactSpace(pub Arc<storage::Database>);

impl Work for CompactSpace {
    type Output = storage::CompactReport;
    type JsValue = CompactInfo;
    const ENTRY: &'static str = "compactSpace";
    const ACCESS: Access = Access::Write;
    fn stop(&self) -> Stop<'_> {
        Stop::Db(&self.0)
    }
    fn compute(&self) -> storage::Result<storage::CompactReport> {
        self.0.compact_space()
    }
    fn resolve(&self, report: storage::CompactReport) -> CompactInfo {
        convert::compact(report)
    }
}

pub struct Verify(pub Arc<storage::Database>);

impl Work for Verify {
    type Output = storage::VerifyReport;
    type JsValue = VerifyInfo;
    const ENTRY: &'static str = "verify";
    fn stop(&self) -> Stop<'_> {
        Stop::Db(&self.0)
    }
    fn compute(&self) -> storage::Result<storage::VerifyReport> {
        self.0.verify()
    }
    fn resolve(&self, report: storage::VerifyReport) -> VerifyInfo {
        convert::verify(report)
    }
}

pub struct ReadFrames {
    pub db: Arc<storage::Database>,
    pub after: u64,
    pub frames_max: usize,
    pub bytes_max: usize,
}

impl Work for ReadFrames {
    type Output = Vec<storage::Frame>;
    type JsValue = FrameBatch;
    const ENTRY: &'static str = "readFrames";
    fn stop(&self) -> Stop<'_> {
        Stop::Db(&self.db)
    }
    fn compute(&self) -> storage::Result<Vec<storage::Frame>> {
        self.db.read_frames(self.after, self.frames_max, self.bytes_max)
    }
    fn resolve(&self, frames: Vec<storage::Frame>) -> FrameBatch {
        let lsns = frames.iter().map(|f| f.lsn as i64).collect();
        let payloads = frames.into_iter().map(|f| Buffer::from(f.payload)).collect();
        FrameBatch { lsns, payloads }
    }
}

/// After a stop the core's close skips its checkpoint and fails with `fail_stopped`,
/// still releasing the directory.
pub struct Close(pub Arc<storage::Database>, pub Arc<Completions>);

impl Work for Close {
    type Output = storage::CloseReport;
    type JsValue = CloseInfo;
    const ENTRY: &'static str = "close";
    fn stop(&self) -> Stop<'_> {
        Stop::Db(&self.0)
    }
    fn compute(&self) -> storage::Result<storage::CloseReport> {
        self.0.close()
    }
    fn resolve(&self, report: storage::CloseReport) -> CloseInfo {
        convert::close(report)
    }
    fn settled(&self) {
        self.1.release();
    }
}
