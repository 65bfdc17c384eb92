// Lazy migration over real data, the rows of the table in docs/language.md,
// "Lazy migration", that block: the tenant's queries (reads and writes) fail with
// migration_blocked and a reason that names the collection and what to do;
// blockedReason(tenant) says the same; nothing is written (the LSN does not move), and
// reopening the directory with schema v1 reads every row, index and meta entry back
// exactly as before. Where the schema can accept the change explicitly, the same data
// then migrates with the marker.
import t, { type Test } from 'tap'
import { phase, planned, expectBlocked, type Db, type Row } from './migration-fixtures/harness.js'
import { tempDir } from './helpers/temp-dir.js'

interface Saved {
  lsn: number
  trees: string[]
  meta: Record<string, string>
  rows: Record<string, Row[]>
}

/** Writes `data` (collection → rows) into tenant 'a' under `v1`; returns what is stored. */
async function seed(dir: string, v1: string, data: Record<string, Row[]>): Promise<Saved> {
  return phase(dir, v1, async (db) => {
    for (const [collection, rows] of Object.entries(data)) await db.run('a', `insert ${collection} $rows`, { rows })
    return save(db, Object.keys(data))
  })
}

function save(db: Db, collections: string[]): Saved {
  return {
    lsn: db.lsn(),
    trees: db.trees('a'),
    meta: db.meta('a'),
    rows: Object.fromEntries(collections.map((c) => [c, db.storedRows('a', c)])),
  }
}

/**
 * Under `v2` the tenant is blocked with `reason` on a read and on a write, nothing is
 * committed; then under `v1` again everything reads back as `saved`.
 */
async function blockedThenIntact(t: Test, dir: string, v1: string, v2: string, saved: Saved, reason: string | RegExp): Promise<string> {
  const collections = Object.keys(saved.rows)
  const first = collections[0] as string
  const message = await phase(dir, v2, async (db) => {
    const lsn = db.lsn()
    t.equal(lsn, saved.lsn, 'reopening commits nothing')
    const said = await expectBlocked(t, db, 'a', first, reason)
    const write = await db.error('a', `${first} | delete`)
    t.equal(write.code, 'migration_blocked', 'writes are refused too')
    t.equal(write.message, said)
    const again = await db.error('a', first)
    t.equal(again.message, said, 'a second query meets the same reason')
    t.equal(db.lsn(), lsn, 'the blocked migration committed nothing')
    t.same(save(db, collections), saved, 'rows, trees and meta are untouched')
    return said
  })
  await phase(dir, v1, async (db) => {
    t.same(save(db, collections), saved, 'reopened with v1: everything is as it was')
    for (const c of collections) t.same(await db.rows('a', c), saved.rows[c], `every row of ${c} reads back through Eel`)
  })
  return message
}

const users = [
  { id: 1, email: 'ada@x.io', first: 'Ada', last: 'Lovelace', age: 36 },
  { id: 2, email: 'bo@x.io', first: 'Bo', last: 'Diddley', age: 41 },
  { id: 3, email: 'cy@x.io', first: 'Ada', last: 'Lovelace', age: 29 },
  { id: 4, email: 'bo@x.io', first: 'Di', last: 'Lovelace', age: 52 },
]
const usersV1 = `collection users { id: int primary, email: string, first: string, last: string, age: int, index (last) }`

t.test('add unique on duplicate values: blocked, the reason names the collection and the value, data untouched', async (t) => {
  const dir = tempDir(t)
  const v2 = `collection users { id: int primary, email: string unique, first: string, last: string, age: int, index (last) }`
  t.same(await planned(usersV1, v2), ['build unique index users.email (email) from existing rows (checks for duplicates)'])
  const saved = await seed(dir, usersV1, { users })
  await blockedThenIntact(t, dir, usersV1, v2, saved,
    `collection 'users': unique index 'email' cannot be built: more than one row has email = string "bo@x.io"`)
  await phase(dir, usersV1, async (db) => {
    const found = await db.run('a', 'users | where last == "Lovelace"')
    t.same(found.plan, { collection: 'users', access: 'index', index: 'last' }, "v1's index still serves queries")
    t.same(found.rows.map((r) => r[0]), [1, 3, 4])
  })
})

