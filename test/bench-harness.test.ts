// The benchmark harness measures; these tests only check that it computes and reports
// what it claims (no timing is asserted): order statistics, goal verdicts, and a real
// `tenantdb bench` run of two cheap workloads writing its JSON.
import { execFile } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'
import t from 'tap'
import { Recorder } from '../bench/harness/recorder.js'
import { latencySummary, median, quantile } from '../bench/harness/stats.js'
import type { WorkloadResult } from '../bench/harness/result.js'
import { tempDir } from './helpers/temp-dir.js'

t.test('median and quantiles: odd, even, p99 of 100 is the 99th', async (t) => {
  t.equal(median([5, 1, 3]), 3)
  t.equal(median([4, 1, 3, 2]), 2.5)
  const hundred = Array.from({ length: 100 }, (_, i) => 100 - i)
  t.equal(quantile(hundred, 0.99), 99)
  t.equal(quantile(hundred, 1), 100)
  t.equal(quantile([7], 0.5), 7)
  t.same(latencySummary([3, 1, 2]), { n: 3, p50: 2, p99: 3, max: 3 })
  t.throws(() => median([]), /no samples/)
})

t.test('recorder: ratios of medians, verdicts in both directions', async (t) => {
  const rec = new Recorder()
  rec.figure('ours', 'ours', 'ops/s', [90, 100, 110])
  rec.figure('theirs', 'theirs', 'ops/s', [200, 190, 210])
  const ratio = rec.ratio('ours / theirs', 'ours', 'theirs', '>=', 0.5)
  t.equal(ratio.measured, 0.5)
  t.equal(ratio.met, true)
  t.equal(rec.ratio('strict', 'ours', 'theirs', '>=', 0.51).met, false)
  t.equal(rec.goal('p99', 1.2, 'ms', '<=', 1).met, false)
  t.equal(rec.goal('p99', 0.8, 'ms', '<=', 1).met, true)
  t.throws(() => rec.value('missing'), /no figure 'missing'/)
  const result = rec.result('PX', 'title', 1)
  t.equal(result.figures.length, 2)
  t.equal(result.goals.length, 4)
})

t.test('tenantdb bench: a real run of P7 and P8 writes every figure and goal as JSON', async (t) => {
  const dir = tempDir(t)
  const out = join(dir, 'bench.json')
  const { stdout } = await promisify(execFile)(process.execPath, ['bin/tenantdb.js', 'bench', '--quick', '--only', 'p7,P8', '--reps', '1', '--dir', dir, '--out', out], { maxBuffer: 1 << 24 })
  t.match(stdout, /P7 +diff of 100 changed rows/)
  t.match(stdout, /P8 +recovery after kill -9/)
  t.match(stdout, /of 2 goals met/)
  const json = JSON.parse(readFileSync(out, 'utf8')) as { quick: boolean; reps: number; machine: { cores: number }; workloads: WorkloadResult[] }
  t.equal(json.quick, true)
  t.equal(json.reps, 1)
  t.ok(json.machine.cores >= 1)
  t.same(json.workloads.map((w) => w.id), ['P7', 'P8'])
  for (const w of json.workloads) {
    for (const f of w.figures) {
      t.equal(f.samples.length, 1, `${w.id} ${f.key}: one sample per repetition`)
      t.ok(Number.isFinite(f.value) && f.value > 0, `${w.id} ${f.key} is a positive number`)
    }
  }
  const p8 = json.workloads[1] as WorkloadResult
  t.ok((p8.figures.find((f) => f.key === 'replayed_mib')?.value ?? 0) >= 16, 'P8 replayed at least the 16 MiB the quick run writes')
})

t.test('tenantdb bench: an unknown workload is refused with the list', async (t) => {
  const failure = await promisify(execFile)(process.execPath, ['bin/tenantdb.js', 'bench', '--only', 'P99']).then(
    () => null,
    (err: { code: number; stderr: string }) => err,
  )
  t.equal(failure?.code, 1)
  t.match(failure?.stderr, /unknown workload P99; the workloads are P1, P2/)
})
