// `tenantdb restore` refuses a damaged archive (docs/operations.md, "Backup and
// restore"): a flipped byte in a file's data, a truncated stream, a missing manifest,
// a file the manifest does not list (or no backup holds), a newer format, and damage
// the manifest's checksums were recomputed over (caught by opening and verifying the
// result). Each is exit 1 with the reason, and leaves the target absent (or as it was)
// and no temporary directory beside it. A non-empty target is refused; the intact
// archive restores, into an absent or an empty directory and from stdin. The archive
// comes from the real `tenantdb backup DIR`. Breaks when restore skips a check, or
// leaves something behind. Run `npm run build:ts` first: the commands run from dist/.
import { spawn } from 'node:child_process'
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { Database } from '../src/database/index.js'
import { xxh64Reference } from './helpers/xxh64-reference.js'
import { cli_path, spawnCli } from './helpers/spawn-cli.js'
import { entries, filesOf, pack, type Entry } from './helpers/tar-entries.js'
import { tempDir } from './helpers/temp-dir.js'

/** A seeded directory with a snapshot, and its archive from `tenantdb backup DIR OUT`. */
async function backedUp(t: Test): Promise<{ root: string; archive: Buffer; schema: string }> {
  const root = tempDir(t)
  const schema = join(root, 'app.eel')
  writeFileSync(schema, 'collection notes { id: int primary, text: string }\n')
  const db = await Database.open(join(root, 'db'), { schema: [schema] })
  await db.tenant('default').query('insert notes $rows', { rows: Array.from({ length: 2000 }, (_, i) => ({ id: i, text: `note-${i}-${'x'.repeat(200)}` })) })
  await db.ops({ op: 'snapshot', name: 'default', target: 'before' })
  await db.tenant('default').query('notes | where id < 500 | delete')
  await db.close()
  const file = join(root, 'backup.tar')
  const run = spawnCli(t, ['backup', join(root, 'db'), file])
  t.equal(await run.exited, 0, run.stderr())
  t.match(run.stdout(), /^backed up LSN \d+: \d+ bytes to .*backup\.tar\n$/)
  t.equal(run.stderr(), '', 'no progress line when stderr is not a terminal')
  return { root, archive: readFileSync(file), schema }
}

/** Restores `archive` into `<root>/<name>`; returns the exit code, output and what is left beside it. */
async function restore(t: Test, root: string, archive: Buffer, name: string): Promise<{ code: number | string; stderr: string; stdout: string; target: string; leftovers: string[] }> {
  const file = join(root, `${name}.tar`)
  writeFileSync(file, archive)
  const target = join(root, name)
  const run = spawnCli(t, ['restore', file, target])
  const code = await run.exited
  const leftovers = readdirSync(root).filter((f) => f.startsWith(`.${name}.`))
  return { code, stderr: run.stderr(), stdout: run.stdout(), target, leftovers }
}

