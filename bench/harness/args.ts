// Command-line options of `npm run bench` / `tenantdb bench`.
import { tmpdir } from 'node:os'
import { parseArgs } from 'node:util'

export interface BenchArgs {
  quick: boolean
  reps: number
  out: string | null
  /** Workload ids to run ('P1', …); all when empty. */
  only: string[]
  base: string
}

export const bench_usage = `usage: tenantdb bench [--quick] [--out FILE] [--only P1,P3,...] [--reps N] [--dir DIR]

  Runs the workloads P1-P16 and P18 of docs/performance.md, each against its anchors
  (raw fdatasync, better-sqlite3, lmdb, bare fastify, PocketBase when \`go\` can build
  it) in the same run, and prints medians and ratios. --quick: smaller sizes, 3
  repetitions (a run of about two minutes). --out: also write the results as JSON.
  --dir: where the engines write (default the system's temporary directory; put it
  on the disk you mean to measure).
`

export function parseBenchArgs(argv: string[]): BenchArgs {
  const { values } = parseArgs({
    args: argv,
    options: {
      quick: { type: 'boolean', default: false },
      reps: { type: 'string' },
      out: { type: 'string' },
      only: { type: 'string' },
      dir: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
  })
  if (values.help) {
    process.stdout.write(bench_usage)
    process.exit(0)
  }
  const reps = values.reps === undefined ? (values.quick ? 3 : 5) : Number(values.reps)
  if (!Number.isInteger(reps) || reps < 1) throw new Error(`--reps must be a positive integer, got '${values.reps}'`)
  const only = values.only === undefined ? [] : values.only.split(',').map((id) => id.trim().toUpperCase()).filter((id) => id !== '')
  return { quick: values.quick, reps, out: values.out ?? null, only, base: values.dir ?? tmpdir() }
}
