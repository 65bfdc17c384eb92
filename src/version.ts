import { readFileSync } from 'node:fs'

// Read once from package.json so the version has one source of truth.
const manifest = JSON.parse(
  readFileSync(new URL('../package.json', import.meta.url), 'utf8'),
) as { version: string }

export const version: string = manifest.version
