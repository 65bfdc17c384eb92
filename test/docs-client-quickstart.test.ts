// The client's examples run as written: README.md's "From an application" and
// docs/client.md's "Quick start", each a program run by node against a real server of
// its own (examples/schema.eel, a fresh database), with `tenantdb/client` being this
// checkout's built client (dist/client/) and 127.0.0.1:7070 the server's port. What a
// line prints is the comment after its console.log: the program must exit 0 and print
// exactly those lines, in order. Breaks when an example stops working or prints
// something else. Run `npm run build:ts` first.
import { spawn } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import t, { type Test } from 'tap'
import { package_root } from '../src/package-root.js'
import { openExampleDatabase, startServer } from './helpers/http-server.js'
import { tempDir } from './helpers/temp-dir.js'

const token = 'docs-client-quickstart-token-0123456789'

/** The first ```ts block after `heading` in the document at `path`. */
function example(path: string, heading: string): string {
  const doc = readFileSync(join(package_root, path), 'utf8')
  const at = doc.indexOf(`\n${heading}\n`)
  if (at === -1) throw new Error(`${path} has no heading ${heading}`)
  const block = /```ts\n([\s\S]*?)```/.exec(doc.slice(at))?.[1]
  if (block === undefined) throw new Error(`${path} has no ts block after ${heading}`)
  return block
}

/** What the example says it prints: the comment after each console.log, in order. */
function shown(code: string): string[] {
  return code.split('\n').filter((line) => line.includes('console.log(')).map((line) => /\/\/ (.*)$/.exec(line)?.[1] ?? '')
}

async function runs(t: Test, path: string, heading: string): Promise<void> {
  const code = example(path, heading)
  t.ok(code.includes("from 'tenantdb/client'"), 'imports the package\'s client')
  t.ok(shown(code).length > 0, 'says what it prints')
  const server = await startServer(t, { token, db: await openExampleDatabase(t) })
  const client = pathToFileURL(join(package_root, 'dist', 'client', 'index.js')).href
  const program = join(tempDir(t), 'example.mjs')
  writeFileSync(program, code.replaceAll("'tenantdb/client'", `'${client}'`).replaceAll('127.0.0.1:7070', `127.0.0.1:${server.port}`))
  // spawn, not spawnSync: the server runs in this process and must keep serving.
  const child = spawn(process.execPath, [program], { env: { ...process.env, TOKEN: token }, stdio: ['ignore', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (chunk: Buffer) => { stdout += chunk })
  child.stderr.on('data', (chunk: Buffer) => { stderr += chunk })
  const status = await new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
  t.equal(status, 0, `exits 0: ${stderr}`)
  t.same(stdout.trimEnd().split('\n'), shown(code), 'prints what the example shows')
}

t.test('README.md: From an application', (t) => runs(t, 'README.md', '## From an application'))
t.test('docs/client.md: Quick start', (t) => runs(t, 'docs/client.md', '## Quick start'))

