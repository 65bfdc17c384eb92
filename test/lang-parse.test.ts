// The AST that parse() builds: shapes of every statement kind, spans for a few.
import { readFileSync } from 'node:fs'
import t from 'tap'
import type { Expr, Statement } from '../src/lang/ast.js'
import { EelError } from '../src/lang/diagnostic.js'
import { diagnose, parse, parseExpression } from '../src/lang/index.js'

/** The one statement of a query. */
function one(text: string): Statement {
  const { statements } = parse(text)
  if (statements.length !== 1 || statements[0] === undefined) throw new Error('expected one statement')
  return statements[0]
}

/** Drops spans so shapes compare without offsets. */
function shape(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(shape)
  if (value === null || typeof value !== 'object') return value
  return Object.fromEntries(
    Object.entries(value).filter(([k]) => k !== 'span' && k !== 'nameSpan' && k !== 'collectionSpan').map(([k, v]) => [k, shape(v)]),
  )
}

const field = (...path: string[]): unknown => ({ kind: 'field', path })
const int = (value: number): unknown => ({ kind: 'literal', value, integer: true })
const str = (value: string): unknown => ({ kind: 'literal', value, integer: false })
const param = (name: string): unknown => ({ kind: 'param', name })

t.test('a pipeline with every stage', async (t) => {
  const s = one(
    'users | where age >= $min | get 1 | select id, mail: lower(email), a.b | sort created desc, name | skip 2 | take 3 ' +
      '| distinct country | aggregate n: count(), total: sum(amount) by status | count | update {x: 1} | delete',
  )
  t.same(shape(s), {
    kind: 'pipeline',
    source: { kind: 'collection', name: 'users' },
    stages: [
      { kind: 'where', predicate: { kind: 'binary', op: '>=', left: field('age'), right: param('min') } },
      { kind: 'get', key: int(1) },
      {
        kind: 'select',
        items: [
          { name: 'id', expr: field('id') },
          { name: 'mail', expr: { kind: 'call', name: 'lower', args: [field('email')] } },
          { name: 'b', expr: field('a', 'b') },
        ],
      },
      { kind: 'sort', keys: [{ expr: field('created'), descending: true }, { expr: field('name'), descending: false }] },
      { kind: 'skip', count: int(2) },
      { kind: 'take', count: int(3) },
      { kind: 'distinct', fields: [field('country')] },
      {
        kind: 'aggregate',
        items: [{ name: 'n', fn: 'count', arg: null }, { name: 'total', fn: 'sum', arg: field('amount') }],
        by: [field('status')],
      },
      { kind: 'count' },
      { kind: 'update', set: [{ name: 'x', value: int(1) }], returning: null },
      { kind: 'delete', returning: null },
    ],
  })
})

t.test('spans are [from, to) offsets of the source', async (t) => {
  const text = 'users | where age == 3'
  const s = one(text)
  if (s.kind !== 'pipeline') throw new Error('pipeline expected')
  t.same(s.span, { from: 0, to: text.length })
  t.same(s.source.span, { from: 0, to: 5 })
  const where = s.stages[0]
  if (where?.kind !== 'where') throw new Error('where expected')
  t.same(where.span, { from: 8, to: text.length })
  t.same(where.predicate.span, { from: 14, to: text.length })
  if (where.predicate.kind !== 'binary') throw new Error('binary expected')
  t.same(where.predicate.left.span, { from: 14, to: 17 })
  t.same(where.predicate.right.span, { from: 21, to: 22 })

  const insert = one('insert `select` {"a b": 1}')
  if (insert.kind !== 'insert') throw new Error('insert expected')
  t.equal(insert.collection, 'select', 'backticks are not part of the name')
  t.same(insert.collectionSpan, { from: 7, to: 15 })
  if (insert.rows.kind !== 'record') throw new Error('record expected')
  t.same(insert.rows.fields[0]?.nameSpan, { from: 17, to: 22 })
  t.equal(insert.rows.fields[0]?.name, 'a b')
})

