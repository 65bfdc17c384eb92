// The row codec: exact round trips (types, -0, Dates, nesting, unicode, field order,
// 1 MiB rows), refusals on encode, and a decoder that refuses every malformed input
// with CodecError and accepts only bytes the encoder writes (canonical). decodeRowFields
// (a lookup's projection) gives exactly the chosen fields of what decodeRow gives, and
// steps over the others checking their structure.
import t from 'tap'
import { CodecError, decodeRow, decodeRowAt, decodeRowColumnsAt, decodeRowFields, decodeRowFieldsAt, encodeRow } from '../src/codec/index.js'
import type { Value } from '../src/lang/ast.js'
import { rng } from './helpers/rng.js'

type Row = Record<string, Value>

// Deep equality that also tells -0 from 0, Dates by instant, and checks field order
// and plain prototypes: "round-trips exactly".
function exactlyEqual(a: unknown, b: unknown): boolean {
  if (typeof a === 'number' || typeof b === 'number') return Object.is(a, b)
  if (a instanceof Date || b instanceof Date) return a instanceof Date && b instanceof Date && a.getTime() === b.getTime()
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => exactlyEqual(x, b[i]))
  }
  if (typeof a === 'object' && a !== null && typeof b === 'object' && b !== null) {
    const ka = Object.keys(a)
    const kb = Object.keys(b)
    return Object.getPrototypeOf(b) === Object.prototype && ka.length === kb.length
      && ka.every((k, i) => k === kb[i] && exactlyEqual((a as Row)[k], (b as Row)[k]))
  }
  return a === b
}

const roundTrips = (row: Row) => exactlyEqual(row, decodeRow(encodeRow(row)))

const users_row: Row = {
  id: 42, email: 'ada@example.com', name: 'Ada Lovelace', age: null, status: 'active', tags: ['x', 'y'], created: new Date('2024-05-06T07:08:09.123Z'),
}

t.test('realistic rows round-trip exactly', async (t) => {
  t.ok(roundTrips(users_row))
  t.ok(roundTrips({ k: 'key-00000000000000000042', v: 'v'.repeat(150) }))
  t.ok(roundTrips({}))
  t.ok(roundTrips({ doc: { a: [1, { b: [null, true, false] }], c: {}, d: [], e: '' } }))
})

t.test('numbers keep their exact value and integer-ness', async (t) => {
  const numbers = [0, -0, 1, -1, 3, 3.0, 0.1, -2.5, 127, 128, 16383, 16384, 2 ** 31, 2 ** 32, 2 ** 53 - 1, -(2 ** 53 - 1), 2 ** 53, -(2 ** 53), 2 ** 53 + 2, 1e300, -1e-300, Number.MIN_VALUE, Number.MAX_VALUE, Infinity, -Infinity]
  for (const n of numbers) {
    const back = decodeRow(encodeRow({ n })).n
    t.ok(Object.is(back, n), `${Object.is(n, -0) ? '-0' : n} round-trips`)
  }
  t.ok(Number.isInteger(decodeRow(encodeRow({ n: 3.0 })).n), 'a float field\'s 3.0 is the same JS value as int 3')
  t.equal(encodeRow({ n: 3 }).length, encodeRow({ n: 3.0 }).length)
})

t.test('timestamps, strings and names round-trip exactly', async (t) => {
  for (const ms of [-8.64e15, -1, 0, 1, 1_700_000_000_123, 8.64e15]) {
    const back = decodeRow(encodeRow({ at: new Date(ms) })).at
    t.ok(back instanceof Date && back.getTime() === ms, `Date(${ms})`)
  }
  const strings = ['', '\u0000', 'a\u0000b', 'é', 'Zoë', '✓', '\ufeffBOM first', '\ufffd replacement char', '\u{1f600}\u{10ffff}', 'x'.repeat(42), 'é'.repeat(42), '😀'.repeat(300), 'a'.repeat(200)]
  for (const s of strings) t.ok(roundTrips({ s, [s]: s }), `string ${JSON.stringify(s.slice(0, 12))}`)
  t.ok(roundTrips({ b: 1, a: 2, '2': 3, '1': 4 }), 'field order kept')
  const proto = JSON.parse('{"__proto__": {"x": 1}, "$": "d", "v": 1}') as Row
  const back = decodeRow(encodeRow(proto))
  t.ok(exactlyEqual(proto, back), '__proto__ and $ are ordinary field names')
  t.equal(Object.getPrototypeOf(back), Object.prototype)
})

