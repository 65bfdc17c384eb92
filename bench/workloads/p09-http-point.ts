// P9: a point query over HTTP (`kv | get $k`, POST /api/v1/t/default/query) driven by
// autocannon with 32 connections, against bare fastify answering a constant body of
// the same size on the same route, and PocketBase (bench/anchors/pocketbase.ts) with
// the same rows, read by record id and by key. Each server is a child process of its
// own; beside each rate, the server's CPU per request (bench/harness/server-cpu.ts).
// tenantdb serves on every core (its default); the same server on one thread
// (TENANTDB_WORKERS=1, a copy of the rows) says what the other cores add.
import { startNodeChild, waitForJson } from '../harness/child.js'
import { key, rows, spread } from '../harness/data.js'
import { HttpSeries } from '../harness/http-series.js'
import { loadRows, openKv } from '../harness/tenantdb.js'
import { startTenantdbServer } from '../harness/tenantdb-server.js'
import type { Workload } from '../harness/workload.js'
import { loadPocketbaseRows, recordId, startPocketbase, type PocketbaseServer } from '../anchors/pocketbase.js'
import { pocketbase_version, preparePocketbase } from '../anchors/pocketbase-build.js'

const connections = 32

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
    const oneDir = ctx.scratch('p9-tenantdb-one-thread')
    const oneDb = await openKv(oneDir)
    await loadRows(oneDb, rows, rowCount)
    await oneDb.close()
    const pocketbaseBinary = preparePocketbase(ctx, rec)
    const server = await startTenantdbServer(dir)
    const oneThread = await startTenantdbServer(oneDir, { TENANTDB_WORKERS: '1' })
    const bare = startNodeChild('bare-fastify')
    let pocketbase: PocketbaseServer | null = null
    try {
      const { port } = await waitForJson<{ port: number }>(bare, 'port')
      if (pocketbaseBinary !== null) {
        ctx.progress.step(`PocketBase: loading ${rowCount} rows`)
        const started = await startPocketbase(pocketbaseBinary, ctx.scratch('p9-pocketbase'))
        pocketbase = started
        await loadPocketbaseRows(started, rows, rowCount)
      }
      const picks = Array.from({ length: 1000 }, (_, i) => spread(i, rowCount))
      const bodies = picks.map((n) => JSON.stringify({ query: 'kv | get $k', params: { k: key(n) } }))
      const path = '/api/v1/t/default/query'
      const headers = { 'content-type': 'application/json' }
      const tenantdb = new HttpSeries('tenantdb', 'tenantdb point query over HTTP', server.child)
      const single = new HttpSeries('tenantdb_1', 'tenantdb point query over HTTP, one thread', oneThread.child)
      const fastify = new HttpSeries('bare', 'bare fastify, constant body', bare)
      const contenders: Record<string, (round: number) => Promise<number>> = {
        tenantdb: async (round) => (await tenantdb.run(round, { url: `${server.base}${path}`, connections, durationS, method: 'POST', headers: { ...headers, authorization: `Bearer ${server.token}` }, bodies })).requests_per_s,
        tenantdb_1: async (round) => (await single.run(round, { url: `${oneThread.base}${path}`, connections, durationS, method: 'POST', headers: { ...headers, authorization: `Bearer ${oneThread.token}` }, bodies })).requests_per_s,
        bare: async (round) => (await fastify.run(round, { url: `http://127.0.0.1:${port}${path}`, connections, durationS, method: 'POST', headers, bodies })).requests_per_s,
      }
      const series = [tenantdb, single, fastify]
      if (pocketbase !== null) {
        const base = pocketbase.base
        const byId = new HttpSeries('pocketbase_id', `PocketBase ${pocketbase_version} record by id`, pocketbase.child)
        const byKey = new HttpSeries('pocketbase_key', `PocketBase ${pocketbase_version} record by key (filter)`, pocketbase.child)
        const idPaths = picks.map((n) => `/api/collections/kv/records/${recordId(n)}`)
        const keyPaths = picks.map((n) => `/api/collections/kv/records?filter=${encodeURIComponent(`(k='${key(n)}')`)}&perPage=1&skipTotal=1`)
        contenders.pocketbase_id = async (round) => (await byId.run(round, { url: `${base}/api/collections/kv/records`, connections, durationS, method: 'GET', headers: {}, paths: idPaths })).requests_per_s
        contenders.pocketbase_key = async (round) => (await byKey.run(round, { url: `${base}/api/collections/kv/records`, connections, durationS, method: 'GET', headers: {}, paths: keyPaths })).requests_per_s
        series.push(byId, byKey)
      }
      await ctx.rounds(contenders)
      for (const one of series) one.record(rec)
      rec.ratio('tenantdb / bare fastify', 'tenantdb', 'bare', '>=', 0.6)
      rec.ratio('tenantdb every core / one thread', 'tenantdb', 'tenantdb_1', '>=', 1.3)
      if (pocketbase !== null) rec.ratio('tenantdb / PocketBase by id', 'tenantdb', 'pocketbase_id', '>=', 2)
      rec.note(`${durationS} s per repetition; tenantdb serves with its default logging (info) and the bearer token; server CPU is utime + stime of the server process per request answered`)
      if (pocketbase !== null) rec.note(`PocketBase ${pocketbase_version} (go build of bench/anchors/pocketbase/): stock settings, SQLite WAL with synchronous=NORMAL (not durable at commit), requests logged to its auxiliary database; public list/view rules, so no token; by key: ?filter=(k='…')&perPage=1&skipTotal=1 on a unique index`)
    } finally {
      await bare.kill()
      await server.child.kill()
      await oneThread.child.kill()
      await pocketbase?.child.kill()
    }
  },
}
