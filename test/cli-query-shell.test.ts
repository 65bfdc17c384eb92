// The interactive shell of `tenantdb query` on a real pseudo-terminal (docs/operations.md,
// "The query shell"): statements and their tables, an atomic block typed over several
// lines, a pipeline continued after a trailing |, a diagnostic that leaves the shell
// running, the dot commands, tenant operations and switching tenant (reopened at that
// tenant's schema), Ctrl-C dropping a half-typed statement, and the history kept in
// TENANTDB_HISTORY (mode 0600) and recalled with the up arrow in the next session; the
// same against a running server (--url), and `.schema` with schema files.
// Run `npm run build:ts` first: the command runs from dist/.
import { readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { Database } from '../src/database/index.js'
import { spawnCli } from './helpers/spawn-cli.js'
import { screenLines, terminalSession } from './helpers/terminal.js'
import { tempDir } from './helpers/temp-dir.js'

const up = '\x1b[A'
const ctrl_c = '\x03'

t.test('a session in the shell', async (t) => {
  const root = tempDir(t)
  const dir = join(root, 'db')
  const db = await Database.open(dir, { schema: ['examples/schema.eel'] })
  await db.tenant('default').query('insert users [{id: 1, email: "ada@example.com", name: "Ada", age: 36}, {id: 2, email: "bo@example.com", name: "Bo", age: 25}]')
  await db.close()
  const history = join(root, 'history')
  const typed = [
    'users | count',
    'atomic {',
    '  insert users {id: 3, email: "cy@example.com", name: "Cy"};',
    '  users | count',
    '}',
    'users |',
    'where age > 30 | select name',
    'users | where age = 30',
    'atomic {',
    ctrl_c,
    'users | select email | sort email | take 1',
    '.tenants',
    '.collections',
    '.schema',
    'tenant fork default as staging',
    '.tenant staging',
    'insert users {id: 4, email: "di@example.com", name: "Di"}',
    '.tenant',
    '.tenant nobody',
    '.format csv',
    'users | select name | sort name',
    '.format yaml',
    'tenant suspend staging',
    '.collections',
    'tenant resume staging',
    '.bogus',
    '.help',
  ]
  const session = terminalSession(t, ['query', dir], { TENANTDB_HISTORY: history })
  await session.waitFor(/default> $/)
  for (const line of typed) await session.type(line === ctrl_c ? line : `${line}\r`)
  session.send('.exit\r')
  t.equal(await session.exited, 0, 'exit 0 after .exit')
  const screen = screenLines(session.output()).join('\n')
  const after = (prompt: string, rest: string) => t.match(screen, `${prompt}${rest}`, prompt + (rest.split('\n')[0] ?? ''))
  t.match(screen, new RegExp(`^tenantdb \\d+\\.\\d+\\.\\d+ query: ${dir}, tenant default\\. \\.help for help, \\.exit to leave\\.\\n`), 'the greeting')
  after('default> users | count\n', 'count\n-----\n2\n(1 row)\n')
  after('    ...> }\n', 'count\n-----\n3\n(1 row, lsn ')
  after('    ...> where age > 30 | select name\n', 'name\n----\nAda\n(1 row)\n')
  after('default> users | where age = 30\n', "syntax_error at 1:19: unexpected '=' in where; expected '=='\n  users | where age = 30\n                    ^\n  hint: use == to compare, : to name a field\n")
  // After Ctrl-C the prompt is the first line's again: the block being typed was dropped.
  after('default> users | select email | sort email | take 1\n', 'email\n---------------\nada@example.com\n(1 row)\n')
  after('default> .tenants\n', 'name     state   parent\n-------  ------  ------\ndefault  active\n')
  after('default> .collections\n', 'name    rows  indexes\n------  ----  ---------------------\norders  0     user\nusers   3     email, status_created\n')
  t.match(screen, /default> \.schema\n# tenant default: the schema it was last migrated to \([0-9a-f]{16}\); nothing is migrated \(--schema FILE to migrate\)\ncollection orders \{\n/, '.schema')
  after('default> tenant fork default as staging\n', 'forked default into staging\n')
  after('staging> insert users', ' {id: 4, email: "di@example.com", name: "Di"}\naffected\n--------\n1\n')
  after('staging> .tenant\n', 'staging\n')
  after('staging> .tenant nobody\n', "unknown_tenant: no tenant named 'nobody'\n")
  after('staging> users | select name | sort name\n', 'name\nAda\nBo\nCy\nDi\n')
  after('staging> .format yaml\n', "--format must be one of table, json, csv, got 'yaml'\n")
  after('staging> .bogus\n', 'unknown command .bogus; .help lists them\n')
  after('staging> .help\n', 'Type an Eel statement and Enter;')
  t.match(screen, /staging> \.collections\ntenant_suspended: [^\n]+\nstaging> /, 'a failing dot command prints its error and the shell goes on')

  const kept = readFileSync(history, 'utf8').split('\n')
  t.equal(statSync(history).mode & 0o777, 0o600, 'the history file is its owner\'s only')
  t.same(kept.slice(-3), ['.help', '.exit', ''], 'the lines typed, oldest first')
  t.notOk(kept.includes(ctrl_c), 'a key, not a line')
  t.ok(kept.includes('users | select name | sort name'))

  // The next session: the up arrow recalls the last session's lines, newest first (.exit, .help, .bogus).
  const again = terminalSession(t, ['query', dir, '--tenant', 'staging'], { TENANTDB_HISTORY: history })
  await again.waitFor(/staging> $/)
  await again.type(`${up}${up}${up}\r`)
  again.send('.exit\r')
  t.equal(await again.exited, 0, 'exit 0')
  t.match(screenLines(again.output()).join('\n'), /staging> \.bogus\nunknown command \.bogus/, 'the history of the last session, recalled')

  const last = terminalSession(t, ['query', dir, '--tenant', 'staging'], { TENANTDB_HISTORY: '' })
  await last.waitFor(/staging> $/)
  await last.type('users | count\r')
  last.send('\x04')
  t.equal(await last.exited, 0, 'Ctrl-D leaves')
  t.match(screenLines(last.output()).join('\n'), /count\n-----\n4\n/)
})

t.test('the shell against a running server, and with schema files', async (t) => {
  const root = tempDir(t)
  const dir = join(root, 'db')
  const token = 'shell-remote-token-0123456789abcdef'
  const server = spawnCli(t, ['serve', '--dir', dir, '--port', '0', '--schema', 'examples/schema.eel', '--token', token])
  const [, url] = await server.waitFor(/url: (http:\/\/127\.0\.0\.1:\d+\/api\/v1)\n/)
  const session = terminalSession(t, ['query', '--url', url as string], { SERVICE_TOKEN: token, TENANTDB_HISTORY: '' })
  await session.waitFor(/default> $/)
  for (const line of ['tenant create acme\r', '.tenant acme\r', 'insert users {id: 1, email: "a@acme.test", name: "A"}\r', '.tenants\r', '.collections\r', '.schema\r', '.tenant nobody\r', ctrl_c, 'users | get 1 | select name\r']) await session.type(line)
  session.send('.exit\r')
  t.equal(await session.exited, 0, 'exit 0')
  const screen = screenLines(session.output()).join('\n')
  t.match(screen, `tenantdb 0.1.0 query: ${url as string}, tenant default.`, 'the greeting names the server')
  t.match(screen, 'default> tenant create acme\ncreated tenant acme\n')
  t.match(screen, 'acme> .tenants\nname     state   parent\n-------  ------  ------\nacme     active\ndefault  active\n', 'through GET /tenants')
  t.match(screen, 'acme> .collections\nname    rows  indexes\n------  ----  ---------------------\norders  0     user\nusers   1     email, status_created\n')
  t.match(screen, 'acme> .schema\n# file: schema.eel\n# An example schema', 'the server\'s schema files')
  t.match(screen, "acme> .tenant nobody\nunknown_tenant: no tenant named 'nobody'\n", 'the same words as from a directory')
  t.match(screen, 'acme> ^C\n(.exit or Ctrl-D to leave)\nacme> users | get 1 | select name\nname\n----\nA\n', 'Ctrl-C on an empty line says how to leave')
  server.child.kill('SIGTERM')
  t.equal(await server.exited, 0)

  const local = terminalSession(t, ['query', dir, '--schema', 'examples/schema.eel', '--tenant', 'acme'], { TENANTDB_HISTORY: '' })
  await local.waitFor(/acme> $/)
  await local.type('.schema\r')
  local.send('.exit\r')
  t.equal(await local.exited, 0)
  t.match(screenLines(local.output()).join('\n'), 'acme> .schema\n# file: schema.eel\n# An example schema', 'with --schema, the files given')

  const nowhere = terminalSession(t, ['query', '--url', 'http://127.0.0.1:1', '--token', token], { TENANTDB_HISTORY: '' })
  await nowhere.waitFor(/default> $/)
  await nowhere.type('.tenants\r')
  await nowhere.type('users | count\r')
  nowhere.send('.exit\r')
  t.equal(await nowhere.exited, 0)
  t.match(screenLines(nowhere.output()).join('\n'), /default> \.tenants\ncannot reach http:\/\/127\.0\.0\.1:1\/api\/v1 \([^\n]*\); is the server running\?\ndefault> users \| count\ncannot reach /, 'a server that cannot be reached: said, and the shell goes on')

  const bare = spawnCli(t, ['serve', '--dir', join(root, 'bare'), '--port', '0', '--token', token])
  const [, bareUrl] = await bare.waitFor(/url: (http:\/\/127\.0\.0\.1:\d+\/api\/v1)\n/)
  const none = terminalSession(t, ['query', '--url', bareUrl as string, '--token', token], { TENANTDB_HISTORY: '' })
  await none.waitFor(/default> $/)
  await none.type('.schema\r')
  none.send('.exit\r')
  t.equal(await none.exited, 0)
  t.match(screenLines(none.output()).join('\n'), 'default> .schema\n# the server was started without schema files: tenants have no collections\n')
  bare.child.kill('SIGTERM')
  t.equal(await bare.exited, 0)
})
