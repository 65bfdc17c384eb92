// One test per row of the table in docs/language.md, "Lazy migration", applied and
// blocked, against hand-built IR; each asserts the exact plan or the exact reason.
import t from 'tap'
import { blockedByDuplicate, blockedByValue, describeStep, planMigration, type MigrationStep } from '../src/schema/migration-plan.js'
import { collection, field, FLOAT, index, INT, JSON_T, list, schema, STRING, TIMESTAMP, BOOL } from './schema-fixtures/ir.js'

const users = (fields = [field('name', STRING)], extra = {}) => collection('users', fields, extra)

t.test('migration: a fresh tenant creates every collection, then builds its indexes', async (t) => {
  const to = schema([
    collection('orders', [field('user', INT)], { indexes: [index(['user'])] }),
    users([field('email', STRING)], { indexes: [index(['email'], true)] }),
  ])
  t.same(planMigration(null, to), {
    blocked: null,
    steps: [
      { kind: 'create_collection', collection: 'orders' },
      { kind: 'build_index', collection: 'orders', index: 'user', fields: ['user'], unique: false },
      { kind: 'create_collection', collection: 'users' },
      { kind: 'build_index', collection: 'users', index: 'email', fields: ['email'], unique: true },
    ],
  })
})

t.test('migration: the same IR needs no steps; query changes need none either', async (t) => {
  const from = schema([users()])
  t.same(planMigration(from, from), { blocked: null, steps: [] })
  const to = schema([users()], { queries: [{ name: 'q', params: [], body: 'users' }] })
  t.same(planMigration(from, to), { blocked: null, steps: [] })
})

t.test('migration: adding a collection creates it (a required field needs no default there)', async (t) => {
  const from = schema([users()])
  const to = schema([users(), collection('orders', [field('amount', FLOAT)], { indexes: [index(['amount'])] })])
  t.same(planMigration(from, to), {
    blocked: null,
    steps: [
      { kind: 'create_collection', collection: 'orders' },
      { kind: 'build_index', collection: 'orders', index: 'amount', fields: ['amount'], unique: false },
    ],
  })
})

t.test('migration: adding an optional field leaves existing rows without a value', async (t) => {
  const plan = planMigration(schema([users()]), schema([users([field('name', STRING), field('age', INT, { optional: true })])]))
  t.same(plan, { blocked: null, steps: [{ kind: 'add_field', collection: 'users', field: 'age', fill: null }] })
})

t.test('migration: adding a field with a default fills existing rows with it (now() = migration time)', async (t) => {
  const to = schema([users([
    field('name', STRING),
    field('status', STRING, { default: { kind: 'value', value: 'active' } }),
    field('created', TIMESTAMP, { default: { kind: 'now' } }),
    field('nick', STRING, { optional: true, default: { kind: 'value', value: 'x' } }),
  ])])
  t.same(planMigration(schema([users()]), to).steps, [
    { kind: 'add_field', collection: 'users', field: 'status', fill: { kind: 'value', value: 'active' } },
    { kind: 'add_field', collection: 'users', field: 'created', fill: { kind: 'now' } },
    { kind: 'add_field', collection: 'users', field: 'nick', fill: { kind: 'value', value: 'x' } },
  ])
})

t.test('migration: adding a required field without a default to an existing collection is blocked', async (t) => {
  const plan = planMigration(schema([users()]), schema([users([field('name', STRING), field('age', INT)])]))
  t.same(plan, {
    blocked: "collection 'users': new field 'age' is required and has no default, so existing rows would have no value (make it optional or give it a default)",
    steps: [],
  })
})

t.test('migration: adding an index builds it from existing rows', async (t) => {
  const plan = planMigration(schema([users()]), schema([users(undefined, { indexes: [index(['name'])] })]))
  t.same(plan, { blocked: null, steps: [{ kind: 'build_index', collection: 'users', index: 'name', fields: ['name'], unique: false }] })
  t.equal(describeStep(plan.steps[0]!), 'build index users.name (name) from existing rows')
})

