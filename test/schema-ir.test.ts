// Schema files → IR: the example schema field by field, every validation error with its
// exact message and position (and file), and the canonical form behind the fingerprint.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { buildSchemaIR } from '../src/schema/build-ir.js'
import { fingerprint } from '../src/schema/fingerprint.js'
import type { CollectionIR, FieldIR } from '../src/schema/ir.js'
import { loadSchema, SchemaReadError } from '../src/schema/load.js'
import { SchemaError } from '../src/schema/schema-error.js'

const example = readFileSync('examples/schema.eel', 'utf8')

function build(source: string, name = 's.eel') {
  return buildSchemaIR([{ name, source }])
}

/** Every diagnostic as "file:line:column code message (hint)". */
function errors(files: Array<[string, string]> | string): string[] {
  try {
    buildSchemaIR(typeof files === 'string' ? [{ name: 's.eel', source: files }] : files.map(([name, source]) => ({ name, source })))
  } catch (err) {
    if (!(err instanceof SchemaError)) throw err
    return err.diagnostics.map((d) => `${d.file}:${d.line}:${d.column} ${d.code} ${d.message}${d.hint === undefined ? '' : ` (${d.hint})`}`)
  }
  throw new Error('expected a SchemaError')
}

const f = (name: string, kind: string, extra: Partial<FieldIR> = {}): FieldIR => ({
  name, type: { kind } as FieldIR['type'], optional: false, default: null, was: null, narrowed: false, ...extra,
})

t.test('schema IR: examples/schema.eel, field by field', async (t) => {
  const ir = build(example, 'schema.eel')
  t.equal(ir.version, 1)
  t.same(ir.collections.map((c) => c.name), ['orders', 'users'], 'collections sorted by name')
  const [orders, users] = ir.collections as [CollectionIR, CollectionIR]
  t.same(users.fields, [
    f('id', 'int'),
    f('email', 'string'),
    f('name', 'string'),
    f('age', 'int', { optional: true }),
    f('status', 'string', { default: { kind: 'value', value: 'active' } }),
    { ...f('tags', 'string', { default: { kind: 'value', value: [] } }), type: { kind: 'list', item: { kind: 'string' } } },
    f('created', 'timestamp', { default: { kind: 'now' } }),
  ], 'fields in declaration order')
  t.equal(users.primary, 'id')
  t.equal(users.primary_auto, false)
  t.same(users.indexes, [
    { name: 'email', fields: ['email'], unique: true },
    { name: 'status_created', fields: ['status', 'created'], unique: false },
  ], 'a unique field is a unique index named after it; index (a, b) is a_b; sorted by name')
  t.equal(users.was, null)
  t.same(users.dropped, [])
  t.same(orders, {
    name: 'orders', primary: 'id', primary_auto: false,
    fields: [f('id', 'int'), f('user', 'int'), f('amount', 'float'), f('status', 'string', { default: { kind: 'value', value: 'open' } })],
    indexes: [{ name: 'user', fields: ['user'], unique: false }],
    was: null, dropped: [],
  })
  t.same(ir.queries, [{
    name: 'active_users',
    params: [{ name: 'min_age', type: { kind: 'int' }, optional: false, default: 18 }],
    body: 'users | where age >= $min_age and status == "active" | sort name',
  }])
  t.same(ir.dropped_collections, [])
  t.same(Object.keys(ir), ['version', 'collections', 'queries', 'dropped_collections'])
  t.same(Object.keys(users), ['name', 'primary', 'primary_auto', 'fields', 'indexes', 'was', 'dropped'])
  t.same(Object.keys(users.fields[0]!), ['name', 'type', 'optional', 'default', 'was', 'narrowed'])
})

