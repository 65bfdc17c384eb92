// The TypeScript import graph (docs/architecture.md): no cycle (madge --circular over
// src/), and every import statement of src/**/*.ts goes down the layer diagram at the
// top of docs/architecture.md, read from the document itself, so the diagram and the
// imports cannot drift apart. The query layer's parts (src/query/api/, exec/, ...) are
// layers of their own there. Breaks when a lower layer imports an upper one, when a
// file of src/ belongs to no layer of the diagram, when the change feed, the tenants or
// the schema import the query layer, when a part of the query layer is reached past
// its index.ts, when anything but the embedding API, the HTTP layer and the
// transaction layer imports the engine facade, or when a route or a CLI command
// reaches a database's private parts.
import { readdirSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join, relative, resolve } from 'node:path'
import t from 'tap'
import { package_root } from '../src/package-root.js'

const src = join(package_root, 'src')

interface Madge { circular(): string[][] }
const madge = createRequire(import.meta.url)('madge') as (path: string, config: Record<string, unknown>) => Promise<Madge>

/** Every TypeScript file under src/, relative to it, with `/` separators. */
function sources(): string[] {
  return (readdirSync(src, { recursive: true }) as string[])
    .filter((name) => name.endsWith('.ts'))
    .map((name) => name.split('\\').join('/'))
    .sort()
}

/**
 * The relative module specifiers a file imports or re-exports: static imports and
 * exports (type-only ones included: a type is a dependency too) and dynamic imports.
 */
