// Differential test of the query engine: random rows and random Eel statements run
// through QueryRunner over a real Engine and, translated with Eel's semantics, through
// SQLite (better-sqlite3, in memory) on the same rows; results must agree.
//
//   TENANTDB_DIFF_SEED=<n>    the seed (printed; default fixed, so CI is deterministic)
//   TENANTDB_DIFF_CASES=<n>   how many cases (1 000 in `npm test`, 10 000 under
//                             TENANTDB_SOAK=1, test/helpers/soak.ts)
//
// Helpers: test/differential/ (model, generator, Eel printer, SQL translator,
// comparison, harness). A failure prints the seed, the statement, its parameters,
// the SQL it was compared with, the difference, and a minimised set of rows.
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { Engine } from '../src/engine/index.js'
import { openRunner } from './helpers/query-runner.js'
import { buildSchemaIR, fingerprint, type CollectionIR } from '../src/schema/index.js'
import { diffRows, show } from './differential/compare.js'
import { CaseGen, genRows, type TableInfo } from './differential/generate.js'
import { genOthers } from './differential/generate-more.js'
import { caseSql, Differ, minimizeRows, rowsText, type DifferOptions, type Verdict } from './differential/harness.js'
import { collection, schemaSource, type Case, type Row } from './differential/model.js'
import { deriveSeed, Rng } from './differential/random.js'
import { SqlStore } from './differential/sql.js'
import { soak } from './helpers/soak.js'
import { tempDir } from './helpers/temp-dir.js'

function envInt(name: string, fallback: number): number {
  const text = process.env[name]
  if (text === undefined || text === '') return fallback
  const value = Number(text)
  if (!Number.isSafeInteger(value) || value < 0) throw new Error(`${name} must be a whole number, got ${JSON.stringify(text)}`)
  return value
}

const seed = envInt('TENANTDB_DIFF_SEED', 0x7e11a1)
const totalCases = envInt('TENANTDB_DIFF_CASES', soak ? 10_000 : 1000)
const failures_max = 5

// sums of ints beyond ±2^53 must fail with integer overflow on both sides
const sumOverflowWeight = 3

async function setup(t: Test) {
  const engine = await Engine.open(join(tempDir(t, 'tenantdb-diff-'), 'db'))
  t.teardown(() => engine.close())
  const ir = buildSchemaIR([{ name: 'differential.eel', source: schemaSource }])
  const { runner } = openRunner(engine, { ir, fingerprint: await fingerprint(ir) })
  const items = ir.collections.find((c) => c.name === collection) as CollectionIR
  return { runner, items }
}

function tableInfo(store: SqlStore): TableInfo {
  const rows = store.all(`SELECT id, u FROM ${collection}`)
  return { ids: rows.map((r) => r[0] as number), us: rows.map((r) => r[1]).filter((u): u is number => typeof u === 'number') }
}

t.test('Eel agrees with SQLite on random rows and statements', async (t) => {
  const started = Date.now()
  t.comment(`seed ${seed} (TENANTDB_DIFF_SEED), ${totalCases} cases (TENANTDB_DIFF_CASES)`)
  const { runner, items } = await setup(t)
  const options: DifferOptions = {}
  const counts = new Map<string, number>()
  const bump = (key: string) => counts.set(key, (counts.get(key) ?? 0) + 1)
  const failures: string[] = []
  let scratch = 0
  let done = 0

  for (let run = 0; done < totalCases && failures.length < failures_max; run += 1) {
    const rng = new Rng(deriveSeed(seed, run))
    const store = new SqlStore()
    try {
      const differ = new Differ(runner, `run${run}`, store, items, options)
      // Run 1 holds more rows than one read batch (1000), so paging is exercised.
      const rows = genRows(rng, run === 1 ? 1100 : rng.int(100, 300))
      const loaded = (await differ.loadOthers(genOthers(rng, rng.int(10, 40)))) ?? (await differ.load(rows))
      if (loaded !== null) {
        failures.push(`[seed ${seed} run ${run}] ${loaded}`)
        continue
      }
      const budget = Math.min(totalCases - done, run === 1 ? 100 : 250)
      for (let i = 0; i < budget; i += 1) {
        done += 1
        const table = tableInfo(store)
        const gen = new CaseGen(rng, table)
        // More atomic blocks in the large run: reads that merge pending writes across read batches.
        const atomicWeight = run === 1 ? 25 : 7
        const kind = table.ids.length < 40 ? 'fill' : rng.weighted<string>([['read', 60], ['risky', 7], ['risky sum', sumOverflowWeight], ['write', 26], ['atomic', atomicWeight]])
        const c: Case = kind === 'read' ? gen.finish([gen.read()])
          : kind === 'risky' ? gen.finish([gen.riskyRead()])
          : kind === 'risky sum' ? gen.finish([gen.riskyAggregate()])
          : kind === 'atomic' ? gen.finish(gen.atomic())
          : kind === 'fill' ? gen.finish([gen.insert('insert')])
          : gen.finish([gen.write()])
        const verdict = await differ.run(c, { escapeUnicode: rng.chance(0.3) })
        bump(`kind ${kind}`)
        for (const tag of c.tags) bump(tag)
        if (kind === 'read' || kind.startsWith('risky')) bump(`plan ${verdict.plans[0] ?? '(failed)'}`)
        if (verdict.failedAlike) bump('both sides failed (checked)')
        if (verdict.status === 'fail') {
          const report = await explain(c, verdict, store.table(), { seed, run, index: i }, async (subset) => {
            const trial = new SqlStore()
            try {
              const fresh = new Differ(runner, `scratch${scratch++}`, trial, items, options)
              if ((await fresh.loadOthers(othersOf(store))) !== null || (await fresh.load(subset)) !== null) return false
              return (await fresh.run(c, { escapeUnicode: false })).status === 'fail'
            } finally {
              trial.close()
            }
          })
          failures.push(report)
          break // the two stores may differ from here on
        }
      }
      if (failures.length === 0) {
        const audit = await differ.tableDiff('at the end of the run', Infinity)
        if (audit !== null) failures.push(`[seed ${seed} run ${run}] ${audit}`)
      }
    } finally {
      store.close()
    }
  }

  const seconds = ((Date.now() - started) / 1000).toFixed(1)
  t.comment(`${done} cases in ${seconds} s; cases per category (a case counts in every category it touches):`)
  for (const [key, n] of [...counts].sort(([a], [b]) => a.localeCompare(b))) t.comment(`  ${key.padEnd(34)} ${n}`)
  for (const failure of failures) {
    t.comment(failure)
    t.fail(failure.split('\n')[0] as string)
  }
  t.equal(failures.length, 0, 'no divergence between Eel and the SQLite reference')
  if (totalCases >= 1000) {
    // The run must have exercised what it claims to.
    for (const key of ['kind read', 'kind write', 'kind atomic', 'kind risky', 'both sides failed (checked)', 'aggregate-grouped', 'distinct', 'take', 'update', 'delete', 'insert', 'upsert', 'plan index a', 'plan primary', 'plan scan',
      'lookup', 'lookup primary', 'lookup index', 'lookup hash', 'lookup primary inner', 'lookup index many', 'returning', 'time', 'duration', 'time-part', 'count_distinct', 'conditional', 'pattern', 'string-functions', 'floor-ceil']) {
      t.ok((counts.get(key) ?? 0) > 0, `exercised: ${key}`)
    }
  }
})

