// Every limit of the TypeScript service, in one place, each named with its unit.
// Rust's limits live in crates/storage/src/limits.rs.

/** Largest request body the HTTP server reads (docs/operations.md, "Limits"). */
export const body_bytes_max = 1024 * 1024

/** Random bytes in a generated service token (base64url-encoded). */
export const token_random_bytes = 32
/**
 * Below this many characters a service token given with --token or SERVICE_TOKEN gets
 * a warning at start: the auth throttle slows wrong guesses but never refuses a right
 * token (docs/operations.md, "The token"), so only length keeps a token unguessable.
 */
export const token_chars_advised_min = 32

// Tenant tokens (docs/operations.md, "Tenant tokens").

/** Random bytes in a tenant token (base64url-encoded after its `tdb_` prefix). */
export const access_token_random_bytes = 32

/** Longest `expires_in_s` a tenant token may be issued with: ten years. */
export const access_token_expires_in_s_max = 10 * 365 * 24 * 3600

/** Longest `name` of a tenant token, in characters. */
export const access_token_name_chars_max = 100

/** Tokens one tenant may hold at once (its listing stays one bounded answer). */
export const access_tokens_per_tenant_max = 1000

/** Token lookups one snapshot remembers (wrong tokens are looked up too, so it is bounded). */
export const access_token_lookups_per_snapshot_max = 1024

/** How often the server writes the tokens' last uses it holds in memory (and when it closes). */
export const access_token_last_used_flush_ms = 60_000

/** How often open change tails re-check their tenant token: a revoked or expired one ends them within this. */
export const access_token_watch_ms = 250

/** Tenant tokens the server remembers as verified, so their requests make no catalog lookup (src/http/verified-tokens.ts). */
export const verified_tokens_entries_max = 1024

/** Failed authentications one address may make within the window before 429. */
export const auth_failures_max = 20
export const auth_failure_window_ms = 60_000

/** Largest value an integer query-string parameter (`after`, `limit`, `wait_ms`) may hold: 15 digits, exact as a double. */
export const query_int_param_max = 999_999_999_999_999

/** Time a request may take before the server gives up on it (docs/operations.md, "Limits"). */
export const request_timeout_ms = 60_000

/** Largest WebSocket message the tail route accepts (docs/operations.md, "Limits"). */
export const ws_message_bytes_max = 1024 * 1024

/** Rows one diff response holds when the caller names no `limit` (the library's default). */
export const diff_rows_default = 1000

/** Rows one diff response holds at most: a larger `limit` is lowered to it. */
export const diff_rows_max = 10_000

/** How long a browser may cache a CORS preflight answer. */
export const cors_max_age_s = 600

/** Allowed Host values, and allowed Origin values, the server remembers as sent (src/http/origin-policy.ts). */
export const allowed_header_values_max = 64

/** Time SIGTERM waits for in-flight requests before closing regardless. */
export const shutdown_grace_ms = 10_000

/** Threads `serve` may serve HTTP on (--workers): the opening thread and its workers. */
export const serve_threads_max = 64

/** How often a checkpoint or compaction asks again while another thread's backup runs. */
export const backup_elsewhere_poll_ms = 10

/** How long a stopping worker thread waits for its tails' sockets to finish closing. */
export const thread_tails_close_ms_max = 1000

/** How often a worker thread reports its queries and tail consumers for the trends. */
export const thread_trends_report_ms = 250

/** Addresses the failed-auth table tracks at once (bounded memory). */
export const auth_throttle_addresses_max = 10_000

/** Rows one query response holds before it says `truncated: true` (docs/operations.md, "Limits"). */
export const query_rows_max = 10_000

/** Time one query may run before it fails with `query_timeout` (docs/operations.md, "Limits"). */
export const query_time_ms_max = 30_000

