// The loaded datasets the read workloads share (P3, P5): each engine in its own
// directory with the same rows, loaded once per run.
import type { Database } from '../../src/database/index.js'
import { LmdbKv } from '../anchors/lmdb.js'
import { SqliteKv } from '../anchors/sqlite.js'
import type { BenchContext } from './context.js'
import { rows } from './data.js'
import { loadRows, openKv } from './tenantdb.js'
import { internalsOf } from '../../src/database/internals.js'

const chunk = 100_000

export function tenantdbDataset(ctx: BenchContext, count: number): Promise<Database> {
  return ctx.shared(`tenantdb-${count}`, async () => {
    ctx.progress.step(`loading ${count} rows into tenantdb`)
    const db = await openKv(ctx.scratch(`tenantdb-${count}`))
    await loadRows(db, rows, count, chunk)
    await internalsOf(db).engine.checkpoint()
    return db
  }, (db) => db.close())
}

export function sqliteDataset(ctx: BenchContext, count: number): Promise<SqliteKv> {
  return ctx.shared(`sqlite-${count}`, async () => {
    ctx.progress.step(`loading ${count} rows into sqlite`)
    const db = new SqliteKv(ctx.scratch(`sqlite-${count}`), 'NORMAL')
    for (let from = 0; from < count; from += chunk) db.insertMany(rows(from, Math.min(chunk, count - from)))
    return db
  }, (db) => db.close())
}

export function lmdbDataset(ctx: BenchContext, count: number): Promise<LmdbKv> {
  return ctx.shared(`lmdb-${count}`, async () => {
    ctx.progress.step(`loading ${count} rows into lmdb`)
    const db = new LmdbKv(ctx.scratch(`lmdb-${count}`))
    for (let from = 0; from < count; from += chunk) await db.putMany(rows(from, Math.min(chunk, count - from)))
    return db
  }, (db) => db.close())
}
