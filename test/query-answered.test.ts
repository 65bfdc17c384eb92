// The conjuncts a primary-key range answers (src/query/plan/answered.ts, plan.ts `answered`):
// only `field op constant` bounds on the primary key of the leading `where` stages, and
// only when the access is that range; the rest of each `where` still runs. That the
// rows stay the same is the differential test's (test/query-differential.test.ts fails
// when every leading conjunct is dropped) and the batch-pipeline test's.
import t from 'tap'
import { parse, type Expr, type Stage } from '../src/lang/index.js'
import { conjuncts, withoutAnswered } from '../src/query/plan/answered.js'
import { plan } from '../src/query/plan/index.js'
import { buildSchemaIR } from '../src/schema/index.js'

const ir = buildSchemaIR([{ name: 's.eel', source: 'collection kv { k: string primary, n: int, s: string?, index (n) }\n' }])
const kv = ir.collections.find((c) => c.name === 'kv')
if (kv === undefined) throw new Error('no collection kv')

function planned(text: string, params: Record<string, unknown> = {}) {
  const statement = parse(text).statements[0]
  if (statement?.kind !== 'pipeline') throw new Error(`not a pipeline: ${text}`)
  const ctx = { params: params as never, now: new Date(0), integerOps: new WeakSet<Expr>() }
  const chosen = plan('t', kv as never, statement.stages, ctx)
  return { chosen, stages: statement.stages, left: withoutAnswered(statement.stages, chosen.answered) }
}

/** The stages left, written back as text-like summaries: `where <n conjuncts>` or the kind. */
const summary = (stages: readonly Stage[]) => stages.map((s) => (s.kind === 'where' ? `where ${conjuncts(s.predicate).length}` : s.kind))

t.test('a primary-key range answers its own bounds, nothing else', async (t) => {
  const cases: Array<[string, Record<string, unknown>, string[], number]> = [
    ['kv | where k >= $k | take 10', { k: 'a' }, ['take'], 1],
    ['kv | where k >= $a and k < $b', { a: 'a', b: 'm' }, [], 2],
    ['kv | where $a <= k and s == "x" | select k', { a: 'a' }, ['where 1', 'select'], 1],
    ['kv | where k > "c" | where s != null | where k < "x"', {}, ['where 1'], 2],
    // A where after another stage is not leading: it runs whatever the range.
    ['kv | where k > "c" | take 5 | where k < "x"', {}, ['take', 'where 1'], 1],
  ]
  for (const [text, params, left, answered] of cases) {
    const { chosen, left: stages } = planned(text, params)
    t.equal(chosen.access.kind, 'range', `${text}: a key range`)
    t.equal(chosen.answered?.length, answered, `${text}: ${answered} answered`)
    t.same(summary(stages), left, `${text}: left to run`)
  }
})

t.test('no other access answers anything', async (t) => {
  const cases: Array<[string, Record<string, unknown>]> = [
    ['kv | where n == 3 and k >= "a"', {}], // the index on n is chosen: k's bound still runs
    ['kv | where k == $k', { k: 'a' }], // points
    ['kv | where k in ["a", "b"]', {}],
    ['kv | where k > null', {}], // not sargable: a scan
    ['kv | where upper(k) > "A"', {}],
    ['kv | where k >= "a" or n == 1', {}],
    ['kv | where k >= "a" | sort k desc | take 3', {}], // the order replaced the access
  ]
  for (const [text, params] of cases) {
    const { chosen, stages, left } = planned(text, params)
    t.same(chosen.answered ?? [], [], `${text}: nothing answered (${chosen.access.kind})`)
    t.equal(left, stages, 'the stages as they were')
  }
})
