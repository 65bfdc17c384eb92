// A small tmpfs for tests that need a full (or read-only) file system: mounted on a
// fresh directory (the tests run as root, docs/architecture.md "Testing") and always
// unmounted when the test ends, also when it fails.
import { execFileSync } from 'node:child_process'
import { closeSync, mkdtempSync, openSync, rmSync, rmdirSync, writeSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Test } from 'tap'

/** Mounts a tmpfs of `bytes` and returns its directory; unmounted at teardown. */
export function mountTmpfs(t: Test, bytes: number): string {
  const dir = mkdtempSync(join(tmpdir(), 'tenantdb-tmpfs-'))
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${bytes},mode=0700`, 'tmpfs', dir])
  t.teardown(() => {
    // Lazy, so a file still open in a child that is being killed cannot keep it mounted.
    execFileSync('umount', ['-l', dir])
    rmdirSync(dir)
  })
  return dir
}

/** Remounts a tmpfs from mountTmpfs read-only (true) or read-write (false). */
export function remountReadOnly(dir: string, readOnly: boolean): void {
  execFileSync('mount', ['-o', `remount,${readOnly ? 'ro' : 'rw'}`, dir])
}

/** Fills the file system holding `dir` with one file until a write fails; returns its path. */
export function fillDisk(dir: string, name = 'filler'): string {
  const path = join(dir, name)
  const fd = openSync(path, 'w')
  const block = Buffer.alloc(64 * 1024, 0x5a)
  try {
    for (;;) writeSync(fd, block)
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err
  }
  // The last blocks' worth of bytes a smaller write could still take.
  try {
    for (;;) writeSync(fd, block, 0, 512)
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err
  } finally {
    closeSync(fd)
  }
  return path
}

/** Frees what fillDisk took. */
export function freeDisk(path: string): void {
  rmSync(path, { force: true })
}
