import { existsSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

/** The directory holding tenantdb's package.json, wherever this file was compiled to. */
export const package_root: string = (() => {
  let dir = dirname(fileURLToPath(import.meta.url))
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir)
    if (parent === dir) throw new Error('tenantdb: cannot find its package.json')
    dir = parent
  }
  return dir
})()
