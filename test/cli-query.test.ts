// The real `tenantdb query` (docs/operations.md, "Querying from the command line"): one
// statement embedded, from an argument, from stdin with `-` and from piped stdin, as
// JSON, CSV or a table; parameters; tenant operations; a diagnostic with its caret on
// stderr and exit 1; without --schema the tenant's applied schema and no migration,
// with --schema its lazy migration; a directory a server holds refused with exit 2
// naming --url; the same statements against the running server with --url (and
// TENANTDB_URL, where a lone argument is the statement), tenant operations through the
// ops route; usage mistakes. Run `npm run build:ts` first: the command runs from dist/.
import { spawnSync } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { Database } from '../src/database/index.js'
import { cli_path, spawnCli } from './helpers/spawn-cli.js'
import { onTerminal, screenLines } from './helpers/terminal.js'
import { tempDir } from './helpers/temp-dir.js'

const token = 'cli-query-token-0123456789abcdef'

/** `tenantdb ARGS` with stdin `input` (piped, not a terminal). */
function run(args: string[], input = '', env: NodeJS.ProcessEnv = {}) {
  const done = spawnSync(process.execPath, [cli_path, ...args], {
    input, encoding: 'utf8', env: { ...process.env, SERVICE_TOKEN: '', TENANTDB_URL: '', TENANTDB_TENANT: '', TENANTDB_SCHEMA: '', ...env },
  })
  return { status: done.status, stdout: done.stdout, stderr: done.stderr }
}

/** A database with two users, made with the example schema. */
async function example(t: Test): Promise<string> {
  const dir = join(tempDir(t), 'db')
  const db = await Database.open(dir, { schema: ['examples/schema.eel'] })
  await db.tenant('default').query('insert users [{id: 1, email: "ada@example.com", name: "Ada", age: 36}, {id: 2, email: "bo@example.com", name: "Bo", age: 25, tags: ["x"]}]')
  await db.close()
  return dir
}

const syntax_error = `tenantdb: syntax_error at 2:13: unexpected '=' in where; expected '=='
  | where age = 30
              ^
  hint: use == to compare, : to name a field
`

t.test('one statement against a directory, embedded', async (t) => {
  const dir = await example(t)
  const json = run(['query', dir, 'users | select name, email | sort name'])
  t.equal(json.status, 0, json.stderr)
  const result = JSON.parse(json.stdout) as { columns: string[]; rows: unknown[][]; plan: unknown }
  t.same({ columns: result.columns, rows: result.rows }, { columns: ['name', 'email'], rows: [['Ada', 'ada@example.com'], ['Bo', 'bo@example.com']] }, 'JSON when stdout is not a terminal: the result as the HTTP API answers it')
  t.ok(result.plan !== undefined)

  t.equal(run(['query', dir, '--format', 'csv', 'users | select id, name, tags | sort id']).stdout, 'id,name,tags\r\n1,Ada,[]\r\n2,Bo,"[""x""]"\r\n', 'CSV')
  t.equal(run(['query', dir, '--format', 'table', 'users | select id, name, tags | sort id']).stdout, 'id  name  tags\n--  ----  -----\n1   Ada   []\n2   Bo    ["x"]\n(2 rows)\n', 'a table')

  const fromStdin = run(['query', dir, '-'], 'users\n| where age > $min\n| select name')
  t.equal(fromStdin.status, 1, 'a parameter not given is an error')
  const withParams = run(['query', dir, '--params', '{"min": 30}', '-'], 'users\n| where age > $min\n| select name')
  t.same(JSON.parse(withParams.stdout).rows, [['Ada']], '- reads the statement from stdin, --params gives $min')
  const piped = run(['query', dir], 'users | count')
  t.same(JSON.parse(piped.stdout).rows, [[2]], 'no statement and stdin piped: the statement is read from it')

  const failed = run(['query', dir, 'users\n| where age = 30'])
  t.equal(failed.status, 1)
  t.equal(failed.stderr, syntax_error, 'the diagnostic: code, line and column, the line with a caret, the hint')
  t.equal(failed.stdout, '')
  const duplicate = run(['query', dir, 'insert users {id: 1, email: "x@example.com", name: "X"}'])
  t.equal(duplicate.status, 1)
  t.match(duplicate.stderr, /^tenantdb: constraint_violation: .*\n$/, 'other errors: their code and sentence')

  const write = run(['query', dir, '--format', 'table', 'insert users {id: 3, email: "cy@example.com", name: "Cy"}'])
  t.match(write.stdout, /^affected\n--------\n1\n\(1 row, lsn \d+\)\n$/, 'a write shows its LSN')
  const forked = run(['query', dir, 'tenant fork default as staging'])
  t.same(JSON.parse(forked.stdout), { ok: true, message: 'forked default into staging' }, 'a tenant operation')
  t.match(run(['query', dir, '--format', 'table', 'tenant snapshot staging as before']).stdout, /^snapshot before of staging at lsn \d+\n$/, 'a table shows its message')
  t.same(JSON.parse(run(['query', dir, '--tenant', 'staging', 'users | count']).stdout).rows, [[3]], '--tenant')
  t.same(JSON.parse(run(['query', dir, 'users | count'], '', { TENANTDB_TENANT: 'staging' }).stdout).rows, [[3]], 'TENANTDB_TENANT')
  t.same(JSON.parse(run(['query', dir, '--tenant', 'default', 'users | count'], '', { TENANTDB_TENANT: 'staging' }).stdout).rows, [[3]], 'the flag wins')
  const missing = run(['query', dir, '--tenant', 'nobody', 'users | count'])
  t.equal(missing.status, 1)
  t.match(missing.stderr, /^tenantdb: unknown_tenant: /)
})