t.test('every kind of damage is refused with exit 1 and leaves nothing behind', async (t) => {
  const { root, archive, schema } = await backedUp(t)
  const list = entries(archive)
  t.same(list.map((e) => e.name.replace(/\d{20}/, 'N')), ['pages', 'checkpoint.journal', 'wal/N.wal', 'MANIFEST.json'], 'the documented entries, manifest last')
  const pages = list[0] as Entry
  const wal = list.find((e) => e.name.startsWith('wal/')) as Entry
  const manifest = list[list.length - 1] as Entry
  const flipped = (at: number) => {
    const copy = Buffer.from(archive)
    copy[at] = (copy[at] as number) ^ 0x10
    return copy
  }
  const manifestValue = JSON.parse(archive.subarray(manifest.data, manifest.data + manifest.size).toString('utf8')) as { version: number; files: Array<{ path: string; xxh64: string }> }
  const withManifest = async (change: (m: typeof manifestValue, files: Array<[string, Buffer]>) => void) => {
    const files = filesOf(archive)
    const value = structuredClone(manifestValue)
    change(value, files)
    files[files.length - 1] = ['MANIFEST.json', Buffer.from(JSON.stringify(value))]
    return pack(files)
  }
  const pagesData = Buffer.from(archive.subarray(pages.data, pages.data + pages.size))
  // One byte of every page slot past the two meta slots: some are live pages.
  for (let slot = 2; slot * 4096 < pagesData.length; slot++) pagesData[slot * 4096 + 40] = (pagesData[slot * 4096 + 40] as number) ^ 0x01

  const cases: Array<[name: string, damaged: Buffer, reason: RegExp]> = [
    ['page-byte', flipped(pages.data + 3 * 4096 + 17), /pages is damaged: its xxh64 is [0-9a-f]{16}; the manifest says [0-9a-f]{16}/],
    ['wal-byte', flipped(wal.data + Math.floor(wal.size / 2)), /wal\/\d{20}\.wal is damaged: its xxh64/],
    ['header-byte', flipped(pages.header + 5), /not a whole tar stream/],
    ['truncated', archive.subarray(0, Math.floor(archive.length / 2)), /not a whole tar stream|without its manifest/],
    ['truncated-in-manifest', archive.subarray(0, manifest.data + 10), /not a whole tar stream/],
    ['no-manifest', Buffer.concat([archive.subarray(0, manifest.header), Buffer.alloc(1024)]), /ends without its manifest/],
    ['extra-segment', await pack([...filesOf(archive).slice(0, -1), ['wal/00000000000009999999.wal', Buffer.alloc(64)], filesOf(archive).at(-1) as [string, Buffer]]), /holds wal\/00000000000009999999\.wal, which its manifest does not list/],
    ['foreign-file', await pack([['service.token', Buffer.from('secret')], ...filesOf(archive)]), /holds "service.token", which no backup holds/],
    ['escaping-path', await pack([['../escaped', Buffer.from('x')], ...filesOf(archive)]), /holds "\.\.\/escaped", which no backup holds/],
    ['after-manifest', await pack([...filesOf(archive), ['corruption.log', Buffer.from('x')]]), /an entry follows the manifest/],
    ['missing-file', await pack(filesOf(archive).filter(([name]) => !name.startsWith('wal/'))), /lacks wal\/\d{20}\.wal, which its manifest lists/],
    ['newer-format', await withManifest((m) => { m.version = 2 }), /backup format 2; this tenantdb reads format 1/],
    ['damaged-pages-rehashed', await withManifest((m, files) => {
      files[0] = ['pages', pagesData]
      ;(m.files[0] as { xxh64: string }).xxh64 = xxh64Reference(pagesData).toString(16).padStart(16, '0')
    }), /the restored directory (fails verify|does not open)/],
  ]
  for (const [name, damaged, reason] of cases) {
    const result = await restore(t, root, damaged, name)
    t.equal(result.code, 1, `${name}: exit 1`)
    t.match(result.stderr, reason, `${name}: says why`)
    t.match(result.stderr, /nothing was restored|not a whole|ends without/, `${name}: says nothing was restored`)
    t.notOk(existsSync(result.target), `${name}: the target is absent`)
    t.same(result.leftovers, [], `${name}: no temporary directory is left beside it`)
  }

  const intact = await restore(t, root, archive, 'intact')
  t.equal(intact.code, 0, `the intact archive restores: ${intact.stderr}`)
  const verified = spawnCli(t, ['verify', intact.target])
  t.equal(await verified.exited, 0, verified.stdout())
  const db = await Database.open(intact.target, { schema: [schema] })
  t.teardown(() => db.close())
  t.same((await db.tenant('default').query('notes | count')).rows, [[1500]])
  t.same((await db.tenant('default').query('notes | count', {}, { snapshot: 'before' })).rows, [[2000]], 'with its snapshot')
})

t.test('restore goes only into an absent or empty directory', async (t) => {
  const { root, archive } = await backedUp(t)
  const busy = join(root, 'busy')
  mkdirSync(busy)
  writeFileSync(join(busy, 'keep.txt'), 'mine')
  writeFileSync(join(root, 'backup-copy.tar'), archive)
  const refused = spawnCli(t, ['restore', join(root, 'backup-copy.tar'), busy])
  t.equal(await refused.exited, 1)
  t.match(refused.stderr(), /busy is not empty: a restore goes into an empty or absent directory/)
  t.same(readdirSync(busy), ['keep.txt'], 'the directory is untouched')
  t.equal(readFileSync(join(busy, 'keep.txt'), 'utf8'), 'mine')
  t.same(readdirSync(root).filter((f) => f.startsWith('.busy.')), [], 'nothing left beside it')

  const empty = join(root, 'empty')
  mkdirSync(empty)
  const into = spawnCli(t, ['restore', join(root, 'backup-copy.tar'), empty])
  t.equal(await into.exited, 0, into.stderr())
  t.ok(readdirSync(empty).includes('pages'), 'an empty directory takes the restore')

  // From stdin: `tenantdb restore - DIR`.
  const piped = join(root, 'piped')
  const child = spawn(process.execPath, [cli_path, 'restore', '-', piped], { stdio: ['pipe', 'pipe', 'pipe'] })
  let stderr = ''
  child.stderr.on('data', (chunk: Buffer) => { stderr += chunk })
  child.stdin.end(archive)
  const code = await new Promise((resolve) => child.on('exit', resolve))
  t.equal(code, 0, stderr)
  t.ok(existsSync(join(piped, 'pages')), 'restored from stdin')
})
