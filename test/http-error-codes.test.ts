// One error family (docs/architecture.md, "Errors"; docs/api.md, "Errors"): every
// error class of src/ that can reach a user is a CodedError, and the HTTP layer answers
// each code through its one table (src/http/error-mapping.ts), never by class. Read from
// the sources: a new error class that is not a CodedError fails here unless it is one
// of the few internal signals listed below, each caught before anyone sees it.
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { LsnExpiredError, TailRequestError } from '../src/cdc/index.js'
import { ReplicationSetupError } from '../src/replication/index.js'
import { CodedError } from '../src/coded-error.js'
import { CodecError } from '../src/codec/index.js'
import { TokenError } from '../src/config/token.js'
import { BackupArchiveError, EngineError, NotPrimaryError, RestoreTargetError } from '../src/database/index.js'
import { answers, internal_message, mapError } from '../src/http/error-mapping.js'
import { error_statuses, HttpError, type ErrorCode } from '../src/http/errors.js'
import { EelError, parse } from '../src/lang/index.js'
import { ConflictError } from '../src/mvcc/index.js'
import { package_root } from '../src/package-root.js'
import { QueryError } from '../src/query/index.js'
import { SchemaReadError } from '../src/schema/load.js'
import { TenantError } from '../src/tenants/index.js'
import { UsageError } from '../src/cli/usage-error.js'
import { HeldError } from '../src/cli/held-error.js'
import { openExampleDatabase, startServer } from './helpers/http-server.js'

const src = join(package_root, 'src')

/** Error classes that never reach a user: each is caught where it is thrown, for the reason given. */
const internal_signals: Readonly<Record<string, string>> = {
  SlowConsumer: 'ends a WebSocket tail with close code 1013 (src/http/routes/tail-ws.ts)',
  DivergedError: 'makes a follower copy its directory afresh (src/replication/follower.ts)',
  StreamMessageError: 'makes a follower copy its directory afresh (src/replication/follower.ts)',
  StreamFencedError: 'tells a primary another one appended (src/replication/node.ts)',
  OpenerGoneError: 'a worker thread\'s forward found the opening thread gone: answered 503 shutting_down (src/http/threads/forward.ts)',
}

