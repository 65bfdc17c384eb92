// The real `tenantdb serve` command, as a newcomer runs it.
import { statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { rawRequest, requestText } from './helpers/raw-http.js'
import { spawnCli } from './helpers/spawn-cli.js'
import { tempDir } from './helpers/temp-dir.js'

t.test('serve prints the URL and a generated token, answers health, stops on SIGTERM', async (t) => {
  const dir = tempDir(t)
  const server = spawnCli(t, ['serve', '--dir', dir, '--port', '0', '--schema', 'examples/schema.eel'])
  const [, url] = await server.waitFor(/url: (http:\/\/127\.0\.0\.1:\d+\/api\/v1)\n/)
  const [, token] = await server.waitFor(/token: (\S+)\s+\(generated, saved to .*service\.token\)/)
  t.equal(statSync(join(dir, 'service.token')).mode & 0o777, 0o600)

  const ok = await fetch(`${url}/health`, { headers: { authorization: `Bearer ${token}` } })
  t.equal(ok.status, 200)
  t.match(await ok.json(), { ok: true, tenant: 'default' })
  t.equal((await fetch(`${url}/health`)).status, 401)
  const schema = await fetch(`${url}/schema.eel?token=${token}`)
  t.match(await schema.text(), /^# file: schema\.eel\n# An example schema/)

  const second = spawnCli(t, ['serve', '--dir', dir, '--port', '0'])
  t.equal(await second.exited, 2, 'a second server on the same directory exits 2')
  t.match(second.stderr(), /is locked by another process/)

  server.child.kill('SIGTERM')
  t.equal(await server.exited, 0, 'SIGTERM is a clean exit')
  t.notMatch(server.stdout() + server.stderr().replace(/token: \S+ +\(generated/, ''), token as string,
    'the token appears only in the one start-up line')

  const again = spawnCli(t, ['serve', '--dir', dir, '--port', '0'])
  await again.waitFor(/token: read from .*service\.token/)
  again.child.kill('SIGINT')
  t.equal(await again.exited, 0, 'the lock was released; restart reuses the saved token')
})

t.test('serve --allowed-host adds a name the server answers to', async (t) => {
  const dir = tempDir(t)
  const server = spawnCli(t, ['serve', '--dir', dir, '--port', '0', '--token', 'allowed-host-token-0123456789', '--allowed-host', 'TenantDB.lan', '--allowed-host', '::1'])
  const [, port] = await server.waitFor(/url: http:\/\/127\.0\.0\.1:(\d+)\/api\/v1\n/)
  const health = (host: string) => rawRequest(Number(port), requestText('GET', '/api/v1/health', host, { authorization: 'Bearer allowed-host-token-0123456789' }))
  t.equal((await health(`tenantdb.lan:${port}`)).status, 200, 'the allowed name')
  t.equal((await health(`[::1]:${port}`)).status, 200, 'an allowed address')
  t.equal((await health(`127.0.0.1:${port}`)).status, 200, 'the listen address')
  const other = await health(`other.lan:${port}`)
  t.equal(other.status, 403, 'any other name')
  t.match(other.body, /"code":"host_not_allowed"/)
  server.child.kill('SIGTERM')
  t.equal(await server.exited, 0)
})

t.test('serve --tail-retention-bytes 0 keeps only the WAL recovery needs', async (t) => {
  const dir = tempDir(t)
  const token = 'tail-retention-token-0123456789'
  const server = spawnCli(t, ['serve', '--dir', dir, '--port', '0', '--schema', 'examples/schema.eel', '--token', token, '--checkpoint-wal-bytes', '4096', '--tail-retention-bytes', '0'])
  const [, url] = await server.waitFor(/url: (http:\/\/127\.0\.0\.1:\d+\/api\/v1)\n/)
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' }
  // Whole WAL segments (16 MiB) are deleted, never the newest: write more than one.
  const name = 'n'.repeat(900 * 1024)
  let expired: Response | undefined
  for (let id = 0; id < 40; id += 1) {
    const insert = await fetch(`${url}/t/default/query`, { method: 'POST', headers, body: JSON.stringify({ query: 'insert users {id: $id, email: $email, name: $name}', params: { id, email: `u${id}@x`, name } }) })
    t.equal(insert.status, 200, `insert ${id}`)
    const tail = await fetch(`${url}/t/default/tail?after=0&limit=1`, { headers })
    if (tail.status !== 200) {
      expired = tail
      break
    }
    await tail.body?.cancel()
  }
  t.equal(expired?.status, 410, 'the first commits are gone from the WAL')
  t.match(await expired?.json(), { code: 'lsn_expired', oldest_lsn: Number })
  server.child.kill('SIGTERM')
  t.equal(await server.exited, 0)
})

t.test('serve refuses bad arguments with usage and exit 2', async (t) => {
  for (const args of [['serve', '--allowed-host', 'http://tenantdb.lan'], ['serve', '--allowed-host', 'tenantdb.lan:7070']]) {
    const run = spawnCli(t, args)
    t.equal(await run.exited, 2, args.join(' '))
    t.match(run.stderr(), /--allowed-host must be a host name or IP address/, args.join(' '))
  }
  for (const args of [['serve', '--tail-retention-bytes', '1e6'], ['serve', '--checkpoint-wal-bytes', '4095']]) {
    const run = spawnCli(t, args)
    t.equal(await run.exited, 2, args.join(' '))
    t.match(run.stderr(), /must be a whole number of bytes, at least/, args.join(' '))
  }
  for (const args of [['serve', '--port', 'http'], ['serve', '--bogus'], ['serve', '--schema', '/no/such.eel'], ['frobnicate']]) {
    const run = spawnCli(t, args)
    t.equal(await run.exited, 2, args.join(' '))
    t.match(run.stderr(), /usage: tenantdb/, args.join(' '))
  }
  const version = spawnCli(t, ['--version'])
  t.equal(await version.exited, 0)
  t.match(version.stdout(), /^\d+\.\d+\.\d+\n$/)
})

t.test('serve refuses an invalid schema with its diagnostic and exit 2', async (t) => {
  const dir = tempDir(t)
  const file = join(dir, 'bad.eel')
  writeFileSync(file, 'collection x {\n  a: int,\n  a: string,\n}\n')
  const run = spawnCli(t, ['serve', '--dir', join(dir, 'db'), '--port', '0', '--schema', file])
  t.equal(await run.exited, 2)
  t.match(run.stderr(), /bad\.eel:3:3 duplicate field 'a' in collection 'x'/)
})

t.test('serve logs a blocked migration at start for the tenant it affects', async (t) => {
  const dir = tempDir(t)
  const { Database } = await import('../src/database/index.js')
  const v1 = join(dir, 'v1.eel')
  const v2 = join(dir, 'v2.eel')
  writeFileSync(v1, 'collection users { id: int primary, email: string }\n')
  writeFileSync(v2, 'collection users { id: int primary, email: string unique }\n')
  const db = await Database.open(join(dir, 'db'), { schema: [v1] })
  await db.ops({ op: 'create', name: 'acme' })
  await db.tenant('acme').query('insert users [{id: 1, email: "same"}, {id: 2, email: "same"}]')
  await db.close()

  const server = spawnCli(t, ['serve', '--dir', join(dir, 'db'), '--port', '0', '--schema', v2])
  const [line] = await server.waitFor(/.*migration blocked.*\n/)
  t.match(JSON.parse(line), { level: 40, tenant: 'acme', reason: /unique index 'email' cannot be built/ })
  server.child.kill('SIGTERM')
  t.equal(await server.exited, 0)
})
