// The key codec's one promise: memcmp order of encoded keys is compareValues order, for
// single values and for tuples, and a tuple prefix is a byte prefix (range scans).
import t from 'tap'
import {
  CodecError, compareValues, componentRange, decodeKey, encodeKey, kindRange, prefixEnd, prefixRange,
} from '../src/codec/index.js'
import type { Value } from '../src/lang/ast.js'
import { rng } from './helpers/rng.js'

const edge_numbers = [
  -Infinity, -Number.MAX_VALUE, -(2 ** 53) - 2, -(2 ** 53), -(2 ** 53 - 1), -1e15, -3, -1.5, -1, -Number.MIN_VALUE,
  -0, 0, Number.MIN_VALUE, 0.1, 1, 1.5, 3, 3.0, 255, 256, 2 ** 31, 2 ** 53 - 1, 2 ** 53, 2 ** 53 + 2, 1e300, Number.MAX_VALUE, Infinity,
]
// Pieces chosen to hit the hard cases: NUL bytes, prefixes, case, and the UTF-16 vs
// code-point disagreement (U+FFFF sorts before U+10000 by code point, after it in UTF-16).
const string_pieces = ['', '\u0000', 'a', 'A', 'b', 'ab', '\u00e9', '\u00ff', '\u0100', '\ud7ff', '\ue000', '\uffff', '\u{10000}', '\u{1f600}', '\u{10ffff}', '\u0001', '\u007f', '\ufeff']
const dates = [-8.64e15, -1, 0, 1, 1_700_000_000_000, 8.64e15]

function randomValue(rand: () => number, depth = 0): Value {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)] as T
  const r = rand()
  if (r < 0.08) return null
  if (r < 0.16) return rand() < 0.5
  if (r < 0.4) return rand() < 0.6 ? pick(edge_numbers) : (rand() - 0.5) * 10 ** Math.floor(rand() * 20)
  if (r < 0.66) return Array.from({ length: Math.floor(rand() * 4) }, () => pick(string_pieces)).join('')
  if (r < 0.8) return new Date(rand() < 0.5 ? pick(dates) : Math.floor((rand() - 0.5) * 4e12))
  if (depth >= 3) return null
  if (r < 0.9) return Array.from({ length: Math.floor(rand() * 4) }, () => randomValue(rand, depth + 1))
  const record: Record<string, Value> = {}
  for (let i = Math.floor(rand() * 4); i > 0; i -= 1) record[pick(['a', 'b', 'ab', '', '\u0000', '\u{1f600}'])] = randomValue(rand, depth + 1)
  return record
}

const sign = (n: number) => (n < 0 ? -1 : n > 0 ? 1 : 0)
const bytesOrder = (a: Value[], b: Value[]) => sign(Buffer.compare(encodeKey(a), encodeKey(b)))
function tupleOrder(a: Value[], b: Value[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i += 1) {
    const c = compareValues(a[i] as Value, b[i] as Value)
    if (c !== 0) return c
  }
  return sign(a.length - b.length)
}

t.test('property: memcmp of encoded values has the sign of compareValues', async (t) => {
  const rand = rng(0x5eed)
  let disagreements = 0
  let equal = 0
  for (let i = 0; i < 20_000; i += 1) {
    const a = randomValue(rand)
    const b = rand() < 0.1 ? structuredClone(a) : randomValue(rand)
    const expected = compareValues(a, b)
    if (expected === 0) equal += 1
    if (bytesOrder([a], [b]) !== expected || compareValues(b, a) !== -expected) {
      disagreements += 1
      if (disagreements <= 3) t.fail('order disagrees', { a, b, expected })
    }
  }
  t.equal(disagreements, 0)
  t.ok(equal > 1000, `enough equal pairs exercised (${equal})`)
})

t.test('property: tuples order lexicographically by component', async (t) => {
  const rand = rng(0x7ab1e)
  let disagreements = 0
  for (let i = 0; i < 10_000; i += 1) {
    const a = Array.from({ length: Math.floor(rand() * 4) }, () => randomValue(rand, 2))
    // Share a prefix often, so later components decide.
    const b = a.slice(0, Math.floor(rand() * (a.length + 1)))
    while (b.length < 3 && rand() < 0.7) b.push(randomValue(rand, 2))
    if (bytesOrder(a, b) !== tupleOrder(a, b)) disagreements += 1
  }
  t.equal(disagreements, 0)
})

t.test('property: sorting by bytes equals sorting by compareValues', async (t) => {
  const rand = rng(99)
  const values = Array.from({ length: 3000 }, () => randomValue(rand))
  const byCompare = [...values].sort(compareValues).map((v) => encodeKey([v]).toString('hex'))
  const byBytes = values.map((v) => encodeKey([v])).sort(Buffer.compare).map((b) => b.toString('hex'))
  t.same(byCompare, byBytes)
})

