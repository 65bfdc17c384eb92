import { execFileSync } from 'node:child_process'
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Test } from 'tap'

/**
 * A fresh tmpfs of `size_mib` MiB (fractions allowed) mounted on a new directory (the tests run as root),
 * unmounted when the test ends, also when it fails; a lazy unmount if a process the
 * test started still holds a file there.
 */
export function mountTmpfs(t: Test, size_mib = 16): string {
  const dir = mkdtempSync(join(tmpdir(), 'tenantdb-tmpfs-'))
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${Math.round(size_mib * 1024)}k,mode=0755`, 'tmpfs', dir])
  t.teardown(() => {
    try {
      execFileSync('umount', [dir], { stdio: 'ignore' })
    } catch {
      execFileSync('umount', ['-l', dir], { stdio: 'ignore' })
    }
    rmSync(dir, { recursive: true, force: true })
  })
  return dir
}

/** Remounts the tmpfs at `dir` read-only (`ro`) or writable again (`rw`). */
export function remount(dir: string, mode: 'ro' | 'rw'): void {
  execFileSync('mount', ['-o', `remount,${mode}`, dir])
}

/**
 * Fills the file system holding `dir` with `file` until a write fails with ENOSPC, down
 * to single pages, so nothing more fits. Returns the bytes written.
 */
export function fillDisk(file: string): number {
  const fd = openSync(file, 'w')
  let written = 0
  try {
    for (const size of [1 << 20, 64 << 10, 4096, 512, 1]) {
      const chunk = Buffer.alloc(size, 0x66)
      for (;;) {
        try {
          written += writeSync(fd, chunk)
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err
          break
        }
      }
    }
  } finally {
    closeSync(fd)
  }
  return written
}
