// Every limit of the TypeScript service, in one place, each named with its unit.
// Rust's limits live in crates/storage/src/limits.rs.

/** Largest request body the HTTP server reads (product.md 7). */
export const body_bytes_max = 1024 * 1024

/** Random bytes in a generated service token (base64url-encoded). */
export const token_random_bytes = 32

/** Failed authentications one address may make within the window before 429. */
export const auth_failures_max = 20
export const auth_failure_window_ms = 60_000

/** Time a request may take before the server gives up on it (product.md 7). */
export const request_timeout_ms = 60_000

/** Time SIGTERM waits for in-flight requests before closing regardless. */
export const shutdown_grace_ms = 10_000

/** Addresses the failed-auth table tracks at once (bounded memory). */
export const auth_throttle_addresses_max = 10_000

/** Rows one query response holds before it says `truncated: true` (product.md 7). */
export const query_rows_max = 10_000

/** Time one query may run before it fails with `query_timeout` (product.md 7). */
export const query_time_ms_max = 30_000

/**
 * Deepest nesting of lists and records inside one value (a row is depth 0). Bounds the
 * codecs' recursion, so a cyclic object or a hostile json value fails cleanly instead
 * of overflowing the stack. The same bound as MongoDB's documents.
 */
export const nesting_depth_max = 100
