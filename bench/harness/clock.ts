// A wall clock in milliseconds with sub-millisecond resolution that two processes on
// one machine share (timeOrigin is taken from the system clock), for latencies
// measured across a process boundary.
export function sharedClockMs(): number {
  return performance.timeOrigin + performance.now()
}
