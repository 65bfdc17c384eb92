// R1 (docs/architecture.md, "Testing", "Claims and the tests that back them"): a kill -9 loop against the real server over HTTP.
// Each cycle starts `tenantdb serve` on the same directory, runs a mixed workload from
// several concurrent HTTP clients (inserts, atomic blocks of 3 rows sharing a marker,
// updates of the client's own rows), records every acknowledged (2xx) write, and
// SIGKILLs the server 5–80 ms after it answered its first request. With the server
// dead, the directory is opened in-process and checked: every acknowledged write is
// there, every row seen after an earlier crash is still there (the model carries every
// row found across cycles, so a write acknowledged in cycle 1 is checked after every
// later restart), no row was invented, every atomic block is all or nothing, `verify`
// is clean and the corruption total 0.
//
//   TENANTDB_HTTP_KILL9_CYCLES     most cycles (200)
//   TENANTDB_HTTP_KILL9_BUDGET_MS  time after which no new cycle starts (30 000 in
//                                  `npm test`, 180 000 under TENANTDB_SOAK=1,
//                                  test/helpers/soak.ts)
//   TENANTDB_HTTP_KILL9_SEED       seed of the workload and kill delays (default fixed)
//
// The server checkpoints every 16 KiB of WAL (`--checkpoint-wal-bytes`), so kills land
// in checkpoints that free and reuse page slots too, and every check recounts the
// space map (`verify`).
//
// A cycle costs about 1.6 s (mostly the server's start) on an idle 2-core machine and
// three times that when it is loaded, so the loop stops starting cycles once its time
// budget is spent, and fails if that left fewer than `cycles_min` (a machine too slow
// to test meaningfully is a failure, not a pass). tap's file limit (600 s, package.json)
// is a hang guard above the default budget plus 30 cycles of a loaded machine; a budget
// beyond it needs `npx tap --timeout=N`. (A test cannot lift that limit itself: tap 21
// ignores `t.setTimeout` for it, which the old subtest call here assumed.)
//
// Timing of the kill relative to the server's work is the scheduler's, so a seed
// replays the same workload choices and delays, not the same interleaving.
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { budget } from './helpers/soak.js'
import { Database } from '../src/database/index.js'
import type { Value } from '../src/lang/ast.js'
import { spawnCli, type CliProcess } from './helpers/spawn-cli.js'
import { tempDir } from './helpers/temp-dir.js'
import { rng } from './helpers/rng.js'
import { internalsOf } from '../src/database/internals.js'

const cycles = Number(process.env.TENANTDB_HTTP_KILL9_CYCLES ?? 200)
const budget_ms = budget('TENANTDB_HTTP_KILL9_BUDGET_MS', 30_000, 180_000)
const cycles_min = Math.min(cycles, budget_ms >= 180_000 ? 30 : 12)
const seed = Number(process.env.TENANTDB_HTTP_KILL9_SEED ?? 0x5eed_0001)
const clients = 4
const checkpoint_wal_bytes = 16 * 1024
const token = 'k9k9k9k9k9k9k9k9k9k9k9k9k9k9k9k9'
const schema = 'collection items { id: int primary, client: int, marker: int?, v: int }\n'

interface Row { client: number; marker: number | null; v: number }

/** What one cycle attempted and what the server acknowledged. */
interface Cycle {
  inserted: Map<number, Row> // attempted new rows (plain and atomic)
  ackedInserts: Set<number>
  blocks: Map<number, number[]> // marker -> the 3 ids of an attempted atomic block
  ackedBlocks: Set<number>
  updates: Map<number, number[]> // id -> values attempted, in order (one client per row)
  ackedUpdate: Map<number, number> // id -> index in updates of the last acknowledged one
  unexpected: string[] // non-2xx answers, or a failed request before the kill
  requests: number
  acks: number
}

// Ids, markers and values are never reused, across cycles too.
let nextId = 1
let nextMarker = 1
let nextV = 1

