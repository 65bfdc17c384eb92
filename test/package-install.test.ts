// The package as a new user gets it (docs/operations.md, "The package"): `npm run
// package` writes the main and platform tarballs, and an empty project with no Rust
// toolchain on its PATH installs them, imports `Database` from 'tenantdb' and runs a
// query, type-checks against the shipped declarations with skipLibCheck off, and runs
// `npx tenantdb serve`, which `tenantdb/client` (its own entry point) then queries. Installed without its platform package, the module and a
// command that opens a database fail with one sentence naming the package to install. Breaks when `files`
// drops something that runs, the native module is not in the platform package, the
// optional dependency is missing or at another version, or the declarations do not
// type-check on their own. Needs the npm registry (or its cache) for the dependencies.
import { execFileSync, spawn, spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs'
import { delimiter, dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import type { Test } from 'tap'
import { pollUntil } from './helpers/poll.js'
import { tempDir } from './helpers/temp-dir.js'

const root = fileURLToPath(new URL('..', import.meta.url))
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { name: string; version: string }
const platform_package = `${pkg.name}-linux-x64-gnu`

/** A PATH holding node and npm but no cargo or rustc: the directories that have neither, and links to node and npm. */
function pathWithoutRust(dir: string): string {
  const bin = join(dir, 'bin')
  mkdirSync(bin)
  const npm = realpathSync(execFileSync('/bin/sh', ['-c', 'command -v npm'], { encoding: 'utf8' }).trim())
  symlinkSync(process.execPath, join(bin, 'node'))
  symlinkSync(npm, join(bin, 'npm'))
  symlinkSync(join(dirname(npm), 'npx-cli.js'), join(bin, 'npx'))
  const kept = (process.env.PATH ?? '').split(delimiter).filter((d) => {
    try {
      const names = readdirSync(d)
      return !names.includes('cargo') && !names.includes('rustc')
    } catch {
      return false
    }
  })
  return [bin, ...kept].join(delimiter)
}

const artifacts = join(root, 'artifacts')
const main_tgz = join(artifacts, `${pkg.name}-${pkg.version}.tgz`)
const platform_tgz = join(artifacts, `${platform_package}-${pkg.version}.tgz`)

t.before(() => {
  // The build `npm test` made: package it without building again.
  execFileSync(process.execPath, [join(root, 'scripts', 'package.mjs'), '--no-build'], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] })
})

/** An empty project in a fresh directory; `run` runs a command there with no Rust on PATH. */
function project(t: Test) {
  const dir = tempDir(t, 'tenantdb-consumer-')
  const env: NodeJS.ProcessEnv = { ...process.env, PATH: pathWithoutRust(dir), npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false' }
  for (const key of Object.keys(env)) if (key.startsWith('npm_package_') || key === 'npm_lifecycle_event' || key === 'INIT_CWD') delete env[key]
  // The installed package must load its own module, not the instrumented one the
  // suite runs against (scripts/test-ts).
  delete env.NAPI_RS_NATIVE_LIBRARY_PATH
  const app = join(dir, 'app')
  mkdirSync(app)
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'consumer', version: '1.0.0', private: true, type: 'module' }))
  const run = (cmd: string, args: string[]) => spawnSync(cmd, args, { cwd: app, env, encoding: 'utf8', timeout: 300_000 })
  return { app, env, run }
}