t.test('migration: adding unique builds a checked unique index; duplicates block at apply time', async (t) => {
  const from = schema([users(undefined, { indexes: [index(['name'])] })])
  const to = schema([users(undefined, { indexes: [index(['name'], true)] })])
  const plan = planMigration(from, to)
  t.same(plan, {
    blocked: null,
    steps: [
      { kind: 'drop_index', collection: 'users', index: 'name' },
      { kind: 'build_index', collection: 'users', index: 'name', fields: ['name'], unique: true },
    ],
  })
  const build = plan.steps[1] as MigrationStep & { kind: 'build_index' }
  t.equal(describeStep(build), 'build unique index users.name (name) from existing rows (checks for duplicates)')
  t.equal(blockedByDuplicate(build, '"Ada"'), `collection 'users': unique index 'name' cannot be built: more than one row has name = "Ada"`)
  t.equal(blockedByDuplicate({ ...build, index: 'a_b', fields: ['a', 'b'] }, '[1, 2]'), `collection 'users': unique index 'a_b' cannot be built: more than one row has (a, b) = [1, 2]`)
})

t.test('migration: dropping an index', async (t) => {
  const plan = planMigration(schema([users(undefined, { indexes: [index(['name'])] })]), schema([users()]))
  t.same(plan, { blocked: null, steps: [{ kind: 'drop_index', collection: 'users', index: 'name' }] })
})

t.test('migration: a field renamed with was keeps its data (and its index, rebuilt under the new name)', async (t) => {
  const from = schema([users([field('mail', STRING)], { indexes: [index(['mail'], true)] })])
  const to = schema([users([field('email', STRING, { was: 'mail' })], { indexes: [index(['email'], true)] })])
  t.same(planMigration(from, to), {
    blocked: null,
    steps: [
      { kind: 'drop_index', collection: 'users', index: 'mail' },
      { kind: 'rename_field', collection: 'users', from: 'mail', to: 'email' },
      { kind: 'build_index', collection: 'users', index: 'email', fields: ['email'], unique: true },
    ],
  })
  // Once applied, the tenant has `email`; the `was` left in the schema is a no-op.
  t.same(planMigration(to, to), { blocked: null, steps: [] })
})

t.test('migration: a rename whose new name the tenant still has is blocked', async (t) => {
  const from = schema([users([field('mail', STRING), field('email', STRING)])])
  const to = schema([users([field('email', STRING, { was: 'mail' })])])
  t.equal(planMigration(from, to).blocked, "collection 'users': field 'email' was 'mail', but the applied schema still has a field 'email'; drop one of them first")
})

t.test('migration: a rename and a type change together', async (t) => {
  const from = schema([users([field('n', INT)])])
  const to = schema([users([field('count', FLOAT, { was: 'n' })])])
  t.same(planMigration(from, to).steps, [
    { kind: 'rename_field', collection: 'users', from: 'n', to: 'count' },
    { kind: 'convert_field', collection: 'users', field: 'count', from: { type: INT, optional: false }, to: { type: FLOAT, optional: false }, check: false },
  ])
})

t.test('migration: a collection renamed with was keeps its rows', async (t) => {
  const from = schema([collection('people', [field('name', STRING)])])
  const to = schema([users(undefined, { was: 'people' })])
  t.same(planMigration(from, to), { blocked: null, steps: [{ kind: 'rename_collection', from: 'people', to: 'users' }] })
  t.same(planMigration(to, to), { blocked: null, steps: [] })
  // Changes inside the renamed collection use its new name.
  const more = schema([users([field('name', STRING), field('age', INT, { optional: true })], { was: 'people' })])
  t.same(planMigration(from, more).steps, [
    { kind: 'rename_collection', from: 'people', to: 'users' },
    { kind: 'add_field', collection: 'users', field: 'age', fill: null },
  ])
  const both = schema([collection('people', []), users()])
  t.equal(planMigration(both, to).blocked, "collection 'users' was 'people', but the applied schema still has a collection 'users'; drop one of them first")
})

