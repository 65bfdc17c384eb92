// Tenant operations (docs/api.md, "Operations"). Each is one engine commit through the
// committer (src/txn/), under the same first-committer-wins validation as queries: suspend and delete write the
// tenant's state key, which every write of that tenant depends on, so a write racing
// a suspend or delete fails with a conflict instead of landing after it. Every
// operation depends on its tenant's state too; a fork also on its source's, and a
// delete on the tenant's snapshots (which each snapshot signals), so a delete never
// leaves a snapshot or a fork of a tenant it no longer sees. The loser of such a race
// fails with `conflict` and changes nothing.
import { ConflictError, signalKey } from '../mvcc/index.js'
import type { SchemaIR } from '../schema/ir.js'
import { autoIdKey, indexTree, metaTree, rowsTree, tenantPrefix, tenantStateKey, TxnView, type Committer, type Engine, type Snapshot } from '../txn/index.js'
import { grantFork, revokeTenantTokens } from './access-tokens.js'
import { listSnapshots, readSnapshot, readTenant, removeSnapshot, removeTenant, writeSnapshot, writeTenant } from './catalog.js'
import { TenantError } from './errors.js'
import { checkName, default_tenant, pinName, splitSource } from './names.js'
import { checkOpRequest, type TenantOpRequest } from './op-request.js'
import { requireActive, requireTenant } from './rules.js'
import { applyLimitsChange } from './tenant-limits.js'

export interface OpResult {
  ok: true
  message: string
}