t.test('large rows (1 MiB) round-trip', async (t) => {
  t.ok(roundTrips({ blob: 'b'.repeat(1024 * 1024) }))
  t.ok(roundTrips({ blob: 'é'.repeat(512 * 1024) }))
  const items = Array.from({ length: 10_000 }, (_, i) => ({ i, sku: `sku-${i}`, price: i / 7, at: new Date(i) }))
  const row = { items }
  const bytes = encodeRow(row)
  t.ok(bytes.length > 200_000)
  t.ok(exactlyEqual(row, decodeRow(bytes)))
  t.ok(roundTrips(users_row), 'the scratch buffer recovers after a huge row')
})

t.test('random rows round-trip exactly', async (t) => {
  const rand = rng(2024)
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)] as T
  const value = (depth: number): Value => {
    const r = rand()
    if (r < 0.1) return null
    if (r < 0.2) return rand() < 0.5
    if (r < 0.45) return pick([0, -0, 1, -1, 2 ** 53 - 1, Infinity, -Infinity, 0.5, 1e21]) * (rand() < 0.5 ? 1 : rand() * 1e6)
    if (r < 0.7) return Array.from({ length: Math.floor(rand() * 50) }, () => String.fromCodePoint(pick([0, 0x41, 0x7f, 0x80, 0x7ff, 0x800, 0xfffd, 0xffff, 0x10000, 0x10ffff]))).join('')
    if (r < 0.8) return new Date(Math.round((rand() - 0.5) * 1e15))
    if (depth > 4) return 'leaf'
    if (r < 0.9) return Array.from({ length: Math.floor(rand() * 5) }, () => value(depth + 1))
    return record(depth + 1)
  }
  const record = (depth: number): Row => {
    const out: Row = {}
    for (let i = Math.floor(rand() * 6); i > 0; i -= 1) out[pick(['id', 'a', 'b', 'ééé', '', '😀', 'x'.repeat(40)])] = value(depth)
    return out
  }
  let failures = 0
  for (let i = 0; i < 5000; i += 1) if (!roundTrips(record(0))) failures += 1
  t.equal(failures, 0)
})

t.test('encoding refuses values Eel cannot store', async (t) => {
  const sparse: Value[] = [1]
  sparse[2] = 3
  const cyclic: Row = {}
  cyclic.self = cyclic
  let deep: Value = 1
  for (let i = 0; i <= 100; i += 1) deep = [deep]
  const bad: Array<[string, unknown]> = [
    ['NaN', NaN], ['nested NaN', [1, { x: NaN }]], ['undefined', undefined], ['function', () => 1], ['symbol', Symbol('s')],
    ['bigint', 1n], ['Map', new Map()], ['class instance', new (class Point { x = 1 })()], ['Buffer', Buffer.from('x')],
    ['invalid Date', new Date(NaN)], ['lone surrogate', 'a\ud800'], ['long lone surrogate', `${'a'.repeat(100)}\udc00`],
    ['sparse array', sparse], ['cycle', cyclic], ['nesting deeper than 100', deep],
  ]
  for (const [name, v] of bad) t.throws(() => encodeRow({ v } as Row), CodecError, name)
  t.throws(() => encodeRow({ ['\ud800']: 1 }), CodecError, 'lone surrogate in a name')
  t.throws(() => encodeRow([] as unknown as Row), CodecError, 'a row is a record')
  t.throws(() => encodeRow(null as unknown as Row), CodecError)
  let ok: Value = 1
  for (let i = 0; i < 100; i += 1) ok = [ok]
  t.ok(roundTrips({ ok }), 'nesting of exactly 100 is fine')
})

