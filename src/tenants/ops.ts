// Tenant operations (docs/api.md, "Operations"). Each is one engine commit through the
// same first-committer-wins validation as queries: suspend and delete write the
// tenant's state key, which every write of that tenant depends on, so a write racing
// a suspend or delete fails with a conflict instead of landing after it. Every
// operation depends on its tenant's state too; a fork also on its source's, and a
// delete on the tenant's snapshots (which each snapshot signals), so a delete never
// leaves a snapshot or a fork of a tenant it no longer sees. The loser of such a race
// fails with `conflict` and changes nothing.
import type { Snapshot } from '../engine/index.js'
import { ConflictError, signalKey } from '../mvcc/index.js'
import { indexTree, metaTree, rowsTree, tenantPrefix } from '../query/layout.js'
import { QueryError } from '../query/errors.js'
import { tenantStateKey, type QueryRunner } from '../query/run.js'
import { TxnView } from '../query/txn-view.js'
import { listSnapshots, readSnapshot, readTenant, readTenantCached, removeSnapshot, removeTenant, writeSnapshot, writeTenant, type TenantRecord } from './catalog.js'
import { TenantError } from './errors.js'
import { checkName, default_tenant, pinName } from './names.js'

export type TenantOpRequest =
  | { op: 'create'; name: string }
  | { op: 'fork'; name: string; target: string }
  | { op: 'snapshot'; name: string; target: string }
  | { op: 'suspend' | 'resume' | 'delete' | 'compact'; name: string }

/** Every operation `runTenantOp` knows; anything else is `bad_request`. */
export const tenant_ops: ReadonlyArray<TenantOpRequest['op']> = ['create', 'fork', 'snapshot', 'suspend', 'resume', 'delete', 'compact']

export interface OpResult {
  ok: true
  message: string
}

/** Every tree of a tenant in a version: its rows, indexes and meta. */
export function tenantTrees(snapshot: Snapshot, tenant: string): string[] {
  const prefix = tenantPrefix(tenant)
  return snapshot.trees().map((t) => t.name).filter((name) => name.startsWith(prefix))
}

/**
 * The trees a commit made now must cover: those of `tenant` in `snapshot`, and every
 * tree the loaded schema gives it. A write or migration accepted after `snapshot` was
 * taken may create a tree before this commit is applied; a fork or delete that missed
 * it would copy part of a transaction, or leave a tree behind.
 */
function treesAtApply(runner: QueryRunner, snapshot: Snapshot, tenant: string): string[] {
  const trees = new Set(tenantTrees(snapshot, tenant))
  trees.add(metaTree(tenant))
  for (const collection of runner.schema.ir.collections) {
    trees.add(rowsTree(tenant, collection.name))
    for (const index of collection.indexes) trees.add(indexTree(tenant, collection.name, index.name))
  }
  return [...trees]
}

/** The tenant's record; from a snapshot (immutable) it is remembered, and frozen. */
export function requireTenant(view: TxnView | Snapshot, name: string): Readonly<TenantRecord> {
  const record = view instanceof TxnView ? readTenant(view, name) : readTenantCached(view, name)
  if (record === null) throw new TenantError('unknown_tenant', `no tenant named '${name}'`)
  return record
}

/** What a snapshot of `tenant` signals and a delete of it depends on. */
const snapshotsKey = (tenant: string) => signalKey(`snapshots ${tenant}`)

/** What dropping snapshot `name` of `tenant` writes and a fork from it depends on. */
const snapshotKey = (tenant: string, name: string) => signalKey(`snapshot ${tenant}@${name}`)

/** The tenant's record, if statements may run on it: it exists and is not suspended. */
export function requireActive(snapshot: Snapshot, name: string): Readonly<TenantRecord> {
  const record = requireTenant(snapshot, name)
  if (record.state === 'suspended') throw new QueryError('tenant_suspended', `tenant '${name}' is suspended; resume it to query`)
  return record
}

export async function runTenantOp(runner: QueryRunner, request: TenantOpRequest): Promise<OpResult> {
  try {
    return await applyTenantOp(runner, request)
  } catch (err) {
    if (!(err instanceof ConflictError)) throw err
    throw new TenantError('conflict', `tenant operation '${request.op}' lost a race with a concurrent change to the same tenant (${err.message.replace(/^conflict: /, '')})`)
  }
}

