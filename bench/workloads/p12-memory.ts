// P12: memory. A fresh process opens a database with a 32 MiB page cache and scans
// the same number of rows, once from a database of that many rows and once from one
// ten times larger, in pages of 10 000 rows through `tenant.query`; RSS is sampled
// throughout. Memory should follow the cache budget, not the data: the peak with 10x
// the data stored within 1.25x of the smaller, and the growth during a scan within
// twice the cache budget. The same scan of the larger store streamed through a prepared
// statement's `iterate` is measured beside it (no goal: it shows what the pages cost).
import { startNodeChild, waitForJson } from '../harness/child.js'
import { rows } from '../harness/data.js'
import { loadRows, openKv } from '../harness/tenantdb.js'
import type { Workload } from '../harness/workload.js'
import { internalsOf } from '../../src/database/internals.js'

const cache_bytes = 32 * 1024 * 1024
const mib = 1024 * 1024

interface ScanMemory { baseline_rss: number; peak_rss: number; heap_growth: number; cache_bytes: number; scanned: number }

export const p12: Workload = {
  id: 'P12',
  title: 'memory: RSS while scanning, with 1x and 10x the rows stored',
  async run(ctx, rec) {
    const scanRows = ctx.size(1_000_000, 100_000)
    const stores = { small: scanRows, large: scanRows * 10 }
    const dirs: Record<string, string> = {}
    for (const [name, count] of Object.entries(stores)) {
      ctx.progress.step(`loading ${count} rows`)
      const dir = ctx.scratch(`p12-${name}`)
      const db = await openKv(dir)
      await loadRows(db, rows, count)
      // Stored means checkpointed: otherwise opening replays the load's WAL tail.
      await internalsOf(db).engine.checkpoint()
      await db.close()
      dirs[name] = dir
    }
    const growth: Record<string, number[]> = { small: [], large: [], stream: [] }
    const baseline: Record<string, number[]> = { small: [], large: [], stream: [] }
    const heap: Record<string, number[]> = { small: [], large: [], stream: [] }
    const cached: Record<string, number[]> = { small: [], large: [], stream: [] }
    const scan = (name: 'small' | 'large' | 'stream') => async (round: number) => {
      const store = name === 'small' ? 'small' : 'large'
      const start = name === 'small' ? 0 : stores.large / 2
      const child = startNodeChild('memory-scan', [dirs[store] as string, String(cache_bytes), String(start), String(scanRows), name === 'stream' ? 'stream' : 'pages'])
      const result = await waitForJson<ScanMemory>(child, 'peak_rss', 600_000)
      await child.exited
      if (result.scanned !== scanRows) throw new Error(`the scan read ${result.scanned} rows, expected ${scanRows}`)
      if (round > 0) {
        growth[name]?.push((result.peak_rss - result.baseline_rss) / mib)
        baseline[name]?.push(result.baseline_rss / mib)
        heap[name]?.push(result.heap_growth / mib)
        cached[name]?.push(result.cache_bytes / mib)
      }
      return result.peak_rss / mib
    }
    const samples = await ctx.rounds({ small: scan('small'), large: scan('large'), stream: scan('stream') })
    rec.figure('small', `peak RSS scanning ${scanRows} rows, ${stores.small} stored`, 'MiB', samples.small, 'lower')
    rec.figure('large', `peak RSS scanning ${scanRows} rows, ${stores.large} stored`, 'MiB', samples.large, 'lower')
    rec.figure('baseline_small', `RSS after open, ${stores.small} stored`, 'MiB', baseline.small ?? [], 'lower')
    rec.figure('baseline_large', `RSS after open, ${stores.large} stored`, 'MiB', baseline.large ?? [], 'lower')
    rec.figure('growth_small', `RSS growth during the scan, ${stores.small} stored`, 'MiB', growth.small ?? [], 'lower')
    rec.figure('growth_large', `RSS growth during the scan, ${stores.large} stored`, 'MiB', growth.large ?? [], 'lower')
    rec.figure('heap_large', `V8 heap growth during the scan, ${stores.large} stored`, 'MiB', heap.large ?? [], 'lower')
    rec.figure('cache_large', `page cache held after the scan, ${stores.large} stored`, 'MiB', cached.large ?? [], 'lower')
    rec.figure('growth_stream', `RSS growth streaming the scan (iterate), ${stores.large} stored`, 'MiB', growth.stream ?? [], 'lower')
    rec.figure('heap_stream', `V8 heap growth streaming the scan (iterate), ${stores.large} stored`, 'MiB', heap.stream ?? [], 'lower')
    rec.ratio('peak RSS: 10x stored / 1x stored', 'large', 'small', '<=', 1.25)
    rec.goal('RSS growth during the scan, 10x stored', rec.value('growth_large'), 'MiB', '<=', 2 * cache_bytes / mib)
    rec.note(`page cache budget ${cache_bytes / mib} MiB; each scan in a fresh process`)
  },
}
