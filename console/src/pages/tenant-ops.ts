// The tenant operations (docs/api.md, "Operations") plus resume, each behind its dialog: create, fork
// (from the head or a snapshot), snapshot, suspend, resume, compact, delete, and
// dropping a snapshot. What cannot be undone or interrupts clients asks first; delete
// and drop ask for the name typed.
import { describeError } from '../api/client.js'
import type { DiffCollection, SnapshotEntry, TenantOp } from '../api/types.js'
import type { Context } from '../context.js'
import { h } from '../ui/dom.js'
import { confirmAction, openDialog } from '../ui/dialog.js'
import { toast } from '../ui/toast.js'

/** Tenant and snapshot names (docs/api.md "Operations"), as an HTML pattern. */
export const name_pattern = '[a-z0-9][a-z0-9_\\-]{0,62}'
/** Said under every name field, and by the browser when a name does not match (the field's title). */
export const name_help = '1 to 63 characters: lower-case letters a–z, digits 0–9, _ and -, starting with a letter or digit (e.g. acme, acme-2, staging_eu).'

/**
 * Sends one operation on `tenant`'s path and shows the server's message, or its error
 * sentence under `verb` ("drop failed: …"); true when the server accepted it.
 */
async function send(ctx: Context, tenant: string, op: TenantOp, verb: string = op.op): Promise<boolean> {
  try {
    const result = await ctx.api.ops(tenant, op)
    toast(result.message, 'ok')
    return true
  } catch (error) {
    toast(`${verb} failed: ${describeError(error)}`, 'error')
    return false
  }
}

export async function createTenant(ctx: Context): Promise<string | null> {
  const values = await openDialog({
    title: 'Create tenant',
    body: 'A new, empty tenant with the loaded schema.',
    fields: [{ name: 'name', label: 'Name', placeholder: 'acme', pattern: name_pattern, help: name_help }],
    confirmLabel: 'Create',
  })
  if (values === null) return null
  const name = values.name ?? ''
  return (await send(ctx, name, { op: 'create', name })) ? name : null
}

export async function forkTenant(ctx: Context, tenant: string, snapshots: readonly SnapshotEntry[], from?: string): Promise<string | null> {
  const values = await openDialog({
    title: `Fork ${tenant}`,
    body: 'A new tenant that starts as a copy of the source. Forking copies a root set, not data, so it is instant; writes to either side never reach the other.',
    fields: [
      {
        name: 'source', label: 'Source', value: from === undefined ? tenant : `${tenant}@${from}`,
        options: [[tenant, `${tenant} (head)`], ...snapshots.map((s): [string, string] => [`${tenant}@${s.name}`, `${tenant}@${s.name} (snapshot, LSN ${s.lsn})`])],
      },
      { name: 'target', label: 'New tenant', placeholder: `${tenant}_copy`, pattern: name_pattern, help: name_help },
      {
        name: 'keep', label: 'Fork point (forking the head)', value: 'snapshot',
        options: [['snapshot', `Keep it: snapshot ${tenant} first (fork-<new tenant>), to compare the fork with it later`], ['none', 'Do not keep it: the fork cannot be compared with its source later']],
        help: 'A fork from a snapshot is always comparable with it (Diff, "against parent").',
      },
    ],
    confirmLabel: 'Fork',
  })
  if (values === null) return null
  const target = values.target ?? ''
  let source = values.source ?? tenant
  if (!source.includes('@') && values.keep === 'snapshot') {
    // The fork is made from this snapshot, so it is exactly the fork point.
    const point = `fork-${target}`.slice(0, 63)
    if (!(await send(ctx, tenant, { op: 'snapshot', name: tenant, target: point }))) return null
    source = `${tenant}@${point}`
  }
  if (!(await send(ctx, tenant, { op: 'fork', name: source, target }))) return null
  // An admin token administers the fork it made: it now opens one more tenant.
  if (ctx.access.value?.credential === 'tenant') await ctx.refreshAccess().catch(() => undefined)
  return target
}

interface LostCount { name: string; added: number; removed: number; changed: number; truncated: boolean }

/**
 * What a restore to `snapshot` undoes, per collection. One diff of the whole tenant
 * when it is complete; when it is cut short (the diff's row limit), one per collection,
 * so that many changes in one collection do not hide another's.
 */
async function lostRows(ctx: Context, tenant: string, snapshot: string): Promise<{ counts: LostCount[]; to: number }> {
  const whole = await ctx.api.diff(tenant, snapshot, 'head')
  const count = (name: string, c: DiffCollection, truncated: boolean): LostCount => ({ name, added: c.added.length, removed: c.removed.length, changed: c.changed.length, truncated })
  if (!whole.truncated) return { counts: Object.entries(whole.collections).map(([name, c]) => count(name, c, false)), to: whole.to.lsn }
  const names = (await ctx.api.collections(tenant)).map((c) => c.name)
  const each = await Promise.all(names.map((name) => ctx.api.diff(tenant, snapshot, 'head', name)))
  const counts = each.flatMap((diff) => Object.entries(diff.collections).map(([name, c]) => count(name, c, diff.truncated)))
  return { counts, to: Math.max(...each.map((diff) => diff.to.lsn), whole.to.lsn) }
}

/**
 * Restores `tenant` to snapshot `snapshot`, after a dialog that says what the head
 * loses: the rows added, removed and changed since the snapshot (read from a diff of the
 * snapshot against the head), and the LSNs in between. Optionally the current head is
 * kept as a snapshot first, so nothing is lost at all.
 */