async function post(url: string, query: string, params: Record<string, Value>): Promise<{ status: number; body: unknown }> {
  const res = await fetch(`${url}/t/default/query`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ query, params }),
  })
  const text = await res.text().catch(() => '')
  let body: unknown = text
  try { body = JSON.parse(text) } catch { /* keep the text */ }
  return { status: res.status, body }
}

async function workload(url: string, model: Map<number, Row>, cycleSeed: number, onFirstAnswer: () => void, killed: () => boolean): Promise<Cycle> {
  const c: Cycle = {
    inserted: new Map(), ackedInserts: new Set(), blocks: new Map(), ackedBlocks: new Set(),
    updates: new Map(), ackedUpdate: new Map(), unexpected: [], requests: 0, acks: 0,
  }
  let answered = false
  await Promise.all(Array.from({ length: clients }, async (_, client) => {
    const random = rng(cycleSeed * 31 + client)
    const own = [...model].filter(([, row]) => row.client === client).map(([id]) => id)
    while (!killed()) {
      const r = random()
      let query: string
      let params: Record<string, Value>
      let ack: () => void
      if (r < 0.35 || (r >= 0.7 && own.length === 0)) {
        const id = nextId++
        const row: Row = { client, marker: null, v: 0 }
        c.inserted.set(id, row)
        query = 'insert items $row'
        params = { row: { id, ...row } }
        ack = () => { c.ackedInserts.add(id); own.push(id) }
      } else if (r < 0.7) {
        const marker = nextMarker++
        const ids = [nextId++, nextId++, nextId++]
        c.blocks.set(marker, ids)
        for (const id of ids) c.inserted.set(id, { client, marker, v: 0 })
        query = 'atomic { insert items $a; insert items $b; insert items $c }'
        const [a, b, d] = ids.map((id) => ({ id, client, marker, v: 0 }))
        params = { a, b, c: d } as Record<string, Value>
        ack = () => { c.ackedBlocks.add(marker); own.push(...ids) }
      } else {
        const id = own[Math.floor(random() * own.length)] as number
        const v = nextV++
        const list = c.updates.get(id) ?? []
        list.push(v)
        c.updates.set(id, list)
        const index = list.length - 1
        query = 'items | where id == $id | update {v: $v}'
        params = { id, v }
        ack = () => { c.ackedUpdate.set(id, index) }
      }
      c.requests += 1
      let answer: { status: number; body: unknown }
      try {
        answer = await post(url, query, params)
      } catch (err) {
        if (!killed()) c.unexpected.push(`client ${client}: request failed before the kill: ${String((err as Error).cause ?? err)}`)
        return
      }
      if (!answered) { answered = true; onFirstAnswer() }
      if (answer.status >= 200 && answer.status < 300) {
        c.acks += 1
        ack()
      } else {
        c.unexpected.push(`client ${client}: ${answer.status} ${JSON.stringify(answer.body)} for ${query} ${JSON.stringify(params)}`)
        return
      }
    }
  }))
  return c
}

/** Every row of `items`, read in pages of primary-key order. */
async function readAll(db: Database): Promise<Map<number, Row>> {
  const rows = new Map<number, Row>()
  let after = 0
  for (;;) {
    const page = await db.tenant('default').query('items | where id > $after | take 5000 | select id, client, marker, v', { after })
    for (const [id, client, marker, v] of page.rows) rows.set(id as number, { client: client as number, marker: marker as number | null, v: v as number })
    if (page.rows.length < 5000) return rows
    after = page.rows[page.rows.length - 1]?.[0] as number
  }
}