t.test('the byte format is as documented', async (t) => {
  t.same(encodeRow({}), Buffer.from([0x01, 0x00]))
  t.same(encodeRow({ a: null, b: true, c: -3, d: 'é' }), Buffer.from([
    0x01, 0x04, 0x01, 0x61, 0x00, 0x01, 0x62, 0x02, 0x01, 0x63, 0x04, 0x03, 0x01, 0x64, 0x06, 0x02, 0xc3, 0xa9,
  ]))
  t.same(encodeRow({ t: new Date(300), n: 1.5, l: [false], r: { x: 0 } }), Buffer.from([
    0x01, 0x04, 0x01, 0x74, 0x07, 0xac, 0x02, 0x01, 0x6e, 0x05, ...Buffer.from(new Float64Array([1.5]).buffer),
    0x01, 0x6c, 0x09, 0x01, 0x01, 0x01, 0x72, 0x0a, 0x01, 0x01, 0x78, 0x03, 0x00,
  ]))
})

const v1 = (...bytes: number[]) => Buffer.from([0x01, ...bytes])
const field = (tag: number, ...payload: number[]) => v1(0x01, 0x01, 0x61, tag, ...payload)

t.test('decoding refuses malformed bytes with CodecError', async (t) => {
  const bad: Array<[string, Buffer]> = [
    ['empty', Buffer.alloc(0)],
    ['unknown version', Buffer.from([0x02, 0x00])],
    ['trailing bytes', v1(0x00, 0x00)],
    ['unknown tag', field(0x0b)],
    ['truncated count', v1(0x80)],
    ['count beyond the bytes', v1(0x05, 0x01, 0x61)],
    ['huge count', v1(0xff, 0xff, 0xff, 0xff, 0x0f)],
    ['overlong varint', field(0x03, 0x80, 0x00)],
    ['varint beyond 2^53 - 1', field(0x03, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x10)],
    ['varint longer than 8 bytes', field(0x03, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01)],
    ['negative zero integer', field(0x04, 0x00)],
    ['NaN', field(0x05, ...Buffer.from(new Float64Array([NaN]).buffer))],
    ['float holding a safe integer', field(0x05, ...Buffer.from(new Float64Array([3]).buffer))],
    ['truncated float', field(0x05, 0x00, 0x00)],
    ['timestamp out of range', field(0x07, ...varint(8.64e15 + 1))],
    ['negative zero timestamp', field(0x08, 0x00)],
    ['string longer than the bytes', field(0x06, 0x05, 0x61)],
    ['invalid UTF-8 (overlong)', field(0x06, 0x02, 0xc0, 0x80)],
    ['invalid UTF-8 (long string)', field(0x06, 0x0c, ...Buffer.from('abcdefghij'), 0xed, 0xa0)],
    ['UTF-8 surrogate', field(0x06, 0x03, 0xed, 0xa0, 0x80)],
    ['invalid UTF-8 in a name', v1(0x01, 0x01, 0xff, 0x00)],
    ['duplicate field', v1(0x02, 0x01, 0x61, 0x00, 0x01, 0x61, 0x00)],
    ['duplicate nested field', field(0x0a, 0x02, 0x01, 0x62, 0x00, 0x01, 0x62, 0x00)],
    ['nesting deeper than 100', v1(0x01, 0x01, 0x61, ...Array<number[]>(101).fill([0x09, 0x01]).flat(), 0x00)],
    ['list count beyond the bytes', field(0x09, 0x7f, 0x00)],
  ]
  for (const [name, bytes] of bad) t.throws(() => decodeRow(bytes), CodecError, name)
})

function varint(n: number): number[] {
  const out: number[] = []
  while (n >= 0x80) {
    out.push((n % 0x80) | 0x80)
    n = Math.floor(n / 0x80)
  }
  out.push(n)
  return out
}

