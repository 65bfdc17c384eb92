// R7 (docs/architecture.md, "Testing", "Claims and the tests that back them"):
// snapshot isolation, checked Elle-style. Concurrent clients run list-append
// transactions (test/helpers/list-append/workload.ts: appends and reads over a sliding
// window of many keys, a quarter of them read-only, some blocks yielding to the event
// loop mid-way with a scan) against the real engine, through
// the embedding API and through the HTTP query route of a real server on 127.0.0.1;
// every transaction is recorded with its outcome, and the history is checked by
// test/helpers/list-append/check.ts for G0, G1a, G1b, G1c, G-single (read skew), lost
// updates, lost appends, incompatible orders, duplicates and garbage reads. G2 (write
// skew: a cycle of two or more rw anti-dependencies) is ALLOWED under snapshot
// isolation: the checker lists such cycles and does not flag them.
//
// Negative controls, which must fail the checker: the same workload with the
// first-committer-wins check off (src/mvcc/negative-control.ts, a test-only hook), and
// reads of uncommitted data (an aborted and an intermediate value) injected into a
// recorded history. The kill -9 run kills `tenantdb serve` mid-workload twice and
// restarts it, then runs the workload to its end and reads every key: a transaction in
// flight at a kill is indeterminate (Elle's :info: committed or not, but all or
// nothing), every committed one must be visible after the restart.
//
//   TENANTDB_SI_SEED   seed of every plan and kill point (default fixed; printed on failure)
//   TENANTDB_SI_TXNS   transactions per client in each run (default 150; e.g. 3000 for a long run)
//   TENANTDB_SI_KILLS  kill -9 cycles of the crash run (default 2)
//
// A seed fixes each client's plan and the kill points; the interleaving is the scheduler's.
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { openDatabase } from './helpers/database.js'
import { startServer } from './helpers/http-server.js'
import {
  Recorder, checkHistory, createKeys, default_shape, inProcess, keyCount, list_append_schema, overHttp, planClient, rng,
  type Append, type CheckResult, type History, type Op, type PlannedTxn, type Read, type Submit, type WorkloadShape,
} from './helpers/list-append/index.js'
import { withoutConflictCheck } from './helpers/negative-control.js'
import { spawnCli, type CliProcess } from './helpers/spawn-cli.js'
import { tempDir } from './helpers/temp-dir.js'

const seed = Number(process.env.TENANTDB_SI_SEED ?? 0x51_7e57)
const txns = Number(process.env.TENANTDB_SI_TXNS ?? 150)
const kills = Number(process.env.TENANTDB_SI_KILLS ?? 2)
const token = 'si-checker-token-0123456789abcdef'
const replay = `TENANTDB_SI_SEED=${seed} TENANTDB_SI_TXNS=${txns}`

if (txns > 500) t.setTimeout(txns * 600)

const shape = (clients: number, perClient = txns): WorkloadShape => ({ ...default_shape, clients, txns: perClient })
/** The negative controls need less to fail. */
const control_txns = Math.ceil(txns / 2)

/** Every client's plan; values of run `run` are unique across runs and clients. */
function plans(s: WorkloadShape, run: number, runSeed = seed): PlannedTxn[][] {
  return Array.from({ length: s.clients }, (_, client) => planClient(runSeed, client, s, (run * 64 + client) * 10_000_000))
}

async function createAllKeys(submit: Submit, count: number): Promise<void> {
  const { query, params } = createKeys(count)
  const created = await submit(query, params)
  if (created.outcome !== 'ok') throw new Error(`creating ${count} keys: ${JSON.stringify(created)}`)
}

/** Runs the workload to the end, then reads every key. */
async function record(submit: Submit, s: WorkloadShape, run = 0): Promise<Recorder> {
  await createAllKeys(submit, keyCount(s))
  const recorder = new Recorder()
  await recorder.run(plans(s, run), submit)
  await recorder.readAll(keyCount(s), submit)
  return recorder
}

const classesOf = (result: CheckResult) => [...new Set(result.anomalies.map((a) => a.class))].sort()

/** Committed read-only transactions of the workload (not the final reads). */
const readOnlyCommitted = (history: History) => history.filter((txn) => txn.type === 'ok' && txn.process >= 0 && txn.ops.every((op) => op.f === 'r')).length

function summary(result: CheckResult, history: History): string {
  const readOnly = readOnlyCommitted(history)
  const { ok, fail, info, edges } = result.stats
  return `${history.length} transactions: ${ok} committed (${readOnly} read-only), ${fail} conflicts, ${info} indeterminate; ` +
    `edges ww ${edges.ww}, wr ${edges.wr}, rw ${edges.rw}; ${result.allowed.length} write-skew (G2) cycles allowed`
}