t.test('migration: widening int to float converts every value and rebuilds its indexes', async (t) => {
  const from = schema([users([field('score', INT)], { indexes: [index(['score'])] })])
  const to = schema([users([field('score', FLOAT)], { indexes: [index(['score'])] })])
  t.same(planMigration(from, to), {
    blocked: null,
    steps: [
      { kind: 'drop_index', collection: 'users', index: 'score' },
      { kind: 'convert_field', collection: 'users', field: 'score', from: { type: INT, optional: false }, to: { type: FLOAT, optional: false }, check: false },
      { kind: 'build_index', collection: 'users', index: 'score', fields: ['score'], unique: false },
    ],
  })
})

t.test('migration: making a field optional, or widening to a list or json, needs no marker', async (t) => {
  const from = schema([users([field('a', STRING), field('b', STRING), field('c', TIMESTAMP), field('d', list(INT))])])
  const to = schema([users([field('a', STRING, { optional: true }), field('b', list(STRING)), field('c', JSON_T), field('d', list(FLOAT))])])
  const plan = planMigration(from, to)
  t.equal(plan.blocked, null)
  t.same(plan.steps.map((s) => s.kind === 'convert_field' && [s.field, s.check]), [['a', false], ['b', false], ['c', false], ['d', false]])
})

t.test('migration: removing a field is blocked unless `dropped` says so', async (t) => {
  const from = schema([users([field('name', STRING), field('age', INT)], { indexes: [index(['age'])] })])
  t.same(planMigration(from, schema([users()])), {
    blocked: "collection 'users': field 'age' was removed, which would lose its data (write `dropped age` in collection 'users' to accept)",
    steps: [],
  })
  t.same(planMigration(from, schema([users(undefined, { dropped: ['age'] })])), {
    blocked: null,
    steps: [
      { kind: 'drop_index', collection: 'users', index: 'age' },
      { kind: 'drop_field', collection: 'users', field: 'age' },
    ],
  })
  // A `dropped` for a field the tenant no longer has is a no-op.
  t.same(planMigration(schema([users()]), schema([users(undefined, { dropped: ['age'] })])).steps, [])
})

t.test('migration: removing a collection is blocked unless `dropped collection` says so', async (t) => {
  const from = schema([users(), collection('orders', [])])
  t.same(planMigration(from, schema([users()])), {
    blocked: "collection 'orders' was removed, which would lose its rows (write `dropped collection orders` to accept)",
    steps: [],
  })
  t.same(planMigration(from, schema([users()], { dropped_collections: ['orders'] })), { blocked: null, steps: [{ kind: 'drop_collection', collection: 'orders' }] })
})

t.test('migration: narrowing a type is blocked unless `narrowed`, then checked per value', async (t) => {
  const cases: Array<[string, ReturnType<typeof field>, ReturnType<typeof field>]> = [
    ['float to int', field('x', FLOAT), field('x', INT)],
    ['int? to int', field('x', INT, { optional: true }), field('x', INT)],
    ['[string] to string', field('x', list(STRING)), field('x', STRING)],
    ['json to int', field('x', JSON_T), field('x', INT)],
    ['int to string', field('x', INT), field('x', STRING)],
    ['string to timestamp', field('x', STRING), field('x', TIMESTAMP)],
  ]
  for (const [change, before, after] of cases) {
    const from = schema([users([before])])
    t.equal(
      planMigration(from, schema([users([after])])).blocked,
      `collection 'users': field 'x' changes from ${change}, which could lose data (mark it \`narrowed\` to convert each value; a value that does not convert blocks the migration)`,
      change,
    )
    t.same(planMigration(from, schema([users([{ ...after, narrowed: true }])])), {
      blocked: null,
      steps: [{ kind: 'convert_field', collection: 'users', field: 'x', from: { type: before.type, optional: before.optional }, to: { type: after.type, optional: after.optional }, check: true }],
    }, change)
  }
})

