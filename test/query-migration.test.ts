// Lazy migration over real data, the rows of the table in docs/language.md,
// "Lazy migration", that apply: each test writes rows under schema v1, closes the
// engine, reopens the same directory with schema v2 and a new QueryRunner (the restart
// path), touches the tenant with a query, and checks the data (through Eel and beneath
// it, in the stored trees), the plan hints and that nothing was lost. Blocked rows:
// query-migration-blocked.test.ts; commit and tenant behaviour:
// query-migration-commit.test.ts.
import t, { type Test } from 'tap'
import { EelError } from '../src/lang/diagnostic.js'
import { phase, planned, type Row } from './migration-fixtures/harness.js'
import { tempDir } from './helpers/temp-dir.js'

const people = [
  { id: 1, name: 'Ada', city: 'Oslo', age: 36 },
  { id: 2, name: 'Bo', city: 'Rome', age: 41 },
  { id: 3, name: 'Cy', city: 'Oslo', age: 29 },
  { id: 4, name: 'Di', city: 'Lima', age: 52 },
  { id: 5, name: 'Ed', city: 'Oslo', age: 41 },
]
const peopleV1 = `collection users { id: int primary, name: string, city: string, age: int }`

/** Writes `rows` into `collection` of tenant 'a' under `source`; returns the stored rows. */
async function seed(dir: string, source: string, collection: string, rows: Row[]): Promise<Row[]> {
  return phase(dir, source, async (db) => {
    await db.run('a', `insert ${collection} $rows`, { rows })
    return db.storedRows('a', collection)
  })
}

const unknownCollection = { name: 'EelError', diagnostic: { code: 'unknown_collection' } }
const unknownField = (t: Test, err: unknown, field: string) => {
  t.type(err, EelError)
  t.match((err as Error).message, new RegExp(`unknown field '${field}'`))
}
/** The stable code of a checker (EelError) or runtime (QueryError) failure. */
const codeOf = (err: unknown): unknown => (err instanceof EelError ? err.diagnostic.code : (err as { code?: unknown }).code)

t.test('add a collection: the new one starts empty with its index; old rows are untouched', async (t) => {
  const dir = tempDir(t)
  const v2 = `${peopleV1}
    collection orders { id: int primary, user: int, amount: float, index (user) }`
  t.same(await planned(peopleV1, v2), ['create collection orders', 'build index orders.user (user) from existing rows'])
  const before = await seed(dir, peopleV1, 'users', people)
  await phase(dir, v2, async (db) => {
    t.same(await db.rows('a', 'orders'), [], 'the new collection is empty')
    t.same(await db.rows('a', 'users'), people, 'old rows read back as written')
    t.same(db.storedRows('a', 'users'), before, 'stored rows unchanged')
    await db.run('a', 'insert orders [{id: 1, user: 1, amount: 9.5}, {id: 2, user: 3, amount: 2}]')
    const byUser = await db.run('a', 'orders | where user == 3')
    t.same(byUser.plan, { collection: 'orders', access: 'index', index: 'user' })
    t.same(byUser.rows, [[2, 3, 2]])
  })
})

t.test('add an optional field: old rows read null, new rows may set it', async (t) => {
  const dir = tempDir(t)
  const v2 = `collection users { id: int primary, name: string, city: string, age: int, nick: string? }`
  t.same(await planned(peopleV1, v2), ['add users.nick'])
  const before = await seed(dir, peopleV1, 'users', people)
  await phase(dir, v2, async (db) => {
    t.same(await db.rows('a', 'users'), people.map((p) => ({ ...p, nick: null })), 'old rows read nick = null')
    t.same(db.storedRows('a', 'users').map(({ nick: _, ...rest }) => rest), before, 'every other value is kept')
    t.same(await db.rows('a', 'users | where nick == null | count'), [{ count: 5 }])
    await db.run('a', 'insert users {id: 6, name: "Fy", city: "Kyiv", age: 20, nick: "f"}')
    await db.run('a', 'users | where id == 1 | update {nick: "ada"}')
    t.same(await db.rows('a', 'users | where nick != null | select id, nick'), [{ id: 1, nick: 'ada' }, { id: 6, nick: 'f' }])
  })
})

