// A real `nats-server` with JetStream for the replication tests (docs/replication.md),
// on 127.0.0.1 and a port it picks itself the first time (and keeps across restarts),
// its store in a temp directory; killed when the test ends. No mock: the tests fail,
// never skip, when the binary is missing (`scripts/test-setup` installs it).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Test } from 'tap'
import { hang_guard_ms } from './poll.js'
import { tempDir } from './temp-dir.js'

export const nats_server_binary = process.env.TENANTDB_NATS_SERVER ?? 'nats-server'

export interface NatsServer {
  /** nats://127.0.0.1:PORT */
  url: string
  port: number
  /** SIGKILL (default) or SIGTERM; resolves once it exited. */
  stop(signal?: NodeJS.Signals): Promise<void>
  /** Starts it again on the same port and store. */
  start(): Promise<void>
  running(): boolean
}

/** The version `nats-server --version` prints, e.g. v2.9.10; throws naming the install step when missing. */
export function natsServerVersion(): string {
  const result = spawnSync(nats_server_binary, ['--version'], { encoding: 'utf8' })
  if (result.error !== undefined || result.status !== 0) {
    throw new Error(`${nats_server_binary} is not installed (apt-get install nats-server; npm test does it: scripts/test-setup): ${result.error?.message ?? result.stderr}`)
  }
  return result.stdout.trim().replace(/^nats-server: /, '')
}

export async function startNatsServer(t: Test, options: { args?: string[] } = {}): Promise<NatsServer> {
  natsServerVersion()
  const home = tempDir(t, 'tenantdb-nats-')
  const store = join(home, 'store')
  // JetStream reserves each stream's byte limit (8 GiB here) against its store size,
  // which defaults to 75 % of the free disk: a test creating several streams would
  // be refused on a machine with less free disk. The store is sized explicitly.
  const config = join(home, 'nats.conf')
  writeFileSync(config, `jetstream { store_dir: ${JSON.stringify(store)}, max_file_store: 1TB }\n`)
  let port = -1
  let child: ChildProcess | null = null
  const launch = async () => {
    const spawned = spawn(nats_server_binary, ['-c', config, '-a', '127.0.0.1', '-p', String(port), ...(options.args ?? [])], { stdio: ['ignore', 'pipe', 'pipe'] })
    child = spawned
    let log = ''
    const listening = new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`hang guard: nats-server did not listen within ${hang_guard_ms} ms:\n${log}`)), hang_guard_ms)
      const seen = (chunk: Buffer) => {
        log += chunk.toString()
        const match = /Listening for client connections on [^\s]+:(\d+)/.exec(log)
        if (match !== null && /Server is ready/.test(log)) {
          clearTimeout(timer)
          resolve(Number(match[1]))
        }
      }
      spawned.stdout.on('data', seen)
      spawned.stderr.on('data', seen)
      spawned.on('exit', (code) => { clearTimeout(timer); reject(new Error(`nats-server exited (${code}) before listening:\n${log}`)) })
    })
    port = await listening
  }
  await launch()
  const stop = async (signal: NodeJS.Signals = 'SIGKILL') => {
    const running = child
    child = null
    if (running === null || running.exitCode !== null || running.signalCode !== null) return
    const exited = new Promise((resolve) => running.once('exit', resolve))
    running.kill(signal)
    await exited
  }
  t.teardown(() => stop())
  return {
    get url() { return `nats://127.0.0.1:${port}` },
    get port() { return port },
    stop,
    start: launch,
    running: () => child !== null,
  }
}
