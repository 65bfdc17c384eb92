// The query engine end to end over a real engine: every stage, writes, atomic
// blocks, plan hints and rows examined, limits, and the errors users meet.
import t, { type Test } from 'tap'
import { EelError, formatDiagnostic } from '../src/lang/diagnostic.js'
import { QueryError } from '../src/query/index.js'
import { harness } from './helpers/query-runner.js'

const schema = `
collection users {
  id: int primary,
  email: string unique,
  name: string,
  age: int?,
  status: string = "active",
  tags: [string] = [],
  meta: json?,
  index (status, age),
}
collection events { kind: string, at: timestamp = now(), n: float? }
query adults($min_age: int = 18) { users | where age >= $min_age | sort name }
`

const people = [
  { id: 1, email: 'ada@x', name: 'Ada', age: 36, tags: ['math'] },
  { id: 2, email: 'bo@x', name: 'Bo', age: 17, status: 'away' },
  { id: 3, email: 'cy@x', name: 'Cy', age: null, meta: { team: { lead: true } } },
  { id: 4, email: 'di@x', name: 'Di', age: 52, status: 'away' },
  { id: 5, email: 'ed@x', name: 'Ed', age: 36 },
]

async function seeded(t: Test) {
  const h = await harness(t, schema)
  await h.q('insert users $rows', { rows: people })
  return h
}

async function rejected(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(() => undefined, (e: unknown) => e)
}

t.test('reads: where, select, sort, skip, take, count, aggregate, distinct, get', async (t) => {
  const { q } = await seeded(t)
  t.same((await q('users | where age > 30 | select name')).rows, [['Ada'], ['Di'], ['Ed']])
  t.same((await q('users | sort age desc, name | select name, age')).rows,
    [['Di', 52], ['Ada', 36], ['Ed', 36], ['Bo', 17], ['Cy', null]], 'nulls last descending')
  t.same((await q('users | sort age | take 2 | select name')).rows, [['Cy'], ['Bo']], 'nulls first ascending')
  t.same((await q('users | skip 1 | take 2 | select id')).rows, [[2], [3]], 'take without sort follows the primary key')
  t.same((await q('users | where status == "away" | count')).rows, [[2]])
  t.same((await q('users | aggregate n: count(), total: sum(age), lo: min(age), avg: avg(age) by status')).rows,
    [['active', 3, 72, 36, 36], ['away', 2, 69, 17, 34.5]], 'aggregates skip nulls; groups in key order')
  t.same((await q('users | where age > 100 | aggregate n: count(), s: sum(age)')).rows, [[0, null]], 'sum over nothing is null')
  t.same((await q('users | distinct status')).rows, [['active'], ['away']])
  t.same((await q('users | get 4 | select name')).rows, [['Di']])
  t.same((await q('users | select id, label: lower(name) + "!", n: len(tags), lead: meta.team.lead | where id == 3')).rows,
    [[3, 'cy!', 0, true]])
  t.same((await q('users | where age in [17, 52] | select name')).rows, [['Bo'], ['Di']])
  t.same((await q('users | where not (age < 40) | select name')).rows, [['Cy'], ['Di']], 'two-valued not: null age passes')
  t.same((await q('users | where age == null | select name')).rows, [['Cy']], '== is total')
  t.same((await q('call adults(min_age: 30) | select name')).rows, [['Ada'], ['Di'], ['Ed']])
  t.same((await q('call adults() | take 1 | select name')).rows, [['Ada']], 'a default parameter')
})

t.test('plan hints and rows examined show index use', async (t) => {
  const { q } = await seeded(t)
  const byEmail = await q('users | where email == "di@x"')
  t.same(byEmail.plan, { collection: 'users', access: 'index', index: 'email' })
  t.equal(byEmail.stats.rows_examined, 1)
  const byPrimary = await q('users | where id >= 4')
  t.same(byPrimary.plan, { collection: 'users', access: 'primary' })
  t.equal(byPrimary.stats.rows_examined, 2)
  const composite = await q('users | where status == "away" and age > 20 | select name')
  t.same(composite.plan, { collection: 'users', access: 'index', index: 'status_age' })
  t.same(composite.rows, [['Di']])
  t.equal(composite.stats.rows_examined, 1, 'equality prefix plus range on the next field')
  const scan = await q('users | where name == "Ed"')
  t.same(scan.plan, { collection: 'users', access: 'scan' })
  t.equal(scan.stats.rows_examined, 5)
  t.same((await q('explain users | where email == $e', { e: 'x' })).rows, [['index email on users']])
  t.equal((await q('users | take 2')).stats.rows_examined, 2, 'take stops the scan')
})