t.test('turn an existing index unique over duplicates: blocked, and the old index is not dropped', async (t) => {
  const dir = tempDir(t)
  const v1 = `collection users { id: int primary, email: string, first: string, last: string, age: int, index (email) }`
  const v2 = `collection users { id: int primary, email: string, first: string, last: string, age: int, unique index (email) }`
  t.same(await planned(v1, v2), ['drop index users.email', 'build unique index users.email (email) from existing rows (checks for duplicates)'])
  const saved = await seed(dir, v1, { users })
  t.ok(saved.trees.includes('t/a/x/users/email'))
  await blockedThenIntact(t, dir, v1, v2, saved, /^collection 'users': unique index 'email' cannot be built: more than one row has email = string "bo@x.io"$/)
  await phase(dir, v1, async (db) => {
    const bo = await db.run('a', 'users | where email == "bo@x.io"')
    t.same(bo.plan, { collection: 'users', access: 'index', index: 'email' }, "v1's index still serves queries")
    t.same(bo.rows.map((r) => r[0]), [2, 4])
    t.equal(bo.stats.rows_examined, 2)
  })
})

t.test('add a unique index over two fields on duplicate pairs: blocked, naming both values', async (t) => {
  const dir = tempDir(t)
  const v2 = `collection users { id: int primary, email: string, first: string, last: string, age: int, index (last), unique index (first, last) }`
  const saved = await seed(dir, usersV1, { users })
  await blockedThenIntact(t, dir, usersV1, v2, saved,
    `collection 'users': unique index 'first_last' cannot be built: more than one row has (first, last) = string "Ada", string "Lovelace"`)
})

t.test('a blocked step after steps that would write: none of them is committed', async (t) => {
  const dir = tempDir(t)
  // add a field with a default (rewrites every row), drop an index, then a unique index
  // that meets duplicates: all or nothing.
  const v2 = `collection users { id: int primary, email: string unique, first: string, last: string, age: int, status: string = "x" }`
  t.same(await planned(usersV1, v2), [
    'drop index users.last',
    'add users.status = "x"',
    'build unique index users.email (email) from existing rows (checks for duplicates)',
  ])
  const saved = await seed(dir, usersV1, { users })
  await blockedThenIntact(t, dir, usersV1, v2, saved, /unique index 'email' cannot be built/)
})

t.test('remove a field without `dropped`: blocked, the reason says how to accept; with `dropped f` applied', async (t) => {
  const dir = tempDir(t)
  const v2 = `collection users { id: int primary, email: string, first: string, last: string, index (last) }`
  const v3 = `collection users { id: int primary, email: string, first: string, last: string, index (last), dropped age }`
  const reason = "collection 'users': field 'age' was removed, which would lose its data (write `dropped age` in collection 'users' to accept)"
  t.same(await planned(usersV1, v2), { blocked: reason })
  const saved = await seed(dir, usersV1, { users })
  await blockedThenIntact(t, dir, usersV1, v2, saved, reason)
  await phase(dir, v3, async (db) => {
    t.same(await db.rows('a', 'users'), users.map(({ age: _, ...rest }) => rest), 'applied once the schema says `dropped age`')
    t.notOk(db.storedRows('a', 'users').some((r) => 'age' in r))
    t.equal(db.migrator.blockedReason('a'), undefined)
  })
})

t.test('remove a collection without `dropped collection`: blocked; with it applied', async (t) => {
  const dir = tempDir(t)
  const v1 = `${usersV1}
    collection sessions { id: int primary, user: int, index (user) }`
  const v3 = `${usersV1}
    dropped collection sessions`
  const reason = 'collection \'sessions\' was removed, which would lose its rows (write `dropped collection sessions` to accept)'
  t.same(await planned(v1, usersV1), { blocked: reason })
  const saved = await seed(dir, v1, { sessions: [{ id: 1, user: 1 }, { id: 2, user: 4 }], users })
  await blockedThenIntact(t, dir, v1, usersV1, saved, reason)
  await phase(dir, v3, async (db) => {
    t.same(await db.rows('a', 'users'), users)
    t.same(db.trees('a'), ['t/a/meta', 't/a/r/users', 't/a/x/users/last'])
  })
})

const items = [{ id: 1, qty: 7 }, { id: 2, qty: -3 }, { id: 3, qty: 2.5 }, { id: 4, qty: 12 }]
const itemsV1 = `collection items { id: int primary, qty: float, index (qty) }`

t.test('narrow float to int without `narrowed`: blocked, the reason says how to accept', async (t) => {
  const dir = tempDir(t)
  const v2 = `collection items { id: int primary, qty: int, index (qty) }`
  const reason = "collection 'items': field 'qty' changes from float to int, which could lose data (mark it `narrowed` to convert each value; a value that does not convert blocks the migration)"
  t.same(await planned(itemsV1, v2), { blocked: reason })
  const saved = await seed(dir, itemsV1, { items: items.filter((i) => i.id !== 3) })
  await blockedThenIntact(t, dir, itemsV1, v2, saved, reason)
})

