//! The child process of the kill -9 loop (`tests/crash_kill9.rs`), a binary of its own
//! (not a test): it opens the directory it is given and commits from several threads
//! until killed, printing `ack <id>` for each commit once it is acknowledged.
//!
//! Usage: `tenantdb-kill9-child <dir> <cycle>`; thread `t` commits ids
//! `cycle * IDS_PER_CYCLE + t + THREADS * n` for n = 0, 1, …

#[path = "../common/kill9.rs"]
mod kill9;

use std::io::Write;
use std::path::Path;
use std::sync::{Arc, Mutex};

use storage::Database;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let [_, dir, cycle] = &args[..] else {
        eprintln!("usage: tenantdb-kill9-child <dir> <cycle>");
        std::process::exit(2);
    };
    let first = cycle.parse::<u64>().expect("the cycle is a number") * kill9::IDS_PER_CYCLE;
    let db = Arc::new(Database::open(Path::new(dir), kill9::options()).expect("open"));
    let out = Arc::new(Mutex::new(std::io::stdout()));
    let threads: Vec<_> = (0..kill9::THREADS)
        .map(|t| {
            let (db, out) = (db.clone(), out.clone());
            std::thread::spawn(move || {
                for n in 0.. {
                    let id = first + t + kill9::THREADS * n;
                    db.commit_sync(kill9::commit_for(id)).expect("commit");
                    let mut out = out.lock().expect("stdout lock");
                    writeln!(out, "ack {id}").expect("write to the parent");
                    out.flush().expect("flush to the parent");
                }
            })
        })
        .collect();
    for thread in threads {
        thread.join().expect("a committing thread panicked");
    }
}
