// P14: replication in sync mode (docs/replication.md). Durable inserts over HTTP one by
// one (P1's shape) and 64 in flight (P2's shape) against the primary of a two-node
// cluster (a real nats-server, a primary and one follower, each a child process),
// compared with the same requests to a `tenantdb serve` of its own in the same rounds;
// and the follower's lag under the 64-in-flight load: from the primary publishing a
// frame until it is durable on the follower, its p99 over the newest 4096 frames
// (/health/detail `replication.apply_lag_ms`). Beside each rate, the server's CPU
// per insert (bench/harness/server-cpu.ts; the primary's for sync). Needs
// `nats-server` on the PATH (or TENANTDB_NATS_SERVER); without it the workload says
// so and is skipped.
import { spawnSync } from 'node:child_process'
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { startChild, type Child } from '../harness/child.js'
import { key, value, writeSchema } from '../harness/data.js'
import { inFlight } from '../harness/in-flight.js'
import { tenantdb_bin } from '../harness/paths.js'
import { cpuDuring, microsPerRequest } from '../harness/server-cpu.js'
import { latencySummary } from '../harness/stats.js'
import { nowMs, ratePerS } from '../harness/timing.js'
import { Unavailable, type Workload } from '../harness/workload.js'

const width = 64
const nats_binary = process.env.TENANTDB_NATS_SERVER ?? 'nats-server'

interface Server {
  child: Child
  base: string
}

async function serve(dir: string, token: string, extra: string[] = []): Promise<Server> {
  mkdirSync(dir, { recursive: true })
  const child = startChild(process.execPath, [
    tenantdb_bin, 'serve', '--dir', join(dir, 'db'), '--schema', writeSchema(dir), '--host', '127.0.0.1', '--port', '0', '--log-level', 'warn', ...extra,
  ], { SERVICE_TOKEN: token })
  const line = await child.waitFor((l) => l.includes('url: http://'))
  const base = /url: (http:\/\/[^/\s]+)/.exec(line)?.[1]
  if (base === undefined) throw new Error(`cannot read the server's address from '${line}'`)
  return { child, base }
}

