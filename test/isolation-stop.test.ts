// A statement stopped by one of its tenant's statement limits stops (docs/operations.md,
// "Isolation"; docs/language.md, "Limits of a statement"): once its refusal is answered,
// nothing of it runs on. Over the next 300 ms the process is near idle, the fair
// scheduler gives no turn (every yield of a running statement takes one,
// src/isolation/fair-scheduler.ts), the engine reads no page (its cache's hits, misses
// and in-memory reads stand still), and a point read answers at once. Each limit is
// met embedded and over real HTTP: statement_time_ms on a scan and sort,
// statement_rows_examined on a scan, statement_memory_bytes on a sort.
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import t from 'tap'
import { Database } from '../src/database/index.js'
import { internalsOf } from '../src/database/internals.js'
import { scheduler } from '../src/isolation/index.js'
import type { TenantLimitsChange } from '../src/tenants/index.js'
import { QueryError } from '../src/query/index.js'
import { api, startServer } from './helpers/http-server.js'
import { tempDir } from './helpers/temp-dir.js'

const token = 'isolation-stop-token-0123456789'
const rows_total = 40_000
const quiet_ms = 300
// Generous: an idle process spends a few ms in 300 (timers, GC); a scan left running, all of it.
const quiet_cpu_ms_max = 100
const point_read_ms_max = 200

const cases: Array<{ limit: TenantLimitsChange; query: string; code: string; name: string }> = [
  { limit: { statement_time_ms: 30 }, query: 'items | where s != "q" | sort s desc, id | take 1', code: 'statement_limit', name: 'statement_time_ms' },
  { limit: { statement_rows_examined: 2000 }, query: 'items | where s == "none" | count', code: 'statement_limit', name: 'statement_rows_examined' },
  { limit: { statement_memory_bytes: 200_000 }, query: 'items | sort s, id', code: 'statement_limit', name: 'statement_memory_bytes' },
]

/** Pages the engine read so far (read from the engine alone: db.stats() reads the catalog). */
function engineReads(db: Database): number {
  const { cache } = internalsOf(db).engine.stats()
  return cache.hits + cache.misses + cache.memory_reads
}

t.test('a statement stopped by a limit leaves no work running', async (t) => {
  const dir = tempDir(t)
  writeFileSync(join(dir, 'schema.eel'), 'collection items { id: int primary, n: int, s: string }\n')
  const db = await Database.open(join(dir, 'db'), { schema: [join(dir, 'schema.eel')] })
  t.teardown(() => db.close())
  const { origin } = await startServer(t, { token, db })
  const call = api(origin, token)
  await db.ops({ op: 'create', name: 'acme' })
  for (let from = 1; from <= rows_total; from += 5000) {
    const rows = Array.from({ length: 5000 }, (_, i) => ({ id: from + i, n: i, s: `${(from + i) * 7919 % 100_003} `.padEnd(60, 'p') }))
    await db.tenant('acme').query('insert items $rows', { rows })
  }

  const stopped = async (c: typeof cases[number], via: 'embedded' | 'http'): Promise<{ code: string; limit: unknown }> => {
    if (via === 'http') {
      const res = await call('/api/v1/t/acme/query', { json: { query: c.query } })
      return { code: res.body.code ?? `status ${res.status}`, limit: res.body.limit }
    }
    try {
      await db.tenant('acme').query(c.query)
      return { code: 'ok', limit: undefined }
    } catch (err) {
      if (!(err instanceof QueryError)) throw err
      return { code: err.code, limit: err.details.limit }
    }
  }
  const limit = (c: typeof cases[number]) => db.ops({ op: 'limit', name: 'acme', limits: { statement_time_ms: null, statement_rows_examined: null, statement_memory_bytes: null, ...c.limit } })
  // Once untimed first: the first run of a path compiles its code on V8's background threads after the answer.
  for (const c of cases) {
    await limit(c)
    for (const via of ['embedded', 'http'] as const) await stopped(c, via)
  }

  for (const c of cases) {
    await limit(c)
    for (const via of ['embedded', 'http'] as const) {
      t.same(await stopped(c, via), { code: c.code, limit: c.name }, `${c.name} (${via}) stops the statement`)

      const turns = scheduler.turns
      const reads = engineReads(db)
      const cpu = process.cpuUsage()
      await sleep(quiet_ms)
      const spent = process.cpuUsage(cpu)
      const cpu_ms = (spent.user + spent.system) / 1000
      t.ok(cpu_ms < quiet_cpu_ms_max, `${c.name} (${via}): ${cpu_ms.toFixed(1)} ms of CPU in the ${quiet_ms} ms after the answer`)
      t.equal(scheduler.turns, turns, `${c.name} (${via}): no turn taken after the answer`)
      t.equal(engineReads(db), reads, `${c.name} (${via}): no page read after the answer`)
      const before = performance.now()
      const point = await db.tenant('acme').query('items | where id == 12345 | select id')
      const point_ms = performance.now() - before
      t.same(point.rows, [[12345]])
      t.ok(point_ms < point_read_ms_max, `${c.name} (${via}): the next point read took ${point_ms.toFixed(1)} ms`)
    }
  }
})

t.test('control: the same probes see a statement that is still running', async (t) => {
  const dir = tempDir(t)
  writeFileSync(join(dir, 'schema.eel'), 'collection items { id: int primary, n: int, s: string }\n')
  const db = await Database.open(join(dir, 'db'), { schema: [join(dir, 'schema.eel')] })
  t.teardown(() => db.close())
  for (let from = 1; from <= rows_total; from += 5000) {
    const rows = Array.from({ length: 5000 }, (_, i) => ({ id: from + i, n: i, s: `${(from + i) * 7919 % 100_003} `.padEnd(60, 'p') }))
    await db.tenant('default').query('insert items $rows', { rows })
  }
  const turns = scheduler.turns
  const reads = engineReads(db)
  const cpu = process.cpuUsage()
  const running = db.tenant('default').query('items | where s != "q" | sort s desc, id | take 1')
  let settled = false
  void running.finally(() => { settled = true }).catch(() => {})
  // On a loaded machine the process gets less of a core: watch for longer (while the
  // statement still runs) until it has spent what the quiet check allows at most.
  let spent = { user: 0, system: 0 }
  for (let waited = 0; waited < quiet_ms * 10 && !settled; waited += quiet_ms) {
    await sleep(quiet_ms)
    spent = process.cpuUsage(cpu)
    if ((spent.user + spent.system) / 1000 >= quiet_cpu_ms_max) break
  }
  t.ok(scheduler.turns > turns, 'a running statement takes turns')
  t.ok(engineReads(db) > reads, 'and reads pages')
  t.ok((spent.user + spent.system) / 1000 >= quiet_cpu_ms_max, 'and spends CPU past the bound')
  await running
})
