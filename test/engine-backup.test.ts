// The engine's online backup through the binding (src/engine/backup.ts): the files and
// their bytes, reads that stop at what is copied, reads refused once the backup ended
// or the engine closed; a checkpoint or compaction asked for during a backup settles
// only after it ends (the facade waits, off every thread), also when the request
// reaches the storage core before the backup does; close ends backups left open.
// Breaks when the facade lets the core's refusal through or waits on a thread.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { Engine } from '../src/engine/index.js'
import { tempDir } from './helpers/temp-dir.js'

const bytes = (text: string) => Buffer.from(text)

async function filled(dir: string): Promise<Engine> {
  const engine = await Engine.open(dir)
  for (let i = 0; i < 50; i++) await engine.commit([{ op: 'put', tree: 't', key: bytes(`k${i}`), value: Buffer.alloc(500, i) }])
  await engine.checkpoint()
  return engine
}

t.test('a backup lists the files and reads exactly their listed bytes', async (t) => {
  const dir = join(tempDir(t), 'db')
  const engine = await filled(dir)
  t.teardown(() => engine.close())
  const backup = await engine.beginBackup()
  t.equal(backup.lsn, engine.headLsn(), 'at the newest durable LSN')
  t.same(backup.files.map((f) => f.path.replace(/\d{20}/, 'N')), ['pages', 'checkpoint.journal', 'wal/N.wal'])
  const pages = backup.files[0] as { path: string; bytes: number }
  const all = await backup.read(0, 0, pages.bytes + 4096)
  t.equal(all.length, pages.bytes, 'a read stops at the bytes listed')
  t.same(all, readFileSync(join(dir, 'pages')), 'the page file as it is on disk')
  t.equal((await backup.read(0, pages.bytes, 100)).length, 0, 'nothing past them')
  await t.rejects(backup.read(7, 0, 10), { code: 'invalid_argument' }, 'a file the backup does not list')
  backup.end()
  backup.end()
  t.ok(backup.ended)
  await t.rejects(backup.read(0, 0, 10), { code: 'invalid_argument', message: /the backup has ended/ })
})

t.test('a checkpoint or compaction asked for during a backup settles after it ends', async (t) => {
  const engine = await filled(join(tempDir(t), 'db'))
  t.teardown(() => engine.close())
  const order: string[] = []
  const backup = await engine.beginBackup()
  const checkpointing = engine.checkpoint().then(() => order.push('checkpoint'))
  const compacting = engine.compactSpace().then(() => order.push('compaction'))
  // Reads go on meanwhile (the waits hold no thread-pool thread).
  for (let i = 0; i < 20; i++) await backup.read(0, 0, 4096)
  order.push('end')
  backup.end()
  await Promise.all([checkpointing, compacting])
  t.same(order.slice(0, 1), ['end'], `both settled after the backup ended (${order.join(', ')})`)
})

t.test('a checkpoint that reaches the core before a backup it was asked for after is still waited for', async (t) => {
  const engine = await filled(join(tempDir(t), 'db'))
  t.teardown(() => engine.close())
  // Asked for first, so the facade lets it go at once; which of the two the thread
  // pool runs first is up to it: both orders must end with the checkpoint done.
  for (let i = 0; i < 20; i++) {
    await engine.commit([{ op: 'put', tree: 't', key: bytes('again'), value: Buffer.alloc(100, i) }])
    const checkpointing = engine.checkpoint()
    const backup = await engine.beginBackup()
    await backup.read(0, 0, 4096)
    backup.end()
    const report = await checkpointing
    t.ok(report.checkpoint_lsn > 0, `round ${i}: the checkpoint completed`)
  }
})

t.test('close ends a backup left open, and its checkpoint runs', async (t) => {
  const engine = await filled(join(tempDir(t), 'db'))
  const backup = await engine.beginBackup()
  const closed = await engine.close()
  t.equal(closed.checkpoint_skipped, null, 'the closing checkpoint was not skipped')
  t.ok(backup.ended, 'the backup was ended')
  await t.rejects(backup.read(0, 0, 10))
})
