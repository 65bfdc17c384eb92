// Storage quotas and statement limits under a random workload (docs/operations.md,
// "Isolation"; src/txn/live-usage.ts): a few tenants of one real database, random
// limits (storage_bytes, storage_rows, statement_rows_examined, statement_memory_bytes)
// changed between rounds, and rounds of concurrent statements (inserts of random
// sizes, upserts, updates that grow or shrink rows, deletes, atomic blocks). After every
// round, for every tenant:
//   - its usage's live bytes and rows equal a recount read from its trees, exactly;
//   - it grew past no quota: what it holds is within its quota, or no more than it held
//     before the round (a tenant put over its quota by a lower quota only shrinks);
//   - its rows are exactly the model of every acknowledged write (nothing refused
//     landed, in part or whole; nothing acknowledged is missing);
// and again after a close and reopen of the directory. Concurrent statements of a
// round touch disjoint rows, so every one of them is acknowledged or refused by a
// limit, never a conflict, and the model does not depend on their order.
//
//   TENANTDB_QUOTA_FUZZ_MS    time for rounds (4 000 in `npm test`, 120 000 under
//                             TENANTDB_SOAK=1, test/helpers/soak.ts)
//   TENANTDB_QUOTA_FUZZ_SEED  seed of the workload and the limits
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { decodeKey, decodeRow } from '../src/codec/index.js'
import { Database } from '../src/database/index.js'
import { internalsOf } from '../src/database/internals.js'
import type { Value } from '../src/lang/ast.js'
import { QueryError } from '../src/query/index.js'
import type { TenantLimitsChange } from '../src/tenants/index.js'
import { rowsTree } from '../src/txn/index.js'
import { held, recount, type Recount } from './helpers/live-recount.js'
import { rng } from './helpers/rng.js'
import { budget } from './helpers/soak.js'
import { tempDir } from './helpers/temp-dir.js'

const budget_ms = budget('TENANTDB_QUOTA_FUZZ_MS', 4000, 120_000)
const seed = Number(process.env.TENANTDB_QUOTA_FUZZ_SEED ?? 0x9a07a)
const tenants = ['t0', 't1', 't2']
// Minimum counts of the short budget: fewer means the run tested too little.
const statements_min = 150
const acknowledged_min = 50
const quota_refusals_min = 5
const limit_refusals_min = 3
/** Codes a statement of this workload may be refused with: its tenant's limits. */
const limit_codes = new Set(['quota_exceeded', 'statement_limit'])

interface Row { n: number; s: string }
type Model = Map<string, Map<number, Row>>

