// Lazy migration as the API contract has it (docs/language.md, "Lazy migration";
// docs/api.md, "Tenants"), over the real `tenantdb serve` and a restart between two
// schema files: starting migrates nothing (it only logs the tenants a blocked migration
// would stop), the schema route shows `pending: true` and never migrates, and a query or
// the collections route is what applies a tenant's migration. Breaks if serve migrates
// at start again, if the schema route migrates, or if touching a tenant does not.
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import type { Test } from 'tap'
import { Database } from '../src/database/index.js'
import { internalsOf } from '../src/database/internals.js'
import { spawnCli } from './helpers/spawn-cli.js'
import { tempDir } from './helpers/temp-dir.js'

const token = 'lazy-migration-token-0123456789'
const schema_a = 'collection users { id: int primary, name: string }\n'
const schema_b = 'collection users { id: int primary, name: string unique, email: string? }\n'

/** `tenantdb serve` on `dir` with one schema file; a JSON client of its API. */
async function serve(t: Test, dir: string, schemaFile: string) {
  const server = spawnCli(t, ['serve', '--dir', join(dir, 'db'), '--port', '0', '--schema', schemaFile, '--token', token])
  const [, url] = await server.waitFor(/url: (http:\/\/127\.0\.0\.1:\d+\/api\/v1)\n/)
  const call = async (path: string, body?: unknown): Promise<{ status: number; body: Record<string, unknown> }> => {
    const res = await fetch(`${url}${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    })
    return { status: res.status, body: await res.json() as Record<string, unknown> }
  }
  const stop = async () => {
    server.child.kill('SIGTERM')
    t.equal(await server.exited, 0, 'a clean stop')
  }
  return { server, call, stop }
}

interface SchemaStatus { fingerprint: string; tenant: { applied_fingerprint: string | null; pending: boolean; blocked: string | null } }

t.test('a tenant whose schema changed shows pending over HTTP until a query or the collections route touches it; starting migrates nothing', async (t) => {
  const dir = tempDir(t)
  const a = join(dir, 'a.eel')
  const b = join(dir, 'b.eel')
  writeFileSync(a, schema_a)
  writeFileSync(b, schema_b)

  const first = await serve(t, dir, a)
  for (const name of ['acme', 'dupes']) t.equal((await first.call('/t/default/ops', { op: 'create', name })).status, 200)
  for (const [tenant, rows] of [['default', [{ id: 1, name: 'Ada' }]], ['acme', [{ id: 1, name: 'Bo' }]], ['dupes', [{ id: 1, name: 'same' }, { id: 2, name: 'same' }]]] as const) {
    t.equal((await first.call(`/t/${tenant}/query`, { query: 'insert users $rows', params: { rows } })).status, 200, `write to ${tenant}`)
  }
  const applied_a = (await first.call('/t/default/schema')).body as unknown as SchemaStatus
  t.equal(applied_a.tenant.pending, false, 'with schema A, the written tenants are at schema A')
  t.equal(applied_a.tenant.applied_fingerprint, applied_a.fingerprint)
  const lsn_a = ((await first.call('/health/detail')).body.wal as { current_lsn: number }).current_lsn
  await first.stop()

  const second = await serve(t, dir, b)
  const [line] = await second.server.waitFor(/.*migration blocked.*\n/)
  t.match(JSON.parse(line), { level: 40, tenant: 'dupes', reason: /unique index 'name' cannot be built/ }, 'the start logs the tenant a blocked migration would stop')
  t.notMatch(second.server.stdout(), /"tenant":"(default|acme)".*migration blocked/, 'and only that one')
  t.equal(((await second.call('/health/detail')).body.wal as { current_lsn: number }).current_lsn, lsn_a, 'the start committed nothing')

  const status = async (tenant: string) => (await second.call(`/t/${tenant}/schema`)).body as unknown as SchemaStatus
  for (const tenant of ['default', 'acme', 'dupes']) {
    const s = await status(tenant)
    t.equal(s.tenant.pending, true, `${tenant}: pending after the restart with schema B`)
    t.equal(s.tenant.applied_fingerprint, applied_a.fingerprint, `${tenant}: still at schema A`)
    t.not(s.fingerprint, applied_a.fingerprint, 'the loaded schema is B')
  }
  t.equal((await status('default')).tenant.pending, true, 'reading the schema status migrates nothing')
  t.match((await status('dupes')).tenant.blocked, /unique index 'name' cannot be built/, 'the blocked reason is shown before any touch')
  t.same(((await second.call('/tenants')).body.tenants as Array<{ name: string; schema: { pending: boolean } }>).map((r) => [r.name, r.schema.pending]),
    [['acme', true], ['default', true], ['dupes', true]], 'the tenant list says the same')

  const read = await second.call('/t/default/query', { query: 'users | select id, name, email' })
  t.equal(read.status, 200, 'a query touches default')
  t.same(read.body.rows, [[1, 'Ada', null]], 'and reads it at schema B')
  t.equal((await status('default')).tenant.pending, false, 'default: migrated by the query')
  t.equal((await status('default')).tenant.applied_fingerprint, (await status('default')).fingerprint)
  t.equal((await status('acme')).tenant.pending, true, 'acme: untouched, still pending')

  t.equal((await second.call('/t/acme/collections')).status, 200, 'the collections route touches acme')
  t.equal((await status('acme')).tenant.pending, false, 'acme: migrated by the collections route')

  const blocked = await second.call('/t/dupes/query', { query: 'users' })
  t.equal(blocked.status, 400)
  t.equal(blocked.body.code, 'migration_blocked', "dupes: a query meets the blocked migration")
  t.equal((await status('dupes')).tenant.pending, true, 'dupes: still pending, nothing written')
  t.equal(((await second.call('/health/detail')).body.wal as { current_lsn: number }).current_lsn, lsn_a + 2, 'two migrations committed, one each for default and acme')
  await second.stop()
})

t.test('the library: blockedMigrations() names the tenants a migration would stop, applying nothing', async (t) => {
  const dir = tempDir(t)
  const a = join(dir, 'a.eel')
  const b = join(dir, 'b.eel')
  writeFileSync(a, schema_a)
  writeFileSync(b, schema_b)
  const first = await Database.open(join(dir, 'db'), { schema: [a] })
  await first.ops({ op: 'create', name: 'dupes' })
  await first.tenant('default').query('insert users {id: 1, name: "Ada"}')
  await first.tenant('dupes').query('insert users [{id: 1, name: "same"}, {id: 2, name: "same"}]')
  await first.close()

  const db = await Database.open(join(dir, 'db'), { schema: [b] })
  t.teardown(() => db.close())
  const head = internalsOf(db).committer.head().lsn
  const blocked = await db.blockedMigrations()
  t.same(blocked.map((m) => m.tenant), ['dupes'], 'only the tenant whose data a migration cannot bring over')
  t.match(blocked[0]?.reason, /unique index 'name' cannot be built: more than one row has name = string "same"/)
  t.equal(internalsOf(db).committer.head().lsn, head, 'nothing was committed: default was checked, not migrated')
  t.equal(db.tenant('default').schema().tenant.pending, true)
  t.equal(db.tenant('dupes').schema().tenant.blocked, blocked[0]?.reason, 'the schema status shows the reason')
  await t.rejects(db.tenant('dupes').query('users'), { code: 'migration_blocked', message: blocked[0]?.reason }, 'a query meets it')
  t.same(await db.blockedMigrations(), blocked, 'asking again gives the same answer')
  await db.tenant('default').query('users')
  t.equal(internalsOf(db).committer.head().lsn, head + 1, 'a query of default migrated it')
})