async function applyTenantOp(runner: QueryRunner, request: TenantOpRequest): Promise<OpResult> {
  if (typeof request !== 'object' || request === null || !tenant_ops.includes(request.op)) {
    const op = typeof request === 'object' && request !== null ? JSON.stringify((request as { op?: unknown }).op) : 'none'
    throw new TenantError('bad_request', `unknown tenant operation ${op}; expected one of ${tenant_ops.join(', ')}`)
  }
  // The page file as the caller saw it, before the compaction rewrites anything.
  const bytes_before = request.op === 'compact' ? runner.engine.stats().page_file_bytes : 0
  // Leased across the commit: its pages stay put until the operation ends.
  const snapshot = runner.engine.lease()
  let result: OpResult
  try {
    result = await applyOp(runner, request, new TxnView(snapshot))
  } finally {
    runner.engine.unlease(snapshot)
  }
  // After the lease: compaction waits for readers of older versions, this one included.
  return request.op === 'compact' ? compactFiles(runner, result, bytes_before) : result
}

async function applyOp(runner: QueryRunner, request: TenantOpRequest, view: TxnView): Promise<OpResult> {
  const now = new Date()
  const name = request.op === 'fork' || request.op === 'delete' ? request.name : checkName(request.name, 'tenant')
  switch (request.op) {
    case 'create': {
      if (readTenant(view, name) !== null) throw new TenantError('tenant_exists', `tenant '${name}' exists`)
      writeTenant(view, { name, state: 'active', created_at: now.toISOString(), parent: null })
      await runner.commitView(name, view, 'catalog')
      return { ok: true, message: `created tenant ${name}` }
    }
    case 'fork': {
      const [source, snapshotName] = splitSource(request.name)
      const target = checkName(request.target, 'tenant')
      requireTenant(view, source)
      if (readTenant(view, target) !== null) throw new TenantError('tenant_exists', `tenant '${target}' exists`)
      let lsn = view.snapshot.lsn
      if (snapshotName === null) {
        for (const tree of treesAtApply(runner, view.snapshot, source)) view.copyTree(tree, retarget(tree, source, target))
      } else {
        const pinned = view.snapshot.pin(pinName(source, snapshotName))
        try {
          if (pinned === null || readSnapshot(view, source, snapshotName) === null) {
            throw new TenantError('unknown_snapshot', `tenant '${source}' has no snapshot '${snapshotName}'`)
          }
          lsn = pinned.lsn
          for (const tree of tenantTrees(pinned, source)) view.copyTreeFromPin(pinName(source, snapshotName), tree, retarget(tree, source, target))
        } finally {
          pinned?.release()
        }
      }
      writeTenant(view, { name: target, state: 'active', created_at: now.toISOString(), parent: { tenant: source, snapshot: snapshotName, lsn } })
      view.dependsOn.add(tenantStateKey(source))
      if (snapshotName !== null) view.dependsOn.add(snapshotKey(source, snapshotName))
      await runner.commitView(target, view, 'catalog')
      runner.forget(target)
      return { ok: true, message: `forked ${request.name} into ${target}` }
    }
    case 'snapshot': {
      const snapshotName = checkName(request.target, 'snapshot')
      requireTenant(view, name)
      if (readSnapshot(view, name, snapshotName) !== null) {
        throw new TenantError('snapshot_exists', `tenant '${name}' already has a snapshot '${snapshotName}'`)
      }
      writeSnapshot(view, name, { name: snapshotName, created_at: now.toISOString() })
      view.pin(pinName(name, snapshotName))
      view.extraKeys.add(snapshotsKey(name))
      const lsn = await runner.commitView(name, view, 'catalog')
      return { ok: true, message: `snapshot ${snapshotName} of ${name} at lsn ${lsn}` }
    }
    case 'suspend': case 'resume': {
      const record = requireTenant(view, name)
      const state = request.op === 'suspend' ? 'suspended' : 'active'
      if (record.state !== state) {
        writeTenant(view, { ...record, state })
        view.extraKeys.add(tenantStateKey(name))
        await runner.commitView(name, view, 'catalog')
      }
      return { ok: true, message: `${request.op === 'suspend' ? 'suspended' : 'resumed'} ${name}` }
    }
    case 'delete': {
      const [tenant, snapshotName] = splitSource(name)
      if (snapshotName !== null) return dropSnapshot(runner, view, tenant, snapshotName)
      if (name === default_tenant) throw new TenantError('bad_request', "the tenant 'default' cannot be deleted")
      requireTenant(view, name)
      const snapshots = listSnapshots(view.snapshot, name)
      for (const snapshot of snapshots) {
        removeSnapshot(view, name, snapshot.name)
        view.unpin(pinName(name, snapshot.name))
      }
      for (const tree of treesAtApply(runner, view.snapshot, name)) view.dropTree(tree)
      removeTenant(view, name)
      view.extraKeys.add(tenantStateKey(name))
      view.dependsOn.add(snapshotsKey(name))
      await runner.commitView(name, view, 'catalog')
      runner.forget(name)
      return { ok: true, message: `deleted ${name} and its ${snapshots.length} snapshot${snapshots.length === 1 ? '' : 's'}` }
    }
    case 'compact':
      return compact(runner, view, name)
  }
}