t.test('quotas hold, usage equals a recount and no acknowledged write is lost, under random limits and writes', async (t) => {
  const root = tempDir(t)
  const schemaFile = join(root, 'schema.eel')
  writeFileSync(schemaFile, 'collection items { id: int primary, n: int, s: string, index (n) }\n')
  const dir = join(root, 'db')
  let db = await Database.open(dir, { schema: [schemaFile] })
  t.teardown(() => db.close())
  const random = rng(seed)
  const int = (lo: number, hi: number) => lo + Math.floor(random() * (hi - lo + 1))
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)] as T
  const text = (bytes: number) => String.fromCharCode(97 + int(0, 25)).repeat(bytes)
  const model: Model = new Map(tenants.map((name) => [name, new Map()]))
  const quotas = new Map<string, { storage_bytes?: number; storage_rows?: number }>(tenants.map((name) => [name, {}]))
  for (const name of tenants) await db.ops({ op: 'create', name })
  let next_id = 1
  const counts = { statements: 0, acknowledged: 0, quota: 0, limit: 0, rounds: 0 }
  const failures: string[] = []

  const rowsOf = (name: string): Map<number, Row> => {
    const out = new Map<number, Row>()
    for (const [key, value] of internalsOf(db).committer.head().scan(rowsTree(name, 'items'))) {
      const row = decodeRow(value) as Record<string, Value>
      out.set(Number(decodeKey(key)[0]), { n: Number(row.n), s: String(row.s) })
    }
    return out
  }
  const check = (when: string, before?: Map<string, Recount>) => {
    for (const name of tenants) {
      const usage = held(db, name)
      const counted = recount(db, name)
      if (usage.bytes !== counted.bytes || usage.rows !== counted.rows) failures.push(`${when}: ${name} usage ${JSON.stringify(usage)} != recount ${JSON.stringify(counted)}`)
      const quota = quotas.get(name) ?? {}
      const was = before?.get(name)
      if (was !== undefined && quota.storage_bytes !== undefined && counted.bytes > Math.max(quota.storage_bytes, was.bytes)) failures.push(`${when}: ${name} holds ${counted.bytes} bytes, over its quota ${quota.storage_bytes} and its ${was.bytes} before`)
      if (was !== undefined && quota.storage_rows !== undefined && counted.rows > Math.max(quota.storage_rows, was.rows)) failures.push(`${when}: ${name} holds ${counted.rows} rows, over its quota ${quota.storage_rows} and its ${was.rows} before`)
      const stored = rowsOf(name)
      const expected = model.get(name) as Map<number, Row>
      const missing = [...expected].filter(([id, row]) => { const got = stored.get(id); return got === undefined || got.n !== row.n || got.s !== row.s }).map(([id]) => id)
      const extra = [...stored.keys()].filter((id) => !expected.has(id))
      if (missing.length > 0 || extra.length > 0) failures.push(`${when}: ${name} rows differ from the acknowledged writes: missing or changed ${missing.slice(0, 10).join(',')}, extra ${extra.slice(0, 10).join(',')}`)
    }
  }

  /** One random statement on `name` touching only ids `mine` of the model; what it does to the model if acknowledged. */
  const statement = (name: string, mine: number[]): { text: string; params: Record<string, Value>; apply: (rows: Map<number, Row>) => void } => {
    const fresh = (k: number) => Array.from({ length: k }, () => ({ id: next_id++, n: int(0, 9), s: text(pick([0, 10, 100, 1000, 3000])) }))
    const some = (k: number) => mine.sort(() => random() - 0.5).slice(0, k)
    const set = (rows: Map<number, Row>, list: Array<{ id: number; n: number; s: string }>) => { for (const r of list) rows.set(r.id, { n: r.n, s: r.s }) }
    switch (pick(['insert', 'insert', 'upsert', 'grow', 'shrink', 'delete', 'atomic'] as const)) {
      case 'insert': {
        const rows = fresh(int(1, 5))
        return { text: 'insert items $rows', params: { rows }, apply: (m) => set(m, rows) }
      }
      case 'upsert': {
        const rows = [...some(int(0, 2)).map((id) => ({ id, n: int(0, 9), s: text(int(0, 2000)) })), ...fresh(int(0, 2))]
        if (rows.length === 0) rows.push(...fresh(1))
        return { text: 'upsert items $rows', params: { rows }, apply: (m) => set(m, rows) }
      }
      case 'grow': {
        const ids = some(int(1, 3))
        const pad = text(int(1, 1500))
        return { text: 'items | where id in $ids | update {s: s + $pad}', params: { ids, pad }, apply: (m) => { for (const id of ids) { const r = m.get(id); if (r) m.set(id, { ...r, s: r.s + pad }) } } }
      }
      case 'shrink': {
        const ids = some(int(1, 3))
        const s = text(int(0, 5))
        const n = int(0, 9)
        return { text: 'items | where id in $ids | update {s: $s, n: $n}', params: { ids, s, n }, apply: (m) => { for (const id of ids) if (m.has(id)) m.set(id, { n, s }) } }
      }
      case 'delete': {
        const ids = some(int(1, 3))
        return { text: 'items | where id in $ids | delete', params: { ids }, apply: (m) => { for (const id of ids) m.delete(id) } }
      }
      case 'atomic': {
        const rows = fresh(int(1, 4))
        const chosen = some(4)
        const gone = chosen.slice(0, 2)
        const changed = chosen.slice(2)
        const s = text(pick([0, 50, 2500]))
        return {
          text: 'atomic { insert items $rows; items | where id in $gone | delete; items | where id in $changed | update {s: $s} }',
          params: { rows, gone, changed, s },
          apply: (m) => { set(m, rows); for (const id of gone) m.delete(id); for (const id of changed) { const r = m.get(id); if (r) m.set(id, { ...r, s }) } },
        }
      }
    }
  }

  const started = Date.now()
  while (Date.now() - started < budget_ms || counts.statements < statements_min) {
    counts.rounds += 1
    // New limits for one tenant: near what it holds, so rounds cross them both ways.
    const name = pick(tenants)
    const now = held(db, name)
    const change: TenantLimitsChange = {
      storage_bytes: random() < 0.3 ? null : Math.max(1, now.bytes + int(-4000, 12_000)),
      storage_rows: random() < 0.3 ? null : Math.max(1, now.rows + int(-4, 10)),
      statement_rows_examined: random() < 0.6 ? null : int(1, 4),
      statement_memory_bytes: random() < 0.7 ? null : int(500, 20_000),
    }
    await db.ops({ op: 'limit', name, limits: change })
    quotas.set(name, {
      ...(typeof change.storage_bytes === 'number' ? { storage_bytes: change.storage_bytes } : {}),
      ...(typeof change.storage_rows === 'number' ? { storage_rows: change.storage_rows } : {}),
    })

    const before = new Map(tenants.map((n) => [n, recount(db, n)]))
    const k = int(1, 6)
    const batch = Array.from({ length: k }, (_, slot) => {
      const tenant = pick(tenants)
      const rows = model.get(tenant) as Map<number, Row>
      const mine = [...rows.keys()].filter((id) => id % k === slot)
      return { tenant, ...statement(tenant, mine) }
    })
    const settled = await Promise.allSettled(batch.map((s) => db.tenant(s.tenant).query(s.text, s.params)))
    settled.forEach((result, i) => {
      const s = batch[i] as typeof batch[number]
      counts.statements += 1
      if (result.status === 'fulfilled') {
        counts.acknowledged += 1
        s.apply(model.get(s.tenant) as Map<number, Row>)
      } else if (result.reason instanceof QueryError && limit_codes.has(result.reason.code)) {
        if (result.reason.code === 'quota_exceeded') counts.quota += 1
        else counts.limit += 1
      } else {
        failures.push(`round ${counts.rounds}: ${s.text} on ${s.tenant} failed: ${String(result.reason)}`)
      }
    })
    check(`round ${counts.rounds}`, before)
    if (failures.length > 0) break
  }

  await db.close()
  db = await Database.open(dir, { schema: [schemaFile] })
  check('after reopen')
  t.comment(`seed ${seed}: ${counts.rounds} rounds, ${counts.statements} statements, ${counts.acknowledged} acknowledged, ${counts.quota} over quota, ${counts.limit} stopped by a statement limit`)
  t.same(failures.slice(0, 10), [], 'no invariant broken')
  t.ok(counts.statements >= statements_min, `${counts.statements} statements`)
  t.ok(counts.acknowledged >= acknowledged_min, `${counts.acknowledged} acknowledged`)
  t.ok(counts.quota >= quota_refusals_min, `${counts.quota} refused over a quota`)
  t.ok(counts.limit >= limit_refusals_min, `${counts.limit} stopped by a statement limit`)
})