t.test('writes: insert, upsert, update, delete, defaults, auto ids, constraints', async (t) => {
  const { q } = await seeded(t)
  const written = await q('users | where status == "away" | update {age: age + 1, name: upper(name)}')
  t.same(written.rows, [[2]])
  t.type(written.lsn, 'number')
  t.same((await q('users | where status == "away" | select name, age')).rows, [['BO', 18], ['DI', 53]])
  t.same((await q('upsert users {id: 1, email: "ada@y", name: "Ada L."}')).rows, [[1]])
  t.same((await q('users | get 1 | select email, age, status')).rows, [['ada@y', null, 'active']], 'upsert replaces the row')
  t.same((await q('users | where email == "ada@y" | select id')).rows, [[1]], 'the unique index follows the new value')
  t.same((await q('users | where email == "ada@x" | count')).rows, [[0]], 'the old index entry is gone')
  t.same((await q('users | where age == null | delete')).rows, [[2]])
  t.same((await q('users | count')).rows, [[3]])

  const dup = await rejected(q('insert users {id: 9, email: "bo@x", name: "Twin"}'))
  t.match(dup, { name: 'QueryError', code: 'constraint_violation', message: /unique index 'email' of 'users' already holds string "bo@x"/ })
  const again = await rejected(q('insert users {id: 2, email: "new@x", name: "Two"}'))
  t.match(again, { code: 'constraint_violation', message: /already has a row with id int 2/ })
  t.same((await q('users | count')).rows, [[3]], 'failed writes left nothing behind')

  await q('insert events [{kind: "a"}, {kind: "b", n: 2}]')
  const events = await q('events | select id, kind, n')
  t.same(events.rows, [[1, 'a', null], [2, 'b', 2]], 'auto ids count up; optional fields default to null')
  await q('insert events {id: 10, kind: "c"}')
  await q('insert events {kind: "d"}')
  t.same((await q('events | where kind == "d" | select id')).rows, [[11]], 'auto ids stay above explicit ones')
  const at = (await q('events | get 1 | select at')).rows[0]?.[0]
  t.type(at, Date, 'now() default is a timestamp')
})

t.test('atomic blocks see their own writes and commit all or nothing', async (t) => {
  const { q } = await seeded(t)
  const block = await q(`atomic {
    insert users {id: 6, email: "fe@x", name: "Fe"};
    users | where id == 6 | update {age: 7};
    users | where age == 7 | select name
  }`)
  t.same(block.rows, [['Fe']], 'the last statement sees the earlier ones')
  t.equal(block.results?.length, 3)
  t.type(block.lsn, 'number')
  const failed = await rejected(q(`atomic {
    insert users {id: 7, email: "g@x", name: "G"};
    insert users {id: 8, email: "g@x", name: "H"}
  }`))
  t.match(failed, { code: 'constraint_violation' })
  t.same((await q('users | where id >= 7 | count')).rows, [[0]], 'no partial effect')
})

t.test('limits: rows per response and query time', async (t) => {
  const { runner } = await seeded(t)
  const capped = await runner.run('default', 'users', {}, { rows_max: 2 })
  t.equal(capped.rows.length, 2)
  t.equal(capped.truncated, true)
  const slow = await rejected(runner.run('default', 'users | where age > 0', {}, { time_ms_max: -1 }))
  t.match(slow, { code: 'query_timeout' })
})