t.test('every truncation of a valid row is refused', async (t) => {
  const bytes = encodeRow({ ...users_row, nested: { list: [1.5, -7, 'ü', new Date(-5), [null]] } })
  let refused = 0
  for (let end = 0; end < bytes.length; end += 1) {
    try {
      decodeRow(bytes.subarray(0, end))
    } catch (error) {
      if (error instanceof CodecError) refused += 1
    }
  }
  t.equal(refused, bytes.length)
})

t.test('decodeRowFields keeps exactly the fields asked for, as decodeRow reads them', async (t) => {
  const rand = rng(77)
  const names = ['id', 'name', 'email', 'tags', 'nested', 'created', 'missing']
  const rows: Row[] = [users_row, { ...users_row, nested: { list: [1.5, -7, 'ü', new Date(-5), [null, { a: 1 }]], x: -0 }, when: new Date(-86_400_000), f: 2 ** 60 }]
  let compared = 0
  for (const row of rows) {
    const bytes = encodeRow(row)
    const whole = decodeRow(bytes)
    for (let i = 0; i < 200; i += 1) {
      const wanted = new Set(names.filter(() => rand() < 0.4))
      const expected: Row = {}
      for (const [name, value] of Object.entries(whole)) if (wanted.has(name)) expected[name] = value
      if (!exactlyEqual(expected, decodeRowFields(bytes, wanted))) t.fail(`fields ${[...wanted].join(',')} of ${JSON.stringify(row)}`)
      compared += 1
    }
    t.same(Object.keys(decodeRowFields(bytes, new Set())), [], 'no field asked: an empty record')
  }
  t.equal(compared, 400)
})

t.test('decodeRowFields refuses a malformed field it steps over', async (t) => {
  const bytes = encodeRow({ skipped: { list: ['abc', 1.5, -3, new Date(7)] }, kept: 1 })
  let refused = 0
  for (let end = 0; end < bytes.length; end += 1) {
    try {
      decodeRowFields(bytes.subarray(0, end), new Set(['kept']))
    } catch (error) {
      if (error instanceof CodecError) refused += 1
    }
  }
  t.equal(refused, bytes.length, 'every truncation, whichever field it cuts')
  const tag = Buffer.from(bytes)
  // The skipped field's value starts after the version, the count and its name (1 + 1 + 1 + 7).
  tag[10] = 0x7e
  t.throws(() => decodeRowFields(tag, new Set(['kept'])), /unknown row tag 0x7e/, 'an unknown tag in a skipped field')
  t.throws(() => decodeRowFields(Buffer.concat([bytes, Buffer.from([0])]), new Set(['kept'])), /trailing bytes/, 'trailing bytes')
  // A repeated name among the fields read is refused as decodeRow refuses it.
  const repeated = Buffer.from([0x01, 0x02, 0x01, 0x6b, 0x03, 0x01, 0x01, 0x6b, 0x03, 0x02])
  t.throws(() => decodeRow(repeated), /repeats field "k"/)
  t.throws(() => decodeRowFields(repeated, new Set(['k'])), /repeats field "k"/)
  t.same(decodeRowFields(repeated, new Set(['z'])), {}, 'a repeated name nobody reads is stepped over (documented)')
})

