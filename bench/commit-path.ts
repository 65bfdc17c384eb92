// The engine's commit path, measured in CPU time as well as wall time: CommitWriter's
// payload through the binding, the storage core's check, apply, WAL write and fsync,
// to the settled promise. CPU time (user + system of the whole process, the sync
// thread included) is the figure that means something on a loaded machine, where wall
// time mostly measures the scheduler and the disk. Two workloads: one bulk commit of
// `--rows` puts, and `--commits` one-put commits with 64 in flight (group commit).
//
//   npm run bench:commit [-- --reps 5 --rows 200000 --commits 20000]
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { CommitWriter, Engine } from '../src/engine/index.js'

const { values } = parseArgs({
  options: { reps: { type: 'string', default: '5' }, rows: { type: 'string', default: '200000' }, commits: { type: 'string', default: '20000' } },
})
const reps = Number(values.reps)
const rows = Number(values.rows)
const commits = Number(values.commits)
const in_flight = 64

const key = (n: number) => Buffer.from(`key${String(n).padStart(12, '0')}`)
const value = Buffer.alloc(100, 7)
const meta = Buffer.from('{"tenant":"default"}')
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number

/** Runs `work` on a fresh engine; returns [wall ms, CPU ms]. */
async function measured(work: (engine: Engine) => Promise<void>, prepare: () => void = () => {}): Promise<[number, number]> {
  const dir = mkdtempSync(join(tmpdir(), 'tenantdb-commit-path-'))
  const engine = await Engine.open(dir)
  try {
    prepare()
    const cpu = process.cpuUsage()
    const started = process.hrtime.bigint()
    await work(engine)
    const used = process.cpuUsage(cpu)
    return [Number(process.hrtime.bigint() - started) / 1e6, (used.user + used.system) / 1000]
  } finally {
    await engine.close()
    rmSync(dir, { recursive: true })
  }
}

const bulk: Array<[number, number]> = []
const small: Array<[number, number]> = []
for (let rep = 0; rep < reps; rep += 1) {
  let payload: Buffer = Buffer.alloc(0)
  bulk.push(await measured(async (engine) => { await engine.commitPayload(payload) }, () => {
    const writer = new CommitWriter()
    for (let i = 0; i < rows; i += 1) writer.put('t', key(i), value)
    payload = writer.finish(meta)
  }))
  small.push(await measured(async (engine) => {
    let next = 0
    await Promise.all(Array.from({ length: in_flight }, async () => {
      while (next < commits) {
        const writer = new CommitWriter()
        writer.put('t', key(next++), value)
        await engine.commitPayload(writer.finish(meta))
      }
    }))
  }))
}
const ms = (x: number) => x.toFixed(0)
process.stdout.write(
  `bulk commit of ${rows} puts: wall ${ms(median(bulk.map(([w]) => w)))} ms, CPU ${ms(median(bulk.map(([, c]) => c)))} ms (median of ${reps})\n` +
  `${commits} one-put commits, ${in_flight} in flight: ${ms(commits / (median(small.map(([w]) => w)) / 1000))} commits/s, ` +
  `CPU ${(median(small.map(([, c]) => c)) * 1000 / commits).toFixed(1)} µs per commit (median of ${reps})\n`,
)
