//! How soon commits follow a batch's completion, as the sync thread records it: what
//! says how long it polls for the next commit before it sleeps (`group_commit.rs`,
//! "Polling before sleeping").

use std::time::{Duration, Instant};

use crate::limits::COMMIT_POLL_MICROS_MAX;

/// The sync thread's record of how soon commits follow a batch's completion.
pub struct Pacing {
    /// When the last batch's commits were completed; `None` while a batch is worked on.
    done_at: Option<Instant>,
    /// How many commits that batch held.
    batch_len: usize,
    /// Moving average of those gaps (a quarter weight to each new one).
    gap_average: Duration,
}

impl Pacing {
    pub fn new() -> Pacing {
        // Starts as after a long idle gap: nothing polls until commits come back to back.
        Pacing { done_at: None, batch_len: 0, gap_average: Duration::from_secs(1) }
    }

    /// A batch of `batch_len` commits was completed.
    pub fn done(&mut self, batch_len: usize) {
        self.done_at = Some(Instant::now());
        self.batch_len = batch_len;
    }

    /// A commit was found queued: the gap since the last completion counts.
    pub(super) fn arrived(&mut self) {
        if let Some(done_at) = self.done_at.take() {
            // Capped, so one long idle gap is forgotten after a few short ones.
            let gap = done_at.elapsed().min(Duration::from_millis(10));
            self.gap_average = (self.gap_average * 3 + gap) / 4;
        }
    }

    /// How long to poll before sleeping, if at all.
    pub(super) fn poll(&self) -> Option<Duration> {
        let max = Duration::from_micros(COMMIT_POLL_MICROS_MAX);
        (self.done_at.is_some() && self.batch_len == 1 && self.gap_average < max).then(|| (self.gap_average * 2).min(max))
    }
}
