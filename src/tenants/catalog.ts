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

export const catalog_tree = 'catalog'

export interface TenantRecord {
  name: string
  state: 'active' | 'suspended'
  created_at: string
  parent: { tenant: string; snapshot: string | null; lsn: number } | null
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
 * Tenant records read from each snapshot. A snapshot never changes, so its records
 * never go stale; every query checks its tenant, and the engine shares the head
 * snapshot until the next commit, so this spares a read and a JSON parse per query.
 */
const recordsBySnapshot = new WeakMap<Snapshot, Map<string, Readonly<TenantRecord> | null>>()

/** readTenant of a snapshot, remembered for the snapshot's life; the record is frozen (shared). */
export function readTenantCached(snapshot: Snapshot, name: string): Readonly<TenantRecord> | null {
  let records = recordsBySnapshot.get(snapshot)
  if (records === undefined) {
    records = new Map()
    recordsBySnapshot.set(snapshot, records)
  }
  let record = records.get(name)
  if (record === undefined) {
    record = readTenant(snapshot, name)
    if (record !== null) Object.freeze(Object.freeze(record).parent)
    // Names asked for need not exist, so the table is bounded.
    if (records.size >= tenant_records_per_snapshot_max) records.clear()
    records.set(name, record)
  }
  return record
}

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