export const p14: Workload = {
  id: 'P14',
  title: 'replication: sync commits against a single node, follower lag',
  async run(ctx, rec) {
    if (spawnSync(nats_binary, ['--version']).status !== 0) throw new Unavailable(`${nats_binary} is not installed (apt-get install nats-server)`)
    const count = ctx.size(10_000, 3_000)
    const serialCount = ctx.size(1000, 300)
    const token = `bench-${process.hrtime.bigint()}`
    const root = ctx.scratch('p14')
    const nats = startChild(nats_binary, ['-js', '-sd', join(root, 'nats'), '-a', '127.0.0.1', '-p', '-1'])
    const servers: Server[] = []
    try {
      const natsLine = await nats.waitFor((l) => /Listening for client connections on/.test(l))
      const natsUrl = `nats://127.0.0.1:${/:(\d+)\s*$/.exec(natsLine)?.[1]}`
      const cluster = ['--nats', natsUrl, '--cluster', 'bench', '--replication', 'sync']
      const single = await serve(join(root, 'single'), token)
      const primary = await serve(join(root, 'primary'), token, [...cluster, '--node', 'primary'])
      servers.push(single, primary)
      const post = async (base: string, body: string) => {
        const res = await fetch(`${base}/api/v1/t/default/query`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body })
        const text = await res.text()
        if (res.status !== 200) throw new Error(`${base}: ${res.status} ${text}`)
      }
      const detail = async (base: string) => (await (await fetch(`${base}/api/v1/health/detail`, { headers: { authorization: `Bearer ${token}` } })).json()) as { replication: { role: string; applied_lsn: number; apply_lag_ms: { p99: number; p50: number; max: number; samples: number } | null } | null }
      const until = async (what: string, ok: () => Promise<boolean>) => {
        const deadline = nowMs() + 120_000
        while (!(await ok())) {
          if (nowMs() > deadline) throw new Error(`P14: no ${what} within 2 minutes`)
          await new Promise((resolve) => setTimeout(resolve, 50))
        }
      }
      await until('primary', async () => (await detail(primary.base)).replication?.role === 'primary')
      const follower = await serve(join(root, 'follower'), token, [...cluster, '--node', 'follower'])
      servers.push(follower)
      await until('follower', async () => (await detail(follower.base)).replication?.role === 'follower')

      const insert = (base: string, n: number) => post(base, JSON.stringify({ query: 'insert kv {k: $k, v: $v}', params: { k: key(n), v: value(n) } }))
      const serialLatency: Record<'single' | 'sync', number[]> = { single: [], sync: [] }
      const serial = (base: string, who: 'single' | 'sync', offset: number) => ratePerS(serialCount, async () => {
        for (let i = 0; i < serialCount; i += 1) {
          const t0 = nowMs()
          await insert(base, offset + i)
          serialLatency[who].push(nowMs() - t0)
        }
      })
      // The server's CPU per request (the primary's, for sync), warm-up excluded.
      const cpu: Record<string, number[]> = {}
      const withCpu = async (key: string, server: Server, round: number, requests: number, work: () => Promise<number>) => {
        const { result, cpu_s } = await cpuDuring(server.child.process.pid as number, work)
        if (round > 0) (cpu[key] ??= []).push(microsPerRequest(cpu_s, requests))
        return result
      }
      const lag_p99: number[] = []
      const samples = await ctx.rounds({
        single_p2: (round) => withCpu('single_p2', single, round, count, () => ratePerS(count, () => inFlight(count, width, (i) => insert(single.base, round * 1e7 + i)))),
        sync_p2: async (round) => {
          const rate = await withCpu('sync_p2', primary, round, count, () => ratePerS(count, () => inFlight(count, width, (i) => insert(primary.base, round * 1e7 + i))))
          const head = (await detail(primary.base)).replication?.applied_lsn ?? 0
          await until('follower catching up', async () => ((await detail(follower.base)).replication?.applied_lsn ?? 0) >= head)
          lag_p99.push((await detail(follower.base)).replication?.apply_lag_ms?.p99 ?? Number.NaN)
          return rate
        },
        single_p1: (round) => withCpu('single_p1', single, round, serialCount, () => serial(single.base, 'single', round * 1e7 + 5e6)),
        sync_p1: (round) => withCpu('sync_p1', primary, round, serialCount, () => serial(primary.base, 'sync', round * 1e7 + 5e6)),
      })
      rec.figure('single_p2', 'single node, 64 in flight (P2 over HTTP)', 'commits/s', samples.single_p2)
      rec.figure('sync_p2', 'sync primary, 64 in flight', 'commits/s', samples.sync_p2)
      rec.figure('single_p1', 'single node, one by one (P1 over HTTP)', 'commits/s', samples.single_p1)
      rec.figure('sync_p1', 'sync primary, one by one', 'commits/s', samples.sync_p1)
      for (const [key, label] of [['single_p2', 'single node, 64 in flight'], ['sync_p2', 'sync primary, 64 in flight'], ['single_p1', 'single node, one by one'], ['sync_p1', 'sync primary, one by one']] as const) {
        rec.figure(`${key}_cpu`, `${label}: server CPU`, 'us/req', cpu[key] ?? [], 'lower')
      }
      const single_latency = latencySummary(serialLatency.single)
      const sync_latency = latencySummary(serialLatency.sync)
      rec.figure('single_p1_p99', 'single node, one by one: latency p99', 'ms', [single_latency.p99], 'lower')
      rec.figure('sync_p1_p99', 'sync primary, one by one: latency p99', 'ms', [sync_latency.p99], 'lower')
      rec.figure('follower_lag_p99', 'follower lag p99 under the 64-in-flight load', 'ms', lag_p99.slice(1), 'lower')
      rec.ratio('sync / single, 64 in flight', 'sync_p2', 'single_p2', '>=', 0.5)
      rec.ratio('sync / single, one by one', 'sync_p1', 'single_p1', '>=', 0.5)
      rec.goal('follower lag p99', rec.value('follower_lag_p99'), 'ms', '<=', 50)
      rec.note(`${count} inserts per 64-in-flight repetition, ${serialCount} one by one; p50 one by one: single ${single_latency.p50.toFixed(2)} ms, sync ${sync_latency.p50.toFixed(2)} ms; one nats-server, primary and follower on this machine; server CPU is utime + stime of the server process (the primary's for sync) per insert`)
    } finally {
      for (const server of servers) await server.child.kill()
      await nats.kill()
    }
  },
}
