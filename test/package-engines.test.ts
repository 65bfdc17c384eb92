// The Node versions the package declares are ones its dependencies declare too
// (docs/operations.md, "The package"): every production dependency's `engines.node`
// range admits every version in ours, so installing on a declared version warns of
// none (EBADENGINE). Breaks when a dependency update raises its floor above ours.
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import semver from 'semver'
import t from 'tap'

const root = fileURLToPath(new URL('..', import.meta.url))
const ours = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { engines: { node: string } }).engines.node

t.test("every production dependency's engines.node admits the package's", async (t) => {
  const listing = execFileSync('npm', ['ls', '--omit=dev', '--all', '--parseable'], { cwd: root, encoding: 'utf8' })
  const dirs = [...new Set(listing.trim().split('\n'))].filter((dir) => dir !== root.replace(/\/$/, ''))
  t.ok(dirs.length >= 40, `${dirs.length} installed production dependencies read`)
  const narrower: string[] = []
  for (const dir of dirs) {
    const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name: string; version: string; engines?: { node?: string } }
    const theirs = manifest.engines?.node
    if (theirs === undefined) continue
    if (!semver.subset(ours, theirs)) narrower.push(`${manifest.name}@${manifest.version} needs node ${theirs}`)
  }
  t.same(narrower, [], `each admits node ${ours}`)
  t.notOk(semver.subset('>=18', ours), 'the check can tell ranges apart (>=18 is wider than ours)')
})
