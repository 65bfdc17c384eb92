// The rules every call on a tenant obeys, in one place below the HTTP layer, so the
// embedding API and the routes answer alike (docs/api.md, "Tenants"): the tenant must
// exist; a suspended one takes no query (QueryError, as every failure of a query) and
// no change tail, diff, collection listing or compaction (TenantError, 423 over HTTP),
// while its schema status, its snapshots and the operations that change its state still
// work; a collection named by a call must be one of the loaded schema's.
import { QueryError } from '../query-error.js'
import type { SchemaIR } from '../schema/ir.js'
import { TxnView, type Snapshot } from '../txn/index.js'
import { readTenant, readTenantCached, type TenantRecord } from './catalog.js'
import { TenantError } from './errors.js'

/** The tenant's record; from a snapshot (immutable) it is remembered, and frozen. */
export function requireTenant(view: TxnView | Snapshot, name: string): Readonly<TenantRecord> {
  const record = view instanceof TxnView ? readTenant(view, name) : readTenantCached(view, name)
  if (record === null) throw new TenantError('unknown_tenant', `no tenant named '${name}'`)
  return record
}

/** The tenant's record, if statements may run on it: it exists and is not suspended. */
export function requireQueryable(snapshot: Snapshot, name: string): Readonly<TenantRecord> {
  const record = requireTenant(snapshot, name)
  if (record.state === 'suspended') throw new QueryError('tenant_suspended', `tenant '${name}' is suspended; resume it to query`)
  return record
}

/** The tenant's record, if it is active: the change tail, diffs, collections and compaction refuse a suspended one. */
export function requireActive(view: TxnView | Snapshot, name: string): Readonly<TenantRecord> {
  const record = requireTenant(view, name)
  if (record.state === 'suspended') throw new TenantError('tenant_suspended', `tenant '${name}' is suspended; resume it first`)
  return record
}

/** `name`, if the loaded schema declares a collection of that name. */
export function requireCollection(schema: SchemaIR, name: string): string {
  if (!schema.collections.some((c) => c.name === name)) throw new TenantError('unknown_collection', `no collection named '${name}'`)
  return name
}
