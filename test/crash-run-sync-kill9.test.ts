// Crash: a prepared insert's `runSync` is durable the moment it returns (docs/api.md,
// "Prepared statements"). A fresh `node` process (the built package, dist/: run
// `npm run build:ts` first) inserts with `runSync` on its own thread, with
// asynchronous `run()` inserts in flight beside it, and writes each key to stdout
// (synchronously) only after its call returned or its promise resolved; it is killed
// with SIGKILL at a random moment. Reopened, the directory must hold every key the
// process wrote down, whichever path committed it.
//
//   TENANTDB_RUN_SYNC_KILL9_CYCLES  kills (default 3)
import { spawn } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import t from 'tap'
import { Database } from '../src/database/index.js'
import { package_root } from '../src/package-root.js'
import { rng } from './helpers/rng.js'
import { tempDir } from './helpers/temp-dir.js'

const cycles = Number(process.env.TENANTDB_RUN_SYNC_KILL9_CYCLES ?? 3)
const seed = Number(process.env.TENANTDB_RUN_SYNC_KILL9_SEED ?? Date.now() % 1_000_000)
const index_module = pathToFileURL(join(package_root, 'dist', 'index.js')).href

const writer = `
import { writeSync } from 'node:fs'
const [dir, schema, cycle] = process.argv.slice(1)
const { Database } = await import(${JSON.stringify(index_module)})
const db = await Database.open(dir, { schema: [schema] })
const insert = await db.tenant('default').prepare('insert kv {k: $k, n: $n}')
writeSync(1, 'ready\\n')
for (let i = 0; ; i += 1) {
  insert.runSync({ k: 's' + cycle + '-' + i, n: i })
  writeSync(1, 's' + cycle + '-' + i + '\\n')
  if (i % 3 === 0) {
    const k = 'a' + cycle + '-' + i
    insert.run({ k, n: i }).then(() => writeSync(1, k + '\\n'))
  }
  if (i % 5 === 0) await new Promise((resolve) => setImmediate(resolve))
}
`

t.test(`crash: every runSync that returned survives kill -9 (${cycles} kills, seed ${seed})`, async (t) => {
  const dir = tempDir(t, 'tenantdb-run-sync-kill9-')
  const schema = join(dir, 'kv.eel')
  writeFileSync(schema, 'collection kv { k: string primary, n: int }\n')
  const random = rng(seed)
  const acknowledged = new Set<string>()
  let synchronous = 0
  let asynchronous = 0
  for (let cycle = 0; cycle < cycles; cycle += 1) {
    const child = spawn(process.execPath, ['--input-type=module', '-e', writer, join(dir, 'db'), schema, String(cycle)], { cwd: package_root, stdio: ['ignore', 'pipe', 'pipe'] })
    let buffered = ''
    let stderr = ''
    let lines = 0
    const killAfter = 200 + Math.floor(random() * 600)
    child.stderr.on('data', (chunk: Buffer) => { stderr += chunk.toString() })
    const exited = new Promise<NodeJS.Signals | number | null>((resolve) => child.on('exit', (code, signal) => resolve(signal ?? code)))
    child.stdout.on('data', (chunk: Buffer) => {
      buffered += chunk.toString()
      const complete = buffered.split('\n')
      buffered = complete.pop() as string
      for (const line of complete) {
        if (line === 'ready') continue
        acknowledged.add(line)
        if (line.startsWith('s')) synchronous += 1
        else asynchronous += 1
        if (++lines === killAfter) child.kill('SIGKILL')
      }
    })
    t.equal(await exited, 'SIGKILL', `cycle ${cycle + 1}: killed after ${killAfter} acknowledged inserts ${stderr}`)
  }
  const db = await Database.open(join(dir, 'db'), { schema: [schema] })
  t.teardown(() => db.close())
  const keys = new Set((await db.tenant('default').query('kv | select k')).rows.map((row) => row[0] as string))
  const lost = [...acknowledged].filter((k) => !keys.has(k))
  t.same(lost.slice(0, 10), [], `every acknowledged insert survived: ${synchronous} by runSync, ${asynchronous} by run()`)
  t.ok(synchronous > cycles * 150 && asynchronous > cycles * 20, 'both paths were acknowledged many times')
})
