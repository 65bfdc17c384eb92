// The real `tenantdb token create|list|revoke` (docs/operations.md, "Tenant tokens"):
// in a stopped directory and through a running `tenantdb serve` (--url, the service
// token from --token or SERVICE_TOKEN); the token printed alone on stdout, working
// against the server, listed without its secret, revoked; tokens durable across a
// restart and copied by a backup; a directory a server holds refused (exit 2); usage
// mistakes (exit 2) and refusals (exit 1). Run `npm run build:ts` first: the command
// runs from dist/.
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { spawnCli } from './helpers/spawn-cli.js'
import { tempDir } from './helpers/temp-dir.js'

const service = 'cli-token-service-token-0123456789'

async function run(t: Test, args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number | string; stdout: string; stderr: string }> {
  const cli = spawnCli(t, args, env)
  const code = await cli.exited
  return { code, stdout: cli.stdout(), stderr: cli.stderr() }
}

async function serve(t: Test, dir: string): Promise<{ url: string; stop(): Promise<void> }> {
  const server = spawnCli(t, ['serve', '--dir', dir, '--port', '0', '--schema', 'examples/schema.eel', '--token', service])
  const [, url] = await server.waitFor(/url: (http:\/\/127\.0\.0\.1:\d+\/api\/v1)\n/)
  return {
    url: url as string,
    async stop() {
      server.child.kill('SIGTERM')
      t.equal(await server.exited, 0, 'the server stops cleanly')
    },
  }
}

const status = async (url: string, path: string, secret: string, body?: string) =>
  (await fetch(`${url}${path}`, { method: body === undefined ? 'GET' : 'POST', headers: { authorization: `Bearer ${secret}` }, ...(body === undefined ? {} : { body }) })).status

t.test('token commands in a stopped directory: durable, working once served, copied by a backup', async (t) => {
  const root = tempDir(t)
  const dir = join(root, 'db')
  // A directory with a tenant: made by a server, then stopped.
  const first = await serve(t, dir)
  t.equal((await fetch(`${first.url}/t/default/ops`, { method: 'POST', headers: { authorization: `Bearer ${service}`, 'content-type': 'application/json' }, body: '{"op":"create","name":"acme"}' })).status, 200)
  await first.stop()

  const created = await run(t, ['token', 'create', dir, 'acme', '--scope', 'read', '--name', 'reporting', '--expires-in', '86400'])
  t.equal(created.code, 0, created.stderr)
  const secret = created.stdout.trim()
  t.match(created.stdout, /^tdb_[A-Za-z0-9_-]{43}\n$/, 'stdout holds the token alone')
  const [, id] = /^issued read token ([0-9a-f]{16}) for acme, expires \S+; it is shown only this once\n$/.exec(created.stderr) ?? []
  t.ok(id, `stderr says what was issued: ${created.stderr}`)

  const listed = await run(t, ['token', 'list', dir, 'acme'])
  t.equal(listed.code, 0)
  t.match(listed.stdout, new RegExp(`^ID +SCOPE +TENANT +NAME +CREATED +EXPIRES +LAST USED\\n${id} +read +acme +reporting +\\S+ +\\S+ +never\\n$`))
  t.notOk(listed.stdout.includes(secret), 'the listing never shows the token')
  const json = await run(t, ['token', 'list', dir, 'acme', '--json'])
  t.match(JSON.parse(json.stdout), [{ id, scope: 'read', tenant: 'acme', name: 'reporting', last_used_at: null }])

  // The backup of the directory holds the token: a server on the restored copy takes it.
  const archive = join(root, 'backup.tar')
  t.equal((await run(t, ['backup', dir, archive])).code, 0)
  t.equal((await run(t, ['restore', archive, join(root, 'restored')])).code, 0)
  const restored = await serve(t, join(root, 'restored'))
  t.equal(await status(restored.url, '/t/acme/query', secret, 'users | count'), 200, 'the restored copy takes the token')
  t.equal(await status(restored.url, '/t/default/query', secret, 'users | count'), 404, 'for its tenant only')
  await restored.stop()

  const server = await serve(t, dir)
  t.equal(await status(server.url, '/t/acme/query', secret, 'users | count'), 200, 'the token survives a restart')
  const locked = await run(t, ['token', 'list', dir, 'acme'])
  t.equal(locked.code, 2, 'a directory a server holds is refused')
  t.match(locked.stderr, /locked by another process/)
  await server.stop()

  const revoked = await run(t, ['token', 'revoke', dir, 'acme', id as string])
  t.equal(revoked.code, 0)
  t.equal(revoked.stdout, `revoked token ${id} of acme\n`)
  const again = await run(t, ['token', 'revoke', dir, 'acme', id as string])
  t.equal(again.code, 1)
  t.match(again.stderr, new RegExp(`tenant 'acme' has no token '${id}'`))
  const after = await serve(t, dir)
  t.equal(await status(after.url, '/t/acme/query', secret, 'users | count'), 401, 'revoked in the directory: refused once served')
  await after.stop()
  const unknown = await run(t, ['token', 'create', dir, 'nobody', '--scope', 'read'])
  t.equal(unknown.code, 1)
  t.match(unknown.stderr, /no tenant named 'nobody'/)
})

