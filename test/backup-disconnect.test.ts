// The backup gate over HTTP (docs/operations.md, "Backup and restore"): a backup holds
// checkpoints back only while its archive streams. A client that goes away mid-stream
// ends it (a later checkpoint runs, a compaction asked for meanwhile completes); two
// backups at once share the gate and both complete; a server that shuts down cuts a
// stream off and still exits cleanly. Breaks when a destroyed archive does not end its
// backup: checkpoints would wait forever (the hang guard fails the test).
import { request } from 'node:http'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { Database } from '../src/database/index.js'
import { api, startServer } from './helpers/http-server.js'
import { pollUntil } from './helpers/poll.js'
import { tempDir } from './helpers/temp-dir.js'
import { package_root } from '../src/package-root.js'

const token = 'backup-disconnect-token-0123456789'

/** A database of about 10 MB (so its archive outlasts the socket buffers), checkpointing every 16 KiB of WAL. */
async function seeded(t: Test): Promise<Database> {
  const db = await Database.open(join(tempDir(t), 'db'), { schema: [join(package_root, 'examples', 'schema.eel')], checkpointWalBytes: 16384, tailRetentionBytes: 0 })
  t.teardown(() => db.close())
  const main = db.tenant('default')
  for (let start = 0; start < 20_000; start += 1000) {
    await main.query('insert users $rows', { rows: Array.from({ length: 1000 }, (_, i) => ({ id: start + i, email: `u${start + i}@example.com`, name: 'n'.repeat(400) })) })
  }
  return db
}

/** Writes past the checkpoint threshold (about 40 KB of WAL). */
async function churn(db: Database, round: number): Promise<void> {
  for (let i = 0; i < 20; i++) await db.tenant('default').query('users | where id == $id | update {name: $name}', { id: i, name: `${round}-${'r'.repeat(2000)}` })
}

/** A GET of the backup whose body is read once and then left unread. */
function openBackup(origin: string): Promise<{ lsn: number; bytes: number; abort: () => void; drain: () => Promise<number> }> {
  return new Promise((resolve, reject) => {
    const req = request(`${origin}/api/v1/backup`, { headers: { authorization: `Bearer ${token}` } }, (res) => {
      if (res.statusCode !== 200) return reject(new Error(`status ${String(res.statusCode)}`))
      res.once('data', (chunk: Buffer) => {
        res.pause()
        let received = chunk.length
        resolve({
          lsn: Number(res.headers['x-backup-lsn']),
          bytes: Number(res.headers['content-length']),
          abort: () => req.destroy(),
          drain: () => new Promise((done, failed) => {
            res.on('data', (more: Buffer) => { received += more.length })
            res.once('end', () => done(received))
            res.once('error', failed)
            res.resume()
          }),
        })
      })
    })
    req.once('error', reject)
    req.end()
  })
}

t.test('a client that goes away mid-stream ends its backup: a later checkpoint runs, a compaction asked for meanwhile completes', async (t) => {
  const db = await seeded(t)
  const { origin } = await startServer(t, { token, db })
  const backup = await openBackup(origin)
  t.ok(backup.bytes > 8 * 1024 * 1024, `an archive of ${backup.bytes} bytes`)
  const held = db.healthDetail().checkpoints.count
  await churn(db, 1)
  t.equal(db.healthDetail().checkpoints.count, held, 'no checkpoint while the archive is open (40 KB past a 16 KiB threshold)')
  let compacted = false
  const compacting = api(origin, token)('/api/v1/t/default/ops', { json: { op: 'compact' } }).then((res) => { compacted = true; return res })
  await churn(db, 2)
  t.notOk(compacted, 'the compaction waits for the backup')

  backup.abort()
  await churn(db, 3)
  await pollUntil(() => db.healthDetail().checkpoints.count > held, 'a checkpoint after the client went away')
  t.equal((await compacting).status, 200, 'the compaction asked for during the backup completed')
})

t.test('two backups at once share the gate; checkpoints resume after the last ends', async (t) => {
  const db = await seeded(t)
  const { origin } = await startServer(t, { token, db })
  const first = await openBackup(origin)
  const second = await openBackup(origin)
  t.equal(second.lsn, first.lsn, 'the second began at once, at the same LSN (nothing was written between)')
  const held = db.healthDetail().checkpoints.count
  t.equal(await first.drain(), first.bytes, 'the first archive completes')
  await churn(db, 1)
  t.equal(db.healthDetail().checkpoints.count, held, 'the second still holds checkpoints back')
  t.equal(await second.drain(), second.bytes, 'the second completes')
  await churn(db, 2)
  await pollUntil(() => db.healthDetail().checkpoints.count > held, 'a checkpoint after both ended')
})

t.test('a server that shuts down cuts a backup off and closes', async (t) => {
  const db = await seeded(t)
  const { app, origin } = await startServer(t, { token, db })
  const backup = await openBackup(origin)
  const held = db.healthDetail().checkpoints.count
  const draining = backup.drain().then((n) => n, (err: Error) => err)
  await app.close()
  const outcome = await draining
  t.ok(outcome instanceof Error || outcome < backup.bytes, `the client got a short archive (${outcome instanceof Error ? outcome.message : `${outcome} of ${backup.bytes} bytes`})`)
  await churn(db, 1)
  await pollUntil(() => db.healthDetail().checkpoints.count > held, 'a checkpoint once the server closed (the backup ended with it, before the database closes)')
})
