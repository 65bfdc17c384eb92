// Corruption tests of checkpointed WAL history (R14; docs/architecture.md,
// "Corruption") over the real server: one flipped payload byte in a frame the
// checkpoint already covers. The server starts and serves (recovery does not need that
// frame), /health/detail reports it, the change tail over it answers 500
// `storage_error` (not 410, not silently empty) while a tail after it works, and
// `tenantdb verify` exits 1 naming it.
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { wal_damage_message } from '../src/http/error-mapping.js'
import { flipPayloadByte, walFrames } from './helpers/damage-wal.js'
import { spawnCli, type CliProcess } from './helpers/spawn-cli.js'
import { tempDir } from './helpers/temp-dir.js'

const token = 'wal-damage-test-token-0123456789'

function serve(t: Test, db: string): CliProcess {
  return spawnCli(t, ['serve', '--dir', db, '--port', '0', '--schema', 'examples/schema.eel'], { SERVICE_TOKEN: token })
}

async function api(server: CliProcess) {
  const [, url] = await server.waitFor(/url: (http:\/\/127\.0\.0\.1:\d+\/api\/v1)\n/)
  return async (path: string, json?: object) => {
    const res = await fetch(url + path, {
      method: json === undefined ? 'GET' : 'POST',
      headers: { authorization: `Bearer ${token}`, ...(json === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(json === undefined ? {} : { body: JSON.stringify(json) }),
    })
    return { status: res.status, body: await res.json() as any }
  }
}

for (const which of ['middle', 'last'] as const) {
  t.test(`a damaged checkpointed WAL frame (${which}) is reported and the server serves`, async (t) => {
    const db = join(tempDir(t), 'db')
    let server = serve(t, db)
    let call = await api(server)
    const lsns: number[] = []
    for (let id = 1; id <= 6; id++) {
      const res = await call('/t/default/query', { query: 'insert users {id: $id, email: $e, name: "n"}', params: { id, e: `u${id}@x` } })
      t.equal(res.status, 200)
      lsns.push(res.body.lsn)
    }
    const untouched = await call('/t/default/tail?after=0&limit=100')
    t.equal(untouched.status, 200)
    server.child.kill('SIGTERM')
    t.equal(await server.exited, 0, 'a clean stop checkpoints everything')

    // Damage the frame of the 4th insert, or of the last one.
    const target = which === 'middle' ? lsns[3] : lsns[5]
    const frame = walFrames(db).find((f) => f.lsn === target)
    if (frame === undefined) throw new Error(`no WAL frame of LSN ${target}`)
    flipPayloadByte(db, frame)

    server = serve(t, db)
    call = await api(server)
    const detail = await call('/health/detail')
    t.equal(detail.status, 200)
    t.ok(detail.body.corruption.total > 0, 'corruption.total counts it')
    t.match(detail.body.corruption.reports, [{ id: `wal:${frame.segment}@${frame.offset}`, kind: 'wal_frame', file: `wal/${frame.segment}` }])
    const tail = await call('/t/default/tail?after=0&limit=100')
    t.equal(tail.status, 500, 'the tail over the damage fails')
    t.equal(tail.body.code, 'storage_error')
    t.equal(tail.body.error, wal_damage_message, 'the error names the change history: the engine error\'s file is a WAL segment')
    const after = await call(`/t/default/tail?after=${target}&limit=100`)
    t.equal(after.status, 200, 'a tail after the damaged frame works')
    t.same(after.body.events.map((e: { lsn: number }) => e.lsn), untouched.body.events.map((e: { lsn: number }) => e.lsn).filter((l: number) => l > (target as number)))
    const rows = await call('/t/default/query', { query: 'users | select id | sort id' })
    t.same(rows.body.rows, [[1], [2], [3], [4], [5], [6]], 'every row is there: the data is checkpointed')
    const write = await call('/t/default/query', { query: 'insert users {id: 7, email: "u7@x", name: "n"}' })
    t.equal(write.status, 200, 'writes go on')
    server.child.kill('SIGTERM')
    t.equal(await server.exited, 0)

    const verify = spawnCli(t, ['verify', db])
    t.equal(await verify.exited, 1, 'verify finds the damage')
    t.match(verify.stdout(), new RegExp(`WAL segment ${frame.segment}, byte ${frame.offset}: frame of LSN ${target} damaged`))
  })
}