/** The anomalies of one cycle, as sentences; empty when the directory is right. */
function check(model: Map<number, Row>, c: Cycle, found: Map<number, Row>): string[] {
  const problems = [...c.unexpected]
  for (const [id, row] of model) {
    if (!found.has(id)) problems.push(`row ${id} (${JSON.stringify(row)}) was committed before this cycle and is gone`)
  }
  for (const id of c.ackedInserts) {
    if (!found.has(id)) problems.push(`acknowledged insert of row ${id} lost`)
  }
  for (const [id, row] of found) {
    const expected = model.get(id) ?? c.inserted.get(id)
    if (expected === undefined) { problems.push(`row ${id} was never written: ${JSON.stringify(row)}`); continue }
    if (row.client !== expected.client || row.marker !== expected.marker) {
      problems.push(`row ${id} holds ${JSON.stringify(row)}, written as ${JSON.stringify(expected)}`)
    }
    // The client that owns a row updates it one request at a time: the value is the
    // last acknowledged one or one attempted after it; with none acknowledged, the
    // value before this cycle or any attempted.
    const attempts = c.updates.get(id) ?? []
    const acked = c.ackedUpdate.get(id)
    const allowed = acked === undefined ? [expected.v, ...attempts] : attempts.slice(acked)
    if (!allowed.includes(row.v)) {
      problems.push(`row ${id} has v=${row.v}; allowed ${JSON.stringify(allowed)}${acked === undefined ? '' : ` (v=${attempts[acked]} was acknowledged)`}`)
    }
  }
  const byMarker = new Map<number, number[]>()
  for (const [id, row] of found) {
    if (row.marker !== null) byMarker.set(row.marker, [...(byMarker.get(row.marker) ?? []), id])
  }
  for (const [marker, ids] of byMarker) {
    if (ids.length !== 3) problems.push(`atomic block ${marker} is partial: rows ${ids.join(', ')} of ${JSON.stringify(c.blocks.get(marker) ?? '(an earlier cycle)')}`)
  }
  for (const marker of c.ackedBlocks) {
    if (!byMarker.has(marker)) problems.push(`acknowledged atomic block ${marker} (rows ${c.blocks.get(marker)?.join(', ')}) lost`)
  }
  return problems
}

/**
 * Checks one cycle, then carries every row found into the model: a row seen after a
 * kill, acknowledged or not, must be there after every later kill, so a write
 * acknowledged in cycle 1 is checked again after every restart that follows. (A cycle
 * with problems ends the loop, so the model never carries a loss forward.)
 */
function checkAndCarry(model: Map<number, Row>, c: Cycle, found: Map<number, Row>): string[] {
  const problems = check(model, c, found)
  model.clear()
  for (const [id, row] of found) model.set(id, row)
  return problems
}