t.test('without --schema nothing migrates; with --schema the tenant migrates lazily', async (t) => {
  const dir = await example(t)
  const v2 = join(tempDir(t), 'v2.eel')
  writeFileSync(v2, 'collection users { id: int primary, email: string unique, name: string, age: int?, nickname: string?,\n' +
    '  status: string = "active", tags: [string] = [], created: timestamp = now(), index (status, created) }\n' +
    'collection orders { id: int primary, user: int, amount: float, status: string = "open", index (user) }\n')
  const before = run(['query', dir, 'users | select nickname'])
  t.equal(before.status, 1, 'the applied schema has no nickname')
  t.match(before.stderr, /^tenantdb: unknown_field at 1:16: unknown field 'nickname' in 'users'\n  users \| select nickname\n {17}\^{8}\n$/, 'the caret under the whole name')
  const migrated = run(['query', dir, '--schema', v2, 'users | sort id | select nickname'])
  t.equal(migrated.status, 0, migrated.stderr)
  t.same(JSON.parse(migrated.stdout).rows, [[null], [null]], 'migrated to the schema file')
  t.same(JSON.parse(run(['query', dir, 'users | select nickname | take 1']).stdout).rows, [[null]], 'and the next run without --schema sees what it was migrated to')
  const viaEnv = run(['query', dir, 'users | select nickname | take 1'], '', { TENANTDB_SCHEMA: `${v2}:` })
  t.equal(viaEnv.status, 0, `TENANTDB_SCHEMA: ${viaEnv.stderr}`)
  const bad = run(['query', dir, '--schema', join(dir, 'nope.eel'), 'users | count'])
  t.equal(bad.status, 2)
  t.match(bad.stderr, /cannot read schema file .*nope\.eel/)
})

t.test('a directory a server holds is refused, and the server is queried with --url', async (t) => {
  const dir = await example(t)
  const embedded = run(['query', dir, 'users\n| where age = 30'])
  const server = spawnCli(t, ['serve', '--dir', dir, '--port', '0', '--schema', 'examples/schema.eel', '--token', token])
  const [, url] = await server.waitFor(/url: (http:\/\/127\.0\.0\.1:\d+\/api\/v1)\n/)
  const origin = (url as string).replace(/\/api\/v1$/, '')

  const locked = run(['query', dir, 'users | count'])
  t.equal(locked.status, 2, 'exit 2')
  t.match(locked.stderr, /is locked by another process \(is a server running on it\?\); to query the server that holds it: tenantdb query --url URL/)

  const count = run(['query', '--url', url as string, '--token', token, 'users | count'])
  t.equal(count.status, 0, count.stderr)
  t.same(JSON.parse(count.stdout).rows, [[2]], 'the printed URL')
  const viaEnv = run(['query', 'users | where age > $a | select name', '--params', '{"a": 30}'], '', { TENANTDB_URL: origin, SERVICE_TOKEN: token })
  t.same(JSON.parse(viaEnv.stdout).rows, [['Ada']], 'TENANTDB_URL (the bare origin) and SERVICE_TOKEN: a lone argument is the statement')
  const fromStdin = run(['query', '--url', origin, '--token', token, '--format', 'csv', '-'], 'users | select name | sort name')
  t.equal(fromStdin.stdout, 'name\r\nAda\r\nBo\r\n')

  const forked = run(['query', '--url', origin, '--token', token, 'tenant fork default as staging'])
  t.same(JSON.parse(forked.stdout), { ok: true, message: 'forked default into staging' }, 'a tenant operation goes to the ops route')
  t.same(JSON.parse(run(['query', '--url', origin, '--token', token, '--tenant', 'staging', 'insert users {id: 9, email: "z@example.com", name: "Z"}']).stdout).rows, [[1]])
  t.match(run(['query', '--url', origin, '--token', token, '--format', 'table', 'tenant compact staging']).stdout,
    /^compacted: 2 collections, 3 rows, \d+ pages in \d+ ms; page file \d+ → \d+ bytes\n$/, 'compact, on its own tenant')

  const remote = run(['query', '--url', origin, '--token', token, 'users\n| where age = 30'])
  t.equal(remote.status, 1)
  t.equal(remote.stderr, embedded.stderr, 'a diagnostic from the server prints as one from the directory')
  t.equal(remote.stderr, syntax_error)
  const exists = run(['query', '--url', origin, '--token', token, 'tenant create staging'])
  t.equal(exists.status, 1)
  t.match(exists.stderr, /^tenantdb: tenant_exists: tenant 'staging' exists\n$/)
  const refused = run(['query', '--url', origin, '--token', 'wrong-token', 'users | count'])
  t.equal(refused.status, 1)
  t.match(refused.stderr, /^tenantdb: unauthorized: missing or invalid token\n$/)

  server.child.kill('SIGTERM')
  t.equal(await server.exited, 0)
  const gone = run(['query', '--url', origin, '--token', token, 'users | count'])
  t.equal(gone.status, 1)
  t.match(gone.stderr, /^tenantdb: cannot reach http:\/\/127\.0\.0\.1:\d+\/api\/v1 \(.*\); is the server running\?\n$/)
})