t.test('schema IR: without a primary field, id: int primary is assigned first', async (t) => {
  const ir = build('collection notes { body: string }')
  t.same(ir.collections[0], {
    name: 'notes', primary: 'id', primary_auto: true, fields: [f('id', 'int'), f('body', 'string')], indexes: [], was: null, dropped: [],
  })
  t.same(errors('collection a { id: string }'), [
    "s.eel:1:12 type_error collection 'a' has no primary field, and 'id' cannot be assigned because a field 'id' is declared; mark one field primary",
  ])
})

t.test('schema IR: renames, drops and narrowed are recorded', async (t) => {
  const ir = build('collection users was people {\n  key: string primary,\n  email: string was mail narrowed,\n  index (email),\n  dropped age,\n  dropped nick,\n}\ndropped collection old\ndropped collection gone\n')
  const users = ir.collections[0]!
  t.equal(users.was, 'people')
  t.same(users.fields[1], f('email', 'string', { was: 'mail', narrowed: true }))
  t.same(users.dropped, ['age', 'nick'])
  t.same(ir.dropped_collections, ['gone', 'old'], 'sorted')
})

t.test('schema IR: defaults are checked against the field type and stored canonically', async (t) => {
  const ir = build([
    'collection a {',
    '  x: int primary,',
    '  f: float = 1,', // an int widens to float
    '  n: int = -3,',
    '  v: timestamp = "2024-05-01T10:00:00+02:00",',
    '  d: timestamp = "2024-05-01",',
    '  z: [[int]] = [[1], []],',
    '  j: json = {b: 1, a: [1, {d: null, c: -2.5}]},',
    '  o: int? = null,', // the same as no default
    '  b: bool = false,',
    '}',
  ].join('\n'))
  const defaults = Object.fromEntries(ir.collections[0]!.fields.map((field) => [field.name, field.default]))
  t.same(defaults, {
    x: null,
    f: { kind: 'value', value: 1 },
    n: { kind: 'value', value: -3 },
    v: { kind: 'value', value: '2024-05-01T08:00:00.000Z' },
    d: { kind: 'value', value: '2024-05-01T00:00:00.000Z' },
    z: { kind: 'value', value: [[1], []] },
    j: { kind: 'value', value: { a: [1, { c: -2.5, d: null }], b: 1 } },
    o: null,
    b: { kind: 'value', value: false },
  })
  const json = defaults.j
  t.same(json?.kind === 'value' && json.value !== null && typeof json.value === 'object' && Object.keys(json.value), ['a', 'b'], 'record keys sorted')
})

t.test('schema IR: a default of the wrong type', async (t) => {
  t.same(errors('collection a { x: int primary, n: int = "x", g: int = 1.5, k: int = null, o: bool = 1, p: json = null, q: json? = null }'), [
    's.eel:1:41 type_error field \'n\' is int, got string "x"',
    "s.eel:1:55 type_error field 'g' is int, got float 1.5",
    "s.eel:1:69 type_error field 'k' is int, got null",
    "s.eel:1:85 type_error field 'o' is bool, got int 1",
    "s.eel:1:98 type_error field 'p' is json, got null",
  ])
  t.same(errors('collection a {\n  x: int primary,\n  t: [int] = [1, "a"],\n  u: int = [1],\n  r: string = {a: 1},\n  l: [int] = 5,\n}'), [
    's.eel:3:18 type_error field \'t\' is [int], got string "a"',
    "s.eel:4:12 type_error field 'u' is int, got a list",
    "s.eel:5:15 type_error field 'r' is string, got a record",
    "s.eel:6:14 type_error field 'l' is [int], got int 5",
  ])
})

t.test('schema IR: now() only for timestamp fields; other expressions are not defaults', async (t) => {
  t.same(errors('collection a {\n  x: int primary,\n  s: string = now(),\n  t: timestamp = now(1),\n  u: string = y,\n  w: int = -"a",\n}'), [
    "s.eel:3:15 type_error field 's' is string; now() is only a default for timestamp fields",
    's.eel:4:18 type_error now() takes no arguments',
    's.eel:5:15 type_error a default must be a literal, a list or record of literals, or now()',
    's.eel:6:12 type_error a default must be a literal, a list or record of literals, or now()',
  ])
})

