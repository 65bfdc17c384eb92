//! Independent cases of one test (crash points, model seeds) shared out over the
//! machine's cores: cargo runs a test binary's tests in parallel, but a sweep that is
//! one test would otherwise use one core.

/// `f(0)`, …, `f(n - 1)`, in that order, computed on every core. A panic in one case
/// is raised again here, with its message (which names the case).
pub fn share_out<T: Send>(n: usize, f: impl Fn(usize) -> T + Sync) -> Vec<T> {
    let threads = std::thread::available_parallelism().map_or(1, |t| t.get()).min(n.max(1));
    let f = &f;
    let mut parts: Vec<Vec<(usize, T)>> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|first| scope.spawn(move || (first..n).step_by(threads).map(|i| (i, f(i))).collect::<Vec<_>>()))
            .collect();
        workers.into_iter().map(|w| w.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic))).collect()
    });
    let mut all: Vec<(usize, T)> = parts.drain(..).flatten().collect();
    all.sort_by_key(|(i, _)| *i);
    assert_eq!(all.len(), n);
    all.into_iter().map(|(_, t)| t).collect()
}