/** The history must be snapshot-isolated, and the run must have been a real test (contention, every kind of edge). */
function expectSnapshotIsolated(t: Test, recorder: Recorder): CheckResult {
  t.same(recorder.unexpected.slice(0, 10), [], `every answer was a commit or a conflict (${replay})`)
  const result = checkHistory(recorder.history)
  if (result.valid) t.pass('snapshot-isolated')
  else t.fail(`${result.anomalies.length} anomalies (${replay}); ${classesOf(result).join(', ')}:\n  ${result.anomalies.slice(0, 10).map((a) => `${a.class}: ${a.explanation}`).join('\n  ')}`)
  const readOnly = readOnlyCommitted(recorder.history)
  t.ok(result.stats.fail > 0, `conflicts were reported (${result.stats.fail}): the clients contended`)
  t.ok(readOnly > 0, `${readOnly} read-only transactions committed`)
  t.ok(result.stats.edges.ww > 0 && result.stats.edges.wr > 0 && result.stats.edges.rw > 0, 'ww, wr and rw dependencies were all inferred')
  t.comment(summary(result, recorder.history))
  return result
}

t.test('R7: 8 clients through the embedding API: the list-append history is snapshot-isolated', async (t) => {
  const { db } = await openDatabase(t, list_append_schema)
  expectSnapshotIsolated(t, await record(inProcess(db), shape(8)))
})

t.test('R7: 4 clients through the HTTP query route of a real server on 127.0.0.1: snapshot-isolated', async (t) => {
  const { db } = await openDatabase(t, list_append_schema)
  const { origin } = await startServer(t, { db, token })
  expectSnapshotIsolated(t, await record(overHttp(`${origin}/api/v1`, token), shape(4)))
})

t.test('R7 negative control: with first-committer-wins off, the checker finds lost updates', async (t) => {
  const { db } = await openDatabase(t, list_append_schema)
  withoutConflictCheck(db)
  const recorder = await record(inProcess(db), shape(8, control_txns))
  t.same(recorder.unexpected.slice(0, 10), [], 'every answer was a commit')
  const result = checkHistory(recorder.history)
  t.equal(result.stats.fail, 0, 'nothing conflicted: the check is off')
  const found = classesOf(result)
  t.ok(found.includes('lost-update'), `lost updates found (${replay}); classes: ${found.join(', ')}`)
  t.ok(found.includes('lost-append'), `acknowledged appends are missing from later reads (${replay})`)
  t.comment(`${result.anomalies.length} anomalies: ${found.map((c) => `${c} ${result.anomalies.filter((a) => a.class === c).length}`).join(', ')}`)
})

t.test('R7 negative control: reads of uncommitted data injected into a recorded history are flagged G1a and G1b', async (t) => {
  const { db } = await openDatabase(t, list_append_schema)
  const recorder = await record(inProcess(db), shape(6, control_txns))
  const history = recorder.history
  t.ok(checkHistory(history).valid, `the recorded history itself is valid (${replay})`)
  const appendsTo = (ops: Op[], key: number) => ops.some((op) => op.f === 'append' && op.key === key)
  const readsOf = (ops: Op[], key: number) => ops.filter((op): op is Read => op.f === 'r' && op.key === key)

  // G1a: an ok read of a key also shows a value a failed (conflicted) transaction appended to it.
  const aborted = structuredClone(history)
  const failed = aborted.flatMap((txn) => txn.type === 'fail' ? txn.ops.filter((op): op is Append => op.f === 'append').map((op) => ({ txn, op })) : [])
  const g1a = failed.flatMap(({ op: append }) => aborted.flatMap((reader) => reader.type !== 'ok' || appendsTo(reader.ops, append.key) ? []
    : readsOf(reader.ops, append.key).map((read) => ({ read, append }))))[0]
  if (g1a === undefined) t.fail(`no failed append and read of its key to inject an aborted read into (${replay})`)
  else {
    g1a.read.value = [...(g1a.read.value ?? []), g1a.append.value]
    const found = classesOf(checkHistory(aborted))
    t.ok(found.includes('G1a'), `an aborted read injected: ${found.join(', ')} (${replay})`)
  }

  // G1b: an ok read ends at the first of two values one committed transaction appended to a key.
  const intermediate = structuredClone(history)
  const pairs = intermediate.flatMap((writer) => writer.type !== 'ok' ? [] : writer.ops.flatMap((op, i) => {
    const next = writer.ops[i + 1]
    return op.f === 'append' && next?.f === 'append' && next.key === op.key ? [{ writer, first: op.value, key: op.key }] : []
  }))
  const g1b = pairs.flatMap(({ writer, first, key }) => intermediate.flatMap((reader) => reader === writer || reader.type !== 'ok' || appendsTo(reader.ops, key) ? []
    : readsOf(reader.ops, key).filter((read) => read.value?.includes(first)).map((read) => ({ read, first }))))[0]
  if (g1b === undefined) t.fail(`no committed double append, read by another transaction, to inject an intermediate read into (${replay})`)
  else {
    const value = g1b.read.value as number[]
    g1b.read.value = value.slice(0, value.indexOf(g1b.first) + 1)
    const found = classesOf(checkHistory(intermediate))
    t.ok(found.includes('G1b'), `an intermediate read injected: ${found.join(', ')} (${replay})`)
  }
})