t.test('schema IR: a timestamp default is ISO-8601, with a zone when it has a time', async (t) => {
  t.same(errors('collection a { x: int primary, w: timestamp = "2024-05-01T10:00", v: timestamp = "May 1" }'), [
    's.eel:1:47 type_error field \'w\' is timestamp, got string "2024-05-01T10:00", not an ISO-8601 timestamp (with a zone when it has a time)',
    's.eel:1:82 type_error field \'v\' is timestamp, got string "May 1", not an ISO-8601 timestamp (with a zone when it has a time)',
  ])
})

t.test('schema IR: a json default may not repeat a key', async (t) => {
  t.same(errors('collection a { x: int primary, d: json = {a: 1, b: {c: 1, c: 2}, a: 3} }'), [
    "s.eel:1:59 type_error duplicate key 'c' in the default of field 'd'",
    "s.eel:1:66 type_error duplicate key 'a' in the default of field 'd'",
  ])
})

t.test('schema IR: only a whole type can be optional', async (t) => {
  t.same(errors('collection a { x: int primary, l: [int?] }'), [
    "s.eel:1:36 type_error only a whole field or parameter type can be optional ('?'), not a list item",
  ])
})

t.test('schema IR: duplicate collections, queries and fields, across files too', async (t) => {
  t.same(errors([
    ['a.eel', 'collection users { id: int primary }\nquery q() { users }'],
    ['b.eel', '# again\ncollection users { id: int primary,\n  id: string }\nquery q() { users }'],
  ]), [
    "b.eel:2:12 type_error duplicate collection 'users' (first declared at a.eel:1:12)",
    "b.eel:4:7 type_error duplicate query 'q' (first declared at a.eel:2:7)",
  ])
  t.same(errors('collection a { x: int primary,\n  x: string }'), ["s.eel:2:3 type_error duplicate field 'x' in collection 'a'"])
})

t.test('schema IR: the primary field is one non-optional scalar without a default', async (t) => {
  t.same(errors('collection a { x: int primary, y: int primary }'), [
    "s.eel:1:32 type_error collection 'a' has more than one primary field: 'x' and 'y'",
  ])
  t.same(errors('collection a { x: int? primary }\ncollection b { x: [int] primary = [] }\ncollection c { x: json primary }\ncollection d { x: int primary = 1 }'), [
    "s.eel:1:16 type_error primary field 'x' cannot be optional",
    "s.eel:2:16 type_error primary field 'x' must be int, float, string, bool or timestamp, not [int]",
    "s.eel:2:16 type_error primary field 'x' cannot have a default",
    "s.eel:3:16 type_error primary field 'x' must be int, float, string, bool or timestamp, not json",
    "s.eel:4:16 type_error primary field 'x' cannot have a default",
  ])
  for (const type of ['int', 'float', 'string', 'bool', 'timestamp']) {
    t.equal(build(`collection a { k: ${type} primary }`).collections[0]!.primary, 'k', type)
  }
  // `unique` on the primary adds no index: the primary key is unique already.
  t.same(build('collection a { k: string primary unique }').collections[0]!.indexes, [])
})

t.test('schema IR: indexes name known, orderable fields, once each', async (t) => {
  t.same(errors('collection a { x: int primary, tags: [string], index (tagz), index (x, x), index(tags), j: json unique }'), [
    "s.eel:1:55 unknown_field unknown field 'tagz' in index (tagz) of collection 'a' (did you mean 'tags'?)",
    "s.eel:1:72 type_error field 'x' appears twice in index (x, x)",
    "s.eel:1:82 type_error field 'tags' is [string]; only int, float, string, bool and timestamp fields can be indexed",
    "s.eel:1:89 type_error field 'j' is json; only int, float, string, bool and timestamp fields can be indexed",
  ])
  t.same(errors('collection a {\n  x: int primary,\n  e: string unique,\n  index (e),\n  unique index (x, e),\n  index (x, e),\n}'), [
    "s.eel:4:3 type_error duplicate index 'e' in collection 'a'",
    "s.eel:6:3 type_error duplicate index 'x_e' in collection 'a'",
  ])
  t.same(build('collection a { x: int primary, e: string, unique index (e, x) }').collections[0]!.indexes, [{ name: 'e_x', fields: ['e', 'x'], unique: true }])
})

