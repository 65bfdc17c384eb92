// Tenant operations against tenant size, through the embedding API: fork and snapshot
// of a tenant with 1e3 and 1e5 rows, and a diff of 100 changed rows between a
// snapshot and head at 1e4 and 1e5 rows. Forks and snapshots share subtrees, and a
// diff skips shared ones, so each should cost about the same at every size: the
// figures that matter are the ratios between sizes (goal: within 2x; fork and
// snapshot p99 <= 1 ms).
//
// Every fork and snapshot waits for one durable commit, so fsync noise (other work on
// the machine, writeback after the bulk load) dominates single figures. To keep it out
// of the ratios, all sizes are loaded first and then measured interleaved, and a bare
// one-put engine commit is timed alongside each as the floor.
//
//   npm run bench:tenants [-- --quick] [-- --out results.json] [-- --dir /fast/disk]
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { cpus, tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { Database } from '../src/database/index.js'

const { values } = parseArgs({ options: { quick: { type: 'boolean', default: false }, out: { type: 'string' }, dir: { type: 'string' } } })
// Full: 100 forks and 100 snapshots per size, so p99 is the 99th of 100; 25 diffs.
const opsPerSize = values.quick ? 20 : 100
const diffReps = values.quick ? 5 : 25
const warmup = values.quick ? 3 : 10
const chunk = 10_000
const changed = 100
const base = values.dir ?? tmpdir()

const key = (i: number) => `key-${String(i).padStart(20, '0')}` // 24 bytes
const value = (i: number, tag: string) => `${tag}-${i}-`.padEnd(150, 'v') // 150 bytes

interface Summary { median: number; p99: number; n: number }

function summary(ms: number[]): Summary {
  const sorted = [...ms].sort((a, b) => a - b)
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] as number
  return { median: at(0.5), p99: at(0.99), n: sorted.length }
}

async function timeMs(run: () => unknown): Promise<number> {
  const started = process.hrtime.bigint()
  await run()
  return Number(process.hrtime.bigint() - started) / 1e6
}

/** A fresh database whose tenant `default` holds `rows` rows, checkpointed to disk. */
async function loaded(dir: string, schema: string, rows: number): Promise<Database> {
  const db = await Database.open(dir, { schema: [schema] })
  const tenant = db.tenant('default')
  for (let from = 0; from < rows; from += chunk) {
    const batch = Array.from({ length: Math.min(chunk, rows - from) }, (_, j) => ({ k: key(from + j), v: value(from + j, 'a') }))
    await tenant.query('insert kv $rows', { rows: batch })
  }
  await db.engine.checkpoint()
  return db
}

type Samples = Record<'fork' | 'snapshot' | 'commit', number[]>

/** Forks, snapshots and bare commits, alternating between the databases each round. */
async function forksAndSnapshots(dbs: Database[]): Promise<Samples[]> {
  const samples = dbs.map((): Samples => ({ fork: [], snapshot: [], commit: [] }))
  for (let i = 0; i < warmup + opsPerSize; i += 1) {
    const order = i % 2 === 0 ? dbs.keys() : [...dbs.keys()].reverse()
    for (const d of order) {
      const db = dbs[d] as Database
      const fork = await timeMs(() => db.ops({ op: 'fork', name: 'default', target: `f${i}` }))
      const snapshot = await timeMs(() => db.ops({ op: 'snapshot', name: 'default', target: `s${i}` }))
      const commit = await timeMs(() => db.engine.commit([{ op: 'put', tree: 'bench/floor', key: Buffer.from(String(i)), value: Buffer.from('x') }]))
      if (i < warmup) continue
      const s = samples[d] as Samples
      s.fork.push(fork)
      s.snapshot.push(snapshot)
      s.commit.push(commit)
    }
  }
  return samples
}

/** Snapshot, then change `changed` rows spread over the whole key range and checkpoint. */
async function prepareDiff(db: Database, rows: number): Promise<() => void> {
  const tenant = db.tenant('default')
  await db.ops({ op: 'snapshot', name: 'default', target: 'base' })
  const step = Math.floor(rows / changed)
  const updates = Array.from({ length: changed }, (_, j) => ({ k: key(j * step), v: value(j * step, 'b') }))
  await tenant.query('upsert kv $rows', { rows: updates })
  await db.engine.checkpoint()
  return () => {
    const n = tenant.diff({ from: 'base', collection: 'kv' }).collections.kv?.changed.length
    if (n !== changed) throw new Error(`diff found ${n} changed rows, expected ${changed}`)
  }
}