t.test('round trip: decodeKey(encodeKey(x)) equals x and re-encodes to the same bytes', async (t) => {
  const rand = rng(1234)
  for (let i = 0; i < 5000; i += 1) {
    const tuple = Array.from({ length: 1 + Math.floor(rand() * 3) }, () => randomValue(rand))
    const key = encodeKey(tuple)
    const back = decodeKey(key)
    if (tupleOrder(back, tuple) !== 0 || !encodeKey(back).equals(key)) t.fail('round trip', { tuple, back })
  }
  t.same(decodeKey(encodeKey([null, true, false, -1.5, 'x\u0000y', new Date(5), [1, ['a']], { b: 1, a: null }])),
    [null, true, false, -1.5, 'x\u0000y', new Date(5), [1, ['a']], { a: null, b: 1 }])
  t.same(decodeKey(Buffer.alloc(0)), [])
})

t.test('the cross-kind order: null < bool < number < string < timestamp < list < record', async (t) => {
  const ascending: Value[] = [
    null, false, true, -Infinity, -(2 ** 53 - 1), -1, 0, 2 ** 53 - 1, 2 ** 53, Infinity,
    '', '\u0000', 'A', 'a', '\uffff', '\u{1f600}', new Date(-8.64e15), new Date(0), new Date(8.64e15),
    [], [null], [1], [1, 2], ['a'], {}, { a: 1 }, { a: 2 }, { b: 0 },
  ]
  for (let i = 1; i < ascending.length; i += 1) {
    const [a, b] = [ascending[i - 1] as Value, ascending[i] as Value]
    t.equal(compareValues(a, b), -1, `${String(a)} < ${String(b)}`)
    t.equal(bytesOrder([a], [b]), -1)
  }
})

t.test('numbers: ints and floats by value, -0 is 0, the 2^53 edge, ±Infinity at the ends', async (t) => {
  t.ok(encodeKey([3]).equals(encodeKey([3.0])), 'int 3 and float 3.0 encode alike')
  t.ok(encodeKey([6 / 2]).equals(encodeKey([3])))
  t.ok(encodeKey([-0]).equals(encodeKey([0])), '-0 encodes as 0')
  t.equal(compareValues(-0, 0), 0)
  t.ok(Object.is(decodeKey(encodeKey([-0]))[0], 0), '-0 reads back as 0')
  const sorted = [...edge_numbers].sort(compareValues)
  t.same(sorted.map((n) => encodeKey([n]).toString('hex')), edge_numbers.map((n) => encodeKey([n])).sort(Buffer.compare).map((b) => b.toString('hex')))
  t.equal(bytesOrder([2 ** 53 - 1], [2 ** 53]), -1)
  t.equal(bytesOrder([-(2 ** 53)], [-(2 ** 53 - 1)]), -1)
  t.equal(decodeKey(encodeKey([2 ** 53 - 1]))[0], 2 ** 53 - 1)
  t.equal(decodeKey(encodeKey([-(2 ** 53 - 1)]))[0], -(2 ** 53 - 1))
  t.equal(bytesOrder([-Infinity], [-Number.MAX_VALUE]), -1)
  t.equal(bytesOrder([Number.MAX_VALUE], [Infinity]), -1)
})

t.test('NaN and other non-values are refused with CodecError', async (t) => {
  for (const bad of [NaN, [1, NaN], { a: NaN }, new Date(NaN), undefined, () => 1, Symbol('s'), 10n, new Map(), 'a\ud800', '\udc00x', { ['\ud800']: 1 }]) {
    t.throws(() => encodeKey([bad as Value]), CodecError, String(typeof bad))
  }
  t.throws(() => compareValues(NaN, 1), CodecError)
  t.throws(() => compareValues([NaN], [NaN]), CodecError)
  const cyclic: Value[] = []
  cyclic.push(cyclic)
  t.throws(() => encodeKey([cyclic]), CodecError, 'a cycle hits the nesting bound')
  t.throws(() => compareValues(cyclic, cyclic), CodecError)
})