t.test('schema IR: was and dropped inside a collection must name a field that can have been', async (t) => {
  t.same(errors('collection a {\n  x: int primary,\n  b: int was b,\n  c: int was x,\n  d: int was q,\n  e: int was q,\n  dropped c,\n  dropped q,\n  dropped z,\n  dropped z,\n}'), [
    "s.eel:3:14 type_error field 'b' says was 'b', its own name",
    "s.eel:4:14 type_error field 'c' was 'x', but 'x' is still declared in collection 'a'",
    "s.eel:6:14 type_error fields 'd' and 'e' both say was 'q'",
    "s.eel:7:3 type_error field 'c' is dropped, but collection 'a' still declares it",
    "s.eel:8:3 type_error field 'q' is dropped, but field 'd' was 'q'",
    "s.eel:10:3 type_error field 'z' is dropped twice in collection 'a'",
  ])
})

t.test('schema IR: collection was and dropped collection must name a collection that can have been', async (t) => {
  t.same(errors('collection a was a { x: int primary }\ncollection b was c { x: int primary }\ncollection d was c { x: int primary }\ncollection e was b { x: int primary }\ndropped collection a\ndropped collection c\ndropped collection z\ndropped collection z'), [
    "s.eel:1:18 type_error collection 'a' says was 'a', its own name",
    "s.eel:3:18 type_error collections 'b' and 'd' both say was 'c'",
    "s.eel:4:18 type_error collection 'e' was 'b', but 'b' is still declared",
    "s.eel:5:1 type_error collection 'a' is dropped, but it is still declared",
    "s.eel:6:1 type_error collection 'c' is dropped, but collection 'b' was 'c'",
    "s.eel:8:1 type_error collection 'z' is dropped twice",
  ])
})

t.test('schema IR: query parameters and the body as written', async (t) => {
  const ir = build('query q($a: int = 1, $b: string? = null, $c: [float] = [1, 2.5], $d: timestamp?) {\n  users | where x == $b   |  take $a  \n}')
  t.same(ir.queries, [{
    name: 'q',
    params: [
      { name: 'a', type: { kind: 'int' }, optional: false, default: 1 },
      { name: 'b', type: { kind: 'string' }, optional: true, default: null },
      { name: 'c', type: { kind: 'list', item: { kind: 'float' } }, optional: false, default: [1, 2.5] },
      { name: 'd', type: { kind: 'timestamp' }, optional: true, default: null },
    ],
    body: 'users | where x == $b   |  take $a',
  }])
  t.same(errors('query q($a: int, $a: string) { users }\nquery r($t: timestamp = now(), $n: int = "1") { users }'), [
    "s.eel:1:18 type_error duplicate parameter 'a' in query 'q'",
    's.eel:2:25 type_error now() is only allowed as the default of a field, not of a parameter',
    's.eel:2:42 type_error parameter \'n\' is int, got string "1"',
  ])
})

t.test('schema IR: parse errors come back with their file', async (t) => {
  t.same(errors([['ok.eel', 'collection a { x: int primary }'], ['bad.eel', '\ncollection a { x int }'], ['q.eel', 'users | take 1']]), [
    "bad.eel:2:18 syntax_error unexpected 'int' in field x; expected ':'",
    'q.eel:1:1 not_allowed_here queries cannot appear in a schema file (declare a named query instead: query name() { … })',
  ])
})

