// The local Python virtual environment of the OpenAPI fuzzer: .venv/ at the repository
// root with the pinned packages of test/fuzz-requirements.txt. scripts/test-setup prepares it; on a
// developer machine without it, the test creates it (python3 -m venv, pip install).
// Anything that fails here fails the test: it never skips.
import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { package_root } from '../../src/package-root.js'

export const venv_dir = join(package_root, '.venv')
export const requirements_file = join(package_root, 'test', 'fuzz-requirements.txt')

export interface Run {
  code: number | null
  output: string
}

/** Runs a command to completion without blocking the event loop (a server may run in this process). */
export function run(command: string, args: string[], options: { cwd?: string; timeoutMs?: number } = {}): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: options.cwd ?? package_root, env: { ...process.env, NO_COLOR: '1', PIP_DISABLE_PIP_VERSION_CHECK: '1' }, stdio: ['ignore', 'pipe', 'pipe'] })
    let output = ''
    child.stdout.on('data', (chunk: Buffer) => { output += chunk.toString('utf8') })
    child.stderr.on('data', (chunk: Buffer) => { output += chunk.toString('utf8') })
    const timer = options.timeoutMs === undefined ? undefined : setTimeout(() => {
      output += `\n[killed after ${options.timeoutMs} ms]`
      child.kill('SIGKILL')
    }, options.timeoutMs)
    child.on('error', (err) => { clearTimeout(timer); resolve({ code: null, output: `${output}\n${err.message}` }) })
    child.on('close', (code) => { clearTimeout(timer); resolve({ code, output }) })
  })
}

/** The path of a program in the virtual environment. */
export function venvBin(name: string): string {
  return join(venv_dir, 'bin', name)
}

/**
 * Makes sure .venv exists and holds the pinned packages (pip does nothing when they
 * are already installed). Throws with the tool's output when that is impossible.
 */
export async function ensureFuzzVenv(): Promise<void> {
  if (!existsSync(venvBin('python'))) {
    const created = await run('python3', ['-m', 'venv', venv_dir], { timeoutMs: 120_000 })
    if (created.code !== 0) throw new Error(`cannot create ${venv_dir} with python3 -m venv (install python3 and python3-venv):\n${created.output}`)
  }
  const installed = await run(venvBin('python'), ['-m', 'pip', 'install', '-q', '-r', requirements_file], { timeoutMs: 600_000 })
  if (installed.code !== 0) throw new Error(`cannot install ${requirements_file} into ${venv_dir}:\n${installed.output}`)
}
