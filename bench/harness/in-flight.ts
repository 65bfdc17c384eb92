// `count` operations with at most `inFlight` awaiting at once (as concurrent clients).

export async function inFlight(count: number, width: number, op: (i: number) => Promise<unknown>): Promise<void> {
  let next = 0
  const worker = async (): Promise<void> => {
    while (next < count) {
      const i = next
      next += 1
      await op(i)
    }
  }
  await Promise.all(Array.from({ length: Math.min(width, count) }, worker))
}
