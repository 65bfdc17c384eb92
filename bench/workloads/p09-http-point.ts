// P9: a point query over HTTP (`kv | get $k`, POST /api/v1/t/default/query) driven by
// autocannon with 32 connections, against bare fastify answering a constant body of
// the same size on the same route. Each server is a child process of its own; the CPU
// time each uses over a repetition (/proc/PID/stat), divided by the requests it
// answered, is reported beside the rates: the cost of a request, which a busy shared
// machine moves much less than the rate.
import { httpLoad, type HttpLoadResult } from '../anchors/autocannon.js'
import { startNodeChild, waitForJson, type Child } from '../harness/child.js'
import { key, rows, spread } from '../harness/data.js'
import { loadRows, openKv } from '../harness/tenantdb.js'
import { processCpuMicros } from '../harness/process-cpu.js'
import { startTenantdbServer } from '../harness/tenantdb-server.js'
import type { Workload } from '../harness/workload.js'

const connections = 32

function checked(result: HttpLoadResult, who: string): HttpLoadResult {
  if (result.errors > 0 || result.non2xx > 0) throw new Error(`${who}: ${result.errors} errors, ${result.non2xx} non-2xx answers under load`)
  return result
}

/** `load`, and the CPU microseconds `child` used per request answered during it (null where /proc cannot tell). */
async function measured(child: Child, load: () => Promise<HttpLoadResult>): Promise<{ result: HttpLoadResult; cpu_us: number | null }> {
  const before = processCpuMicros(child.process.pid)
  const result = await load()
  const after = processCpuMicros(child.process.pid)
  const cpu_us = before === null || after === null || result.requests_total === 0 ? null : (after - before) / result.requests_total
  return { result, cpu_us }
}

export const p09: Workload = {
  id: 'P9',
  title: 'HTTP point query, autocannon, 32 connections',
  async run(ctx, rec) {
    const rowCount = ctx.size(100_000, 10_000)
    const durationS = ctx.size(8, 3)
    const dir = ctx.scratch('p9-tenantdb')
    const db = await openKv(dir)
    await loadRows(db, rows, rowCount)
    await db.close()
    const server = await startTenantdbServer(dir)
    const bare = startNodeChild('bare-fastify')
    try {
      const { port } = await waitForJson<{ port: number }>(bare, 'port')
      const bodies = Array.from({ length: 1000 }, (_, i) => JSON.stringify({ query: 'kv | get $k', params: { k: key(spread(i, rowCount)) } }))
      const path = '/api/v1/t/default/query'
      const headers = { 'content-type': 'application/json' }
      const p99: Record<string, number[]> = { tenantdb: [], bare: [] }
      const cpu: Record<string, number[]> = { tenantdb: [], bare: [] }
      const samples = await ctx.rounds({
        tenantdb: async (round) => {
          const { result: r, cpu_us } = await measured(server.child, async () => checked(await httpLoad({ url: `${server.base}${path}`, connections, durationS, method: 'POST', headers: { ...headers, authorization: `Bearer ${server.token}` }, bodies }), 'tenantdb'))
          p99.tenantdb?.push(r.latency_p99_ms)
          if (round > 0 && cpu_us !== null) cpu.tenantdb?.push(cpu_us)
          return r.requests_per_s
        },
        bare: async (round) => {
          const { result: r, cpu_us } = await measured(bare, async () => checked(await httpLoad({ url: `http://127.0.0.1:${port}${path}`, connections, durationS, method: 'POST', headers, bodies }), 'bare fastify'))
          p99.bare?.push(r.latency_p99_ms)
          if (round > 0 && cpu_us !== null) cpu.bare?.push(cpu_us)
          return r.requests_per_s
        },
      })
      rec.figure('tenantdb', 'tenantdb point query over HTTP', 'req/s', samples.tenantdb)
      rec.figure('bare', 'bare fastify, constant body', 'req/s', samples.bare)
      rec.figure('tenantdb_p99', 'tenantdb latency p99', 'ms', p99.tenantdb?.slice(1) ?? [], 'lower')
      rec.figure('bare_p99', 'bare fastify latency p99', 'ms', p99.bare?.slice(1) ?? [], 'lower')
      if (cpu.tenantdb !== undefined && cpu.tenantdb.length > 0 && cpu.bare !== undefined && cpu.bare.length > 0) {
        rec.figure('tenantdb_cpu', 'tenantdb server CPU per request', 'us', cpu.tenantdb, 'lower')
        rec.figure('bare_cpu', 'bare fastify server CPU per request', 'us', cpu.bare, 'lower')
      }
      rec.ratio('tenantdb / bare fastify', 'tenantdb', 'bare', '>=', 0.5)
      rec.note(`${durationS} s per repetition; tenantdb serves with its default logging (info) and the bearer token`)
    } finally {
      await bare.kill()
      await server.child.kill()
    }
  },
}
