// The list-append snapshot-isolation checker (test/helpers/list-append/) on small
// hand-written histories: each anomaly class must be flagged with its class, and
// valid snapshot-isolated histories, write skew (G2) included, must pass. Write skew
// is allowed under snapshot isolation: the checker must see its cycle and list it as
// allowed, not flag it. Times are [invoke, complete] on one logical clock; a read that
// begins after an append was acknowledged must see it (lost-append).
import t from 'tap'
import { checkHistory, type History, type Op, type Outcome, type Txn } from './helpers/list-append/index.js'

const x = 1
const y = 2
const z = 3
const a = (key: number, value: number): Op => ({ f: 'append', key, value })
const r = (key: number, ...values: number[]): Op => ({ f: 'r', key, value: values })

let nextId = 1
function T(type: Outcome, at: [number, number], ...ops: Op[]): Txn {
  // A transaction whose outcome hides its reads (fail, info) reads nothing known.
  const known = type === 'ok' ? ops : ops.map((op) => (op.f === 'r' ? { ...op, value: null } : op))
  const id = nextId++
  return { id, process: id, type, ops: known, invoke: at[0], complete: at[1] }
}

/** The classes the checker flags, sorted and deduplicated. */
function classes(history: History): string[] {
  return [...new Set(checkHistory(history).anomalies.map((anomaly) => anomaly.class))].sort()
}

t.test('valid: serial appends and reads, a read-only transaction', async (t) => {
  const result = checkHistory([
    T('ok', [0, 1], a(x, 1), a(y, 11)),
    T('ok', [2, 3], r(x, 1), a(x, 2), r(x, 1, 2)),
    T('ok', [4, 5], r(x, 1, 2), r(y, 11), r(z)),
  ])
  t.same(result.anomalies, [])
  t.ok(result.valid)
  t.same(result.stats.edges, { ww: 1, wr: 3, rw: 0 }, 'the dependencies were inferred')
})

t.test('valid: failed transactions unseen, indeterminate ones seen or not, an old snapshot read concurrently', async (t) => {
  const result = checkHistory([
    T('ok', [0, 1], a(x, 1)),
    T('fail', [2, 3], r(x), a(x, 2)),
    T('info', [2, 9], a(y, 3)), // observed below: it committed
    T('info', [2, 9], a(x, 4)), // never observed: it may not have committed
    T('ok', [3, 12], r(x, 1), r(y)), // began before the info transactions' outcome was known
    T('ok', [10, 11], r(x, 1), r(y, 3)),
  ])
  t.same(result.anomalies, [])
  t.same(result.stats, { ok: 3, fail: 1, info: 2, edges: { ww: 0, wr: 3, rw: 1 } })
})

t.test('valid under snapshot isolation: write skew (G2) is seen and allowed, not flagged', async (t) => {
  const result = checkHistory([
    T('ok', [0, 3], r(x), a(y, 1)),
    T('ok', [1, 2], r(y), a(x, 2)),
    T('ok', [4, 5], r(x, 2), r(y, 1)),
  ])
  t.same(result.anomalies, [], 'no anomaly')
  t.ok(result.valid)
  t.equal(result.allowed.length, 1, 'one G2 cycle found')
  t.equal(result.allowed[0]?.class, 'G2')
  t.same(result.allowed[0]?.cycle?.map((step) => step.kind), ['rw', 'rw'], 'of two anti-dependencies')
})

t.test('G0: a write cycle', async (t) => {
  const history = [
    T('ok', [0, 3], a(x, 1), a(y, 11)),
    T('ok', [1, 2], a(x, 2), a(y, 12)),
    T('ok', [4, 5], r(x, 1, 2), r(y, 12, 11)),
  ]
  t.same(classes(history), ['G0'])
  t.same(checkHistory(history).anomalies[0]?.cycle?.map((step) => step.kind), ['ww', 'ww'])
})

t.test('G1a: an aborted read', async (t) => {
  t.same(classes([T('fail', [0, 1], a(x, 1)), T('ok', [2, 3], r(x, 1))]), ['G1a'])
})