t.test(`R1: kill -9 loop over HTTP, ${cycles} cycles`, async (t) => {
  const dir = tempDir(t, 'tenantdb-kill9-')
  const dbDir = join(dir, 'db')
  const checkDir = join(dir, 'check')
  const schemaFile = join(dir, 'schema.eel')
  writeFileSync(schemaFile, schema)
  const model = new Map<number, Row>()
  const totals = { requests: 0, acks: 0, start_ms: 0, check_ms: 0, killed_after_ms: 0, replayed_frames: 0, in_place: 0, released: 0 }
  const started = Date.now()
  let failed = false
  const fail = (cycle: number, killDelay: number, c: Cycle | null, problems: string[]) => {
    failed = true
    const kept = mkdtempSync(join(tmpdir(), `tenantdb-kill9-failed-${seed}-`))
    cpSync(dir, kept, { recursive: true })
    // The problems go in the diagnostics: tap shows only a message's first line.
    t.fail(`cycle ${cycle + 1}/${cycles} (TENANTDB_HTTP_KILL9_SEED=${seed}, kill ${killDelay} ms after the first answer` +
      `${c === null ? '' : `, ${c.acks}/${c.requests} acknowledged`}; directory kept at ${kept}): ${problems.length} problems`,
    { problems: problems.slice(0, 50), more: Math.max(0, problems.length - 50) })
  }

  let done = 0
  for (let cycle = 0; cycle < cycles && !failed && (cycle < cycles_min || Date.now() - started < budget_ms); cycle += 1) {
    done = cycle + 1
    const cycleSeed = (seed + cycle * 0x9e3779b1) >>> 0
    const random = rng(cycleSeed)
    const killDelay = 5 + Math.floor(random() * 76)
    const t0 = Date.now()
    const server: CliProcess = spawnCli(t, ['serve', '--dir', dbDir, '--port', '0', '--schema', schemaFile, '--token', token, '--checkpoint-wal-bytes', String(checkpoint_wal_bytes)], { LOG_LEVEL: 'warn' })
    let url: string
    try {
      url = (await server.waitFor(/url: (http:\/\/\S+\/api\/v1)\n/))[1] as string
    } catch (err) {
      // A server that cannot start on the directory the last kill left is a failure of recovery.
      fail(cycle, killDelay, null, [`the server did not start: ${(err as Error).message}`])
      break
    }
    totals.start_ms += Date.now() - t0
    // The server recovered the directory the last kill left (the in-process check reads
    // a copy): its own health detail must show no corruption.
    const startProblems: string[] = []
    try {
      const res = await fetch(`${url}/health/detail`, { headers: { authorization: `Bearer ${token}` } })
      const detail = await res.json() as { corruption?: { total?: number }; recovery?: { replayed_frames?: number } }
      if (res.status !== 200 || detail.corruption?.total !== 0) startProblems.push(`health detail after restart: ${res.status} ${JSON.stringify(detail)}`)
      totals.replayed_frames += detail.recovery?.replayed_frames ?? 0
    } catch (err) {
      startProblems.push(`health detail after restart failed: ${String((err as Error).cause ?? err)}`)
    }

    let killed = false
    let firstAnswerAt = 0
    const kill = () => { killed = true; server.child.kill('SIGKILL') }
    let timer: NodeJS.Timeout | undefined
    // A kill 5–80 ms after the first answer may come before the server's first checkpoint
    // (on a loaded machine few writes fit), so every tenth cycle runs until the server has
    // checkpointed over released slots in place, and is killed killDelay after that (so does
    // the last cycle if none did): the loop always has kills among checkpoints that reuse
    // slots, however slow the machine.
    const last = cycle === cycles - 1 || (cycle + 1 >= cycles_min && Date.now() - started >= budget_ms)
    const awaitCheckpoint = cycle % 10 === 9 || (last && totals.in_place === 0)
    let checkpointMissing = false
    // The server's checkpoints since its start, read until the kill: evidence that the
    // kills land among checkpoints that release slots and write over them in place.
    const seen = { in_place: 0, released: 0 }
    const watch = (async () => {
      while (!killed) {
        try {
          const res = await fetch(`${url}/health/detail`, { headers: { authorization: `Bearer ${token}` } })
          const { checkpoints } = await res.json() as { checkpoints: { in_place: number; pages_released: number } }
          seen.in_place = Math.max(seen.in_place, checkpoints.in_place)
          seen.released = Math.max(seen.released, checkpoints.pages_released)
        } catch {
          return // the kill
        }
        if (awaitCheckpoint && firstAnswerAt > 0 && timer === undefined && seen.in_place > 0 && seen.released > 0) {
          timer = setTimeout(kill, killDelay)
        }
        await new Promise((resolve) => setTimeout(resolve, 5))
      }
    })()
    // A hang guard for the checkpoint cycle, not a timing claim: 16 KiB of WAL takes well under a second unloaded.
    let guard: NodeJS.Timeout | undefined
    const c = await workload(url as string, model, cycleSeed, () => {
      firstAnswerAt = Date.now()
      if (!awaitCheckpoint) timer = setTimeout(kill, killDelay)
      else guard = setTimeout(() => { checkpointMissing = true; kill() }, 60_000)
    }, () => killed)
    clearTimeout(guard)
    if (!killed) { clearTimeout(timer); kill() } // every client stopped early: a failure already recorded
    const exit = await server.exited
    await watch
    totals.in_place += seen.in_place
    totals.released += seen.released
    totals.killed_after_ms += Date.now() - firstAnswerAt
    totals.requests += c.requests
    totals.acks += c.acks

    const t1 = Date.now()
    const problems: string[] = [...startProblems]
    if (checkpointMissing) problems.push(`no checkpoint over released slots within 60 s of writes (seen: ${JSON.stringify(seen)})`)
    if (exit !== 'SIGKILL') problems.push(`the server exited with ${exit} instead of being killed:\n${server.stderr()}`)
    // Check a copy of what the kill left, so the next server start recovers the
    // original itself (opening in-process would checkpoint it on close).
    rmSync(checkDir, { recursive: true, force: true })
    cpSync(dbDir, checkDir, { recursive: true })
    let db: Database
    try {
      db = await Database.open(checkDir, { schema: [schemaFile] })
    } catch (err) {
      fail(cycle, killDelay, c, [...problems, `opening the directory failed: ${(err as Error).stack ?? String(err)}`])
      break
    }
    let found = new Map<number, Row>()
    try {
      const detail = db.healthDetail()
      if (detail.corruption.total !== 0) problems.push(`corruption total ${detail.corruption.total}: ${JSON.stringify(detail.corruption.reports)}`)
      const verified = await internalsOf(db).engine.verify()
      problems.push(...verified.problems.map((p) => `verify: ${p}`))
      found = await readAll(db)
      problems.push(...checkAndCarry(model, c, found))
    } catch (err) {
      problems.push(`reading the directory failed: ${(err as Error).stack ?? String(err)}`)
    } finally {
      await db.close()
    }
    totals.check_ms += Date.now() - t1

    if (problems.length > 0) fail(cycle, killDelay, c, problems)
  }

  const elapsed = Date.now() - started
  if (!failed) t.pass(`${done} cycles: 0 acknowledged writes lost, 0 partial blocks, verify clean, corruption 0`)
  t.ok(failed || done >= cycles_min, `at least ${cycles_min} cycles ran within the budget (${done} in ${elapsed} ms)`)
  t.comment(`seed ${seed}; ${elapsed} ms total, ${(elapsed / done).toFixed(0)} ms/cycle ` +
    `(start ${(totals.start_ms / done).toFixed(0)}, check ${(totals.check_ms / done).toFixed(0)}, killed ${(totals.killed_after_ms / done).toFixed(0)} ms after the first answer); ` +
    `${totals.acks}/${totals.requests} requests acknowledged; ${model.size} rows at the end; ` +
    `the server's own recoveries replayed ${totals.replayed_frames} WAL frames`)
  t.ok(totals.acks > done, 'the clients had writes acknowledged (the loop did work)')
  t.ok(totals.in_place > 0 && totals.released > 0,
    `the server's checkpoints released ${totals.released} slots before the kills, and ${totals.in_place} of them wrote over released slots in place`)
})

