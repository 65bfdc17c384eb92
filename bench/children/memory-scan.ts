// P12's reader: opens a database with a page cache budget, notes its RSS, scans
// `count` rows from key number `start` on in pages of 10 000, sampling RSS after every
// page, and prints {"baseline_rss": B, "peak_rss": P, "heap_growth": H, "scanned": N}
// (H: how far V8's heap grew, to tell the JavaScript heap from the page cache).
//
//   node memory-scan.js DIR CACHE_BYTES START COUNT
import { key } from '../harness/data.js'
import { openKv } from '../harness/tenantdb.js'

const [dir, cacheBytes, start, count] = process.argv.slice(2).map((arg, i) => i === 0 ? arg : Number(arg)) as [string, number, number, number]
const page_rows = 10_000
const db = await openKv(dir, { cacheBytes })
const tenant = db.tenant('default')
const baseline = process.memoryUsage.rss()
const heapBaseline = process.memoryUsage().heapTotal
let peak = baseline
let heapPeak = heapBaseline
let scanned = 0
let after = start === 0 ? null : key(start - 1)
while (scanned < count) {
  const take = Math.min(page_rows, count - scanned)
  const page = after === null
    ? await tenant.query('kv | take $n', { n: take })
    : await tenant.query('kv | where k > $after | take $n', { after, n: take })
  if (page.rows.length === 0) break
  scanned += page.rows.length
  after = (page.rows[page.rows.length - 1] as unknown[])[0] as string
  const usage = process.memoryUsage()
  peak = Math.max(peak, usage.rss)
  heapPeak = Math.max(heapPeak, usage.heapTotal)
}
await db.close()
process.stdout.write(`${JSON.stringify({ baseline_rss: baseline, peak_rss: peak, heap_growth: heapPeak - heapBaseline, scanned })}\n`)