t.test('writes', async (t) => {
  t.same(shape(one('insert users [{id: 2}, {id: 3}]')), {
    kind: 'insert',
    collection: 'users',
    rows: { kind: 'list', items: [{ kind: 'record', fields: [{ name: 'id', value: int(2) }] }, { kind: 'record', fields: [{ name: 'id', value: int(3) }] }] },
    returning: null,
  })
  t.same(shape(one('upsert users $rows;')), { kind: 'upsert', collection: 'users', rows: param('rows'), returning: null })
  t.same(shape(one('insert users {} returning *')), { kind: 'insert', collection: 'users', rows: { kind: 'record', fields: [] }, returning: { kind: 'all' } })
  const returned = one('users | delete returning id, n: len(name)')
  if (returned.kind !== 'pipeline') throw new Error('pipeline expected')
  t.same(shape(returned.stages[0]), { kind: 'delete', returning: { kind: 'items', items: [{ name: 'id', expr: field('id') }, { name: 'n', expr: { kind: 'call', name: 'len', args: [field('name')] } }] } })
  t.same(shape(one('explain users | count')), {
    kind: 'explain',
    statement: { kind: 'pipeline', source: { kind: 'collection', name: 'users' }, stages: [{ kind: 'count' }] },
  })
  const atomic = one('atomic { a | where id == $x | update {n: n + 1}; insert b {id: 1}; }')
  t.equal(atomic.kind, 'atomic')
  if (atomic.kind === 'atomic') t.same(atomic.statements.map((s) => s.kind), ['pipeline', 'insert'])
})

t.test('a call source', async (t) => {
  t.same(shape(one('call active_users(min_age: 30) | take 5')), {
    kind: 'pipeline',
    source: { kind: 'call', name: 'active_users', args: [{ name: 'min_age', value: int(30) }] },
    stages: [{ kind: 'take', count: int(5) }],
  })
})

t.test('expressions: precedence, literals and escapes', async (t) => {
  t.same(shape(parseExpression('not a == 1 and b or -c * 2 in [1.5, null, true]')), {
    kind: 'binary',
    op: 'or',
    left: {
      kind: 'binary',
      op: 'and',
      left: { kind: 'unary', op: 'not', operand: { kind: 'binary', op: '==', left: field('a'), right: int(1) } },
      right: field('b'),
    },
    right: {
      kind: 'binary',
      op: 'in',
      left: { kind: 'binary', op: '*', left: { kind: 'unary', op: '-', operand: field('c') }, right: int(2) },
      right: {
        kind: 'list',
        items: [{ kind: 'literal', value: 1.5, integer: false }, { kind: 'literal', value: null, integer: false }, { kind: 'literal', value: true, integer: false }],
      },
    },
  })
  t.same(shape(parseExpression('"q\\" b\\\\ n\\n t\\t u\\u{1F600}\\u{e9}"')), str('q" b\\ n\n t\t u😀é'))
  t.same(shape(parseExpression('1e3')), { kind: 'literal', value: 1000, integer: false })
  t.same(shape(parseExpression('-7')), int(-7), 'a negative number is a literal')
  t.same(shape(parseExpression('-(7)')), { kind: 'unary', op: '-', operand: int(7) })
  t.same(shape(parseExpression('(a + b) % 3')), { kind: 'binary', op: '%', left: { kind: 'binary', op: '+', left: field('a'), right: field('b') }, right: int(3) })
  t.same(shape(parseExpression('{`in`: [], "x": {}}')), {
    kind: 'record',
    fields: [{ name: 'in', value: { kind: 'list', items: [] } }, { name: 'x', value: { kind: 'record', fields: [] } }],
  })
  const e: Expr = parseExpression('  f(x)  ')
  t.same(e.kind === 'call' ? e.nameSpan : null, { from: 2, to: 3 })
  t.same(shape(parseExpression('9007199254740991')), int(9007199254740991), 'the largest safe integer')
})

t.test('schema declarations', async (t) => {
  const { statements } = parse(
    `collection people was persons {
      id: int primary,
      mail: string unique was email,
      age: int? = -1 narrowed,
      tags: [string?] = [],
      index (mail, age),
      unique index (mail),
      dropped nickname,
    }
    dropped collection sessions
    query adults($min: int = 18, $name: string?) { people | where age >= $min }`,
    'schema',
  )
  t.same(shape(statements), [
    {
      kind: 'collection_decl',
      name: 'people',
      was: 'persons',
      members: [
        { kind: 'field', name: 'id', type: { kind: 'int' }, primary: true, unique: false, default: null, was: null, narrowed: false, onDelete: null },
        { kind: 'field', name: 'mail', type: { kind: 'string' }, primary: false, unique: true, default: null, was: 'email', narrowed: false, onDelete: null },
        { kind: 'field', name: 'age', type: { kind: 'optional', inner: { kind: 'int' } }, primary: false, unique: false, default: int(-1), was: null, narrowed: true, onDelete: null },
        {
          kind: 'field', name: 'tags', type: { kind: 'list', item: { kind: 'optional', inner: { kind: 'string' } } },
          primary: false, unique: false, default: { kind: 'list', items: [] }, was: null, narrowed: false, onDelete: null,
        },
        { kind: 'index', fields: ['mail', 'age'], unique: false },
        { kind: 'index', fields: ['mail'], unique: true },
        { kind: 'dropped', name: 'nickname' },
      ],
    },
    { kind: 'drop_collection_decl', name: 'sessions' },
    {
      kind: 'query_decl',
      name: 'adults',
      params: [
        { name: 'min', type: { kind: 'int' }, default: int(18) },
        { name: 'name', type: { kind: 'optional', inner: { kind: 'string' } }, default: null },
      ],
      body: {
        kind: 'pipeline',
        source: { kind: 'collection', name: 'people' },
        stages: [{ kind: 'where', predicate: { kind: 'binary', op: '>=', left: field('age'), right: param('min') } }],
      },
    },
  ])
  const query = statements[2]
  if (query?.kind !== 'query_decl') throw new Error('query_decl expected')
  t.equal(query.nameSpan.to - query.nameSpan.from, 'adults'.length)
})

