// CPU time a server child spends per request: utime + stime of /proc/PID/stat (every
// thread of the process, in clock ticks) read before and after a repetition, divided
// by the requests it served. Measured from outside, so it is the same for a Node
// server and a Go one, and the load generator's CPU is never counted.
import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'

/** Clock ticks per second of /proc's times (`getconf CLK_TCK`; 100 on Linux). */
export const clock_ticks_per_s: number = (() => {
  const answer = spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' })
  const ticks = Number(answer.stdout?.trim())
  return answer.status === 0 && Number.isInteger(ticks) && ticks > 0 ? ticks : 100
})()

/** User + system CPU seconds process `pid` has used so far (all its threads). */
export function processCpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  // Field 2 (the command) is in parentheses and may hold spaces: count from after it.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  // utime and stime are fields 14 and 15; the slice starts at field 3.
  const ticks = Number(fields[11]) + Number(fields[12])
  if (!Number.isFinite(ticks)) throw new Error(`cannot read the CPU times of process ${pid} from '${stat}'`)
  return ticks / clock_ticks_per_s
}

/** Runs `work` and returns its result with the CPU seconds process `pid` used meanwhile. */
export async function cpuDuring<T>(pid: number, work: () => Promise<T>): Promise<{ result: T; cpu_s: number }> {
  const before = processCpuSeconds(pid)
  const result = await work()
  return { result, cpu_s: processCpuSeconds(pid) - before }
}

/** Microseconds of CPU per request (`us/req`, the figure reported beside each rate). */
export function microsPerRequest(cpu_s: number, requests: number): number {
  if (requests <= 0) throw new Error(`CPU per request of ${requests} requests`)
  return (cpu_s * 1e6) / requests
}
