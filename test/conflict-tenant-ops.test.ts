// Conflict: tenant operations racing each other or a tenant's first write, over real
// HTTP with the example schema. A lost first-committer-wins race must be the
// documented conflict (409 `conflict` on the ops route; 400 `conflict: true` on the
// query route), never a 500, and the final state must be exactly what the successes
// say. Each race repeats until conflicts were seen, so a run that never races fails
// instead of passing vacuously.
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { Database } from '../src/database/index.js'
import { TenantError } from '../src/tenants/index.js'
import { QueryError } from '../src/query/index.js'
import { package_root } from '../src/package-root.js'
import { api, startServer, type ApiResponse } from './helpers/http-server.js'
import { tempDir } from './helpers/temp-dir.js'

const token = 'conflict-token-0123456789abcdef'
const rounds_max = 200
const conflicts_wanted = 3

async function setup(t: Test) {
  const db = await Database.open(join(tempDir(t), 'db'), { schema: [join(package_root, 'examples', 'schema.eel')] })
  t.teardown(() => db.close())
  const { origin } = await startServer(t, { token, db })
  const call = api(origin, token)
  const op = (tenant: string, body: unknown) => call(`/api/v1/t/${tenant}/ops`, { json: body })
  const query = (tenant: string, text: string, params: Record<string, unknown> = {}) => call(`/api/v1/t/${tenant}/query`, { json: { query: text, params } })
  return { db, call, op, query }
}

/** A lost race on a route other than query: 409 with the documented body (`conflict: true`, as on the query route). */
function isOpsConflict(res: ApiResponse): boolean {
  return res.status === 409 && res.body.code === 'conflict' && res.body.conflict === true && typeof res.body.error === 'string' && /retrying is safe/.test(res.body.error)
}

function isQueryConflict(res: ApiResponse): boolean {
  return res.status === 400 && res.body.code === 'conflict' && res.body.conflict === true && /retrying is safe/.test(res.body.error)
}

const shown = (res: ApiResponse) => `${res.status} ${JSON.stringify(res.body)}`

async function tenantState(call: ReturnType<typeof api>, name: string): Promise<string | undefined> {
  const listed = await call('/api/v1/tenants')
  return (listed.body.tenants as Array<{ name: string; state: string }>).find((x) => x.name === name)?.state
}

t.test('conflict: suspend racing snapshot is 200 or 409 conflict, never 500, and the state matches', async (t) => {
  const { call, op } = await setup(t)
  let conflicts = 0
  let round = 0
  for (; round < rounds_max && conflicts < conflicts_wanted; round += 1) {
    const name = `s${round}`
    t.equal((await op(name, { op: 'create' })).status, 200)
    const [suspend, snapshot] = await Promise.all([op(name, { op: 'suspend' }), op(name, { op: 'snapshot', target: 'snap' })])
    for (const res of [suspend, snapshot]) {
      if (res.status !== 200 && !isOpsConflict(res)) t.fail(`round ${round}: neither success nor the documented conflict: ${shown(res)}`)
      if (isOpsConflict(res)) conflicts += 1
    }
    t.equal(await tenantState(call, name), suspend.status === 200 ? 'suspended' : 'active', `round ${round}: the state follows the suspend's answer`)
    const snapshots = (await call(`/api/v1/t/${name}/snapshots`)).body.snapshots as Array<{ name: string }>
    t.same(snapshots.map((s) => s.name), snapshot.status === 200 ? ['snap'] : [], `round ${round}: the snapshot exists exactly when it succeeded`)
  }
  t.ok(conflicts >= conflicts_wanted, `conflicts occurred (${conflicts} in ${round} rounds)`)
})

t.test('conflict: delete racing a fork of the same tenant leaves no half-done fork', async (t) => {
  const { call, op, query } = await setup(t)
  let conflicts = 0
  let round = 0
  for (; round < rounds_max && conflicts < conflicts_wanted; round += 1) {
    const name = `d${round}`
    const fork = `f${round}`
    t.equal((await op(name, { op: 'create' })).status, 200)
    t.equal((await query(name, 'insert orders [{id: 1, user: 1, amount: 2.5}, {id: 2, user: 2, amount: 4}]')).status, 200)
    const [deleted, forked] = await Promise.all([op(name, { op: 'delete' }), op(name, { op: 'fork', target: fork })])
    t.equal(deleted.status, 200, `round ${round}: the delete succeeds (${shown(deleted)})`)
    // The fork may lose the race (conflict) or come after the delete (unknown_tenant).
    const lostAfter = forked.status === 404 && forked.body.code === 'unknown_tenant'
    if (forked.status !== 200 && !isOpsConflict(forked) && !lostAfter) t.fail(`round ${round}: fork answered ${shown(forked)}`)
    if (isOpsConflict(forked)) conflicts += 1
    t.equal(await tenantState(call, name), undefined, `round ${round}: the deleted tenant is gone`)
    t.equal((await query(name, 'orders | count')).status, 404)
    if (forked.status === 200) {
      const rows = await query(fork, 'orders | sort id | select id, amount')
      t.same(rows.body.rows, [[1, 2.5], [2, 4]], `round ${round}: a successful fork holds the source's rows`)
    } else {
      t.equal(await tenantState(call, fork), undefined, `round ${round}: a failed fork left no tenant`)
    }
  }
  t.ok(conflicts >= conflicts_wanted, `conflicts occurred (${conflicts} in ${round} rounds)`)
})