t.test('decodeRowColumnsAt gives the columns\' values in their order, as decodeRow reads them', async (t) => {
  const rand = rng(78)
  const names = ['id', 'name', 'email', 'tags', 'nested', 'created', 'missing', '__proto__']
  const rows: Row[] = [users_row, { ...users_row, nested: { list: [1.5, 'ü', new Date(-5)] }, f: 2 ** 60 }]
  let compared = 0
  for (const row of rows) {
    const bytes = encodeRow(row)
    const whole = decodeRow(bytes)
    // Inside a larger buffer, as a batch holds it.
    const batch = Buffer.concat([Buffer.from([9, 9, 9]), bytes, Buffer.from([7])])
    for (let i = 0; i < 200; i += 1) {
      const columns = names.filter(() => rand() < 0.5).sort(() => rand() - 0.5)
      const expected = columns.map((c) => (Object.hasOwn(whole, c) ? whole[c] as Value : null))
      if (!exactlyEqual(expected, decodeRowColumnsAt(batch, 3, 3 + bytes.length, columns))) t.fail(`columns ${columns.join(',')} of ${JSON.stringify(row)}`)
      compared += 1
    }
  }
  t.equal(compared, 400)
  const bytes = encodeRow({ k: 'a', v: 'b' })
  t.throws(() => decodeRowColumnsAt(Buffer.concat([bytes, Buffer.from([0])]), 0, bytes.length + 1, ['k']), /trailing bytes/)
  t.throws(() => decodeRowColumnsAt(bytes, 0, bytes.length - 1, ['v']), CodecError, 'a truncated row')
  const repeated = Buffer.from([0x01, 0x02, 0x01, 0x6b, 0x03, 0x01, 0x01, 0x6b, 0x03, 0x02])
  t.throws(() => decodeRowColumnsAt(repeated, 0, repeated.length, ['k']), /repeats field "k"/)
  t.same(decodeRowColumnsAt(repeated, 0, repeated.length, ['z']), [null], 'a repeated name nobody reads is stepped over, as decodeRowFields does')
})

/** One decode taking this long has run away: a hang guard, see the fuzz test below. */
const decode_hang_guard_ms = 10_000

t.test('fuzz: random bytes and mutations give a clean CodecError or a canonical row', async (t) => {
  const rand = rng(0xf022)
  const seeds = [encodeRow(users_row), encodeRow({ k: 'key', v: 'x'.repeat(150) }), encodeRow({ j: { a: [1, 2.5, 'é', { b: null }], t: new Date(9) } })]
  let accepted = 0
  let unclean = 0
  let runaway = 0
  for (let i = 0; i < 30_000; i += 1) {
    let bytes: Buffer
    if (i % 3 === 0) {
      bytes = Buffer.from(Array.from({ length: Math.floor(rand() * 40) }, (_, j) => (j === 0 && rand() < 0.8 ? 0x01 : Math.floor(rand() * (rand() < 0.6 ? 12 : 256)))))
    } else {
      bytes = Buffer.from(seeds[i % seeds.length] as Buffer)
      for (let k = 1 + Math.floor(rand() * 3); k > 0; k -= 1) bytes[Math.floor(rand() * bytes.length)] = Math.floor(rand() * 256)
      if (rand() < 0.3) bytes = bytes.subarray(0, Math.floor(rand() * bytes.length))
    }
    const started = performance.now()
    try {
      const row = decodeRow(bytes)
      accepted += 1
      // Canonical up to field order: JS lists integer-like names ("9") first, whatever the
      // order in the bytes, so compare after sorting the names both ways.
      if (!sortedFields(encodeRow(row)).equals(sortedFields(bytes))) t.fail('accepted bytes the encoder would not write', { bytes: bytes.toString('hex') })
    } catch (error) {
      if (!(error instanceof CodecError)) {
        unclean += 1
        if (unclean <= 3) t.fail(`unclean error: ${String(error)}`, { bytes: bytes.toString('hex') })
      }
    }
    // A decode of at most a few hundred bytes takes microseconds; one that takes seconds
    // ran away. A hang guard, not a speed check (an endless loop is tap's timeout).
    if (performance.now() - started > decode_hang_guard_ms && ++runaway <= 3) t.fail('the decoder ran away on this input', { bytes: bytes.toString('hex') })
  }
  t.equal(unclean, 0)
  t.equal(runaway, 0, `no input took the decoder over the ${decode_hang_guard_ms} ms hang guard`)
  t.ok(accepted > 100, `some inputs are rows (${accepted})`)
})