t.test('add a field with a default: old rows get the default value', async (t) => {
  const dir = tempDir(t)
  const v2 = `collection users {
    id: int primary, name: string, city: string, age: int,
    status: string = "active", tags: [string] = ["new"], level: float = 1, nick: string? = "anon",
    since: timestamp = "2024-01-02T03:04:05Z",
  }`
  t.same(await planned(peopleV1, v2), [
    'add users.status = "active"', 'add users.tags = ["new"]', 'add users.level = 1', 'add users.nick = "anon"',
    'add users.since = "2024-01-02T03:04:05.000Z"',
  ])
  const before = await seed(dir, peopleV1, 'users', people)
  await phase(dir, v2, async (db) => {
    const filled = { status: 'active', tags: ['new'], level: 1, nick: 'anon', since: new Date('2024-01-02T03:04:05Z') }
    t.same(await db.rows('a', 'users'), people.map((p) => ({ ...p, ...filled })))
    t.same(db.storedRows('a', 'users'), before.map((r) => ({ ...r, ...filled })), 'the defaults are stored in every old row')
    t.same(await db.rows('a', 'users | where status == "active" | count'), [{ count: 5 }])
    await db.run('a', 'insert users {id: 6, name: "Fy", city: "Kyiv", age: 20, status: "new"}')
    t.same(await db.rows('a', 'users | get 6 | select status, tags, level, nick'), [{ status: 'new', tags: ['new'], level: 1, nick: 'anon' }])
    t.same(await db.rows('a', 'users | where since < "2025-01-01T00:00:00Z" | count'), [{ count: 6 }], 'the timestamp default is a timestamp, not text')
  })
})

t.test('add a field with a now() default: old rows get the migration time', async (t) => {
  const dir = tempDir(t)
  const v2 = `collection users { id: int primary, name: string, city: string, age: int, seen: timestamp = now() }`
  t.same(await planned(peopleV1, v2), ['add users.seen = now()'])
  await seed(dir, peopleV1, 'users', people)
  const started = Date.now()
  await phase(dir, v2, async (db) => {
    const rows = await db.rows('a', 'users | select id, seen')
    const migrated = Date.now()
    const stamps = rows.map((r) => r.seen)
    t.ok(stamps.every((s) => s instanceof Date), 'every old row has a timestamp')
    const first = (stamps[0] as Date).getTime()
    t.ok(stamps.every((s) => (s as Date).getTime() === first), 'one migration time for every row')
    t.ok(first >= started && first <= migrated, `the migration time (${new Date(first).toISOString()}) is when the tenant was touched`)
    // A row written later takes its own now(), not the migration's.
    await db.runner.run('a', 'insert users {id: 6, name: "Fy", city: "Kyiv", age: 20}', {}, { now: new Date('2031-01-02T03:04:05Z') })
    t.same(await db.rows('a', 'users | get 6 | select seen'), [{ seen: new Date('2031-01-02T03:04:05Z') }])
  })
})

t.test('add an index: built from the existing rows; queries use it and examine only matches', async (t) => {
  const dir = tempDir(t)
  const v2 = `collection users { id: int primary, name: string, city: string, age: int, index (city), index (city, age) }`
  t.same(await planned(peopleV1, v2), ['build index users.city (city) from existing rows', 'build index users.city_age (city, age) from existing rows'])
  const before = await seed(dir, peopleV1, 'users', people)
  await phase(dir, v2, async (db) => {
    const oslo = await db.run('a', 'users | where city == "Oslo"')
    t.same(oslo.plan, { collection: 'users', access: 'index', index: 'city' })
    t.same(oslo.rows.map((r) => r[0]), [1, 3, 5], 'the old rows, found through the index')
    t.equal(oslo.stats.rows_examined, 3, 'rows_examined equals the matches')
    const pair = await db.run('a', 'users | where city == "Oslo" and age == 41')
    t.same(pair.plan, { collection: 'users', access: 'index', index: 'city_age' })
    t.same(pair.rows.map((r) => r[0]), [5])
    t.equal(pair.stats.rows_examined, 1)
    t.same(db.indexEntries('a', 'users', 'city'), [['Lima', 4], ['Oslo', 1], ['Oslo', 3], ['Oslo', 5], ['Rome', 2]], 'one entry per row')
    t.same(db.indexEntries('a', 'users', 'city_age'), [['Lima', 52, 4], ['Oslo', 29, 3], ['Oslo', 36, 1], ['Oslo', 41, 5], ['Rome', 41, 2]])
    t.same(db.storedRows('a', 'users'), before, 'rows unchanged')
    // The built index is maintained by later writes.
    await db.run('a', 'users | where id == 2 | update {city: "Oslo"}')
    t.same((await db.run('a', 'users | where city == "Oslo"')).rows.map((r) => r[0]), [1, 2, 3, 5])
  })
})

