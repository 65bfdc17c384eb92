// Builds the operator console into dist/console/ (or --out DIR): one JavaScript
// bundle and one style sheet by esbuild, each named after its content hash, the
// favicon likewise, and index.html naming them. Everything the page loads comes from
// here: no CDN, no web fonts. `npm run build:console` type-checks first
// (console/tsconfig.json); the browser test calls this script directly.
import { createHash } from 'node:crypto'
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { basename, dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { gzipSync } from 'node:zlib'
import { build } from 'esbuild'

const here = dirname(fileURLToPath(import.meta.url))
const root = resolve(here, '..')
const outFlag = process.argv.indexOf('--out')
const out = outFlag === -1 ? join(root, 'dist', 'console') : resolve(process.argv[outFlag + 1] ?? '')

// Old hashed files would pile up otherwise.
rmSync(out, { recursive: true, force: true })
mkdirSync(out, { recursive: true })

const result = await build({
  absWorkingDir: root,
  entryPoints: { app: 'console/src/main.ts', console: 'console/styles/console.css' },
  outdir: out,
  entryNames: '[name]-[hash]',
  bundle: true,
  format: 'esm',
  target: ['es2022', 'chrome111', 'firefox115', 'safari16'],
  minify: true,
  sourcemap: 'linked',
  metafile: true,
  logLevel: 'warning',
})

/** The output file (relative to `out`) built from `entry`. */
function outputOf(entry) {
  for (const [file, info] of Object.entries(result.metafile.outputs)) {
    if (info.entryPoint === entry) return relative(out, resolve(root, file))
  }
  throw new Error(`esbuild produced nothing for ${entry}`)
}

const favicon = readFileSync(join(here, 'favicon.svg'))
const faviconName = `favicon-${createHash('sha256').update(favicon).digest('hex').slice(0, 8).toUpperCase()}.svg`
copyFileSync(join(here, 'favicon.svg'), join(out, faviconName))

const names = {
  'app.js': outputOf('console/src/main.ts'),
  'console.css': outputOf('console/styles/console.css'),
  'favicon.svg': faviconName,
}
const html = readFileSync(join(here, 'index.html'), 'utf8').replace(/\{\{([\w.]+)\}\}/g, (match, name) => {
  if (!(name in names)) throw new Error(`index.html names an unknown asset ${match}`)
  return names[name]
})
writeFileSync(join(out, 'index.html'), html)

// Every file the page loads, raw and gzipped (what a browser receives from a server
// that compresses): the console is meant to stay small, and this is where to see it.
const kib = (n) => `${(n / 1024).toFixed(1)} KiB`
const sizes = Object.values(names).map((name) => {
  const bytes = readFileSync(join(out, name))
  return `${basename(name)} ${kib(bytes.length)} (${kib(gzipSync(bytes).length)} gzipped)`
})
process.stdout.write(`console: built ${relative(root, out) || out}: ${sizes.join(', ')}\n`)
