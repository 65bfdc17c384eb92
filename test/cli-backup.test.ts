// The real `tenantdb backup` command (docs/operations.md, "Backup and restore") against
// the real `tenantdb serve`: --url with --token or SERVICE_TOKEN (the printed .../api/v1
// URL or the bare origin), OUT as a file or `-` (stdout); a refused token, an existing
// OUT, a directory a server holds, and usage mistakes; a connection that breaks off
// mid-archive leaves no OUT. Run `npm run build:ts` first: the command runs from dist/.
import { spawn, spawnSync } from 'node:child_process'
import { existsSync, readdirSync, statSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import t from 'tap'
import { Database } from '../src/database/index.js'
import { cli_path, spawnCli } from './helpers/spawn-cli.js'
import { onTerminal } from './helpers/terminal.js'
import { tempDir } from './helpers/temp-dir.js'

const token = 'cli-backup-token-0123456789abcdef'

t.test('backup --url from a running server, to a file and to stdout', async (t) => {
  const root = tempDir(t)
  const dir = join(root, 'db')
  const server = spawnCli(t, ['serve', '--dir', dir, '--port', '0', '--schema', 'examples/schema.eel', '--token', token])
  const [, api_url] = await server.waitFor(/url: (http:\/\/127\.0\.0\.1:\d+\/api\/v1)\n/)
  const url = api_url as string
  const insert = await fetch(`${url}/t/default/query`, {
    method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ query: 'insert users [{id: 1, email: "ada@example.com", name: "Ada"}]' }),
  })
  t.equal(insert.status, 200)
  const { lsn } = (await insert.json()) as { lsn: number }

  const out = join(root, 'a.tar')
  const run = spawnCli(t, ['backup', '--url', url, '--token', token, out])
  t.equal(await run.exited, 0, run.stderr())
  const [, at, bytes] = /^backed up LSN (\d+): (\d+) bytes to .*a\.tar\n$/.exec(run.stdout()) ?? []
  t.ok(Number(at) >= lsn, `at LSN ${at}, at or past the insert's ${lsn}`)
  t.equal(statSync(out).size, Number(bytes), 'OUT holds the bytes it says')
  t.equal(statSync(out).mode & 0o777, 0o600, 'readable by its owner only')
  t.equal(run.stderr(), '', 'no progress line when stderr is not a terminal')

  const origin = url.replace(/\/api\/v1$/, '')
  const viaEnv = spawnCli(t, ['backup', '--url', origin, join(root, 'b.tar')], { SERVICE_TOKEN: token })
  t.equal(await viaEnv.exited, 0, `the bare origin, and the token from SERVICE_TOKEN: ${viaEnv.stderr()}`)
  t.ok(statSync(join(root, 'b.tar')).size > 0)

  const restored = join(root, 'restored')
  const restoring = spawnCli(t, ['restore', out, restored])
  t.equal(await restoring.exited, 0, restoring.stderr())

  const existing = spawnCli(t, ['backup', '--url', url, '--token', token, out])
  t.equal(await existing.exited, 1)
  t.match(existing.stderr(), /a\.tar exists: name a new file/)
  t.equal(statSync(out).size, Number(bytes), 'the existing file is untouched')

  const wrong = join(root, 'wrong.tar')
  const refused = spawnCli(t, ['backup', '--url', url, '--token', 'not-the-token', wrong])
  t.equal(await refused.exited, 1)
  t.match(refused.stderr(), /the server refused the backup \(401\): missing or invalid token/)
  t.notOk(existsSync(wrong))

  const locked = spawnCli(t, ['backup', dir, join(root, 'locked.tar')])
  t.equal(await locked.exited, 2, 'a directory a server holds is exit 2')
  t.match(locked.stderr(), /is locked by another process/)
  t.same(readdirSync(root).filter((f) => f.includes('.partial-')), [], 'no partial file left')

  server.child.kill('SIGTERM')
  t.equal(await server.exited, 0)
})

