// The CPU time a child process has used so far, read from /proc/PID/stat (utime +
// stime, in clock ticks), so a server measured from outside reports its CPU per
// request beside its rate: on a shared, noisy machine the rate moves with the load of
// others, the CPU time a request costs much less. Linux only: null elsewhere.
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'

let ticks_per_s: number | null | undefined

function ticksPerSecond(): number | null {
  if (ticks_per_s !== undefined) return ticks_per_s
  try {
    ticks_per_s = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || null
  } catch {
    ticks_per_s = null
  }
  return ticks_per_s
}

/** Microseconds of CPU (user + system) process `pid` has used, or null where /proc cannot tell. */
export function processCpuMicros(pid: number | undefined): number | null {
  if (pid === undefined) return null
  const ticks = ticksPerSecond()
  if (ticks === null) return null
  let stat: string
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  } catch {
    return null
  }
  // The command name (field 2) is in parentheses and may hold spaces: fields are counted after it.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  const utime = Number(fields[11])
  const stime = Number(fields[12])
  if (!Number.isFinite(utime) || !Number.isFinite(stime)) return null
  return ((utime + stime) / ticks) * 1e6
}
