// An online backup over HTTP (docs/operations.md, "Backup and restore") taken from the
// real `tenantdb serve` while writers keep committing, restored by the real `tenantdb
// restore`: the restored directory passes `tenantdb verify`, holds exactly the commits
// up to the backup's LSN (every one acknowledged before the backup began among them)
// and the named snapshot, and takes new writes after that LSN; and writes went on being
// acknowledged while the archive streamed. Breaks when the backup gate is not taken (a
// checkpoint rewrites the page file or retention deletes a segment mid-copy) or when a
// backup blocks the server. Run `npm run build:ts` first: the commands run from dist/.
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { Readable } from 'node:stream'
import { Database, restoreArchive, verifyDirectory } from '../src/database/index.js'
import { backup_chunk_bytes } from '../src/limits.js'
import { api } from './helpers/http-server.js'
import { pollUntil } from './helpers/poll.js'
import { spawnCli } from './helpers/spawn-cli.js'
import { tempDir } from './helpers/temp-dir.js'

const token = 'backup-consistency-token-0123456789'
const seeded_rows = 3000
const writers = 4
/** How far an archive reads ahead of its consumer, at most: a few of its 1 MiB reads. */
const read_ahead_bytes_max = 4 * backup_chunk_bytes

interface Ack { id: number; lsn: number; at: number }

t.test('a backup taken while writers commit restores every acknowledged write and the snapshot; writes were acknowledged while it streamed', async (t) => {
  const root = tempDir(t)
  const schema = join(root, 'app.eel')
  writeFileSync(schema, 'collection notes { id: int primary, text: string }\n')
  // A checkpoint every 16 KiB of WAL and no tail retention: without the gate, checkpoints
  // would rewrite the page file and delete WAL segments while the archive streams.
  const server = spawnCli(t, ['serve', '--dir', join(root, 'db'), '--port', '0', '--schema', schema, '--token', token, '--checkpoint-wal-bytes', '16384', '--tail-retention-bytes', '0'])
  const [, url] = await server.waitFor(/url: (http:\/\/127\.0\.0\.1:\d+)\/api\/v1\n/)
  const call = api(url as string, token)
  const query = async (text: string, params: Record<string, unknown> = {}) => {
    const res = await call('/api/v1/t/default/query', { json: { query: text, params } })
    if (res.status !== 200) throw new Error(`${text}: ${res.status} ${JSON.stringify(res.body)}`)
    return res.body as { rows: unknown[][]; lsn?: number }
  }

  for (let start = 0; start < seeded_rows; start += 300) {
    await query('insert notes $rows', { rows: seedRows(start, start + 300) })
  }
  t.equal((await call('/api/v1/t/default/ops', { json: { op: 'snapshot', name: 'default', target: 'before' } })).status, 200)
  await query('notes | where id < 100 | update {text: "changed"}')

  // Writers of one row per request, each over its own ids, recording every acknowledgement.
  const acks: Ack[] = []
  let stop = false
  const writing = Array.from({ length: writers }, async (_, w) => {
    for (let i = 0; !stop; i++) {
      const id = 1_000_000 * (w + 1) + i
      const { lsn } = await query('insert notes $row', { row: writtenRow(id) })
      acks.push({ id, lsn: lsn as number, at: performance.now() })
    }
  })
  await pollUntil(() => acks.length >= 50, 'the writers to be acknowledged 50 times')

  const began = performance.now()
  const acked_before = acks.filter((a) => a.at < began)
  const res = await fetch(`${url}/api/v1/backup`, { headers: { authorization: `Bearer ${token}` } })
  t.equal(res.status, 200)
  t.equal(res.headers.get('content-type'), 'application/x-tar')
  const lsn = Number(res.headers.get('x-backup-lsn'))
  const total = Number(res.headers.get('content-length'))
  const chunks: Uint8Array[] = []
  let first = 0
  let last = 0
  // Slowly: after each chunk, until a write is acknowledged. A server the backup
  // blocked would never acknowledge one, and this would hang (the hang guard fails it).
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    last = performance.now()
    if (chunks.length === 0) first = last
    chunks.push(chunk)
    const seen = acks.length
    await pollUntil(() => acks.length > seen, 'a write acknowledged while the archive streams')
  }
  stop = true
  await Promise.all(writing)
  const archive = Buffer.concat(chunks)
  t.equal(archive.length, total, 'the archive is Content-Length bytes')
  const during = acks.filter((a) => a.at > first && a.at < last).length
  t.ok(during >= chunks.length - 1, `writes were acknowledged between the first and the last byte (${during}, over ${chunks.length} chunks)`)
  t.ok(acks.some((a) => a.lsn > lsn), 'commits went on past the backup\'s LSN')
  t.comment(`archive ${total} bytes in ${chunks.length} chunks over ${Math.round(last - first)} ms; ${during} writes acknowledged meanwhile`)
  t.ok(acked_before.every((a) => a.lsn <= lsn), 'every write acknowledged before the backup began is at or below its LSN')

  const file = join(root, 'backup.tar')
  writeFileSync(file, archive)
  const restored = join(root, 'restored')
  const restoring = spawnCli(t, ['restore', file, restored])
  t.equal(await restoring.exited, 0, restoring.stderr())
  t.match(restoring.stdout(), new RegExp(`^restored LSN ${lsn}: \\d+ files, \\d+ bytes into .*; verified\\n$`))
  const verifying = spawnCli(t, ['verify', restored])
  t.equal(await verifying.exited, 0, `tenantdb verify passes: ${verifying.stdout()}`)

  await checkRestored(t, restored, schema, { lsn, acks, acked_before, seeded: seeded_rows })

  const live = (await query('notes | where id >= 1000000 | count')).rows
  t.same(live, [[acks.length]], 'the server kept every write')
  server.child.kill('SIGTERM')
  t.equal(await server.exited, 0)
})

