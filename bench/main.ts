// The benchmark harness (`npm run bench`, `tenantdb bench`): runs the workloads of
// docs/performance.md against their anchors, prints a report, writes JSON (--out).
import { writeFileSync } from 'node:fs'
import { parseBenchArgs } from './harness/args.js'
import { BenchContext } from './harness/context.js'
import { machine } from './harness/machine.js'
import { Progress } from './harness/progress.js'
import { Recorder } from './harness/recorder.js'
import { renderSummary, renderWorkload } from './harness/report.js'
import type { WorkloadResult } from './harness/result.js'
import { nowMs } from './harness/timing.js'
import { Unavailable } from './harness/workload.js'
import { workloads } from './workloads/index.js'

export async function runBench(argv: string[]): Promise<WorkloadResult[]> {
  const args = parseBenchArgs(argv)
  const unknown = args.only.filter((id) => !workloads.some((w) => w.id === id))
  if (unknown.length > 0) throw new Error(`unknown workload ${unknown.join(', ')}; the workloads are ${workloads.map((w) => w.id).join(', ')}`)
  const chosen = workloads.filter((w) => args.only.length === 0 || args.only.includes(w.id))
  const progress = new Progress()
  const ctx = new BenchContext(args, progress)
  const started = new Date()
  const info = machine(ctx.root)
  process.stdout.write(`tenantdb bench: ${args.quick ? 'quick' : 'full'} run, median of ${args.reps} repetitions after a warm-up\n`)
  process.stdout.write(`  ${info.cpu_model}, ${info.cores} cores, ${(info.memory_bytes / 1024 ** 3).toFixed(0)} GiB, ${info.node}, ${info.bench_filesystem ?? 'file system unknown'} (${ctx.root})\n\n`)
  const results: WorkloadResult[] = []
  try {
    for (const [i, workload] of chosen.entries()) {
      progress.begin(`[${i + 1}/${chosen.length}] ${workload.id}`)
      const rec = new Recorder()
      const t0 = nowMs()
      let result: WorkloadResult
      try {
        await workload.run(ctx, rec)
        result = rec.result(workload.id, workload.title, (nowMs() - t0) / 1000)
      } catch (err) {
        if (!(err instanceof Unavailable)) throw err
        result = { ...rec.result(workload.id, workload.title, (nowMs() - t0) / 1000), skipped: err.message }
      }
      progress.end()
      results.push(result)
      process.stdout.write(`${renderWorkload(result)}\n`)
    }
  } finally {
    progress.end()
    await ctx.dispose()
  }
  process.stdout.write(renderSummary(results))
  if (args.out !== null) {
    const json = { started_at: started.toISOString(), seconds: (Date.now() - started.getTime()) / 1000, quick: args.quick, reps: args.reps, machine: info, workloads: results }
    writeFileSync(args.out, `${JSON.stringify(json, null, 2)}\n`)
    process.stdout.write(`results written to ${args.out}\n`)
  }
  return results
}
