//! The storage core's share of the point reads and scans of docs/performance.md (P3,
//! P5), without Node: rows of the `kv` shape (26-byte keys, 185-byte values, as the row
//! codec stores them) in one tree. Made to run under a profiler, where instruction
//! counts are reproducible on a loaded machine:
//!
//! ```text
//! cargo build --release -p tenantdb-storage --example read_profile
//! target/release/examples/read_profile load /tmp/rp 1000000
//! valgrind --tool=callgrind --toggle-collect='*measured_gets*' \
//!     target/release/examples/read_profile get /tmp/rp 1000000 20000
//! target/release/examples/read_profile scan /tmp/rp 1000000 1
//! ```
//!
//! `get` reads keys spread over the whole tree (the harness's `spread`), first warming
//! the cache with as many reads again; `scan` reads every entry in batches of 1000.

use std::ops::Bound;
use std::path::Path;
use std::sync::{mpsc, Arc};
use std::time::Instant;

use storage::{Commit, Database, Op, Options, Snapshot};

const TREE: &[u8] = b"t/default/kv";
const CHUNK: u64 = 5_000;

fn key(i: u64) -> Vec<u8> {
    format!("\x02key-{i:020}\x00").into_bytes()
}

fn value(i: u64) -> Vec<u8> {
    let mut v = format!("row:k:key-{i:020}:v:a-{i}-").into_bytes();
    v.resize(185, b'v');
    v
}

fn spread(i: u64, count: u64) -> u64 {
    (i * 7919 + 13) % count
}

/// The bytes of `n` values read at `keys`, in turn.
fn gets(snapshot: &Snapshot, keys: &[Vec<u8>], n: u64) -> usize {
    (0..n as usize).map(|i| snapshot.get(TREE, &keys[i % keys.len()]).expect("get").map_or(0, |v| v.len())).sum()
}

/// The same, by another name for the profiler (`--toggle-collect=*measured_gets*`).
#[inline(never)]
fn measured_gets(snapshot: &Snapshot, keys: &[Vec<u8>], n: u64) -> usize {
    gets(snapshot, keys, n)
}

fn commit(db: &Database, commit: Commit) {
    let (tx, rx) = mpsc::channel();
    db.commit(commit, Box::new(move |r| tx.send(r).expect("send")));
    rx.recv().expect("recv").expect("commit");
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let usage = "usage: read_profile load|get|scan DIR ROWS [READS|PASSES]";
    let (mode, dir, rows) = match &args[1..] {
        [mode, dir, rows, ..] => (mode.as_str(), Path::new(dir), rows.parse::<u64>().expect(usage)),
        _ => panic!("{usage}"),
    };
    let n: u64 = args.get(4).map_or(20_000, |s| s.parse().expect(usage));
    let db = Database::open(dir, Options::default()).expect("open");
    let tree: Arc<[u8]> = Arc::from(TREE);
    match mode {
        "load" => {
            let started = Instant::now();
            for from in (0..rows).step_by(CHUNK as usize) {
                let ops = (from..(from + CHUNK).min(rows))
                    .map(|i| Op::Put { tree: tree.clone(), key: Arc::from(key(i)), value: Arc::from(value(i)) })
                    .collect();
                commit(&db, Commit { meta: Vec::new(), ops });
            }
            db.checkpoint().expect("checkpoint");
            println!("loaded {rows} rows in {:?}", started.elapsed());
        }
        "get" => {
            let snapshot = db.snapshot();
            let keys: Vec<Vec<u8>> = (0..10_000).map(|i| key(spread(i, rows))).collect();
            let mut found = 0usize;
            for round in 0..2 {
                let started = Instant::now();
                found += if round == 0 { gets(&snapshot, &keys, n) } else { measured_gets(&snapshot, &keys, n) };
                let micros = started.elapsed().as_secs_f64() * 1e6 / n as f64;
                let cache = db.stats().expect("stats").cache;
                println!("{} {n} gets: {micros:.3} µs each; cache {cache:?}", if round == 0 { "warm-up" } else { "measured" });
            }
            assert_eq!(found, 2 * n as usize * 185, "every read finds its row");
        }
        "scan" => {
            let snapshot = db.snapshot();
            for _ in 0..n {
                let started = Instant::now();
                let mut seen = 0u64;
                let mut last: Option<Vec<u8>> = None;
                loop {
                    let lower = last.as_deref().map_or(Bound::Unbounded, Bound::Excluded);
                    let batch = snapshot.range(TREE, lower, Bound::Unbounded, false, 1000).expect("range");
                    let Some((k, _)) = batch.last() else { break };
                    seen += batch.len() as u64;
                    last = Some(k.to_vec());
                }
                assert_eq!(seen, rows, "a scan sees every row");
                println!("scan of {rows} rows: {:.1} ns per row", started.elapsed().as_secs_f64() * 1e9 / rows as f64);
            }
        }
        _ => panic!("{usage}"),
    }
    db.close().expect("close");
}
