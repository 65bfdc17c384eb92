// The interactive shell of `tenantdb query` on a real pseudo-terminal (docs/operations.md,
// "The query shell"): statements and their tables, an atomic block typed over several
// lines, a pipeline continued after a trailing |, a diagnostic that leaves the shell
// running, the dot commands, tenant operations and switching tenant (reopened at that
// tenant's schema), Ctrl-C dropping a half-typed statement, and the history kept in
// TENANTDB_HISTORY (mode 0600) and recalled with the up arrow in the next session.
// Run `npm run build:ts` first: the command runs from dist/.
import { readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { Database } from '../src/database/index.js'
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
  after('staging> .tenant nobody\n', "unknown_tenant: tenant 'nobody' does not exist\n")
  after('staging> users | select name | sort name\n', 'name\nAda\nBo\nCy\nDi\n')
  after('staging> .format yaml\n', "--format must be one of table, json, csv, got 'yaml'\n")
  after('staging> .bogus\n', 'unknown command .bogus; .help lists them\n')
  after('staging> .help\n', 'Type an Eel statement and Enter;')

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