t.test('drop an index: its tree is gone, queries scan, data kept', async (t) => {
  const dir = tempDir(t)
  const v1 = `collection users { id: int primary, name: string, city: string, age: int, index (city) }`
  t.same(await planned(v1, peopleV1), ['drop index users.city'])
  const before = await phase(dir, v1, async (db) => {
    await db.run('a', 'insert users $rows', { rows: people })
    t.same((await db.run('a', 'users | where city == "Oslo"')).plan, { collection: 'users', access: 'index', index: 'city' }, 'v1 uses the index')
    t.ok(db.trees('a').includes('t/a/x/users/city'))
    return db.storedRows('a', 'users')
  })
  await phase(dir, peopleV1, async (db) => {
    const oslo = await db.run('a', 'users | where city == "Oslo"')
    t.same(oslo.plan, { collection: 'users', access: 'scan' })
    t.same(oslo.rows.map((r) => r[0]), [1, 3, 5])
    t.equal(oslo.stats.rows_examined, 5, 'a scan examines every row')
    t.same(db.trees('a'), ['t/a/meta', 't/a/r/users'], 'the index tree is dropped')
    t.same(db.storedRows('a', 'users'), before)
  })
})

t.test('drop a unique index: its tree is gone and duplicates are accepted afterwards', async (t) => {
  const dir = tempDir(t)
  const v1 = `collection users { id: int primary, email: string unique }`
  const v2 = `collection users { id: int primary, email: string }`
  t.same(await planned(v1, v2), ['drop index users.email'])
  const before = await seed(dir, v1, 'users', [{ id: 1, email: 'a@x.io' }, { id: 2, email: 'b@x.io' }])
  await phase(dir, v2, async (db) => {
    t.same(db.trees('a'), ['t/a/meta', 't/a/r/users', 't/a/x/users/email'], 'before the tenant is touched the index is still there')
    t.same(await db.rows('a', 'users'), before)
    t.same(db.trees('a'), ['t/a/meta', 't/a/r/users'], 'touching the tenant dropped it')
    await db.run('a', 'insert users {id: 3, email: "a@x.io"}')
    t.same(await db.rows('a', 'users | where email == "a@x.io" | select id'), [{ id: 1 }, { id: 3 }])
  })
})

t.test('add unique on clean data: applied; a duplicate insert then fails with constraint_violation', async (t) => {
  const dir = tempDir(t)
  const v1 = `collection users { id: int primary, email: string, first: string, last: string, nick: string? }`
  const v2 = `collection users { id: int primary, email: string unique, first: string, last: string, nick: string? unique, unique index (first, last) }`
  t.same(await planned(v1, v2), [
    'build unique index users.email (email) from existing rows (checks for duplicates)',
    'build unique index users.first_last (first, last) from existing rows (checks for duplicates)',
    'build unique index users.nick (nick) from existing rows (checks for duplicates)',
  ])
  const rows = [
    { id: 1, email: 'ada@x.io', first: 'Ada', last: 'Lovelace', nick: null },
    { id: 2, email: 'bo@x.io', first: 'Ada', last: 'Byron', nick: null },
    { id: 3, email: 'cy@x.io', first: 'Cy', last: 'Lovelace', nick: 'cy' },
  ]
  const before = await seed(dir, v1, 'users', rows)
  await phase(dir, v2, async (db) => {
    t.same(await db.rows('a', 'users'), rows, 'applied: two null nicks are not duplicates')
    const byEmail = await db.run('a', 'users | where email == "bo@x.io"')
    t.same(byEmail.plan, { collection: 'users', access: 'index', index: 'email' })
    t.same(byEmail.rows.map((r) => r[0]), [2])
    t.equal(byEmail.stats.rows_examined, 1)
    const lsn = db.lsn()
    const dup = await db.error('a', 'insert users {id: 4, email: "bo@x.io", first: "X", last: "Y"}')
    t.equal(dup.code, 'constraint_violation')
    t.match(dup.message, /unique index 'email'.*string "bo@x.io"/)
    const pair = await db.error('a', 'insert users {id: 4, email: "new@x.io", first: "Ada", last: "Lovelace"}')
    t.equal(pair.code, 'constraint_violation')
    t.match(pair.message, /first_last/)
    const nick = await db.error('a', 'users | where id == 1 | update {nick: "cy"}')
    t.equal(nick.code, 'constraint_violation')
    t.equal(db.lsn(), lsn, 'the refused writes committed nothing')
    t.same(db.storedRows('a', 'users'), before)
    await db.run('a', 'insert users {id: 4, email: "di@x.io", first: "Di", last: "Lovelace"}')
    t.equal((await db.rows('a', 'users')).length, 4, 'a row that violates nothing is accepted')
  })
})

