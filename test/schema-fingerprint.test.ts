// The canonical JSON and its fingerprint: equal schemas give equal bytes whatever order
// their IR objects were built in; any meaningful change gives a different fingerprint.
import t from 'tap'
import { canonicalJson, canonicalValue } from '../src/schema/canonical-json.js'
import { fingerprint, fingerprintOf } from '../src/schema/fingerprint.js'
import type { SchemaIR } from '../src/schema/ir.js'
import { collection, field, index, INT, list, schema, STRING } from './schema-fixtures/ir.js'

const sample = (): SchemaIR => schema([
  collection('users', [field('email', STRING), field('tags', list(STRING), { default: { kind: 'value', value: [] } })], {
    indexes: [index(['email'], true)],
  }),
  collection('orders', [field('user', INT, { optional: true })]),
], { queries: [{ name: 'q', params: [{ name: 'n', type: INT, optional: false, default: 3 }], body: 'users | take $n' }] })

t.test('fingerprint: xxHash64 of the UTF-8 bytes as 16 lowercase hex digits', async (t) => {
  t.equal(await fingerprintOf(''), 'ef46db3751d8e999')
  t.equal(await fingerprintOf('abc'), '44bc2cf5ad770999')
  t.match(await fingerprint(sample()), /^[0-9a-f]{16}$/)
  t.equal(await fingerprint(sample()), await fingerprintOf(canonicalJson(sample())))
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
  t.equal(canonicalJson(a), canonicalJson(b))
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
