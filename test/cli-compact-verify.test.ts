// The real `tenantdb compact` and `tenantdb verify` commands on temporary directories
// (docs/operations.md, "Compacting a tenant", "Verifying a directory"). Run `npm run
// build:ts` first: the command runs from dist/.
import { existsSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { Database, verifyDirectory } from '../src/database/index.js'
import { cli_path, spawnCli } from './helpers/spawn-cli.js'
import { tempDir } from './helpers/temp-dir.js'
import { flipByteInLeaf } from './helpers/damage-page.js'


/** A database with two collections, a snapshot taken before updates and deletes, and a fork. */
async function seeded(t: Test): Promise<{ dir: string; schema: string }> {
  const root = tempDir(t)
  const schema = join(root, 'app.eel')
  writeFileSync(schema, 'collection notes { id: int primary, text: string }\ncollection tags { name: string primary }\n')
  const dir = join(root, 'db')
  const db = await Database.open(dir, { schema: [schema] })
  const main = db.tenant('default')
  await main.query('insert notes $rows', { rows: Array.from({ length: 500 }, (_, i) => ({ id: i, text: `note-${i}` })) })
  await main.query('insert tags [{name: "a"}, {name: "b"}]')
  await db.ops({ op: 'snapshot', name: 'default', target: 'before' })
  await main.query('notes | where id < 100 | delete')
  await main.query('notes | where id >= 400 | update {text: "changed"}')
  await db.ops({ op: 'fork', name: 'default', target: 'staging' })
  await db.close()
  return { dir, schema }
}

t.test('compact prints the documented figures and keeps every row and snapshot readable', async (t) => {
  const { dir, schema } = await seeded(t)
  const before = statSync(join(dir, 'pages')).size
  const run = spawnCli(t, ['compact', dir])
  t.equal(await run.exited, 0, run.stderr())
  t.match(run.stdout(), /^compacted: 2 collections, 402 rows, \d+ pages in \d+ ms; page file \d+ → \d+ bytes\n$/, '400 notes and 2 tags')
  const printed = /page file (\d+) → (\d+) bytes/.exec(run.stdout())
  t.same(printed?.slice(1).map(Number), [before, statSync(join(dir, 'pages')).size], 'the bytes printed are the page file before the command and after it')
  t.equal(run.stderr(), '', 'no progress line when stderr is not a terminal')

  const db = await Database.open(dir, { schema: [schema] })
  t.teardown(() => db.close())
  const main = db.tenant('default')
  t.same((await main.query('notes | count')).rows, [[400]])
  t.same((await main.query('notes | where id == 450 | select text')).rows, [['changed']])
  t.same((await main.query('notes | where id == 150 | select text')).rows, [['note-150']])
  t.same((await main.query('notes | count', {}, { snapshot: 'before' })).rows, [[500]], 'the snapshot keeps its rows')
  t.same((await main.query('notes | where id == 450 | select text', {}, { snapshot: 'before' })).rows, [['note-450']])
  t.same((await db.tenant('staging').query('notes | count')).rows, [[400]], 'the fork keeps its rows')
  t.same((await main.query('tags | select name')).rows, [['a'], ['b']])
  await db.close()

  const other = spawnCli(t, ['compact', dir, 'staging'])
  t.equal(await other.exited, 0, other.stderr())
  t.match(other.stdout(), /^compacted: 2 collections, 402 rows, \d+ pages in \d+ ms; page file \d+ → \d+ bytes\n$/, 'a named tenant')
  const verified = spawnCli(t, ['verify', dir])
  t.equal(await verified.exited, 0, `clean after compaction: ${verified.stdout()}`)
  const report = await verifyDirectory(dir)
  t.same(report.problems, [], 'verifyDirectory, the call under `tenantdb verify`, finds nothing either')
  t.ok(report.pages > 0 && report.entries > 800, `it read the pages (${report.pages}) and entries (${report.entries})`)
})

t.test('compact of a missing tenant or a directory that is not a database fails with exit 1', async (t) => {
  const { dir } = await seeded(t)
  const missing = spawnCli(t, ['compact', dir, 'nope'])
  t.equal(await missing.exited, 1)
  t.match(missing.stderr(), /no tenant named 'nope'/)

  const nowhere = join(tempDir(t), 'absent')
  const none = spawnCli(t, ['compact', nowhere])
  t.equal(await none.exited, 1)
  t.match(none.stderr(), /is not a tenantdb database directory/)
  t.notOk(existsSync(nowhere), 'no database was created')
})

t.test('verify is clean on a good directory and names the page of a flipped byte', async (t) => {
  const { dir } = await seeded(t)
  const clean = spawnCli(t, ['verify', dir])
  t.equal(await clean.exited, 0, clean.stderr())
  t.match(clean.stdout(), /^verified \d+ pages, \d+ entries, WAL frames: ok; page slots: \d+ live, \d+ free, \d+ pending, \d+ releasing\n$/)

  const page = flipByteInLeaf(join(dir, 'pages'), 'note-250')
  const damaged = spawnCli(t, ['verify', dir])
  t.equal(await damaged.exited, 1)
  t.match(damaged.stdout(), new RegExp(`page ${page}\\b`), `names page ${page}`)
  t.notMatch(damaged.stdout(), /^verified/, 'no clean summary')
  t.match(damaged.stderr(), /is damaged: \d+ problems?/)
})

t.test('verify of a directory that is not a database fails with exit 1 and creates nothing', async (t) => {
  const root = tempDir(t)
  const run = spawnCli(t, ['verify', root])
  t.equal(await run.exited, 1)
  t.match(run.stderr(), /is not a tenantdb database directory \(it has no 'pages' file\)/)
  t.notOk(existsSync(join(root, 'pages')), 'no page file was created')
  t.notOk(existsSync(join(root, 'LOCK')), 'the directory was not opened')
})

t.test('compact and verify refuse a directory held open by another process with exit 2', async (t) => {
  const { dir } = await seeded(t)
  const db = await Database.open(dir)
  t.teardown(() => db.close())
  for (const command of ['compact', 'verify']) {
    const run = spawnCli(t, [command, dir])
    t.equal(await run.exited, 2, command)
    t.match(run.stderr(), /is locked by another process \(is a server running on it\?\)/, command)
  }
})

t.test('usage errors exit 2', async (t) => {
  for (const args of [['compact'], ['verify'], ['verify', 'a', 'b'], ['compact', 'a', 'b', 'c'], ['compact', '--bogus', 'a'], ['verify', '']]) {
    const run = spawnCli(t, args)
    t.equal(await run.exited, 2, args.join(' '))
    t.match(run.stderr(), /usage: tenantdb/, args.join(' '))
  }
})