/** What tenant operations work with. */
export interface TenantOpContext {
  /** Every operation is one commit through it. */
  committer: Committer
  /** The loaded schema: the trees a fork or delete must cover (treesAtApply). */
  schema: SchemaIR
  /** For compaction: the page file's size, the checkpoint, the page file's compaction. */
  engine: Engine
  /** Forgets what this process knows of a tenant that was deleted or replaced (its migration, its auto-id counters). */
  forget(tenant: string): void
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
function treesAtApply(ctx: TenantOpContext, snapshot: Snapshot, tenant: string): string[] {
  const trees = new Set(tenantTrees(snapshot, tenant))
  trees.add(metaTree(tenant))
  for (const collection of ctx.schema.collections) {
    trees.add(rowsTree(tenant, collection.name))
    for (const index of collection.indexes) trees.add(indexTree(tenant, collection.name, index.name))
  }
  return [...trees]
}

/** What a snapshot of `tenant` signals and a delete of it depends on. */
const snapshotsKey = (tenant: string) => signalKey(`snapshots ${tenant}`)

/** What a change of `tenant`'s limits writes (two such changes conflict). */
const limitsKey = (tenant: string) => signalKey(`limits ${tenant}`)

/** What dropping snapshot `name` of `tenant` writes and a fork from it depends on. */
const snapshotKey = (tenant: string, name: string) => signalKey(`snapshot ${tenant}@${name}`)

/** How an operation is asked for, beyond what it is. */
export interface OpOptions {
  /**
   * A fork asked for with an admin tenant token: the SHA-256 of that token, which then
   * administers the new tenant too (granted in the fork's own commit).
   */
  forkGrantedTo?: string
}

/** Runs one operation; `request` is checked first (op-request.ts), so any value may be passed. */
export async function runTenantOp(ctx: TenantOpContext, request: unknown, options: OpOptions = {}): Promise<OpResult> {
  const checked = checkOpRequest(request)
  try {
    return await applyTenantOp(ctx, checked, options)
  } catch (err) {
    if (!(err instanceof ConflictError)) throw err
    throw new TenantError('conflict', `tenant operation '${checked.op}' lost a race with a concurrent change to the same tenant (${err.reason})`, {}, { cause: err })
  }
}

async function applyTenantOp(ctx: TenantOpContext, request: TenantOpRequest, options: OpOptions): Promise<OpResult> {
  const { committer } = ctx
  // Compaction rewrites a tenant's pages, which a suspended tenant keeps as they are.
  if (request.op === 'compact') requireActive(committer.head(), checkName(request.name, 'tenant'))
  // The page file as the caller saw it, before the compaction rewrites anything.
  const bytes_before = request.op === 'compact' ? ctx.engine.stats().page_file_bytes : 0
  // Leased across the commit: its pages stay put until the operation ends.
  const snapshot = committer.lease()
  let result: OpResult
  try {
    result = await applyOp(ctx, request, new TxnView(snapshot), options)
  } finally {
    committer.unlease(snapshot)
  }
  // After the lease: compaction waits for readers of older versions, this one included.
  return request.op === 'compact' ? compactFiles(ctx, result, bytes_before) : result
}

async function applyOp(ctx: TenantOpContext, request: TenantOpRequest, view: TxnView, options: OpOptions): Promise<OpResult> {
  const now = new Date()
  const name = request.op === 'fork' || request.op === 'delete' || request.op === 'restore' ? request.name : checkName(request.name, 'tenant')
  switch (request.op) {
    case 'create': {
      if (readTenant(view, name) !== null) throw new TenantError('tenant_exists', `tenant '${name}' exists`)
      writeTenant(view, { name, state: 'active', created_at: now.toISOString(), parent: null })
      await ctx.committer.commit(view, name, 'catalog')
      return { ok: true, message: `created tenant ${name}` }
    }
    case 'fork': {
      const [source, snapshotName] = splitSource(request.name)
      const target = checkName(request.target, 'tenant')
      requireTenant(view, source)
      if (readTenant(view, target) !== null) throw new TenantError('tenant_exists', `tenant '${target}' exists`)
      let lsn = view.snapshot.lsn
      if (snapshotName === null) {
        for (const tree of treesAtApply(ctx, view.snapshot, source)) view.copyTree(tree, retarget(tree, source, target))
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
      if (options.forkGrantedTo !== undefined) grantFork(view, options.forkGrantedTo, target)
      view.dependOn(tenantStateKey(source))
      if (snapshotName !== null) view.dependOn(snapshotKey(source, snapshotName))
      await ctx.committer.commit(view, target, 'catalog')
      ctx.forget(target)
      return { ok: true, message: `forked ${request.name} into ${target}` }
    }
    case 'snapshot': {
      const snapshotName = checkName(request.target, 'snapshot')
      requireTenant(view, name)
      if (readSnapshot(view, name, snapshotName) !== null) {
        throw new TenantError('snapshot_exists', `tenant '${name}' already has a snapshot '${snapshotName}'`)
      }
      writeSnapshot(view, name, { name: snapshotName, created_at: now.toISOString() })
      view.pinTenant(pinName(name, snapshotName), name)
      view.conflictOn(snapshotsKey(name))
      const lsn = await ctx.committer.commit(view, name, 'catalog')
      return { ok: true, message: `snapshot ${snapshotName} of ${name} at lsn ${lsn}` }
    }
    case 'restore':
      return restore(ctx, view, request.name)
    case 'suspend': case 'resume': {
      const record = requireTenant(view, name)
      const state = request.op === 'suspend' ? 'suspended' : 'active'
      if (record.state !== state) {
        writeTenant(view, { ...record, state })
        view.conflictOn(tenantStateKey(name))
        await ctx.committer.commit(view, name, 'catalog')
      }
      return { ok: true, message: `${request.op === 'suspend' ? 'suspended' : 'resumed'} ${name}` }
    }
    case 'delete': {
      const [tenant, snapshotName] = splitSource(name)
      if (snapshotName !== null) return dropSnapshot(ctx, view, tenant, snapshotName)
      if (name === default_tenant) throw new TenantError('bad_request', "the tenant 'default' cannot be deleted")
      requireTenant(view, name)
      const snapshots = listSnapshots(view.snapshot, name)
      for (const snapshot of snapshots) {
        removeSnapshot(view, name, snapshot.name)
        view.unpin(pinName(name, snapshot.name))
      }
      for (const tree of treesAtApply(ctx, view.snapshot, name)) view.dropTree(tree)
      removeTenant(view, name)
      // Its tokens go with it: one issued for a tenant of the same name later is new.
      revokeTenantTokens(view, name)
      view.conflictOn(tenantStateKey(name))
      view.dependOn(snapshotsKey(name))
      await ctx.committer.commit(view, name, 'catalog')
      ctx.forget(name)
      return { ok: true, message: `deleted ${name} and its ${snapshots.length} snapshot${snapshots.length === 1 ? '' : 's'}` }
    }
    case 'compact':
      return compact(ctx, view, name)
    case 'limit': {
      const record = requireTenant(view, name)
      const limits = applyLimitsChange(record.limits ?? {}, request.limits)
      const { limits: _old, ...rest } = record
      writeTenant(view, Object.keys(limits).length === 0 ? rest : { ...rest, limits })
      // Two changes of one tenant's limits, or one racing a suspend or delete: one wins.
      view.conflictOn(limitsKey(name))
      view.dependOn(tenantStateKey(name))
      await ctx.committer.commit(view, name, 'catalog')
      const shown = Object.entries(limits).map(([k, v]) => `${k}=${v}`).join(', ')
      return { ok: true, message: `limits of ${name}: ${shown === '' ? 'the server\'s defaults' : shown}` }
    }
  }
}

/**
 * Drops a named snapshot (`{"op":"delete","name":"acme@before"}`): its catalog record
 * and its pin go, so the page slots only it held become reusable. A fork from it
 * racing the drop loses one or the other with `conflict`.
 */
async function dropSnapshot(ctx: TenantOpContext, view: TxnView, tenant: string, name: string): Promise<OpResult> {
  requireTenant(view, tenant)
  if (readSnapshot(view, tenant, name) === null) throw new TenantError('unknown_snapshot', `tenant '${tenant}' has no snapshot '${name}'`)
  removeSnapshot(view, tenant, name)
  view.unpin(pinName(tenant, name))
  view.conflictOn(snapshotKey(tenant, name))
  view.conflictOn(snapshotsKey(tenant))
  await ctx.committer.commit(view, tenant, 'catalog')
  return { ok: true, message: `dropped snapshot ${name} of ${tenant}` }
}

/**
 * Restores a tenant to one of its snapshots (`{"op":"restore","name":"acme@before"}`):
 * in one commit, every tree of the tenant is replaced by the snapshot's copy (O(1) per
 * tree, copy-on-write, as a fork from a snapshot) and trees made after it are dropped,
 * so its rows, indexes and applied schema are the snapshot's. What stays: the tenant's
 * record (state, parent), all its snapshots, and its auto-id counters, which never go
 * back (an id is never issued twice). Writes racing it fail with `conflict` (it writes
 * the tenant's state key); a drop of the snapshot racing it loses one or the other. The
 * change tail reports it as one event with `restored` (docs/api.md, "Change tail").
 */
async function restore(ctx: TenantOpContext, view: TxnView, source: string): Promise<OpResult> {
  const [tenant, snapshotName] = splitSource(source)
  requireTenant(view, tenant)
  if (snapshotName === null) throw new Error('bug: checkOpRequest let a restore without a snapshot through')
  const pin = pinName(tenant, snapshotName)
  const pinned = view.snapshot.pin(pin)
  let lsn: number
  try {
    if (pinned === null || readSnapshot(view, tenant, snapshotName) === null) {
      throw new TenantError('unknown_snapshot', `tenant '${tenant}' has no snapshot '${snapshotName}'`)
    }
    lsn = pinned.lsn
    const kept = new Set(tenantTrees(pinned, tenant))
    for (const tree of treesAtApply(ctx, view.snapshot, tenant)) if (!kept.has(tree)) view.dropTree(tree)
    for (const tree of kept) view.copyTreeFromPin(pin, tree, tree)
  } finally {
    pinned?.release()
  }
  view.conflictOn(tenantStateKey(tenant))
  view.dependOn(snapshotKey(tenant, snapshotName))
  view.noteRestored({ snapshot: snapshotName, lsn })
  // Read now, in the step that validates the commit: no id taken before it is lost.
  for (const collection of ctx.schema.collections) {
    if (!collection.primary_auto) continue
    const next = ctx.committer.autoIds.peek(tenant, collection.name)
    view.putOutsideConflicts(metaTree(tenant), autoIdKey(collection.name), Buffer.from(String(next)))
  }
  await ctx.committer.commit(view, tenant, 'catalog')
  ctx.forget(tenant)
  return { ok: true, message: `restored ${tenant} to snapshot ${snapshotName} (lsn ${lsn})` }
}

/** Live rows into fresh pages; pins keep the pages they need (docs/operations.md, "Compacting a tenant"). */
async function compact(ctx: TenantOpContext, view: TxnView, name: string): Promise<OpResult> {
  const started = Date.now()
  requireTenant(view, name)
  const trees = tenantTrees(view.snapshot, name)
  const infos = new Map(view.snapshot.trees().map((t) => [t.name, t.count]))
  const collections = trees.filter((tree) => tree.startsWith(rowsTree(name, '')))
  const rows = collections.reduce((sum, tree) => sum + (infos.get(tree) ?? 0), 0)
  for (const tree of trees) view.compactTree(tree)
  await ctx.committer.commit(view, name, 'catalog')
  const { pages_written } = await ctx.engine.checkpoint()
  const ms = Date.now() - started
  return { ok: true, message: `compacted: ${collections.length} collections, ${rows} rows, ${pages_written} pages in ${ms} ms` }
}

/**
 * After a tenant's compaction, the page file's: what nothing reaches any more is
 * released and live pages move down so the free tail is cut off (docs/operations.md,
 * "Compacting a tenant"). The message gains the page file's size before the operation
 * began and after it.
 */
async function compactFiles(ctx: TenantOpContext, result: OpResult, bytes_before: number): Promise<OpResult> {
  const space = await ctx.engine.compactSpace()
  return { ok: true, message: `${result.message}; page file ${bytes_before} → ${space.bytes_after} bytes` }
}

function retarget(tree: string, from: string, to: string): string {
  return tenantPrefix(to) + tree.slice(tenantPrefix(from).length)
}
