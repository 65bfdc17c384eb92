//! Work that touches the disk runs on the libuv thread pool as `AsyncTask`s.

use std::path::PathBuf;
use std::sync::Arc;

use napi::bindgen_prelude::Buffer;
use napi::{Env, Task};

use crate::completions::Completions;
use crate::convert::{self, CheckpointInfo, CloseInfo, CompactInfo, FrameBatch, VerifyInfo};
use crate::engine::Engine;
use crate::error::IntoNapi;

pub struct Open {
    pub dir: PathBuf,
    pub options: storage::Options,
    pub completions: Arc<Completions>,
}

impl Task for Open {
    type Output = storage::Database;
    type JsValue = Engine;
    fn compute(&mut self) -> napi::Result<Self::Output> {
        storage::Database::open(&self.dir, self.options.clone()).into_napi()
    }
    fn resolve(&mut self, _env: Env, db: Self::Output) -> napi::Result<Engine> {
        Ok(Engine { db: Arc::new(db), completions: self.completions.clone() })
    }
}

pub struct Checkpoint(pub Arc<storage::Database>);

impl Task for Checkpoint {
    type Output = storage::CheckpointStats;
    type JsValue = CheckpointInfo;
    fn compute(&mut self) -> napi::Result<Self::Output> {
        self.0.checkpoint().into_napi()
    }
    fn resolve(&mut self, _env: Env, stats: Self::Output) -> napi::Result<CheckpointInfo> {
        Ok(convert::checkpoint(stats))
    }
}

pub struct CompactSpace(pub Arc<storage::Database>);

impl Task for CompactSpace {
    type Output = storage::CompactReport;
    type JsValue = CompactInfo;
    fn compute(&mut self) -> napi::Result<Self::Output> {
        self.0.compact_space().into_napi()
    }
    fn resolve(&mut self, _env: Env, report: Self::Output) -> napi::Result<CompactInfo> {
        Ok(convert::compact(report))
    }
}

pub struct Verify(pub Arc<storage::Database>);

impl Task for Verify {
    type Output = storage::VerifyReport;
    type JsValue = VerifyInfo;
    fn compute(&mut self) -> napi::Result<Self::Output> {
        self.0.verify().into_napi()
    }
    fn resolve(&mut self, _env: Env, report: Self::Output) -> napi::Result<VerifyInfo> {
        Ok(convert::verify(report))
    }
}

pub struct ReadFrames {
    pub db: Arc<storage::Database>,
    pub after: u64,
    pub frames_max: usize,
    pub bytes_max: usize,
}

impl Task for ReadFrames {
    type Output = Vec<storage::Frame>;
    type JsValue = FrameBatch;
    fn compute(&mut self) -> napi::Result<Self::Output> {
        self.db.read_frames(self.after, self.frames_max, self.bytes_max).into_napi()
    }
    fn resolve(&mut self, _env: Env, frames: Self::Output) -> napi::Result<FrameBatch> {
        let lsns = frames.iter().map(|f| f.lsn as i64).collect();
        let payloads = frames.into_iter().map(|f| Buffer::from(f.payload)).collect();
        Ok(FrameBatch { lsns, payloads })
    }
}

pub struct Close(pub Arc<storage::Database>, pub Arc<Completions>);

impl Task for Close {
    type Output = storage::CloseReport;
    type JsValue = CloseInfo;
    fn compute(&mut self) -> napi::Result<Self::Output> {
        self.0.close().into_napi()
    }
    fn resolve(&mut self, _env: Env, report: Self::Output) -> napi::Result<CloseInfo> {
        self.1.release();
        Ok(convert::close(report))
    }
    fn reject(&mut self, _env: Env, err: napi::Error) -> napi::Result<CloseInfo> {
        self.1.release();
        Err(err)
    }
}
