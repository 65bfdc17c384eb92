// The parts of `tenantdb query` that are pure functions, checked directly over the
// cases a session rarely meets (docs/operations.md, "Querying from the command line"):
// the output formats (an empty result, a truncated one, line breaks and commas in
// cells, nested values, a tenant operation in each format), when the shell's input is
// a whole statement (brackets in strings, names and comments, a trailing |, an
// unclosed string), the caret under a diagnostic (tabs, a span past the line), and the
// history file (kept, capped, unwritable).
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { answeredError } from '../src/client/index.js'
import { StatementFailure } from '../src/cli/query-failure.js'
import { loadHistory, saveHistory } from '../src/cli/query-history.js'
import { statementComplete } from '../src/cli/query-input.js'
import { formatResult } from '../src/cli/query-output.js'
import { query_history_lines_max } from '../src/limits.js'
import { tempDir } from './helpers/temp-dir.js'

t.test('output formats', async (t) => {
  const rows = { columns: ['id', 'note', 'tags'], rows: [[1, 'a, "b"\nc', ['x', { y: null }]], [2, null, []]], stats: { elapsed_ms: 0, rows_examined: 2 } }
  t.equal(formatResult(rows, 'table'), 'id  note       tags\n--  ---------  ----------------\n1   a, "b"\\nc  ["x",{"y":null}]\n2   null       []\n(2 rows)\n', 'a table: line breaks shown as \\n, null, JSON for the rest')
  t.equal(formatResult(rows, 'csv'), 'id,note,tags\r\n1,"a, ""b""\nc","[""x"",{""y"":null}]"\r\n2,,[]\r\n', 'CSV: quoted when needed, null empty')
  t.equal(formatResult(rows, 'json'), `${JSON.stringify(rows)}\n`)
  t.equal(formatResult({ columns: ['n'], rows: [], stats: { elapsed_ms: 0, rows_examined: 0 } }, 'table'), 'n\n-\n(0 rows)\n', 'no rows')
  t.equal(formatResult({ columns: ['n'], rows: [[1]], truncated: true, lsn: 7 }, 'table'), 'n\n-\n1\n(1 row, truncated: more matched, lsn 7)\n')
  const op = { ok: true as const, message: 'created tenant acme' }
  t.equal(formatResult(op, 'table'), 'created tenant acme\n')
  t.equal(formatResult(op, 'json'), '{"ok":true,"message":"created tenant acme"}\n')
  t.equal(formatResult(op, 'csv'), 'ok,message\r\ntrue,created tenant acme\r\n')
})

t.test('a statement is whole once its brackets close and no | trails', async (t) => {
  const whole = ['users', 'users | count', 'atomic {\n  users | count;\n  orders | count\n}', 'insert t {a: "}{"}', 'insert t {a: "\\"{"}', '`odd {name` | count', 'users # a { comment\n', 'users | where name == "unclosed', 'users |\nwhere a > 1']
  const open = ['atomic {', 'insert t [1,\n2', 'users |', 'users |  \n', 'insert t {a: "}"', 'call q(a: 1,', 'users | where a in [1, "]"']
  for (const text of whole) t.ok(statementComplete(text), JSON.stringify(text))
  for (const text of open) t.notOk(statementComplete(text), JSON.stringify(text))
})

t.test('the caret stands under the place', async (t) => {
  const failure = new StatementFailure('syntax_error', "unexpected '='", { line: 2, column: 8, length: 1 }, 'use ==')
  t.equal(failure.render('users\n\t| age = 3'), "syntax_error at 2:8: unexpected '='\n  \t| age = 3\n  \t      ^\n  hint: use ==\n", 'a tab before it stays a tab')
  t.equal(new StatementFailure('unknown_field', 'x', { line: 1, column: 4, length: 50 }, undefined).render('abcdef'), 'unknown_field at 1:4: x\n  abcdef\n     ^^^\n', 'no wider than the line')
  t.equal(new StatementFailure('conflict', 'lost a race', undefined, undefined).render('x'), 'conflict: lost a race\n')
  const body = StatementFailure.fromRefusal(answeredError(400, { error: "1:19 unexpected '=' in where; expected '==' (use == to compare)", code: 'syntax_error', line: 1, column: 19, what: "unexpected '=' in where; expected '=='", hint: 'use == to compare' }))
  t.same([body.what, body.hint, body.at], ["unexpected '=' in where; expected '=='", 'use == to compare', { line: 1, column: 19, length: 1 }], 'a server\'s body: its what, hint and position fields')
  t.equal(StatementFailure.of(new Error('a bug')) instanceof StatementFailure, false, 'anything else is not a statement\'s failure')
})

t.test('the history file', async (t) => {
  const dir = tempDir(t)
  const file = join(dir, 'history')
  t.same(loadHistory({ TENANTDB_HISTORY: file }), { file, lines: [] }, 'none yet')
  t.same(loadHistory({ TENANTDB_HISTORY: '' }), { file: undefined, lines: [] }, 'empty: none kept')
  t.match(loadHistory({ HOME: dir }).file, /\.tenantdb_history$/, 'by default in the home directory')
  const history = loadHistory({ TENANTDB_HISTORY: file })
  saveHistory(history, ['newest', 'older'])
  t.equal(readFileSync(file, 'utf8'), 'older\nnewest\n', 'oldest first on disk')
  t.equal(statSync(file).mode & 0o777, 0o600)
  t.same(loadHistory({ TENANTDB_HISTORY: file }).lines, ['newest', 'older'], 'newest first for readline')
  writeFileSync(file, Array.from({ length: query_history_lines_max + 5 }, (_, i) => `line ${i}`).join('\n'))
  const capped = loadHistory({ TENANTDB_HISTORY: file }).lines
  t.equal(capped.length, query_history_lines_max)
  t.equal(capped[capped.length - 1], 'line 5', 'the oldest go first')
  mkdirSync(join(dir, 'a-directory'))
  const unwritable = loadHistory({ TENANTDB_HISTORY: join(dir, 'a-directory') })
  t.same(unwritable.lines, [], 'an unreadable history is empty')
  saveHistory(unwritable, ['x'])
  t.ok(statSync(join(dir, 'a-directory')).isDirectory(), 'and one that cannot be written is not kept, without an error')
  saveHistory({ file: undefined, lines: [] }, ['x'])
})
