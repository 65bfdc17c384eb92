// The physical floors of a durable commit without group commit, one small record (the
// size of a one-row commit frame) at a time, in the same directory the engines use:
// - appended to a file and fdatasync'd: the file grows at every sync, so the file
//   system journals the new size each time (tenantdb's WAL segments grow so);
// - written with pwrite over a file already written to its full length (preallocated
//   with real bytes, not a hole) and fdatasync'd: no size or block allocation to
//   journal, only the data (SQLite's WAL, which reuses its written pages, is here).
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

/**
 * pwrites + fdatasyncs per second over `count` records written in place, one after
 * another, into a file of `dir` written out (and synced) to its full length first.
 */
export function preallocatedFdatasyncRate(dir: string, count: number): Promise<number> {
  const fd = openSync(join(dir, `anchor-prealloc-${process.hrtime.bigint()}.log`), 'w+')
  const record = Buffer.alloc(record_bytes, 1)
  const chunk = Buffer.alloc(1 << 20, 0)
  const length = count * record_bytes
  for (let at = 0; at < length; at += chunk.length) writeSync(fd, chunk, 0, Math.min(chunk.length, length - at), at)
  fdatasyncSync(fd)
  return ratePerS(count, () => {
    for (let i = 0; i < count; i += 1) {
      writeSync(fd, record, 0, record_bytes, i * record_bytes)
      fdatasyncSync(fd)
    }
  }).finally(() => closeSync(fd))
}