// The row re-encoded with every record's fields in code-unit order of their names.
function sortedFields(bytes: Buffer): Buffer {
  const sort = (v: Value): Value => {
    if (Array.isArray(v)) return v.map(sort)
    if (v === null || typeof v !== 'object' || v instanceof Date) return v
    const out: Row = {}
    for (const k of Object.keys(v).sort()) out[`_${k}`] = sort(v[k] as Value) // '_' keeps "9" from jumping ahead
    return out
  }
  return encodeRow(sort(decodeRow(bytes)) as Row)
}

t.test('decodeRow accepts a plain Uint8Array and a Buffer slice', async (t) => {
  const bytes = encodeRow(users_row)
  t.ok(exactlyEqual(users_row, decodeRow(new Uint8Array(bytes))))
  const framed = Buffer.concat([Buffer.from([9, 9, 9]), bytes, Buffer.from([7])])
  t.ok(exactlyEqual(users_row, decodeRow(framed.subarray(3, 3 + bytes.length))))
})

t.test('decodeRowAt and decodeRowFieldsAt read a row where it lies in a larger buffer', async (t) => {
  const bytes = encodeRow(users_row)
  const framed = Buffer.concat([Buffer.from([9, 9, 9]), bytes, Buffer.from([7, 7])])
  t.ok(exactlyEqual(users_row, decodeRowAt(framed, 3, 3 + bytes.length)))
  t.same(decodeRowFieldsAt(framed, 3, 3 + bytes.length, new Set(['email', 'id'])), { id: users_row.id, email: users_row.email })
  // The row's end is its own, not the buffer's: one byte more is trailing, one less truncated.
  t.throws(() => decodeRowAt(framed, 3, 4 + bytes.length), /trailing bytes/)
  t.throws(() => decodeRowAt(framed, 3, 2 + bytes.length), CodecError)
  t.throws(() => decodeRowFieldsAt(framed, 3, 4 + bytes.length, new Set(['id'])), /trailing bytes/)
  t.throws(() => decodeRowFieldsAt(framed, 3, 2 + bytes.length, new Set(['id'])), CodecError)
  t.throws(() => decodeRowAt(framed, 3, 3), /unknown row format version/, 'an empty range')
})

t.test('strings of every short length round-trip, ASCII or not (the short-string decoder)', async (t) => {
  let checked = 0
  for (let n = 1; n <= 20; n += 1) {
    const ascii = Array.from({ length: n }, (_, i) => String.fromCharCode(0x20 + ((i * 7) % 95))).join('')
    for (const text of [ascii, ascii.slice(0, -1) + '\u00e9', '\u0000'.repeat(n), ascii.slice(0, -1) + '\u007f']) {
      const row = { [`k${text}`]: text, s: text }
      const back = decodeRow(encodeRow(row))
      if (back.s !== text || back[`k${text}`] !== text) t.fail(`length ${n}: ${JSON.stringify(text)}`)
      checked += 1
    }
  }
  t.equal(checked, 80)
})

t.test('decodeRowFields tells the wanted names by their bytes', async (t) => {
  // Names that share a prefix, multi-byte names, and the empty name.
  const row: Row = { a: 1, ab: 2, abc: 3, é: 4, 日本: 5, '': 6, 'a\u0000': 7 }
  const bytes = encodeRow(row)
  for (const wanted of [['a'], ['ab'], ['abc', 'a'], ['é'], ['日本', ''], ['a\u0000'], ['b', 'abcd', 'e']]) {
    const expected: Row = {}
    for (const name of wanted) if (Object.hasOwn(row, name)) expected[name] = row[name] as Value
    t.same(decodeRowFields(bytes, new Set(wanted)), expected, JSON.stringify(wanted))
  }
  // A name that is not well-formed UTF-16 has no bytes of its own: it matches no stored
  // name, not even one holding U+FFFD, which its UTF-8 form would write.
  t.same(decodeRowFields(encodeRow({ '\ufffd': 1 }), new Set(['\ud800'])), {})
})
