// The canonical JSON and its fingerprint (docs/format.md "Schema IR"): equal schemas
// give equal bytes whatever order their IR objects were built in, and the fingerprint
// is xxHash64 of those bytes. Expected values come from outside the code under test:
// the canonical JSON written out by hand from the rules in docs/format.md, and the hash
// computed by a separate xxHash64 (test/helpers/xxh64-reference.ts) that is itself
// checked against xxHash's published vectors.
import t from 'tap'
import { canonicalJson, canonicalValue } from '../src/schema/canonical-json.js'
import { fingerprint, fingerprintOf } from '../src/schema/fingerprint.js'
import type { SchemaIR } from '../src/schema/ir.js'
import { collection, field, index, INT, list, schema, STRING } from './schema-fixtures/ir.js'
import { xxh64Hex, xxh64Reference } from './helpers/xxh64-reference.js'

const sample = (): SchemaIR => schema([
  collection('users', [field('email', STRING), field('tags', list(STRING), { default: { kind: 'value', value: [] } })], {
    indexes: [index(['email'], true)],
  }),
  collection('orders', [field('user', INT, { optional: true })]),
], { queries: [{ name: 'q', params: [{ name: 'n', type: INT, optional: false, default: 3 }], body: 'users | take $n' }] })

t.test('the reference xxHash64 gives xxHash\'s published vectors', async (t) => {
  // xxHash's own sanity check (xxhsum): a 101-byte buffer from a 32-bit generator,
  // hashed whole and by its first 0, 1 and 14 bytes, with seed 0 and seed = the prime.
  const prime = 2654435761
  const buffer = new Uint8Array(101)
  let generator = prime
  for (let i = 0; i < buffer.length; i += 1) {
    buffer[i] = generator >>> 24
    generator = Math.imul(generator, generator) >>> 0
  }
  const vectors: Array<[length: number, seed: bigint, hash: bigint]> = [
    [0, 0n, 0xEF46DB3751D8E999n], [0, BigInt(prime), 0xAC75FDA2929B17EFn],
    [1, 0n, 0x4FCE394CC88952D8n], [1, BigInt(prime), 0x739840CB819FA723n],
    [14, 0n, 0xCFFA8DB881BC3A3Dn], [14, BigInt(prime), 0x5B9611585EFCC9CBn],
    [101, 0n, 0x0EAB543384F878ADn], [101, BigInt(prime), 0xCAA65939306F1E21n],
  ]
  for (const [length, seed, hash] of vectors) t.equal(xxh64Reference(buffer.subarray(0, length), seed), hash, `${length} bytes, seed ${seed}`)
  t.equal(xxh64Hex('abc'), '44bc2cf5ad770999')
  t.equal(xxh64Hex('Nobody inspects the spammish repetition'), 'fbcea83c8a378bf1', '39 bytes: the 32-byte stripes')
})

/** sample()'s canonical JSON, written out by hand from docs/format.md and ir.ts's key order. */
const sample_json = '{"version":1,"collections":[' +
  '{"name":"orders","primary":"id","primary_auto":false,"fields":[' +
  '{"name":"id","type":{"kind":"int"},"optional":false,"default":null,"was":null,"narrowed":false},' +
  '{"name":"user","type":{"kind":"int"},"optional":true,"default":null,"was":null,"narrowed":false}],' +
  '"indexes":[],"was":null,"dropped":[]},' +
  '{"name":"users","primary":"id","primary_auto":false,"fields":[' +
  '{"name":"id","type":{"kind":"int"},"optional":false,"default":null,"was":null,"narrowed":false},' +
  '{"name":"email","type":{"kind":"string"},"optional":false,"default":null,"was":null,"narrowed":false},' +
  '{"name":"tags","type":{"kind":"list","item":{"kind":"string"}},"optional":false,"default":{"kind":"value","value":[]},"was":null,"narrowed":false}],' +
  '"indexes":[{"name":"email","fields":["email"],"unique":true}],"was":null,"dropped":[]}],' +
  '"queries":[{"name":"q","params":[{"name":"n","type":{"kind":"int"},"optional":false,"default":3}],"body":"users | take $n"}],' +
  '"dropped_collections":[]}'

t.test('fingerprint: xxHash64 of the canonical JSON\'s UTF-8 bytes as 16 lowercase hex digits', async (t) => {
  t.equal(await fingerprintOf(''), xxh64Hex(''))
  t.equal(await fingerprintOf('abc'), '44bc2cf5ad770999')
  t.equal(canonicalJson(sample()), sample_json, 'the canonical JSON is the hand-written one')
  t.equal(await fingerprint(sample()), xxh64Hex(sample_json), 'the fingerprint is the reference hash of it')
  // Past ASCII: the hash is of the UTF-8 bytes, not of UTF-16 code units or Latin-1.
  for (const text of ['ü', 'naïve 名前 🦀', sample_json.replace('users | take $n', 'users | where name == "Zoë" | take $n')]) {
    t.equal(await fingerprintOf(text), xxh64Hex(text), JSON.stringify(text).slice(0, 40))
  }
  // A leading zero digit is kept: 16 digits always (xxHash64 of "49" is 0bfb…).
  t.equal(xxh64Hex('49'), '0bfbbc8d2c79f71e')
  t.equal(await fingerprintOf('49'), '0bfbbc8d2c79f71e')
})

