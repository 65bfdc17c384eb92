//! Crash test (R1, engine level): a child process commits from several threads and
//! reports each acknowledged commit on stdout; the parent kills it with SIGKILL at a
//! random moment, reopens the directory and checks that every acknowledged commit is
//! present, that no commit is partial, and that verify is clean. Then again, on the
//! same directory, for many cycles.

mod common;

use std::collections::BTreeSet;
use std::io::{BufRead, BufReader, Write};
use std::ops::Bound;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use common::{commit, put, Rng};
use storage::{Database, Options};

const CHILD_ENV: &str = "TENANTDB_KILL9_CHILD_DIR";
const THREADS: u64 = 4;

fn options() -> Options {
    // Small checkpoint threshold, so kills also land in and around checkpoints.
    Options { checkpoint_wal_bytes: 256 * 1024, ..Options::default() }
}

/// Commit `id` writes three keys with the same value: all three exist or none.
fn commit_for(id: u64) -> storage::Commit {
    let value = format!("{id:016}").repeat(1 + (id % 7) as usize * 40).into_bytes();
    commit(["x", "y", "z"].iter().map(|part| put("t", format!("{id:016}.{part}").as_bytes(), &value)).collect())
}

/// The child: commits ids `start + thread + THREADS * n` from each thread until killed.
#[test]
fn crash_kill9_child_entry() {
    let Ok(dir) = std::env::var(CHILD_ENV) else { return };
    let start: u64 = std::env::var("TENANTDB_KILL9_START").unwrap().parse().unwrap();
    let db = Arc::new(Database::open(Path::new(&dir), options()).unwrap());
    let out = Arc::new(std::sync::Mutex::new(std::io::stdout()));
    let threads: Vec<_> = (0..THREADS)
        .map(|t| {
            let (db, out) = (db.clone(), out.clone());
            std::thread::spawn(move || {
                for n in 0.. {
                    let id = start + t + THREADS * n;
                    db.commit_sync(commit_for(id)).unwrap();
                    let mut out = out.lock().unwrap();
                    writeln!(out, "ack {id}").unwrap();
                    out.flush().unwrap();
                }
            })
        })
        .collect();
    for thread in threads {
        thread.join().unwrap();
    }
}

#[test]
fn crash_kill9_loop_loses_no_acknowledged_commit() {
    let cycles: u64 = std::env::var("TENANTDB_KILL9_CYCLES").ok().and_then(|s| s.parse().ok()).unwrap_or(100);
    let dir = tempfile::tempdir().unwrap();
    let mut rng = Rng::new(99);
    let mut acked_total = BTreeSet::new();
    let exe = std::env::current_exe().unwrap();
    for cycle in 0..cycles {
        let start = cycle * 1_000_000;
        let mut child = Command::new(&exe)
            .args(["--exact", "crash_kill9_child_entry", "--nocapture", "--test-threads=1"])
            .env(CHILD_ENV, dir.path())
            .env("TENANTDB_KILL9_START", start.to_string())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let reader = std::thread::spawn(move || {
            BufReader::new(stdout)
                .lines()
                .map_while(Result::ok)
                .filter_map(|line| line.strip_prefix("ack ").and_then(|id| id.parse::<u64>().ok()))
                .collect::<Vec<u64>>()
        });
        // Let it run a random while (it needs a moment to start), then kill -9.
        let started = Instant::now();
        std::thread::sleep(Duration::from_millis(5 + rng.below(60)));
        child.kill().unwrap();
        child.wait().unwrap();
        let acked = reader.join().unwrap();
        let lived = started.elapsed();

        let db = Database::open(dir.path(), options()).unwrap_or_else(|e| panic!("cycle {cycle}: reopen: {e}"));
        let snapshot = db.snapshot();
        for id in &acked {
            let value = snapshot.get(b"t", format!("{id:016}.x").as_bytes()).unwrap();
            assert!(value.is_some(), "cycle {cycle}: acknowledged commit {id} lost (child lived {lived:?})");
        }
        // No partial commit: read everything, group by id, all three parts or none.
        let mut parts: std::collections::BTreeMap<String, Vec<String>> = Default::default();
        let mut last: Option<Vec<u8>> = None;
        loop {
            let lower = last.as_deref().map_or(Bound::Unbounded, Bound::Excluded);
            let batch = snapshot.range(b"t", lower, Bound::Unbounded, false, 1000).unwrap();
            if batch.is_empty() {
                break;
            }
            for (key, value) in batch {
                let key_text = String::from_utf8(key.to_vec()).unwrap();
                let (id, part) = key_text.split_once('.').unwrap();
                assert!(value.starts_with(id.as_bytes()), "cycle {cycle}: {key_text} holds another commit's value");
                parts.entry(id.to_string()).or_default().push(part.to_string());
                last = Some(key.to_vec());
            }
        }
        for (id, got) in &parts {
            assert_eq!(got, &["x", "y", "z"], "cycle {cycle}: commit {id} is partial");
        }
        let report = db.verify().unwrap();
        assert!(report.problems.is_empty(), "cycle {cycle}: verify: {:?}", report.problems);
        assert_eq!(db.stats().unwrap().corruption_total, 0);
        acked_total.extend(acked);
        db.close().unwrap();
    }
    eprintln!("kill -9 cycles: {cycles}, acknowledged commits checked: {}", acked_total.len());
    assert!(acked_total.len() as u64 > cycles, "the child barely committed anything");
}