t.test('rename a field with was: data kept, and the index on it keeps working', async (t) => {
  const dir = tempDir(t)
  const v1 = `collection users { id: int primary, name: string, mail: string unique, city: string, index (city, mail) }`
  const v2 = `collection users { id: int primary, name: string, email: string unique was mail, city: string, index (city, email) }`
  t.same(await planned(v1, v2), [
    'drop index users.city_mail',
    'drop index users.mail',
    'rename users.mail to email',
    'build index users.city_email (city, email) from existing rows',
    'build unique index users.email (email) from existing rows (checks for duplicates)',
  ])
  const rows = people.map((p) => ({ id: p.id, name: p.name, mail: `${p.name.toLowerCase()}@x.io`, city: p.city }))
  const before = await seed(dir, v1, 'users', rows)
  await phase(dir, v2, async (db) => {
    const renamed: Row[] = before.map(({ mail, ...rest }) => ({ ...rest, email: mail ?? null }))
    t.same(await db.rows('a', 'users | select id, name, email, city'), rows.map(({ id, name, mail, city }) => ({ id, name, email: mail, city })))
    const stored = db.storedRows('a', 'users')
    t.same(stored, renamed, 'every stored row has email, with the old mail value')
    t.notOk(stored.some((r) => 'mail' in r), 'no stored row keeps mail')
    const bo = await db.run('a', 'users | where email == "bo@x.io"')
    t.same(bo.plan, { collection: 'users', access: 'index', index: 'email' })
    t.same(bo.rows.map((r) => r[0]), [2])
    t.equal(bo.stats.rows_examined, 1)
    const pair = await db.run('a', 'users | where city == "Oslo" and email == "cy@x.io"')
    t.same(pair.plan, { collection: 'users', access: 'index', index: 'city_email' })
    t.same(pair.rows.map((r) => r[0]), [3])
    t.same(db.trees('a'), ['t/a/meta', 't/a/r/users', 't/a/x/users/city_email', 't/a/x/users/email'], 'the old index trees are gone')
    const dup = await db.error('a', 'insert users {id: 9, name: "X", email: "ada@x.io", city: "Oslo"}')
    t.equal(dup.code, 'constraint_violation', 'the renamed field is still unique')
    await t.rejects(db.run('a', 'users | where mail == "ada@x.io"'), { name: 'EelError' }, 'the old name is gone from queries')
  })
})

t.test('rename the primary field with was: keys and rows kept', async (t) => {
  const dir = tempDir(t)
  const v1 = `collection users { id: int primary, name: string }`
  const v2 = `collection users { key: int primary was id, name: string }`
  t.same(await planned(v1, v2), ['rename users.id to key'])
  await seed(dir, v1, 'users', [{ id: 1, name: 'Ada' }, { id: 7, name: 'Bo' }])
  await phase(dir, v2, async (db) => {
    t.same(await db.rows('a', 'users'), [{ key: 1, name: 'Ada' }, { key: 7, name: 'Bo' }])
    const bo = await db.run('a', 'users | where key == 7')
    t.same(bo.plan, { collection: 'users', access: 'primary' })
    t.same(bo.rows, [[7, 'Bo']])
    t.equal((await db.error('a', 'insert users {key: 1, name: "X"}')).code, 'constraint_violation', 'the old keys are still taken')
  })
})