/**
 * Bytes of the JSON text of one answer's rows (docs/api.md, "Size of an answer"), counted
 * as the rows are made: beyond it the statement fails with `result_too_large`. The
 * answer is held whole before it is sent (so a refusal is still a 400, never a cut
 * body), as values taking a few times its JSON size, once per concurrent query: 16 MiB
 * keeps ten such queries within a few hundred MiB of heap. It is MongoDB's bound on a
 * batch of a cursor, and sixteen of the largest stored row (row_bytes_max).
 */
export const result_bytes_max = 16 * 1024 * 1024

/**
 * Bytes of rows one statement may hold while it runs (docs/language.md, "Limits of a
 * statement"): what a sort keeps, its groups and distinct values, a hash lookup's
 * table, the rows a lookup found for a batch. Estimated from the rows' sizes (encoded
 * bytes for rows read from storage, a heap estimate for rows a stage made, and an
 * entry's overhead each); beyond it the statement fails with `statement_memory_exceeded`.
 * The same bound as a hash lookup's alone (lookup_hash_bytes_max): a statement past it
 * needs a narrower where, a take or an index, not more memory.
 */
export const statement_memory_bytes_max = 64 * 1024 * 1024

/** Bytes of JSON the query route makes and writes at a time: other requests are served between two chunks. */
export const answer_chunk_bytes = 64 * 1024

/**
 * Longest a statement works before it yields to the event loop (and checks its
 * deadline), so one request cannot stall every other (docs/architecture.md,
 * "Invariants", 8; src/query/pace/pace.ts), and the most the fair scheduler runs
 * statements' turns before the event loop reads its I/O again (src/isolation/). It was
 * 10 ms, then 2: another tenant's point read waited up to that behind each turn (P18,
 * docs/performance.md, "Noisy neighbour (P18)"); a scan of 1e6 rows takes no longer at
 * 1 ms. A single step (one row's evaluation, one pattern match) is
 * not cut: those are bounded on their own.
 */
export const statement_yield_ms = 1

/**
 * Units of work (about one row's evaluation each) between two reads of the clock by a
 * running statement: cheap enough per row, often enough to keep statement_yield_ms.
 */
export const statement_work_units_per_clock_read = 32

/**
 * Rows a point read (`where id in [...]`, `get`) reads in one go, without yielding: more
 * keys are read a row at a time, pacing as a range read does.
 */
export const point_read_keys_at_once_max = 1000

/**
 * Largest key of one engine tree entry, in encoded bytes: the storage core refuses
 * larger keys (KEY_BYTES_MAX in crates/storage/src/limits.rs, docs/operations.md, "Limits": key 1 KiB).
 * A primary key is the encoding of its value; an index entry the encoding of its
 * values followed by the primary key's (docs/language.md "Key size"). Checked by the
 * query layer before anything is committed (`key_too_large`).
 */
export const key_bytes_max = 1024

/**
 * Largest value of one engine tree entry, in bytes: a row in its encoded form (the
 * storage core's VALUE_BYTES_MAX, docs/operations.md, "Limits": row 1 MiB). Checked by the query layer
 * before anything is committed (`row_too_large`).
 */
export const row_bytes_max = 1024 * 1024

/**
 * Deepest nesting of lists and records inside one value (a row is depth 0). Bounds the
 * codecs' recursion, so a cyclic object or a hostile json value fails cleanly instead
 * of overflowing the stack. The same bound as MongoDB's documents.
 */
export const nesting_depth_max = 100

// Eel's parser (src/lang; docs/language.md "Limits of a statement").

/**
 * Deepest nesting of brackets (lists, records, parentheses, call arguments, list
 * types) and prefix operators (`-`, `not`) in one Eel expression or type. Far beyond
 * any real query, and far below where the parser (lezer, about 1000 record levels)
 * would stop with a bare syntax error, so every construct meets the same clear one.
 */
export const eel_nesting_depth_max = 256

/**
 * Deepest Eel expression tree, nesting and chained operators (`a + b + …`) together:
 * building, checking and evaluating it recurse.
 */
export const eel_expression_depth_max = 1000

