// Durable single-row inserts over HTTP at 64 connections (docs/performance.md, "Writes
// over HTTP that group"): a server built with buildServer in this process, on
// 127.0.0.1, logging as `serve` does (info, written asynchronously, here to /dev/null),
// and autocannon in a child process of its own posting `insert kv {k: $k, v: $v}` with
// a distinct key per request (autocannon's id replacement). Reported per repetition:
// inserts/s, the server's CPU per insert (user + system of this process: the event loop
// and the storage core's sync thread, not the load generator), and commits per fsync
// (the committer's settled commits against the engine's fsync count). `--rate N` offers
// N requests/s in all instead of as many as the server answers: the CPU per insert and
// the grouping of two versions compared at the same load. `--bare` runs
// bare fastify (bench/children/bare-fastify.ts) under the same load in the same rounds,
// for the ratio. `--build DIR` measures another checkout's build (its dist/). Run under `node --cpu-prof` to profile the server alone.
//
//   npm run build:bench && node dist/bench-build/bench/http-writes.js [--reps 3 --duration 10 --connections 64 --bare --build ../old]
import { spawn } from 'node:child_process'
import { closeSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { pathToFileURL } from 'node:url'
import { startNodeChild, waitForJson } from './harness/child.js'
import { kv_schema, value } from './harness/data.js'

const { values } = parseArgs({
  options: {
    reps: { type: 'string', default: '3' },
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '64' },
    bare: { type: 'boolean', default: false },
    log: { type: 'string', default: 'info' },
    build: { type: 'string' },
    rate: { type: 'string' },
    read: { type: 'boolean', default: false },
  },
})
// This checkout's sources, or another checkout's build (its dist/), to set two versions side by side.
const from = (file: string) => values.build === undefined ? new URL(`../src/${file}`, import.meta.url).href : pathToFileURL(join(resolve(values.build), 'dist', file)).href
const { Database } = (await import(from('database/index.js'))) as typeof import('../src/database/index.js')
const { buildServer } = (await import(from('http/index.js'))) as typeof import('../src/http/index.js')
const { LogDestination } = (await import(from('cli/log-destination.js'))) as typeof import('../src/cli/log-destination.js')
const reps = Number(values.reps)
const duration_s = Number(values.duration)
const connections = Number(values.connections)
const autocannon_cli = createRequire(import.meta.url).resolve('autocannon')
const path = '/api/v1/t/default/query'
// `[<id>]` is replaced by autocannon with a new id in every request: a distinct key each.
const unit = values.read ? 'reads' : 'inserts'
const body = values.read
  ? JSON.stringify({ query: 'kv | get $k', params: { k: '[<id>]' } })
  : JSON.stringify({ query: 'insert kv {k: $k, v: $v}', params: { k: '[<id>]', v: value(7) } })

interface Load { requests_per_s: number; requests: number; non2xx: number; errors: number }

/** autocannon's CLI in a child process, so it does not share this process's CPU count or event loop. */
async function load(url: string, headers: Record<string, string>): Promise<Load> {
  const args = [autocannon_cli, '-c', String(connections), '-d', String(duration_s), '-m', 'POST', '-b', body, '-I', '-j']
  if (values.rate !== undefined) args.push('-R', values.rate)
  for (const [name, v] of Object.entries(headers)) args.push('-H', `${name}=${v}`)
  args.push(url)
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] })
  let out = ''
  child.stdout.on('data', (chunk: Buffer) => { out += chunk.toString() })
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve))
  if (code !== 0) throw new Error(`autocannon exited with ${code}`)
  const result = JSON.parse(out) as { requests: { average: number; total: number }; non2xx: number; errors: number; timeouts: number }
  return { requests_per_s: result.requests.average, requests: result.requests.total, non2xx: result.non2xx, errors: result.errors + result.timeouts }
}

/** CPU ticks (user + system, 1/100 s) of this process's threads, summed by thread name (Linux /proc). */
function threadTicks(): Map<string, number> {
  const ticks = new Map<string, number>()
  for (const tid of readdirSync('/proc/self/task')) {
    try {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8')
      // The name is in parentheses and may hold spaces; the fields after it count from 3.
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'))
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      const used = Number(fields[11]) + Number(fields[12])
      const group = tid === String(process.pid) ? 'main' : name.replace(/[0-9]+$/, '')
      ticks.set(group, (ticks.get(group) ?? 0) + used)
    } catch {
      // A thread that ended between the listing and the read.
    }
  }
  return ticks
}

