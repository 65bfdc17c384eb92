// File modes (docs/operations.md, "File modes"): the server's data directory and `wal/`
// are 0700 and every file in them 0600 (the token file included), so no other local
// user can read a tenant's data or the token; an existing directory with wider modes is
// tightened at start.
import { chmodSync, mkdirSync, readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { spawnCli } from './helpers/spawn-cli.js'
import { tempDir } from './helpers/temp-dir.js'

const mode = (path: string) => statSync(path).mode & 0o777

t.test('the data directory and its files are private to the server user', async (t) => {
  const db = join(tempDir(t), 'db')
  mkdirSync(db, { mode: 0o755 })
  chmodSync(db, 0o755)
  const server = spawnCli(t, ['serve', '--dir', db, '--port', '0', '--schema', 'examples/schema.eel'])
  const [, url] = await server.waitFor(/url: (http:\/\/127\.0\.0\.1:\d+\/api\/v1)\n/)
  const [, token] = await server.waitFor(/token: (\S+)\s+\(generated/)
  const res = await fetch(`${url}/t/default/query`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ query: 'insert users {id: 1, email: "a@x", name: "a"}' }),
  })
  t.equal(res.status, 200)
  server.child.kill('SIGTERM')
  t.equal(await server.exited, 0)

  t.equal(mode(db), 0o700, 'an existing 0755 directory is tightened')
  t.equal(mode(join(db, 'wal')), 0o700)
  const files = [...readdirSync(db).map((n) => join(db, n)), ...readdirSync(join(db, 'wal')).map((n) => join(db, 'wal', n))]
    .filter((p) => statSync(p).isFile())
  t.ok(files.some((p) => p.endsWith('service.token')) && files.some((p) => p.endsWith('.wal')) && files.some((p) => p.endsWith('pages')))
  for (const file of files) t.equal(mode(file), 0o600, file)
})
