// The overview's page file panel: the file's size and its 4 KiB slots by state, as
// numbers and one stacked bar. Checkpoints write into free slots, so a file that
// stays the same size while free slots come and go is a database in steady state.
import type { Stats } from '../api/types.js'
import { h } from '../ui/dom.js'
import { bytes, count } from '../ui/format.js'
import { keyValues, panel } from '../ui/panel.js'
import { stackedBar } from '../ui/stacked-bar.js'

/** The two meta records' slots at the front of the file, counted in the allocator tip. */
const meta_slots = 2

export function pageFilePanel(stats: Stats): HTMLElement {
  const { pages } = stats
  return panel('Page file', h('div.page-file', null,
    keyValues([
      ['File size', h('span', { title: `${count(pages.file_bytes)} bytes`, dataset: { bytes: String(pages.file_bytes) } }, bytes(pages.file_bytes)), true],
      ['Slots (allocator tip)', h('span', { title: `${meta_slots} meta slots + live + free + pending + releasing` }, count(stats.page_count)), true],
    ]),
    stackedBar([
      { key: 'live', label: 'Live', value: pages.live, about: 'In use: the head, snapshots and other pins, forks, the space map itself' },
      { key: 'free', label: 'Free', value: pages.free, about: 'Reused by the next checkpoints' },
      { key: 'pending', label: 'Pending', value: pages.pending, about: 'Reached by no version, held back for older readers or the older meta record (two checkpoints)' },
      { key: 'releasing', label: 'Releasing', value: pages.releasing, about: 'Unreferenced; a later checkpoint releases what they reference, then they are free' },
    ], { label: 'page file slots', unit: 'slots', empty: 'No slot written yet: commits stay in the WAL until the first checkpoint.' }),
    h('p.help.page-file-help', null, 'Free slots are reused by the next checkpoints; pending ones wait until no older reader or older meta record can need them. Compact moves live slots down and cuts the free tail off.'),
  ), { className: 'span-2', subtitle: '4 KiB slots by state' })
}
