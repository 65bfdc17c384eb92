// `tenantdb query DIR --schema FILE` on a new directory (docs/operations.md, "Querying
// from the command line"): an absent or empty DIR is created with the schema, one line
// on stderr says so, and the statement runs; the next run reads what it wrote. Without
// --schema a new directory is refused as before and nothing is created; a bad schema
// file is a clear error and leaves no directory, no half of a database and no staging
// sibling behind; a directory that is neither new nor a database is refused, untouched.
// Run `npm run build:ts` first: the command runs from dist/.
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import t from 'tap'
import { cli_path } from './helpers/spawn-cli.js'
import { tempDir } from './helpers/temp-dir.js'

const schema = resolve('examples/schema.eel')

/** `tenantdb ARGS`, stdin empty and piped, none of the query's variables set unless given. */
function run(args: string[], env: NodeJS.ProcessEnv = {}) {
  const done = spawnSync(process.execPath, [cli_path, ...args], {
    input: '', encoding: 'utf8', env: { ...process.env, SERVICE_TOKEN: '', TENANTDB_URL: '', TENANTDB_TENANT: '', TENANTDB_SCHEMA: '', ...env },
  })
  return { status: done.status, stdout: done.stdout, stderr: done.stderr }
}

const insert = 'insert users [{id: 1, email: "ada@example.com", name: "Ada"}, {id: 2, email: "bo@example.com", name: "Bo"}]'
const refusal = (dir: string) => `tenantdb: ${dir} is not a tenantdb database directory (it has no 'pages' file)\n`

t.test('an absent directory with --schema is created, said on stderr, and queried', async (t) => {
  const dir = join(tempDir(t), 'new.db')
  const created = run(['query', dir, '--schema', schema, insert])
  t.equal(created.status, 0, created.stderr)
  t.equal(created.stderr, `tenantdb: created a database in ${dir} with the schema ${schema}\n`, 'one line naming the directory and the schema')
  t.same(JSON.parse(created.stdout).rows, [[2]], 'then the statement ran: two rows written')
  t.ok(existsSync(join(dir, 'pages')), 'a database directory')

  const read = run(['query', dir, 'users | sort id | select name'])
  t.equal(read.status, 0, read.stderr)
  t.same(JSON.parse(read.stdout).rows, [['Ada'], ['Bo']], 'the next run, without --schema, reads what it wrote')
  t.equal(read.stderr, '')
  const again = run(['query', dir, '--schema', schema, 'users | count'])
  t.equal(again.status, 0, again.stderr)
  t.equal(again.stderr, '', 'an existing database is opened, not created: no line')
  t.same(JSON.parse(again.stdout).rows, [[2]])
  t.same(readdirSync(resolve(dir, '..')), ['new.db'], 'nothing beside it (no staging directory left)')
})

t.test('an empty directory, and TENANTDB_SCHEMA, create as --schema does', async (t) => {
  const dir = tempDir(t)
  const created = run(['query', dir, 'users | count'], { TENANTDB_SCHEMA: schema })
  t.equal(created.status, 0, created.stderr)
  t.equal(created.stderr, `tenantdb: created a database in ${dir} with the schema ${schema}\n`)
  t.same(JSON.parse(created.stdout).rows, [[0]], 'the schema\'s collections exist, empty')
  t.ok(existsSync(join(dir, 'pages')))
  const orders = run(['query', dir, '--format', 'csv', 'orders | count'])
  t.equal(orders.stdout, 'count\r\n0\r\n', 'the default tenant was migrated to the schema')
})

t.test('without --schema a new directory is refused as before, and nothing is created', async (t) => {
  const parent = tempDir(t)
  const dir = join(parent, 'typo.db')
  const absent = run(['query', dir, 'users | count'])
  t.equal(absent.status, 1)
  t.equal(absent.stderr, refusal(dir), "today's message")
  t.equal(absent.stdout, '')
  t.notOk(existsSync(dir), 'no directory left behind')
  t.same(readdirSync(parent), [])

  const empty = tempDir(t)
  const refused = run(['query', empty, 'users | count'])
  t.equal(refused.status, 1)
  t.equal(refused.stderr, refusal(empty))
  t.same(readdirSync(empty), [], 'an empty directory stays empty')
})

t.test('a bad schema file is a clear error and leaves no database, whole or half', async (t) => {
  const parent = tempDir(t)
  const bad = join(parent, 'bad.eel')
  writeFileSync(bad, 'collection users { id: int primary,\n')
  const dir = join(parent, 'new.db')
  const invalid = run(['query', dir, '--schema', bad, 'users | count'])
  t.equal(invalid.status, 2, 'a usage mistake')
  t.match(invalid.stderr, /^tenantdb: bad\.eel:2:1 unexpected end of input in collection users; expected .*\n\nusage: tenantdb query DIR/, 'the schema diagnostic, with its file, line and column')
  t.equal(invalid.stdout, '')
  const unreadable = run(['query', dir, '--schema', join(parent, 'nope.eel'), 'users | count'])
  t.equal(unreadable.status, 2)
  t.match(unreadable.stderr, /^tenantdb: cannot read schema file .*nope\.eel: ENOENT/)
  t.same(readdirSync(parent), ['bad.eel'], 'no directory created, no staging directory beside it')

  const empty = join(parent, 'empty.db')
  mkdirSync(empty)
  const into = run(['query', empty, '--schema', bad, 'users | count'])
  t.equal(into.status, 2)
  t.same(readdirSync(empty), [], 'an empty directory stays empty')
  t.same(readdirSync(parent).sort(), ['bad.eel', 'empty.db'])
})

t.test('a directory that is neither new nor a database is refused with --schema too', async (t) => {
  const dir = tempDir(t)
  writeFileSync(join(dir, 'notes.txt'), 'mine\n')
  const refused = run(['query', dir, '--schema', schema, 'users | count'])
  t.equal(refused.status, 1)
  t.equal(refused.stderr, refusal(dir))
  t.same(readdirSync(dir), ['notes.txt'], 'untouched')
})