function importsOf(text: string): string[] {
  const found: string[] = []
  for (const match of text.matchAll(/(?:^|\n)\s*(?:import|export)\b[^;'"]*?(?:\bfrom\s*)?['"](\.[^'"]+)['"]/g)) found.push(match[1] as string)
  for (const match of text.matchAll(/\bimport\(\s*['"](\.[^'"]+)['"]\s*\)/g)) found.push(match[1] as string)
  return found
}

/**
 * The layer diagram's entries, top to bottom: each a path pattern of src/ (`src/cli/`,
 * `src/query/plan/`, `src/index.ts`, `src/query/errors.ts`, `src/*.ts`).
 */
function diagramLayers(): string[] {
  const doc = readFileSync(join(package_root, 'docs', 'architecture.md'), 'utf8')
  const block = /```\n([\s\S]*?)```/.exec(doc)?.[1] ?? ''
  return [...block.matchAll(/^\S.*?\s(src\/(?:[a-z-]+\/)*(?:[a-z*-]+\.ts)?)\s/gm)].map((m) => m[1] as string).filter((p) => p !== 'src/')
}

/**
 * The diagram entry a file of src/ belongs to: the file itself, else the deepest folder
 * listed that holds it, else `src/*.ts` for a file directly in src/; undefined when
 * the diagram has no place for it.
 */
function layerOf(file: string, layers: readonly string[]): string | undefined {
  const path = `src/${file}`
  if (layers.includes(path)) return path
  const folders = layers.filter((l) => l.endsWith('/') && path.startsWith(l)).sort((a, b) => b.length - a.length)
  if (folders[0] !== undefined) return folders[0]
  return file.includes('/') ? undefined : 'src/*.ts'
}

/** The part of the query layer a file of src/ is in (`plan` for query/plan/plan.ts), or undefined. */
const queryPart = (file: string) => /^query\/([a-z-]+)\//.exec(file)?.[1]

interface Edge { from: string; to: string; spec: string }

/** Every import between files (or out of src/, to native/), as paths relative to src/. */
function edges(): Edge[] {
  const out: Edge[] = []
  for (const file of sources()) {
    for (const spec of importsOf(readFileSync(join(src, file), 'utf8'))) {
      const target = relative(src, resolve(dirname(join(src, file)), spec)).split('\\').join('/').replace(/\.js$/, '.ts')
      out.push({ from: file, to: target, spec })
    }
  }
  return out
}

const folder = (file: string) => (file.includes('/') ? file.slice(0, file.indexOf('/')) : '')

t.test('the import graph of src/ has no cycle (madge --circular)', async (t) => {
  const graph = await madge(src, { fileExtensions: ['ts'], tsConfig: join(package_root, 'tsconfig.json') })
  t.same(graph.circular(), [], 'no import cycle')
})

t.test('the import reader sees every form of import this code base writes', async (t) => {
  const text = [
    "import { a } from './a.js'",
    "import type { B } from '../b/index.js'",
    "export { c } from './c.js'",
    "export * from './d.js'",
    "import './e.js'",
    'import {',
    '  f,',
    "} from './f.js'",
    "const g = await import('./g.js')",
    "import { h } from 'fastify'",
  ].join('\n')
  t.same(importsOf(text).sort(), ['../b/index.js', './a.js', './c.js', './d.js', './e.js', './f.js', './g.js'])
})

t.test('every import goes down the layer diagram of docs/architecture.md', async (t) => {
  const layers = diagramLayers()
  t.ok(layers.length > 10, `the diagram lists the layers (${layers.join(', ')})`)
  t.same(sources().filter((file) => layerOf(file, layers) === undefined), [], 'every file of src/ is in a layer of the diagram')
  const parts = new Set(sources().map(queryPart).filter((p) => p !== undefined))
  t.ok(parts.size >= 5, `the query layer is in parts (${[...parts].join(', ')})`)
  for (const part of parts) t.ok(layers.includes(`src/query/${part}/`), `src/query/${part}/ is in the diagram`)
  const all = edges()
  t.ok(all.length > 300, `${all.length} imports read`)
  const wrong = all.filter(({ from, to }) => {
    if (to.startsWith('../')) return false // native/: checked below
    const a = layers.indexOf(layerOf(from, layers) ?? '')
    const b = layers.indexOf(layerOf(to, layers) ?? '')
    return b < a
  })
  t.same(wrong.map((e) => `${e.from} imports ${e.spec}`), [], 'no layer imports one above it')
})

t.test('the layering the transaction layer rests on', async (t) => {
  const all = edges()
  const into = (target: string) => all.filter((e) => folder(e.to) === target && folder(e.from) !== target)
  t.same(
    into('query').filter((e) => ['cdc', 'tenants', 'schema', 'txn'].includes(folder(e.from))).map((e) => `${e.from} imports ${e.spec}`),
    [], 'the change feed, the tenants, the schema and the transaction layer never import the query layer',
  )
  t.same(
    into('engine').filter((e) => !['database', 'http', 'txn'].includes(folder(e.from))).map((e) => `${e.from} imports ${e.spec}`),
    [], 'nothing but the embedding API, the HTTP layer and the transaction layer imports the engine facade',
  )
  t.same(
    all.filter((e) => e.to.startsWith('../') && folder(e.from) !== 'engine').map((e) => `${e.from} imports ${e.spec}`),
    [], 'only the engine facade imports native/',
  )
  t.same(
    all.filter((e) => ['database/internals.ts', 'database/parts.ts'].includes(e.to) && folder(e.from) !== 'database').map((e) => `${e.from} imports ${e.spec}`),
    [], "no route, CLI command or other layer reaches a database's private parts",
  )
  t.ok(into('engine').some((e) => folder(e.from) === 'txn'), 'the transaction layer does import the engine (the check sees it)')
})

t.test("each part of the query layer is reached through its index.ts", async (t) => {
  const across = edges().filter((e) => queryPart(e.to) !== undefined && queryPart(e.from) !== queryPart(e.to))
  t.same(
    across.filter((e) => !e.to.endsWith('/index.ts')).map((e) => `${e.from} imports ${e.spec}`),
    [], 'an import from outside a part names its index.ts',
  )
  t.ok(across.some((e) => queryPart(e.from) !== undefined), 'parts do import each other (the check sees it)')
  t.ok(across.some((e) => folder(e.from) !== 'query'), 'layers above import parts (the check sees it)')
})

t.test('the CLI reaches a server only through src/client/ (docs/architecture.md, "Layers")', async (t) => {
  const cli = sources().filter((file) => file.startsWith('cli/'))
  const calls = cli.filter((file) => /\bfetch\s*\(|\bnew\s+WebSocket\s*\(|from\s+['"]node:https?['"]/.test(readFileSync(join(src, file), 'utf8')))
  t.same(calls, [], 'no file of src/cli/ calls fetch, opens a WebSocket or imports node:http')
  t.ok(edges().some((e) => e.from.startsWith('cli/') && e.to === 'client/index.ts'), 'the CLI does import the client (the check sees it)')
})
