// Verifying a database directory without opening it as a Database (`tenantdb verify`,
// docs/operations.md "Verifying a directory"): read-only, with no schema, so it changes
// no byte and works on a full disk and on a read-only mount.
import { Engine } from '../engine/index.js'

export type VerifyReport = Awaited<ReturnType<Engine['verify']>>

/** Every page and WAL frame checksum plus the tree invariants of `dir`. */
export async function verifyDirectory(dir: string): Promise<VerifyReport> {
  const engine = await Engine.open(dir, { readOnly: true })
  try {
    return await engine.verify()
  } finally {
    await engine.close()
  }
}
