// `tenantdb compact <dir> [tenant]` (docs/operations.md, "Compacting a tenant"): rewrites one tenant's live rows into
// fresh pages and prints the ops message (collections, rows, pages, elapsed ms), with a
// progress line on a terminal.
// A locked directory is exit 2 (main.ts); an unknown tenant is exit 1.
import { default_tenant } from '../tenants/names.js'
import { positionals, requireDatabaseDir } from './database-dir.js'
import { watchProgress } from './progress.js'

export async function compact(argv: string[]): Promise<void> {
  const [dir, tenant = default_tenant] = positionals(argv, 'compact <dir> [tenant]', 1, 2)
  requireDatabaseDir(dir)
  // No schema: compaction works on the tenant's trees, and tenant operations commit
  // without migrating, so an empty schema cannot drop anything.
  const { Database } = await import('../database/index.js')
  const db = await Database.open(dir)
  const line = watchProgress(`compacting ${tenant}`)
  let result
  try {
    line.watch(() => db.progress())
    result = await db.ops({ op: 'compact', name: tenant })
  } finally {
    line.finish()
    await db.close()
  }
  process.stdout.write(`${result.message}\n`)
}
