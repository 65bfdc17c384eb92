// The real `tenantdb repair` on temporary directories (docs/operations.md, "Repairing
// the space map"): the space map is recounted from the trees and written, nothing is
// lost, and a directory whose space map was damaged verifies clean again. Run `npm run
// build:ts` first: the command runs from dist/.
import { closeSync, openSync, readFileSync, writeSync } from 'node:fs'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { Database } from '../src/database/index.js'
import { spawnCli } from './helpers/spawn-cli.js'
import { tempDir } from './helpers/temp-dir.js'

const page_bytes = 4096
const space_map_type = 6

async function seeded(t: Test): Promise<{ dir: string; schema: string }> {
  const root = tempDir(t)
  const schema = join(root, 'app.eel')
  writeFileSyncText(schema, 'collection notes { id: int primary, text: string }\n')
  const dir = join(root, 'db')
  const db = await Database.open(dir, { schema: [schema] })
  await db.tenant('default').query('insert notes $rows', { rows: Array.from({ length: 800 }, (_, i) => ({ id: i, text: `note-${i}-${'x'.repeat(i % 50)}` })) })
  await db.ops({ op: 'snapshot', name: 'default', target: 'before' })
  await db.tenant('default').query('notes | where id % 3 == 0 | delete')
  await db.close()
  return { dir, schema }
}

function writeFileSyncText(file: string, text: string): void {
  const fd = openSync(file, 'w')
  try {
    writeSync(fd, text)
  } finally {
    closeSync(fd)
  }
}

/** Flips a payload byte of every space map page in the page file; returns how many. */
function damageSpaceMap(file: string): number {
  const bytes = readFileSync(file)
  const fd = openSync(file, 'r+')
  let damaged = 0
  try {
    for (let page = 2; (page + 1) * page_bytes <= bytes.length; page += 1) {
      if (bytes[page * page_bytes + 24] !== space_map_type) continue
      const at = page * page_bytes + 48
      writeSync(fd, Buffer.from([(bytes[at] as number) ^ 0xff]), 0, 1, at)
      damaged += 1
    }
  } finally {
    closeSync(fd)
  }
  return damaged
}

async function rows(dir: string, schema: string): Promise<[number, number]> {
  const db = await Database.open(dir, { schema: [schema] })
  try {
    const head = (await db.tenant('default').query('notes | count')).rows[0]?.[0] as number
    const before = (await db.tenant('default').query('notes | count', {}, { snapshot: 'before' })).rows[0]?.[0] as number
    return [head, before]
  } finally {
    await db.close()
  }
}

t.test('repair of a healthy directory rewrites the same books and loses nothing', async (t) => {
  const { dir, schema } = await seeded(t)
  const run = spawnCli(t, ['repair', dir])
  t.equal(await run.exited, 0, run.stderr())
  t.match(run.stdout(), /^space map rebuilt from the trees: \d+ live, \d+ free, \d+ pending, 0 releasing\nverified \d+ pages, \d+ entries: clean\n$/)
  t.same(await rows(dir, schema), [533, 800], 'the head and the snapshot keep their rows')
  const verified = spawnCli(t, ['verify', dir])
  t.equal(await verified.exited, 0, verified.stdout())
})

t.test('a damaged space map is reported by verify and rebuilt by repair', async (t) => {
  const { dir, schema } = await seeded(t)
  t.ok(damageSpaceMap(join(dir, 'pages')) >= 1, 'the page file holds a space map page')
  const damaged = spawnCli(t, ['verify', dir])
  t.equal(await damaged.exited, 1, 'verify reports the damage')
  t.match(damaged.stdout(), /space map: .*rebuilt from the pages at open/)
  const run = spawnCli(t, ['repair', dir])
  t.equal(await run.exited, 0, `${run.stdout()}${run.stderr()}`)
  const verified = spawnCli(t, ['verify', dir])
  t.equal(await verified.exited, 0, `clean once repaired: ${verified.stdout()}`)
  t.same(await rows(dir, schema), [533, 800], 'nothing was lost')
})

t.test('repair refuses what is not a database directory and takes one argument', async (t) => {
  const root = tempDir(t)
  const missing = spawnCli(t, ['repair', root])
  t.equal(await missing.exited, 1)
  t.match(missing.stderr(), /is not a tenantdb database directory/)
  const extra = spawnCli(t, ['repair', root, 'more'])
  t.not(await extra.exited, 0)
  t.match(extra.stderr(), /too many arguments; expected: tenantdb repair <dir>/)
})
