import { spawn, type ChildProcess } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import type { Test } from 'tap'
import { hang_guard_ms } from './poll.js'

export const cli_path = fileURLToPath(new URL('../../bin/tenantdb.js', import.meta.url))

export interface CliProcess {
  child: ChildProcess
  stdout(): string
  stderr(): string
  /** Resolves with the exit code (or the signal's name). */
  exited: Promise<number | string>
  /** Resolves once `pattern` appears in stdout or stderr; fails if the process exits first, or after the hang guard. */
  waitFor(pattern: RegExp, hang_guard_ms?: number): Promise<RegExpExecArray>
}

/** Runs the real `tenantdb` command; killed when the test ends if still running. */
export function spawnCli(t: Test, args: string[], env: NodeJS.ProcessEnv = {}): CliProcess {
  const child = spawn(process.execPath, [cli_path, ...args], {
    env: { ...process.env, SERVICE_TOKEN: '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let out = ''
  let err = ''
  const listeners = new Set<() => void>()
  child.stdout.on('data', (chunk: Buffer) => { out += chunk; listeners.forEach((l) => l()) })
  child.stderr.on('data', (chunk: Buffer) => { err += chunk; listeners.forEach((l) => l()) })
  const exited = new Promise<number | string>((resolve) => {
    child.on('exit', (code, signal) => { resolve(code ?? signal ?? -1); listeners.forEach((l) => l()) })
  })
  t.teardown(() => { if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL') })
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    exited,
    waitFor(pattern, guard_ms = hang_guard_ms) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const match = pattern.exec(out) ?? pattern.exec(err)
          if (match !== null) { done(); resolve(match) } else if (child.exitCode !== null) {
            done(); reject(new Error(`process exited (${child.exitCode}) before ${pattern}:\n${out}\n${err}`))
          }
        }
        const timer = setTimeout(() => { done(); reject(new Error(`hang guard: no ${pattern} after ${guard_ms} ms:\n${out}\n${err}`)) }, guard_ms)
        const done = () => { clearTimeout(timer); listeners.delete(check) }
        listeners.add(check)
        check()
      })
    },
  }
}
