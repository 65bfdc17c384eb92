// Verifying a database directory without opening it as a Database (`tenantdb verify`,
// docs/operations.md "Verifying a directory"): read-only, with no schema, so it changes
// no byte and works on a full disk and on a read-only mount.
import { Engine, type WorkProgress } from '../engine/index.js'

export type VerifyReport = Awaited<ReturnType<Engine['verify']>>

export interface WatchOptions {
  /**
   * Called once the directory is open, before the long work begins, with a function
   * that reads how far it has come (cheap: poll it for a progress line).
   */
  watch?: (progress: () => WorkProgress | null) => void
}

/**
 * Recounts the space map of `dir` from its trees and writes it (`tenantdb repair`,
 * docs/operations.md "Repairing the space map"), then verifies the directory. The
 * books are derivable from the pages, so this loses nothing: it replaces books that
 * a bug or damage left wrong. Returns what the rebuild found and the verify report.
 */
export async function repairDirectory(dir: string, options: WatchOptions = {}): Promise<VerifyReport> {
  const engine = await Engine.open(dir, { rebuildSpace: true })
  try {
    options.watch?.(() => engine.progress())
    await engine.checkpoint()
    return await engine.verify()
  } finally {
    await engine.close()
  }
}

/** Every page and WAL frame checksum plus the tree invariants of `dir`. */
export async function verifyDirectory(dir: string, options: WatchOptions = {}): Promise<VerifyReport> {
  const engine = await Engine.open(dir, { readOnly: true })
  try {
    options.watch?.(() => engine.progress())
    return await engine.verify()
  } finally {
    await engine.close()
  }
}
