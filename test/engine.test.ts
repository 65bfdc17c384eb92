// The vertical slice: TypeScript reaches the Rust storage core through the binding.
import { join } from 'node:path'
import { realpathSync } from 'node:fs'
import t from 'tap'
import { Engine, EngineError } from '../src/engine/index.js'
import { tempDir } from './helpers/temp-dir.js'

t.test('open creates the directory, stats describe it, close releases it', async (t) => {
  const dir = join(tempDir(t), 'db')
  const engine = await Engine.open(dir)
  const stats = engine.stats()
  t.equal(stats.db_dir, realpathSync(dir))
  t.equal(stats.page_count, 2, 'a new directory holds its two meta slots')
  t.equal(stats.checkpoint_lsn, 0)
  t.equal(stats.page_file_bytes, 2 * 4096)
  t.equal(engine.isOpen, true)
  engine.close()
  t.equal(engine.isOpen, false)
  engine.close() // idempotent
  t.throws(() => engine.stats(), { name: 'EngineError', code: 'closed' })
})

t.test('lock: a second opener gets a typed, clear error', async (t) => {
  const dir = tempDir(t)
  const first = await Engine.open(dir)
  const err = await Engine.open(dir).then(() => undefined, (e: unknown) => e)
  t.type(err, EngineError)
  t.equal((err as EngineError).code, 'locked')
  t.match((err as EngineError).message, /is locked by another process/)
  first.close()
  const again = await Engine.open(dir)
  t.equal(again.stats().page_count, 2, 'reopened after close')
  again.close()
})

t.test('an unusable path is an io error, not a crash', async (t) => {
  const err = await Engine.open('/proc/version/not-a-dir').then(() => undefined, (e: unknown) => e)
  t.type(err, EngineError)
  t.equal((err as EngineError).code, 'io')
})
