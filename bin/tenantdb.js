#!/usr/bin/env node
// The `tenantdb` command. The TypeScript is compiled to dist/ by `npm install`.
import { existsSync } from 'node:fs'

const main = new URL('../dist/cli/main.js', import.meta.url)
if (!existsSync(main)) {
  process.stderr.write('tenantdb: not built yet; run `npm install` (or `npm run build`) first\n')
  process.exit(1)
}
try {
  await import(main.href)
} catch (err) {
  // A package installed without its platform package: one clear line, not a stack.
  if (err?.code !== 'native_module_missing') throw err
  process.stderr.write(`${err.message}\n`)
  process.exit(1)
}