t.test('migration: a change with no conversion is blocked even when narrowed', async (t) => {
  const plan = planMigration(schema([users([field('x', BOOL)])]), schema([users([field('x', TIMESTAMP, { narrowed: true })])]))
  t.equal(plan.blocked, "collection 'users': field 'x' changes from bool to timestamp, which cannot be converted (add a new field instead)")
})

t.test('migration: a value that does not convert is described for the blocked reason', async (t) => {
  const step = { kind: 'convert_field', collection: 'users', field: 'x', from: { type: FLOAT, optional: false }, to: { type: INT, optional: false }, check: true } as const
  t.equal(blockedByValue(step, '42', 'value 2.5 does not convert to int'), "collection 'users': field 'x' cannot change from float to int: in the row with key 42, value 2.5 does not convert to int")
  t.equal(describeStep(step), 'convert users.x from float to int (checked per row)')
})

t.test('migration: changing the primary field is blocked', async (t) => {
  const from = schema([users([field('email', STRING)])])
  const other = schema([collection('users', [field('email', STRING)], { primary: 'email' })])
  t.same(planMigration(from, other), { blocked: "collection 'users': the primary field changes from 'id' to 'email', which would give every row a new key", steps: [] })
  const retyped = schema([{ ...users([field('email', STRING)]), fields: [field('id', FLOAT), field('email', STRING)] }])
  t.equal(planMigration(from, retyped).blocked, "collection 'users': primary field 'id' changes from int to float, which would give every row a new key")
  // A new primary field: only the primary change is reported, not the removal it implies.
  const newKey = schema([{ ...users(), primary: 'key', fields: [field('key', STRING), field('name', STRING)] }])
  t.equal(planMigration(schema([users()]), newKey).blocked, "collection 'users': the primary field changes from 'id' to 'key', which would give every row a new key")
})

t.test('migration: renaming the primary field keeps the keys', async (t) => {
  const to = schema([{ ...users(), primary: 'uid', fields: [field('uid', INT, { was: 'id' }), field('name', STRING)] }])
  t.same(planMigration(schema([users()]), to), { blocked: null, steps: [{ kind: 'rename_field', collection: 'users', from: 'id', to: 'uid' }] })
  // Declaring the assigned `id: int primary` explicitly changes nothing stored.
  t.same(planMigration(schema([users(undefined, { primary_auto: true })]), schema([users()])).steps, [])
})

t.test('migration: every blocked reason is reported: the loaded collections in name order, then removed ones', async (t) => {
  const from = schema([collection('a', [field('x', INT)]), collection('b', [field('y', FLOAT)]), collection('c', [])])
  const to = schema([collection('a', []), collection('b', [field('y', INT)])])
  t.equal(planMigration(from, to).blocked, [
    "collection 'a': field 'x' was removed, which would lose its data (write `dropped x` in collection 'a' to accept)",
    "collection 'b': field 'y' changes from float to int, which could lose data (mark it `narrowed` to convert each value; a value that does not convert blocks the migration)",
    "collection 'c' was removed, which would lose its rows (write `dropped collection c` to accept)",
  ].join('; '))
})

t.test('migration: steps come drops, renames, then each collection: indexes dropped, fields renamed, dropped, converted, added, indexes built', async (t) => {
  const from = schema([
    collection('gone', []),
    collection('old', [field('a', INT), field('b', STRING), field('c', STRING)], { indexes: [index(['c'])] }),
  ])
  const to = schema([
    collection('new', [field('a2', INT, { was: 'a' }), field('b', STRING, { optional: true }), field('d', STRING, { optional: true })], {
      was: 'old', dropped: ['c'], indexes: [index(['d'])],
    }),
  ], { dropped_collections: ['gone'] })
  t.same(planMigration(from, to).steps.map(describeStep), [
    'drop collection gone and its rows',
    'rename collection old to new',
    'drop index new.c',
    'rename new.a to a2',
    'drop new.c from every row',
    'convert new.b from string to string?',
    'add new.d',
    'build index new.d (d) from existing rows',
  ])
})