t.test('examples/schema.eel', async (t) => {
  const { statements } = parse(readFileSync('examples/schema.eel', 'utf8'), 'schema')
  t.same(statements.map((s) => s.kind), ['collection_decl', 'collection_decl', 'query_decl'])
  const users = statements[0]
  if (users?.kind !== 'collection_decl') throw new Error('collection expected')
  t.same(users.members.map((m) => (m.kind === 'field' ? m.name : m.kind)), ['id', 'email', 'name', 'age', 'status', 'tags', 'created', 'index'])
})

t.test('tenant operations', async (t) => {
  t.same(shape(one('tenant create acme')), { kind: 'tenant_op', op: 'create', name: 'acme' })
  for (const op of ['suspend', 'resume', 'compact'] as const) {
    t.same(shape(one(`tenant ${op} acme`)), { kind: 'tenant_op', op, name: 'acme' })
  }
  t.same(shape(one('tenant delete acme')), { kind: 'tenant_op', op: 'delete', name: 'acme', snapshot: null })
  t.same(shape(one('tenant delete acme@before')), { kind: 'tenant_op', op: 'delete', name: 'acme', snapshot: 'before' })
  let refused: unknown
  try {
    parse('tenant suspend acme@before', 'statement')
  } catch (err) {
    refused = err
  }
  t.match(refused, { diagnostics: [{ code: 'syntax_error', message: /unexpected '@'/ }] }, 'only delete and fork take a snapshot')
  t.same(shape(one('tenant fork acme as acme_test')), { kind: 'tenant_op', op: 'fork', name: 'acme', snapshot: null, target: 'acme_test' })
  t.same(shape(one('tenant fork acme@before as t2')), { kind: 'tenant_op', op: 'fork', name: 'acme', snapshot: 'before', target: 't2' })
  t.same(shape(one('tenant snapshot acme as before')), { kind: 'tenant_op', op: 'snapshot', name: 'acme', target: 'before' })
})

t.test('modes decide what may stand at the top level', async (t) => {
  t.equal(one('collection a { id: int primary }').kind, 'collection_decl', "'query' parses declarations")
  t.equal(parse('tenant create a', 'statement').statements.length, 1)
  t.same(parse('', 'schema').statements, [])
  t.same(parse('# only a comment\n', 'schema').statements, [])

  const schemaErrors = diagnose('collection a {}\nusers | take 1\ninsert a {}\natomic {}\ntenant create x\nexplain a', 'schema')
  t.same(schemaErrors.map((d) => [d.code, d.line, d.message]), [
    ['not_allowed_here', 2, 'queries cannot appear in a schema file'],
    ['not_allowed_here', 3, 'writes cannot appear in a schema file'],
    ['not_allowed_here', 4, 'atomic blocks cannot appear in a schema file'],
    ['not_allowed_here', 5, 'tenant operations cannot appear in a schema file'],
    ['not_allowed_here', 6, 'queries cannot appear in a schema file'],
  ])
  const statementErrors = diagnose('dropped collection a', 'statement')
  t.same(statementErrors.map((d) => d.code), ['not_allowed_here'])
  t.throws(() => parse('users; orders'), EelError, "'query' takes exactly one statement")
  t.same(diagnose('users'), [])
})

t.test('errors are EelErrors carrying every diagnostic', async (t) => {
  try {
    parse('collection a { x: integer, y: int primary primary }', 'schema')
    t.fail('should throw')
  } catch (err) {
    if (!(err instanceof EelError)) throw err
    t.same(err.diagnostics.map((d) => d.message), ["unknown type 'integer'; expected int, float, string, bool, timestamp or json", "'primary' is given twice"])
    t.equal(err.diagnostic, err.diagnostics[0])
  }
  t.throws(() => parseExpression('1 +'), EelError)
  t.throws(() => parseExpression('"\\x"'), EelError)
})
