//! The ordering rules of durability (docs/architecture.md,
//! "Commit, group commit and durability"; the WAL's and the checkpoint's module docs),
//! checked against the system calls a real run made (`strace_log.rs`). A write counts
//! as durable once an `fdatasync`/`fsync` of its file that was entered after the write
//! returned has itself returned 0; a created or renamed name once an `fsync` of its
//! directory did the same.
//!
//! 1. A commit is acknowledged (the workload writes `ack <lsn>` to fd 1 once
//!    `commit_sync` returned) only after its WAL frame is durable, and its segment's
//!    name and the page file's name too.
//! 2. A meta slot is written only when every page slot written before is durable, and
//!    slot 1 only when slot 0's write is (the mirrors).
//! 3. While a checkpoint journal is in use (written since it was last cut to 0), a page
//!    slot is written only when the whole journal is durable; the journal is cut only
//!    when everything written to the page file is durable.
//! 4. A WAL segment is removed only when a durable meta record in both slots has a
//!    checkpoint LSN at or past its last frame.
//! 5. The page file is cut short only when its meta slots are durable; `pages.tmp` is
//!    renamed to `pages` only when its writes are durable.

use std::collections::{HashMap, HashSet};

use super::strace_log::Call;

const PAGE: u64 = 4096;

#[derive(Debug, Default)]
pub struct Report {
    pub violations: Vec<String>,
    pub acks: usize,
    pub wal_batches: usize,
    pub meta_writes: usize,
    pub journal_uses: usize,
    pub segments_removed: usize,
    pub page_file_cuts: usize,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum File {
    Pages(String),
    Journal,
    Wal(String),
    Dir(String),
}

struct Write {
    file: File,
    offset: u64,
    lsns: Vec<u64>,
    /// A meta slot's write: the slot and its record's checkpoint LSN.
    meta: Option<(u64, u64)>,
}

#[derive(Default)]
struct State {
    writes: Vec<Write>,
    /// Writes returned and not yet covered by a returned sync, per file.
    dirty: HashMap<File, Vec<usize>>,
    /// Syncs entered and not yet returned: their file and what they cover.
    syncing: HashMap<usize, (File, Vec<usize>)>,
    /// Created or renamed names whose directory was not synced since, per directory.
    names: HashMap<String, HashSet<String>>,
    dir_syncing: HashMap<usize, (String, HashSet<String>)>,
    durable_lsns: HashSet<u64>,
    segment_of: HashMap<u64, String>,
    last_lsn: HashMap<String, u64>,
    durable_meta: [Option<u64>; 2],
    journal_active: bool,
}

fn classify(dir: &str, path: &str) -> Option<File> {
    let rest = path.strip_prefix(dir)?;
    match rest {
        "" => Some(File::Dir(dir.to_string())),
        "/wal" => Some(File::Dir(path.to_string())),
        "/pages" | "/pages.tmp" => Some(File::Pages(path.to_string())),
        "/checkpoint.journal" => Some(File::Journal),
        _ => rest.strip_prefix("/wal/").filter(|n| n.ends_with(".wal")).map(|n| File::Wal(n.to_string())),
    }
}

fn u32_at(b: &[u8], at: usize) -> u64 {
    u32::from_le_bytes(b[at..at + 4].try_into().unwrap()) as u64
}

fn u64_at(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().unwrap())
}

/// The LSNs of the frames a WAL write holds, or none for a zero-fill.
fn frames(bytes: &[u8], count: u64) -> Result<Vec<u64>, String> {
    if bytes.iter().all(|&b| b == 0) {
        return Ok(Vec::new());
    }
    let mut lsns = Vec::new();
    let mut at = 0u64;
    while at < count {
        let o = at as usize;
        if o + 16 > bytes.len() || &bytes[o..o + 4] != b"TWAL" {
            return Err(format!("a WAL write whose frame at byte {at} of {count} is not visible (raise strace -s)"));
        }
        lsns.push(u64_at(bytes, o + 8));
        at += (32 + u32_at(bytes, o + 4)).next_multiple_of(8);
    }
    Ok(lsns)
}

