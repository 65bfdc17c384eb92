import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { package_root } from './package-root.js'

// Read once from package.json so the version has one source of truth.
const manifest = JSON.parse(readFileSync(join(package_root, 'package.json'), 'utf8')) as { version: string }

export const version: string = manifest.version
