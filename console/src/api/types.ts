// The JSON the console reads, as docs/api.md documents it. These are the wire shapes
// (what crosses HTTP), written down here rather than imported from src/, whose types
// are the server's internal ones (Buffers, class instances) and pull in Node.

/** A stored value as JSON carries it. */
export type Value = null | boolean | number | string | Value[] | { [field: string]: Value }
export type Row = Record<string, Value>

export interface ErrorBody {
  error: string
  code: string
  conflict?: boolean
  line?: number
  column?: number
  expected?: string[]
  hint?: string
  fields?: string[]
  oldest_lsn?: number
}

export interface Health {
  ok: boolean
  tenant: string
  version: string
}

export interface CorruptionReport {
  id: string
  file: string
  page: number | null
  kind: string
  count: number
  first_seen: string
  last_seen: string
}

export interface FsyncBucket {
  /** Upper bound of the bucket; null for the last, unbounded one. */
  le_micros: number | null
  count: number
}

/**
 * `pages` of /health/detail and /stats: the page file by its 4 KiB slots. The allocator
 * tip (`page_count`) also counts the two meta slots: page_count = 2 + live + free +
 * pending + releasing.
 */
export interface PageSlots {
  file_bytes: number
  /** In use: the head, pins and snapshots, forks, the space map itself. */
  live: number
  /** Reusable by the next checkpoint. */
  free: number
  /** Reached by no version, held back for the older meta record or an older reader (two checkpoints). */
  pending: number
  /** Their last reference went away; a later checkpoint releases what they reference. */
  releasing: number
}

export interface HealthDetail {
  ok: boolean
  corruption: { total: number; reports: CorruptionReport[] }
  wal: { current_lsn: number; checkpoint_lsn: number; lag_bytes: number; bytes: number }
  recovery: { replayed_frames: number; open_micros: number }
  fsync: { count: number; max_micros: number; buckets: FsyncBucket[] }
  page_count: number
  pages: PageSlots
  db_dir: string
  /** null unless the server is a node of a cluster (docs/replication.md, "Watching it"). */
  replication: Replication | null
}

export interface Replication {
  role: 'primary' | 'fenced' | 'candidate' | 'follower'
  term: number
  node: string
  cluster: string
  mode: 'sync' | 'async'
  primary: string | null
  applied_lsn: number
  /** A follower: frames not applied yet; a primary: frames the stream has not acknowledged. */
  lag_frames: number
  lag_ms: number
  nats_connected: boolean
}

export interface Stats {
  page_count: number
  wal_bytes: number
  checkpoint_lsn: number
  corruption_count: number
  db_dir: string
  tenants: number
  /** Page cache hits and misses; reads of nodes still in memory (written since the last checkpoint). */
  cache: { hits: number; misses: number; bytes: number; memory_reads: number }
  pages: PageSlots
  uptime_s: number
}

export interface TenantEntry {
  name: string
  state: 'active' | 'suspended'
  created_at: string
  parent: { tenant: string; snapshot: string | null; lsn: number } | null
  schema: { fingerprint: string; pending: boolean }
}

export interface CollectionEntry {
  name: string
  rows: number
  indexes: string[]
}

/**
 * The schema IR (docs/language.md, "Schema files": the schema IR). Only what the console
 * relies on is typed; anything else a field, index or collection carries (a reference,
 * say) is kept and shown as it is.
 */
export type FieldType = { kind: 'int' | 'float' | 'string' | 'bool' | 'timestamp' | 'json' } | { kind: 'list'; item: FieldType } | { kind: string; [more: string]: unknown }
export type DefaultIR = { kind: 'value'; value: Value } | { kind: 'now' }

export interface FieldIR {
  name: string
  type: FieldType
  optional: boolean
  default: DefaultIR | null
  was?: string | null
  narrowed?: boolean
  [more: string]: unknown
}

export interface IndexIR {
  name: string
  fields: string[]
  unique: boolean
  [more: string]: unknown
}

export interface CollectionIR {
  name: string
  primary: string
  primary_auto: boolean
  fields: FieldIR[]
  indexes: IndexIR[]
  was?: string | null
  dropped?: string[]
  [more: string]: unknown
}

export interface QueryIR {
  name: string
  params: Array<{ name: string; type: FieldType; optional: boolean; default: Value }>
  body: string
}

export interface SchemaIR {
  version: number
  collections: CollectionIR[]
  queries: QueryIR[]
  dropped_collections?: string[]
  [more: string]: unknown
}

export interface SchemaStatus {
  fingerprint: string
  ir: SchemaIR
  tenant: { applied_fingerprint: string | null; pending: boolean; blocked: string | null }
}

/** GET /api/v1/trends: one array per figure, oldest sample first (docs/api.md, "Trends"). */
export interface Trends {
  interval_ms: number
  capacity: number
  series: Record<string, Array<number | null>>
}

export interface SnapshotEntry {
  name: string
  lsn: number
  created_at: string
}

export interface Plan {
  collection: string
  access: 'primary' | 'index' | 'scan'
  index?: string
}

export interface QueryResult {
  columns: string[]
  rows: Value[][]
  plan?: Plan
  lsn?: number
  truncated?: boolean
  stats?: { elapsed_ms: number; rows_examined: number }
  results?: Array<{ columns: string[]; rows: Value[][] }>
}

export interface OpResult {
  ok: true
  message: string
}

export type TenantOp =
  | { op: 'create'; name: string }
  | { op: 'fork'; name: string; target: string }
  | { op: 'snapshot'; name: string; target: string }
  /** `name` is `tenant@snapshot`: the tenant's head becomes that snapshot. */
  | { op: 'restore'; name: string }
  /** `delete` of `tenant@snapshot` drops that snapshot. */
  | { op: 'suspend' | 'resume' | 'delete'; name: string }
  | { op: 'compact' }

export interface DiffCollection {
  added: Row[]
  removed: Row[]
  changed: Array<{ key: Value; before: Row; after: Row }>
}

export interface DiffResult {
  from: { name: string; lsn: number }
  to: { name: string; lsn: number }
  collections: Record<string, DiffCollection>
  truncated: boolean
}

export interface TailChange {
  collection: string
  op: 'insert' | 'update' | 'delete'
  key: Value
  row: Row | null
}

export interface TailEvent {
  lsn: number
  at: string
  tenant: string
  changes: TailChange[]
  /** A restore to a snapshot: the tenant's data is now that snapshot's (no row changes). */
  restored?: { snapshot: string; lsn: number }
}

export interface TailPage {
  events: TailEvent[]
  last_lsn: number
  head_lsn: number
}

/** GET /api/v1/access: what the console's token opens (docs/api.md, "Access"). */
export type TokenScope = 'read' | 'write' | 'admin'
export type Access =
  | { credential: 'service' }
  | { credential: 'tenant'; scope: TokenScope; tenants: string[]; expires_at: string | null }

/** A tenant token as listed (never its secret). */
export interface TokenEntry {
  id: string
  tenant: string
  scope: TokenScope
  name: string | null
  created_at: string
  expires_at: string | null
  last_used_at: string | null
}

/** What issuing a token answers: the token itself, this once. */
export interface IssuedToken extends Omit<TokenEntry, 'last_used_at'> {
  token: string
}

export interface IssueTokenRequest {
  scope: TokenScope
  name?: string
  expires_in_s?: number
}