/**
 * Values one list written after `in` holds at most (`id in [1, 2, …]`). Parsing and
 * checking a literal costs microseconds, and all of it runs before the statement can
 * yield to the event loop; a longer list is passed as a parameter (`id in $ids`),
 * which is read as JSON.
 */
export const in_list_literals_max = 10_000

// The change tail (docs/api.md, "Change tail").

/** Events one poll returns when the caller names no `limit`. */
export const tail_limit_default = 100

/** Most events one poll returns; a larger `limit` is lowered to this. */
export const tail_limit_max = 1000

/** Longest a long poll (`wait_ms`) waits for an event; a larger value is refused (`bad_request`). */
export const tail_wait_ms_max = 30_000

/**
 * Row bytes (stored keys and values) of the events one poll or subscription page holds
 * before it ends early, so `limit` events of large transactions cannot make a page of
 * gigabytes. A page always holds at least one event, however large.
 */
export const tail_page_bytes_max = 4 * 1024 * 1024

/**
 * The newest commits' payloads the change feed keeps in memory, so a live tail that
 * has caught up decodes a new commit from what was committed instead of reading it back
 * from the WAL (a thread-pool round trip per wake-up). Larger payloads are not kept;
 * a tail that finds a gap reads the WAL as before.
 */
export const tail_recent_commits_max = 1024
export const tail_recent_bytes_max = 4 * 1024 * 1024
export const tail_recent_commit_bytes_max = 64 * 1024
/**
 * How long a live tail waits for the announcement of a commit the engine already holds
 * durable (its completion is on its way to JavaScript) before it reads that commit from
 * the WAL instead: the announcement brings its payload, so the common case reads nothing.
 */
export const tail_notice_wait_ms = 20

/** Frames one engine read returns at most (the unit of work between event-loop turns). */
export const tail_read_frames_max = 256

/**
 * Payload bytes one engine read returns at most. A single larger commit still comes
 * back alone (the engine always returns the first frame), so nothing is ever stuck.
 */
export const tail_read_bytes_max = 1024 * 1024

/**
 * Engine reads one poll makes at most. With a collection filter, or on a WAL full of
 * other tenants' commits, a poll could otherwise scan the whole retained WAL (256 MiB
 * by default) for one request; instead it returns early with `last_lsn` advanced and
 * `head_lsn` beyond it, and the next poll carries on from there.
 */
export const tail_reads_per_poll_max = 64

// The change tail over WebSocket (docs/api.md).

/** Unsent bytes a tail socket may hold before the consumer is closed with 1013. */
export const tail_ws_buffered_bytes_max = 8 * 1024 * 1024
/** Unsent bytes above which the tail waits for the socket to drain before the next event. */
export const tail_ws_buffered_bytes_low = 256 * 1024
/** Longest one event may wait to be written to a consumer before it is closed with 1013. */
export const tail_ws_stall_ms_max = 30_000
/** Interval of the server's pings on a tail socket (docs/api.md). */
export const tail_ws_ping_ms = 15_000

// The embedded query path (docs/performance.md, P3-P5).

/** Tree names kept for reuse: encoded ones by the engine facade, rows trees' by tenant in txn/layout.ts (each table forgotten wholesale when full). */
export const tree_name_buffers_max = 4096

/**
 * Size of the buffer a point read copies its value into. A larger value (up to the
 * engine's 1 MiB) costs a second lookup into a buffer of its exact size.
 */
export const read_buffer_bytes = 64 * 1024

/**
 * Size of the buffer a range with lookups (Snapshot.rangeLookup) is written into, and
 * the largest one kept for the next batch: a larger batch costs a second read into a
 * buffer of its exact size, kept only up to the second figure.
 */
export const lookup_buffer_bytes = 256 * 1024
export const lookup_buffer_bytes_kept_max = 16 * 1024 * 1024

/**
 * Size of the buffer a range read in place (Snapshot.rangeAt, a scan's batches of 1 000
 * rows) is written into, and the largest one kept for the next batch, as the two above.
 */