t.test('schema IR: a SchemaError says everything, one line per diagnostic', async (t) => {
  const err = t.throws(() => build('collection a { x: int primary, x: int }\ncollection a { }', 'main.eel')) as SchemaError
  t.ok(err instanceof SchemaError)
  t.equal(err.name, 'SchemaError')
  t.equal(err.message, "main.eel:1:32 duplicate field 'x' in collection 'a'\nmain.eel:2:12 duplicate collection 'a' (first declared at main.eel:1:12)")
  t.equal(err.diagnostic.file, 'main.eel')
  t.equal(err.diagnostic.from, 31)
})

t.test('schema IR: canonical form: declaration order of collections, queries and files does not matter', async (t) => {
  const reordered = [
    'query active_users($min_age: int = 18) {\n  users | where age >= $min_age and status == "active" | sort name\n}',
    'collection orders { id: int primary, user: int, amount: float, status: string = "open", index (user) }',
    '# a comment changes nothing\ncollection users {\n  id: int primary, email: string unique, name: string, age: int?,\n  status: string = "active", tags: [string] = [], created: timestamp = now(),\n  index (status, created)\n}',
  ]
  const base = await fingerprint(build(example))
  t.equal(await fingerprint(build(reordered.join('\n'))), base)
  t.equal(await fingerprint(buildSchemaIR(reordered.map((source, i) => ({ name: `${i}.eel`, source })))), base)
  t.equal(await fingerprint(buildSchemaIR([...reordered].reverse().map((source, i) => ({ name: `${i}.eel`, source })))), base)
  // `= null` on an optional field is no default; a unique field and a one-field unique index are the same.
  const same = example.replace('age: int?', 'age: int? = null').replace('email: string unique', 'email: string').replace('index (status, created)', 'index (status, created), unique index (email)')
  t.equal(await fingerprint(build(same)), base)
})

t.test('schema IR: canonical form: anything meaningful changes the fingerprint', async (t) => {
  const base = await fingerprint(build(example))
  const edits: Array<[string, string, string]> = [
    ['a default', '"active"', '"new"'],
    ['a type', 'amount: float', 'amount: int'],
    ['optional', 'name: string,', 'name: string?,'],
    ['field order', '  name: string,\n  age: int?,', '  age: int?,\n  name: string,'],
    ['an index', 'index (user)', 'index (user, status)'],
    ['unique', 'index (user)', 'unique index (user)'],
    ['the query body', 'sort name', 'sort name desc'],
    ['a parameter default', '= 18', '= 21'],
    ['a rename', 'name: string,', 'name: string was full_name,'],
    ['narrowed', 'name: string,', 'name: string narrowed,'],
    ['a dropped field', 'index (user),', 'index (user), dropped note,'],
    ['a dropped collection', '\nquery', '\ndropped collection old\nquery'],
    ['a collection name', 'collection orders', 'collection purchases'],
  ]
  for (const [what, from, to] of edits) {
    t.ok(example.includes(from), what)
    t.not(await fingerprint(build(example.replace(from, to))), base, what)
  }
})

t.test('schema IR: loadSchema reads files by path and names them by base name', async (t) => {
  const loaded = await loadSchema(['examples/schema.eel', join('test', 'schema-fixtures', 'two.eel')])
  t.same(loaded.files.map((file) => file.name), ['schema.eel', 'two.eel'])
  t.equal(loaded.files[0]!.source, example)
  t.same(loaded.ir.collections.map((c) => c.name), ['events', 'orders', 'users'])
  t.equal(loaded.fingerprint, await fingerprint(loaded.ir))
  const err = await loadSchema(['test/schema-fixtures/missing.eel']).catch((e: unknown) => e)
  t.ok(err instanceof SchemaReadError)
  t.match((err as Error).message, /^cannot read schema file test\/schema-fixtures\/missing\.eel: ENOENT/)
})
