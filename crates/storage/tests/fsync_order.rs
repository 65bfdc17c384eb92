//! The real fsync matters (docs/architecture.md, "Invariants", 1): a child process runs
//! a workload on the real file system under `strace`, and the system calls it made are
//! checked against the durability ordering rules (`common/durability_order.rs`): no
//! commit acknowledged before the `fdatasync` covering its WAL frame returned, page
//! slots synced before the meta record naming them is written, slot 0 before slot 1, an
//! in-place checkpoint's journal synced before any slot is written over, and a durable
//! record covering a WAL segment before the segment is removed.
//!
//! The kill -9 and power-loss tests cannot show this: kill -9 keeps the operating
//! system's page cache, and the simulated file system only models what the engine
//! asks of it. Here the calls the kernel received are the evidence.
//!
//! Negative controls: the same log with the WAL's syncs removed, with the page file's
//! removed, with the journal's removed, and with each segment removal moved to just
//! after that segment's last write must each break its rule (so the checker can fail).
//!
//! Needs `strace` (Debian package `strace`; `scripts/test-setup` installs it): without it this
//! test fails, saying so.

mod common;

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};

use common::durability_order::{check, Report};
use common::strace_log::{parse, Call};
use common::{commit, put, Rng};
use storage::{Database, Op, Options};

const CHILD_ENV: &str = "TENANTDB_FSYNC_CHILD_DIR";
const THREADS: u64 = 4;
const SMALL_COMMITS_PER_THREAD: u64 = 120;
/// Commits of about 1 MB each, enough to fill two 16 MiB WAL segments and start a
/// third, so that retention removes one.
const LARGE_COMMITS: u64 = 40;
const SYSCALLS: &str = "openat,pwrite64,write,fdatasync,fsync,ftruncate,rename,renameat,renameat2,unlink,unlinkat";

/// Checkpoints by the sync thread every `checkpoint_wal_bytes` of WAL, and no tail
/// kept for the change feed, so WAL segments are removed as soon as recovery no
/// longer needs them.
fn options(checkpoint_wal_bytes: u64) -> Options {
    Options { checkpoint_wal_bytes, tail_retention_bytes: 0, ..Options::default() }
}

/// The child: concurrent small commits that overwrite each other, checkpointed every
/// 8 KiB of WAL (so checkpoints free slots and write over them through the journal);
/// then, reopened, large commits checkpointed every 24 MiB, so a 16 MiB WAL segment
/// fills with frames no record covers yet. Each acknowledged commit is written to
/// stdout as `ack <lsn>` in one write.
#[test]
fn fsync_child_entry() {
    let Ok(dir) = std::env::var(CHILD_ENV) else { return };
    let db = Arc::new(Database::open(Path::new(&dir), options(8 << 10)).unwrap());
    let out = Arc::new(Mutex::new(std::io::stdout()));
    let ack = |out: &Mutex<std::io::Stdout>, lsn: u64| {
        let mut out = out.lock().unwrap();
        out.write_all(format!("ack {lsn}\n").as_bytes()).unwrap();
        out.flush().unwrap();
    };
    let threads: Vec<_> = (0..THREADS)
        .map(|t| {
            let (db, out) = (db.clone(), out.clone());
            std::thread::spawn(move || {
                let mut rng = Rng::new(t + 1);
                for n in 0..SMALL_COMMITS_PER_THREAD {
                    let key = format!("{t}-{:03}", n % 40 + rng.below(3));
                    ack(&out, db.commit_sync(commit(vec![put("t", key.as_bytes(), &rng.bytes(200))])).unwrap());
                }
            })
        })
        .collect();
    for thread in threads {
        thread.join().unwrap();
    }
    db.close().unwrap();
    let db = Database::open(Path::new(&dir), options(24 << 20)).unwrap();
    let mut rng = Rng::new(99);
    for n in 0..LARGE_COMMITS {
        // A large value put and deleted in one commit: a large WAL frame, a small checkpoint.
        let ops = vec![put("big", b"k", &rng.bytes(1_000_000)), Op::Delete { tree: b"big".to_vec(), key: b"k".to_vec() }, put("t", b"n", &n.to_le_bytes())];
        ack(&out, db.commit_sync(commit(ops)).unwrap());
    }
    db.close().unwrap();
}

