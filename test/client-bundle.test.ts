// The browser build of the client (docs/client.md; docs/performance.md, "Client bundle
// size"): src/client/index.ts bundled by esbuild for the browser, minified. Breaks when
// anything the client loads imports a Node module (`node:…` or a bare builtin such as
// `fs`) or native code (a `.node` file, native/, the embedded database), or when the
// minified and gzipped bundle grows past its budget. The same check run on the
// embedded database's entry (the file connect({path}) loads) must find Node imports, so
// the check is seen to catch them.
import { builtinModules } from 'node:module'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import { build, type Plugin } from 'esbuild'
import t from 'tap'
import { package_root } from '../src/package-root.js'

/** The budget of the client's bundle, minified and gzipped. */
const budget_bytes = 12 * 1024

const builtins = new Set(builtinModules)

interface Bundle { text: string; gzipped: number; nodeImports: string[]; inputs: string[] }

/** `entry` bundled for the browser, every Node or native import it reaches recorded (and left out). */
async function bundle(entry: string): Promise<Bundle> {
  const nodeImports: string[] = []
  const record: Plugin = {
    name: 'record-node-imports',
    setup(b) {
      b.onResolve({ filter: /.*/ }, (args) => {
        const path = args.path
        const bare = path.split('/')[0] as string
        if (path.startsWith('node:') || builtins.has(bare) || path.endsWith('.node') || /(^|\/)native\//.test(path)) {
          nodeImports.push(`${path} (from ${args.importer.replace(package_root, '')})`)
          return { path, external: true }
        }
        return undefined
      })
    },
  }
  const result = await build({
    entryPoints: [entry], bundle: true, platform: 'browser', format: 'esm', minify: true, write: false, metafile: true,
    logLevel: 'silent', plugins: [record],
  })
  const text = result.outputFiles[0]?.text ?? ''
  return { text, gzipped: gzipSync(text).length, nodeImports, inputs: Object.keys(result.metafile.inputs) }
}

t.test('the client bundles for the browser with no Node module and no native code', async (t) => {
  const client = await bundle(join(package_root, 'src', 'client', 'index.ts'))
  t.same(client.nodeImports, [], 'no Node module or native code is imported')
  t.notMatch(client.text, /\bfrom\s*["']node:|require\(["']node:/, 'the output names no node: module')
  t.same(client.inputs.filter((i) => /src\/(database|engine|query|http\/(?!wire\/))|embedded|native/.test(i)), [], 'the embedded database stays out')
  t.ok(client.inputs.some((i) => i.endsWith('src/client/connect.ts')), `connect is in (${client.inputs.length} inputs)`)
  const kib = (client.gzipped / 1024).toFixed(1)
  t.comment(`client bundle: ${client.text.length} bytes minified, ${client.gzipped} bytes (${kib} KiB) gzipped`)
  t.ok(client.gzipped <= budget_bytes, `${client.gzipped} bytes gzipped, within the budget of ${budget_bytes}`)
})

t.test('the same check finds the Node imports of the embedded database', async (t) => {
  const embedded = await bundle(join(package_root, 'src', 'client', 'embedded-client.ts'))
  t.ok(embedded.nodeImports.some((i) => i.startsWith('node:')), `node: modules found (${embedded.nodeImports.length} imports)`)
  t.ok(embedded.nodeImports.some((i) => /native/.test(i)), 'native code found')
})
