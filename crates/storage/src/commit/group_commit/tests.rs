//! Unit tests of group commit (`group_commit.rs`): commits taken at every pace the sync
//! thread meets, batches bounded in bytes, and panics contained and answered.
use super::*;
use crate::commit::{Commit, Op, OpRef};
use crate::limits::COMMIT_POLL_MICROS_MAX;
use std::sync::Arc as StdArc;

fn queued(group: &GroupCommit, value_bytes: usize) {
    let commit = Commit {
        meta: Vec::new(),
        ops: vec![Op::Put { tree: StdArc::from(&b"t"[..]), key: StdArc::from(&b"k"[..]), value: StdArc::from(vec![0u8; value_bytes]) }],
    };
    assert!(group.push(vec![Pending { commit: commit.to_payload().unwrap(), lsn: None, done: Box::new(|_| {}) }]).is_ok());
}

/// Commits pushed at every pace the sync thread meets (back to back, within its
/// polling budget, just past it, and long after it went to sleep) are each taken:
/// a push that finds it polling wakes nobody, and one that finds it asleep wakes it.
#[test]
fn no_commit_waits_unseen_whether_the_sync_thread_polls_or_sleeps() {
    let group = StdArc::new(GroupCommit::new());
    let (taken_send, taken) = std::sync::mpsc::channel();
    let consumer = {
        let group = group.clone();
        std::thread::spawn(move || {
            let mut pacing = Pacing::new();
            while let Some((batch, _working)) = group.next_batch(usize::MAX, &mut pacing) {
                for _ in &batch {
                    taken_send.send(()).unwrap();
                }
                pacing.done(batch.len());
            }
        })
    };
    let gaps_micros = [0u64, 5, 20, 100, COMMIT_POLL_MICROS_MAX / 2, COMMIT_POLL_MICROS_MAX * 3, 3_000];
    let mut pushed = 0;
    for round in 0..40 {
        for (i, gap) in gaps_micros.iter().enumerate() {
            // Each pace held for a while, so the average follows it both ways.
            for _ in 0..(1 + (round + i) % 4) {
                queued(&group, 10);
                pushed += 1;
                // Each commit is taken before the next is pushed: none rides along
                // with a later push's wake-up. The bound only guards against a hang.
                taken.recv_timeout(std::time::Duration::from_secs(60)).expect("a queued commit is taken");
                std::thread::sleep(std::time::Duration::from_micros(*gap));
            }
        }
    }
    group.close();
    consumer.join().unwrap();
    assert!(taken.try_recv().is_err(), "nothing was taken twice");
    assert!(pushed > 500);
}

#[test]
fn a_batch_stops_before_its_bytes_pass_the_bound_and_keeps_queue_order() {
    let group = GroupCommit::new();
    for size in [100, 100, 100, 500, 10] {
        queued(&group, size);
    }
    let sizes = |batch: Vec<Pending>| -> Vec<usize> {
        batch.iter().map(|p| match p.commit.ops().next() { Some(OpRef::Put { value, .. }) => value.len(), _ => 0 }).collect()
    };
    // Each commit encodes to its value plus ~30 bytes of framing.
    let pacing = &mut Pacing::new();
    assert_eq!(sizes(group.next_batch(400, pacing).unwrap().0), vec![100, 100, 100]);
    // A single commit over the bound still goes, alone.
    assert_eq!(sizes(group.next_batch(400, pacing).unwrap().0), vec![500]);
    assert_eq!(sizes(group.next_batch(400, pacing).unwrap().0), vec![10]);
    group.close();
    assert!(group.next_batch(400, pacing).is_none());
}

/// A database as the sync thread sees it, which panics at one step (`panic_at`:
/// `apply#N` for the N-th apply, `write`, `publish`, `roll_back`, `after_batch`).
#[derive(Default)]
struct PanickingSink {
    panic_at: Mutex<Option<&'static str>>,
    /// `write_batch` fails with this instead of writing.
    write_fails: Option<fn() -> Error>,
    applied: Mutex<u64>,
    written: Mutex<Vec<u64>>,
    failed: Mutex<Option<String>>,
}

impl PanickingSink {
    fn reach(&self, step: &str) {
        let mut panic_at = self.panic_at.lock().unwrap();
        if *panic_at == Some(step) {
            *panic_at = None;
            drop(panic_at);
            panic!("a fake panic in {step}");
        }
    }
}

impl BatchSink for PanickingSink {
    fn apply(&self, _: &CommitPayload, _: Option<u64>) -> Result<u64> {
        let lsn = {
            let mut applied = self.applied.lock().unwrap();
            *applied += 1;
            *applied
        };
        self.reach(&format!("apply#{lsn}"));
        Ok(lsn)
    }
    fn write_batch(&self, frames: &[(u64, &[u8])]) -> Result<u64> {
        if let Some(error) = self.write_fails {
            return Err(error());
        }
        self.written.lock().unwrap().extend(frames.iter().map(|f| f.0));
        self.reach("write");
        Ok(1)
    }
    fn publish(&self, _: u64) {
        self.reach("publish");
    }
    fn roll_back(&self) {
        self.reach("roll_back");
    }
    fn after_batch(&self) {
        self.reach("after_batch");
    }
    fn after_batch_due(&self) -> bool {
        false
    }
    fn fail_stop(&self, cause: String) {
        self.failed.lock().unwrap().get_or_insert(cause);
    }
    fn failed(&self) -> Option<String> {
        self.failed.lock().unwrap().clone()
    }
}