fn traced_run(dir: &Path) -> Vec<Call> {
    let version = Command::new("strace").arg("-V").output();
    assert!(
        version.as_ref().is_ok_and(|o| o.status.success()),
        "strace is needed (Debian package strace; scripts/test-setup installs it): {version:?}"
    );
    let trace = dir.join("trace.log");
    let db = dir.join("db");
    let status = Command::new("strace")
        .args(["-f", "-y", "-xx", "-s", "1024", "-e", &format!("trace={SYSCALLS}"), "-o"])
        .arg(&trace)
        .arg(std::env::current_exe().unwrap())
        .args(["--exact", "fsync_child_entry", "--nocapture", "--test-threads=1"])
        .env(CHILD_ENV, &db)
        .stdout(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success(), "the traced workload failed: {status}");
    parse(&std::fs::read_to_string(&trace).unwrap()).unwrap_or_else(|e| panic!("the strace log: {e}"))
}

fn fd_ends_with(call: &Call, suffix: &str) -> bool {
    call.fd_path(0).is_some_and(|p| p.ends_with(suffix))
}

fn is_sync(call: &Call) -> bool {
    call.name == "fdatasync" || call.name == "fsync"
}

fn without(calls: &[Call], drop: impl Fn(&Call) -> bool) -> Vec<Call> {
    calls.iter().filter(|c| !drop(c)).cloned().collect()
}

fn broken(report: &Report, phrase: &str, control: &str) {
    assert!(report.violations.iter().any(|v| v.contains(phrase)), "negative control '{control}' was not caught: {:?}", &report.violations[..report.violations.len().min(5)]);
}

#[test]
fn fsync_durability_syscalls_are_ordered_as_the_design_requires() {
    let dir = tempfile::tempdir().unwrap();
    let calls = traced_run(dir.path());
    let db = dir.path().join("db").to_string_lossy().into_owned();
    let report = check(&calls, &db);
    eprintln!(
        "fsync order: {} calls; {} acks, {} WAL batches, {} meta slot writes, {} journal uses, {} segments removed, {} page file cuts",
        calls.len(),
        report.acks,
        report.wal_batches,
        report.meta_writes,
        report.journal_uses,
        report.segments_removed,
        report.page_file_cuts
    );
    assert!(report.violations.is_empty(), "{} violations, first: {:?}", report.violations.len(), &report.violations[..report.violations.len().min(10)]);
    // The run did what the rules are about.
    assert_eq!(report.acks as u64, THREADS * SMALL_COMMITS_PER_THREAD + LARGE_COMMITS, "every commit acknowledged");
    assert!(report.wal_batches < report.acks, "group commit put several commits in one batch");
    assert!(report.meta_writes >= 20 && report.journal_uses >= 1 && report.segments_removed >= 1, "{report:?}");

    // Negative controls: each rule fails on a log where the engine skipped its sync.
    let no_wal_sync = check(&without(&calls, |c| is_sync(c) && fd_ends_with(c, ".wal")), &db);
    broken(&no_wal_sync, "acknowledged before the sync covering its WAL frame returned", "WAL syncs removed");
    let no_page_sync = check(&without(&calls, |c| is_sync(c) && fd_ends_with(c, "/pages")), &db);
    broken(&no_page_sync, "written while writes at", "page file syncs removed");
    broken(&no_page_sync, "removed while the durable record's checkpoint is", "page file syncs removed");
    let no_journal_sync = check(&without(&calls, |c| is_sync(c) && fd_ends_with(c, "checkpoint.journal")), &db);
    broken(&no_journal_sync, "written over while the journal was not synced", "journal syncs removed");
    // Each segment removed right after its last frame was written, before the
    // checkpoint that covers it.
    let mut early = calls.clone();
    for call in early.iter_mut().filter(|c| c.name.starts_with("unlink")) {
        let path = call.bytes(if call.name == "unlink" { 0 } else { 1 }).map(|(b, _)| String::from_utf8_lossy(b).into_owned()).unwrap_or_default();
        let Some(name) = path.rsplit('/').next().filter(|n| n.ends_with(".wal")) else { continue };
        let last_write = calls.iter().filter(|c| c.name == "pwrite64" && fd_ends_with(c, name)).map(|c| c.end).max().unwrap();
        (call.start, call.end) = (last_write + 1, last_write + 1);
    }
    broken(&check(&early, &db), "removed while the durable record's checkpoint is", "segment removal moved before its checkpoint");
}