t.test('an archive read slowly, while writes and due checkpoints keep coming, is a consistent copy', async (t) => {
  // In process, the archive's reads follow its consumer (backpressure), so each 1 MiB
  // read of the page file waits for the writes below: without the gate, checkpoints
  // would rewrite the page file between two reads of it.
  const root = tempDir(t)
  const schema = join(root, 'app.eel')
  writeFileSync(schema, 'collection notes { id: int primary, text: string }\n')
  const db = await Database.open(join(root, 'db'), { schema: [schema], checkpointWalBytes: 16384, tailRetentionBytes: 0 })
  t.teardown(() => db.close())
  const main = db.tenant('default')
  const seeded = 10_000
  for (let start = 0; start < seeded; start += 1000) await main.query('insert notes $rows', { rows: seedRows(start, start + 1000) })
  await db.ops({ op: 'snapshot', name: 'default', target: 'before' })
  await main.query('notes | where id < 100 | update {text: "changed"}')

  const acks: Ack[] = []
  let stop = false
  const writing = Array.from({ length: writers }, async (_, w) => {
    for (let i = 0; !stop; i++) {
      const id = 1_000_000 * (w + 1) + i
      const { lsn } = await main.query('insert notes $row', { row: writtenRow(id) })
      acks.push({ id, lsn: lsn as number, at: performance.now() })
    }
  })
  await pollUntil(() => acks.length >= 50, 'the writers to be acknowledged 50 times')
  const began = performance.now()
  const acked_before = acks.filter((a) => a.at < began)
  const archive = await db.backup()
  const held = db.healthDetail().checkpoints.count
  const written = acks.length
  const chunks: Buffer[] = []
  let received = 0
  let checked = 0
  for await (const chunk of archive.stream as AsyncIterable<Buffer>) {
    chunks.push(chunk)
    received += chunk.length
    // The archive reads ahead of its consumer by a few chunks at most (the stream's
    // buffer, the tar packer's, the read in flight): short of that, the backup has
    // certainly not ended yet, and no checkpoint may have run.
    if (received + read_ahead_bytes_max < archive.bytes) {
      t.equal(db.healthDetail().checkpoints.count, held, `no checkpoint ran while ${received} bytes of ${archive.bytes} streamed`)
      checked++
    }
    const seen = acks.length
    await pollUntil(() => acks.length >= seen + 2 * writers, 'writes acknowledged while the archive streams')
  }
  const during = acks.length - written
  t.ok(checked >= 4, `the checkpoints were checked ${checked} times, while ${during} writes of 2 KB went past a 16 KiB threshold`)
  stop = true
  await Promise.all(writing)
  await main.query('insert notes [{id: 999998, text: "ends the wait"}]')
  await pollUntil(() => db.healthDetail().checkpoints.count > held, 'a checkpoint once the backup ended')
  t.comment(`archive ${archive.bytes} bytes in ${chunks.length} chunks; ${during} writes acknowledged meanwhile`)

  const restored = join(root, 'restored')
  const report = await restoreArchive(Readable.from([Buffer.concat(chunks)]), restored)
  t.equal(report.lsn, archive.lsn)
  t.same((await verifyDirectory(restored)).problems, [], 'the restored directory verifies clean')
  await checkRestored(t, restored, schema, { lsn: archive.lsn, acks, acked_before, seeded })
})