t.test('conflict: a tenant\'s first write racing its suspend is 200, conflict or tenant_suspended, never 500', async (t) => {
  const { call, op, query } = await setup(t)
  let conflicts = 0
  let round = 0
  for (; round < rounds_max && conflicts < conflicts_wanted; round += 1) {
    const name = `w${round}`
    t.equal((await op(name, { op: 'create' })).status, 200)
    // The tenant was never touched: the write first migrates it, then inserts.
    const [written, suspended] = await Promise.all([
      query(name, 'insert users {id: 1, email: "a@x", name: "A"}'),
      op(name, { op: 'suspend' }),
    ])
    const refused = written.status === 400 && written.body.code === 'tenant_suspended' && written.body.conflict === false
    if (written.status !== 200 && !isQueryConflict(written) && !refused) t.fail(`round ${round}: write answered ${shown(written)}`)
    if (suspended.status !== 200 && !isOpsConflict(suspended)) t.fail(`round ${round}: suspend answered ${shown(suspended)}`)
    if (isQueryConflict(written)) conflicts += 1
    if (isOpsConflict(suspended)) conflicts += 1
    t.equal(await tenantState(call, name), suspended.status === 200 ? 'suspended' : 'active')
    if (suspended.status === 200) t.equal((await op(name, { op: 'resume' })).status, 200)
    const count = await query(name, 'users | count')
    t.same(count.body.rows, [[written.status === 200 ? 1 : 0]], `round ${round}: the row exists exactly when the write succeeded`)
  }
  t.ok(conflicts >= conflicts_wanted, `conflicts occurred (${conflicts} in ${round} rounds)`)
})

t.test('conflict: the embedding API throws TenantError and QueryError with code conflict', async (t) => {
  const { db } = await setup(t)
  let opConflicts = 0
  let queryConflicts = 0
  for (let round = 0; round < rounds_max && (opConflicts === 0 || queryConflicts === 0); round += 1) {
    const name = `e${round}`
    await db.ops({ op: 'create', name })
    const results = await Promise.allSettled([
      db.tenant(name).query('insert orders {id: 1, user: 1, amount: 1}'),
      db.ops({ op: 'suspend', name }),
      db.ops({ op: 'snapshot', name, target: 'x' }),
    ])
    for (const r of results) {
      if (r.status === 'fulfilled') continue
      const err = r.reason as Error & { code?: string }
      if (err instanceof TenantError && err.code === 'conflict') opConflicts += 1
      else if (err instanceof QueryError && err.code === 'conflict') queryConflicts += 1
      else if (!(err instanceof QueryError && err.code === 'tenant_suspended')) t.fail(`round ${round}: ${err.name} ${err.code}: ${err.message}`)
    }
  }
  t.ok(opConflicts > 0, `TenantError conflicts occurred (${opConflicts})`)
  t.ok(queryConflicts > 0, `QueryError conflicts occurred (${queryConflicts})`)
})

t.test('conflict: delete racing a snapshot leaves no snapshot behind for a later tenant of that name', async (t) => {
  const { call, op } = await setup(t)
  let conflicts = 0
  let round = 0
  for (; round < rounds_max && (conflicts < conflicts_wanted || round < 20); round += 1) {
    const name = `p${round}`
    t.equal((await op(name, { op: 'create' })).status, 200)
    // Either may reach the server first.
    const [deleted, snapshot] = round % 2 === 0
      ? await Promise.all([op(name, { op: 'delete' }), op(name, { op: 'snapshot', target: 'kept' })])
      : (await Promise.all([op(name, { op: 'snapshot', target: 'kept' }), op(name, { op: 'delete' })])).reverse() as [ApiResponse, ApiResponse]
    for (const res of [deleted, snapshot]) {
      const gone = res === snapshot && res.status === 404 && res.body.code === 'unknown_tenant'
      if (res.status !== 200 && !isOpsConflict(res) && !gone) t.fail(`round ${round}: ${shown(res)}`)
      if (isOpsConflict(res)) conflicts += 1
    }
    t.equal((await op(name, { op: 'create' })).status, deleted.status === 200 ? 200 : 409)
    const snapshots = (await call(`/api/v1/t/${name}/snapshots`)).body.snapshots as Array<{ name: string }>
    t.same(snapshots.map((s) => s.name), deleted.status === 200 ? [] : ['kept'], `round ${round}: a deleted tenant's snapshots are gone with it`)
  }
  t.ok(conflicts >= conflicts_wanted, `conflicts occurred (${conflicts} in ${round} rounds)`)
})

t.test('conflict: a fork racing an atomic block holds all of the block or none of it', async (t) => {
  const { op, query } = await setup(t)
  let partial = 0
  let forks = 0
  for (let round = 0; round < 40; round += 1) {
    const name = `a${round}`
    const fork = `b${round}`
    t.equal((await op(name, { op: 'create' })).status, 200)
    t.equal((await query(name, 'insert users {id: 1, email: "first@x", name: "F"}')).status, 200)
    // `orders` has no tree yet: the block creates it while the fork may be listing trees.
    const [block, forked] = await Promise.all([
      query(name, 'atomic { insert users {id: 2, email: "b@x", name: "B"}; insert orders {id: 1, user: 2, amount: 1} }'),
      op(name, { op: 'fork', target: fork }),
    ])
    t.equal(block.status, 200, shown(block))
    if (forked.status !== 200 && !isOpsConflict(forked)) t.fail(`round ${round}: fork answered ${shown(forked)}`)
    if (forked.status !== 200) continue
    forks += 1
    const users = (await query(fork, 'users | count')).body.rows[0][0]
    const orders = (await query(fork, 'orders | count')).body.rows[0][0]
    if (users - 1 !== orders) partial += 1
  }
  t.ok(forks > 0, `forks succeeded (${forks})`)
  t.equal(partial, 0, 'no fork holds part of the block')
})