t.test('rename a collection with was: rows, indexes and keys kept under the new name', async (t) => {
  const dir = tempDir(t)
  const v1 = `collection users { id: int primary, name: string, city: string, age: int, index (city) }
    collection notes { id: int primary, text: string }`
  const v2 = `collection people was users { id: int primary, name: string, city: string, age: int, index (city) }
    collection notes { id: int primary, text: string }`
  t.same(await planned(v1, v2), ['rename collection users to people'])
  const before = await seed(dir, v1, 'users', people)
  await phase(dir, v1, async (db) => { await db.run('a', 'insert notes {id: 1, text: "kept"}') })
  await phase(dir, v2, async (db) => {
    t.same(await db.rows('a', 'people'), people, 'every row, under the new name')
    t.same(db.storedRows('a', 'people'), before)
    t.same(db.storedRows('a', 'users'), [], 'nothing is left under the old name')
    const oslo = await db.run('a', 'people | where city == "Oslo"')
    t.same(oslo.plan, { collection: 'people', access: 'index', index: 'city' }, 'the index came along')
    t.same(oslo.rows.map((r) => r[0]), [1, 3, 5])
    t.equal(oslo.stats.rows_examined, 3)
    t.same((await db.run('a', 'people | get 4')).rows.map((r) => r[1]), ['Di'], 'primary keys kept')
    t.same(db.trees('a'), ['t/a/meta', 't/a/r/notes', 't/a/r/people', 't/a/x/people/city'])
    t.same(await db.rows('a', 'notes'), [{ id: 1, text: 'kept' }], 'other collections untouched')
    await t.rejects(db.run('a', 'users'), unknownCollection, 'the old name is gone')
    const dup = await db.error('a', 'insert people {id: 1, name: "X", city: "Y", age: 1}')
    t.equal(dup.code, 'constraint_violation', 'the old keys are taken under the new name')
    await db.run('a', 'insert people {id: 6, name: "Fy", city: "Oslo", age: 20}')
    t.same((await db.run('a', 'people | where city == "Oslo"')).rows.map((r) => r[0]), [1, 3, 5, 6], 'the moved index is maintained')
  })
})

t.test('rename a collection with auto ids: the next insert continues after the old ids', async (t) => {
  const dir = tempDir(t)
  const v1 = `collection users { name: string }`
  const v2 = `collection people was users { name: string }`
  t.same(await planned(v1, v2), ['rename collection users to people'])
  await phase(dir, v1, async (db) => {
    await db.run('a', 'insert users [{name: "Ada"}, {name: "Bo"}, {name: "Cy"}]')
    t.same(await db.rows('a', 'users'), [{ id: 1, name: 'Ada' }, { id: 2, name: 'Bo' }, { id: 3, name: 'Cy' }])
  })
  await phase(dir, v2, async (db) => {
    t.same(await db.rows('a', 'people'), [{ id: 1, name: 'Ada' }, { id: 2, name: 'Bo' }, { id: 3, name: 'Cy' }])
    // The auto-id counter moves with the collection.
    const inserted = await db.run('a', 'insert people {name: "Di"}').then(() => null, (e: unknown) => e)
    t.equal(inserted, null, 'an insert without id succeeds after the rename')
    t.same(await db.rows('a', 'people | where name == "Di" | select id'), [{ id: 4 }], 'and gets the next id, 4')
    t.same(await db.rows('a', 'people | count'), [{ count: inserted === null ? 4 : 3 }], 'no old row was replaced')
  })
})