/**
 * The restored directory holds exactly the writes up to `lsn` (all acknowledged before
 * the backup began among them), the seeded rows as last updated, the snapshot as it
 * was pinned, and takes new writes after `lsn`.
 */
async function checkRestored(t: Test, restored: string, schema: string, expected: { lsn: number; acks: Ack[]; acked_before: Ack[]; seeded: number }): Promise<void> {
  const { lsn, acks, acked_before, seeded } = expected
  const db = await Database.open(restored, { schema: [schema] })
  t.teardown(() => db.close())
  const main = db.tenant('default')
  const ids = new Set(((await main.query('notes | where id >= 1000000 | select id')).rows as number[][]).map(([id]) => id))
  const missing = acks.filter((a) => a.lsn <= lsn && !ids.has(a.id))
  const extra = acks.filter((a) => a.lsn > lsn && ids.has(a.id))
  t.same(missing, [], 'every write acknowledged at or below the backup\'s LSN is there')
  t.same(extra, [], 'no write after the backup\'s LSN is there')
  t.ok(acked_before.length >= 50 && acked_before.every((a) => ids.has(a.id)), `all ${acked_before.length} writes acknowledged before the backup began are there`)
  t.same((await main.query('notes | where id < 1000000 | count')).rows, [[seeded]], 'the seeded rows')
  t.same((await main.query('notes | where id == 5 | select text')).rows, [['changed']])
  t.same((await main.query('notes | where id < 1000000 | count', {}, { snapshot: 'before' })).rows, [[seeded]], 'the snapshot is there')
  t.same((await main.query('notes | where id == 5 | select text', {}, { snapshot: 'before' })).rows, [[seedText(5)]], 'and reads what it pinned')
  t.same((await main.query('notes | where id >= 1000000 | count', {}, { snapshot: 'before' })).rows, [[0]])
  const next = await main.query('insert notes [{id: 999999, text: "after"}]')
  t.ok((next.lsn as number) > lsn, `the restored database takes new writes after LSN ${lsn} (${String(next.lsn)})`)
  await db.close()
}

/** A writer's row: 2 KB, so a few of them are past the checkpoint threshold. */
function writtenRow(id: number): { id: number; text: string } {
  return { id, text: `${id}-${'w'.repeat(2000)}` }
}

function seedText(id: number): string {
  return `seed-${id}-${'x'.repeat(400)}`
}

/** Rows `from`..`to` of the seed, as inserted. */
function seedRows(from: number, to: number): Array<{ id: number; text: string }> {
  return Array.from({ length: to - from }, (_, i) => ({ id: from + i, text: seedText(from + i) }))
}
