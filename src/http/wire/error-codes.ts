// The one catalogue of the API's error codes and their statuses (docs/api.md, "Errors").
// Wire data, imported by the console too: an error body's `code` is one of these.

export const error_statuses = {
  bad_request: 400,
  syntax_error: 400,
  type_error: 400,
  unknown_collection: 400,
  unknown_field: 400,
  constraint_violation: 400,
  key_too_large: 400,
  row_too_large: 400,
  lookup_too_large: 400,
  // An answer past result_bytes_max, a statement holding more than statement_memory_bytes_max
  // (docs/api.md, "Size of an answer"): the request's failure, as every query's is.
  result_too_large: 400,
  statement_memory_exceeded: 400,
  not_allowed_here: 400,
  readonly_snapshot: 400,
  migration_blocked: 400,
  query_timeout: 400,
  // A statement stopped by one of its tenant's statement limits (`limit` names it).
  statement_limit: 400,
  unauthorized: 401,
  // A tenant token whose scope does not reach the route or statement (docs/api.md, "Access").
  forbidden: 403,
  origin_not_allowed: 403,
  host_not_allowed: 403,
  // A write that would take its tenant over its storage quota (`quota` names it):
  // retrying does not help until the tenant holds less or its quota is raised, and
  // 507 stays the server's own disk (docs/operations.md, "Isolation").
  quota_exceeded: 403,
  unknown_tenant: 404,
  unknown_snapshot: 404,
  unknown_token: 404,
  not_found: 404,
  method_not_allowed: 405,
  request_timeout: 408,
  // A lost first-committer-wins race (nothing was changed; retrying is safe). The
  // query route answers it with 400 and `conflict: true` instead, as every failure of
  // a query (docs/api.md, "Errors").
  conflict: 409,
  tenant_exists: 409,
  snapshot_exists: 409,
  lsn_expired: 410,
  payload_too_large: 413,
  tenant_suspended: 423,
  // Too many wrong tokens from one address, or a tenant over a rate budget (`budget`):
  // both with `Retry-After`.
  rate_limited: 429,
  // A write or tenant operation sent to a replication follower (the body's `primary`
  // names where writes go); a primary that cannot hold its lease answers 503 instead.
  not_primary: 421,
  headers_too_large: 431,
  storage_error: 500,
  internal: 500,
  shutting_down: 503,
  storage_unavailable: 503,
  storage_full: 507,
} as const

export type ErrorCode = keyof typeof error_statuses
