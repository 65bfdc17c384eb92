// `tenantdb bench`: the benchmark harness in bench/ (docs/performance.md). Its anchors
// (better-sqlite3, lmdb, autocannon) are devDependencies, so it runs in a checkout
// after `npm install`: it compiles the harness, then runs it in this process.
import { execFileSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { package_root } from '../package-root.js'

export async function bench(argv: string[]): Promise<void> {
  const tsc = join(package_root, 'node_modules', 'typescript', 'bin', 'tsc')
  const project = join(package_root, 'bench', 'tsconfig.json')
  if (!existsSync(project) || !existsSync(tsc)) {
    throw new Error('the benchmark harness runs in a checkout of tenantdb with its dev dependencies installed (git clone, then npm install)')
  }
  execFileSync(process.execPath, [tsc, '-p', project], { stdio: 'inherit' })
  const harness = pathToFileURL(join(package_root, 'dist', 'bench-build', 'bench', 'main.js')).href
  const { runBench } = await import(harness) as { runBench: (argv: string[]) => Promise<unknown> }
  await runBench(argv)
}