t.test('strings: code-point order, NUL bytes, astral characters, case', async (t) => {
  const ascending = ['', '\u0000', '\u0000\u0000', '\u0000a', '\u0001', 'A', 'Z', 'a', 'a\u0000', 'a\u0000\u0000', 'a\u0001', 'ab', 'b', '\u00e9', '\uffff', '\u{10000}', '\u{1f600}', '\u{10ffff}']
  for (let i = 1; i < ascending.length; i += 1) {
    const [a, b] = [ascending[i - 1] as string, ascending[i] as string]
    t.equal(compareValues(a, b), -1, `${JSON.stringify(a)} < ${JSON.stringify(b)}`)
    t.equal(bytesOrder([a], [b]), -1, `${JSON.stringify(a)} < ${JSON.stringify(b)} in bytes`)
    t.equal(bytesOrder([a, 'z'], [b, '']), -1, 'the terminator keeps tuples in order')
  }
  t.ok('\u{10000}' < '\uffff', 'JS < disagrees (UTF-16 order), which is why compareValues does not use it')
  for (const s of ascending) t.equal(decodeKey(encodeKey([s, s]))[1], s)
  t.same(encodeKey(['a\u0000']), Buffer.from([0x30, 0x61, 0x00, 0xff, 0x00, 0x00]), 'NUL escaped as 00 FF, terminator 00 00')
})

t.test('timestamps order by instant, before and after the epoch', async (t) => {
  const ms = [-8.64e15, -86_400_000, -1, 0, 1, 1_700_000_000_000, 8.64e15]
  for (let i = 1; i < ms.length; i += 1) t.equal(bytesOrder([new Date(ms[i - 1] as number)], [new Date(ms[i] as number)]), -1)
  t.equal(compareValues(new Date(5), new Date(5)), 0)
  t.same(decodeKey(encodeKey([new Date(-1)])), [new Date(-1)])
})

t.test('prefixEnd is the smallest byte string above every extension', async (t) => {
  t.same(prefixEnd(Buffer.from([0x01, 0x02])), Buffer.from([0x01, 0x03]))
  t.same(prefixEnd(Buffer.from([0x01, 0xff, 0xff])), Buffer.from([0x02]))
  t.equal(prefixEnd(Buffer.from([0xff, 0xff])), null)
  t.equal(prefixEnd(Buffer.alloc(0)), null)
  const input = Buffer.from([0x05, 0xfe])
  prefixEnd(input)
  t.same(input, Buffer.from([0x05, 0xfe]), 'input left alone')
})

// An index over (status, n) with the primary key appended, as the planner builds it.
function indexEntries(rand: () => number): Buffer[] {
  const statuses = ['', 'a', 'a\u0000', 'a\u0000b', 'ab', 'b', null, 7]
  const entries: Buffer[] = []
  for (let id = 0; id < 600; id += 1) {
    const status = statuses[Math.floor(rand() * statuses.length)] as Value
    const n = rand() < 0.1 ? null : rand() < 0.1 ? 'x' : Math.floor(rand() * 20) - 10
    entries.push(encodeKey([status, n, id]))
  }
  return entries.sort(Buffer.compare)
}

function scan(entries: Buffer[], range: { start: Buffer; end: Buffer | null }): Value[][] {
  return entries.filter((k) => Buffer.compare(k, range.start) >= 0 && (range.end === null || Buffer.compare(k, range.end) < 0)).map(decodeKey)
}

t.test('composite prefix scans return exactly the entries whose leading components match', async (t) => {
  const entries = indexEntries(rng(7))
  const all = entries.map(decodeKey)
  for (const status of ['', 'a', 'a\u0000', 'ab', null, 7, 'zzz'] as Value[]) {
    const expected = all.filter((e) => compareValues(e[0] as Value, status) === 0)
    t.same(scan(entries, prefixRange([status])), expected, `status == ${JSON.stringify(status)}`)
    // The same by hand: a prefix of components is a byte prefix, so the keys under it
    // are [prefix, prefixEnd(prefix)) (docs/format.md, "Key encoding").
    const prefix = encodeKey([status])
    t.same(scan(entries, { start: prefix, end: prefixEnd(prefix) }), expected)
  }
  t.same(scan(entries, prefixRange([])), all, 'the empty prefix is everything')
  t.same(scan(entries, prefixRange(['a', 3])), all.filter((e) => e[0] === 'a' && e[1] === 3))
})

