// The tenant catalog, in the engine tree `catalog` (so it is versioned, durable and
// forked with everything else):
//
// | key                          | value (UTF-8 JSON)                                   |
// |------------------------------|------------------------------------------------------|
// | `tenant/<name>`              | TenantRecord                                         |
// | `snapshot/<tenant>/<name>`   | SnapshotRecord (the data is the engine pin `<tenant>@<name>`) |
import type { Snapshot, TxnView } from '../txn/index.js'
import { pinName } from './names.js'
import { tenant_records_per_snapshot_max } from '../limits.js'
import type { TenantLimits } from './tenant-limits.js'

export const catalog_tree = 'catalog'

export interface TenantRecord {
  name: string
  state: 'active' | 'suspended'
  created_at: string
  parent: { tenant: string; snapshot: string | null; lsn: number } | null
  /** Limits set on this tenant (tenant-limits.ts); absent in a record without any. */
  limits?: TenantLimits
}

export interface SnapshotRecord {
  name: string
  created_at: string
}

const tenantKey = (name: string) => Buffer.from(`tenant/${name}`)
const snapshotKey = (tenant: string, name: string) => Buffer.from(`snapshot/${tenant}/${name}`)

function parse<T>(value: Buffer | null): T | null {
  return value === null ? null : (JSON.parse(value.toString('utf8')) as T)
}

export function readTenant(view: TxnView | Snapshot, name: string): TenantRecord | null {
  return parse<TenantRecord>(view.get(catalog_tree, tenantKey(name)))
}

/**
 * Catalog reads remembered per snapshot. A snapshot never changes, so what was read
 * from it never goes stale; the engine shares the head snapshot until the next commit,
 * so requests between commits spare a read and a JSON parse each. Keys asked for need
 * not exist (a tenant name, a wrong token's hash), so each table is bounded.
 */
export function snapshotMemo<T extends object | null>(entries_max: number, read: (snapshot: Snapshot, key: string) => T): (snapshot: Snapshot, key: string) => T {
  const bySnapshot = new WeakMap<Snapshot, Map<string, T>>()
  return (snapshot, key) => {
    let memo = bySnapshot.get(snapshot)
    if (memo === undefined) {
      memo = new Map()
      bySnapshot.set(snapshot, memo)
    }
    // One lookup on the hot path: a value is never undefined.
    const hit = memo.get(key)
    if (hit !== undefined) return hit
    const value = read(snapshot, key)
    if (memo.size >= entries_max) memo.clear()
    memo.set(key, value)
    return value
  }
}

/**
 * readTenant of a snapshot, remembered for the snapshot's life (every query checks its
 * tenant); the record is frozen (shared).
 */
export const readTenantCached = snapshotMemo(tenant_records_per_snapshot_max, (snapshot, name): Readonly<TenantRecord> | null => {
  const record = readTenant(snapshot, name)
  if (record !== null) {
    Object.freeze(Object.freeze(record).parent)
    Object.freeze(record.limits)
  }
  return record
})

export function writeTenant(view: TxnView, record: TenantRecord): void {
  view.put(catalog_tree, tenantKey(record.name), Buffer.from(JSON.stringify(record)))
}

export function removeTenant(view: TxnView, name: string): void {
  view.delete(catalog_tree, tenantKey(name))
}

export function listTenants(snapshot: Snapshot): TenantRecord[] {
  const prefix = Buffer.from('tenant/')
  return [...snapshot.scan(catalog_tree, { lower: prefix, upper: Buffer.from('tenant0'), upperInclusive: false })]
    .map(([, value]) => JSON.parse(value.toString('utf8')) as TenantRecord)
}

export function readSnapshot(view: TxnView | Snapshot, tenant: string, name: string): SnapshotRecord | null {
  return parse<SnapshotRecord>(view.get(catalog_tree, snapshotKey(tenant, name)))
}

export function writeSnapshot(view: TxnView, tenant: string, record: SnapshotRecord): void {
  view.put(catalog_tree, snapshotKey(tenant, record.name), Buffer.from(JSON.stringify(record)))
}

export function removeSnapshot(view: TxnView, tenant: string, name: string): void {
  view.delete(catalog_tree, snapshotKey(tenant, name))
}

/** A tenant's snapshots with the LSN each was taken at (from its engine pin). */
export function listSnapshots(snapshot: Snapshot, tenant: string): Array<SnapshotRecord & { lsn: number }> {
  const lower = Buffer.from(`snapshot/${tenant}/`)
  const upper = Buffer.from(`snapshot/${tenant}0`)
  const pins = new Map(snapshot.pins().map((p) => [p.name, p.lsn]))
  return [...snapshot.scan(catalog_tree, { lower, upper, upperInclusive: false })].map(([, value]) => {
    const record = JSON.parse(value.toString('utf8')) as SnapshotRecord
    return { ...record, lsn: pins.get(pinName(tenant, record.name)) ?? 0 }
  })
}
