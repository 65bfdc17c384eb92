// Progress lines of `tenantdb verify`, `compact` and `restore` on a real pseudo-terminal
// (docs/operations.md, "Progress"): the step the storage core runs, done of its total
// with a rate, redrawn in place and cleared before the summary; piped, not a byte of it.
// The steps must last long enough for a redraw to land in them, so the database grows
// until they do (a fast machine needs more rows), within the hang guard. Run `npm run
// build:ts` first: the command runs from dist/.
import { spawnSync } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { Database } from '../src/database/index.js'
import { hang_guard_ms } from './helpers/poll.js'
import { cli_path } from './helpers/spawn-cli.js'
import { onTerminal, screenLines } from './helpers/terminal.js'
import { tempDir } from './helpers/temp-dir.js'

/** `label: STEP DONE of TOTAL UNIT (P%) at RATE UNIT/s`, the rate from the second redraw of a step on. */
const step_line = (label: string, step: string, unit: string) =>
  new RegExp(`^${label}: (?<step>${step}) (?<done>\\d+) of (?<total>\\d+) (?:${unit}) \\((?<percent>\\d+)%\\)(?<rate> at \\d+ (?:${unit})/s)?$`)

t.test('verify and compact show their steps on a terminal, and nothing when piped', async (t) => {
  const root = tempDir(t)
  const schema = join(root, 'app.eel')
  writeFileSync(schema, 'collection blobs { id: int primary, data: string }\n')
  const dir = join(root, 'db')
  const deadline = Date.now() + hang_guard_ms
  let rows = 0
  let verifying: string[] = []
  let compacting: string[] = []
  // Rows of 800 bytes: about four to a page, so the steps count thousands of pages.
  for (let batch = 4000; ; batch *= 2) {
    const db = await Database.open(dir, { schema: [schema] })
    for (let i = 0; i < batch; i += 500) {
      await db.tenant('default').query('insert blobs $rows', { rows: Array.from({ length: 500 }, (_, j) => ({ id: rows + i + j, data: 'x'.repeat(800) })) })
    }
    rows += batch
    await db.close()
    const verified = onTerminal(['verify', dir])
    t.equal(verified.status, 0, verified.output)
    const compacted = onTerminal(['compact', dir])
    t.equal(compacted.status, 0, compacted.output)
    verifying = verified.output.split('\r')
    compacting = compacted.output.split('\r')
    const redrawn = (parts: string[], line: RegExp) => parts.some((p) => line.exec(p.replace(/^\x1b\[K/, ''))?.groups?.rate !== undefined)
    if (redrawn(verifying, step_line(`verifying ${dir}`, 'pages', 'pages')) && redrawn(compacting, step_line('compacting default', 'rewriting trees|writing pages|moving pages', 'entries|pages'))) break
    if (Date.now() > deadline) throw new Error(`hang guard: steps still too short to redraw at ${rows} rows`)
  }
  t.comment(`${rows} rows`)

  const lines = (parts: string[]) => parts.map((p) => p.replace(/^\x1b\[K/, '')).filter((p) => p !== '' && p !== '\n')
  const verifyLines = lines(verifying)
  const pages = verifyLines.map((l) => step_line(`verifying ${dir}`, 'pages', 'pages').exec(l)).filter((m) => m !== null)
  t.ok(pages.length > 0, 'the pages walked, of the live slots')
  for (const { groups } of pages) {
    const [done, total, percent] = [groups?.done, groups?.total, groups?.percent].map(Number) as [number, number, number]
    t.ok(done <= total && percent === Math.floor((done / total) * 100), `${done} of ${total} is ${percent}%`)
  }
  t.ok(verifyLines.every((l) => l.startsWith(`verifying ${dir}`) || l.startsWith('verified ')), 'only progress lines and the summary')
  const shown = new Set(verifyLines.map((l) => /^verifying [^:]*: (pages|space map|WAL) /.exec(l)?.[1]).filter((s) => s !== undefined))
  t.ok(shown.has('pages'), `verify's steps shown: ${[...shown].join(', ')}`)
  t.match(screenLines(verifying.join('\r')).filter((l) => l !== '').join('\n'), /^verified \d+ pages, \d+ entries, WAL frames: ok; /, 'the line is cleared before the summary')

  const compactLines = lines(compacting)
  const steps = compactLines.map((l) => step_line('compacting default', 'rewriting trees|writing pages|moving pages', 'entries|pages').exec(l)?.groups?.step).filter((s) => s !== undefined)
  t.ok(steps.length > 0, `the steps shown: ${[...new Set(steps)].join(', ')}`)
  t.ok(compactLines.every((l) => /^compacting default(:| \d+s)/.test(l) || l.startsWith('compacted: ')), 'only progress lines and the summary')
  t.match(screenLines(compacting.join('\r')).filter((l) => l !== '').join('\n'), /^compacted: 1 collections, \d+ rows, /)

  for (const command of ['verify', 'compact']) {
    const piped = spawnSync(process.execPath, [cli_path, command, dir], { encoding: 'utf8' })
    t.equal(piped.status, 0, piped.stderr)
    t.equal(piped.stderr, '', `${command} piped: no progress`)
    t.match(piped.stdout, /^(verified|compacted:) [^\r\x1b]*\n$/, `${command} piped: the summary alone`)
  }

  const archive = join(root, 'a.tar')
  const backedUp = spawnSync(process.execPath, [cli_path, 'backup', dir, archive], { encoding: 'utf8' })
  t.equal(backedUp.status, 0, backedUp.stderr)
  const restored = onTerminal(['restore', archive, join(root, 'restored')])
  t.equal(restored.status, 0, restored.output)
  t.match(restored.output, /restoring: \d+\.\d MiB of \d+\.\d MiB \(\d+%\)/, 'restore: the archive\'s bytes')
  t.match(restored.output, /verifying the restored directory( \d+s|: (pages|WAL) )/, 'then the check of what it restored')
  t.match(screenLines(restored.output).filter((l) => l !== '').pop(), /^restored LSN \d+: /)
})
