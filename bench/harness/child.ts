// Child processes: servers measured from outside (so the load generator does not
// share their event loop) and writers killed with SIGKILL. A child is found by its
// compiled script name under dist/bench-build/bench/children/, or is any command. A
// child started with `input` reads lines the parent sends on its stdin.
import { spawn, type ChildProcess } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { createInterface } from 'node:readline'

export interface Child {
  process: ChildProcess
  /** The last stdout lines (a server may log many). */
  lines: string[]
  /** Resolves with the first line of stdout or stderr (where `serve` prints its banner) `match` accepts. */
  waitFor(match: (line: string) => boolean, timeoutMs?: number): Promise<string>
  /** Resolves when the process has exited. */
  exited: Promise<number | null>
  kill(signal?: NodeJS.Signals): Promise<number | null>
  /** Calls `listener` with every later line of stdout or stderr. */
  onLine(listener: (line: string) => void): void
  /** Writes `line` and a newline to the child's stdin (only when started with `input`). */
  send(line: string): void
}

export interface ChildOptions {
  /** A pipe to the child's stdin, for send(); otherwise its stdin is closed. */
  input?: boolean
}

/** Path of a compiled child script (children/NAME.js beside this file's folder). */
export function childScript(name: string): string {
  return fileURLToPath(new URL(`../children/${name}.js`, import.meta.url))
}

export function startChild(command: string, args: readonly string[], env: NodeJS.ProcessEnv = {}, options: ChildOptions = {}): Child {
  const proc = spawn(command, args, { stdio: [options.input === true ? 'pipe' : 'ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } })
  // A child that exits while the parent still writes must not kill the parent (EPIPE).
  proc.stdin?.on('error', () => undefined)
  const lines: string[] = []
  const waiters: Array<{ match: (line: string) => boolean; resolve: (line: string) => void }> = []
  const listeners: Array<(line: string) => void> = []
  let stderr = ''
  proc.stderr?.on('data', (chunk: Buffer) => { stderr = (stderr + chunk.toString()).slice(-4000) })
  const heard = (line: string) => {
    for (const listener of listeners) listener(line)
    for (const waiter of [...waiters]) {
      if (waiter.match(line)) {
        waiters.splice(waiters.indexOf(waiter), 1)
        waiter.resolve(line)
      }
    }
  }
  createInterface({ input: proc.stdout! }).on('line', (line) => {
    lines.push(line)
    if (lines.length > 1000) lines.splice(0, lines.length - 1000)
    heard(line)
  })
  const errLines: string[] = []
  createInterface({ input: proc.stderr! }).on('line', (line) => {
    errLines.push(line)
    if (errLines.length > 100) errLines.splice(0, errLines.length - 100)
    heard(line)
  })
  const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)))
  return {
    process: proc,
    lines,
    exited,
    waitFor(match, timeoutMs = 120_000) {
      const seen = lines.find(match) ?? errLines.find(match)
      if (seen !== undefined) return Promise.resolve(seen)
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`child ${command} ${args.join(' ')}: no expected line in ${timeoutMs} ms; stderr: ${stderr}`)), timeoutMs)
        void exited.then((code) => {
          clearTimeout(timer)
          reject(new Error(`child ${args.join(' ')} exited (${code}) before the expected line; stderr: ${stderr}`))
        })
        waiters.push({ match, resolve: (line) => { clearTimeout(timer); resolve(line) } })
      })
    },
    async kill(signal = 'SIGTERM') {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill(signal)
      return exited
    },
    onLine(listener) {
      listeners.push(listener)
    },
    send(line) {
      if (proc.stdin === null) throw new Error(`child ${args.join(' ')} was started without input`)
      proc.stdin.write(`${line}\n`)
    },
  }
}

/** A compiled bench child script run by this Node. */
export function startNodeChild(name: string, args: readonly string[] = [], env: NodeJS.ProcessEnv = {}, options: ChildOptions = {}): Child {
  return startChild(process.execPath, [childScript(name), ...args], env, options)
}

/** The first stdout line that parses as a JSON object with `field`. */
export async function waitForJson<T>(child: Child, field: string, timeoutMs?: number): Promise<T> {
  const line = await child.waitFor((l) => l.startsWith('{') && l.includes(`"${field}"`), timeoutMs)
  return JSON.parse(line) as T
}
