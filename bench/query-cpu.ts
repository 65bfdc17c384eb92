// The service's query path through the embedding API, measured in CPU time (user +
// system of the whole process, the storage core's threads included): an awaited point
// read (`kv | get $k`: tenant rules, check, plan, key encode, tree lookup, row decode)
// and a durable one-row insert (the same, plus the committer, the WAL and fsync). CPU
// time is the figure that means something on a loaded machine; wall time is printed
// for the record; a build with prepared statements adds the synchronous get and a full
// scan through iterate beside the paged one. `--build DIR` measures another checkout's build (its dist/index.js),
// so two versions can be run side by side, interleaved, on the same machine.
//
//   npm run bench:query [-- --reps 5 --rows 50000 --reads 100000 --inserts 2000 --build ../old]
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { parseArgs } from 'node:util'

const { values } = parseArgs({
  options: {
    reps: { type: 'string', default: '5' },
    rows: { type: 'string', default: '50000' },
    reads: { type: 'string', default: '100000' },
    inserts: { type: 'string', default: '2000' },
    build: { type: 'string' },
  },
})
const reps = Number(values.reps)
const rows = Number(values.rows)
const reads = Number(values.reads)
const inserts = Number(values.inserts)

type Prepared = { get(params: Record<string, unknown>): unknown; iterate(params?: Record<string, unknown>): Iterable<unknown> }
type Tenant = { query(text: string, params?: Record<string, unknown>): Promise<unknown>; prepare?(text: string): Promise<Prepared> }
type Database = { tenant(name: string): Tenant; close(): Promise<unknown> }
type DatabaseClass = { open(dir: string, options: { schema: string[] }): Promise<Database> }

const entry = values.build === undefined ? new URL('../src/index.js', import.meta.url) : pathToFileURL(join(resolve(values.build), 'dist/index.js'))
const { Database } = (await import(entry.href)) as { Database: DatabaseClass }
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number

/** [wall µs, CPU µs] per call of a synchronous `work`, run `count` times. */
function perCallSync(count: number, work: (i: number) => unknown): [number, number] {
  const cpu = process.cpuUsage()
  const started = process.hrtime.bigint()
  for (let i = 0; i < count; i++) work(i)
  const used = process.cpuUsage(cpu)
  return [Number(process.hrtime.bigint() - started) / 1e3 / count, (used.user + used.system) / count]
}

/** [wall µs, CPU µs] per call of `work`, run `count` times. */
async function perCall(count: number, work: (i: number) => Promise<unknown>): Promise<[number, number]> {
  const cpu = process.cpuUsage()
  const started = process.hrtime.bigint()
  for (let i = 0; i < count; i++) await work(i)
  const used = process.cpuUsage(cpu)
  return [Number(process.hrtime.bigint() - started) / 1e3 / count, (used.user + used.system) / count]
}

type Rep = { read: [number, number]; insert: [number, number]; prepared?: [number, number]; scan: [number, number]; iterate?: [number, number] }

async function rep(): Promise<Rep> {
  const dir = mkdtempSync(join(tmpdir(), 'tenantdb-query-cpu-'))
  const schema = join(dir, 'kv.eel')
  writeFileSync(schema, 'collection kv { k: int primary, v: string }\n')
  const db = await Database.open(join(dir, 'data'), { schema: [schema] })
  try {
    const kv = db.tenant('default')
    for (let i = 0; i < rows; i += 5000) {
      await kv.query('insert kv $rows', { rows: Array.from({ length: Math.min(5000, rows - i) }, (_, j) => ({ k: i + j, v: `value-${i + j}` })) })
    }
    await perCall(reads / 5, (i) => kv.query('kv | get $k', { k: i % rows })) // warm-up
    const read = await perCall(reads, (i) => kv.query('kv | get $k', { k: (i * 7919) % rows }))
    // A full scan row by row: pages of 10 000 by key through query, or one iterate.
    const scan = await perCall(1, async () => {
      let page = (await kv.query('kv | take 10000')) as { rows: unknown[][] }
      while (page.rows.length > 0) {
        const last = (page.rows.at(-1) as unknown[])[0]
        page = (await kv.query('kv | where k > $after | take 10000', { after: last })) as { rows: unknown[][] }
      }
    })
    scan[0] /= rows
    scan[1] /= rows
    let prepared: [number, number] | undefined
    let iterate: [number, number] | undefined
    if (kv.prepare !== undefined) {
      const get = await kv.prepare('kv | get $k')
      perCallSync(reads / 5, (i) => get.get({ k: i % rows }))
      prepared = perCallSync(reads, (i) => get.get({ k: (i * 7919) % rows }))
      const all = await kv.prepare('kv')
      iterate = perCallSync(1, () => { for (const row of all.iterate()) if (row === undefined) throw new Error('no row') })
      iterate[0] /= rows
      iterate[1] /= rows
    }
    const insert = await perCall(inserts, (i) => kv.query('insert kv {k: $k, v: "x"}', { k: rows + i }))
    return { read, insert, scan, ...(prepared === undefined ? {} : { prepared }), ...(iterate === undefined ? {} : { iterate }) }
  } finally {
    await db.close()
    rmSync(dir, { recursive: true, force: true })
  }
}

const results: Rep[] = []
for (let i = 0; i < reps; i++) results.push(await rep())
const show = (what: string, pick: (r: Rep) => [number, number] | undefined, digits: number) => {
  if (results.some((r) => pick(r) === undefined)) return
  const cpu = results.map((r) => (pick(r) as [number, number])[1])
  const wall = results.map((r) => (pick(r) as [number, number])[0])
  console.log(`${what.padEnd(34)} CPU ${median(cpu).toFixed(digits)} µs (${cpu.map((x) => x.toFixed(digits)).join(', ')})   wall ${median(wall).toFixed(digits)} µs`)
}
console.log(`tenantdb query path, ${values.build ?? 'this checkout'}: ${rows} rows, median of ${reps}`)
show(`point read (${reads} awaited)`, (r) => r.read, 2)
show('prepared get (synchronous)', (r) => r.prepared, 2)
show('full scan, per row: query pages', (r) => r.scan, 3)
show('full scan, per row: prepared iterate', (r) => r.iterate, 3)
show(`durable insert (${inserts} awaited)`, (r) => r.insert, 1)