/** The `others` rows of a store, for a minimisation's fresh stores. */
function othersOf(store: SqlStore): Row[] {
  return store.all('SELECT id, k, name, w FROM others ORDER BY id').map(([id, k, name, w]) => ({ id: id ?? null, k: k ?? null, name: name ?? null, w: w ?? null }))
}

async function explain(c: Case, verdict: Verdict, rows: Row[], at: { seed: number; run: number; index: number }, fails: (subset: Row[]) => Promise<boolean>): Promise<string> {
  const minimal = await minimizeRows(rows, fails)
  const confirmed = await fails(minimal)
  return [
    `divergence [seed ${at.seed} run ${at.run} case ${at.index}] (${[...c.tags].join(', ')})`,
    `  eel:     ${verdict.text}`,
    `  params:  ${show(c.params)}`,
    `  plan:    ${verdict.plans.join('; ') || '(Eel failed)'}`,
    ...caseSql(c).map((sql) => `  sql:     ${sql}`),
    `  problem: ${verdict.message}`,
    `  rows (${minimal.length} of ${rows.length}${confirmed ? '' : ', minimisation not confirmed'}): ${rowsText(minimal)}`,
  ].join('\n')
}

t.test('self-check: the comparison catches wrong results and wrong translations', async (t) => {
  const int = [{ name: 'x', ty: 'int' as const }]
  const float = [{ name: 'x', ty: 'float' as const }]
  const bool = [{ name: 'x', ty: 'bool' as const }]
  const rows = (...values: Array<null | number | boolean | string>) => ({ columns: ['x'], rows: values.map((v) => [v]) })
  t.equal(diffRows(rows(1, 2), rows(1, 2), int), null, 'equal rows agree')
  t.not(diffRows(rows(1), rows(1.0000001), int), null, 'ints compare exactly')
  t.equal(diffRows(rows(0.1 + 0.2), rows(0.3), float), null, 'floats compare within 1e-9')
  t.not(diffRows(rows(0.3), rows(0.31), float), null, 'but not beyond')
  t.not(diffRows(rows(null), rows(0), int), null, 'null is not 0')
  t.not(diffRows(rows(true), rows(1), bool), null, 'an unconverted SQLite boolean does not pass')
  t.not(diffRows(rows('a'), rows('A'), [{ name: 'x', ty: 'string' }]), null, 'strings compare exactly')
  t.match(diffRows(rows(1, 2), rows(2, 1), int), /different order/, 'order matters, and is named')
  t.match(diffRows(rows(1, 2), rows(1), int), /row counts differ/)
  t.match(diffRows({ columns: ['y'], rows: [] }, rows(), int), /columns differ/)

  // The same random reads against a correct and a deliberately wrong translation
  // (`<` as `<=`): the wrong one must be caught, the right one must pass.
  const { runner, items } = await setup(t)
  const rng = new Rng(deriveSeed(seed, 1_000_000))
  const store = new SqlStore()
  t.teardown(() => store.close())
  const right = new Differ(runner, 'selfcheck', store, items, {})
  const wrong = new Differ(runner, 'selfcheck', store, items, { mutate: 'lt-as-le' })
  t.equal(await right.load(genRows(rng, 150)), null, 'loaded')
  let caught = 0
  let withLess = 0
  for (let i = 0; i < 300; i += 1) {
    const gen = new CaseGen(rng, tableInfo(store))
    const c = gen.finish([gen.read()])
    const usesLess = / < /.test(caseSql(c).join(' '))
    const good = await right.run(c, { escapeUnicode: false })
    if (good.status === 'fail') t.fail(`correct translation failed: ${good.text}: ${good.message}`)
    if (!usesLess) continue
    withLess += 1
    if ((await wrong.run(c, { escapeUnicode: false })).status === 'fail') caught += 1
  }
  t.comment(`wrong translation caught in ${caught} of ${withLess} reads that use '<'`)
  t.ok(withLess > 20, 'enough reads use <')
  t.ok(caught > withLess / 10, 'the wrong translation is caught')
})