/** The first diff of each (fewer nodes cached), then `diffReps` more, alternating. */
async function diffs(runs: Array<() => void>): Promise<Array<{ ms: number[]; first_ms: number }>> {
  const first: number[] = []
  for (const run of runs) first.push(await timeMs(run))
  const ms = runs.map((): number[] => [])
  for (let rep = 0; rep < diffReps; rep += 1) {
    for (const [i, run] of runs.entries()) ms[i]?.push(await timeMs(run))
  }
  return runs.map((_, i) => ({ ms: ms[i] as number[], first_ms: first[i] as number }))
}

const sizes = [1e3, 1e4, 1e5] as const
const root = mkdtempSync(join(base, 'tenantdb-bench-'))
const dbs: Database[] = []
try {
  const schema = join(root, 'kv.eel')
  writeFileSync(schema, 'collection kv { k: string primary, v: string }\n')
  for (const rows of sizes) {
    process.stderr.write(`loading ${rows} rows\n`)
    dbs.push(await loaded(join(root, `db-${rows}`), schema, rows))
  }
  const [small, middle, large] = dbs as [Database, Database, Database]
  process.stderr.write('forks and snapshots\n')
  const [forkSmall, forkLarge] = (await forksAndSnapshots([small, large])).map((s) => ({
    fork: summary(s.fork), snapshot: summary(s.snapshot), commit: summary(s.commit),
  })) as [Record<keyof Samples, Summary>, Record<keyof Samples, Summary>]
  process.stderr.write('diffs\n')
  const [diffMiddle, diffLarge] = (await diffs([await prepareDiff(middle, 1e4), await prepareDiff(large, 1e5)])).map((d) => ({
    ...summary(d.ms), first_ms: d.first_ms,
  })) as [Summary & { first_ms: number }, Summary & { first_ms: number }]

  const f = (ms: number) => ms.toFixed(3).padStart(8)
  const row = (name: string, a: Summary, b: Summary, p99: boolean) =>
    `  ${name.padEnd(24)} ${f(a.median)} ${f(b.median)} ${`${(b.median / a.median).toFixed(2)}x`.padStart(7)}` +
    (p99 ? `   ${f(a.p99)} ${f(b.p99)}` : '')
  const out = process.stdout
  out.write(`\ntenant operations in ms (${cpus().length} cores; ${values.quick ? 'quick' : 'full'} run; ${root})\n`)
  out.write(`  ${''.padEnd(24)} ${'median'.padStart(17)} ${'ratio'.padStart(7)}   ${'p99'.padStart(17)}\n`)
  out.write(`  ${'1e3 | 1e5 rows'.padEnd(24)} ${'1e3'.padStart(8)} ${'1e5'.padStart(8)} ${'1e5/1e3'.padStart(7)}   ${'1e3'.padStart(8)} ${'1e5'.padStart(8)}\n`)
  out.write(`${row(`fork (n=${opsPerSize})`, forkSmall.fork, forkLarge.fork, true)}\n`)
  out.write(`${row(`snapshot (n=${opsPerSize})`, forkSmall.snapshot, forkLarge.snapshot, true)}\n`)
  out.write(`${row('floor: bare commit', forkSmall.commit, forkLarge.commit, true)}\n`)
  out.write(`  ${'1e4 | 1e5 rows'.padEnd(24)} ${'1e4'.padStart(8)} ${'1e5'.padStart(8)} ${'1e5/1e4'.padStart(7)}\n`)
  out.write(`${row(`diff 100 rows (n=${diffReps})`, diffMiddle, diffLarge, false)}\n`)
  out.write(`  ${'diff, first run'.padEnd(24)} ${f(diffMiddle.first_ms)} ${f(diffLarge.first_ms)}\n`)
  out.write('  goals: ratios within 2x; fork and snapshot p99 <= 1 ms (each waits for one durable commit, as does the floor)\n')
  if (values.out !== undefined) {
    const result = {
      cores: cpus().length, quick: values.quick, ops_per_size: opsPerSize, diff_reps: diffReps, changed_rows: changed,
      fork: { '1e3': forkSmall.fork, '1e5': forkLarge.fork, ratio: forkLarge.fork.median / forkSmall.fork.median },
      snapshot: { '1e3': forkSmall.snapshot, '1e5': forkLarge.snapshot, ratio: forkLarge.snapshot.median / forkSmall.snapshot.median },
      commit_floor: { '1e3': forkSmall.commit, '1e5': forkLarge.commit },
      diff: { '1e4': diffMiddle, '1e5': diffLarge, ratio: diffLarge.median / diffMiddle.median },
    }
    writeFileSync(values.out, `${JSON.stringify(result, null, 2)}\n`)
  }
} finally {
  for (const db of dbs) await db.close()
  rmSync(root, { recursive: true, force: true })
}
