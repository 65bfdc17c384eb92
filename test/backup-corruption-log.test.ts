// A restore names the lines of an archive's corruption.log that are no report (docs/
// operations.md, "Backup and restore"; docs/format.md, "Corruption log"): the engine
// skips them without a word, so corruption they recorded would vanish. The archive is
// the real `tenantdb backup DIR` of a directory whose corruption.log the engine wrote
// (a damaged leaf read, its tenant then deleted, so the directory verifies); the test
// adds junk lines to it, fixes the manifest's size and checksum, and restores with the
// real `tenantdb restore` and with restoreArchive. The reading of the log is held to
// the engine's own, line by line. Run `npm run build:ts` first: the commands run from
// dist/.
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import t, { type Test } from 'tap'
import { corruption_log_header, readCorruptionLog } from '../src/backup/index.js'
import { corruptionWarnings } from '../src/cli/restore.js'
import { Database, restoreArchive } from '../src/database/index.js'
import { Engine } from '../src/engine/index.js'
import { corruption_log_line_chars_shown_max, corruption_log_lines_named_max } from '../src/limits.js'
import { flipByteInLeaf } from './helpers/damage-page.js'
import { spawnCli } from './helpers/spawn-cli.js'
import { filesOf, pack } from './helpers/tar-entries.js'
import { tempDir } from './helpers/temp-dir.js'
import { xxh64Reference } from './helpers/xxh64-reference.js'

const header = corruption_log_header

/** A directory whose corruption.log holds one report the engine wrote, and its archive from `tenantdb backup DIR OUT`. */
async function backedUpWithReport(t: Test): Promise<{ root: string; archive: Buffer; log: string }> {
  const root = tempDir(t)
  const schema = join(root, 'app.eel')
  writeFileSync(schema, 'collection notes { id: int primary, text: string }\n')
  const dir = join(root, 'db')
  const first = await Database.open(dir, { schema: [schema] })
  await first.tenant('default').query('insert notes {id: 1, text: "kept"}')
  await first.ops({ op: 'create', name: 'scratch' })
  await first.tenant('scratch').query('insert notes $rows', { rows: Array.from({ length: 300 }, (_, i) => ({ id: i, text: `scratch-${String(i).padStart(4, '0')}` })) })
  await first.close()
  flipByteInLeaf(join(dir, 'pages'), 'scratch-0150')
  const db = await Database.open(dir, { schema: [schema] })
  const read = await db.tenant('scratch').query('notes | where id == 150').then(() => null, (e: unknown) => e)
  t.match(read, { code: 'corrupted' }, 'the damaged leaf is met')
  await db.ops({ op: 'delete', name: 'scratch' })
  await db.close()
  const log = readFileSync(join(dir, 'corruption.log'), 'utf8')
  const file = join(root, 'backup.tar')
  const run = spawnCli(t, ['backup', dir, file])
  t.equal(await run.exited, 0, run.stderr())
  return { root, archive: readFileSync(file), log }
}

/** `archive` with its corruption.log replaced by `log`, the manifest's size and xxh64 of it fixed. */
async function withLog(archive: Buffer, log: string): Promise<Buffer> {
  const files = filesOf(archive)
  const bytes = Buffer.from(log, 'utf8')
  const manifest = JSON.parse((files.at(-1) as [string, Buffer])[1].toString('utf8')) as { files: Array<{ path: string; bytes: number; xxh64: string }> }
  const entry = manifest.files.find((f) => f.path === 'corruption.log')
  if (entry === undefined) throw new Error('the archive has no corruption.log')
  entry.bytes = bytes.length
  entry.xxh64 = xxh64Reference(bytes).toString(16).padStart(16, '0')
  return pack(files.map(([name, data]): [string, Buffer] => [name, name === 'corruption.log' ? bytes : name === 'MANIFEST.json' ? Buffer.from(JSON.stringify(manifest)) : data]))
}

t.test('restore names the unreadable lines of corruption.log, and counts the reports it carries', async (t) => {
  const { root, archive, log } = await backedUpWithReport(t)
  const lines = log.split('\n').filter((l) => l !== '')
  t.equal(lines[0], header, 'the engine wrote the header')
  t.equal(lines.length, 2, `and one report: ${JSON.stringify(lines[1])}`)
  const report = lines[1] as string
  const detections = Number(report.split('\t')[4])

  const junk = [
    'this line is no report',
    'page:9\tpages\t9\tchecksum\tmany\t1795889174569\t1795889174574', // a count that is no number
    'page:10\tpages\t10\tchecksum\t1\t1795889174569', // six fields
  ]
  const damaged = await withLog(archive, [header, junk[0], report, junk[1], junk[2], ''].join('\n'))
  const file = join(root, 'damaged.tar')
  writeFileSync(file, damaged)

  const run = spawnCli(t, ['restore', file, join(root, 'restored')])
  t.equal(await run.exited, 0, `it restores: ${run.stderr()}`)
  t.match(run.stdout(), /^restored LSN \d+: \d+ files, \d+ bytes into .*restored; verified\n$/)
  const stderr = run.stderr()
  t.match(stderr, `1 corruption report (${detections} detection${detections === 1 ? '' : 's'})`, 'the report it carries')
  t.match(stderr, '3 unreadable corruption log lines', 'the junk, counted as what it is')
  for (const [line, text] of [[2, junk[0]], [4, junk[1]], [5, junk[2]]] as const) {
    t.match(stderr, `line ${line}: ${JSON.stringify(text)}`, `line ${line} is named`)
  }
  t.notMatch(stderr, `line 3:`, 'the readable report is not')

  const api = await restoreArchive(Readable.from([damaged]), join(root, 'restored-api'))
  t.same(api.corruption, {
    reports: 1,
    total: detections,
    unreadable_log_lines: 3,
    unreadable: [{ line: 2, text: junk[0] }, { line: 4, text: junk[1] }, { line: 5, text: junk[2] }],
  }, 'restoreArchive reports the same')

  // The log as the engine wrote it: its report, and no unreadable line.
  const intact = await restoreArchive(Readable.from([archive]), join(root, 'intact'))
  t.same(intact.corruption, { reports: 1, total: detections, unreadable_log_lines: 0, unreadable: [] })
})