t.test(`R7 across kill -9: at least ${kills} kills of the real server mid-workload; in-flight transactions indeterminate, committed ones visible`, async (t) => {
  const dir = tempDir(t, 'tenantdb-si-kill9-')
  const schemaFile = join(dir, 'schema.eel')
  writeFileSync(schemaFile, list_append_schema)
  const s = shape(4)
  const keys = keyCount(s)
  const start = async (): Promise<{ server: CliProcess; submit: Submit }> => {
    const server = spawnCli(t, ['serve', '--dir', join(dir, 'db'), '--port', '0', '--schema', schemaFile, '--token', token], { LOG_LEVEL: 'warn' })
    const api = (await server.waitFor(/url: (http:\/\/\S+\/api\/v1)\n/))[1] as string
    return { server, submit: overHttp(api, token) }
  }
  const recorder = new Recorder()
  let inFlight = 0
  // A kill can land when every pending answer is already in the socket buffer, so the
  // workload is killed again (a few times at most) until one kill caught a transaction in flight.
  const cycles_max = kills + 4
  let cycle = 0
  for (; cycle < kills || (inFlight === 0 && cycle < cycles_max); cycle += 1) {
    const { server, submit } = await start()
    if (cycle === 0) await createAllKeys(submit, keys)
    // Every cycle appends to the same keys, so reads after a restart extend lists written before it.
    // Killed after a twelfth to a third of the cycle's planned transactions were answered.
    const killAfter = Math.floor(s.clients * s.txns * (1 / 12 + rng(seed + cycle)() / 4))
    let answers = 0
    let killed = false
    const kill = () => { killed = true; server.child.kill('SIGKILL') }
    const before = recorder.history.length
    await recorder.run(plans(s, cycle + 1, seed + cycle), submit, {
      stopped: () => killed,
      processBase: cycle * s.clients,
      // Only while other transactions wait for their answers, so the kill leaves some
      // indeterminate (a kill between requests would test nothing of that).
      onAnswer: () => { if (++answers >= killAfter && !killed && recorder.pending >= 2) kill() },
    })
    if (!killed) kill() // the plans ran out first: the kill finds nothing in flight
    t.equal(await server.exited, 'SIGKILL', `cycle ${cycle + 1}: killed after ${answers} answers`)
    inFlight += recorder.history.slice(before).filter((txn) => txn.type === 'info').length
  }
  // After the last restart a shorter workload runs to its end, then every key is read.
  const { server, submit } = await start()
  await recorder.run(plans(s, cycle + 1, seed + cycle).map((client) => client.slice(0, control_txns)), submit, { processBase: cycle * s.clients })
  await recorder.readAll(keys, submit)
  server.child.kill('SIGTERM')
  await server.exited

  t.same(recorder.unexpected.slice(0, 10), [], `every answer was a commit or a conflict, and no answer was lost before a kill (${replay})`)
  const result = checkHistory(recorder.history)
  if (result.valid) t.pass('snapshot-isolated across the kills: every committed append is visible after the restart')
  else t.fail(`${result.anomalies.length} anomalies (${replay}):\n  ${result.anomalies.slice(0, 10).map((a) => `${a.class}: ${a.explanation}`).join('\n  ')}`)
  t.ok(inFlight > 0, `${inFlight} transactions were in flight at a kill (indeterminate) (${replay})`)
  const seen = new Set(recorder.history.flatMap((txn) => txn.type === 'ok' ? txn.ops.flatMap((op) => op.f === 'r' ? op.value ?? [] : []) : []))
  const landed = recorder.history.filter((txn) => txn.type === 'info' && txn.ops.some((op) => op.f === 'append' && seen.has(op.value))).length
  t.comment(`${summary(result, recorder.history)}; of the indeterminate, ${landed} committed (observed) and the rest are not visible`)
})
