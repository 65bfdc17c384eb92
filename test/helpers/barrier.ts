/**
 * A meeting point for `parties` concurrent tasks: `arrive()` resolves once all of them
 * have arrived. Conflict tests use it so that transactions overlap by construction
 * (every snapshot taken before any commit), not by the luck of the scheduler's turns.
 */
export function barrier(parties: number): { arrive(): Promise<void> } {
  let arrived = 0
  let open!: () => void
  const opened = new Promise<void>((resolve) => { open = resolve })
  return {
    arrive() {
      arrived += 1
      if (arrived === parties) open()
      return opened
    },
  }
}