t.test('R1: the checker flags a lost acknowledged write, a partial block, a lost row and a wrong value', async (t) => {
  const row = (client: number, marker: number | null, v: number): Row => ({ client, marker, v })
  const model = new Map([[1, row(0, null, 5)], [2, row(0, null, 0)]])
  const c: Cycle = {
    inserted: new Map([[10, row(1, null, 0)], [11, row(1, 7, 0)], [12, row(1, 7, 0)], [13, row(1, 7, 0)]]),
    ackedInserts: new Set([10]), blocks: new Map([[7, [11, 12, 13]]]), ackedBlocks: new Set(),
    updates: new Map([[1, [20, 21]]]), ackedUpdate: new Map([[1, 0]]), unexpected: [], requests: 4, acks: 2,
  }
  const good = new Map([[1, row(0, null, 20)], [2, row(0, null, 0)], [10, row(1, null, 0)], [11, row(1, 7, 0)], [12, row(1, 7, 0)], [13, row(1, 7, 0)]])
  t.same(check(model, c, good), [], 'a right directory passes')
  const bad = new Map([[1, row(0, null, 5)], [11, row(1, 7, 0)], [12, row(1, 7, 0)], [99, row(3, null, 0)]])
  const problems = check(model, c, bad).join('\n')
  t.match(problems, /row 2 .* is gone/)
  t.match(problems, /acknowledged insert of row 10 lost/)
  t.match(problems, /atomic block 7 is partial/)
  t.match(problems, /row 1 has v=5/)
  t.match(problems, /row 99 was never written/)
  c.ackedBlocks.add(7)
  t.match(check(model, c, new Map([...good].filter(([id]) => id < 11))).join('\n'), /acknowledged atomic block 7 .* lost/)
})