/// What each commit of a batch was answered, as `Ok(lsn)` or the error's code.
type Answers = Vec<std::result::Result<u64, &'static str>>;

/// Queues `commits` commits (the `panicking_completion`-th completion, from 1,
/// panics instead of answering), then runs the sync thread: they are one batch.
/// Returns their answers, that of a commit queued after them, and the sink.
fn one_batch(sink: PanickingSink, commits: usize, panicking_completion: Option<usize>) -> (Answers, &'static str, StdArc<PanickingSink>) {
    let group = StdArc::new(GroupCommit::new());
    let sink = StdArc::new(sink);
    let (send, answers) = std::sync::mpsc::channel();
    let push = |i: usize| {
        let send = send.clone();
        let commit = Commit { meta: Vec::new(), ops: vec![Op::Delete { tree: b"t".to_vec(), key: b"k".to_vec() }] };
        let done: Completion = Box::new(move |result: Result<u64>| {
            if panicking_completion == Some(i) {
                panic!("a fake panic in completion {i}");
            }
            send.send((i, result.map_err(|e| e.code()))).unwrap();
        });
        assert!(group.push(vec![Pending { commit: commit.to_payload().unwrap(), lsn: None, done }]).is_ok());
    };
    (1..=commits).for_each(push);
    let thread = {
        let (group, sink) = (group.clone(), sink.clone());
        std::thread::spawn(move || run_sync_thread(&group, &*sink))
    };
    let wait = std::time::Duration::from_secs(60);
    let answered = commits - usize::from(panicking_completion.is_some());
    let mut got: Vec<(usize, std::result::Result<u64, &'static str>)> =
        (0..answered).map(|_| answers.recv_timeout(wait).expect("every commit of the batch is answered")).collect();
    got.sort_by_key(|a| a.0);
    push(commits + 1);
    let (later_i, later) = answers.recv_timeout(wait).expect("a later commit is answered");
    assert_eq!(later_i, commits + 1);
    group.close();
    thread.join().expect("the sync thread ends as usual: it contained the panic");
    assert!(answers.try_recv().is_err(), "each commit is answered once");
    let later = later.expect_err("the database stopped: a later commit is refused");
    (got.into_iter().map(|(_, a)| a).collect(), later, sink)
}

fn panicking_at(step: &'static str) -> PanickingSink {
    PanickingSink { panic_at: Mutex::new(Some(step)), ..PanickingSink::default() }
}

fn stopped_by(sink: &PanickingSink, what: &str) {
    assert_eq!(sink.failed().as_deref(), Some(&*format!("the storage core's sync thread panicked: a fake panic in {what}")));
}

#[test]
fn a_panic_applying_a_batch_answers_each_of_its_commits_not_written() {
    let (answers, later, sink) = one_batch(panicking_at("apply#2"), 3, None);
    // The first was applied before the panic, the third never: none was written.
    assert_eq!(answers, [Err("fail_stopped"); 3]);
    assert_eq!(later, "fail_stopped");
    assert!(sink.written.lock().unwrap().is_empty());
    stopped_by(&sink, "apply#2");
}

#[test]
fn a_panic_once_the_batch_was_written_answers_its_commits_outcome_unknown() {
    for step in ["write", "publish"] {
        let (answers, later, sink) = one_batch(panicking_at(step), 3, None);
        assert_eq!(answers, [Err("outcome_unknown"); 3], "{step}");
        assert_eq!(later, "fail_stopped");
        assert_eq!(*sink.written.lock().unwrap(), [1, 2, 3]);
        stopped_by(&sink, step);
    }
}

#[test]
fn a_panic_after_a_write_that_failed_before_its_bytes_went_out_answers_not_written() {
    let sink = PanickingSink { write_fails: Some(|| Error::StorageFull { op: "zero-fill", path: "wal".into(), detail: "full".into() }), ..panicking_at("roll_back") };
    let (answers, later, sink) = one_batch(sink, 2, None);
    assert_eq!(answers, [Err("fail_stopped"); 2]);
    assert_eq!(later, "fail_stopped");
    stopped_by(&sink, "roll_back");
}

#[test]
fn a_panic_in_a_completion_leaves_the_batch_s_others_answered() {
    let (answers, later, sink) = one_batch(PanickingSink::default(), 3, Some(2));
    // The first was answered before; the third, written, may be durable.
    assert_eq!(answers, [Ok(1), Err("outcome_unknown")]);
    assert_eq!(later, "fail_stopped");
    stopped_by(&sink, "completion 2");
}

#[test]
fn a_panic_in_the_checkpoint_after_a_batch_stops_only_later_commits() {
    let (answers, later, sink) = one_batch(panicking_at("after_batch"), 3, None);
    assert_eq!(answers, [Ok(1), Ok(2), Ok(3)], "the batch was durable and answered first");
    assert_eq!(later, "fail_stopped");
    stopped_by(&sink, "after_batch");
}
