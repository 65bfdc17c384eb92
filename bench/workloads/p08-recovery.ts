// P8: recovery. A child process fills the WAL with 64 MiB of commits that no
// checkpoint has applied, and is killed with SIGKILL while still writing. Each
// repetition opens a fresh copy of that directory and reports the engine's own
// open_micros and the replayed bytes: replay rate goal >= 100 MB/s. The copies are in
// the page cache (just written and synced), so this is the CPU side of recovery, not a
// cold disk.
import { execFileSync } from 'node:child_process'
import { cpSync } from 'node:fs'
import { join } from 'node:path'
import { Engine } from '../../src/engine/index.js'
import { startNodeChild, waitForJson } from '../harness/child.js'
import { no_checkpoint } from '../harness/recovery-options.js'
import type { Workload } from '../harness/workload.js'

export const p08: Workload = {
  id: 'P8',
  title: 'recovery after kill -9 with unreplayed WAL',
  async run(ctx, rec) {
    const targetBytes = ctx.size(64, 16) * 1024 * 1024
    const source = ctx.scratch('p8-killed')
    ctx.progress.step(`writing ${targetBytes >> 20} MiB of WAL in a child process`)
    const writer = startNodeChild('wal-writer', [source, String(targetBytes)])
    const ready = await waitForJson<{ lag_bytes: number; rows: number }>(writer, 'ready', 600_000)
    await writer.kill('SIGKILL')
    const lag: number[] = []
    const samples = await ctx.rounds({
      tenantdb: async () => {
        const copy = ctx.scratch('p8-copy')
        cpSync(source, copy, { recursive: true })
        // The copy's dirty pages are written back first, so the disk is not busy with
        // them during the open being measured.
        execFileSync('sync')
        const engine = await Engine.open(join(copy, 'db'), no_checkpoint)
        try {
          const stats = engine.stats()
          lag.push(stats.lag_bytes)
          return stats.open_micros / 1000
        } finally {
          await engine.close()
        }
      },
    })
    const replayedBytes = lag[lag.length - 1] ?? 0
    const openMs = rec.figure('open_ms', 'open with replay (engine open_micros)', 'ms', samples.tenantdb, 'lower').value
    rec.figure('replayed_mib', 'WAL replayed', 'MiB', lag.slice(1).map((b) => b / 1024 / 1024))
    rec.goal('replay rate', replayedBytes / 1e6 / (openMs / 1000), 'MB/s', '>=', 100)
    rec.note(`killed writer had ${(ready.lag_bytes / 1024 / 1024).toFixed(1)} MiB unreplayed when announced, ${ready.rows} rows; page cache warm`)
  },
}