t.test('rename a collection and its fields in one migration: data and the unique index kept', async (t) => {
  const dir = tempDir(t)
  const v1 = `collection users { id: int primary, name: string, mail: string unique, points: int }`
  const v2 = `collection people was users { id: int primary, full_name: string was name, email: string unique was mail, score: float was points }`
  t.same(await planned(v1, v2), [
    'rename collection users to people',
    'drop index people.mail',
    'rename people.name to full_name',
    'rename people.mail to email',
    'rename people.points to score',
    'convert people.score from int to float',
    'build unique index people.email (email) from existing rows (checks for duplicates)',
  ])
  const rows = [{ id: 1, name: 'Ada', mail: 'ada@x.io', points: 3 }, { id: 2, name: 'Bo', mail: 'bo@x.io', points: -1 }]
  await seed(dir, v1, 'users', rows)
  await phase(dir, v2, async (db) => {
    const moved = rows.map((r) => ({ id: r.id, full_name: r.name, email: r.mail, score: r.points }))
    t.same(await db.rows('a', 'people'), moved)
    t.same(db.storedRows('a', 'people'), moved)
    t.same(db.trees('a'), ['t/a/meta', 't/a/r/people', 't/a/x/people/email'])
    const bo = await db.run('a', 'people | where email == "bo@x.io"')
    t.same(bo.plan, { collection: 'people', access: 'index', index: 'email' })
    t.same(bo.rows.map((r) => r[0]), [2])
    t.equal((await db.error('a', 'insert people {id: 3, full_name: "X", email: "ada@x.io", score: 0.5}')).code, 'constraint_violation')
  })
})

t.test('widen a scalar to a list or to json: every value kept, wrapped or as is', async (t) => {
  const dir = tempDir(t)
  const v1 = `collection users { id: int primary, tag: string, extra: int, seen: timestamp? }`
  const v2 = `collection users { id: int primary, tag: [string], extra: json, seen: json? }`
  t.same(await planned(v1, v2), [
    'convert users.tag from string to [string]',
    'convert users.extra from int to json',
    'convert users.seen from timestamp? to json?',
  ])
  await seed(dir, v1, 'users', [{ id: 1, tag: 'a', extra: 5, seen: '2024-05-06T07:08:09Z' }, { id: 2, tag: 'b', extra: -2, seen: null }])
  await phase(dir, v2, async (db) => {
    t.same(await db.rows('a', 'users'), [
      { id: 1, tag: ['a'], extra: 5, seen: '2024-05-06T07:08:09.000Z' },
      { id: 2, tag: ['b'], extra: -2, seen: null },
    ])
  })
})

t.test('widen int to float: values kept, the index rebuilt, fractions accepted afterwards', async (t) => {
  const dir = tempDir(t)
  const v1 = `collection items { id: int primary, qty: int, index (qty) }`
  const v2 = `collection items { id: int primary, qty: float, index (qty) }`
  t.same(await planned(v1, v2), ['drop index items.qty', 'convert items.qty from int to float', 'build index items.qty (qty) from existing rows'])
  const rows = [{ id: 1, qty: 7 }, { id: 2, qty: -3 }, { id: 3, qty: 9007199254740991 }, { id: 4, qty: 0 }]
  const before = await seed(dir, v1, 'items', rows)
  await phase(dir, v2, async (db) => {
    t.same(await db.rows('a', 'items'), rows)
    t.same(db.storedRows('a', 'items'), before)
    await db.run('a', 'insert items {id: 5, qty: 2.5}')
    const ranged = await db.run('a', 'items | where qty >= 0 and qty < 8')
    t.same(ranged.plan, { collection: 'items', access: 'index', index: 'qty' })
    t.same(ranged.rows, [[1, 7], [4, 0], [5, 2.5]], 'old and new values together, in primary-key order')
    t.equal(ranged.stats.rows_examined, 3)
    t.same(db.indexEntries('a', 'items', 'qty').map((k) => k[1]), [2, 4, 5, 1, 3])
  })
})

t.test('make a field optional: values kept, null accepted afterwards', async (t) => {
  const dir = tempDir(t)
  const v2 = `collection users { id: int primary, name: string, city: string?, age: int }`
  t.same(await planned(peopleV1, v2), ['convert users.city from string to string?'])
  const before = await seed(dir, peopleV1, 'users', people)
  await phase(dir, v2, async (db) => {
    t.same(await db.rows('a', 'users'), people)
    t.same(db.storedRows('a', 'users'), before)
    await db.run('a', 'insert users {id: 6, name: "Fy", age: 20}')
    await db.run('a', 'users | where id == 1 | update {city: null}')
    t.same(await db.rows('a', 'users | where city == null | select id'), [{ id: 1 }, { id: 6 }])
  })
})