t.test('narrow float to int with `narrowed` when one value does not convert (2.5): blocked, nothing written', async (t) => {
  const dir = tempDir(t)
  const v2 = `collection items { id: int primary, qty: int narrowed, index (qty) }`
  const saved = await seed(dir, itemsV1, { items })
  await blockedThenIntact(t, dir, itemsV1, v2, saved,
    "collection 'items': field 'qty' cannot change from float to int: in the row with key int 3, value 2.5 does not convert to int")
  await phase(dir, itemsV1, async (db) => {
    const found = await db.run('a', 'items | where qty > 2')
    t.same(found.plan, { collection: 'items', access: 'index', index: 'qty' }, "v1's index was not dropped")
    t.same(found.rows, [[1, 7], [3, 2.5], [4, 12]], 'in primary-key order')
  })
})

t.test('narrow an optional field to required with `narrowed` over a null: blocked', async (t) => {
  const dir = tempDir(t)
  const v1 = `collection users { id: int primary, nick: string? }`
  const v2 = `collection users { id: int primary, nick: string narrowed }`
  const saved = await seed(dir, v1, { users: [{ id: 1, nick: 'a' }, { id: 2, nick: null }] })
  await blockedThenIntact(t, dir, v1, v2, saved,
    "collection 'users': field 'nick' cannot change from string? to string: in the row with key int 2, null does not convert to a required field")
})

t.test('change the primary field: blocked', async (t) => {
  const dir = tempDir(t)
  const v2 = `collection users { id: int, email: string primary, first: string, last: string, age: int, index (last) }`
  const reason = "collection 'users': the primary field changes from 'id' to 'email', which would give every row a new key"
  t.same(await planned(usersV1, v2), { blocked: reason })
  const saved = await seed(dir, usersV1, { users })
  await blockedThenIntact(t, dir, usersV1, v2, saved, reason)
})

t.test("change the primary field's type: blocked", async (t) => {
  const dir = tempDir(t)
  const v2 = `collection users { id: float primary, email: string, first: string, last: string, age: int, index (last) }`
  const reason = "collection 'users': primary field 'id' changes from int to float, which would give every row a new key"
  t.same(await planned(usersV1, v2), { blocked: reason })
  const saved = await seed(dir, usersV1, { users })
  await blockedThenIntact(t, dir, usersV1, v2, saved, reason)
})

t.test('add a required field without a default to an existing collection: blocked', async (t) => {
  const dir = tempDir(t)
  const v2 = `collection users { id: int primary, email: string, first: string, last: string, age: int, index (last), city: string }`
  const reason = "collection 'users': new field 'city' is required and has no default, so existing rows would have no value (make it optional or give it a default)"
  t.same(await planned(usersV1, v2), { blocked: reason })
  const saved = await seed(dir, usersV1, { users })
  await blockedThenIntact(t, dir, usersV1, v2, saved, reason)
})

t.test('several reasons at once: every one is reported, in one message', async (t) => {
  const dir = tempDir(t)
  const v1 = `${usersV1}
    ${itemsV1}`
  const v2 = `collection users { id: int primary, email: string, first: string, last: string, index (last) }
    collection items { id: int primary, qty: int, index (qty) }`
  const saved = await seed(dir, v1, { items, users })
  const said = await blockedThenIntact(t, dir, v1, v2, saved, /field 'qty' changes from float to int.*; .*field 'age' was removed/)
  t.match(said, /^collection 'items'/, 'collections in name order')
})

t.test('switch a collection from a declared `id` to auto ids: the next auto id follows the existing rows', async (t) => {
  // Not a row of the table, but inserts must keep working: the planner sees no field
  // change, so no counter exists; auto ids continue after the largest stored key.
  const dir = tempDir(t)
  const v1 = `collection notes { id: int primary, text: string }`
  const v2 = `collection notes { text: string }`
  t.same(await planned(v1, v2), [])
  await seed(dir, v1, { notes: [{ id: 1, text: 'a' }, { id: 2, text: 'b' }] })
  await phase(dir, v2, async (db) => {
    const inserted = await db.run('a', 'insert notes {text: "c"}').then(() => null, (e: unknown) => e)
    t.equal(inserted, null, 'an insert without id succeeds')
    t.same(await db.rows('a', 'notes'), [{ id: 1, text: 'a' }, { id: 2, text: 'b' }, ...(inserted === null ? [{ id: 3, text: 'c' }] : [])])
  })
})
