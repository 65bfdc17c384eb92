// P12's reader: opens a database with a page cache budget, notes its RSS, scans
// `count` rows from key number `start` on, sampling RSS every 10 000 rows, and prints
// {"baseline_rss": B, "peak_rss": P, "heap_growth": H, "cache_bytes": C, "scanned": N}
// (H: how far V8's heap grew, to tell the JavaScript heap from the page cache; C: what
// the page cache holds at the end). `pages` (the default) reads in pages of 10 000
// rows through `tenant.query`, each page answered whole; `stream` streams the rows
// through a prepared statement's `iterate` (docs/api.md), holding none of them.
//
//   node memory-scan.js DIR CACHE_BYTES START COUNT [pages|stream]
import { key } from '../harness/data.js'
import { openKv } from '../harness/tenantdb.js'
import { internalsOf } from '../../src/database/internals.js'

const [dir, cacheBytes, start, count] = process.argv.slice(2, 6).map((arg, i) => i === 0 ? arg : Number(arg)) as [string, number, number, number]
const mode = process.argv[6] ?? 'pages'
const page_rows = 10_000
const db = await openKv(dir, { cacheBytes })
const tenant = db.tenant('default')
const baseline = process.memoryUsage.rss()
const heapBaseline = process.memoryUsage().heapTotal
let peak = baseline
let heapPeak = heapBaseline
const sample = () => {
  const usage = process.memoryUsage()
  peak = Math.max(peak, usage.rss)
  heapPeak = Math.max(heapPeak, usage.heapTotal)
}
let scanned = 0
if (mode === 'stream') {
  const statement = await tenant.prepare('kv | where k >= $from')
  // Leaving the loop early ends the iteration (and lets go of its snapshot).
  for (const _ of statement.iterate({ from: key(start) })) {
    scanned += 1
    if (scanned % page_rows === 0) sample()
    if (scanned === count) break
  }
} else {
  let after = start === 0 ? null : key(start - 1)
  while (scanned < count) {
    const take = Math.min(page_rows, count - scanned)
    const page = after === null
      ? await tenant.query('kv | take $n', { n: take })
      : await tenant.query('kv | where k > $after | take $n', { after, n: take })
    if (page.rows.length === 0) break
    scanned += page.rows.length
    after = (page.rows[page.rows.length - 1] as unknown[])[0] as string
    sample()
  }
}
const cache_bytes = internalsOf(db).engine.stats().cache.bytes
await db.close()
process.stdout.write(`${JSON.stringify({ baseline_rss: baseline, peak_rss: peak, heap_growth: heapPeak - heapBaseline, cache_bytes, scanned })}\n`)
