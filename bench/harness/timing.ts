// Wall-clock timing on the monotonic clock.

export function nowMs(): number {
  return Number(process.hrtime.bigint()) / 1e6
}

/** Milliseconds `run` takes (awaited). */
export async function timeMs(run: () => unknown): Promise<number> {
  const started = process.hrtime.bigint()
  await run()
  return Number(process.hrtime.bigint() - started) / 1e6
}

/** Operations per second: `count` operations done by `run`. */
export async function ratePerS(count: number, run: () => unknown): Promise<number> {
  return count / ((await timeMs(run)) / 1000)
}
