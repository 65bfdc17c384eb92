#!/usr/bin/env node
// The `tenantdb` command. The TypeScript is compiled to dist/ by `npm install`.
import { existsSync } from 'node:fs'

const main = new URL('../dist/cli/main.js', import.meta.url)
if (!existsSync(main)) {
  process.stderr.write('tenantdb: not built yet; run `npm install` (or `npm run build`) first\n')
  process.exit(1)
}
await import(main.href)
