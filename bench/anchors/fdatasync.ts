// The physical floor of a durable commit without group commit: append one small
// record (the size of a one-row commit frame) to a file and fdatasync it, one by one,
// in the same directory the engines use.
import { closeSync, fdatasyncSync, openSync, writeSync } from 'node:fs'
import { join } from 'node:path'
import { ratePerS } from '../harness/timing.js'

const record_bytes = 24 + 150 + 32

/** Appends + fdatasyncs per second over `count` appends to a fresh file in `dir`. */
export function fdatasyncRate(dir: string, count: number): Promise<number> {
  const fd = openSync(join(dir, `anchor-${process.hrtime.bigint()}.log`), 'a')
  const record = Buffer.alloc(record_bytes, 1)
  return ratePerS(count, () => {
    for (let i = 0; i < count; i += 1) {
      writeSync(fd, record)
      fdatasyncSync(fd)
    }
  }).finally(() => closeSync(fd))
}
