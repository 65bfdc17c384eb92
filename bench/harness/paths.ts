// The repository root, wherever the harness was compiled to.
import { package_root } from '../../src/package-root.js'
import { join } from 'node:path'

export const repo_root = package_root

/** The `tenantdb` command of this checkout. */
export const tenantdb_bin = join(package_root, 'bin', 'tenantdb.js')
