// Running the real `tenantdb` command on a pseudo-terminal: util-linux script(1) runs
// it with stdin, stdout and stderr on a pty (what a person at a terminal has), feeding
// it `input` as typed, and hands back everything the terminal showed.
import { spawn, spawnSync } from 'node:child_process'
import type { Test } from 'tap'
import { cli_path } from './spawn-cli.js'
import { hang_guard_ms, pollUntil } from './poll.js'

export interface TerminalRun {
  status: number | null
  /** What the terminal showed: the command's stdout and stderr, and the input echoed. */
  output: string
}

export function onTerminal(args: string[], options: { input?: string; env?: NodeJS.ProcessEnv; cwd?: string } = {}): TerminalRun {
  const command = [process.execPath, cli_path, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ')
  const run = spawnSync('script', ['-qec', command, '/dev/null'], {
    input: options.input ?? '',
    encoding: 'utf8',
    env: { ...process.env, SERVICE_TOKEN: '', ...options.env },
    timeout: hang_guard_ms,
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
  })
  if (run.error !== undefined) throw new Error(`script(1) failed (${run.error.message}); is util-linux installed?`)
  return { status: run.status, output: run.stdout }
}

/** The lines a terminal shows once each \r redraw overwrote the one before (ANSI codes removed). */
export function screenLines(output: string): string[] {
  return plain(output).split(/\r?\n/).map((line) => line.split('\r').filter((part) => part !== '').pop() ?? '')
}

export interface TerminalSession {
  /** Types `text` (a line ends with \r, as Enter sends) and resolves once the command shows its next prompt (`…> `). */
  type(text: string): Promise<void>
  /** Types `text` without waiting. */
  send(text: string): void
  /** Resolves once `pattern` shows in the output (ANSI codes removed). */
  waitFor(pattern: RegExp): Promise<void>
  /** Everything the terminal showed so far. */
  output(): string
  exited: Promise<number | null>
}

/**
 * An interactive command on a pseudo-terminal, typed into as a person would: each input
 * goes in once the command is ready for it, so nothing reaches the terminal before the
 * command put it in raw mode (where Ctrl-C is a key, not a signal).
 */
export function terminalSession(t: Test, args: string[], env: NodeJS.ProcessEnv = {}): TerminalSession {
  const command = [process.execPath, cli_path, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ')
  // A wide terminal: a line longer than it would be redrawn, prompt and all, as it is typed.
  const child = spawn('script', ['-qec', `stty cols 500 rows 50; exec ${command}`, '/dev/null'], { env: { ...process.env, SERVICE_TOKEN: '', ...env }, stdio: ['pipe', 'pipe', 'pipe'] })
  t.teardown(() => { if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL') })
  let out = ''
  child.stdout.on('data', (chunk: Buffer) => { out += chunk })
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
  const prompts = () => (out.match(/> \x1b\[\d+G/g) ?? []).length
  // The command is ready for more once the last thing it wrote is a fresh prompt on its own line.
  const ready = () => /\n\x1b\[1G\x1b\[0J[^\n]*> \x1b\[\d+G$/.test(out)
  const waitFor = (pattern: RegExp) => pollUntil(() => pattern.test(plain(out)), () => `${pattern} in:\n${plain(out)}`)
  return {
    async type(text) {
      // At a prompt first: a prompt's bytes can arrive in two reads, and counted half way
      // the next prompt would be this one.
      await pollUntil(() => ready() || child.exitCode !== null, () => `a prompt before ${JSON.stringify(text)}:\n${plain(out)}`)
      const before = prompts()
      child.stdin.write(text)
      await pollUntil(() => (prompts() > before && ready()) || child.exitCode !== null, () => `a prompt after ${JSON.stringify(text)}:\n${plain(out)}`)
    },
    send: (text) => { child.stdin.write(text) },
    waitFor,
    output: () => out,
    exited,
  }
}

// eslint-disable-next-line no-control-regex
const plain = (text: string) => text.replace(/\x1b\[[0-9;]*[A-Za-z]/g, '')