/**
 * Drops a named snapshot (`{"op":"delete","name":"acme@before"}`): its catalog record
 * and its pin go, so the page slots only it held become reusable. A fork from it
 * racing the drop loses one or the other with `conflict`.
 */
async function dropSnapshot(runner: QueryRunner, view: TxnView, tenant: string, name: string): Promise<OpResult> {
  requireTenant(view, tenant)
  if (readSnapshot(view, tenant, name) === null) throw new TenantError('unknown_snapshot', `tenant '${tenant}' has no snapshot '${name}'`)
  removeSnapshot(view, tenant, name)
  view.unpin(pinName(tenant, name))
  view.extraKeys.add(snapshotKey(tenant, name))
  view.extraKeys.add(snapshotsKey(tenant))
  await runner.commitView(tenant, view, 'catalog')
  return { ok: true, message: `dropped snapshot ${name} of ${tenant}` }
}

/**
 * Compact (docs/operations.md, "Compacting a tenant"): live rows into fresh pages; pins
 * keep the pages they need.
 */
async function compact(runner: QueryRunner, view: TxnView, name: string): Promise<OpResult> {
  const started = Date.now()
  requireTenant(view, name)
  const trees = tenantTrees(view.snapshot, name)
  const infos = new Map(view.snapshot.trees().map((t) => [t.name, t.count]))
  const collections = trees.filter((tree) => tree.startsWith(rowsTree(name, '')))
  const rows = collections.reduce((sum, tree) => sum + (infos.get(tree) ?? 0), 0)
  for (const tree of trees) view.compactTree(tree)
  await runner.commitView(name, view, 'catalog')
  const { pages_written } = await runner.engine.checkpoint()
  const ms = Date.now() - started
  return { ok: true, message: `compacted: ${collections.length} collections, ${rows} rows, ${pages_written} pages in ${ms} ms` }
}

/**
 * After a tenant's compaction, the page file's: what nothing reaches any more is
 * released and live pages move down so the free tail is cut off (docs/operations.md,
 * "Compacting a tenant"). The message gains the page file's size before the operation
 * began and after it.
 */
async function compactFiles(runner: QueryRunner, result: OpResult, bytes_before: number): Promise<OpResult> {
  const space = await runner.engine.compactSpace()
  return { ok: true, message: `${result.message}; page file ${bytes_before} → ${space.bytes_after} bytes` }
}

/** `acme` or `acme@before`. */
function splitSource(source: string): [string, string | null] {
  const at = source.indexOf('@')
  if (at === -1) return [checkName(source, 'tenant'), null]
  return [checkName(source.slice(0, at), 'tenant'), checkName(source.slice(at + 1), 'snapshot')]
}

function retarget(tree: string, from: string, to: string): string {
  return tenantPrefix(to) + tree.slice(tenantPrefix(from).length)
}