t.test('on a terminal a table, piped JSON', async (t) => {
  const dir = await example(t)
  const shown = onTerminal(['query', dir, 'users | select name | sort name'])
  t.equal(shown.status, 0, shown.output)
  t.same(screenLines(shown.output).filter((l) => l !== ''), ['name', '----', 'Ada', 'Bo', '(2 rows)'])
  const json = onTerminal(['query', dir, '--format', 'json', 'users | count'])
  t.match(json.output, /^\{"columns":\["count"\],"rows":\[\[2\]\]/, '--format wins')
})

t.test('usage mistakes are exit 2 with the query usage', async (t) => {
  const dir = await example(t)
  const cases: Array<[string[], RegExp, NodeJS.ProcessEnv?]> = [
    [['query'], /missing DIR \(or --url\)/],
    [['query', dir, 'users', 'extra'], /too many arguments \(quote the statement as one argument\)/],
    [['query', '--url', 'http://127.0.0.1:1', '--token', token, 'a', 'b'], /too many arguments/],
    [['query', dir, '--params', '[1]', 'users'], /--params must be a JSON object/],
    [['query', dir, '--params', '{bad', 'users'], /--params must be a JSON object, like '\{"min": 30\}': /],
    [['query', dir, '--format', 'xml', 'users'], /--format must be one of table, json, csv, got 'xml'/],
    [['query', '--url', 'http://127.0.0.1:1', '--token', token, '--schema', 'x.eel', 'users'], /--schema goes with DIR/],
    [['query', dir, '--token', token, 'users'], /--token goes with --url/],
    [['query', '--url', 'http://127.0.0.1:1', 'users'], /--url needs the service token/],
    [['query', '--url', 'ftp://x', '--token', token, 'users'], /is not an http:\/\/ or https:\/\/ URL/],
    [['query', dir, '--tenant', 'Not A Name', 'users'], /--tenant: tenant names are 1 to 63 of a-z/],
    [['query', dir, '-'], /no statement: give one as an argument, or on stdin with -/],
    [['query', dir, '--bogus', 'users'], /Unknown option '--bogus'/],
  ]
  for (const [args, message] of cases) {
    const done = run(args)
    t.equal(done.status, 2, args.join(' '))
    t.match(done.stderr, message)
    t.match(done.stderr, /usage: tenantdb query DIR/, 'with the query command\'s usage')
  }
  const notDb = run(['query', tempDir(t), 'users | count'])
  t.equal(notDb.status, 1)
  t.match(notDb.stderr, /is not a tenantdb database directory/, 'nothing is created where there is no database')
})

t.test('a peer that answers something else than tenantdb', async (t) => {
  const peer = createServer((_req, res) => {
    res.writeHead(502, { 'content-type': 'text/plain' })
    res.end('bad gateway from a proxy')
  })
  await new Promise<void>((resolve) => peer.listen(0, '127.0.0.1', resolve))
  t.teardown(() => peer.close())
  const { port } = peer.address() as AddressInfo
  const run = spawnCli(t, ['query', '--url', `http://127.0.0.1:${port}`, '--token', token, 'users | count'])
  t.equal(await run.exited, 1)
  t.equal(run.stderr(), 'tenantdb: http_502: bad gateway from a proxy\n', 'its status and text, as they came')
})