export const range_buffer_bytes = 256 * 1024
export const range_buffer_bytes_kept_max = 16 * 1024 * 1024

/** Tenant records remembered per snapshot (names asked for need not exist). */
export const tenant_records_per_snapshot_max = 1024

/** Parsed statements each database keeps by query text (least recently used goes first). */
export const statement_cache_entries_max = 512

/** Query texts longer than this are parsed every time, not kept (a large inline insert, say). */
export const statement_cache_text_chars_max = 4096

// The server's log output (docs/operations.md, "Logs").

/** Log bytes queued for a slow or failing output before further lines are dropped (and counted). */
export const log_queue_bytes_max = 4 * 1024 * 1024
/** Time between attempts to write to a log output that failed. */
export const log_retry_ms = 1000
/** Time a clean stop waits for queued log lines to be written before it exits anyway. */
export const log_flush_ms_max = 2000
/** Log lines are gathered this long before a write (a clean stop writes them at once)… */
export const log_write_delay_ms = 25
/** …or until this many bytes of them are queued. */
export const log_write_bytes = 64 * 1024

/**
 * Smallest `--checkpoint-wal-bytes`: a checkpoint after every few commits is useful to
 * test free space under crashes, one per commit only measures the disk.
 */
export const checkpoint_wal_bytes_min = 4096

/** Bytes a backup reads from a file at a time: the unit it streams and hashes in. */
export const backup_chunk_bytes = 1024 * 1024

/** Largest manifest a restore reads (docs/format.md, "Backup archive"). */
export const backup_manifest_bytes_max = 16 * 1024 * 1024

/** Unreadable corruption.log lines a restore names (it counts them all; docs/operations.md, "Backup and restore"). */
export const corruption_log_lines_named_max = 20

/** Characters of an unreadable corruption.log line a restore shows, the rest cut off with an ellipsis. */
export const corruption_log_line_chars_shown_max = 200

/** The server's trend ring (GET /api/v1/trends): one sample a second, 20 minutes of them. */
export const trend_interval_ms = 1000
export const trend_samples_max = 1200
/** Query durations kept per second for its percentiles; past this, a uniform sample of them. */
export const trend_query_durations_max = 4096

// Replication (docs/replication.md).

/** The primary's lease when `--lease-ms` is not given, and the shortest one allowed. */
export const lease_ms_default = 3000
export const lease_ms_min = 500

/**
 * The primary renews its lease every lease_ms / lease_renewals_per_lease, and takes
 * writes only until half a lease after the start of its last successful renewal: a
 * follower cannot take the lease before a whole lease has passed since it saw that
 * renewal, so the primary has stopped for at least half a lease by then.
 */
export const lease_renewals_per_lease = 5

/** A follower reads the lease key this many times per lease (it notices an expired lease within one interval). */
export const lease_polls_per_lease = 10

/** Bytes the cluster's frame stream keeps; older frames are dropped (a follower behind them bootstraps again). */
export const replication_stream_bytes_max = 8 * 1024 * 1024 * 1024

/** Frames a publisher has sent without their acknowledgement at most (pipelined, in LSN order). */
export const replication_publish_in_flight_max = 512

/** Frames (and payload bytes) a follower applies in one WAL batch at most. */
export const replication_apply_frames_max = 512
export const replication_apply_bytes_max = 8 * 1024 * 1024

/** Frames the publisher reads back from the WAL at a time (catching up after a restart or an outage). */
export const replication_read_frames_max = 256
export const replication_read_bytes_max = 4 * 1024 * 1024

/** Time one JetStream request (a publish, a lease update, a stream lookup) may take before it counts as failed. */
export const replication_request_ms = 2000

/**
 * How long one pull of a follower's consumer waits for frames; the server sends
 * heartbeats every half of it, so a consumer lost with a connection is noticed and
 * made again within about this long.
 */
export const replication_consume_expires_ms = 2000

