// `tenantdb verify` opens the directory read-only (docs/operations.md,
// "Verifying a directory"): it changes no byte, so it works on a read-only mount and on
// a full disk, and a running server's lock still makes it exit 2.
import { createHash } from 'node:crypto'
import { cpSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { spawnCli } from './helpers/spawn-cli.js'
import { tempDir } from './helpers/temp-dir.js'
import { fillDisk, mountTmpfs, remount } from './helpers/tmpfs.js'

/** Every file under `dir` with a hash of its bytes and its modification time. */
function fingerprint(dir: string): Record<string, string> {
  const out: Record<string, string> = {}
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue
    const path = join(entry.parentPath, entry.name)
    out[path] = `${createHash('sha256').update(readFileSync(path)).digest('hex')} ${statSync(path).mtimeMs}`
  }
  return out
}

/**
 * A database written by a real server that is then killed (-9), so the WAL holds
 * frames after the last checkpoint for verify to replay. In a child process, so no
 * handle of this test process keeps a file open (a read-only remount needs that).
 */
async function build(t: Test, db: string): Promise<void> {
  const token = 'verify-readonly-test-token-0123456789'
  const server = spawnCli(t, ['serve', '--dir', db, '--port', '0', '--schema', 'examples/schema.eel'], { SERVICE_TOKEN: token })
  const [, url] = await server.waitFor(/url: (http:\/\/127\.0\.0\.1:\d+\/api\/v1)\n/)
  for (let id = 1; id <= 20; id++) {
    const res = await fetch(`${url}/t/default/query`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'insert users {id: $id, email: $e, name: "n"}', params: { id, e: `u${id}@x` } }),
    })
    t.equal(res.status, 200)
  }
  server.child.kill('SIGKILL')
  await server.exited
}

// Built once for the file (a server start and 20 commits) and copied onto each case's
// mount: a copy holds the same bytes, the WAL frames after the checkpoint included.
const template = join(tempDir(t), 'db')
let built: Promise<void> | undefined

/** The killed server's database, copied to `mnt`/db. */
async function database(t: Test, mnt: string): Promise<string> {
  built ??= build(t, template)
  await built
  const db = join(mnt, 'db')
  cpSync(template, db, { recursive: true })
  return db
}

t.test('verify on a read-only mount exits 0 on a clean directory and changes nothing', async (t) => {
  const mnt = mountTmpfs(t, 16)
  const db = await database(t, mnt)
  remount(mnt, 'ro')
  t.teardown(() => remount(mnt, 'rw'))
  const before = fingerprint(mnt)
  const run = spawnCli(t, ['verify', db])
  t.equal(await run.exited, 0, run.stderr())
  t.match(run.stdout(), /^verified \d+ pages, \d+ entries, WAL frames: ok; page slots: \d+ live, \d+ free, \d+ pending, \d+ releasing\n$/)
  t.same(fingerprint(mnt), before, 'not a byte changed')
})

t.test('verify on a full disk works and changes nothing', async (t) => {
  const mnt = mountTmpfs(t, 16)
  const db = await database(t, mnt)
  fillDisk(join(mnt, 'filler'))
  const before = fingerprint(db)
  const run = spawnCli(t, ['verify', db])
  t.equal(await run.exited, 0, run.stderr())
  t.same(fingerprint(db), before)
})

t.test('verify refuses a directory a server holds (exit 2)', async (t) => {
  const mnt = mountTmpfs(t, 16)
  const db = await database(t, mnt)
  const server = spawnCli(t, ['serve', '--dir', db, '--port', '0'], { SERVICE_TOKEN: 'verify-lock-test-token-0123456789' })
  await server.waitFor(/url: /)
  const run = spawnCli(t, ['verify', db])
  t.equal(await run.exited, 2)
  t.match(run.stderr(), /is locked by another process/)
  server.child.kill('SIGTERM')
  t.equal(await server.exited, 0)
})
