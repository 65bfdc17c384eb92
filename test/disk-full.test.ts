// Disk-full tests (R14) over the real server on a small tmpfs: a write the full disk
// refuses answers 507 `storage_full` and is gone after a restart (no failed row ever
// appears, so a client may retry it); reads go on; writes succeed again once space is
// freed, without a restart; SIGTERM on the full disk exits 0 and the restart recovers
// every acknowledged row (docs/operations.md, "Disk full").
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { spawnCli, type CliProcess } from './helpers/spawn-cli.js'
import { fillDisk, mountTmpfs } from './helpers/tmpfs.js'

const storage_full_sentence = 'the disk is full: nothing of this request was written; free space and retry'
// Large rows, so the WAL's preallocated space (1 MiB) is used up in a few dozen writes.
const name_bytes = 40_000

t.test('a full disk refuses writes with 507, loses no acknowledged row and never shows a refused one', async (t) => {
  const mnt = mountTmpfs(t, 16)
  const db = join(mnt, 'db')
  const filler = join(mnt, 'filler')
  const token = 'disk-full-test-token-0123456789'
  const env = { SERVICE_TOKEN: token }
  const serve = () => spawnCli(t, ['serve', '--dir', db, '--port', '0', '--schema', 'examples/schema.eel'], env)
  const connect = async (server: CliProcess) => {
    const [, url] = await server.waitFor(/url: (http:\/\/127\.0\.0\.1:\d+\/api\/v1)\n/)
    return async (q: string, params: object = {}) => {
      const res = await fetch(`${url}/t/default/query`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ query: q, params }),
      })
      return { status: res.status, body: await res.json() as Record<string, unknown> }
    }
  }
  const insert = 'insert users {id: $id, email: $email, name: $name}'
  const row = (id: number) => ({ id, email: `u${id}@example.com`, name: 'n'.repeat(name_bytes) })

  let server = serve()
  let query = await connect(server)
  const acked: number[] = []
  const refused: number[] = []
  for (let id = 1; id <= 3; id++) {
    t.equal((await query(insert, row(id))).status, 200)
    acked.push(id)
  }

  // Fill the disk, then write until the WAL's preallocated space is used up.
  fillDisk(filler)
  let id = 4
  for (; id < 200; id++) {
    const res = await query(insert, row(id))
    if (res.status === 200) {
      acked.push(id)
      continue
    }
    t.equal(res.status, 507, 'a write on the full disk is 507')
    t.same(res.body, { error: storage_full_sentence, code: 'storage_full', conflict: false })
    refused.push(id)
    break
  }
  t.ok(refused.length === 1, `the disk filled after ${acked.length} rows`)
  const again = await query(insert, row(++id))
  t.equal(again.status, 507, 'it keeps refusing while full (not fail-stopped)')
  refused.push(id)
  const read = await query('users | where id == 1 | select id, email')
  t.same([read.status, read.body.rows], [200, [[1, 'u1@example.com']]], 'reads still work')

  // Space freed: writes succeed again, without a restart.
  rmSync(filler)
  const freed = await query(insert, row(++id))
  t.equal(freed.status, 200, 'writes succeed once space is freed')
  acked.push(id)

  // Full again, then SIGTERM: a clean exit, one warning line, nothing lost.
  fillDisk(filler)
  for (let tries = 0; tries < 200; tries++) {
    const res = await query(insert, row(++id))
    if (res.status === 200) {
      acked.push(id)
      continue
    }
    t.equal(res.status, 507)
    refused.push(id)
    break
  }
  server.child.kill('SIGTERM')
  t.equal(await server.exited, 0, 'SIGTERM on a full disk exits 0')
  const warnings = server.stderr().split('\n').filter((l) => /warning: checkpoint skipped/.test(l))
  t.equal(warnings.length, 1, `one warning line: ${server.stderr()}`)

  // The restart (still on the full disk) recovers every acknowledged row and no refused one.
  server = serve()
  query = await connect(server)
  const all = await query('users | select id | sort id')
  t.equal(all.status, 200)
  t.same((all.body.rows as number[][]).map((r) => r[0]), acked, `exactly the acknowledged rows (refused: ${refused.join(', ')})`)
  rmSync(filler)
  server.child.kill('SIGTERM')
  t.equal(await server.exited, 0)
})

