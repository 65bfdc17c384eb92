// P18's data (docs/performance.md, "Noisy neighbour (P18)"): one schema for both
// tenants, `items` that tenant A reads by id and tenant B scans, sorts and looks up
// into `tags` by a field that is no key (so the lookup builds a hash table), `docs` of
// long text for B's costliest pattern, `writes` for B's flood of inserts. Loaded through
// the embedding API into the directory the server then serves.
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { RE2JS } from 're2js'
import { Database } from '../../src/database/index.js'
import { eel_pattern_steps_max } from '../../src/limits.js'

export const neighbour_schema = `collection items { id: int primary, grp: int, n: int, label: string }
collection tags { id: int primary, grp: int, name: string }
collection docs { id: int primary, body: string }
collection writes { k: string primary, v: string }
`

/** Groups of `items`; `tags` has two rows in each of the first half, so each lookup finds 0 or 2. */
const groups = 1000
export const tag_rows = 1000

export type ItemRow = { id: number; grp: number; n: number; label: string }

/** Item `id`: its group and `n` spread by fixed multipliers, so no field but `id` follows the key order; `n` is never negative. */
export function item(id: number, count: number): ItemRow {
  return { id, grp: (id * 7919) % groups, n: (id * 104729) % 1_000_003, label: `item-${String((id * 7919) % count).padStart(8, '0')}` }
}

/**
 * A `matches` pattern that never matches the docs' text (300 letters or spaces, then a
 * `Q`; the only `Q` is the first character) but keeps about 300 threads of RE2's
 * automaton alive at every character, and whose literal `Q` is in the text, so no
 * shortcut turns the match down before it runs.
 */
export const costly_pattern = '[a-z ]{300}Q'

const words = 'lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt ut labore et dolore magna aliqua '

/** The longest text `costly_pattern` may be matched against: (length + 1) × its program size is the step limit. */
export function costlyText(): string {
  const length = Math.floor(eel_pattern_steps_max / RE2JS.compile(costly_pattern, 0).programSize()) - 1
  return `Q${words.repeat(Math.ceil(length / words.length))}`.slice(0, length)
}

/** Writes the schema file into `dir` and returns its path. */
export function writeNeighbourSchema(dir: string): string {
  const path = join(dir, 'neighbour.eel')
  writeFileSync(path, neighbour_schema)
  return path
}

export interface NeighbourSizes {
  /** Tenant A's items (read by id). */
  aItems: number
  /** Tenant B's items (scanned, sorted, looked up from). */
  bItems: number
  /** Tenant B's docs, each as long as the costly pattern allows. */
  bDocs: number
}

const chunk = 100_000

async function insertItems(db: Database, tenant: string, count: number): Promise<void> {
  for (let from = 0; from < count; from += chunk) {
    const rows = Array.from({ length: Math.min(chunk, count - from) }, (_, j) => item(from + j, count))
    await db.tenant(tenant).query('insert items $rows', { rows })
  }
}

/** Creates tenants `a` and `b` in `dir`/db with the schema at `schema` and loads their rows. */
export async function loadNeighbours(dir: string, schema: string, sizes: NeighbourSizes): Promise<void> {
  const db = await Database.open(join(dir, 'db'), { schema: [schema] })
  try {
    for (const name of ['a', 'b']) await db.ops({ op: 'create', name })
    await insertItems(db, 'a', sizes.aItems)
    await insertItems(db, 'b', sizes.bItems)
    const tags = Array.from({ length: tag_rows }, (_, id) => ({ id, grp: id % (groups / 2), name: `tag-${id}` }))
    await db.tenant('b').query('insert tags $rows', { rows: tags })
    const body = costlyText()
    await db.tenant('b').query('insert docs $rows', { rows: Array.from({ length: sizes.bDocs }, (_, id) => ({ id, body })) })
  } finally {
    await db.close()
  }
}
