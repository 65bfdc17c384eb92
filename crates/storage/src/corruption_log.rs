//! Corruption reports, persisted in the directory so that a restart never hides a
//! detected failure (docs/architecture.md, "Corruption"). Reports are cleared only by restoring or recreating the
//! directory.
//!
//! File `corruption.log`: a header line `# tenantdb corruption reports v1`, then one
//! report per line, fields separated by tabs:
//!
//! | field          | meaning                                                  |
//! |----------------|----------------------------------------------------------|
//! | id             | identity: `page:<n>` or `wal:<segment>@<offset>`         |
//! | file           | `pages` or `wal/<segment>`                               |
//! | page           | page number, or `-` for WAL reports                      |
//! | kind           | `checksum`, `page_number`, `page_type`, `meta`, `stale`, `tree`, `wal_frame` |
//! | count          | times detected                                           |
//! | first_seen_ms  | Unix time of the first detection, in milliseconds        |
//! | last_seen_ms   | Unix time of the latest detection, in milliseconds       |
//!
//! The file is replaced whole (write a temporary file, sync it, rename, sync the
//! directory), so a crash leaves either the old or the new list. A database opened
//! read-only reads the file but never writes it: its new reports stay in memory
//! (and are shown by `stats` and returned by `verify`).

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};

use crate::error::{Error, Result};
use crate::vfs::Vfs;

pub const CORRUPTION_FILE_NAME: &str = "corruption.log";
const HEADER: &str = "# tenantdb corruption reports v1";

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CorruptionReport {
    pub id: String,
    pub file: String,
    pub page: Option<u64>,
    pub kind: String,
    pub count: u64,
    pub first_seen_ms: u64,
    pub last_seen_ms: u64,
}

pub struct CorruptionLog {
    vfs: Arc<dyn Vfs>,
    dir: PathBuf,
    reports: Mutex<Vec<CorruptionReport>>,
    /// False for a read-only database: reports are kept in memory only.
    persist: bool,
}

impl CorruptionLog {
    pub fn open(vfs: Arc<dyn Vfs>, dir: &Path, persist: bool) -> Result<CorruptionLog> {
        let path = dir.join(CORRUPTION_FILE_NAME);
        let reports = match vfs.open_read(&path) {
            Ok(file) => {
                let len = file.len().map_err(|e| Error::io("stat", &path, e))? as usize;
                let mut bytes = vec![0u8; len];
                crate::vfs::read_full_or_zero(&*file, &mut bytes, 0).map_err(|e| Error::io("read", &path, e))?;
                parse(&String::from_utf8_lossy(&bytes))
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
            Err(e) => return Err(Error::io("open", &path, e)),
        };
        Ok(CorruptionLog { vfs, dir: dir.to_path_buf(), reports: Mutex::new(reports), persist })
    }

    pub fn reports(&self) -> Vec<CorruptionReport> {
        self.reports.lock().expect("corruption log lock").clone()
    }

    /// The detections of every report. Counts come from a file a person can edit (a
    /// count may be u64::MAX), so the sum stops at the largest count, never wraps.
    pub fn total(&self) -> u64 {
        self.reports.lock().expect("corruption log lock").iter().fold(0u64, |total, r| total.saturating_add(r.count))
    }

    /// Records one detection and persists the list (unless read-only). A failure to
    /// persist is returned, but the report is kept in memory either way, so it is
    /// still shown.
    pub fn record(&self, id: String, file: String, page: Option<u64>, kind: &str) -> Result<()> {
        let now = now_ms();
        let mut reports = self.reports.lock().expect("corruption log lock");
        match reports.iter_mut().find(|r| r.id == id && r.kind == kind) {
            Some(report) => {
                report.count = report.count.saturating_add(1);
                report.last_seen_ms = now;
            }
            None => reports.push(CorruptionReport {
                id, file, page, kind: kind.to_string(), count: 1, first_seen_ms: now, last_seen_ms: now,
            }),
        }
        if !self.persist {
            return Ok(());
        }
        self.write_file(&reports)
    }

    fn write_file(&self, reports: &[CorruptionReport]) -> Result<()> {
        let mut text = format!("{HEADER}\n");
        for r in reports {
            let page = r.page.map_or("-".to_string(), |p| p.to_string());
            text.push_str(&format!(
                "{}\t{}\t{}\t{}\t{}\t{}\t{}\n",
                r.id, r.file, page, r.kind, r.count, r.first_seen_ms, r.last_seen_ms
            ));
        }
        let tmp = self.dir.join(format!("{CORRUPTION_FILE_NAME}.tmp"));
        let path = self.dir.join(CORRUPTION_FILE_NAME);
        let file = self.vfs.open(&tmp, true).map_err(|e| Error::io("open", &tmp, e))?;
        file.set_len(0).map_err(|e| Error::io("truncate", &tmp, e))?;
        file.write_at(text.as_bytes(), 0).map_err(|e| Error::io("write", &tmp, e))?;
        file.sync().map_err(|e| Error::io("fsync", &tmp, e))?;
        self.vfs.rename(&tmp, &path).map_err(|e| Error::io("rename", &path, e))?;
        self.vfs.sync_dir(&self.dir).map_err(|e| Error::io("fsync directory", &self.dir, e))
    }
}

fn parse(text: &str) -> Vec<CorruptionReport> {
    text.lines()
        .filter(|line| !line.starts_with('#') && !line.is_empty())
        .filter_map(|line| {
            let f: Vec<&str> = line.split('\t').collect();
            if f.len() != 7 {
                return None;
            }
            Some(CorruptionReport {
                id: f[0].to_string(),
                file: f[1].to_string(),
                page: f[2].parse().ok(),
                kind: f[3].to_string(),
                count: f[4].parse().ok()?,
                first_seen_ms: f[5].parse().ok()?,
                last_seen_ms: f[6].parse().ok()?,
            })
        })
        .collect()
}

fn now_ms() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_millis() as u64)
}
