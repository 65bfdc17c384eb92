// The command line as people expect it (docs/operations.md, "Flags and environment
// variables"): `--help` and `-h` on every command print that command's own usage (and
// `tenantdb help CMD` the same), every flag of serve also from its environment
// variable with the flag winning, `serve` without a schema warning once on stderr, and
// a port in use failing before the directory is created. Run `npm run build:ts` first:
// the commands run from dist/.
import { existsSync, writeFileSync } from 'node:fs'
import { get as httpGet } from 'node:http'
import { createServer } from 'node:net'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import t from 'tap'
import { parseServeOptions } from '../src/cli/serve-options.js'
import { command_help, overview } from '../src/cli/usage.js'
import { spawnCli } from './helpers/spawn-cli.js'
import { tempDir } from './helpers/temp-dir.js'

t.test('--help, -h and help CMD print the command\'s own usage', async (t) => {
  const commands = Object.keys(command_help)
  t.same(commands, ['serve', 'query', 'compact', 'verify', 'repair', 'backup', 'restore', 'token', 'bench'], 'every command has its text')
  const runs = commands.flatMap((command) => [[command, '--help'], [command, '-h'], ['help', command], [command, 'some-dir', '--help']].map((args) => ({ command, args, run: spawnCli(t, args) })))
  for (const { command, args, run } of runs) {
    t.equal(await run.exited, 0, args.join(' '))
    t.equal(run.stdout(), command_help[command]?.text, `${args.join(' ')}: that command's usage`)
    t.match(run.stdout(), new RegExp(`^usage: tenantdb ${command} `), `${args.join(' ')} starts with its usage line`)
  }
  const all = spawnCli(t, ['--help'])
  t.equal(await all.exited, 0)
  t.equal(all.stdout(), overview())
  const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
  for (const command of commands) t.match(all.stdout(), new RegExp(`\\n  ${command} +${escaped(command_help[command]?.summary ?? '')}\\n`), `the overview lists ${command}`)
  const none = spawnCli(t, [])
  t.equal(await none.exited, 2, 'no command: the overview, exit 2')
  t.equal(none.stdout(), overview())
  const unknown = spawnCli(t, ['help', 'nope'])
  t.equal(await unknown.exited, 2)
  t.match(unknown.stderr(), /^tenantdb: unknown command 'nope'\n\nusage: tenantdb <command>/)
  const afterDashes = spawnCli(t, ['verify', '--', '--help'])
  t.equal(await afterDashes.exited, 1, 'after -- it is an argument, not the option')
  t.match(afterDashes.stderr(), /--help is not a tenantdb database directory/)
})