t.test('G1b: an intermediate read (also a one-rw cycle: it read a version its writer then overwrote)', async (t) => {
  const history = [
    T('ok', [0, 3], a(x, 1), a(x, 2)),
    T('ok', [1, 2], r(x, 1)),
    T('ok', [4, 5], r(x, 1, 2)),
  ]
  t.same(classes(history), ['G-single', 'G1b'])
})

t.test('G1c: circular information flow', async (t) => {
  const history = [
    T('ok', [0, 3], a(x, 1), r(y, 2)),
    T('ok', [1, 2], a(y, 2), r(x, 1)),
    T('ok', [4, 5], r(x, 1), r(y, 2)),
  ]
  t.same(classes(history), ['G1c'])
  t.same(checkHistory(history).anomalies[0]?.cycle?.map((step) => step.kind), ['wr', 'wr'])
})

t.test('G-single: read skew by a read-only transaction', async (t) => {
  const history = [
    T('ok', [0, 3], a(x, 1), a(y, 11)),
    T('ok', [1, 2], r(x), r(y, 11)), // sees the writer's y but not its x
    T('ok', [4, 5], r(x, 1), r(y, 11)),
  ]
  t.same(classes(history), ['G-single'])
  t.same(checkHistory(history).anomalies[0]?.cycle?.map((step) => step.kind).sort(), ['rw', 'wr'])
})

t.test('lost update: two committed read-modify-writes of one version, both appends kept', async (t) => {
  // Both read x empty and appended; the one that committed second overwrote a version
  // it never saw. That is also a cycle with one rw edge.
  t.same(classes([
    T('ok', [0, 3], r(x), a(x, 1)),
    T('ok', [1, 2], r(x), a(x, 2)),
    T('ok', [4, 5], r(x, 2, 1)),
  ]), ['G-single', 'lost-update'])
})

t.test('lost update: two committed read-modify-writes of one version, one append overwritten', async (t) => {
  t.same(classes([
    T('ok', [0, 3], r(x), a(x, 1)),
    T('ok', [1, 2], r(x), a(x, 2)),
    T('ok', [4, 5], r(x, 1)),
  ]), ['lost-append', 'lost-update'])
})

t.test('lost-append: an acknowledged append missing from a later read', async (t) => {
  t.same(classes([T('ok', [0, 1], a(x, 1)), T('ok', [2, 3], r(x))]), ['lost-append'])
})

t.test('lost-append: an indeterminate transaction observed in part (committed, so all of it must be there)', async (t) => {
  t.same(classes([T('info', [0, 1], a(x, 1), a(y, 2)), T('ok', [2, 3], r(x, 1), r(y))]), ['lost-append'])
  t.same(classes([T('info', [0, 1], a(x, 1), a(y, 2)), T('ok', [2, 3], r(x), r(y))]), [], 'observed in nothing: it may not have committed')
})

t.test('incompatible order: two reads of a key that disagree', async (t) => {
  t.same(classes([
    T('ok', [0, 10], a(x, 1)),
    T('ok', [1, 11], a(x, 2)),
    T('ok', [2, 12], r(x, 1)),
    T('ok', [3, 13], r(x, 2)),
  ]), ['incompatible-order'])
})

t.test('duplicate elements', async (t) => {
  t.same(classes([T('ok', [0, 3], a(x, 1)), T('ok', [1, 2], r(x, 1, 1))]), ['duplicate-elements'])
})

t.test('garbage reads: a value nobody appended, or one appended to another key', async (t) => {
  t.same(classes([T('ok', [0, 1], r(x, 9))]), ['garbage-read'])
  t.same(classes([T('ok', [0, 3], a(y, 1)), T('ok', [1, 2], r(x, 1))]), ['garbage-read'])
})

t.test('internal: a transaction that does not see its own append', async (t) => {
  t.same(classes([T('ok', [0, 1], a(x, 1), r(x))]), ['internal'])
  t.same(classes([T('ok', [0, 3], a(x, 2)), T('ok', [1, 2], r(x), a(x, 1), r(x, 2, 1))]), ['internal'], 'nor agrees with its own earlier read')
})