t.test('R1: the checker re-checks every acknowledged write of every earlier cycle after every restart', async (t) => {
  const row = (client: number, marker: number | null, v: number): Row => ({ client, marker, v })
  const cycle = (parts: Partial<Cycle> = {}): Cycle => ({
    inserted: new Map(), ackedInserts: new Set(), blocks: new Map(), ackedBlocks: new Set(),
    updates: new Map(), ackedUpdate: new Map(), unexpected: [], requests: 0, acks: 0, ...parts,
  })
  /** Cycles 1-4 of a run, checked and carried as the loop does; returns the model after cycle 4. */
  const firstFour = () => {
    const model = new Map<number, Row>()
    const history: Array<[Cycle, Map<number, Row>]> = [
      // 1: row 1 inserted and an atomic block 7 (rows 2-4), both acknowledged.
      [cycle({ inserted: new Map([[1, row(0, null, 0)], [2, row(1, 7, 0)], [3, row(1, 7, 0)], [4, row(1, 7, 0)]]), ackedInserts: new Set([1]), blocks: new Map([[7, [2, 3, 4]]]), ackedBlocks: new Set([7]) }),
        new Map([[1, row(0, null, 0)], [2, row(1, 7, 0)], [3, row(1, 7, 0)], [4, row(1, 7, 0)]])],
      // 2: row 1 updated to v=20, acknowledged.
      [cycle({ updates: new Map([[1, [20]]]), ackedUpdate: new Map([[1, 0]]) }),
        new Map([[1, row(0, null, 20)], [2, row(1, 7, 0)], [3, row(1, 7, 0)], [4, row(1, 7, 0)]])],
      // 3 and 4: other rows only.
      [cycle({ inserted: new Map([[5, row(2, null, 0)]]), ackedInserts: new Set([5]) }),
        new Map([[1, row(0, null, 20)], [2, row(1, 7, 0)], [3, row(1, 7, 0)], [4, row(1, 7, 0)], [5, row(2, null, 0)]])],
      [cycle({ inserted: new Map([[6, row(3, null, 0)]]) }), // not acknowledged, and lost: allowed
        new Map([[1, row(0, null, 20)], [2, row(1, 7, 0)], [3, row(1, 7, 0)], [4, row(1, 7, 0)], [5, row(2, null, 0)]])],
    ]
    for (const [n, [c, found]] of history.entries()) t.same(checkAndCarry(model, c, found), [], `cycle ${n + 1} is right`)
    return model
  }
  const cycle5 = cycle({ inserted: new Map([[8, row(0, null, 0)]]), ackedInserts: new Set([8]) })
  const rightAfter5 = new Map([[1, row(0, null, 20)], [2, row(1, 7, 0)], [3, row(1, 7, 0)], [4, row(1, 7, 0)], [5, row(2, null, 0)], [8, row(0, null, 0)]])
  t.same(checkAndCarry(firstFour(), cycle5, rightAfter5), [], 'cycle 5 is right when everything is there')

  const without = (id: number) => new Map([...rightAfter5].filter(([k]) => k !== id))
  t.match(checkAndCarry(firstFour(), cycle5, without(1)).join('\n'), /row 1 .* was committed before this cycle and is gone/, "cycle 1's acknowledged insert vanished in cycle 5")
  const lostBlockRow = checkAndCarry(firstFour(), cycle5, without(3)).join('\n')
  t.match(lostBlockRow, /row 3 .* is gone/, "a row of cycle 1's acknowledged block vanished in cycle 5")
  t.match(lostBlockRow, /atomic block 7 is partial/)
  t.match(checkAndCarry(firstFour(), cycle5, without(5)).join('\n'), /row 5 .* is gone/, "cycle 3's acknowledged insert vanished in cycle 5")
  const reverted = new Map(rightAfter5).set(1, row(0, null, 0))
  t.match(checkAndCarry(firstFour(), cycle5, reverted).join('\n'), /row 1 has v=0; allowed \[20\]/, "cycle 2's acknowledged update undone in cycle 5")
  t.match(checkAndCarry(firstFour(), cycle5, new Map(rightAfter5).set(6, row(3, null, 0))).join('\n'), /row 6 was never written/,
    'a row of an earlier cycle that was lost may not come back')
})