fn path_arg(call: &Call, i: usize) -> String {
    call.bytes(i).map(|(b, _)| String::from_utf8_lossy(b).into_owned()).unwrap_or_default()
}

impl State {
    fn dirty_where(&self, file: &File, pred: impl Fn(&Write) -> bool) -> Vec<u64> {
        self.dirty.get(file).into_iter().flatten().map(|&i| &self.writes[i]).filter(|w| pred(w)).map(|w| w.offset).collect()
    }
}

/// Checks the rules on `calls` of a run on database directory `dir`.
pub fn check(calls: &[Call], dir: &str) -> Report {
    let mut report = Report::default();
    let mut s = State::default();
    // Every call is looked at where it was entered and where it returned.
    let mut points: Vec<(usize, bool, usize)> = Vec::new();
    for (i, call) in calls.iter().enumerate().filter(|(_, c)| c.ret >= 0) {
        points.push((call.start, false, i));
        points.push((call.end, true, i));
    }
    points.sort();
    let wal_dir = format!("{dir}/wal");
    for (_, returned, i) in points {
        let call = &calls[i];
        let fd_file = call.fd_path(0).and_then(|p| classify(dir, p));
        let mut found: Vec<String> = Vec::new();
        match (call.name.as_str(), returned) {
            ("write", false) if matches!(call.args.first(), Some(super::strace_log::Arg::Fd(1, _))) => {
                let Some(lsn) = call.bytes(1).and_then(|(b, _)| std::str::from_utf8(b).ok()?.strip_prefix("ack ")?.trim().parse::<u64>().ok()) else { continue };
                report.acks += 1;
                if !s.durable_lsns.contains(&lsn) {
                    found.push(format!("commit {lsn} acknowledged before the sync covering its WAL frame returned"));
                }
                let segment = s.segment_of.get(&lsn).cloned().unwrap_or_default();
                if s.names.get(&wal_dir).is_some_and(|n| n.contains(&segment)) {
                    found.push(format!("commit {lsn} acknowledged before the name of segment {segment} was synced"));
                }
                if s.names.get(dir).is_some_and(|n| n.contains("pages")) {
                    found.push(format!("commit {lsn} acknowledged before the page file's name was synced"));
                }
            }
            ("pwrite64", false) => match &fd_file {
                Some(File::Pages(path)) => {
                    let offset = call.number(3).unwrap_or(u64::MAX);
                    let file = File::Pages(path.clone());
                    // `pages.tmp` (a new directory's first record, in both slots) is
                    // invisible until it is synced and renamed (rule 5).
                    if offset < 2 * PAGE && !path.ends_with(".tmp") {
                        let slot = offset / PAGE;
                        let unsynced = s.dirty_where(&file, |w| w.offset >= 2 * PAGE || (slot == 1 && w.offset == 0));
                        if !unsynced.is_empty() {
                            found.push(format!("meta slot {slot} written while writes at {unsynced:?} were not synced"));
                        }
                    } else if offset >= 2 * PAGE && s.journal_active && !s.dirty_where(&File::Journal, |_| true).is_empty() {
                        found.push(format!("page slot {} written over while the journal was not synced", offset / PAGE));
                    }
                }
                Some(File::Journal) => {}
                _ => {}
            },
            ("pwrite64", true) => {
                let Some(file) = fd_file else { continue };
                let offset = call.number(3).unwrap_or(0);
                let (bytes, _) = call.bytes(1).unwrap_or((&[], false));
                let mut write = Write { file: file.clone(), offset, lsns: Vec::new(), meta: None };
                match &file {
                    File::Wal(segment) => match frames(bytes, call.number(2).unwrap_or(0)) {
                        Ok(lsns) => {
                            report.wal_batches += usize::from(!lsns.is_empty());
                            for &lsn in &lsns {
                                s.segment_of.insert(lsn, segment.clone());
                                let last = s.last_lsn.entry(segment.clone()).or_default();
                                *last = (*last).max(lsn);
                            }
                            write.lsns = lsns;
                        }
                        Err(e) => found.push(e),
                    },
                    File::Pages(_) if offset < 2 * PAGE => {
                        if bytes.len() < 72 || bytes[24] != 1 {
                            found.push("a meta slot write that is not a visible meta record".into());
                        } else {
                            report.meta_writes += 1;
                            write.meta = Some((offset / PAGE, u64_at(bytes, 64)));
                        }
                    }
                    File::Journal => {
                        report.journal_uses += usize::from(!s.journal_active);
                        s.journal_active = true;
                    }
                    _ => {}
                }
                s.writes.push(write);
                s.dirty.entry(file).or_default().push(s.writes.len() - 1);
            }
            ("fdatasync" | "fsync", false) => match fd_file {
                Some(File::Dir(d)) => {
                    let pending = s.names.get(&d).cloned().unwrap_or_default();
                    s.dir_syncing.insert(i, (d, pending));
                }
                Some(file) => {
                    let covered = s.dirty.get(&file).cloned().unwrap_or_default();
                    s.syncing.insert(i, (file, covered));
                }
                None => {}
            },
            ("fdatasync" | "fsync", true) => {
                if let Some((d, synced)) = s.dir_syncing.remove(&i) {
                    s.names.entry(d).or_default().retain(|n| !synced.contains(n));
                }
                if let Some((file, covered)) = s.syncing.remove(&i) {
                    s.dirty.entry(file).or_default().retain(|w| !covered.contains(w));
                    for &w in &covered {
                        s.durable_lsns.extend(s.writes[w].lsns.iter().copied());
                        if let (Some((slot, lsn)), File::Pages(_)) = (s.writes[w].meta, &s.writes[w].file) {
                            s.durable_meta[slot as usize] = Some(lsn);
                        }
                    }
                }
            }
            ("openat", true) if call.other(2).is_some_and(|flags| flags.contains("O_CREAT")) => {
                let path = call.ret_path.clone().unwrap_or_default();
                if let Some((parent, name)) = path.rsplit_once('/') {
                    s.names.entry(parent.to_string()).or_default().insert(name.to_string());
                }
            }
            ("ftruncate", false) => match fd_file {
                Some(File::Journal) if call.number(1) == Some(0) => {
                    let pages = format!("{dir}/pages");
                    let unsynced = s.dirty_where(&File::Pages(pages), |_| true);
                    if !unsynced.is_empty() {
                        found.push(format!("journal cut while page file writes at {unsynced:?} were not synced"));
                    }
                    s.journal_active = false;
                }
                Some(File::Pages(path)) if !path.ends_with(".tmp") => {
                    report.page_file_cuts += 1;
                    let unsynced = s.dirty_where(&File::Pages(path), |w| w.meta.is_some());
                    if !unsynced.is_empty() {
                        found.push("page file cut short before its meta record was synced".into());
                    }
                }
                _ => {}
            },
            ("rename" | "renameat" | "renameat2", false) => {
                let (from, to) = if call.name == "rename" { (path_arg(call, 0), path_arg(call, 1)) } else { (path_arg(call, 1), path_arg(call, 3)) };
                if let Some(file @ File::Pages(_)) = classify(dir, &from) {
                    if !s.dirty_where(&file, |_| true).is_empty() {
                        found.push(format!("{from} renamed before its writes were synced"));
                    }
                }
                if let Some((parent, name)) = to.rsplit_once('/') {
                    s.names.entry(parent.to_string()).or_default().insert(name.to_string());
                }
            }
            ("unlink" | "unlinkat", false) => {
                let path = path_arg(call, if call.name == "unlink" { 0 } else { 1 });
                if let Some(File::Wal(segment)) = classify(dir, &path) {
                    report.segments_removed += 1;
                    let last = s.last_lsn.get(&segment).copied().unwrap_or(0);
                    let durable = s.durable_meta[0].min(s.durable_meta[1]);
                    if durable.is_none_or(|lsn| lsn < last) {
                        found.push(format!("segment {segment} (frames up to {last}) removed while the durable record's checkpoint is {durable:?}"));
                    }
                }
            }
            _ => {}
        }
        report.violations.extend(found.into_iter().map(|text| format!("log line {}: {}: {text}", call.start + 1, call.name)));
    }
    report
}
