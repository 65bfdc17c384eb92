// Overview: is the server up, is any data damaged, how far the WAL is ahead of the
// last checkpoint, what recovery cost at open, how long fsyncs take, how the page
// file's slots are used, the stats, and the trends of the last 20 minutes as charts.
// Refreshes itself every two seconds while the tab is visible (state/poller.ts: never
// two refreshes at once, backing off on errors, none while hidden), and stops when the
// page is left.
import { describeError } from '../api/client.js'
import type { CorruptionReport, Health, HealthDetail, Replication, Stats } from '../api/types.js'
import type { Context, Page } from '../context.js'
import { h, replaceChildren } from '../ui/dom.js'
import { bytes, clock, count, micros, percent, seconds, timestamp } from '../ui/format.js'
import { fsyncChart, quantileBound } from '../ui/fsync-chart.js'
import { badge, errorBox, keyValues, pageHeader, panel, tile } from '../ui/panel.js'
import { table } from '../ui/table.js'
import { Poller } from '../state/poller.js'
import { pageFilePanel } from './page-file-panel.js'
import { trendsPanel } from './trends-panel.js'

const refresh_ms = 2000

/** The engine checkpoints when this much WAL follows the last checkpoint; more lag means it is behind. */
const checkpoint_wal_bytes = 64 * 1024 * 1024

/** The corruption remedy, word for word (docs/api.md, "Health and stats"). */
export const corruption_remedy = 'A non-zero corruption count means data loss has been detected. The remedy is to restore from a known-good copy of the database directory or to recreate it.'

interface Snapshot {
  health: Health
  detail: HealthDetail
  stats: Stats
}

export function overviewPage(ctx: Context): Page {
  const updated = h('span.updated', null, 'loading…')
  const problem = h('div')
  const tiles = h('div.overview-tiles')
  const trends = trendsPanel(ctx.api)
  const body = h('div.overview')
  const element = h('div.page', null,
    pageHeader('Overview', 'Liveness, corruption, the write-ahead log, recovery, fsync latency, the page file, and their trends.', h('span.refresh', null, h('span.pulse', { 'aria-hidden': 'true' }), `Refreshes every ${refresh_ms / 1000} s while visible · `, updated)),
    problem,
    tiles,
    h('div.grid-2.trends-grid', null, trends.element),
    body,
  )

  let stopped = false
  async function refresh(): Promise<void> {
    try {
      const [health, detail, stats] = await Promise.all([ctx.api.health(), ctx.api.healthDetail(), ctx.api.stats(), trends.refresh()])
      if (stopped) return
      const [top, rest] = render({ health, detail, stats })
      replaceChildren(tiles, top)
      replaceChildren(body, rest)
      problem.replaceChildren()
      updated.textContent = `updated ${clock()}`
      element.dataset.loaded = 'true'
    } catch (error) {
      if (stopped) return
      updated.textContent = `failed at ${clock()}`
      // The last good figures stay below, marked stale by the time in the header.
      replaceChildren(problem, errorBox(`Cannot load health: ${describeError(error)}`))
      throw error
    }
  }
  const poller = new Poller({ every_ms: refresh_ms, run: refresh })
  poller.start()
  return {
    element,
    dispose() {
      stopped = true
      poller.stop()
      trends.dispose()
    },
  }
}