t.test('the tarballs hold what runs, and nothing of the checkout besides', async (t) => {
  const list = (tgz: string) => execFileSync('tar', ['tzf', tgz], { encoding: 'utf8' }).trim().split('\n').map((f) => f.replace(/^package\//, ''))
  const main = list(main_tgz)
  for (const file of ['package.json', 'README.md', 'LICENSE', 'bin/tenantdb.js', 'native/index.cjs', 'native/index.d.cts', 'dist/index.js', 'dist/index.d.ts', 'dist/cli/main.js', 'examples/schema.eel']) {
    t.ok(main.includes(file), `the main package has ${file}`)
  }
  t.ok(main.some((f) => f.startsWith('dist/console/')), 'and the console')
  t.same(main.filter((f) => /^(src|test|crates|bench|scripts|docs|console)\//.test(f) || f.startsWith('dist/bench-build/') || f.endsWith('.map') || f.endsWith('.node')), [], 'no sources, tests, crates, bench build, source maps or binaries')
  // Past the fixed files, only what the build makes of the sources: each file under
  // dist/ (the console's bundle aside) is a module of src/, its code or its types.
  const built = main.filter((f) => f.startsWith('dist/') && !f.startsWith('dist/console/'))
  const strays = built.filter((f) => !existsSync(join(root, 'src', f.slice('dist/'.length).replace(/(\.d\.ts|\.js)$/, '.ts'))))
  t.same(strays, [], `${built.length} built files, each of a module in src/`)
  const rest = main.filter((f) => !f.startsWith('dist/'))
  t.same(rest.filter((f) => !/^(bin|examples)\//.test(f) && !['package.json', 'README.md', 'LICENSE', 'native/index.cjs', 'native/index.d.cts'].includes(f)), [], `${rest.length} other files: the manifest, README, LICENSE, bin/, examples/ and the native loader`)
  const manifest = JSON.parse(execFileSync('tar', ['xzOf', main_tgz, 'package/package.json'], { encoding: 'utf8' })) as Record<string, unknown>
  t.same(manifest.optionalDependencies, { [platform_package]: pkg.version }, 'the platform package is an optional dependency at this exact version')
  t.equal(manifest.scripts, undefined, 'no scripts run at install')
  t.equal(manifest.devDependencies, undefined)
  t.same(list(platform_tgz).sort(), ['README.md', 'package.json', 'tenantdb.linux-x64-gnu.node'], 'the platform package holds the native module')
})

t.test('installed with no Rust toolchain: import, type-check, query, serve', async (t) => {
  const { app, env, run } = project(t)
  t.not(run('/bin/sh', ['-c', 'command -v cargo || command -v rustc']).status, 0, 'neither cargo nor rustc is on this PATH')
  const install = run('npm', ['install', '--prefer-offline', main_tgz, platform_tgz, 'typescript@~5.9.3', '@types/node@^20'])
  t.equal(install.status, 0, `npm install: ${install.stderr.slice(-2000)}`)
  t.notMatch(install.stderr, /EBADENGINE/, 'no dependency declares a Node version this package does not')

  writeFileSync(join(app, 'app.ts'), [
    "import { mkdtempSync, writeFileSync } from 'node:fs'",
    "import { tmpdir } from 'node:os'",
    "import { join } from 'node:path'",
    "import { Database, QueryError, type QueryResult } from 'tenantdb'",
    '',
    "const dir = mkdtempSync(join(tmpdir(), 'tenantdb-consumer-db-'))",
    "writeFileSync(join(dir, 'app.eel'), 'collection users { id: int primary, name: string }\\n')",
    "const db = await Database.open(join(dir, 'data'), { schema: [join(dir, 'app.eel')] })",
    "const users = db.tenant('default')",
    "await users.query('insert users {id: 1, name: \"Ada\"}')",
    "const result: QueryResult = await users.query('users | get 1 | select name')",
    'let code = \'none\'',
    "try { await users.query('insert users {id: 1, name: \"again\"}') } catch (err) { code = err instanceof QueryError ? err.code : 'other' }",
    'await db.close()',
    'console.log(JSON.stringify({ rows: result.rows, code }))',
    '',
  ].join('\n'))
  // The client, from its own entry point (package.json `exports`), run once the server is up.
  writeFileSync(join(app, 'client.ts'), [
    "import { connect, TenantdbError } from 'tenantdb/client'",
    '',
    'const [url, token] = process.argv.slice(2) as [string, string]',
    "const db = await connect({ url, token, tenant: 'default' })",
    "const result = await db.query('users | count')",
    "let code = 'none'",
    "try { await db.query('users | where age = 3') } catch (err) { code = err instanceof TenantdbError ? err.code : 'other' }",
    'console.log(JSON.stringify({ columns: result.columns, code }))',
    '',
  ].join('\n'))
  writeFileSync(join(app, 'tsconfig.json'), JSON.stringify({
    compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, skipLibCheck: false, outDir: 'out', types: ['node'] },
    files: ['app.ts', 'client.ts'],
  }))
  const tsc = run('node', [join(app, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', '.'])
  t.equal(tsc.status, 0, `tsc with skipLibCheck false: ${tsc.stdout}${tsc.stderr}`)
  const ran = run('node', ['out/app.js'])
  t.equal(ran.status, 0, ran.stderr)
  t.same(JSON.parse(ran.stdout), { rows: [['Ada']], code: 'constraint_violation' }, 'a query and a typed error through the installed package')

  const version = run('npx', ['tenantdb', '--version'])
  t.equal(version.stdout.trim(), pkg.version, '`npx tenantdb --version`')

  // `tenantdb serve` as npx runs it (the installed bin; npx's shell would not pass
  // SIGTERM on), with the example schema the package ships.
  const server = spawn(join(app, 'node_modules', '.bin', 'tenantdb'), ['serve', '--dir', 'data', '--port', '0', '--schema', 'node_modules/tenantdb/examples/schema.eel'], { cwd: app, env, stdio: ['ignore', 'pipe', 'pipe'] })
  let output = ''
  server.stdout.on('data', (chunk: Buffer) => { output += chunk })
  server.stderr.on('data', (chunk: Buffer) => { output += chunk })
  const exited = new Promise<number | null>((resolve) => server.on('exit', (code) => resolve(code)))
  t.teardown(() => { if (server.exitCode === null) server.kill('SIGKILL') })
  await pollUntil(() => /url: (http:\/\/\S+)\/api\/v1/.test(output) && /token: (\S+)/.test(output), () => `the banner, got: ${output}`)
  const origin = /url: (http:\/\/\S+)\/api\/v1/.exec(output)?.[1] as string
  const token = /token: (\S+)/.exec(output)?.[1] as string
  const health = await fetch(`${origin}/api/v1/health`, { headers: { authorization: `Bearer ${token}` } })
  t.equal(health.status, 200, 'the installed server answers')
  const query = await fetch(`${origin}/api/v1/t/default/query`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'text/plain' }, body: 'users | count' })
  t.equal(query.status, 200, `a query over HTTP: ${await query.clone().text()}`)
  const client = run('node', ['out/client.js', origin, token])
  t.equal(client.status, 0, client.stderr)
  t.same(JSON.parse(client.stdout), { columns: ['count'], code: 'syntax_error' }, 'tenantdb/client resolves from the installed package, and talks to the server')
  const console_page = await fetch(`${origin}/console/`)
  t.equal(console_page.status, 200, 'and serves the console')
  t.match(await console_page.text(), /<html/i)
  server.kill('SIGTERM')
  t.equal(await exited, 0, 'and stops cleanly')
})

t.test('installed without its platform package: one sentence naming it', async (t) => {
  const { run } = project(t)
  const install = run('npm', ['install', '--prefer-offline', '--omit=optional', main_tgz])
  t.equal(install.status, 0, install.stderr.slice(-2000))
  const imported = run('node', ['--input-type=module', '-e', "import('tenantdb').then(() => console.log('loaded'), (e) => console.log(JSON.stringify({ message: e.message, code: e.code, platformPackage: e.platformPackage })))"])
  const failure = JSON.parse(imported.stdout) as { message: string; code: string; platformPackage: string }
  t.equal(failure.code, 'native_module_missing')
  t.equal(failure.platformPackage, platform_package)
  t.match(failure.message, `install the platform package '${platform_package}'`)
  t.notMatch(failure.message, /npm has a bug/, 'not the generated loader\'s generic advice')
  // A command that opens a database (--version and --help load no native module).
  const cli = run('npx', ['tenantdb', 'query', 'data', 'users | count'])
  t.equal(cli.status, 1, 'the command fails')
  t.equal(cli.stderr.trim().split('\n').filter((l) => !l.startsWith('npm warn')).join('\n'), failure.message, 'with that one sentence, no stack')
})