/** Every `class X extends Y` (`class X<T> extends Y` too) of src/, as X → Y. */
function errorClasses(): Map<string, string> {
  const classes = new Map<string, string>()
  for (const file of readdirSync(src, { recursive: true }) as string[]) {
    if (!file.endsWith('.ts')) continue
    const text = readFileSync(join(src, file), 'utf8')
    for (const m of text.matchAll(/\bclass (\w+)(?:<[^>{]*>)? extends (\w+)/g)) classes.set(m[1] as string, m[2] as string)
  }
  return classes
}

t.test('every error class of src/ is a CodedError, but for the internal signals', async (t) => {
  const classes = errorClasses()
  const isError = (name: string): boolean => name === 'Error' || (classes.has(name) && isError(classes.get(name) as string))
  const isCoded = (name: string): boolean => name === 'CodedError' || (classes.has(name) && isCoded(classes.get(name) as string))
  const errors = [...classes.keys()].filter(isError)
  t.ok(errors.length >= 20, `${errors.length} error classes found`)
  for (const name of errors) {
    if (name === 'CodedError') continue
    if (name in internal_signals) t.notOk(isCoded(name), `${name} is an internal signal: ${internal_signals[name]}`)
    else t.ok(isCoded(name), `${name} is a CodedError`)
  }
  for (const name of Object.keys(internal_signals)) t.ok(errors.includes(name), `${name} still exists`)
})

t.test('every code the table answers maps to a documented code, its status and a body with conflict', async (t) => {
  const api = readFileSync(join(package_root, 'docs', 'api.md'), 'utf8')
  const errors_section = api.slice(api.indexOf('## Errors'), api.indexOf('## Requests'))
  for (const code of Object.keys(error_statuses)) t.ok(errors_section.includes(`\`${code}\``), `docs/api.md, "Errors", documents ${code}`)
  for (const [code, answer] of Object.entries(answers)) {
    const mapped = mapError(new CodedError(code, `a ${code} sentence`), { failuresAre400: false })
    t.ok(Object.hasOwn(error_statuses, mapped.body.code), `${code}: answered as ${mapped.body.code}, a code of the catalogue`)
    t.equal(mapped.body.code, answer.code, `${code}: the table's code`)
    t.equal(mapped.status, error_statuses[mapped.body.code], `${code}: the status of ${mapped.body.code}`)
    t.equal(mapped.body.conflict, code === 'conflict', `${code}: conflict is ${code === 'conflict'}`)
    if (answer.say !== undefined) t.not(mapped.body.error, `a ${code} sentence`, `${code}: the client gets the table's sentence`)
    else t.equal(mapped.body.error, `a ${code} sentence`, `${code}: the error's own sentence`)
    const onQuery = mapError(new CodedError(code, 'x'), { failuresAre400: true })
    t.equal(onQuery.body.conflict, code === 'conflict', `${code}: the query route's body has conflict too`)
    t.ok(onQuery.status === 400 || onQuery.status === mapped.status, `${code}: the query route answers 400 or the code's own status`)
  }
  const unknown = mapError(new CodedError('usage', 'a CLI sentence'), { failuresAre400: false })
  t.same({ status: unknown.status, body: unknown.body, log: unknown.log }, { status: 500, body: { error: internal_message, code: 'internal', conflict: false }, log: true },
    'a code no client is meant to meet is a bug, its sentence not shown')
  const plain = mapError(new Error('a bug: secret detail'), { failuresAre400: false })
  t.same(plain.body, { error: internal_message, code: 'internal', conflict: false }, 'and so is an error outside the family')
})

t.test('every error class that can reach a user maps through its code', async (t) => {
  let eel: unknown
  try {
    parse('users | where age = 3')
  } catch (err) {
    eel = err
  }
  t.ok(eel instanceof EelError, 'the parser throws an EelError')
  const cases: Array<[CodedError, number, ErrorCode, Record<string, unknown>]> = [
    [eel as EelError, 400, 'syntax_error', { line: 1, column: 19 }],
    [new QueryError('constraint_violation', 'taken', { fields: ['email'] }), 400, 'constraint_violation', { fields: ['email'] }],
    [new TenantError('unknown_tenant', 'none'), 404, 'unknown_tenant', {}],
    [new HttpError('forbidden', 'no'), 403, 'forbidden', {}],
    [new ConflictError('users/1'), 409, 'conflict', { conflict: true }],
    [new NotPrimaryError('a follower', { primary: 'http://p', follower: true }), 421, 'not_primary', { primary: 'http://p', outcome: 'not_written' }],
    [new NotPrimaryError('no lease', { primary: null, follower: false }), 503, 'not_primary', { primary: null, outcome: 'not_written' }],
    [new LsnExpiredError(3, 9), 410, 'lsn_expired', { oldest_lsn: 9 }],
    [new TailRequestError('bad after'), 400, 'bad_request', {}],
    [new EngineError('corrupted', 'page 7 of pages', { file: 'pages', page: 7 }), 500, 'storage_error', {}],
    [new EngineError('closed', 'closed'), 503, 'shutting_down', {}],
    [new EngineError('not_primary', 'a follower'), 421, 'not_primary', { primary: null, outcome: 'not_written' }],
    [new EngineError('storage_full', 'ENOSPC'), 507, 'storage_full', {}],
    [new EngineError('outcome_unknown', 'fsync'), 503, 'storage_unavailable', { outcome: 'unknown' }],
    [new EngineError('fail_stopped', 'stopped'), 503, 'storage_unavailable', { outcome: 'not_written' }],
    [new EngineError('internal', 'a panic'), 500, 'internal', {}],
    [new EngineError('io', 'EIO'), 500, 'internal', {}],
    [new CodecError('NaN is not a storable value'), 500, 'internal', {}],
    // Errors of the CLI and of starting a server: none is an HTTP answer, so any that
    // reached a request would be a bug there.
    [new UsageError('--port needs a number'), 500, 'internal', {}],
    [new HeldError('the port is in use'), 500, 'internal', {}],
    [new TokenError('--token must be printable'), 500, 'internal', {}],
    [new SchemaReadError('x.eel', new Error('ENOENT')), 500, 'internal', {}],
    [new ReplicationSetupError('another cluster'), 500, 'internal', {}],
    [new RestoreTargetError('restore_target_not_empty', 'not empty'), 500, 'internal', {}],
    [new BackupArchiveError('archive_damaged', 'damaged'), 500, 'internal', {}],
  ]
  for (const [err, status, code, fields] of cases) {
    t.type(err.code, 'string', `${err.name} has a code`)
    const mapped = mapError(err, { failuresAre400: false })
    t.equal(mapped.status, status, `${err.name} ${err.code}: ${status}`)
    t.match(mapped.body, { code, conflict: code === 'conflict', ...fields }, `${err.name} ${err.code}: the body`)
  }
  t.notOk('page' in (mapError(cases[9]?.[0], { failuresAre400: false }).body), 'an engine error\'s file and page stay out of the body')
})

t.test('a refused origin on the query route answers 403 with conflict: false', async (t) => {
  const token = 'error-codes-token-0123456789'
  const db = await openExampleDatabase(t)
  const { origin } = await startServer(t, { token, db })
  for (const headers of [{ origin: 'http://evil.example' }, { 'sec-fetch-site': 'cross-site' }]) {
    const res = await fetch(`${origin}/api/v1/t/default/query`, { method: 'POST', headers: { authorization: `Bearer ${token}`, ...headers }, body: 'users' })
    t.equal(res.status, 403, JSON.stringify(headers))
    t.match(await res.json(), { code: 'origin_not_allowed', conflict: false }, JSON.stringify(headers))
  }
})