/** Time between attempts when the cluster cannot be reached, or a bootstrap has no primary to copy from. */
export const replication_retry_ms = 250

// Eel's pattern functions (docs/language.md "Patterns").

/**
 * Longest pattern `like` and `matches` take, in characters. Matching is linear in the
 * text (RE2's semantics: no backtracking), and a pattern's compiled size grows with its
 * length, so this bounds the work of one match.
 */
export const eel_pattern_chars_max = 1000

/**
 * Most steps one `matches` may take, counted before it starts as (text length + 1) ×
 * the compiled pattern's instructions: the bound of RE2's automaton, 25–50 ns a step
 * (re2js, measured) when it cannot be made deterministic. One match cannot be
 * interrupted, so this bounds how long it holds the event loop, and so how long
 * another tenant's request may wait behind it (docs/operations.md, "Isolation"): about
 * 5 ms. It was 4 000 000 (up to 200 ms a match, measured, where P18 saw another
 * tenant's reads wait seconds). A match over it fails with type_error.
 */
export const eel_pattern_steps_max = 250_000

/** Compiled patterns kept for reuse (least recently used goes first). */
export const eel_pattern_cache_entries_max = 256

// Lookups (docs/language.md "Lookups").

/**
 * Encoded bytes of the looked-up rows one hash lookup holds in memory (a lookup on a
 * field that is neither the primary key nor the first field of an index reads the
 * other collection once into a hash table). Beyond it the query fails with
 * `lookup_too_large`, naming the index that would avoid it.
 */
export const lookup_hash_bytes_max = 64 * 1024 * 1024

// The command line (docs/operations.md).

/** Lines the query shell keeps in its history file (the oldest go first). */
export const query_history_lines_max = 1000
/** Time between redraws of a progress line on a terminal (and polls of the work it shows). */
export const progress_redraw_ms = 100

// Isolation between tenants (docs/operations.md, "Isolation").

/** Tenants the shared budget table holds at once (a drained slot is reused, so this bounds memory, not tenants). */
export const budget_slots = 4096
/** Slots a tenant's lookup probes from its hash before it takes a drained one. */
export const budget_probe_slots = 16
/**
 * How far ahead of its rate a tenant may run: a budget of r units a second admits a
 * burst of r × budget_burst_ms / 1000 units at once, then r a second.
 */
export const budget_burst_ms = 250
/** Longest a statement waits for its tenant's budget before `rate_limited` (`--budget-wait-ms`). */
export const budget_wait_ms_max = 2000
/**
 * Rows examined a second of a tenant's reserved read budget worth one more share of the
 * fair scheduler's turns: a tenant's weight is rows_examined_per_s_reserved / this, at
 * least 1 (src/isolation/fair-scheduler.ts).
 */
export const turn_weight_rows_per_s = 1000
/**
 * How far ahead of the scheduler's clock a tenant's past turns may put it, in ms of turns
 * at weight 1: a tenant that ran alone for a long time waits behind a newcomer for
 * about this much of the newcomer's work, not for all it ran alone.
 */
export const turn_lag_ms_max = 4
/** Tenants the metrics name one by one (`--metrics-tenants`): the busiest; the rest are summed as `other`. */
export const metrics_tenants_default = 20
export const metrics_tenants_max = 1000

// The client library (docs/client.md, "Timeouts and cancellation").

/** Time a client call waits for a server's answer before it fails with `timeout`, unless told otherwise (`timeout_ms`). */
export const client_request_timeout_ms = 30_000
/** Times a write refused by a follower (421 `not_primary`) is sent on to the primary it names, in one call. */
export const client_primary_hops_max = 3
/**
 * Time the operator's tools (the console, and the CLI's `query`, `backup` and `token`
 * with --url) wait for a server's answer: past the server's own limit on a query, so a
 * slow statement ends with the server's `query_timeout`, which says why, not the
 * client's bare `timeout`.
 */
export const operator_answer_wait_ms = 2 * query_time_ms_max
