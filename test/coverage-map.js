// tap's coverage map: every test covers the TypeScript sources under src/. Generated
// files (the napi loader in native/) and the bin shim are outside it on purpose.
import { readdirSync } from 'node:fs'
import { join } from 'node:path'

const sources = readdirSync('src', { recursive: true })
  .filter((name) => name.endsWith('.ts') && !name.includes('generated'))
  .map((name) => join('src', name))

export default function coverageMap() {
  return sources
}
