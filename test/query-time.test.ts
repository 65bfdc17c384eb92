// Time: duration literals, timestamp ± duration, timestamp - timestamp, scaling,
// parts and truncation in UTC, and that comparisons and index ranges keep working.
import t from 'tap'
import { EelError } from '../src/lang/diagnostic.js'
import { QueryError } from '../src/query/index.js'
import { harness } from './helpers/query-runner.js'

const schema = `
collection events { id: int primary, at: timestamp, until: timestamp?, index (at) }
`

const iso = (s: string) => new Date(s)

async function seeded(t: Parameters<typeof harness>[0]) {
  const h = await harness(t, schema)
  await h.q('insert events $rows', {
    rows: [
      { id: 1, at: '2024-02-29T23:30:00Z', until: '2024-03-01T01:00:00Z' },
      { id: 2, at: '2023-12-31T23:59:59.999Z' },
      { id: 3, at: '1969-07-20T20:17:40Z', until: '1969-07-21T02:56:15Z' },
      { id: 4, at: '0050-06-15T12:00:00Z' },
    ],
  })
  return h
}

t.test('duration literals and arithmetic', async (t) => {
  const { q } = await seeded(t)
  const r = await q('events | get 1 | select a: 90s, b: 1h30m, c: 2w, d: 500ms, e: 1d - 1h, f: 1h * 1.5, g: 1h / 4, h: 1d / 1h, i: -1m, j: 3 * 1s')
  t.same(r.rows, [[90_000, 5_400_000, 1_209_600_000, 500, 82_800_000, 5_400_000, 900_000, 24, -60_000, 3000]], 'durations come back in milliseconds')
  t.same((await q('events | get 1 | select x: 1ms * 0.5, y: -1ms * 0.5, z: 1ms / 3')).rows, [[1, -1, 0]], 'scaling rounds to whole ms, halves away from zero')
  const times = await q('events | get 1 | select later: at + 1h, earlier: at - 30d, span: until - at, rev: 1d + at')
  t.same(times.rows, [[iso('2024-03-01T00:30:00Z'), iso('2024-01-30T23:30:00Z'), 5_400_000, iso('2024-03-01T23:30:00Z')]])
  t.same((await q('events | get 2 | select d: until - at')).rows, [[null]], 'null in, null out')
  t.same((await q('events | where until - at > 2h | select id')).rows, [[3]], 'durations compare')
  t.same((await q('events | aggregate total: sum(until - at), longest: max(until - at)')).rows, [[5_400_000 + 23_915_000, 23_915_000]])
})

t.test('parts and truncation are UTC', async (t) => {
  const { q } = await seeded(t)
  const parts = await q('events | sort id | select y: year(at), mo: month(at), d: day(at), h: hour(at), mi: minute(at), s: second(at), wd: weekday(at)')
  t.same(parts.rows, [
    [2024, 2, 29, 23, 30, 0, 4],
    [2023, 12, 31, 23, 59, 59, 7],
    [1969, 7, 20, 20, 17, 40, 7],
    [50, 6, 15, 12, 0, 0, 3],
  ], 'weekday is ISO: 1 Monday … 7 Sunday; year 50 is year 50')
  const trunc = await q('events | get 1 | select s: date_trunc(at, "second"), h: date_trunc(at, "hour"), d: date_trunc(at, "day"), w: date_trunc(at, "week"), m: date_trunc(at, "month"), y: date_trunc(at, "year")')
  t.same(trunc.rows, [[iso('2024-02-29T23:30:00Z'), iso('2024-02-29T23:00:00Z'), iso('2024-02-29T00:00:00Z'), iso('2024-02-26T00:00:00Z'), iso('2024-02-01T00:00:00Z'), iso('2024-01-01T00:00:00Z')]])
  t.same((await q('events | get 3 | select d: date_trunc(at, "day"), w: date_trunc(at, "week")')).rows, [[iso('1969-07-20T00:00:00Z'), iso('1969-07-14T00:00:00Z')]], 'before 1970 too')
  t.same((await q('events | get 4 | select y: date_trunc(at, "year")')).rows, [[iso('0050-01-01T00:00:00Z')]])
  const bad = await q('events | select x: date_trunc(at, "fortnight")').then(() => undefined, (e: unknown) => e)
  t.type(bad, QueryError)
  t.match((bad as QueryError).message, /date_trunc\(\) takes one of second, minute, hour, day, week, month, year/)
})

t.test('timestamp(): from ISO text or milliseconds', async (t) => {
  const { q } = await seeded(t)
  t.same((await q('events | get 1 | select a: timestamp("2024-01-01") + 1d, b: timestamp(0), c: timestamp($p)', { p: '2024-01-01T10:00' })).rows,
    [[iso('2024-01-02T00:00:00Z'), iso('1970-01-01T00:00:00Z'), iso('2024-01-01T10:00:00Z')]])
  t.match(await q('events | get 1 | select a: timestamp("yesterday")').catch((e: unknown) => e), { code: 'type_error', message: /ISO-8601/ })
  t.match(await q('events | get 1 | select a: at + 100000000d').catch((e: unknown) => e), { code: 'type_error', message: /timestamp out of range/ })
})

t.test('a range on a timestamp computed with durations still uses the index', async (t) => {
  const { runner } = await seeded(t)
  const r = await runner.run('default', 'events | where at >= now() - 30d | select id', {}, { now: iso('2024-03-15T00:00:00Z') })
  t.same(r.rows, [[1]])
  t.same(r.plan, { collection: 'events', access: 'index', index: 'at' })
  t.equal(r.stats.rows_examined, 1, 'only the rows in range are read')
})

t.test('the checker keeps durations, timestamps and numbers apart', async (t) => {
  const { q } = await seeded(t)
  const cases: Array<[string, RegExp]> = [
    ['events | select x: at + 5', /'\+' cannot combine timestamp and int/],
    ['events | select x: at + at', /'\+' cannot combine timestamp and timestamp/],
    ['events | select x: "2024-01-01" + 1d', /write timestamp\("2024-01-01T00:00:00Z"\)/],
    ['events | where at - at > 5 | count', /cannot compare duration with int/],
    ['events | select x: 1h % 2', /'%' cannot combine duration and int/],
    ['events | aggregate a: avg(until - at)', /avg\(\) expects numbers, got duration/],
    ['insert events {id: 9, at: now(), until: 1h}', /durations are not stored/],
  ]
  for (const [text, message] of cases) {
    const err = await q(text).then(() => undefined, (e: unknown) => e)
    t.type(err, EelError, text)
    t.match((err as EelError).message, message, text)
  }
  const big = await q('events | select x: 9999999999999999d').then(() => undefined, (e: unknown) => e)
  t.match((big as EelError).message, /duration 9999999999999999d is out of range/)
})
