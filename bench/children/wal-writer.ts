// P8's writer: fills the WAL of a database with real commits (blocks of inserted
// rows) and no checkpoint, prints one JSON line when `target` bytes await replay, and
// keeps writing until the parent kills it with SIGKILL.
//
//   node wal-writer.js DIR TARGET_BYTES
import { rows } from '../harness/data.js'
import { inFlight } from '../harness/in-flight.js'
import { openKv } from '../harness/tenantdb.js'
import { no_checkpoint } from '../harness/recovery-options.js'
import { internalsOf } from '../../src/database/internals.js'

const [dir, target] = process.argv.slice(2)
if (dir === undefined || target === undefined) throw new Error('usage: wal-writer DIR TARGET_BYTES')
const db = await openKv(dir, no_checkpoint)
const tenant = db.tenant('default')
const block = 100
let next = 0
let announced = false
for (;;) {
  await inFlight(64, 8, async () => {
    const from = next
    next += block
    await tenant.query('insert kv $rows', { rows: rows(from, block) })
  })
  const stats = internalsOf(db).engine.stats()
  if (!announced && stats.lag_bytes >= Number(target)) {
    announced = true
    process.stdout.write(`${JSON.stringify({ ready: true, lag_bytes: stats.lag_bytes, lsn: stats.current_lsn, rows: next })}\n`)
  }
}
