// What the JSON records about the machine, so figures from different runs are never
// compared without knowing where they came from.
import { execFileSync } from 'node:child_process'
import { cpus, release, totalmem, type as osType } from 'node:os'

function command(file: string, args: string[]): string | null {
  try {
    return execFileSync(file, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim()
  } catch {
    return null
  }
}

export interface Machine {
  cpu_model: string
  cores: number
  memory_bytes: number
  os: string
  node: string
  rustc: string | null
  git_commit: string | null
  /** `df -T` of the directory the engines write to: the file system and the device. */
  bench_filesystem: string | null
}

export function machine(benchDir: string): Machine {
  const df = command('df', ['-T', benchDir])?.split('\n')[1]?.split(/\s+/)
  return {
    cpu_model: cpus()[0]?.model ?? 'unknown',
    cores: cpus().length,
    memory_bytes: totalmem(),
    os: `${osType()} ${release()}`,
    node: process.version,
    rustc: command('rustc', ['--version']),
    git_commit: command('git', ['rev-parse', 'HEAD']),
    bench_filesystem: df === undefined ? null : `${df[1]} on ${df[0]}`,
  }
}
