// The conditional, pattern matching (bounded cost), string and number functions, and
// count_distinct.
import t from 'tap'
import { EelError } from '../src/lang/diagnostic.js'
import { eel_pattern_chars_max } from '../src/limits.js'
import { harness } from './helpers/query-runner.js'

const schema = `
collection words { id: int primary, w: string?, n: float?, k: int? }
`

async function seeded(t: Parameters<typeof harness>[0]) {
  const h = await harness(t, schema)
  await h.q('insert words $rows', {
    rows: [
      { id: 1, w: '  Apple pie ', n: 2.5, k: 1 },
      { id: 2, w: 'banana', n: -2.5, k: 1 },
      { id: 3, w: 'a_b%c', n: 0, k: 2 },
      { id: 4, w: null, n: null, k: null },
      { id: 5, w: 'line\nbreak 😀', n: 7, k: 2 },
    ],
  })
  return h
}

t.test('if evaluates only the branch it takes', async (t) => {
  const { q } = await seeded(t)
  t.same((await q('words | sort id | select r: if(n != 0, 10 / n, null)')).rows, [[4], [-4], [null], [null], [10 / 7]], 'no division by zero')
  t.same((await q('words | sort id | select s: if(k == 1, "one", if(k == 2, "two", "none"))')).rows, [['one'], ['one'], ['two'], ['none'], ['two']])
  t.same((await q('words | where if(k == null, false, k > 1) | select id')).rows, [[3], [5]])
  const err = await q('words | select x: if(k, 1, 2)').then(() => undefined, (e: unknown) => e)
  t.match((err as EelError).message, /if\(\) expects a condition first, got int/)
  const mixed = await q('words | select x: if(k == 1, 1, "one")').then(() => undefined, (e: unknown) => e)
  t.match((mixed as EelError).message, /both branches must have one type/)
})

t.test('like and matches', async (t) => {
  const { q } = await seeded(t)
  const ids = async (where: string, params = {}) => (await q(`words | where ${where} | select id`, params)).rows.flat()
  t.same(await ids('like(w, "%an%")'), [2])
  t.same(await ids('like(w, "b_n%")'), [2])
  t.same(await ids('like(w, "a\\\\_b\\\\%c")'), [3], 'escaped _ and %')
  t.same(await ids('like(w, "%APPLE%")'), [], 'case-sensitive')
  t.same(await ids('like(w, "line%😀")'), [5], '% spans newlines; _ and % count code points')
  t.same(await ids('like(w, "line_break _")'), [5])
  t.same(await ids('matches(w, "^[ab]")'), [2, 3])
  t.same(await ids('matches(w, "(?i)apple")'), [1])
  t.same(await ids('matches(w, $re)', { re: 'na(na)+$' }), [2])
  t.same(await ids('not matches(w, "a")'), [1, 4], 'null is not a match: the predicate is false, its negation true')
  const hostile = `(a*)*${'a?'.repeat(30)}b`
  const started = Date.now()
  t.same(await ids('matches(w, $re)', { re: hostile }), [2, 3, 5], 'a pattern that backtracks exponentially elsewhere finishes')
  t.ok(Date.now() - started < 20_000, 'hang guard')
  t.match(await q('words | where matches(w, "(") | count').catch((e: unknown) => e), { code: 'type_error', message: /invalid regular expression/ })
  t.match(await q('words | where matches(w, $re) | count', { re: 'a'.repeat(eel_pattern_chars_max + 1) }).catch((e: unknown) => e),
    { code: 'type_error', message: new RegExp(`at most ${eel_pattern_chars_max} characters`) })
  t.match(await q('words | where like(w, "a\\\\") | count').catch((e: unknown) => e), { code: 'type_error', message: /ends with an escape/ })
})

t.test('strings: trim, replace, split, substr', async (t) => {
  const { q } = await seeded(t)
  const row = async (select: string, id = 1) => (await q(`words | get ${id} | select ${select}`)).rows[0]
  t.same(await row('a: trim(w), b: replace(w, "p", "P"), c: split(trim(w), " "), d: substr(trim(w), 1, 3), e: substr(w, 8)'),
    ['Apple pie', '  APPle Pie ', ['Apple', 'pie'], 'ppl', 'pie '])
  t.same(await row('a: substr(w, 11, 5), b: split(w, ""), c: replace(w, "", "x"), d: len(substr(w, 11))', 5), ['😀', [...'line\nbreak 😀'], 'line\nbreak 😀', 1], 'code points')
  t.same(await row('a: trim(w), b: split(w, ","), c: substr(w, 1)', 4), [null, null, null])
  t.match(await q('words | get 1 | select x: substr(w, -1)').catch((e: unknown) => e), { code: 'type_error', message: /substr\(\) start must be a whole number/ })
})

t.test('numbers: abs, floor, ceil', async (t) => {
  const { q } = await seeded(t)
  t.same((await q('words | sort id | select a: abs(n), f: floor(n), c: ceil(n)')).rows,
    [[2.5, 2, 3], [2.5, -3, -2], [0, 0, 0], [null, null, null], [7, 7, 7]])
  t.match(await q('words | get 1 | select x: floor(n * 1e300)').catch((e: unknown) => e), { code: 'type_error', message: /integer overflow/ })
})

t.test('count_distinct', async (t) => {
  const { q } = await seeded(t)
  t.same((await q('words | aggregate a: count_distinct(k), b: count_distinct(n * 0), c: count(k)')).rows, [[2, 1, 4]], 'nulls skipped, 0 and -0 one value')
  t.same((await q('words | aggregate d: count_distinct(w) by k')).rows, [[null, 0], [1, 2], [2, 2]])
  t.same((await q('words | where id > 99 | aggregate d: count_distinct(k)')).rows, [[0]])
  const err = await q('words | aggregate d: count_distinct()').then(() => undefined, (e: unknown) => e)
  t.match((err as EelError).message, /count_distinct\(\) needs an argument/)
})
