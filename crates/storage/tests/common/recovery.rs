//! What a scheduled run (`schedule.rs`) must have left behind, checked after a crash
//! or a restart: exactly the acknowledged commits, plus possibly a prefix of the batch
//! whose outcome was unknown (its frames are written in order; each commit whole or
//! not at all), every pin reading what it pinned, a clean `verify`, and a database
//! that carries on from there.

use super::schedule::{schedule_options, Outcome, Run};
use super::state::State;
use super::{commit, db_path, put};
use storage::vfs::SimVfs;
use storage::Database;

/// Returns how many of the commits whose outcome was unknown were recovered.
pub fn check_recovery(vfs: SimVfs, run: &Run, context: &str) -> u64 {
    let db = Database::open(&db_path(), schedule_options(&vfs)).unwrap_or_else(|e| panic!("{context}: recovery failed: {e}"));
    let snapshot = db.snapshot();
    let got = State::read(&snapshot);
    let unknown: Vec<_> = run.attempts.iter().filter(|(_, o)| *o == Outcome::Unknown).map(|(c, _)| c).collect();
    if let Some(first_unknown) = run.attempts.iter().position(|(_, o)| *o == Outcome::Unknown) {
        assert!(run.attempts[first_unknown..].iter().all(|(_, o)| *o != Outcome::Acked), "{context}: a commit acknowledged after a fail-stop");
    }
    // The LSN says how many of the unknown ones were recovered; the state must be
    // exactly those on top of the acknowledged ones.
    let acked = run.count(Outcome::Acked) as u64;
    let lsn = snapshot.lsn();
    assert!(
        lsn >= acked && lsn - acked <= unknown.len() as u64,
        "{context}: recovered LSN {lsn}, but {acked} commits were acknowledged and {} had an unknown outcome",
        unknown.len()
    );
    let mut want = State::of(run.attempts.iter().filter(|(_, o)| *o == Outcome::Acked).map(|(c, _)| c));
    for commit in &unknown[..(lsn - acked) as usize] {
        want.apply(commit);
    }
    assert!(
        got == want,
        "{context}: the recovered state is not the {acked} acknowledged commits plus the first {} of the {} whose outcome is unknown\n got: {}\nwant: {}",
        lsn - acked,
        unknown.len(),
        summary(&got),
        summary(&want)
    );
    drop(snapshot);
    let report = db.verify().unwrap_or_else(|e| panic!("{context}: verify failed: {e}"));
    assert!(report.problems.is_empty(), "{context}: verify after recovery: {:?}", report.problems);
    let stats = db.stats().unwrap();
    assert_eq!(stats.corruption_total, 0, "{context}: corruption reported: {:?}", stats.corruption);
    // It carries on: the next commit takes the next LSN, and the books are good
    // enough to checkpoint, compact and verify again.
    let next = db.commit_sync(commit(vec![put("t", b"after", b"crash")])).unwrap_or_else(|e| panic!("{context}: commit after recovery: {e}"));
    assert_eq!(next, lsn + 1, "{context}: LSNs continue");
    db.compact_space().unwrap_or_else(|e| panic!("{context}: compact after recovery: {e}"));
    let report = db.verify().unwrap();
    assert!(report.problems.is_empty(), "{context}: verify after carrying on: {:?}", report.problems);
    db.close().unwrap_or_else(|e| panic!("{context}: close after recovery: {e}"));
    lsn - acked
}

/// Trees and pins with their entry counts, short enough for a failure message.
fn summary(state: &State) -> String {
    let counts = |model: &super::Model| -> Vec<(String, usize)> {
        model.iter().map(|(name, entries)| (String::from_utf8_lossy(name).into_owned(), entries.len())).collect()
    };
    let pins: Vec<_> = state.pins.iter().map(|(name, trees)| (String::from_utf8_lossy(name).into_owned(), counts(trees))).collect();
    format!("trees {:?}, pins {:?}", counts(&state.trees), pins)
}
