// What a prepared-statement id would save an HTTP query over sending its text again
// (docs/performance.md, "Writes over HTTP that group"). Per request, the query route
// reads the JSON body, finds the text's parsed statement in the runner's statement
// cache (statement-cache.ts) and its checked form for the parameters' shape
// (check-cache.ts). A statement prepared under an id would replace the lookup by text
// with one by id, and the body's text with the id; the parameters must still be
// checked on every call. Measured here, per call, in CPU time: the body with the text
// and the lookups by text, the body with an id and the lookup by id, and, for scale,
// the same text parsed and checked anew (no cache).
//
//   npm run build:bench && node dist/bench-build/bench/repeated-text.js [--calls 200000]
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import type { Statement, Value } from '../src/lang/ast.js'
import { CheckCache, StatementCache } from '../src/query/check/index.js'
import { Database } from '../src/database/index.js'
import { key, kv_schema, value } from './harness/data.js'

const { values } = parseArgs({ options: { calls: { type: 'string', default: '200000' }, reps: { type: 'string', default: '5' } } })
const calls = Number(values.calls)
const reps = Number(values.reps)

const dir = mkdtempSync(join(tmpdir(), 'tenantdb-repeated-text-'))
writeFileSync(join(dir, 'kv.eel'), kv_schema)
const db = await Database.open(join(dir, 'db'), { schema: [join(dir, 'kv.eel')] })
const ir = db.schema.ir
await db.close()
rmSync(dir, { recursive: true, force: true })

/** CPU µs per call of `work`, the median of `reps` runs of `calls` calls (a first run warms up). */
function perCall(work: (i: number) => unknown, n = calls): number {
  const runs: number[] = []
  for (let r = 0; r <= reps; r += 1) {
    const cpu = process.cpuUsage()
    for (let i = 0; i < n; i += 1) work(i)
    const used = process.cpuUsage(cpu)
    if (r > 0) runs.push((used.user + used.system) / n)
  }
  return runs.sort((a, b) => a - b)[Math.floor(runs.length / 2)] as number
}

let sink = 0
for (const [what, text, params] of [
  ['durable insert', 'insert kv {k: $k, v: $v}', (i: number) => ({ k: key(i), v: value(i) })],
  ['point read', 'kv | get $k', (i: number) => ({ k: key(i) })],
] as const) {
  // Bodies made beforehand, as a client sends them: the text each time, or an id.
  const text_bodies = Array.from({ length: 1000 }, (_, i) => JSON.stringify({ query: text, params: params(i) }))
  const id_bodies = Array.from({ length: 1000 }, (_, i) => JSON.stringify({ statement: 's1', params: params(i) }))
  const cache = new StatementCache()
  const prepared = new Map<string, { text: string; statement: Statement; checks: CheckCache }>()
  const entry = cache.entry(text)
  prepared.set('s1', { text, ...entry })
  const by_text = perCall((i) => {
    const body = JSON.parse(text_bodies[i % 1000] as string) as { query: string; params: Record<string, Value> }
    const { statement, checks } = cache.entry(body.query)
    sink += checks.check(statement, ir, body.query, body.params).statement.kind.length
  })
  const by_id = perCall((i) => {
    const body = JSON.parse(id_bodies[i % 1000] as string) as { statement: string; params: Record<string, Value> }
    const found = prepared.get(body.statement)
    if (found === undefined) throw new Error('no statement')
    sink += found.checks.check(found.statement, ir, found.text, body.params).statement.kind.length
  })
  const uncached = new StatementCache(0)
  const cold = perCall((i) => {
    const body = JSON.parse(text_bodies[i % 1000] as string) as { query: string; params: Record<string, Value> }
    const { statement, checks } = uncached.entry(body.query)
    sink += checks.check(statement, ir, body.query, body.params).statement.kind.length
  }, Math.ceil(calls / 20))
  console.log(`${what.padEnd(15)} text again ${by_text.toFixed(2)} µs   prepared id ${by_id.toFixed(2)} µs   parsed and checked anew ${cold.toFixed(1)} µs (CPU per call, body read included)`)
}
if (sink < 0) console.log(sink)
