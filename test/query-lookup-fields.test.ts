// Which fields of a lookup's rows, and of the scanned rows, a pipeline reads
// (src/query/plan/lookup-fields.ts): only those are decoded. Too few would drop a field a later stage reads, so every
// doubtful case must keep them all (null). That the rows are the same either way is
// test/query-lookup-batch.test.ts's (the batch path projects, the streaming path never).
import t from 'tap'
import { parse, type Stage } from '../src/lang/index.js'
import { lookupFieldsRead, rowFieldsRead } from '../src/query/plan/index.js'

function fieldsOf(text: string): string[] | null {
  const statement = parse(text).statements[0]
  if (statement?.kind !== 'pipeline') throw new Error(`not a pipeline: ${text}`)
  const stages: readonly Stage[] = statement.stages
  const at = stages.findIndex((s) => s.kind === 'lookup')
  const fields = lookupFieldsRead(stages, at)
  return fields === null ? null : [...fields].sort()
}

const cases: Array<[string, string[] | null]> = [
  ['posts | lookup a: users on author == id | select id, title, name: a.name', ['name']],
  ['posts | lookup a: users on author == id | where a.age > 3 | take 5 | select id, n: upper(a.name)', ['age', 'name']],
  ['posts | lookup a: users on author == id | select id, x: a.address.city, y: if(a.vip, 1, 0)', ['address', 'vip']],
  ['posts | lookup a: users on author == id | select id', []],
  ['posts | lookup a: users on author == id | lookup c: cities on a.city == id | select id, c: c.name', ['city']],
  ['posts | lookup a: users on author == id | skip 2 | select id, r: {n: a.name, l: [a.email]}', ['email', 'name']],
  // All of them: the column read whole, the rows going out whole, a stage that is not
  // a filter or a projection, the column replaced by a later lookup of the same name.
  ['posts | lookup a: users on author == id | select id, a', null],
  ['posts | lookup a: users on author == id | where a != null | select id, n: a.name', null],
  ['posts | lookup a: users on author == id', null],
  ['posts | lookup a: users on author == id | take 3', null],
  ['posts | lookup a: users on author == id | sort a.name | select id, n: a.name', null],
  ['posts | lookup a: users on author == id | count', null],
  ['posts | lookup a: users on author == id | lookup a: users on id == id | select id, n: a.name', null],
]

t.test('the fields a lookup decodes, or null for all of them', async (t) => {
  for (const [text, expected] of cases) t.same(fieldsOf(text), expected, text)
})

t.test('only a lookup stage is asked about', async (t) => {
  const statement = parse('posts | where id > 1').statements[0]
  if (statement?.kind !== 'pipeline') throw new Error('not a pipeline')
  t.throws(() => lookupFieldsRead(statement.stages, 0), /stage 0 is not a lookup/)
})

// The fields of the scanned rows a batch read decodes (rowFieldsRead).
function rowFieldsOf(text: string, nativeFirst = false): string[] | null {
  const statement = parse(text).statements[0]
  if (statement?.kind !== 'pipeline') throw new Error(`not a pipeline: ${text}`)
  const fields = rowFieldsRead(statement.stages, nativeFirst)
  return fields === null ? null : [...fields].sort()
}

const row_cases: Array<[string, boolean, string[] | null]> = [
  ['posts | select id, title', false, ['id', 'title']],
  ['posts | where views > 3 | skip 1 | take 5 | select id, t: upper(title)', false, ['id', 'title', 'views']],
  ['posts | lookup a: users on author == id | select id, title, name: a.name', false, ['author', 'id', 'title']],
  // Read natively, the lookup's left field is the storage core's business.
  ['posts | lookup a: users on author == id | select id, title, name: a.name', true, ['id', 'title']],
  ['posts | lookup a: users on author == id | where a.age > 3 and views > 1 | select id', true, ['id', 'views']],
  // A lookup's column shadows a field of the same name from the lookup on; before it, the field is read.
  ['posts | where a > 1 | lookup a: users on author == id | select id, n: a.name', false, ['a', 'author', 'id']],
  ['posts | lookup b: users on author == id | lookup c: users on b.boss == id | select id, c: c.name', false, ['author', 'id']],
  ['posts | select id, r: {n: title, l: [body, $p]}, k: 3', false, ['body', 'id', 'title']],
  // All of them: the rows going out whole, or a stage that is not a filter, a lookup or a projection.
  ['posts', false, null],
  ['posts | where views > 3', false, null],
  ['posts | lookup a: users on author == id', true, null],
  ['posts | sort title | select id', false, null],
  ['posts | count', false, null],
]

t.test('the fields of the scanned rows a batch read decodes, or null for all of them', async (t) => {
  for (const [text, native, expected] of row_cases) t.same(rowFieldsOf(text, native), expected, `${text}${native ? ' (native lookup)' : ''}`)
})
