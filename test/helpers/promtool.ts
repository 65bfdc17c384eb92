// Prometheus's own checker, `promtool check metrics`, over an exposition text: it reads
// the text as Prometheus does and lints the names (docs/operations.md, "Metrics"). It
// comes with Debian's prometheus package; without it the test fails, never skips
// (scripts/test-setup installs it). Nothing here needs a Prometheus server running.
import { spawn } from 'node:child_process'
import { hang_guard_ms } from './poll.js'

export const promtool_binary = process.env.TENANTDB_PROMTOOL ?? 'promtool'

export interface PromtoolCheck {
  code: number | null
  /** What promtool printed (its problems go to stderr), stdout and stderr together. */
  output: string
}

/** Pipes `text` to `promtool check metrics`; throws naming the install command when promtool is missing. */
export function promtoolCheckMetrics(text: string): Promise<PromtoolCheck> {
  return new Promise((resolve, reject) => {
    const child = spawn(promtool_binary, ['check', 'metrics'], { stdio: ['pipe', 'pipe', 'pipe'] })
    let output = ''
    child.stdout.on('data', (chunk: Buffer) => { output += chunk.toString('utf8') })
    child.stderr.on('data', (chunk: Buffer) => { output += chunk.toString('utf8') })
    const timer = setTimeout(() => { child.kill('SIGKILL'); reject(new Error(`hang guard: promtool did not finish within ${hang_guard_ms} ms:\n${output}`)) }, hang_guard_ms)
    child.on('error', (err) => {
      clearTimeout(timer)
      reject(new Error(`${promtool_binary} is not installed: apt-get install -y prometheus (Debian's package provides /usr/bin/promtool; npm test does it: scripts/test-setup): ${err.message}`))
    })
    child.on('close', (code) => { clearTimeout(timer); resolve({ code, output }) })
    child.stdin.on('error', () => {}) // a promtool that exits early closes its stdin: its exit code says why
    child.stdin.end(text)
  })
}
