import { open } from 'node:fs/promises'

/**
 * fsyncs a directory, so a rename or a new entry in it survives a power cut (as the
 * storage core does after renaming files; docs/architecture.md, "Commit, group commit
 * and durability").
 */
export async function syncDir(path: string): Promise<void> {
  const handle = await open(path, 'r')
  try {
    await handle.sync()
  } finally {
    await handle.close()
  }
}
