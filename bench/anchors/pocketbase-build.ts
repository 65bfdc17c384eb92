// PocketBase, the anchor of the HTTP workloads (P9, P16): the stock server, built by
// `go build` from bench/anchors/pocketbase/ (a main that only calls
// pocketbase.New().Start(); go.mod and go.sum pin the version, fetched through the Go
// module proxy). The binary is kept in dist/bench-build/pocketbase/HASH/, HASH of
// go.sum, go.mod and main.go, so one build serves every later run. Without `go`, or
// when the build fails, the anchor is not run and the workload says why in one line.
import { spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync, renameSync } from 'node:fs'
import { join } from 'node:path'
import type { BenchContext } from '../harness/context.js'
import { repo_root } from '../harness/paths.js'
import type { Recorder } from '../harness/recorder.js'

export const pocketbase_source = join(repo_root, 'bench', 'anchors', 'pocketbase')
const default_build_root = join(repo_root, 'dist', 'bench-build', 'pocketbase')

/** The PocketBase version go.mod pins ('0.36.8'). */
export const pocketbase_version: string = /github\.com\/pocketbase\/pocketbase v(\S+)/.exec(readFileSync(join(pocketbase_source, 'go.mod'), 'utf8'))?.[1] ?? 'unknown'

export interface BuildOptions {
  /** The environment `go` is looked up and run in (its PATH decides whether it is there). */
  env?: NodeJS.ProcessEnv
  /** Where built binaries are kept. */
  buildRoot?: string
  /** Told before a build starts (it takes minutes the first time). */
  building?: () => void
}

export type Built = { binary: string } | { skipped: string }

function sourceHash(): string {
  const hash = createHash('sha256')
  for (const file of ['go.sum', 'go.mod', 'main.go']) hash.update(readFileSync(join(pocketbase_source, file)))
  return hash.digest('hex').slice(0, 16)
}

/** The last line of `go`'s complaint, enough to tell a network failure from a compile error. */
function lastLine(text: string): string {
  return text.trim().split('\n').at(-1)?.trim() ?? ''
}

/** The built binary, building it first when this source has not been built yet. */
export function pocketbaseBinary(options: BuildOptions = {}): Built {
  const env = options.env ?? process.env
  const dir = join(options.buildRoot ?? default_build_root, sourceHash())
  const binary = join(dir, 'pocketbase')
  if (existsSync(binary)) return { binary }
  const go = spawnSync('go', ['version'], { env, encoding: 'utf8' })
  if (go.error !== undefined || go.status !== 0) return { skipped: '`go` is not on the PATH, so PocketBase cannot be built' }
  options.building?.()
  mkdirSync(dir, { recursive: true })
  const partial = `${binary}.${process.pid}.partial`
  const build = spawnSync('go', ['build', '-buildvcs=false', '-o', partial, '.'], { cwd: pocketbase_source, env, encoding: 'utf8', timeout: 30 * 60_000 })
  if (build.status !== 0) return { skipped: `go build of PocketBase failed: ${lastLine(`${build.stderr ?? ''}${build.error?.message ?? ''}`) || `exit ${build.status}`}` }
  renameSync(partial, binary)
  return { binary }
}

/**
 * The binary for a workload, or null after one note saying why PocketBase is not run
 * (the workload's other contenders still are).
 */
export function preparePocketbase(ctx: BenchContext, rec: Recorder, options: BuildOptions = {}): string | null {
  const building = () => ctx.progress.step(`PocketBase ${pocketbase_version}: go build (once per go.sum; minutes the first time)`)
  const built = pocketbaseBinary({ building, ...options })
  if ('binary' in built) return built.binary
  rec.note(`PocketBase anchor not run: ${built.skipped}`)
  return null
}
