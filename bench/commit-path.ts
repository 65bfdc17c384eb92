// The engine's commit path, measured in CPU time as well as wall time: CommitWriter's
// payload through the binding, the storage core's check, apply, WAL write and fsync,
// to the settled promise. CPU time (user + system of the whole process, the sync
// thread included) is the figure that means something on a loaded machine, where wall
// time mostly measures the scheduler and the disk. Three workloads: one bulk commit of
// `--rows` puts, `--commits` one-put commits with 64 in flight (group commit), and
// `--serial` one-put commits awaited one by one (a lone commit: its wall time beside
// raw append + fdatasync of the same directory, in the same rounds).
//
//   npm run bench:commit [-- --reps 5 --rows 200000 --commits 20000 --serial 1000]
import { closeSync, fdatasyncSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { CommitWriter, Engine } from '../src/engine/index.js'

const { values } = parseArgs({
  options: { reps: { type: 'string', default: '5' }, rows: { type: 'string', default: '200000' }, commits: { type: 'string', default: '20000' }, serial: { type: 'string', default: '1000' } },
})
const reps = Number(values.reps)
const rows = Number(values.rows)
const commits = Number(values.commits)
const serialCommits = Number(values.serial)
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

/** [wall ms, CPU ms] of `count` appends of a commit-sized record, each fdatasync'd (P1's anchor). */
function fdatasyncs(count: number): [number, number] {
  const dir = mkdtempSync(join(tmpdir(), 'tenantdb-commit-path-'))
  const fd = openSync(join(dir, 'anchor.log'), 'a')
  const record = Buffer.alloc(206, 1)
  try {
    const cpu = process.cpuUsage()
    const started = process.hrtime.bigint()
    for (let i = 0; i < count; i += 1) {
      writeSync(fd, record)
      fdatasyncSync(fd)
    }
    const used = process.cpuUsage(cpu)
    return [Number(process.hrtime.bigint() - started) / 1e6, (used.user + used.system) / 1000]
  } finally {
    closeSync(fd)
    rmSync(dir, { recursive: true })
  }
}

const bulk: Array<[number, number]> = []
const small: Array<[number, number]> = []
const serial: Array<[number, number]> = []
const anchor: Array<[number, number]> = []
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
  if (serialCommits > 0) {
    anchor.push(fdatasyncs(serialCommits))
    serial.push(await measured(async (engine) => {
      for (let i = 0; i < serialCommits; i += 1) {
        const writer = new CommitWriter()
        writer.put('t', key(i), value)
        await engine.commitPayload(writer.finish(meta))
      }
    }))
  }
}
const ms = (x: number) => x.toFixed(0)
process.stdout.write(
  `bulk commit of ${rows} puts: wall ${ms(median(bulk.map(([w]) => w)))} ms, CPU ${ms(median(bulk.map(([, c]) => c)))} ms (median of ${reps})\n` +
  `${commits} one-put commits, ${in_flight} in flight: ${ms(commits / (median(small.map(([w]) => w)) / 1000))} commits/s, ` +
  `CPU ${(median(small.map(([, c]) => c)) * 1000 / commits).toFixed(1)} µs per commit (median of ${reps})\n`,
)
if (serialCommits > 0) {
  const rate = (runs: Array<[number, number]>) => serialCommits / (median(runs.map(([w]) => w)) / 1000)
  const ratios = serial.map(([w], i) => (anchor[i] as [number, number])[0] / w)
  process.stdout.write(
    `${serialCommits} one-put commits awaited one by one: ${ms(rate(serial))} commits/s, ` +
    `CPU ${(median(serial.map(([, c]) => c)) * 1000 / serialCommits).toFixed(1)} µs per commit; ` +
    `raw append + fdatasync ${ms(rate(anchor))}/s, CPU ${(median(anchor.map(([, c]) => c)) * 1000 / serialCommits).toFixed(1)} µs; ` +
    `ratio ${median(ratios).toFixed(2)}× (${ratios.map((r) => r.toFixed(2)).join(', ')}) (median of ${reps})\n`,
  )
}
