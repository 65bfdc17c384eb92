// Compares a result of Eel with the SQLite reference. Order matters: the SQL side
// reproduces the order Eel promises (sql.ts), so rows are compared position by
// position; a mismatch says whether the rows only differ in order.
//
// Values: null, booleans and strings exactly; numbers of int-typed columns and
// timestamps (as ms) exactly;
// numbers of float-typed columns within 1e-9 relative (1e-9 absolute near zero),
// since averages and float sums may add in a different order (SQLite sums floats
// with Kahan-Babuska-Neumaier summation).
import type { Col, Scalar, Ty } from './model.js'
import { fromSql } from './sql.js'

export interface Rows {
  columns: string[]
  rows: Scalar[][]
}

export function valuesEqual(x: Scalar, y: Scalar, ty: Ty): boolean {
  if (typeof x === 'number' && typeof y === 'number') {
    if (ty !== 'float') return x === y
    return x === y || Math.abs(x - y) <= 1e-9 * Math.max(1, Math.abs(x), Math.abs(y))
  }
  return x === y
}

/** Eel's rows with timestamps (Dates) as ms since the epoch, as SQLite holds them. */
export function fromEel(result: { columns: string[]; rows: unknown[][] }): Rows {
  return { columns: result.columns, rows: result.rows.map((row) => row.map((v) => (v instanceof Date ? v.getTime() : (v as Scalar)))) }
}

/** SQLite rows in Eel's terms (bool columns' 0/1 as booleans). */
export function fromSqlRows(rows: Scalar[][], cols: readonly Col[]): Scalar[][] {
  return rows.map((row) => row.map((v, i) => fromSql(v, cols[i]?.ty ?? 'int')))
}

export function show(v: unknown): string {
  return JSON.stringify(v, (_k, x: unknown) => (typeof x === 'number' && !Number.isFinite(x) ? String(x) : x))
}

/** null when Eel's rows equal the expected ones; else a description of the first difference. */
export function diffRows(actual: Rows, expected: Rows, cols: readonly Col[]): string | null {
  if (show(actual.columns) !== show(expected.columns)) {
    return `columns differ: eel ${show(actual.columns)}, expected ${show(expected.columns)}`
  }
  const types = cols.map((c) => c.ty)
  const rowEqual = (a: Scalar[], b: Scalar[]) => a.length === b.length && a.every((v, i) => valuesEqual(v, b[i] ?? null, types[i] ?? 'int'))
  const n = Math.max(actual.rows.length, expected.rows.length)
  for (let i = 0; i < n; i += 1) {
    const a = actual.rows[i]
    const b = expected.rows[i]
    if (a !== undefined && b !== undefined && rowEqual(a, b)) continue
    const sameBag = sameMultiset(actual.rows, expected.rows, rowEqual)
    const what = actual.rows.length !== expected.rows.length
      ? `row counts differ: eel ${actual.rows.length}, expected ${expected.rows.length}`
      : sameBag ? 'same rows in a different order' : 'rows differ'
    return `${what}; first difference at row ${i}: eel ${show(a ?? '(none)')}, expected ${show(b ?? '(none)')}`
  }
  return null
}

function sameMultiset(a: Scalar[][], b: Scalar[][], equal: (x: Scalar[], y: Scalar[]) => boolean): boolean {
  if (a.length !== b.length) return false
  const left = [...b]
  for (const row of a) {
    const at = left.findIndex((other) => equal(row, other))
    if (at < 0) return false
    left.splice(at, 1)
  }
  return true
}
