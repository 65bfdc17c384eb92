// Reads a collection's rows the way the plan says, in bounded batches, yielding to the
// event loop between batches and whenever the statement's pace says so (pace.ts: the
// stages downstream run between two rows read; docs/architecture.md, "Invariants", 8),
// and checking the deadline.
import { setImmediate as yieldToLoop } from 'node:timers/promises'
import type { Value } from '../../lang/ast.js'
import { decodeKey, decodeRow, encodeKey } from '../../codec/index.js'
import { QueryError } from '../errors.js'
import type { Pace } from '../pace/index.js'
import type { Access, KeyRange } from '../plan/index.js'
import { rowsTree } from '../../txn/index.js'
import type { TxnView } from '../../txn/index.js'

export type Row = Record<string, Value>

export interface AccessContext {
  view: TxnView
  tenant: string
  collection: string
  /** Rows read from storage, for the response's stats. */
  examined: { rows: number }
  pace: Pace
  /** Rows read per engine call (and yield after this many rows at most). */
  batch: number
  reverse?: boolean
}

export async function* readRows(access: Access, ctx: AccessContext): AsyncGenerator<Row> {
  switch (access.kind) {
    case 'points':
      for (const key of access.keys) {
        if (ctx.pace.due()) await ctx.pace.yield()
        const value = ctx.view.get(access.tree, key)
        if (value === null) continue
        ctx.examined.rows += 1
        yield decodeRow(value) as Row
      }
      return
    case 'range':
      for await (const [, value] of entries(access.tree, access.range, { ...ctx, reverse: access.reverse === true })) {
        ctx.examined.rows += 1
        yield decodeRow(value) as Row
        if (ctx.pace.due()) await ctx.pace.yield()
      }
      return
    case 'index': {
      // Rows come out in primary-key order, as every pipeline promises ("take without
      // sort follows primary-key order"): when index order differs, the matching keys
      // are gathered (small next to the rows) and sorted first.
      const rows = rowsTree(ctx.tenant, ctx.collection)
      const order = access.order
      const keys = order?.by === 'index'
        ? indexOrderKeys(entries(access.tree, access.range, { ...ctx, reverse: order.descending }), access.index.fields.length, order.turnTies)
        : access.ordered
          ? mapKeys(entries(access.tree, access.range, { ...ctx, reverse: order?.descending === true }))
          : await sortedKeys(entries(access.tree, access.range, ctx), order?.descending === true)
      let fetched = 0
      for await (const key of keys) {
        const value = ctx.view.get(rows, key)
        // An index entry without its row is a bug in index maintenance: say so loudly.
        if (value === null) throw new Error(`index ${access.index.name} names a missing row`)
        ctx.examined.rows += 1
        yield decodeRow(value) as Row
        if (++fetched % ctx.batch === 0 || ctx.pace.due()) await ctx.pace.yield()
      }
    }
  }
}

/** The primary key (the last component) of each index entry, as a row key. */
async function* mapKeys(entries: AsyncIterable<[Buffer, Buffer]>): AsyncGenerator<Buffer> {
  for await (const [key] of entries) yield encodePk(decodeKey(key).at(-1) ?? null)
}

async function sortedKeys(entries: AsyncIterable<[Buffer, Buffer]>, descending: boolean): Promise<Buffer[]> {
  const keys: Buffer[] = []
  for await (const key of mapKeys(entries)) keys.push(key)
  keys.sort(Buffer.compare)
  return descending ? keys.reverse() : keys
}

/**
 * Row keys in the index's order. Read backwards, entries with equal index values come
 * in descending primary-key order; with `turnTies` each such run is turned back, as a
 * stable descending sort over rows in primary-key order gives them (tree-order.ts).
 */
async function* indexOrderKeys(entries: AsyncIterable<[Buffer, Buffer]>, fields: number, turnTies: boolean): AsyncGenerator<Buffer> {
  if (!turnTies) {
    yield* mapKeys(entries)
    return
  }
  let run: Buffer[] = []
  let runValues = ''
  for await (const [key] of entries) {
    const parts = decodeKey(key)
    const values = encodeKey(parts.slice(0, fields)).toString('latin1')
    if (values !== runValues && run.length > 0) {
      yield* run.reverse()
      run = []
    }
    runValues = values
    run.push(encodePk(parts.at(-1) ?? null))
  }
  yield* run.reverse()
}

const encodePk = (pk: Value) => encodeKey([pk])

async function* entries(tree: string, range: KeyRange, ctx: AccessContext): AsyncGenerator<[Buffer, Buffer]> {
  let bounds = { ...range, reverse: ctx.reverse === true }
  for (;;) {
    const batch = ctx.view.range(tree, { ...bounds, limit: ctx.batch })
    yield* batch
    const last = batch.at(-1)
    if (last === undefined || batch.length < ctx.batch) return
    bounds = ctx.reverse === true
      ? { ...bounds, upper: last[0], upperInclusive: false }
      : { ...bounds, lower: last[0], lowerInclusive: false }
    await ctx.pace.yield()
  }
}
