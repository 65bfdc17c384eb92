// `npm run package [-- --no-build]`: the installable package, napi-rs's way
// (docs/operations.md, "The package"), as two tarballs in artifacts/:
//   - tenantdb-linux-x64-gnu-<version>.tgz, the platform package: the prebuilt .node,
//     in the directory `napi create-npm-dirs` lays out;
//   - tenantdb-<version>.tgz, the main package: what package.json's `files` lists
//     (dist/ without the bench build or source maps, bin/, the native loader and its
//     types, examples/, README, LICENSE), with the platform packages as optional
//     dependencies at this exact version, and no scripts or devDependencies.
// A consumer runs `npm install artifacts/*.tgz`: no compiler, no Rust toolchain.
// test/package-install.test.ts installs the tarballs this writes into an empty project.
import { execFileSync } from 'node:child_process'
import { copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const out = join(root, 'artifacts')
const build = !process.argv.includes('--no-build')
const run = (cmd, args, cwd = root) => execFileSync(cmd, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] })
const napi = join(root, 'node_modules', '.bin', 'napi')

if (build) run('npm', ['run', 'build'])
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
// Staged inside the project: napi-rs keeps the package directories it manages there.
const stage = join(out, 'stage')
rmSync(out, { recursive: true, force: true })
mkdirSync(stage, { recursive: true })
try {

  // The platform packages: one per napi target, each holding its .node.
  const npmDir = join(stage, 'npm')
  run(napi, ['create-npm-dirs', '--npm-dir', npmDir])
  const platforms = {}
  for (const target of readdirSync(npmDir)) {
    const dir = join(npmDir, target)
    const platform = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'))
    // The .node `napi build` wrote into native/ (`napi artifacts` does this copy too,
    // and also writes beside the project root, so it is done here by hand).
    copyFileSync(join(root, 'native', platform.main), join(dir, platform.main))
    platforms[platform.name] = platform.version
    run('npm', ['pack', dir, '--pack-destination', out, '--ignore-scripts', '--silent'])
  }

  // The main package: package.json's `files`, as npm itself reads them.
  const [listing] = JSON.parse(run('npm', ['pack', '--dry-run', '--json', '--ignore-scripts', '--silent']))
  const main = join(stage, 'main')
  for (const { path } of listing.files) {
    if (path === 'package.json') continue
    mkdirSync(dirname(join(main, path)), { recursive: true })
    copyFileSync(join(root, path), join(main, path))
  }
  const { scripts: _scripts, devDependencies: _dev, allowScripts: _allow, ...published } = pkg
  writeFileSync(join(main, 'package.json'), `${JSON.stringify({ ...published, optionalDependencies: platforms }, null, 2)}\n`)
  run('npm', ['pack', main, '--pack-destination', out, '--ignore-scripts', '--silent'])

  for (const name of [pkg.name, ...Object.keys(platforms)]) {
    const file = join(out, `${name}-${pkg.version}.tgz`)
    process.stdout.write(`${file} ${(statSync(file).size / 1024).toFixed(0)} KiB\n`)
  }
  process.stdout.write(`main package: ${listing.files.length} files\n`)
} finally {
  rmSync(stage, { recursive: true, force: true })
}
