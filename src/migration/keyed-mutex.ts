/**
 * One async lock per key: callers for the same key run one after another, in order.
 * A tenant's lazy migration is made once, however many queries touch it at once.
 */
export class KeyedMutex {
  readonly #tails = new Map<string, Promise<void>>()

  async run<T>(key: string, work: () => Promise<T>): Promise<T> {
    const previous = this.#tails.get(key) ?? Promise.resolve()
    let release!: () => void
    const mine = new Promise<void>((resolve) => { release = resolve })
    const tail = previous.then(() => mine)
    this.#tails.set(key, tail)
    await previous
    try {
      return await work()
    } finally {
      release()
      if (this.#tails.get(key) === tail) this.#tails.delete(key)
    }
  }
}