t.test('serve takes each flag from its environment variable; the flag wins', async (t) => {
  const parse = (argv: string[], env: NodeJS.ProcessEnv) => parseServeOptions(argv, env)
  const env = {
    TENANTDB_DIR: '/srv/db', TENANTDB_HOST: '0.0.0.0', TENANTDB_PORT: '8080', TENANTDB_SCHEMA: 'a.eel:b.eel::',
    TENANTDB_CONSOLE_ORIGIN: 'http://localhost:5173, https://admin.example', TENANTDB_ALLOWED_HOST: 'tenantdb.lan,db.lan',
    TENANTDB_CHECKPOINT_WAL_BYTES: '8192', TENANTDB_TAIL_RETENTION_BYTES: '0', LOG_LEVEL: 'warn',
  }
  t.match(parse([], env), {
    dir: '/srv/db', host: '0.0.0.0', port: 8080, schema: ['a.eel', 'b.eel'], consoleOrigins: ['http://localhost:5173', 'https://admin.example'],
    allowedHosts: ['tenantdb.lan', 'db.lan'], checkpointWalBytes: 8192, tailRetentionBytes: 0, logLevel: 'warn',
  }, 'every variable read, lists split (paths at :, URLs and names at ,)')
  t.match(parse(['--dir', 'd', '--host', '127.0.0.1', '--port', '0', '--schema', 'c.eel', '--console-origin', 'http://x.example', '--allowed-host', 'x.lan',
    '--checkpoint-wal-bytes', '4096', '--tail-retention-bytes', '5', '--log-level', 'error'], env), {
    dir: 'd', host: '127.0.0.1', port: 0, schema: ['c.eel'], consoleOrigins: ['http://x.example'], allowedHosts: ['x.lan'],
    checkpointWalBytes: 4096, tailRetentionBytes: 5, logLevel: 'error',
  }, 'every flag wins over its variable')
  const empty = Object.fromEntries(Object.keys(env).map((k) => [k, '']))
  t.match(parse([], empty), { dir: './data', host: '127.0.0.1', port: 7070, schema: [], consoleOrigins: [], allowedHosts: [], logLevel: 'info' }, 'an empty variable is unset')
  t.throws(() => parse([], { TENANTDB_PORT: 'http' }), /port must be an integer 0-65535, got 'http'/)
  t.throws(() => parse([], { TENANTDB_CONSOLE_ORIGIN: 'localhost' }), /--console-origin must be an origin/)

  // Isolation (docs/operations.md, "Isolation"): every tenant's default limits, the budgets' wait, the metrics' tenants.
  const isolation_env = { TENANTDB_TENANT_LIMITS: 'commits_per_s=500, storage_bytes=1048576', TENANTDB_BUDGET_WAIT_MS: '750', TENANTDB_METRICS_TENANTS: '5' }
  t.same(parse([], isolation_env).isolation, { tenantLimits: { commits_per_s: 500, storage_bytes: 1048576 }, budgetWaitMsMax: 750, metricsTenants: 5 }, 'the isolation variables read')
  t.same(parse(['--tenant-limit', 'statement_time_ms=1000', '--tenant-limit', 'storage_rows=10', '--budget-wait-ms', '0', '--metrics-tenants', '0'], isolation_env).isolation,
    { tenantLimits: { statement_time_ms: 1000, storage_rows: 10 }, budgetWaitMsMax: 0, metricsTenants: 0 }, 'the isolation flags win over their variables')
  t.same(parse([], {}).isolation, { tenantLimits: {}, budgetWaitMsMax: 2000, metricsTenants: 20 }, 'no tenant limit by default')
  t.throws(() => parse(['--tenant-limit', 'commits=5'], {}), /--tenant-limit: unknown limit "commits"/)
  t.throws(() => parse(['--tenant-limit', 'commits_per_s'], {}), /--tenant-limit takes NAME=N/)
  t.throws(() => parse(['--tenant-limit', 'commits_per_s=0'], {}), /must be a whole number from 1/)
  t.throws(() => parse(['--metrics-tenants', '5000'], {}), /--metrics-tenants must be a whole number from 0 to 1000/)

  // End to end: a server configured by the environment alone.
  const root = tempDir(t)
  writeFileSync(join(root, 'a.eel'), 'collection a { id: int primary }\n')
  writeFileSync(join(root, 'b.eel'), 'collection b { id: int primary }\n')
  const token = 'flags-env-token-0123456789abcdef'
  const server = spawnCli(t, ['serve'], {
    TENANTDB_DIR: join(root, 'db'), TENANTDB_HOST: '127.0.0.2', TENANTDB_PORT: '0', SERVICE_TOKEN: token,
    TENANTDB_SCHEMA: `${join(root, 'a.eel')}:${join(root, 'b.eel')}`, TENANTDB_ALLOWED_HOST: 'tenantdb.lan',
  })
  const [, port] = await server.waitFor(/url: http:\/\/127\.0\.0\.2:(\d+)\/api\/v1\n/)
  const get = (path: string, host: string) => new Promise<{ status: number; body: string }>((resolve, reject) => {
    httpGet({ host: '127.0.0.2', port: Number(port), path, headers: { host, authorization: `Bearer ${token}` } }, (res) => {
      let body = ''
      res.setEncoding('utf8').on('data', (chunk: string) => { body += chunk }).on('end', () => resolve({ status: res.statusCode ?? 0, body }))
    }).on('error', reject)
  })
  const schema = await get('/api/v1/schema.eel', `127.0.0.2:${port}`)
  t.equal(schema.status, 200, 'TENANTDB_HOST: it listens there')
  t.match(schema.body, /# file: a\.eel\n[^]*# file: b\.eel\n/, 'both schema files of TENANTDB_SCHEMA')
  t.equal((await get('/api/v1/health', `tenantdb.lan:${port}`)).status, 200, 'TENANTDB_ALLOWED_HOST')
  t.equal((await get('/api/v1/health', `other.lan:${port}`)).status, 403, 'and no other name')
  t.notMatch(server.stderr(), /no schema loaded/, 'no warning with a schema')
  server.child.kill('SIGTERM')
  t.equal(await server.exited, 0)
})

t.test('serve without a schema warns once, naming --schema', async (t) => {
  const server = spawnCli(t, ['serve', '--dir', join(tempDir(t), 'db'), '--port', '0', '--token', 'no-schema-token-0123456789'])
  await server.waitFor(/no schema loaded/)
  server.child.kill('SIGTERM')
  t.equal(await server.exited, 0)
  const warnings = server.stderr().split('\n').filter((l) => l.includes('no schema loaded'))
  t.same(warnings, ['tenantdb: warning: no schema loaded, so tenants have no collections and queries naming one fail with unknown_collection; start it with --schema FILE (or TENANTDB_SCHEMA) to declare them'])
  t.equal(server.stdout().includes('no schema loaded'), false, 'on stderr, not in the JSON log')
})

t.test('a port in use fails before anything is created', async (t) => {
  const holder = createServer()
  await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve))
  t.teardown(() => holder.close())
  const { port } = holder.address() as AddressInfo
  const root = tempDir(t)
  for (const [args, env] of [[['--port', String(port)], {}], [[], { TENANTDB_PORT: String(port) }]] as Array<[string[], NodeJS.ProcessEnv]>) {
    const dir = join(root, 'fresh', 'db')
    const run = spawnCli(t, ['serve', '--dir', dir, '--schema', 'examples/schema.eel', ...args], env)
    t.equal(await run.exited, 2, 'exit 2, as for a directory another process holds')
    t.equal(run.stderr(), `tenantdb: cannot listen on 127.0.0.1:${port}: the port is in use by another process; stop it, or choose another port (--port, TENANTDB_PORT)\n`)
    t.notOk(existsSync(join(root, 'fresh')), 'no directory was created')
  }
  const elsewhere = spawnCli(t, ['serve', '--dir', join(root, 'other'), '--host', '192.0.2.1', '--port', '7070'])
  t.equal(await elsewhere.exited, 1)
  t.match(elsewhere.stderr(), /^tenantdb: cannot listen on 192\.0\.2\.1:7070: 192\.0\.2\.1 is not an address of this machine \(--host, TENANTDB_HOST\)\n$/)
  t.notOk(existsSync(join(root, 'other')), 'nor for an address of another machine')
})
