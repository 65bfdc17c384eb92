// The change tail's cost to the server in CPU time: P10's shape (durable inserts, 64
// in flight, through the embedding API of a served database) with TAILS WebSocket
// tails attached (P10's consumer child, one process) and without, in one process per
// build. With `--build DIR` (repeatable) each other checkout's build (its dist/) is
// loaded into this same process with a database and a server of its own, and the
// builds' batches alternate in a random order each round: so every build meets the
// same machine load, which on a shared 2-core machine moves from second to second
// far more than the figure does. Printed per build: the median CPU time of the process
// (user + system, the storage core's threads included) per insert without a tail, with
// the tails, and the difference, the tails' own cost (docs/performance.md, "The tail
// off the commit path, encoded once").
//
//   npm run build:bench && node dist/bench-build/bench/tail-cpu.js [--tails 10] [--inserts 4000] [--reps 8] [--build ../old]
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { parseArgs } from 'node:util'
import { startNodeChild, waitForJson } from './harness/child.js'
import { key, value, writeSchema } from './harness/data.js'
import { inFlight } from './harness/in-flight.js'

const { values } = parseArgs({
  options: {
    tails: { type: 'string', default: '1' },
    inserts: { type: 'string', default: '4000' },
    reps: { type: 'string', default: '8' },
    build: { type: 'string', multiple: true, default: [] },
  },
})
const tails = Number(values.tails)
const inserts = Number(values.inserts)
const reps = Number(values.reps)
const width = 64
const token = `tail-cpu-${process.hrtime.bigint()}`

type Tenant = { query(text: string, params?: Record<string, unknown>): Promise<unknown> }
type Database = { tenant(name: string): Tenant; close(): Promise<unknown> }
type DatabaseClass = { open(dir: string, options: { schema: string[] }): Promise<Database> }
type Server = { listen(options: { host: string; port: number }): Promise<unknown>; close(): Promise<unknown>; server: { address(): unknown } }
type BuildServer = (options: { db: Database; token: string; logger: false }) => Promise<Server>

interface Build {
  name: string
  db: Database
  app: Server
  port: number
  dir: string
  serial: number
  without: number[]
  with: number[]
}

async function load(name: string, root: URL): Promise<Build> {
  const { Database } = (await import(new URL('index.js', root).href)) as { Database: DatabaseClass }
  const { buildServer } = (await import(new URL('http/index.js', root).href)) as { buildServer: BuildServer }
  const dir = mkdtempSync(join(tmpdir(), 'tenantdb-tail-cpu-'))
  const db = await Database.open(join(dir, 'db'), { schema: [writeSchema(dir)] })
  const app = await buildServer({ db, token, logger: false })
  await app.listen({ host: '127.0.0.1', port: 0 })
  const address = app.server.address() as { port: number }
  return { name, db, app, port: address.port, dir, serial: 0, without: [], with: [] }
}

/** CPU µs of this process per insert, over `inserts` inserts with `width` in flight. */
async function batch(build: Build): Promise<number> {
  const tenant = build.db.tenant('default')
  const cpu = process.cpuUsage()
  await inFlight(inserts, width, async () => {
    const n = build.serial++
    await tenant.query('insert kv {k: $k, v: $v}', { k: key(n), v: value(n) })
  })
  const used = process.cpuUsage(cpu)
  return (used.user + used.system) / inserts
}

/** The tails' consumer, opened after every insert so far; resolves once it has every event of the batch. */
async function tailed(build: Build): Promise<number> {
  // `after` absent would replay the whole history: start after the newest commit instead.
  const after = await newestLsn(build)
  const client = startNodeChild('tail-client', [`ws://127.0.0.1:${build.port}/api/v1/t/default/tail?token=${token}&after=${after}&collection=kv`, String(inserts), String(tails)])
  try {
    await waitForJson(client, 'open')
    const cpu = await batch(build)
    const { counts } = await waitForJson<{ counts: number[] }>(client, 'events')
    if (counts.some((n) => n !== inserts)) throw new Error(`${build.name}: tails received ${counts.join(', ')} events, not ${inserts} each`)
    return cpu
  } finally {
    await client.kill()
  }
}

/** The LSN of the newest commit: one more insert's, which the tails then do not expect. */
async function newestLsn(build: Build): Promise<number> {
  const n = build.serial++
  const result = (await build.db.tenant('default').query('insert kv {k: $k, v: $v}', { k: key(n), v: value(n) })) as { lsn: number }
  return result.lsn
}

const builds = [await load('this checkout', new URL('../src/', import.meta.url))]
for (const dir of values.build) builds.push(await load(dir, pathToFileURL(join(resolve(dir), 'dist/'))))
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number
try {
  for (let round = 0; round <= reps; round += 1) {
    const order = [...builds].sort(() => Math.random() - 0.5)
    for (const build of order) {
      const without = await batch(build)
      const withTails = await tailed(build)
      // Round 0 warms each build up.
      if (round === 0) continue
      build.without.push(without)
      build.with.push(withTails)
    }
  }
  console.log(`server CPU per insert, ${inserts} inserts ${width} in flight, ${tails} tail(s) in one consumer process, median of ${reps}:`)
  for (const build of builds) {
    const extra = build.with.map((w, i) => w - (build.without[i] as number))
    console.log(`  ${build.name}: without ${median(build.without).toFixed(1)} µs, with ${median(build.with).toFixed(1)} µs, the tails' own ${median(extra).toFixed(1)} µs (${extra.map((x) => x.toFixed(0)).join(' ')})`)
  }
} finally {
  for (const build of builds) {
    await build.app.close()
    await build.db.close()
    rmSync(build.dir, { recursive: true, force: true })
  }
}