interface Rep { inserts_per_s: number; cpu_us_per_insert: number; commits_per_fsync: number; threads: string; bare_per_s?: number }

async function rep(bare_port: number | null): Promise<Rep> {
  const dir = mkdtempSync(join(tmpdir(), 'tenantdb-http-writes-'))
  const schema = join(dir, 'kv.eel')
  writeFileSync(schema, kv_schema)
  const db = await Database.open(join(dir, 'db'), { schema: [schema] })
  const null_fd = openSync('/dev/null', 'w')
  const token = `bench-${process.hrtime.bigint()}`
  const app = await buildServer({ db, token, logger: values.log === 'off' ? false : { level: values.log, stream: new LogDestination(null_fd) } })
  try {
    await app.listen({ host: '127.0.0.1', port: 0 })
    const address = app.server.address()
    const base = `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}`
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' }
    // The tenant's lazy migration and the first statements' caches, before the count.
    for (let i = 0; i < 50; i += 1) {
      const res = await fetch(`${base}${path}`, { method: 'POST', headers, body: body.replace('[<id>]', `warm-${i}`) })
      if (res.status !== 200) throw new Error(`warm-up: ${res.status} ${await res.text()}`)
    }
    let commits = 0
    const unobserve = db.observeCommits((settled) => { if (settled.outcome === 'committed') commits += 1 })
    const fsyncs = db.healthDetail().fsync.count
    const cpu = process.cpuUsage()
    const ticks = threadTicks()
    const tenantdb = await load(`${base}${path}`, headers)
    const used = process.cpuUsage(cpu)
    const threads = [...threadTicks()]
      .map(([name, t]) => [name, ((t - (ticks.get(name) ?? 0)) * 10_000) / tenantdb.requests] as const)
      .filter(([, us]) => us >= 0.5)
      .sort((a, b) => b[1] - a[1])
      .map(([name, us]) => `${name} ${us.toFixed(0)}`)
      .join(', ')
    const fsynced = db.healthDetail().fsync.count - fsyncs
    unobserve()
    if (tenantdb.non2xx > 0 || tenantdb.errors > 0) throw new Error(`tenantdb: ${tenantdb.non2xx} non-2xx answers, ${tenantdb.errors} errors`)
    const out: Rep = {
      inserts_per_s: tenantdb.requests_per_s,
      cpu_us_per_insert: (used.user + used.system) / tenantdb.requests,
      commits_per_fsync: commits / Math.max(1, fsynced),
      threads,
    }
    if (bare_port !== null) {
      const bare = await load(`http://127.0.0.1:${bare_port}${path}`, { 'content-type': 'application/json' })
      out.bare_per_s = bare.requests_per_s
    }
    return out
  } finally {
    await app.close()
    await db.close()
    closeSync(null_fd)
    rmSync(dir, { recursive: true, force: true })
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number
const bare = values.bare ? startNodeChild('bare-fastify') : null
try {
  const bare_port = bare === null ? null : (await waitForJson<{ port: number }>(bare, 'port')).port
  const results: Rep[] = []
  for (let i = 0; i < reps; i += 1) {
    const r = await rep(bare_port)
    results.push(r)
    const ratio = r.bare_per_s === undefined ? '' : `  bare fastify ${r.bare_per_s.toFixed(0)} req/s, ratio ${(r.inserts_per_s / r.bare_per_s).toFixed(3)}`
    process.stdout.write(`rep ${i + 1}: ${r.inserts_per_s.toFixed(0)} ${unit}/s, ${r.cpu_us_per_insert.toFixed(1)} us CPU/${unit.slice(0, -1)}, ${r.commits_per_fsync.toFixed(1)} commits/fsync${ratio}\n  us CPU/${unit.slice(0, -1)} by thread: ${r.threads}\n`)
  }
  const line = [
    `median of ${reps}: ${median(results.map((r) => r.inserts_per_s)).toFixed(0)} ${unit}/s`,
    `${median(results.map((r) => r.cpu_us_per_insert)).toFixed(1)} us CPU/${unit.slice(0, -1)}`,
    `${median(results.map((r) => r.commits_per_fsync)).toFixed(1)} commits/fsync`,
  ]
  if (bare !== null) {
    line.push(`bare fastify ${median(results.map((r) => r.bare_per_s ?? 0)).toFixed(0)} req/s`)
    line.push(`ratio ${median(results.map((r) => r.inserts_per_s / (r.bare_per_s ?? 1))).toFixed(3)}`)
  }
  process.stdout.write(`${line.join(', ')}\n`)
} finally {
  await bare?.kill()
}