t.test('a history appending one value twice is refused as malformed (a workload bug, not an anomaly)', async (t) => {
  t.throws(() => checkHistory([T('ok', [0, 1], a(x, 1)), T('ok', [2, 3], a(y, 1))]), /malformed history: value 1/)
})

/**
 * A reference snapshot-isolation store in memory, stepping five clients in a random
 * interleaving: a transaction reads the lists committed when it began plus its own
 * appends and, at commit, fails if another transaction appended to a key it appends
 * to since it began (first committer wins); one in ten loses its answer and commits
 * or not (info). With `firstCommitterWins` off, a commit writes its snapshot's list
 * plus its appends over whatever is there, as a read-modify-write without the check.
 * A last read of every key ends the history.
 */
function simulate(seed: number, firstCommitterWins: boolean): History {
  let s = seed
  const random = () => ((s = (Math.imul(s, 1103515245) + 12345) >>> 0) / 2 ** 32)
  const keys = 6
  const store = new Map<number, { list: number[]; at: number }>()
  let clock = 0
  let value = 0
  const history: History = []
  const running = new Map<number, { txn: Txn; plan: Op[]; snapshot: Map<number, number[]>; own: Map<number, number[]> }>()
  const txn = (process: number): Txn => {
    const t: Txn = { id: history.length + 1, process, type: 'ok', ops: [], invoke: clock++, complete: -1 }
    history.push(t)
    return t
  }
  for (let step = 0; step < 4000; step += 1) {
    const process = Math.floor(random() * 5)
    const run = running.get(process)
    if (run === undefined) {
      const plan = Array.from({ length: 1 + Math.floor(random() * 4) }, () => {
        const key = Math.floor(random() * keys)
        return random() < 0.5 ? r(key) : a(key, ++value)
      })
      running.set(process, { txn: txn(process), plan, snapshot: new Map([...store].map(([key, v]) => [key, v.list])), own: new Map() })
      continue
    }
    const op = run.plan.shift()
    if (op !== undefined) {
      const mine = run.own.get(op.key) ?? []
      if (op.f === 'r') run.txn.ops.push(r(op.key, ...(run.snapshot.get(op.key) ?? []), ...mine))
      else {
        run.txn.ops.push(op)
        run.own.set(op.key, [...mine, op.value])
      }
      continue
    }
    running.delete(process)
    const conflict = firstCommitterWins && [...run.own.keys()].some((key) => (store.get(key)?.at ?? -1) > run.txn.invoke)
    const lost = random() < 0.1
    if (!conflict && !(lost && random() < 0.5)) {
      for (const [key, mine] of run.own) store.set(key, { list: [...(run.snapshot.get(key) ?? []), ...mine], at: clock })
    }
    run.txn.type = lost ? 'info' : conflict ? 'fail' : 'ok'
    if (run.txn.type !== 'ok') run.txn.ops = run.txn.ops.map((o) => (o.f === 'r' ? { ...o, value: null } : o))
    run.txn.complete = clock++
  }
  const last = txn(99)
  last.ops = Array.from({ length: keys }, (_, key) => r(key, ...(store.get(key)?.list ?? [])))
  last.complete = clock++
  return history.filter((t) => t.complete >= 0)
}

t.test('model: histories of a reference snapshot-isolation store pass; without first-committer-wins they fail', async (t) => {
  let writeSkews = 0
  for (let seed = 1; seed <= 20; seed += 1) {
    const result = checkHistory(simulate(seed, true))
    if (!result.valid) t.fail(`seed ${seed}: ${result.anomalies.slice(0, 5).map((x) => `${x.class}: ${x.explanation}`).join('\n')}`)
    t.ok(result.stats.fail > 0 && result.stats.info > 0, `seed ${seed}: ${result.stats.ok} ok, ${result.stats.fail} failed, ${result.stats.info} indeterminate`)
    writeSkews += result.allowed.length
  }
  t.ok(writeSkews > 0, `${writeSkews} write-skew cycles were allowed across the seeds`)
  for (let seed = 1; seed <= 20; seed += 1) {
    const found = classes(simulate(seed, false))
    t.ok(found.includes('lost-update'), `seed ${seed} without the check: ${found.join(', ')}`)
  }
})