t.test('remove a field with `dropped f`: the value is gone from every stored row, other data kept', async (t) => {
  const dir = tempDir(t)
  const v1 = `collection users { id: int primary, name: string, legacy: string, city: string, index (legacy), index (city) }`
  const v2 = `collection users { id: int primary, name: string, city: string, dropped legacy, index (city) }`
  t.same(await planned(v1, v2), ['drop index users.legacy', 'drop users.legacy from every row'])
  const rows = people.map((p) => ({ id: p.id, name: p.name, legacy: `old-${p.id}`, city: p.city }))
  const before = await seed(dir, v1, 'users', rows)
  await phase(dir, v2, async (db) => {
    const kept = before.map(({ legacy: _, ...rest }) => rest)
    t.same(await db.rows('a', 'users'), kept)
    const stored = db.storedRows('a', 'users')
    t.same(stored, kept, 'the other values are all kept')
    t.notOk(stored.some((r) => 'legacy' in r), 'no stored row holds legacy')
    t.same(db.trees('a'), ['t/a/meta', 't/a/r/users', 't/a/x/users/city'], "the dropped field's index is gone; the other stays")
    t.same((await db.run('a', 'users | where city == "Rome"')).plan, { collection: 'users', access: 'index', index: 'city' })
    unknownField(t, await db.run('a', 'users | select legacy').catch((e: unknown) => e), 'legacy')
    unknownField(t, await db.run('a', 'insert users {id: 9, name: "X", city: "Y", legacy: "z"}').catch((e: unknown) => e), 'legacy')
    const bound = await db.run('a', 'insert users $row', { row: { id: 9, name: 'X', city: 'Y', legacy: 'z' } }).catch((e: unknown) => e)
    t.equal(codeOf(bound), 'type_error', 'nor through a parameter')
    t.match((bound as Error).message, /unknown field 'legacy'/)
  })
})

t.test('remove a collection with `dropped collection c`: its rows and indexes are gone, others kept', async (t) => {
  const dir = tempDir(t)
  const v1 = `${peopleV1}
    collection sessions { id: int primary, user: int, index (user) }`
  const v2 = `${peopleV1}
    dropped collection sessions`
  t.same(await planned(v1, v2), ['drop collection sessions and its rows'])
  const before = await seed(dir, v1, 'users', people)
  await phase(dir, v1, async (db) => { await db.run('a', 'insert sessions [{id: 1, user: 1}, {id: 2, user: 3}]') })
  await phase(dir, v2, async (db) => {
    t.same(await db.rows('a', 'users'), people)
    t.same(db.storedRows('a', 'users'), before)
    t.same(db.trees('a'), ['t/a/meta', 't/a/r/users'], "the collection's rows and index trees are gone")
    await t.rejects(db.run('a', 'sessions'), unknownCollection)
  })
})

t.test('narrow float to int with `narrowed`: applied when every value converts', async (t) => {
  const dir = tempDir(t)
  const v1 = `collection items { id: int primary, qty: float, index (qty) }`
  const v2 = `collection items { id: int primary, qty: int narrowed, index (qty) }`
  t.same(await planned(v1, v2), ['drop index items.qty', 'convert items.qty from float to int (checked per row)', 'build index items.qty (qty) from existing rows'])
  const rows = [{ id: 1, qty: 7 }, { id: 2, qty: -3 }, { id: 3, qty: 12 }]
  const before = await seed(dir, v1, 'items', rows)
  await phase(dir, v2, async (db) => {
    t.same(await db.rows('a', 'items'), rows)
    t.same(db.storedRows('a', 'items'), before)
    const found = await db.run('a', 'items | where qty == 12')
    t.same(found.plan, { collection: 'items', access: 'index', index: 'qty' })
    t.same(found.rows, [[3, 12]])
    const fraction = await db.run('a', 'insert items {id: 4, qty: 2.5}').catch((e: unknown) => e)
    t.equal(codeOf(fraction), 'type_error', 'the field is int now')
    t.same(await db.rows('a', 'items | count'), [{ count: 3 }])
  })
})
