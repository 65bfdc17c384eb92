//! The two budgets of the long tests (docs/architecture.md, "Testing"): a short one
//! that `npm test` runs and that still asserts its minimum counts, and a long one
//! behind `TENANTDB_SOAK=1`, run before resolving a change to what the test protects.
//! A test's own variable (e.g. `TENANTDB_MODEL_SEEDS`) overrides both.

/// Whether the long budget was asked for.
pub fn soak() -> bool {
    std::env::var("TENANTDB_SOAK").is_ok_and(|v| v == "1")
}

/// `name`'s value if set, else `long` under `TENANTDB_SOAK=1`, else `short`.
pub fn budget(name: &str, short: u64, long: u64) -> u64 {
    match std::env::var(name) {
        Ok(v) => v.parse().unwrap_or_else(|_| panic!("{name} must be a number, got {v:?}")),
        Err(_) if soak() => long,
        Err(_) => short,
    }
}