t.test('backup to stdout is the archive', async (t) => {
  const root = tempDir(t)
  const server = spawnCli(t, ['serve', '--dir', join(root, 'db'), '--port', '0', '--token', token])
  const [, url] = await server.waitFor(/url: (http:\/\/127\.0\.0\.1:\d+\/api\/v1)\n/)
  const child = spawn(process.execPath, [cli_path, 'backup', '--url', url as string, '--token', token, '-'], { stdio: ['ignore', 'pipe', 'pipe'] })
  const chunks: Buffer[] = []
  child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk))
  const code = await new Promise((resolve) => child.on('exit', resolve))
  t.equal(code, 0)
  const archive = Buffer.concat(chunks)
  t.equal(archive.subarray(0, 5).toString('latin1'), 'pages', 'the first entry is the page file')
  t.equal(archive.subarray(257, 262).toString('latin1'), 'ustar', 'a ustar header')
  const file = join(root, 'piped.tar')
  writeFileSync(file, archive)
  const restoring = spawnCli(t, ['restore', file, join(root, 'restored')])
  t.equal(await restoring.exited, 0, restoring.stderr())
  server.child.kill('SIGTERM')
  t.equal(await server.exited, 0)
})

t.test('a connection that breaks off mid-archive fails the backup and leaves no OUT', async (t) => {
  const root = tempDir(t)
  // A peer that promises 100 000 bytes and hangs up after 1 000: a lost connection.
  const peer = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/x-tar', 'content-length': '100000', 'x-backup-lsn': '5' })
    res.write(Buffer.alloc(1000), () => res.socket?.destroy())
  })
  await new Promise<void>((resolve) => peer.listen(0, '127.0.0.1', resolve))
  t.teardown(() => peer.close())
  const { port } = peer.address() as AddressInfo
  const out = join(root, 'cut.tar')
  const run = spawnCli(t, ['backup', '--url', `http://127.0.0.1:${port}`, '--token', token, out])
  t.equal(await run.exited, 1)
  t.match(run.stderr(), /the backup broke off after 1000 of 100000 bytes .*; nothing was written to .*cut\.tar/)
  t.notOk(existsSync(out))
  t.same(readdirSync(root), [], 'no partial file left')
})

t.test('usage mistakes are exit 2', async (t) => {
  const root = tempDir(t)
  const cases: Array<[string[], RegExp]> = [
    [['backup'], /missing arguments; expected: tenantdb backup/],
    [['backup', 'a', 'b', 'c'], /too many arguments/],
    [['backup', '--url', 'http://127.0.0.1:1', join(root, 'x.tar')], /--url needs the service token/],
    [['backup', '--token', token, 'dir', join(root, 'x.tar')], /--token goes with --url/],
    [['backup', '--url', 'not a url', '--token', token, join(root, 'x.tar')], /is not a URL/],
    [['restore', 'only-one'], /missing argument; expected: tenantdb restore <archive> <dir>/],
  ]
  for (const [args, message] of cases) {
    const run = spawnCli(t, args, { SERVICE_TOKEN: '' })
    t.equal(await run.exited, 2, args.join(' '))
    t.match(run.stderr(), message)
  }
  const missing = spawnCli(t, ['restore', join(root, 'nope.tar'), join(root, 'r')])
  t.equal(await missing.exited, 1)
  t.match(missing.stderr(), /nope\.tar does not exist/)
  const notDb = spawnCli(t, ['backup', root, join(root, 'x.tar')])
  t.equal(await notDb.exited, 1)
  t.match(notDb.stderr(), /is not a tenantdb database directory/)
  t.notOk(existsSync(join(root, 'x.tar')))
})

t.test('on a terminal: a progress line with the bytes, the total and a rate, cleared when done; no archive to a terminal', async (t) => {
  t.equal(spawnSync('script', ['--version']).error, undefined, 'script(1) is installed')
  const root = tempDir(t)
  const dir = join(root, 'db')
  const db = await Database.open(dir)
  await db.close()
  // script(1) runs the command on a pseudo-terminal, so stdout and stderr are TTYs.
  const out = join(root, 'a.tar')
  const backedUp = onTerminal(['backup', dir, out])
  t.equal(backedUp.status, 0, backedUp.output)
  t.match(backedUp.output, /backing up LSN \d+: \d+\.\d MiB of \d+\.\d MiB \(\d+%\) at \d+\.\d MiB\/s/, 'the progress line')
  t.match(backedUp.output, /\r\x1b\[K(\r\n)?backed up LSN \d+: \d+ bytes to /, 'cleared before the summary')
  const restored = onTerminal(['restore', out, join(root, 'restored')])
  t.equal(restored.status, 0, restored.output)
  t.match(restored.output, /restoring: \d+\.\d MiB of \d+\.\d MiB \(\d+%\) at/)
  t.match(restored.output, /\r\x1b\[K(\r\n)?restored LSN \d+: /)
  const toTerminal = onTerminal(['backup', dir, '-'])
  t.equal(toTerminal.status, 2)
  t.match(toTerminal.output, /refusing to write an archive to a terminal/)
})
