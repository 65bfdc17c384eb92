//! The latency histogram of durable WAL syncs (count, maximum, buckets), as health
//! detail reports it. Bucket bounds are inclusive upper bounds in microseconds; the
//! last bucket is unbounded.

pub const BUCKET_BOUNDS_MICROS: [u64; 13] = [50, 100, 250, 500, 1_000, 2_500, 5_000, 10_000, 25_000, 50_000, 100_000, 250_000, 1_000_000];

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Histogram {
    pub count: u64,
    pub max_micros: u64,
    pub sum_micros: u64,
    /// One more than the bounds: the last counts everything above the largest bound.
    pub buckets: [u64; BUCKET_BOUNDS_MICROS.len() + 1],
}

impl Histogram {
    pub fn record(&mut self, micros: u64) {
        self.count += 1;
        self.sum_micros += micros;
        self.max_micros = self.max_micros.max(micros);
        let index = BUCKET_BOUNDS_MICROS.iter().position(|&bound| micros <= bound).unwrap_or(BUCKET_BOUNDS_MICROS.len());
        self.buckets[index] += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_land_in_their_bucket() {
        let mut h = Histogram::default();
        for micros in [0, 50, 51, 1_000_000, 1_000_001] {
            h.record(micros);
        }
        assert_eq!(h.count, 5);
        assert_eq!(h.max_micros, 1_000_001);
        assert_eq!(h.buckets[0], 2);
        assert_eq!(h.buckets[1], 1);
        assert_eq!(h.buckets[12], 1);
        assert_eq!(h.buckets[13], 1);
    }
}
