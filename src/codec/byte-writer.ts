/** A buffer that grows as bytes are appended; `at` is the end of what was written. */
export class ByteWriter {
  buf: Buffer
  at = 0

  constructor(initial_bytes: number) {
    this.buf = Buffer.allocUnsafe(initial_bytes)
  }

  /** Makes room for `n` more bytes, doubling so appends stay amortised O(1). */
  ensure(n: number): void {
    if (this.at + n <= this.buf.length) return
    const grown = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.at + n))
    this.buf.copy(grown, 0, 0, this.at)
    this.buf = grown
  }
}
