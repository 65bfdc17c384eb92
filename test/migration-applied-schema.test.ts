// A database opened at a tenant's applied schema (`Database.open(dir, {appliedSchemaOf})`,
// what `tenantdb query` does without --schema; docs/language.md "Lazy migration"): the
// tenant's collections are queryable and writable as they were last migrated, nothing
// is migrated (its applied fingerprint stays, no commit of kind `migration`), a tenant at
// another schema is refused with `migration_blocked` naming what to do instead of being
// migrated to it, a never-migrated tenant has no collections, and schema files with it
// are refused. Breaks when a frozen open migrates anything.
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { Database, type CommitKind } from '../src/database/index.js'
import { QueryError } from '../src/query/index.js'
import { tempDir } from './helpers/temp-dir.js'

const v1 = 'collection users { id: int primary, name: string }\ncollection notes { id: int primary, text: string }'
const v2 = 'collection users { id: int primary, name: string, age: int? }'

t.test('at a tenant\'s applied schema, nothing migrates', async (t) => {
  const root = tempDir(t)
  const dir = join(root, 'db')
  const [one, two] = [join(root, 'v1.eel'), join(root, 'v2.eel')]
  writeFileSync(one, v1)
  writeFileSync(two, `${v2}\ndropped collection notes`)
  {
    // default at v1 with data; acme at v2 (its notes dropped); fresh never touched.
    const db = await Database.open(dir, { schema: [one] })
    await db.tenant('default').query('insert users {id: 1, name: "Ada"}')
    await db.tenant('default').query('insert notes {id: 1, text: "kept"}')
    await db.ops({ op: 'create', name: 'acme' })
    await db.ops({ op: 'create', name: 'fresh' })
    await db.close()
    const later = await Database.open(dir, { schema: [two] })
    await later.tenant('acme').query('insert users {id: 7, name: "Bo", age: 3}')
    await later.close()
  }

  const db = await Database.open(dir, { appliedSchemaOf: 'default' })
  t.teardown(() => db.close())
  const kinds: CommitKind[] = []
  db.observeCommits(({ kind }) => kinds.push(kind))
  const applied = db.tenant('default').schema().tenant.applied_fingerprint
  t.equal(db.schema.fingerprint, applied, 'the loaded schema is the one default was last migrated to')
  t.same(db.schema.ir.collections.map((c) => c.name), ['notes', 'users'])
  t.same((await db.tenant('default').query('notes | select text')).rows, [['kept']], 'its collections read')
  await db.tenant('default').query('insert users {id: 2, name: "Cy"}')
  t.same((await db.tenant('default').collections()).collections.map((c) => [c.name, c.rows]), [['notes', 1], ['users', 2]], 'and write')

  const blocked = await db.tenant('acme').query('users | count').then(() => null, (e: unknown) => e)
  t.ok(blocked instanceof QueryError && blocked.code === 'migration_blocked', `a tenant at another schema is refused: ${String(blocked)}`)
  t.match((blocked as Error).message, /opened without schema files, at the schema tenant 'default' was last migrated to .* tenant 'acme' is at schema [0-9a-f]+; nothing is migrated: open it for tenant 'acme'/)
  t.not(db.tenant('acme').schema().tenant.applied_fingerprint, applied, 'acme keeps its own schema')
  t.same(kinds, ['write'], 'one write, and no migration was committed')

  const other = await Database.open(join(root, 'other'), { appliedSchemaOf: 'default' })
  t.same(other.schema.ir.collections, [], 'a tenant never migrated: no collections')
  const none = await other.tenant('default').query('users | count').then(() => null, (e: unknown) => e)
  t.match(String(none), /unknown collection 'users'/)
  await other.close()

  const fresh = await db.tenant('fresh').query('users | count').then(() => null, (e: unknown) => e)
  t.match(String(fresh), /tenant 'fresh' is at no schema \(never migrated\)/, 'a never-migrated tenant beside a migrated one is refused too')
})

t.test('at acme\'s applied schema, acme is queried and default refused', async (t) => {
  const root = tempDir(t)
  const dir = join(root, 'db')
  writeFileSync(join(root, 'v2.eel'), v2)
  const setup = await Database.open(dir, { schema: [join(root, 'v2.eel')] })
  await setup.ops({ op: 'create', name: 'acme' })
  await setup.tenant('acme').query('insert users {id: 1, name: "Ada", age: 36}')
  await setup.close()
  const db = await Database.open(dir, { appliedSchemaOf: 'acme' })
  t.teardown(() => db.close())
  t.same((await db.tenant('acme').query('users | select age')).rows, [[36]])
  const refused = await db.tenant('default').query('users | count').then(() => null, (e: unknown) => e)
  t.match(String(refused), /tenant 'default' is at no schema \(never migrated\)/, 'default was never touched, so is not at acme\'s schema')
  t.equal(db.tenant('default').schema().tenant.applied_fingerprint, null, 'and stays unmigrated')
})

t.test('schema files and appliedSchemaOf together are refused', async (t) => {
  const root = tempDir(t)
  writeFileSync(join(root, 's.eel'), v1)
  await t.rejects(Database.open(join(root, 'db'), { schema: [join(root, 's.eel')], appliedSchemaOf: 'default' }), /schema files or appliedSchemaOf, not both/)
})