t.test('a line is readable exactly when the engine reads it as a report', async (t) => {
  const dir = join(tempDir(t), 'db')
  await (await Database.open(dir)).close()
  // Field 0 names each candidate, so the engine's reports say which lines it read.
  const candidates: Array<[fields: string[], why: string]> = [
    [['pages', '1', 'checksum', '1', '2', '3'], 'as the engine writes it'],
    [['wal/00000000000000000001.wal', '-', 'wal_frame', '4', '5', '6'], 'a WAL report'],
    [['pages', 'x', 'checksum', '1', '2', '3'], 'a page that is no number (the engine takes it as none)'],
    [['pages', '1', 'no_such_kind', '1', '2', '3'], 'a kind it does not know'],
    [['pages', '1', 'checksum', '+5', '2', '3'], 'a count with a plus sign'],
    [['pages', '1', 'checksum', '18446744073709551615', '2', '3'], 'the largest u64'],
    [['pages', '1', 'checksum', '18446744073709551616', '2', '3'], 'one over it'],
    [['pages', '1', 'checksum', '-1', '2', '3'], 'a negative count'],
    [['pages', '1', 'checksum', ' 1', '2', '3'], 'a space before the count'],
    [['pages', '1', 'checksum', '', '2', '3'], 'an empty count'],
    [['pages', '1', 'checksum', '1.0', '2', '3'], 'a decimal count'],
    [['pages', '1', 'checksum', '\uff11', '2', '3'], 'a full-width digit'],
    [['pages', '1', 'checksum', '1', '+', '3'], 'a lone plus'],
    [['pages', '1', 'checksum', '1', '2', '3x'], 'a time with a letter'],
    [['pages', '1', 'checksum', '1', '2'], 'six fields'],
    [['pages', '1', 'checksum', '1', '2', '3', '4'], 'eight fields'],
    [['pages \u00e9\u0000', '1', 'checksum', '1', '2', '3'], 'odd characters in a free field'],
  ]
  const lines = [header, ...candidates.map(([fields], i) => [`c${i}`, ...fields].join('\t'))]
  lines.push('# a comment', '', 'junk without tabs', `c${candidates.length}\tpages\t1\tchecksum\t1\t2\t3\r`)
  const text = `${lines.join('\n')}\n`
  writeFileSync(join(dir, 'corruption.log'), text)

  const engine = await Engine.open(dir, { readOnly: true })
  const read = new Set(engine.stats().corruption.map((r) => r.id))
  await engine.close()
  const reading = readCorruptionLog(Buffer.from(text, 'utf8'))
  t.ok(reading.unreadable_lines <= corruption_log_lines_named_max, 'every unreadable line is named here')
  const unreadable = new Set(reading.unreadable.map((u) => u.line))
  lines.forEach((line, i) => {
    if (i === 0) return t.notOk(unreadable.has(1), 'the header is readable')
    const id = line.split('\t')[0] as string
    const why = candidates[i - 1]?.[1] ?? JSON.stringify(line)
    t.equal(!unreadable.has(i + 1), read.has(id), `line ${i + 1}, ${why}: readable ${!unreadable.has(i + 1)}, the engine ${read.has(id) ? 'reads' : 'skips'} it`)
  })
  t.equal(reading.reports, read.size, `${read.size} reports both ways`)
  t.ok(read.size >= 5 && reading.unreadable_lines >= 10, `both kinds were tried (${read.size} read, ${reading.unreadable_lines} not)`)
})

t.test('unreadable lines are all counted, the first few named, each cut short', async (t) => {
  const long = 'z'.repeat(corruption_log_line_chars_shown_max * 3)
  const junk = Array.from({ length: corruption_log_lines_named_max + 5 }, (_, i) => (i === 0 ? long : `junk ${i}`))
  const reading = readCorruptionLog(Buffer.from([header, ...junk].join('\n')))
  t.equal(reading.unreadable_lines, junk.length, 'all counted')
  t.equal(reading.unreadable.length, corruption_log_lines_named_max, 'the first ones named')
  t.same(reading.unreadable[0], { line: 2, text: `${'z'.repeat(corruption_log_line_chars_shown_max)}…` }, 'a long line cut short')
  t.same(reading.unreadable[1], { line: 3, text: 'junk 1' })
  const warnings = corruptionWarnings({ reports: 0, total: 0, unreadable_log_lines: reading.unreadable_lines, unreadable: reading.unreadable })
  t.match(warnings, `${junk.length} unreadable corruption log lines in corruption.log, which the server ignores, so any corruption they recorded is not reported; the first ${corruption_log_lines_named_max}:\n`)
  t.equal(warnings.split('\n').filter((l) => l.startsWith('  line ')).length, corruption_log_lines_named_max, 'one line each')
  t.equal(corruptionWarnings({ reports: 0, total: 0, unreadable_log_lines: 0, unreadable: [] }), '', 'nothing for a clean log')
})
