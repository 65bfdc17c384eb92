// The README's examples run as written: `npm start` in a directory laid out like a
// checkout (bin/, dist/ and node_modules/ of this one, examples/ copied, no data yet),
// then every ```sh block of README.md in order, in one bash session, with curl and the
// real `tenantdb` command. A `# …` line after a command is the output the README
// shows: the command's output must match it, `...` standing for any text. The block
// after `<!-- output of: npm start -->` must match the server's banner. Blocks marked
// `<!-- not run: REASON -->` are skipped (installing, the test suite itself). The only
// change to the commands is the port: the server listens on one it picks
// (TENANTDB_PORT=0), which replaces 7070 (and, in the banner, the checkout's path and
// the sample token). Standard output is compared; standard error is shown when a
// command fails. Breaks when a README example stops working or prints something else.
// Run `npm run build:ts` first.
import { spawn, spawnSync } from 'node:child_process'
import { copyFileSync, cpSync, readFileSync, symlinkSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import { pollUntil } from './helpers/poll.js'
import { tempDir } from './helpers/temp-dir.js'

const root = fileURLToPath(new URL('..', import.meta.url))
const readme = readFileSync(join(root, 'README.md'), 'utf8')

interface Block {
  lang: string
  text: string
  /** The `<!-- … -->` line right before the block, if any. */
  marker: string | undefined
}

function blocks(markdown: string): Block[] {
  const found: Block[] = []
  const pattern = /(?:<!-- (.*?) -->\n)?```(\w*)\n([\s\S]*?)```/g
  for (let m = pattern.exec(markdown); m !== null; m = pattern.exec(markdown)) {
    found.push({ marker: m[1], lang: m[2] as string, text: m[3] as string })
  }
  return found
}

interface Step {
  command: string
  /** The output the README shows after it, or undefined when it shows none. */
  shown: string | undefined
}

/** A block's commands (a line ending in \ goes on) and the `# ` lines after each. */
function steps(block: string): Step[] {
  const out: Step[] = []
  const lines = block.split('\n')
  for (let i = 0; i < lines.length; i += 1) {
    let line = lines[i] as string
    if (line.trim() === '' || line.startsWith('#')) continue
    while (line.endsWith('\\') && i + 1 < lines.length) line = `${line}\n${lines[++i]}`
    const shown: string[] = []
    while (i + 1 < lines.length && (lines[i + 1] as string).startsWith('# ')) shown.push((lines[++i] as string).slice(2))
    out.push({ command: line, shown: shown.length === 0 ? undefined : shown.join('\n') })
  }
  return out
}

/** `shown` as a whole-text pattern: `...` (and a space either side) is any text, the rest literal. */
function shape(shown: string): RegExp {
  const literal = shown.split(/ ?\.\.\. ?/).map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
  return new RegExp(`^${literal.join('[^]*?')}$`)
}

t.test('the README\'s examples run as written', async (t) => {
  const all = blocks(readme)
  const run = all.filter((b) => b.lang === 'sh' && !(b.marker ?? '').startsWith('not run:'))
  const skipped = all.filter((b) => b.lang === 'sh' && (b.marker ?? '').startsWith('not run:'))
  t.ok(run.length >= 4, `${run.length} blocks run, ${skipped.length} skipped`)
  for (const b of skipped) t.match(b.marker, /^not run: \S/, 'a skipped block says why')
  const banner = all.find((b) => b.marker === 'output of: npm start')
  t.ok(banner !== undefined, 'the README shows what npm start prints')

  // A checkout as `npm start` sees it, with no data yet.
  const checkout = tempDir(t, 'tenantdb-readme-')
  for (const dir of ['bin', 'dist', 'node_modules']) symlinkSync(join(root, dir), join(checkout, dir))
  cpSync(join(root, 'examples'), join(checkout, 'examples'), { recursive: true })
  copyFileSync(join(root, 'package.json'), join(checkout, 'package.json'))

  const server = spawn('npm', ['start'], { cwd: checkout, env: { ...process.env, TENANTDB_PORT: '0', SERVICE_TOKEN: '', TENANTDB_URL: '', TENANTDB_SCHEMA: '' }, stdio: ['ignore', 'pipe', 'pipe'], detached: true })
  let err = ''
  server.stderr.on('data', (chunk: Buffer) => { err += chunk })
  server.stdout.resume()
  const exited = new Promise<void>((resolve) => server.on('exit', () => resolve()))
  t.teardown(() => {
    try {
      process.kill(-(server.pid as number), 'SIGKILL')
    } catch { /* the group is gone: it stopped */ }
  })
  await pollUntil(() => /token: .*\n/.test(err), () => `npm start's banner, got: ${err}`)
  const port = /url: http:\/\/127\.0\.0\.1:(\d+)\/api\/v1/.exec(err)?.[1] as string

  const place = (text: string) => text.replaceAll('127.0.0.1:7070', `127.0.0.1:${port}`)
  // The banner differs in the port, the checkout's path and the token generated.
  const bannerShown = place((banner as Block).text).replaceAll('/home/you/tenantdb', checkout).replace(/token: \S+\.\.\./, 'token: ...').trimEnd()
  t.match(err.trimEnd(), shape(bannerShown), 'npm start prints the banner shown')

  // Every command of every block, in order, in one shell; each one's output and status between markers.
  const all_steps = run.flatMap((b) => steps(b.text))
  // stdout is compared; stderr is kept apart (curl's progress meter, shown when stdout is no terminal) and shown on failure.
  const script = ['shopt -s expand_aliases', ...all_steps.map((s, i) => `{ ${place(s.command)}\n} 2>".stderr-${i}"\nstatus=$?\nprintf '\\n@@@ ${i} %s\\n' "$status"`)].join('\n')
  const shell = spawnSync('bash', ['-c', script], { cwd: checkout, encoding: 'utf8', env: { ...process.env, SERVICE_TOKEN: '', TENANTDB_URL: '', TENANTDB_TENANT: '', TENANTDB_SCHEMA: '' }, timeout: 300_000 })
  t.equal(shell.status, 0, shell.stderr)
  // [output 0, index 0, status 0, output 1, …]
  const outputs = shell.stdout.split(/^@@@ (\d+) (\d+)\n/m)
  t.equal(outputs.length, all_steps.length * 3 + 1, 'every command ran')
  for (const [i, step] of all_steps.entries()) {
    const [text, index, status] = outputs.slice(i * 3, i * 3 + 3)
    t.equal(index, String(i))
    const output = (text ?? '').replace(/\r\n/g, '\n').trimEnd()
    t.equal(status, '0', `${step.command.split('\n')[0]}: exit 0`, { output, stderr: readFileSync(join(checkout, `.stderr-${i}`), 'utf8').slice(-2000) })
    if (step.shown !== undefined) t.match(output, shape(place(step.shown)), `${step.command.split('\n')[0]}: prints what the README shows`)
  }

  // Ctrl-C in npm start's terminal: the server stops cleanly, releasing the directory.
  process.kill(-(server.pid as number), 'SIGINT')
  await exited
  const verified = spawnSync(process.execPath, [join(root, 'bin', 'tenantdb.js'), 'verify', join(checkout, 'data')], { encoding: 'utf8' })
  t.equal(verified.status, 0, `after Ctrl-C the directory is free and verifies: ${verified.stdout}${verified.stderr}`)
})
