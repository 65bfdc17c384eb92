//! Work that touches the disk runs on the libuv thread pool as `AsyncTask`s. Each
//! computes a `storage::Result` and maps a failure in `resolve`, on the JavaScript
//! thread, where `error.rs` can build the error object.

use std::path::PathBuf;
use std::sync::Arc;

use napi::bindgen_prelude::Buffer;
use napi::{Env, Task};

use crate::completions::Completions;
use crate::convert::{self, CheckpointInfo, CloseInfo, CompactInfo, FrameBatch, VerifyInfo};
use crate::engine::Engine;
use crate::error::OrThrow;

pub struct Open {
    pub dir: PathBuf,
    pub options: storage::Options,
    pub completions: Arc<Completions>,
}

impl Task for Open {
    type Output = storage::Result<storage::Database>;
    type JsValue = Engine;
    fn compute(&mut self) -> napi::Result<Self::Output> {
        Ok(storage::Database::open(&self.dir, self.options.clone()))
    }
    fn resolve(&mut self, env: Env, db: Self::Output) -> napi::Result<Engine> {
        Ok(Engine { db: Arc::new(db.or_throw(&env)?), completions: self.completions.clone() })
    }
}

pub struct Checkpoint(pub Arc<storage::Database>);

impl Task for Checkpoint {
    type Output = storage::Result<storage::CheckpointStats>;
    type JsValue = CheckpointInfo;
    fn compute(&mut self) -> napi::Result<Self::Output> {
        Ok(self.0.checkpoint())
    }
    fn resolve(&mut self, env: Env, stats: Self::Output) -> napi::Result<CheckpointInfo> {
        stats.or_throw(&env).map(convert::checkpoint)
    }
}

pub struct CompactSpace(pub Arc<storage::Database>);

impl Task for CompactSpace {
    type Output = storage::Result<storage::CompactReport>;
    type JsValue = CompactInfo;
    fn compute(&mut self) -> napi::Result<Self::Output> {
        Ok(self.0.compact_space())
    }
    fn resolve(&mut self, env: Env, report: Self::Output) -> napi::Result<CompactInfo> {
        report.or_throw(&env).map(convert::compact)
    }
}

pub struct Verify(pub Arc<storage::Database>);

impl Task for Verify {
    type Output = storage::Result<storage::VerifyReport>;
    type JsValue = VerifyInfo;
    fn compute(&mut self) -> napi::Result<Self::Output> {
        Ok(self.0.verify())
    }
    fn resolve(&mut self, env: Env, report: Self::Output) -> napi::Result<VerifyInfo> {
        report.or_throw(&env).map(convert::verify)
    }
}

pub struct ReadFrames {
    pub db: Arc<storage::Database>,
    pub after: u64,
    pub frames_max: usize,
    pub bytes_max: usize,
}

impl Task for ReadFrames {
    type Output = storage::Result<Vec<storage::Frame>>;
    type JsValue = FrameBatch;
    fn compute(&mut self) -> napi::Result<Self::Output> {
        Ok(self.db.read_frames(self.after, self.frames_max, self.bytes_max))
    }
    fn resolve(&mut self, env: Env, frames: Self::Output) -> napi::Result<FrameBatch> {
        let frames = frames.or_throw(&env)?;
        let lsns = frames.iter().map(|f| f.lsn as i64).collect();
        let payloads = frames.into_iter().map(|f| Buffer::from(f.payload)).collect();
        Ok(FrameBatch { lsns, payloads })
    }
}

pub struct Close(pub Arc<storage::Database>, pub Arc<Completions>);

impl Task for Close {
    type Output = storage::Result<storage::CloseReport>;
    type JsValue = CloseInfo;
    fn compute(&mut self) -> napi::Result<Self::Output> {
        Ok(self.0.close())
    }
    fn resolve(&mut self, env: Env, report: Self::Output) -> napi::Result<CloseInfo> {
        self.1.release();
        report.or_throw(&env).map(convert::close)
    }
    fn reject(&mut self, _env: Env, err: napi::Error) -> napi::Result<CloseInfo> {
        self.1.release();
        Err(err)
    }
}