t.test('fingerprint: the canonical JSON is compact, in ir.ts key order, with sorted collections', async (t) => {
  const json = canonicalJson(schema([collection('b', []), collection('a', [field('x', list(INT), { optional: true, default: { kind: 'now' } })])]))
  t.equal(json, '{"version":1,"collections":[' +
    '{"name":"a","primary":"id","primary_auto":false,"fields":[' +
    '{"name":"id","type":{"kind":"int"},"optional":false,"default":null,"was":null,"narrowed":false},' +
    '{"name":"x","type":{"kind":"list","item":{"kind":"int"}},"optional":true,"default":{"kind":"now"},"was":null,"narrowed":false}],' +
    '"indexes":[],"was":null,"dropped":[]},' +
    '{"name":"b","primary":"id","primary_auto":false,"fields":[{"name":"id","type":{"kind":"int"},"optional":false,"default":null,"was":null,"narrowed":false}],' +
    '"indexes":[],"was":null,"dropped":[]}],"queries":[],"dropped_collections":[]}')
  t.same(JSON.parse(json).collections.map((c: { name: string }) => c.name), ['a', 'b'])
})

t.test('fingerprint: object construction order and list orders the IR calls sets do not matter', async (t) => {
  const a = sample()
  const b: SchemaIR = {
    dropped_collections: [],
    queries: a.queries,
    collections: [...a.collections].reverse().map((c) => ({ ...c, dropped: [...c.dropped].reverse(), indexes: [...c.indexes].reverse() })),
    version: 1,
  }
  t.equal(canonicalJson(b), sample_json)
  t.equal(await fingerprint(b), xxh64Hex(sample_json))
  // Queries are sorted by name too (docs/format.md): declared in either order, one print.
  const q1 = { name: 'a_first', params: [], body: 'orders' }
  const q2 = { name: 'b_second', params: [], body: 'users' }
  t.equal(await fingerprint(schema([], { queries: [q2, q1] })), await fingerprint(schema([], { queries: [q1, q2] })))
  t.equal(await fingerprint(schema([], { queries: [q2, q1] })), xxh64Hex('{"version":1,"collections":[],"queries":[' +
    '{"name":"a_first","params":[],"body":"orders"},{"name":"b_second","params":[],"body":"users"}],"dropped_collections":[]}'))
  const c = schema([collection('t', [], { dropped: ['z', 'a'], indexes: [index(['y']), index(['x'])] })], { dropped_collections: ['q', 'p'] })
  const d = schema([collection('t', [], { dropped: ['a', 'z'], indexes: [index(['x']), index(['y'])] })], { dropped_collections: ['p', 'q'] })
  t.equal(await fingerprint(c), await fingerprint(d))
})

t.test('fingerprint: json defaults compare by value, not key order', async (t) => {
  t.equal(canonicalValue({ b: 1, a: [true, null, 'x', { d: 2, c: 1 }] }), '{"a":[true,null,"x",{"c":1,"d":2}],"b":1}')
  t.throws(() => canonicalValue(Number.NaN), /non-finite/)
})

t.test('fingerprint: every meaningful change changes it', async (t) => {
  const base = await fingerprint(sample())
  const edits: Array<[string, (ir: SchemaIR) => void]> = [
    ['field type', (ir) => { ir.collections[0]!.fields[1]!.type = list(INT) }],
    ['optional', (ir) => { ir.collections[0]!.fields[1]!.optional = true }],
    ['default', (ir) => { ir.collections[0]!.fields[1]!.default = { kind: 'value', value: ['a'] } }],
    ['field order', (ir) => { ir.collections[0]!.fields.reverse() }],
    ['was', (ir) => { ir.collections[0]!.fields[1]!.was = 'labels' }],
    ['narrowed', (ir) => { ir.collections[0]!.fields[1]!.narrowed = true }],
    ['index unique', (ir) => { ir.collections[0]!.indexes[0]!.unique = false }],
    ['primary_auto', (ir) => { ir.collections[0]!.primary_auto = true }],
    ['collection was', (ir) => { ir.collections[0]!.was = 'people' }],
    ['dropped field', (ir) => { ir.collections[0]!.dropped.push('age') }],
    ['dropped collection', (ir) => { ir.dropped_collections.push('old') }],
    ['query body', (ir) => { ir.queries[0]!.body = 'users | take $n ' }],
    ['param default', (ir) => { ir.queries[0]!.params[0]!.default = 4 }],
  ]
  const seen = new Set([base])
  for (const [what, edit] of edits) {
    const ir = sample()
    edit(ir)
    const print = await fingerprint(ir)
    t.not(print, base, what)
    seen.add(print)
  }
  t.equal(seen.size, edits.length + 1)
})
