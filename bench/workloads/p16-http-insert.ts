// P16: durable single-row inserts over HTTP (`insert kv {k: $k, v: $v}`, POST
// /api/v1/t/default/query), autocannon with 64 connections, a new key in every
// request; against bare fastify answering a constant body on the same route, and
// PocketBase's record create (POST /api/collections/kv/records, not durable at commit).
// Each repetition sends an exact number of requests (about the run's duration at the
// contender's rate in the round before) and waits for every answer, so the rows a
// server holds afterwards can be counted against its 2xx answers.
import { startNodeChild, waitForJson } from '../harness/child.js'
import { key, value, writeSchema } from '../harness/data.js'
import { HttpSeries } from '../harness/http-series.js'
import { startTenantdbServer, type ServerChild } from '../harness/tenantdb-server.js'
import type { Workload } from '../harness/workload.js'
import type { HttpLoad } from '../anchors/autocannon.js'
import { countPocketbaseRows, startPocketbase, type PocketbaseServer } from '../anchors/pocketbase.js'
import { pocketbase_version, preparePocketbase } from '../anchors/pocketbase-build.js'

const connections = 64
const path = '/api/v1/t/default/query'

/** Rows in the server's `kv`, through its query API. */
async function countTenantdbRows(server: ServerChild): Promise<number> {
  const res = await fetch(`${server.base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${server.token}` }, body: JSON.stringify({ query: 'kv | count' }) })
  const answer = await res.json() as { rows?: number[][] }
  const count = answer.rows?.[0]?.[0]
  if (res.status !== 200 || typeof count !== 'number') throw new Error(`P16: cannot count tenantdb's rows: ${res.status} ${JSON.stringify(answer)}`)
  return count
}

/** An insert's body: key and value need no escaping, so a template is valid JSON. */
function insertBody(n: number): string {
  return `{"query":"insert kv {k: $k, v: $v}","params":{"k":"${key(n)}","v":"${value(n)}"}}`
}

export const p16: Workload = {
  id: 'P16',
  title: 'HTTP durable single-row inserts, autocannon, 64 connections',
  async run(ctx, rec) {
    const durationS = ctx.size(8, 3)
    const warmUp = ctx.size(5000, 2000)
    const dir = ctx.scratch('p16-tenantdb')
    writeSchema(dir)
    const pocketbaseBinary = preparePocketbase(ctx, rec)
    const server = await startTenantdbServer(dir)
    const bare = startNodeChild('bare-fastify')
    let pocketbase: PocketbaseServer | null = null
    try {
      const { port } = await waitForJson<{ port: number }>(bare, 'port')
      if (pocketbaseBinary !== null) pocketbase = await startPocketbase(pocketbaseBinary, ctx.scratch('p16-pocketbase'))
      const headers = { 'content-type': 'application/json' }
      /** Runs one contender's repetition; `amount` follows its rate in the round before. */
      const contender = (series: HttpSeries, load: (first: number) => Omit<HttpLoad, 'amount' | 'connections'>, count?: () => Promise<number>) => {
        let amount = warmUp
        let first = 0
        return async (round: number) => {
          const before = count === undefined ? 0 : await count()
          const result = await series.run(round, { ...load(first), connections, amount })
          if (count !== undefined) {
            const added = (await count()) - before
            if (added !== result.ok) throw new Error(`P16: ${series.label} answered ${result.ok} inserts with 2xx but holds ${added} new rows`)
          }
          first += amount
          amount = Math.max(connections, Math.round(result.requests_per_s * durationS))
          return result.requests_per_s
        }
      }
      const tenantdb = new HttpSeries('tenantdb', 'tenantdb durable insert over HTTP', server.child)
      const fastify = new HttpSeries('bare', 'bare fastify, constant body', bare)
      const series = [tenantdb, fastify]
      const contenders: Record<string, (round: number) => Promise<number>> = {
        tenantdb: contender(tenantdb, (first) => ({ url: `${server.base}${path}`, method: 'POST', headers: { ...headers, authorization: `Bearer ${server.token}` }, body: (n) => insertBody(first + n) }), () => countTenantdbRows(server)),
        bare: contender(fastify, (first) => ({ url: `http://127.0.0.1:${port}${path}`, method: 'POST', headers, body: (n) => insertBody(first + n) })),
      }
      if (pocketbase !== null) {
        const pb = pocketbase
        const create = new HttpSeries('pocketbase', `PocketBase ${pocketbase_version} record create`, pb.child)
        contenders.pocketbase = contender(create, (first) => ({ url: `${pb.base}/api/collections/kv/records`, method: 'POST', headers, body: (n) => `{"k":"${key(first + n)}","v":"${value(first + n)}"}` }), () => countPocketbaseRows(pb))
        series.push(create)
      }
      await ctx.rounds(contenders)
      for (const one of series) one.record(rec)
      rec.ratio('tenantdb / bare fastify', 'tenantdb', 'bare', '>=', 0.35)
      if (pocketbase !== null) rec.ratio('tenantdb / PocketBase create', 'tenantdb', 'pocketbase', '>=', 2)
      rec.note(`about ${durationS} s per repetition (a warm-up of ${warmUp} requests each); every tenantdb insert answered after its commit's fdatasync (group commit); rows counted after each repetition equal the 2xx answers; server CPU is utime + stime of the server process per request answered`)
      if (pocketbase !== null) rec.note(`PocketBase ${pocketbase_version} (go build of bench/anchors/pocketbase/): stock settings, SQLite WAL with synchronous=NORMAL (not durable at commit), requests logged to its auxiliary database; public create rule, so no token; a unique index on k`)
    } finally {
      await bare.kill()
      await server.child.kill()
      await pocketbase?.child.kill()
    }
  },
}
