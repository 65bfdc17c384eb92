// A consumer of the change feed that persists `event.lsn` and resumes in a new process
// with `after` (docs/client.md, "The change feed") sees every event once: each process
// here is a fresh `node` running the built client (dist/client/tail.js: run
// `npm run build:ts` first), over WebSocket (the `ws` package's class) and over long
// polls; the first takes some events and exits, writing down the last LSN it took; the
// second starts from it while more events are committed. Each process ends on its own
// after its `break`: a socket or poll left open would keep it alive until the timeout.
import { execFile } from 'node:child_process'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import t from 'tap'
import { package_root } from '../src/package-root.js'
import { client_tail_token as token, insertItem, startTailServer } from './helpers/client-tail-server.js'

const tail_module = pathToFileURL(join(package_root, 'dist', 'client', 'tail.js')).href

/** A new process that prints the first `count` events after `after` as JSON lines, then exits. */
const consumer = `
const [origin, token, after, count, transport] = process.argv.slice(1)
const { tailEvents } = await import(${JSON.stringify(tail_module)})
const WebSocket = transport === 'websocket' ? (await import('ws')).default : undefined
let taken = 0
for await (const event of tailEvents({ urls: [origin], token, tenant: 'default', after: Number(after), ...(WebSocket ? { WebSocket } : {}) })) {
  process.stdout.write(JSON.stringify(event) + '\\n')
  if (++taken >= Number(count)) break
}
`

function run(origin: string, after: number, count: number, transport: string): Promise<Array<{ lsn: number }>> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ['--input-type=module', '-e', consumer, origin, token, String(after), String(count), transport], { cwd: package_root, timeout: 60_000 }, (err, stdout, stderr) => {
      if (err !== null) reject(new Error(`${err.message}\n${stderr}`))
      else resolve(stdout.trim().split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as { lsn: number }))
    })
  })
}

for (const transport of ['websocket', 'long poll']) {
  t.test(`${transport}: a new process resuming from the persisted lsn gets every event once`, async (t) => {
    const { db, origin } = await startTailServer(t)
    const committed: number[] = []
    for (let id = 1; id <= 5; id += 1) committed.push(await insertItem(db, id))
    const first = await run(origin, 0, 3, transport)
    t.same(first.map((e) => e.lsn), committed.slice(0, 3), 'the first process took the first three')
    const persisted = first[first.length - 1]?.lsn ?? 0
    // More commits while the second process starts: backlog, then live.
    const second = run(origin, persisted, 4, transport)
    for (let id = 6; id <= 7; id += 1) committed.push(await insertItem(db, id))
    const rest = await second
    t.same([...first, ...rest].map((e) => e.lsn), committed.slice(0, 7), 'together: every event once, in order')
  })
}