export async function restoreTenant(ctx: Context, tenant: string, snapshot: SnapshotEntry): Promise<boolean> {
  let lost: Node | string
  try {
    const diff = await lostRows(ctx, tenant, snapshot.name)
    const counts = diff.counts.filter((c) => c.added + c.removed + c.changed > 0)
    lost = counts.length === 0
      ? h('p', null, `The head has the same rows as the snapshot (LSN ${snapshot.lsn} → ${diff.to}): no row is lost.`)
      : h('div', null,
        h('p', null, `Everything written to ${tenant} after LSN ${snapshot.lsn} leaves the head (it is at LSN ${diff.to}). Lost from the head:`),
        h('ul.lost', null, counts.map((c) => h('li', { dataset: { collection: c.name } }, h('code', null, c.name), `: ${c.truncated ? 'at least ' : ''}${c.added} row${c.added === 1 ? '' : 's'} added, ${c.removed} removed, ${c.changed} changed since the snapshot will be undone`))),
        counts.some((c) => c.truncated) ? h('p.muted', null, 'More changes than one diff lists: the counts marked "at least" are lower bounds.') : null)
  } catch (error) {
    lost = `What changed since the snapshot could not be read (${describeError(error)}): everything written after LSN ${snapshot.lsn} leaves the head.`
  }
  const values = await openDialog({
    title: `Restore ${tenant} to ${snapshot.name}?`,
    body: h('div', null, lost, h('p', null, 'The snapshots stay, and auto ids are never issued twice. Type the tenant name to confirm.')),
    fields: [
      { name: 'keep', label: 'Keep the current head as snapshot (optional)', placeholder: `before-restore`, pattern: name_pattern, help: `${name_help} Empty: the head is not kept.`, optional: true },
      { name: 'confirm', label: `Type ${tenant} to confirm`, pattern: tenant, placeholder: tenant },
    ],
    confirmLabel: 'Restore',
    danger: true,
  })
  if (values === null) return false
  const keep = values.keep ?? ''
  if (keep !== '' && !(await send(ctx, tenant, { op: 'snapshot', name: tenant, target: keep }))) return true
  await send(ctx, tenant, { op: 'restore', name: `${tenant}@${snapshot.name}` }, 'restore')
  return true
}

export async function snapshotTenant(ctx: Context, tenant: string): Promise<boolean> {
  const values = await openDialog({
    title: `Snapshot ${tenant}`,
    body: 'A named, read-only version of the tenant as it is now. Queries can be pinned to it and diffs compare against it.',
    fields: [{ name: 'target', label: 'Snapshot name', placeholder: 'before', pattern: name_pattern, help: name_help }],
    confirmLabel: 'Take snapshot',
  })
  if (values === null) return false
  return send(ctx, tenant, { op: 'snapshot', name: tenant, target: values.target ?? '' })
}

export async function suspendTenant(ctx: Context, tenant: string): Promise<boolean> {
  const ok = await confirmAction({
    title: `Suspend ${tenant}?`,
    body: 'Queries and reads of this tenant are refused (tenant_suspended) until it is resumed. Nothing is deleted.',
    confirmLabel: 'Suspend',
    danger: true,
  })
  return ok && send(ctx, tenant, { op: 'suspend', name: tenant })
}

export async function resumeTenant(ctx: Context, tenant: string): Promise<boolean> {
  return send(ctx, tenant, { op: 'resume', name: tenant })
}

export async function compactTenant(ctx: Context, tenant: string): Promise<boolean> {
  const ok = await confirmAction({
    title: `Compact ${tenant}?`,
    body: 'Rewrites the tenant\'s live rows and indexes into fresh pages and checkpoints, then moves live pages down the page file and cuts its free tail off; the result names the file\'s size before and after. Snapshots and forks stay readable. Commits wait while it runs.',
    confirmLabel: 'Compact',
  })
  return ok && send(ctx, tenant, { op: 'compact' })
}

export async function deleteTenant(ctx: Context, tenant: string, snapshotCount: number): Promise<boolean> {
  const values = await openDialog({
    title: `Delete ${tenant}?`,
    body: h('p', null, 'This deletes the tenant, all its rows', snapshotCount > 0 ? ` and its ${snapshotCount} snapshot${snapshotCount === 1 ? '' : 's'}` : '', '. It cannot be undone. Forks made from it are not affected.'),
    fields: [{ name: 'confirm', label: `Type ${tenant} to confirm`, pattern: tenant, placeholder: tenant }],
    confirmLabel: 'Delete tenant',
    danger: true,
  })
  return values !== null && send(ctx, tenant, { op: 'delete', name: tenant })
}

/**
 * Drops snapshot `snapshot` of `tenant` (`delete` of `tenant@snapshot`). True once it
 * was sent, whatever the answer: a refusal (404 it is gone already, 409 a fork from it
 * raced the drop) means the list on screen is stale too.
 */
export async function dropSnapshot(ctx: Context, tenant: string, snapshot: string): Promise<boolean> {
  const values = await openDialog({
    title: `Drop snapshot ${snapshot}?`,
    body: h('p', null, 'This drops ', h('code', null, `${tenant}@${snapshot}`), ': it can no longer be queried, compared or forked from. It cannot be undone. The tenant and forks made from it are not affected; the page slots only it held are reused by later checkpoints.'),
    fields: [{ name: 'confirm', label: `Type ${snapshot} to confirm`, pattern: snapshot, placeholder: snapshot }],
    confirmLabel: 'Drop snapshot',
    danger: true,
  })
  if (values === null) return false
  await send(ctx, tenant, { op: 'delete', name: `${tenant}@${snapshot}` }, 'drop')
  return true
}