t.test('diagnostics: exact messages with line and column', async (t) => {
  const { q } = await seeded(t)
  const cases: Array<[string, Record<string, unknown>, string]> = [
    ['users | where age = 3', {}, "1:19 unexpected '=' in where; expected '==' (use == to compare, : to name a field)"],
    ['user | take 1', {}, "1:1 unknown collection 'user'; did you mean 'users'?"],
    ['users\n| where age >= $min', { min: 'x' }, '2:16 field \'age\' is int, got string "x"'],
    ['users | where agee > 3', {}, "1:15 unknown field 'agee' in 'users'; did you mean 'age'?"],
    ['users | where $missing', {}, '1:15 missing parameter $missing (pass it in params)'],
    ['users | take 2 | get 1', {}, "1:18 'get' must be the first stage"],
    ['users | select name | delete', {}, '1:9 only where, get, sort, skip and take may come before delete'],
    ['users | where age + "x" > 1', {}, "1:21 '+' expects numbers, got string"],
    ['users | where lowr(name) == "a"', {}, "1:15 unknown function 'lowr'; did you mean 'lower'?"],
    ['users | update {id: 3}', {}, "1:17 the primary key 'id' cannot be updated (delete the row and insert it again)"],
    ['insert users {id: 9, emial: "a", name: "b"}', {}, "1:22 unknown field 'emial' in 'users'; did you mean 'email'?"],
    ['insert users {id: "nine", email: "a", name: "b"}', {}, '1:19 field \'id\' is int, got string "nine"'],
    ['users | take $n', { n: -1 }, '1:14 take expects a whole number of 0 or more, got -1'],
    ['call adults(min: 3)', {}, "1:13 query 'adults' has no parameter 'min'"],
    ['tenant create acme', {}, '1:1 tenant operations are not allowed here (use POST /ops)'],
    ['collection x { id: int primary }', {}, '1:1 schema declarations are not allowed here (declare them in a schema file loaded at start)'],
  ]
  for (const [text, params, expected] of cases) {
    const err = await rejected(q(text, params as never))
    t.type(err, EelError, text)
    t.equal(formatDiagnostic((err as EelError).diagnostic), expected, text)
  }
  const known = await rejected(q('insert users {id: 9, email: "z", name: "z", age: $a}', { a: 1.5 }))
  t.equal(formatDiagnostic((known as EelError).diagnostic), "1:50 field 'age' is int, got float 1.5", 'a known parameter is checked before running')
  const runtime = await rejected(q('insert users $rows', { rows: [{ id: 9, email: 'z', name: 'z', age: 1.5 }] }))
  t.type(runtime, QueryError, 'rows passed whole are checked as they are written')
  t.match(runtime, { code: 'type_error', message: 'field \'age\' is int, got float 1.5' })
  t.match(await rejected(q('users | select x: 1 / 0')), { code: 'type_error', message: 'division by zero' })
  t.match(await rejected(q('users | select x: 9007199254740991 + id')), { code: 'type_error', message: /integer overflow/ })
})

t.test('values the codecs refuse are type errors, not crashes', async (t) => {
  const { q } = await seeded(t)
  const lone = await rejected(q('insert users $rows', { rows: [{ id: 20, email: 'x', name: '\ud800' }] }))
  t.match(lone, { name: 'QueryError', code: 'type_error' })
  t.same((await q('users | where id == 20 | count')).rows, [[0]])
})

t.test('count(x), sum overflow and round follow the documented semantics', async (t) => {
  const { q } = await seeded(t)
  t.same((await q('users | aggregate rows: count(), aged: count(age)')).rows, [[5, 4]], 'count(x) skips nulls')
  // A json field is summable for the checker; what it holds is seen only when it runs.
  t.match(await rejected(q('users | aggregate s: sum(meta)')), { code: 'type_error', message: 'sum() takes numbers, got record {"team":{"lead":true}}' })
  t.match(await rejected(q('users | aggregate s: avg(meta)')), { code: 'type_error', message: 'avg() takes numbers, got record {"team":{"lead":true}}' })
  t.same((await q('users | get 1 | select a: round(2.15, 1), b: round(-2.5), c: round(2.5)')).rows, [[2.1, -3, 3]],
    'the exact binary value is rounded, halves away from zero')
  await q('insert users $rows', { rows: [{ id: 30, email: 'big1', name: 'B', age: 9007199254740991 }] })
  t.match(await rejected(q('users | aggregate s: sum(age)')), { code: 'type_error', message: /integer overflow/ })
  t.match(await rejected(q('users | select r: round(1.5, -1)')), { code: 'type_error', message: /0 to 100 digits/ })
})

t.test('index reads still come back in primary-key order', async (t) => {
  const { q } = await seeded(t)
  const viaIndex = await q('users | where status == "active" and age > 0 | select id')
  t.same(viaIndex.plan, { collection: 'users', access: 'index', index: 'status_age' })
  t.same(viaIndex.rows, [[1], [5]], 'ids ascending, not ages ascending')
  t.same((await q('users | where email >= "a" | take 2 | select id')).rows, [[1], [2]])
})
