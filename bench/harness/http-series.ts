// One HTTP contender of a workload (a server child under autocannon load): per
// repetition its request rate, its latency p99 and the server's CPU per request,
// recorded side by side (KEY, KEY_p99, KEY_cpu), and the cores the server used while
// loaded (KEY_cores: its CPU seconds over the run's seconds).
import { httpLoad, type HttpLoad, type HttpLoadResult } from '../anchors/autocannon.js'
import type { Child } from './child.js'
import type { Recorder } from './recorder.js'
import { cpuDuring, microsPerRequest } from './server-cpu.js'

export class HttpSeries {
  readonly #rates: number[] = []
  readonly #p99: number[] = []
  readonly #cpu: number[] = []
  readonly #cores: number[] = []
  readonly #pid: number

  constructor(readonly key: string, readonly label: string, server: Child, readonly unit = 'req/s') {
    if (server.process.pid === undefined) throw new Error(`${label}: the server process has no pid (it did not start)`)
    this.#pid = server.process.pid
  }

  /**
   * One repetition: the load, refused if any request failed or was answered with
   * anything but 2xx. Round 0 is the warm-up and is not kept.
   */
  async run(round: number, load: HttpLoad): Promise<HttpLoadResult> {
    const { result, cpu_s } = await cpuDuring(this.#pid, () => httpLoad(load))
    if (result.errors > 0 || result.non2xx > 0) throw new Error(`${this.label}: ${result.errors} errors, ${result.non2xx} non-2xx answers under load`)
    if (round > 0) {
      this.#rates.push(result.requests_per_s)
      this.#p99.push(result.latency_p99_ms)
      this.#cpu.push(microsPerRequest(cpu_s, result.answered))
      if (result.requests_per_s > 0) this.#cores.push(cpu_s / (result.answered / result.requests_per_s))
    }
    return result
  }

  record(rec: Recorder): void {
    rec.figure(this.key, this.label, this.unit, this.#rates)
    rec.figure(`${this.key}_p99`, `${this.label}: latency p99`, 'ms', this.#p99, 'lower')
    rec.figure(`${this.key}_cpu`, `${this.label}: server CPU`, 'us/req', this.#cpu, 'lower')
    rec.figure(`${this.key}_cores`, `${this.label}: cores the server used`, 'cores', this.#cores)
  }
}