t.test('token commands through a running server with the service token', async (t) => {
  const dir = join(tempDir(t), 'db')
  const server = await serve(t, dir)
  const created = await run(t, ['token', 'create', '--url', server.url, '--token', service, 'default', '--scope', 'write'])
  t.equal(created.code, 0, created.stderr)
  const secret = created.stdout.trim()
  t.equal(await status(server.url, '/t/default/query', secret, 'insert users {id: 1, email: "a@x", name: "A"}'), 200, 'the token writes its tenant')
  t.equal(await status(server.url, '/stats', secret), 403, 'and nothing server-wide')

  const origin = server.url.replace(/\/api\/v1$/, '')
  const listed = await run(t, ['token', 'list', '--url', origin, 'default', '--json'], { SERVICE_TOKEN: service })
  t.equal(listed.code, 0, `the bare origin, the token from SERVICE_TOKEN: ${listed.stderr}`)
  const [entry] = JSON.parse(listed.stdout) as Array<{ id: string; last_used_at: string | null }>
  t.ok(entry?.last_used_at !== null, 'the listing shows the last use the server holds in memory')

  const refused = await run(t, ['token', 'create', '--url', server.url, '--token', secret, 'default', '--scope', 'read'])
  t.equal(refused.code, 1, 'a tenant token cannot issue tokens')
  t.match(refused.stderr, /the server refused \(403\): this needs the service token; the token is a write token/)
  const wrong = await run(t, ['token', 'list', '--url', server.url, '--token', 'not-the-token', 'default'])
  t.equal(wrong.code, 1)
  t.match(wrong.stderr, /the server refused \(401\): missing or invalid token/)

  const revoked = await run(t, ['token', 'revoke', '--url', server.url, '--token', service, 'default', entry?.id as string])
  t.equal(revoked.code, 0, revoked.stderr)
  t.equal(await status(server.url, '/t/default/query', secret, 'users | count'), 401, 'refused from the next request on')
  await server.stop()
})

t.test('token: --help, and usage mistakes exit 2', async (t) => {
  const help = await run(t, ['token', '--help'])
  t.equal(help.code, 0)
  t.match(help.stdout, /^usage: tenantdb token <create\|list\|revoke>/)
  t.match(help.stdout, /token revoke \(--url URL \[--token TOKEN\] \| DIR\) TENANT ID/)
  const dir = tempDir(t)
  for (const [args, message] of [
    [['token'], /^usage: tenantdb token/],
    [['token', 'rotate', dir, 'acme'], /unknown token command 'rotate'/],
    [['token', 'create', dir, 'acme'], /token create needs --scope read, write or admin/],
    [['token', 'create', dir, 'acme', '--scope', 'owner'], /got "owner"/],
    [['token', 'create', dir, 'acme', '--scope', 'read', '--expires-in', 'soon'], /--expires-in takes a number of seconds/],
    [['token', 'list', dir], /missing arguments; expected: tenantdb token list/],
    [['token', 'revoke', dir, 'acme'], /missing arguments; expected: tenantdb token revoke \(--url URL \| DIR\) TENANT ID/],
    [['token', 'list', dir, 'acme', '--scope', 'read'], /--scope goes with token create/],
    [['token', 'list', dir, 'acme', '--token', service], /--token goes with --url/],
    [['token', 'list', '--url', 'http://127.0.0.1:1', 'acme'], /--url needs the service token/],
    [['token', 'list', '--url', 'not a url', '--token', service, 'acme'], /--url not a url is not a URL/],
  ] as Array<[string[], RegExp]>) {
    const result = await run(t, args)
    t.equal(result.code, 2, args.join(' '))
    t.match(result.stdout + result.stderr, message, args.join(' '))
  }
  const missing = await run(t, ['token', 'list', join(dir, 'none'), 'acme'])
  t.equal(missing.code, 1, 'a directory that holds no database is refused, not created')
  t.match(missing.stderr, /is not a tenantdb database directory/)
})
