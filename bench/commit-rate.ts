// First measurement of the storage core (issue 3): durable single commits per second
// against raw fdatasync on the same directory, and 64 concurrent commits against
// single ones (group commit). Every figure is a ratio to an anchor measured in the
// same run; each is the median of `--reps` repetitions after a warm-up.
//
//   npm run bench:commit [-- --reps 5 --out results.json]
import { closeSync, mkdtempSync, openSync, rmSync, writeFileSync, fdatasyncSync, writeSync } from 'node:fs'
import { cpus, tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { Engine } from '../src/engine/index.js'

const { values } = parseArgs({ options: { reps: { type: 'string', default: '5' }, out: { type: 'string' }, dir: { type: 'string' } } })
const reps = Number(values.reps)
const base = values.dir ?? tmpdir()
const value = Buffer.alloc(150, 'v')
const key = (i: number) => Buffer.from(`key-${String(i).padStart(20, '0')}`) // 24 bytes

function median(xs: number[]): number {
  const sorted = [...xs].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)] as number
}

async function timed(count: number, run: () => Promise<void> | void): Promise<number> {
  const started = process.hrtime.bigint()
  await run()
  return count / (Number(process.hrtime.bigint() - started) / 1e9)
}

function fdatasyncRate(dir: string, count: number): Promise<number> {
  const fd = openSync(join(dir, 'anchor.log'), 'a')
  const record = Buffer.alloc(24 + 150 + 32, 1)
  return timed(count, () => {
    for (let i = 0; i < count; i += 1) {
      writeSync(fd, record)
      fdatasyncSync(fd)
    }
  }).finally(() => closeSync(fd))
}

async function serialRate(engine: Engine, count: number, offset: number): Promise<number> {
  return timed(count, async () => {
    for (let i = 0; i < count; i += 1) {
      await engine.commit([{ op: 'put', tree: 'kv', key: key(offset + i), value }])
    }
  })
}

async function concurrentRate(engine: Engine, count: number, inFlight: number, offset: number): Promise<number> {
  return timed(count, async () => {
    let next = 0
    const worker = async () => {
      while (next < count) {
        const i = next++
        await engine.commit([{ op: 'put', tree: 'kv', key: key(offset + i), value }])
      }
    }
    await Promise.all(Array.from({ length: inFlight }, worker))
  })
}

const dir = mkdtempSync(join(base, 'tenantdb-bench-'))
try {
  const engine = await Engine.open(join(dir, 'db'))
  const serialCount = 1000
  const concurrentCount = 20000
  // Warm-up: page cache, WAL segment, JIT.
  await fdatasyncRate(dir, 200)
  await serialRate(engine, 200, 9_000_000)
  await concurrentRate(engine, 2000, 64, 9_100_000)
  const raw: Record<string, number[]> = { fdatasync: [], p1_serial: [], p2_concurrent64: [] }
  for (let rep = 0; rep < reps; rep += 1) {
    raw.fdatasync!.push(await fdatasyncRate(dir, serialCount))
    raw.p1_serial!.push(await serialRate(engine, serialCount, rep * 1_000_000))
    raw.p2_concurrent64!.push(await concurrentRate(engine, concurrentCount, 64, rep * 1_000_000 + 500_000))
    process.stderr.write(`rep ${rep + 1}/${reps}\r`)
  }
  const stats = engine.stats()
  await engine.close()
  const fdatasync = median(raw.fdatasync!)
  const p1 = median(raw.p1_serial!)
  const p2 = median(raw.p2_concurrent64!)
  const rows = [
    ['raw fdatasync (append 206 B + fdatasync)', fdatasync, '1.00× (anchor)'],
    ['P1 durable single commits, awaited one by one', p1, `${(p1 / fdatasync).toFixed(2)}× fdatasync`],
    ['P2 durable commits, 64 in flight', p2, `${(p2 / p1).toFixed(1)}× P1`],
  ] as const
  process.stdout.write(`\ncommit rate, median of ${reps} (${cpus().length} cores, ${dir})\n`)
  for (const [name, rate, ratio] of rows) {
    process.stdout.write(`  ${name.padEnd(48)} ${Math.round(rate).toString().padStart(8)} /s   ${ratio}\n`)
  }
  const fsyncs = stats.fsync.count
  process.stdout.write(`  fsyncs: ${fsyncs}, max ${stats.fsync.max_micros} µs, mean ${Math.round(stats.fsync.sum_micros / fsyncs)} µs\n`)
  if (values.out !== undefined) {
    writeFileSync(values.out, `${JSON.stringify({ cores: cpus().length, reps, raw, median: { fdatasync, p1, p2 }, fsync: stats.fsync }, null, 2)}\n`)
  }
} finally {
  rmSync(dir, { recursive: true, force: true })
}
