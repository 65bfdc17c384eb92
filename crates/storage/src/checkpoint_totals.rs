//! What the checkpoints since open did, as health detail reports it: how many ran, how
//! many wrote over slots they released themselves (in place, through the journal), the
//! pages they wrote and released, and the slowest one. Operators read it to see that
//! space is being reused; the kill -9 loop of the HTTP server reads it to know its kills
//! landed among checkpoints that reuse slots.

use crate::reports::CheckpointStats;

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CheckpointTotals {
    pub count: u64,
    pub in_place: u64,
    pub pages_written: u64,
    pub pages_released: u64,
    pub max_micros: u64,
}

impl CheckpointTotals {
    pub(crate) fn record(&mut self, stats: &CheckpointStats, micros: u64) {
        self.count += 1;
        self.in_place += u64::from(stats.in_place);
        self.pages_written += stats.pages_written;
        self.pages_released += stats.pages_released;
        self.max_micros = self.max_micros.max(micros);
        debug_assert!(self.in_place <= self.count);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sums_counts_and_keeps_the_slowest() {
        let mut totals = CheckpointTotals::default();
        let stats = |pages_written, pages_released, in_place| CheckpointStats { pages_written, pages_released, in_place, ..CheckpointStats::default() };
        totals.record(&stats(10, 0, false), 700);
        totals.record(&stats(4, 6, true), 300);
        assert_eq!(totals, CheckpointTotals { count: 2, in_place: 1, pages_written: 14, pages_released: 6, max_micros: 700 });
    }
}