t.test('componentRange: inclusive and exclusive bounds on the component after a prefix', async (t) => {
  const entries = indexEntries(rng(11))
  const all = entries.map(decodeKey)
  const cases: Array<[string, { value: Value; inclusive: boolean } | null, { value: Value; inclusive: boolean } | null]> = [
    ['n > 2', { value: 2, inclusive: false }, null],
    ['n >= 2', { value: 2, inclusive: true }, null],
    ['n < -3', null, { value: -3, inclusive: false }],
    ['n <= -3', null, { value: -3, inclusive: true }],
    ['-3 < n <= 4', { value: -3, inclusive: false }, { value: 4, inclusive: true }],
    ['-3 <= n < 4', { value: -3, inclusive: true }, { value: 4, inclusive: false }],
    ['empty: 4 < n < 4', { value: 4, inclusive: false }, { value: 4, inclusive: false }],
    ['inverted: n > 5 and n < 1', { value: 5, inclusive: false }, { value: 1, inclusive: false }],
  ]
  for (const status of ['a', 'a\u0000'] as Value[]) {
    for (const [name, lower, upper] of cases) {
      // Eel's ordering comparisons are false for null and across kinds: only numbers qualify.
      const expected = all.filter((e) => {
        const n = e[1] as Value
        if (compareValues(e[0] as Value, status) !== 0 || typeof n !== 'number') return false
        return (lower === null || (lower.inclusive ? n >= (lower.value as number) : n > (lower.value as number)))
          && (upper === null || (upper.inclusive ? n <= (upper.value as number) : n < (upper.value as number)))
      })
      const range = componentRange([status], lower, upper)
      t.same(scan(entries, range), expected, `status == ${JSON.stringify(status)} and ${name}`)
    }
  }
  t.same(componentRange(['a'], null, null), prefixRange(['a']), 'no bounds: the prefix range')
  t.same(scan(entries, kindRange(['b'], 'null')), all.filter((e) => e[0] === 'b' && e[1] === null), 'kindRange: n is null')
  t.same(scan(entries, kindRange(['b'], 'string')), all.filter((e) => e[0] === 'b' && e[1] === 'x'))
})

t.test('decodeKey refuses malformed bytes with CodecError and never misreads', async (t) => {
  const bad: Array<[string, number[]]> = [
    ['unknown tag', [0x99]],
    ['list/record end at the top', [0x00]],
    ['truncated number', [0x20, 0x80, 0, 0]],
    ['unterminated string', [0x30, 0x61]],
    ['bad escape', [0x30, 0x00, 0x01]],
    ['invalid UTF-8', [0x30, 0xc0, 0x80, 0x00, 0x00]],
    ['UTF-8 surrogate', [0x30, 0xed, 0xa0, 0x80, 0x00, 0x00]],
    ['unterminated list', [0x50, 0x05]],
    ['NaN', [0x20, 0xff, 0xf8, 0, 0, 0, 0, 0, 0]],
    ['-0', [0x20, 0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]],
    ['record name not a string', [0x60, 0x05, 0x05, 0x00]],
    ['record names out of order', [0x60, 0x30, 0x62, 0, 0, 0x05, 0x30, 0x61, 0, 0, 0x05, 0x00]],
    ['record names repeated', [0x60, 0x30, 0x61, 0, 0, 0x05, 0x30, 0x61, 0, 0, 0x05, 0x00]],
    ['timestamp with a fraction', [...encodeKey([0.5])].map((b, i) => (i === 0 ? 0x40 : b))],
    ['timestamp out of range', [...encodeKey([8.64e15 + 1])].map((b, i) => (i === 0 ? 0x40 : b))],
  ]
  for (const [name, bytes] of bad) t.throws(() => decodeKey(Buffer.from(bytes)), CodecError, name)
  t.throws(() => decodeKey(Buffer.from([...Array(101).fill(0x50), ...Array(101).fill(0)])), CodecError, 'nesting bound')

  // Random bytes and mutations of real keys: either a clean CodecError or a key that
  // re-encodes to exactly the same bytes (the decoder accepts only canonical keys).
  const rand = rng(31337)
  const tags = [0x00, 0x05, 0x10, 0x11, 0x20, 0x30, 0x40, 0x50, 0x60, 0xff]
  let accepted = 0
  for (let i = 0; i < 20_000; i += 1) {
    let bytes: Buffer
    if (i % 2 === 0) {
      bytes = Buffer.from(Array.from({ length: Math.floor(rand() * 24) }, () => (rand() < 0.4 ? tags[Math.floor(rand() * tags.length)] as number : Math.floor(rand() * 256))))
    } else {
      bytes = Buffer.from(encodeKey([randomValue(rand), randomValue(rand)]))
      const at = Math.floor(rand() * bytes.length)
      if (rand() < 0.5) bytes = bytes.subarray(0, at)
      else bytes[at] = Math.floor(rand() * 256)
    }
    try {
      const values = decodeKey(bytes)
      accepted += 1
      if (!encodeKey(values).equals(bytes)) t.fail('accepted a non-canonical key', { bytes: bytes.toString('hex') })
    } catch (error) {
      if (!(error instanceof CodecError)) t.fail(`unclean error: ${String(error)}`, { bytes: bytes.toString('hex') })
    }
  }
  t.ok(accepted > 0, `some mutations are still keys (${accepted})`)
})

t.test('a record named __proto__ stays a field', async (t) => {
  const record = JSON.parse('{"__proto__": 1, "a": 2}') as Value
  const [back] = decodeKey(encodeKey([record]))
  t.equal(Object.getPrototypeOf(back), Object.prototype)
  t.same(Object.keys(back as object), ['__proto__', 'a'])
  t.equal(compareValues(back as Value, record), 0)
})
