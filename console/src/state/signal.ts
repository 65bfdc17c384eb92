// A value that tells its subscribers when it changes: the write-mode switch and the
// selected tenant are shared by the header and several pages.
export class Signal<T> {
  #value: T
  readonly #listeners = new Set<(value: T) => void>()

  constructor(value: T) {
    this.#value = value
  }

  get value(): T {
    return this.#value
  }

  set(value: T): void {
    if (Object.is(value, this.#value)) return
    this.#value = value
    for (const listener of [...this.#listeners]) listener(value)
  }

  /** Calls `listener` on every change; returns the function that stops it. */
  subscribe(listener: (value: T) => void): () => void {
    this.#listeners.add(listener)
    return () => this.#listeners.delete(listener)
  }
}