function render({ health, detail, stats }: Snapshot): [Array<Node | null>, Node] {
  const corrupt = detail.corruption.total > 0
  const { wal } = detail
  const hitRatio = percent(stats.cache.hits, stats.cache.hits + stats.cache.misses)
  return [[
    corrupt ? corruptionAlarm(detail.corruption.total) : null,
    h('div.tiles', null,
      tile('Status', health.ok ? 'Up' : 'Down', { tone: health.ok ? 'ok' : 'danger', note: `version ${health.version} · up ${seconds(stats.uptime_s)}` }),
      tile('Corruption', count(detail.corruption.total), { tone: corrupt ? 'danger' : 'ok', note: corrupt ? 'checksum failures: data loss' : 'no checksum failures' }),
      tile('WAL tip', `LSN ${count(wal.current_lsn)}`, { note: `checkpoint at LSN ${count(wal.checkpoint_lsn)}` }),
      tile('WAL lag', bytes(wal.lag_bytes), { tone: wal.lag_bytes > checkpoint_wal_bytes ? 'warn' : 'neutral', note: 'since the last checkpoint' }),
      tile('Tenants', count(stats.tenants), { note: 'in the catalog' }),
      detail.replication === null ? null : replicationTile(detail.replication),
    ),
  ], h('div.grid-2', null,
      panel('fsync latency', h('div.fsync', null,
        keyValues([
          ['Syncs this session', count(detail.fsync.count), true],
          ['Median at most', quantileText(detail, 0.5), true],
          ['p99 at most', quantileText(detail, 0.99), true],
          ['Slowest', detail.fsync.count === 0 ? '—' : micros(detail.fsync.max_micros), true],
        ]),
        fsyncChart(detail.fsync.buckets),
      ), { className: 'span-2', subtitle: 'durable WAL syncs this session, by latency bucket' }),
      panel('Write-ahead log', keyValues([
        ['Current LSN (tip)', count(wal.current_lsn), true],
        ['Checkpoint LSN', count(wal.checkpoint_lsn), true],
        ['Lag since checkpoint', bytes(wal.lag_bytes), true],
        ['WAL size', bytes(wal.bytes), true],
      ]), { subtitle: 'what recovery would replay' }),
      panel('Recovery', keyValues([
        ['Frames replayed at open', count(detail.recovery.replayed_frames), true],
        ['Open (recovery) time', micros(detail.recovery.open_micros), true],
      ]), { subtitle: 'when the database was last opened' }),
      panel('Page cache', [keyValues([
        ['Hits', count(stats.cache.hits), true],
        ['Misses', count(stats.cache.misses), true],
        ['Hit ratio', hitRatio, true],
        ['Reads in memory', count(stats.cache.memory_reads), true],
        ['Cached', bytes(stats.cache.bytes), true],
      ]), stats.cache.hits + stats.cache.misses === 0 && stats.cache.memory_reads > 0
        ? h('p.help.cache-note', null, 'Everything read so far was written since the last checkpoint and is read from memory, not through the page cache: hits and misses count once a checkpoint has written it to the page file.')
        : null], { subtitle: 'node reads since the server opened the directory' }),
      panel('Storage', keyValues([
        ['Page file', bytes(stats.pages.file_bytes), true],
        ['WAL', bytes(stats.wal_bytes), true],
        ['Database directory', h('code.path', null, detail.db_dir)],
      ]), { subtitle: 'the files in the directory' }),
      pageFilePanel(stats),
      panel('Corruption reports', corruptionTable(detail.corruption.reports), {
        className: corrupt ? 'span-2 danger' : 'span-2',
        subtitle: corrupt ? `${count(detail.corruption.total)} checksum failure${detail.corruption.total === 1 ? '' : 's'}, persisted across restarts` : 'persisted in the directory: a restart never hides one',
        actions: corrupt ? badge('data loss detected', 'danger') : badge('clean', 'ok'),
      }),
  )]
}

/** A node of a cluster: its role and term, where writes go, and how far behind it is (docs/replication.md). */
function replicationTile(r: Replication): HTMLElement {
  const lag = r.lag_frames === 0 ? 'no lag' : `${count(r.lag_frames)} frame${r.lag_frames === 1 ? '' : 's'} behind (${micros(r.lag_ms * 1000)})`
  const where = r.role === 'primary' ? `takes writes (${r.mode})` : r.primary === null ? 'primary unknown' : `primary ${r.primary}`
  const tone = r.role === 'fenced' || !r.nats_connected ? 'danger' : r.lag_frames > 0 ? 'warn' : 'ok'
  return tile('Replication', `${r.role} · term ${count(r.term)}`, { tone, note: `node ${r.node} · ${where} · ${lag}${r.nats_connected ? '' : ' · NATS unreachable'}` })
}

function corruptionAlarm(total: number): HTMLElement {
  return h('div.alarm', { role: 'alert' },
    h('div.alarm-title', null, `Corruption detected: ${count(total)} checksum failure${total === 1 ? '' : 's'}`),
    h('p.alarm-text', null, corruption_remedy),
    h('p.alarm-text.muted', null, 'Damaged pages are never returned as data; reads that meet them fail with storage_error. The reports below name each page.'),
  )
}

function corruptionTable(reports: readonly CorruptionReport[]): HTMLElement {
  return table<CorruptionReport>([
    { label: 'Identity', cell: (r) => h('code', null, r.id) },
    { label: 'File', cell: (r) => r.file },
    { label: 'Page', align: 'num', cell: (r) => (r.page === null ? '—' : count(r.page)) },
    { label: 'Kind', cell: (r) => r.kind },
    { label: 'Count', align: 'num', cell: (r) => count(r.count) },
    { label: 'First seen', cell: (r) => timestamp(r.first_seen) },
    { label: 'Last seen', cell: (r) => timestamp(r.last_seen) },
  ], reports, { empty: 'No checksum failure has been recorded in this directory.' })
}

function quantileText(detail: HealthDetail, q: number): string {
  const bucket = quantileBound(detail.fsync.buckets, q)
  if (bucket === null) return '—'
  // No quantile exceeds the slowest sync, which is known exactly.
  if (bucket.le_micros === null || bucket.le_micros >= detail.fsync.max_micros) return micros(detail.fsync.max_micros)
  return micros(bucket.le_micros)
}
