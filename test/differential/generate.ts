// Random rows and random cases (reads, writes, atomic blocks) in the model of
// model.ts. Value domains are small so equalities, groups and ties hit often;
// every expression is type-correct for Eel's checker, and nothing generated may
// fail unless the case is marked `risky` (the SQL side then predicts the failure)
// or is a write whose constraint violation SQLite reports too.
import type { Rng } from './random.js'
import { conditional, durationExpr, durationLit, guardedDivision, lookupRead, patternAtom, returning, rounding, stringFn, timeAtom, timeExpr, timePart } from './generate-more.js'
import { fields, isNumeric, primary, type AggFn, type AggItem, type Case, type Col, type CompareOp, type Expr, type Fn, type Insert, type Pipeline, type Row, type Scalar, type Stage, type Stmt, type Ty } from './model.js'

/** Mixed case, accents (composed and not), CJK, astral characters, shared prefixes,
 *  the U+FFFF / U+10000 pair (UTF-16 order differs from code-point order there),
 *  and characters the Eel lexer must escape. */
export const stringPool: readonly string[] = [
  '', 'a', 'A', 'ab', 'aB', 'abc', 'Abc', 'abd', 'b', 'B', 'ba', 'app', 'apple', 'Apple', 'apples', 'z', 'Z',
  'é', 'É', 'e\u0301', 'ß', 'straße', '日本', '日本語', '本', '😀', '😀a', 'a😀', '\uffff', '\u{10000}', '\ud7ff',
  '\ue000', 'say "hi"', 'back\\slash', 'tab\tx', 'line\nbreak', '#hash', 'ǅ', 'İ', 'ﬁ', ' a', 'a ',
]

/** Strings that only appear in conditions: near misses of the stored ones. */
const probeStrings: readonly string[] = ['aa', 'abb', 'c', 'Ap', 'ap', 'é ', '日', '😁', '\u{10001}', 'zz', ' ']

/** Fractions (exact and not), negatives, and whole floats that equal ints. */
export const floatPool: readonly number[] = [-2.5, -1, -0.75, -0.1, 0, 0.1, 0.25, 0.5, 1, 1.5, 2, 2.2, 3.75, 1 / 3, 10.125, -3]

/**
 * Instants in several spellings: with a zone, an offset, a date alone, a time
 * without a zone (UTC); several spell the same instant as 2024-01-01T00:00:00Z.
 * Before 1970 too (negative ms).
 */
export const timestampPool: readonly string[] = [
  '2024-01-01T00:00:00Z', '2024-01-01T02:00:00+02:00', '2024-01-01', '2024-01-01T00:00', '2024-01-01T00:00:00.001Z',
  '2023-12-31T23:59:59.999Z', '2024-01-01T12:30:00Z', '2024-02-29T08:00:00-05:00', '1969-12-31T23:59:59Z',
  '1900-06-15T00:00:00Z', '2000-01-01T00:00:00Z', '2038-01-19T03:14:08Z',
]

const probeTimestamps: readonly string[] = ['2024-01-01T06:00:00Z', '1970-01-01', '2100-01-01T00:00:00+14:00', '2023-12-31T23:00:00-01:00']

const big = 3000000000000000 // 3e15: × 4 is beyond 2^53, × 3 is not

export function genRow(rng: Rng, id: number, u: Scalar): Row {
  const maybe = <T extends Scalar>(make: () => T): T | null => (rng.chance(0.15) ? null : make())
  return {
    id,
    a: maybe(() => rng.int(-5, 5)),
    b: maybe(() => rng.int(-3, 8)),
    f: maybe(() => rng.pick(floatPool)),
    s: maybe(() => rng.pick(stringPool)),
    t: maybe(() => rng.pick(stringPool)),
    flag: maybe(() => rng.chance(0.5)),
    u,
    ts: maybe(() => rng.pick(timestampPool)),
  }
}

/** `count` rows with distinct ids (negatives included) and unique-or-null `u`. */
export function genRows(rng: Rng, count: number): Row[] {
  const ids = rng.sample(range(-count, 3 * count), count).sort((x, y) => x - y)
  const us = rng.shuffle(range(0, 4 * count))
  return ids.map((id, i) => genRow(rng, id, rng.chance(0.5) ? null : (us[i] as number)))
}

function range(lo: number, hi: number): number[] {
  return Array.from({ length: hi - lo + 1 }, (_, i) => lo + i)
}

/** What the generator needs to know of the current table. */
export interface TableInfo {
  ids: number[]
  us: number[]
}

const baseCols: readonly Col[] = fields

export class CaseGen {
  readonly rng: Rng
  readonly table: TableInfo
  readonly params: Record<string, Scalar | Row[]> = {}
  readonly tags = new Set<string>()
  isRisky = false
  /**
   * Set while generating over derived rows (after select, aggregate, distinct): their
   * numbers may be large already, so no arithmetic on them (no overflow by accident).
   */
  derived = false
  #params = 0
  #aggregates = 0

  constructor(rng: Rng, table: TableInfo) {
    this.rng = rng
    this.table = table
  }

  finish(stmts: Stmt[]): Case {
    return { stmts, params: this.params, tags: this.tags, risky: this.isRisky }
  }

  // ---- constants ----

  param(v: Scalar, ty: Ty): Expr {
    const name = `p${this.#params++}`
    this.params[name] = v
    this.tags.add('param')
    return { k: 'param', name, v, ty }
  }

  /** A value of `ty` like the stored ones (or a near miss), for `field op constant`. */
  value(ty: Ty, field?: string): Scalar {
    const r = this.rng
    switch (ty) {
      case 'int':
        if (field === primary && this.table.ids.length > 0 && r.chance(0.7)) return r.pick(this.table.ids)
        if (field === 'u' && this.table.us.length > 0 && r.chance(0.7)) return r.pick(this.table.us)
        return r.int(-6, 9)
      case 'float': return r.chance(0.7) ? r.pick(floatPool) : r.int(-12, 12) / 4
      case 'string': return r.chance(0.75) ? r.pick(stringPool) : r.pick(probeStrings)
      case 'bool': return r.chance(0.5)
      case 'timestamp': return r.chance(0.8) ? r.pick(timestampPool) : r.pick(probeTimestamps)
      case 'duration': return r.int(0, 100_000)
    }
  }

  /** A constant: a literal, a parameter, or a little constant arithmetic. */
  constant(ty: Ty, field?: string): Expr {
    const v = this.value(ty, field)
    if (ty === 'timestamp') return lit(v, ty) // an ISO string in Eel, ms in SQLite: no parameter
    const r = this.rng.next()
    if (r < 0.15) return this.param(v, ty)
    if (r < 0.22 && ty === 'int' && typeof v === 'number') {
      const k = this.rng.int(1, 3)
      return { k: 'arith', op: '+', l: lit(v - k, 'int'), r: lit(k, 'int'), ty: 'int' }
    }
    return lit(v, ty)
  }

  // ---- expressions ----

  colsOf(cols: readonly Col[], pred: (ty: Ty) => boolean): Col[] {
    return cols.filter((c) => pred(c.ty))
  }

  /** A numeric expression that cannot fail. `int` restricts it to int-typed ones. */
  num(cols: readonly Col[], depth: number, int = false): Expr {
    const r = this.rng
    // Only small-valued fields in arithmetic: a, b, f (ids and u reach thousands).
    const small = (c: Col) => this.derived || (c.name !== primary && c.name !== 'u')
    const numCols = cols.filter((c) => (int ? c.ty === 'int' : isNumeric(c.ty)) && small(c))
    if (this.derived) depth = 0
    const strCols = this.colsOf(cols, (ty) => ty === 'string')
    const base = !this.derived && cols.some((c) => c.name === 'ts')
    const choice = r.weighted<string>([
      ['field', numCols.length > 0 ? 5 : 0], ['lit', 2],
      ['arith', depth > 0 ? 3 : 0], ['div', depth > 0 && !int ? 1 : 0], ['mod', depth > 0 ? 1 : 0],
      ['neg', depth > 0 ? 0.7 : 0], ['abs', depth > 0 ? 0.7 : 0], ['coalesce', depth > 0 ? 1 : 0],
      ['len', depth > 0 && strCols.length > 0 ? 0.7 : 0], ['round', depth > 0 ? 0.5 : 0],
      ['part', depth > 0 && base ? 0.6 : 0], ['floor', depth > 0 ? 0.4 : 0], ['if', depth > 0 ? 0.5 : 0],
      ['guard', depth > 0 && base && !int ? 0.3 : 0],
    ])
    switch (choice) {
      case 'part': return timePart(this)
      case 'floor': return rounding(this, this.num(cols, depth - 1))
      case 'if': {
        const a = this.num(cols, depth - 1, int)
        return conditional(this, cols, a, this.num(cols, depth - 1, a.ty === 'int'))
      }
      case 'guard': return guardedDivision(this, cols)
      case 'field': {
        const c = r.pick(numCols)
        return { k: 'field', name: c.name, ty: c.ty }
      }
      case 'arith': {
        const op = r.pick(['+', '-', '*'] as const)
        const a = this.num(cols, depth - 1, int)
        const b = op === '*' && r.chance(0.5) ? this.numLit(int) : this.num(cols, depth - 1, int)
        return arith(op, a, b)
      }
      case 'div': {
        const divisor = r.chance(0.7) ? lit(r.pick([1, 2, 3, 4, -2, 7]), 'int') : lit(r.pick([0.5, 2.5, -0.25]), 'float')
        return { k: 'arith', op: '/', l: this.num(cols, depth - 1), r: divisor, ty: 'float' }
      }
      case 'mod': {
        const left = this.num(cols, depth - 1, int)
        const divisor = int || r.chance(0.7) ? lit(r.pick([2, 3, 5, -3]), 'int') : lit(r.pick([1.5, 0.25]), 'float')
        return arith('%', left, divisor)
      }
      case 'neg': {
        const e = this.num(cols, depth - 1, int)
        return { k: 'neg', e, ty: e.ty }
      }
      case 'abs': {
        const e = this.num(cols, depth - 1, int)
        return { k: 'call', fn: 'abs', args: [e], ty: e.ty }
      }
      case 'coalesce': {
        const first = this.num(cols, depth - 1, int)
        // Same-typed arguments: Eel types coalesce by its first argument.
        const same = first.ty === 'int'
        const args = [first, this.num(cols, depth - 1, same)]
        if (r.chance(0.6)) args.push(lit(r.int(-2, 3), same ? 'int' : 'float'))
        if (r.chance(0.1)) args.splice(1)
        return { k: 'call', fn: 'coalesce', args, ty: first.ty }
      }
      case 'len':
        return { k: 'call', fn: 'len', args: [this.str(cols, depth - 1)], ty: 'int' }
      case 'round': {
        const e = this.num(cols, depth - 1)
        if (int || r.chance(0.5)) return { k: 'call', fn: 'round', args: [e], ty: 'int' }
        return { k: 'call', fn: 'round', args: [e, lit(r.int(0, 2), 'int')], ty: 'float' }
      }
      default:
        return this.numLit(int)
    }
  }

  numLit(int = false): Expr {
    const ty: Ty = int || this.rng.chance(0.6) ? 'int' : 'float'
    return lit(this.value(ty), ty)
  }

  /** A numeric expression that may fail in Eel: division or remainder by a value that can be 0, int or float overflow. */
  risky(cols: readonly Col[]): Expr {
    const r = this.rng
    this.isRisky = true
    this.tags.add('error-check')
    const choice = r.pick(['div', 'mod', 'overflow', 'float-overflow', 'nested'] as const)
    switch (choice) {
      case 'div': return { k: 'arith', op: '/', l: this.num(cols, 1), r: this.num(cols, 1), ty: 'float' }
      case 'mod': return arith('%', this.num(cols, 1, true), this.num(cols, 1, true))
      case 'overflow': return arith('*', this.num(cols, 0, true), lit(big, 'int'))
      // Beyond the float range when |x| > 1.79: SQLite gives Inf, Eel must fail.
      case 'float-overflow':
        this.tags.add('float-overflow')
        return { k: 'arith', op: r.pick(['*', '/'] as const), l: this.num(cols, 0), r: lit(r.pick([1e308, 1e-308]), 'float'), ty: 'float' }
      case 'nested': {
        const inner: Expr = { k: 'arith', op: '/', l: this.num(cols, 0), r: this.num(cols, 0), ty: 'float' }
        return r.chance(0.5)
          ? { k: 'call', fn: 'coalesce', args: [inner, lit(0, 'float')], ty: 'float' }
          : arith('+', inner, this.num(cols, 0))
      }
    }
  }

  /**
   * `sum` of int products near 2^53: some rows overflow on their own, some groups
   * only in their total. Eel must fail on both (an int beyond ±2^53 is an error).
   */
  riskyAggregate(): Pipeline {
    const r = this.rng
    this.isRisky = true
    this.tags.add('error-check')
    this.tags.add('sum-overflow')
    const stages: Stage[] = [...this.wheres(baseCols)]
    if (r.chance(0.3)) stages.push(...this.paging())
    const x = field({ name: r.pick(['a', 'b']), ty: 'int' })
    const arg = arith('*', { k: 'call', fn: 'abs', args: [x], ty: 'int' }, lit(1000000000000000, 'int'))
    const items: AggItem[] = [{ name: 'total', fn: 'sum', arg }]
    if (r.chance(0.5)) items.push({ name: 'n', fn: 'count', arg: null })
    stages.push({ k: 'aggregate', items, by: r.chance(0.5) ? [] : [r.pick(['flag', 's', 'b'])] })
    return { kind: 'pipeline', stages }
  }

  str(cols: readonly Col[], depth: number): Expr {
    const r = this.rng
    const strCols = this.colsOf(cols, (ty) => ty === 'string')
    const choice = r.weighted<string>([
      ['field', strCols.length > 0 ? 5 : 0], ['lit', 2], ['case', depth > 0 ? 1.5 : 0],
      ['coalesce', depth > 0 ? 1 : 0], ['concat', depth > 0 ? 0.7 : 0],
      ['fn', depth > 0 ? 0.8 : 0], ['if', depth > 0 ? 0.3 : 0],
    ])
    switch (choice) {
      case 'fn': return stringFn(this, cols, depth)
      case 'if': return conditional(this, cols, this.str(cols, depth - 1), this.str(cols, depth - 1))
      case 'field': {
        const c = r.pick(strCols)
        return { k: 'field', name: c.name, ty: 'string' }
      }
      case 'case':
        return { k: 'call', fn: r.pick(['lower', 'upper'] as const), args: [this.str(cols, depth - 1)], ty: 'string' }
      case 'coalesce': {
        const args = [this.str(cols, depth - 1), this.str(cols, depth - 1)]
        if (r.chance(0.5)) args.push(lit(this.value('string'), 'string'))
        return { k: 'call', fn: 'coalesce', args, ty: 'string' }
      }
      case 'concat':
        return { k: 'arith', op: '+', l: this.str(cols, depth - 1), r: this.str(cols, depth - 1), ty: 'string' }
      default:
        return lit(this.value('string'), 'string')
    }
  }

  /** A value of type `ty` (for select items, sort keys and aggregate arguments). */
  valueOf(ty: Ty, cols: readonly Col[], depth: number): Expr {
    switch (ty) {
      case 'int': return this.num(cols, depth, true)
      case 'float': return this.num(cols, depth)
      case 'string': return this.str(cols, depth)
      case 'bool': {
        const boolCols = this.colsOf(cols, (t) => t === 'bool')
        if (boolCols.length > 0 && this.rng.chance(0.5)) return field(this.rng.pick(boolCols))
        return this.pred(cols, Math.min(depth, 1))
      }
      case 'timestamp': {
        // A field, never a literal: an ISO string is an instant only next to a
        // timestamp value; two literals compare as the strings they are.
        if (!this.derived && cols.some((c) => c.name === 'ts') && this.rng.chance(0.3)) return timeExpr(this)
        const tsCols = this.colsOf(cols, (t) => t === 'timestamp')
        if (tsCols.length === 0) throw new Error('a timestamp expression needs a timestamp column')
        return field(this.rng.pick(tsCols))
      }
      case 'duration': {
        if (!this.derived && cols.some((c) => c.name === 'ts')) return durationExpr(this)
        const durations = this.colsOf(cols, (t) => t === 'duration')
        return durations.length > 0 && this.rng.chance(0.7) ? field(this.rng.pick(durations)) : durationLit(this.rng)
      }
    }
  }

  /** A condition, nested up to `depth` levels of and/or/not. */
  pred(cols: readonly Col[], depth: number): Expr {
    const r = this.rng
    if (depth > 0 && r.chance(0.55)) {
      const choice = r.weighted<string>([['and', 3], ['or', 3], ['not', 1.5], ['paren', 0.5]])
      this.tags.add('logic')
      if (choice === 'not') return { k: 'not', e: this.pred(cols, depth - 1), ty: 'bool' }
      if (choice === 'paren') return { k: 'paren', e: this.pred(cols, depth - 1), ty: 'bool' }
      return { k: 'logic', op: choice as 'and' | 'or', l: this.pred(cols, depth - 1), r: this.pred(cols, depth - 1), ty: 'bool' }
    }
    return this.atom(cols)
  }

  atom(cols: readonly Col[]): Expr {
    const r = this.rng
    const numCols = this.colsOf(cols, isNumeric)
    const strCols = this.colsOf(cols, (ty) => ty === 'string')
    const boolCols = this.colsOf(cols, (ty) => ty === 'bool')
    const tsCols = this.colsOf(cols, (ty) => ty === 'timestamp')
    const choice = r.weighted<string>([
      ['ts', tsCols.length > 0 ? 1.5 : 0], ['num', numCols.length > 0 ? 4 : 0], ['num2', numCols.length > 0 ? 1.5 : 0], ['str', strCols.length > 0 ? 3 : 0],
      ['bool', boolCols.length > 0 ? 1 : 0], ['null', 2], ['in', numCols.length + strCols.length > 0 ? 2 : 0],
      ['bare', boolCols.length > 0 ? 0.5 : 0], ['fn', strCols.length > 0 ? 1 : 0], ['const', 0.15],
      ['pattern', strCols.length > 0 ? 1 : 0], ['time', !this.derived && cols.some((c) => c.name === 'ts') ? 1 : 0],
    ])
    switch (choice) {
      case 'pattern': return patternAtom(this, cols)
      case 'time': return timeAtom(this)
      case 'num': {
        // field op constant, or an expression op constant, either way round.
        this.tags.add('compare')
        const c = r.pick(numCols)
        const left = r.chance(0.7) ? field(c) : this.num(cols, 2)
        const right = this.constant(left.ty === 'int' && r.chance(0.8) ? 'int' : 'float', c.name)
        return r.chance(0.2) ? cmp(flip(this.op()), right, left) : cmp(this.op(), left, right)
      }
      case 'ts': {
        // A timestamp against an ISO-8601 string: compared as instants.
        this.tags.add('timestamp')
        const left = field(r.pick(tsCols))
        const right = this.constant('timestamp')
        return r.chance(0.2) ? cmp(flip(this.op()), right, left) : cmp(this.op(), left, right)
      }
      case 'num2': {
        // Two fields (or expressions) compared with each other.
        this.tags.add('compare-fields')
        return cmp(this.op(), this.num(cols, r.int(0, 1)), this.num(cols, r.int(0, 1)))
      }
      case 'str': {
        this.tags.add('compare')
        const left = r.chance(0.7) ? field(r.pick(strCols)) : this.str(cols, 1)
        const right = r.chance(0.2) ? this.str(cols, 0) : this.constant('string')
        return cmp(this.op(), left, right)
      }
      case 'bool': {
        this.tags.add('compare')
        const left = field(r.pick(boolCols))
        const right = r.chance(0.2) ? field(r.pick(boolCols)) : r.chance(0.8) ? lit(r.chance(0.5), 'bool') : lit(null, 'bool')
        return cmp(r.pick(['==', '!='] as const), left, right)
      }
      case 'null': {
        this.tags.add('null-check')
        const c = r.pick(cols)
        const e = r.chance(0.8) ? field(c) : this.valueOf(c.ty, cols, 1)
        const nul = lit(null, c.ty)
        const op = r.pick(['==', '!='] as const)
        return r.chance(0.2) ? cmp(op, nul, e) : cmp(op, e, nul)
      }
      case 'in': {
        this.tags.add('in')
        const pool = [...numCols, ...strCols, ...tsCols]
        const c = r.pick(pool)
        const left = r.chance(0.8) ? field(c) : this.valueOf(c.ty, cols, 1)
        const itemTy: Ty = c.ty === 'float' ? r.pick(['int', 'float'] as const) : c.ty
        const items: Expr[] = []
        const n = r.weighted([[0, 0.5], [1, 2], [2, 3], [3, 2], [5, 1]] as const)
        for (let i = 0; i < n; i += 1) items.push(r.chance(0.9) || itemTy === 'timestamp' ? lit(this.value(itemTy, c.name), itemTy) : this.param(this.value(itemTy, c.name), itemTy))
        if (r.chance(0.3)) items.splice(r.int(0, items.length), 0, lit(null, itemTy))
        if (r.chance(0.1) && c.ty !== 'timestamp') items.push(c.ty === 'string' ? this.str(cols, 0) : this.num(cols, 0))
        return { k: 'in', e: left, items, ty: 'bool' }
      }
      case 'bare':
        this.tags.add('bool-field')
        return field(r.pick(boolCols))
      case 'fn': {
        this.tags.add('functions')
        const fn: Fn = r.pick(['contains', 'starts_with'] as const)
        const needle = r.pick(['a', 'ap', 'A', '', 'é', '日', '😀', 'b', 'pp'])
        return { k: 'call', fn, args: [this.str(cols, 1), r.chance(0.2) ? this.param(needle, 'string') : lit(needle, 'string')], ty: 'bool' }
      }
      default:
        return lit(r.chance(0.5), 'bool')
    }
  }

  op(): CompareOp {
    return this.rng.pick(['==', '!=', '<', '<=', '>', '>='] as const)
  }

  /**
   * Conditions the planner can use: `field op constant` conjuncts on indexed fields
   * and the primary key (equalities on index prefixes, ranges, in-lists on the key).
   */
  sargable(cols: readonly Col[]): Expr {
    const r = this.rng
    this.tags.add('index-shaped')
    const shapes: string[][] = [['a'], ['s'], ['s', 'b'], ['f'], ['flag'], ['flag', 'a'], ['id'], ['u'], ['a', 'b'], ['ts']]
    const chosen = r.pick(shapes)
    const conjuncts: Expr[] = []
    chosen.forEach((name, i) => {
      const c = cols.find((x) => x.name === name) as Col
      const last = i === chosen.length - 1
      if (name === primary && r.chance(0.3)) {
        const items = Array.from({ length: r.int(0, 4) }, () => lit(this.value('int', primary), 'int'))
        if (r.chance(0.2)) items.push(lit(null, 'int'))
        conjuncts.push({ k: 'in', e: field(c), items, ty: 'bool' })
        return
      }
      const op: CompareOp = !last || r.chance(0.4) ? '==' : r.pick(['<', '<=', '>', '>='] as const)
      const value = r.chance(0.06) && op === '==' ? lit(null, c.ty) : this.constant(c.ty === 'float' && r.chance(0.3) ? 'int' : c.ty, name)
      conjuncts.push(r.chance(0.2) ? cmp(flip(op), value, field(c)) : cmp(op, field(c), value))
      // A second bound on the same field: a closed (or empty) range.
      if (last && op !== '==' && r.chance(0.4)) {
        const other: CompareOp = op === '<' || op === '<=' ? r.pick(['>', '>='] as const) : r.pick(['<', '<='] as const)
        conjuncts.push(cmp(other, field(c), this.constant(c.ty, name)))
      }
    })
    if (r.chance(0.3)) conjuncts.push(this.pred(cols, 1))
    return r.shuffle(conjuncts).reduce((l, rr) => ({ k: 'logic', op: 'and', l, r: rr, ty: 'bool' }))
  }

  // ---- stages ----

  wheres(cols: readonly Col[]): Stage[] {
    const n = this.rng.weighted([[0, 2], [1, 5.5], [2, 2]] as const)
    const out: Stage[] = []
    for (let i = 0; i < n; i += 1) {
      this.tags.add('where')
      out.push({ k: 'where', p: this.rng.chance(0.5) ? this.sargable(cols) : this.pred(cols, this.rng.int(0, 3)) })
    }
    return out
  }

  sort(cols: readonly Col[]): Stage {
    const r = this.rng
    this.tags.add('sort')
    const n = r.weighted([[1, 5], [2, 3], [3, 1.5]] as const)
    const keys = Array.from({ length: n }, () => {
      const c = r.pick(cols)
      const e = r.chance(0.75) ? field(c) : this.valueOf(r.pick(['int', 'float', 'string'] as const), cols, 1)
      if (e.k !== 'field') this.tags.add('sort-expr')
      const desc = r.chance(0.5)
      return { e, desc, explicitAsc: !desc && r.chance(0.3) }
    })
    return { k: 'sort', keys }
  }

  count(): Expr {
    const r = this.rng
    const n = r.weighted([[0, 1], [1, 3], [3, 4], [10, 3], [50, 1], [5000, 0.5]] as const)
    const v = n === 3 || n === 10 ? r.int(1, n) : n
    const roll = r.next()
    if (roll < 0.15) return this.param(v, 'int')
    if (roll < 0.22 && v > 1) return arith('+', lit(v - 1, 'int'), lit(1, 'int'))
    return lit(v, 'int')
  }

  paging(): Stage[] {
    const r = this.rng
    const out: Stage[] = []
    if (r.chance(0.4)) out.push({ k: 'skip', n: this.count() })
    if (r.chance(0.75) || out.length === 0) out.push({ k: 'take', n: this.count() })
    if (r.chance(0.1)) out.reverse()
    this.tags.add(out.some((s) => s.k === 'skip') ? 'skip' : 'take')
    if (out.some((s) => s.k === 'take')) this.tags.add('take')
    return out
  }

  select(cols: readonly Col[], riskyItem = false): Stage & { k: 'select' } {
    const r = this.rng
    this.tags.add('select')
    const items: Array<{ name: string; e: Expr; bare: boolean }> = []
    const n = r.int(1, 5)
    for (let i = 0; i < n; i += 1) {
      if (r.chance(0.3)) {
        const c = r.pick(cols)
        if (!items.some((it) => it.name === c.name)) items.push({ name: c.name, e: field(c), bare: true })
        continue
      }
      const timed = !this.derived && cols.some((c) => c.name === 'ts')
      const ty = r.weighted<Ty>([['int', 3], ['float', 2.5], ['string', 2], ['bool', 1], ['timestamp', timed ? 0.7 : 0], ['duration', timed ? 0.7 : 0]])
      const e = this.valueOf(ty, cols, r.int(1, 3))
      if (ty !== 'bool') this.tags.add(ty === 'string' ? 'string-expr' : 'arithmetic')
      if (e.k === 'call' || JSON.stringify(e).includes('"k":"call"')) this.tags.add('functions')
      items.push({ name: `c${i}`, e, bare: false })
    }
    if (riskyItem) items.splice(r.int(0, items.length), 0, { name: 'risk', e: this.risky(cols), bare: false })
    return { k: 'select', items }
  }

  aggregate(cols: readonly Col[]): Stage {
    const r = this.rng
    const groupable = cols.filter((c) => c.ty !== 'float' || r.chance(0.3))
    const by = r.sample(groupable, r.weighted([[0, 1], [1, 2.5], [2, 1.2]] as const)).map((c) => c.name)
    this.tags.add(by.length === 0 ? 'aggregate-total' : 'aggregate-grouped')
    const items: AggItem[] = []
    const n = r.int(1, 4)
    for (let i = 0; i < n; i += 1) {
      const fn: AggFn = r.weighted<AggFn>([['count', 2], ['count_distinct', 1.5], ['sum', 2], ['min', 2], ['max', 2], ['avg', 2]])
      let arg: Expr | null
      if (fn === 'count_distinct') {
        this.tags.add('count_distinct')
        arg = r.chance(0.7) ? this.fieldOr(cols, () => true, () => this.num(cols, 1)) : this.valueOf(r.pick(['int', 'string', 'bool'] as const), cols, 1)
      } else if (fn === 'count') arg = r.chance(0.5) ? this.valueOf(r.pick(['int', 'string', 'bool'] as const), cols, 1) : null
      else if (fn === 'sum' || fn === 'avg') arg = r.chance(0.7) ? this.fieldOr(cols, isNumeric, () => this.num(cols, 1)) : this.num(cols, 2)
      else arg = r.chance(0.7) ? this.fieldOr(cols, () => true, () => this.num(cols, 1)) : this.valueOf(r.pick(['int', 'float', 'string', 'bool'] as const), cols, 1)
      items.push({ name: `g${this.#aggregates}_${i}`, fn, arg })
    }
    this.#aggregates += 1
    return { k: 'aggregate', items, by }
  }

  fieldOr(cols: readonly Col[], pred: (ty: Ty) => boolean, make: () => Expr): Expr {
    const matching = cols.filter((c) => pred(c.ty))
    return matching.length > 0 ? field(this.rng.pick(matching)) : make()
  }

  distinct(cols: readonly Col[]): Stage {
    this.tags.add('distinct')
    const chosen = this.rng.sample(cols.filter((c) => c.name !== primary), this.rng.int(1, 3))
    return { k: 'distinct', fields: (chosen.length > 0 ? chosen : [cols[0] as Col]).map((c) => c.name) }
  }

  /** The columns after `stage`, as Eel's checker computes them. */
  colsAfter(cols: readonly Col[], stage: Stage): readonly Col[] {
    switch (stage.k) {
      case 'select': return stage.items.map((i) => ({ name: i.name, ty: i.e.ty }))
      case 'count': return [{ name: 'count', ty: 'int' }]
      case 'aggregate': return [
        ...stage.by.map((b) => cols.find((c) => c.name === b) as Col),
        ...stage.items.map((i): Col => {
          const ty: Ty = i.fn === 'count' || i.fn === 'count_distinct' ? 'int' : i.fn === 'avg' ? 'float' : (i.arg as Expr).ty
          return i.fn === 'avg' || (i.fn === 'sum' && ty === 'float') ? { name: i.name, ty, inexact: true } : { name: i.name, ty }
        }),
      ]
      case 'distinct': return stage.fields.map((f) => cols.find((c) => c.name === f) as Col)
      default: return cols
    }
  }

  // ---- statements ----

  read(): Pipeline {
    const r = this.rng
    if (r.chance(0.12)) return lookupRead(this)
    const stages: Stage[] = []
    if (r.chance(0.06) && this.table.ids.length > 0) {
      this.tags.add('get')
      stages.push({ k: 'get', key: r.chance(0.8) ? lit(r.pick(this.table.ids), 'int') : this.param(r.int(-5, 5), 'int') })
    } else {
      stages.push(...this.wheres(baseCols))
    }
    if (r.chance(0.45)) stages.push(this.sort(baseCols))
    if (r.chance(0.08)) {
      // A second sort: stable, so ties keep the first sort's order.
      this.tags.add('sort-twice')
      stages.push(this.sort(baseCols))
    }
    if (r.chance(0.35)) stages.push(...this.paging())
    if (r.chance(0.12)) {
      // A where that is not at the head: it filters, it must not drive the plan.
      this.tags.add('late-where')
      stages.push({ k: 'where', p: r.chance(0.5) ? this.sargable(baseCols) : this.pred(baseCols, 2) })
      if (r.chance(0.5)) stages.push(...this.paging())
    }
    const terminal = r.weighted<string>([['rows', 2], ['select', 3.5], ['count', 1], ['aggregate', 2], ['distinct', 1.5]])
    let cols = baseCols
    if (terminal === 'count') {
      this.tags.add('count')
      stages.push({ k: 'count' })
      return { kind: 'pipeline', stages }
    }
    if (terminal !== 'rows') {
      const stage = terminal === 'select' ? this.select(cols) : terminal === 'aggregate' ? this.aggregate(cols) : this.distinct(cols)
      stages.push(stage)
      cols = this.colsAfter(cols, stage)
      this.derived = true
      cols = cols.filter((c) => c.inexact !== true)
      if (cols.length > 0 && r.chance(0.25)) {
        // Stages over the derived rows (without the inexact columns).
        this.tags.add('chained')
        if (r.chance(0.6)) stages.push({ k: 'where', p: this.pred(cols, r.int(0, 2)) })
        if (r.chance(0.6)) stages.push(this.sort(cols))
        if (r.chance(0.5)) stages.push(...this.paging())
        if (r.chance(0.2)) stages.push(r.chance(0.5) ? this.aggregate(cols) : this.distinct(cols))
      }
    }
    return { kind: 'pipeline', stages }
  }

  /** A select that may divide by zero or overflow: both sides must agree on failing. */
  riskyRead(): Pipeline {
    const stages: Stage[] = [...this.wheres(baseCols)]
    if (this.rng.chance(0.3)) stages.push(this.sort(baseCols))
    if (this.rng.chance(0.3)) stages.push(...this.paging())
    stages.push(this.select(baseCols, true))
    return { kind: 'pipeline', stages }
  }

  /** The stages that choose the rows of an update or delete. */
  chooseRows(narrow: boolean): Stage[] {
    const r = this.rng
    const stages: Stage[] = []
    if (r.chance(0.12) && this.table.ids.length > 0) {
      this.tags.add('get')
      stages.push({ k: 'get', key: lit(r.pick(this.table.ids), 'int') })
      return stages
    }
    stages.push(...this.wheres(baseCols))
    if (narrow && stages.length === 0) stages.push({ k: 'where', p: this.sargable(baseCols) })
    if (r.chance(narrow ? 0.75 : 0.2)) {
      stages.push(this.sort(baseCols))
      if (r.chance(0.3)) stages.push({ k: 'skip', n: lit(r.int(0, 5), 'int') })
      stages.push({ k: 'take', n: lit(r.int(0, 6), 'int') })
      this.tags.add('take-before-write')
      if (r.chance(0.15)) {
        this.tags.add('late-where')
        stages.push({ k: 'where', p: this.pred(baseCols, 1) })
      }
    }
    return stages
  }

  update(): Pipeline {
    const r = this.rng
    this.tags.add('update')
    const stages = this.chooseRows(false)
    const names = r.sample(['a', 'b', 'f', 's', 't', 'flag', 'u', 'ts'], r.int(1, 3)).filter((n) => n !== 'u' || r.chance(0.3))
    if (names.length === 0) names.push('a')
    const set = names.map((name) => ({ name, e: this.assignment(name) }))
    const back = returning(this)
    stages.push(back === undefined ? { k: 'update', set } : { k: 'update', set, returning: back })
    return { kind: 'pipeline', stages }
  }

  /** A type-correct value for a field that stays small over many updates. */
  assignment(name: string): Expr {
    const r = this.rng
    const a = field({ name: 'a', ty: 'int' })
    const b = field({ name: 'b', ty: 'int' })
    const f = field({ name: 'f', ty: 'float' })
    const s = field({ name: 's', ty: 'string' })
    const t = field({ name: 't', ty: 'string' })
    const flag = field({ name: 'flag', ty: 'bool' })
    const int = (v: number) => lit(v, 'int')
    switch (name) {
      case 'a': case 'b': return r.pick<() => Expr>([
        () => int(r.int(-5, 8)), () => lit(null, 'int'), () => arith('+', a, int(1)), () => arith('-', b, a),
        () => ({ k: 'call', fn: 'abs', args: [b], ty: 'int' }),
        () => ({ k: 'call', fn: 'coalesce', args: [a, b, int(0)], ty: 'int' }),
        () => ({ k: 'call', fn: 'len', args: [s], ty: 'int' }), () => arith('%', a, int(3)), () => ({ k: 'neg', e: b, ty: 'int' }),
        () => ({ k: 'call', fn: 'round', args: [f], ty: 'int' }),
      ])()
      case 'f': return r.pick<() => Expr>([
        () => lit(r.pick(floatPool), 'float'), () => lit(null, 'float'), () => arith('+', f, lit(0.5, 'float')),
        () => ({ k: 'arith', op: '/', l: a, r: int(4), ty: 'float' }), () => ({ k: 'neg', e: f, ty: 'float' }),
        () => ({ k: 'call', fn: 'coalesce', args: [f, lit(0.25, 'float')], ty: 'float' }),
        () => (r.chance(0.5) ? { k: 'call', fn: 'round', args: [f, int(1)], ty: 'float' } : { k: 'call', fn: 'round', args: [f], ty: 'int' }),
        () => int(r.int(-3, 3)),
      ])()
      case 's': case 't': return r.pick<() => Expr>([
        () => lit(r.pick(stringPool), 'string'), () => lit(null, 'string'), () => ({ k: 'call', fn: 'lower', args: [t], ty: 'string' }),
        () => ({ k: 'call', fn: 'upper', args: [s], ty: 'string' }), () => (name === 's' ? t : s),
        () => ({ k: 'call', fn: 'coalesce', args: [s, t, lit('z', 'string')], ty: 'string' }),
        () => arith('+', s, lit('!', 'string')),
      ])()
      case 'flag': return r.pick<() => Expr>([
        () => lit(r.chance(0.5), 'bool'), () => lit(null, 'bool'), () => ({ k: 'not', e: flag, ty: 'bool' }),
        () => cmp('>', a, b), () => cmp('==', s, t), () => cmp('==', flag, lit(null, 'bool')),
      ])()
      case 'ts': return r.pick<() => Expr>([
        () => lit(r.pick(timestampPool), 'timestamp'), () => lit(null, 'timestamp'), () => field({ name: 'ts', ty: 'timestamp' }),
      ])()
      case 'u':
        this.tags.add('constraint')
        return r.chance(0.4) ? lit(null, 'int') : lit(r.chance(0.6) && this.table.us.length > 0 ? r.pick(this.table.us) : r.int(10000, 10100), 'int')
      default:
        throw new Error(`no assignment for ${name}`)
    }
  }

  delete(): Pipeline {
    this.tags.add('delete')
    const stages = this.chooseRows(true)
    const back = returning(this)
    stages.push(back === undefined ? { k: 'delete' } : { k: 'delete', returning: back })
    return { kind: 'pipeline', stages }
  }

  /** New rows; sometimes with a taken primary key or unique value, which must fail on both sides. */
  insert(kind: 'insert' | 'upsert'): Insert {
    const r = this.rng
    this.tags.add(kind)
    // A small table is refilled in bulk.
    const n = this.table.ids.length < 40 ? 20 : r.weighted([[1, 4], [2, 2], [3, 1.5], [20, 0.3]] as const)
    const taken = new Set(this.table.ids)
    const rows: Row[] = []
    for (let i = 0; i < n; i += 1) {
      let id: number
      if (kind === 'upsert' && this.table.ids.length > 0 && r.chance(0.6)) id = r.pick(this.table.ids)
      else if (kind === 'insert' && r.chance(0.04) && this.table.ids.length > 0) {
        id = r.pick(this.table.ids) // taken: a constraint violation
        this.tags.add('constraint')
      } else if (kind === 'insert' && r.chance(0.03) && rows.length > 0) {
        id = (rows[0] as Row).id as number // twice in one statement
        this.tags.add('constraint')
      } else {
        do id = r.int(-500, 5000)
        while (taken.has(id))
      }
      taken.add(id)
      let u: Scalar = null
      if (r.chance(0.3)) u = r.int(20000, 90000)
      if (r.chance(0.04) && this.table.us.length > 0) {
        u = r.pick(this.table.us)
        this.tags.add('constraint')
      }
      rows.push(genRow(r, id, u))
    }
    const param = r.chance(0.3) ? `rows${Object.keys(this.params).length}` : null
    if (param !== null) {
      this.params[param] = rows
      this.tags.add('param')
    }
    const back = returning(this)
    return { kind, rows, param, explicitNulls: r.chance(0.3), ...(back === undefined ? {} : { returning: back }) }
  }

  write(): Stmt {
    const kind = this.rng.weighted<string>([['update', 4], ['delete', 2], ['insert', 3], ['upsert', 1.5]])
    if (kind === 'update') return this.update()
    if (kind === 'delete') return this.delete()
    return this.insert(kind as 'insert' | 'upsert')
  }

  /** Two or three statements in one atomic block, at least one of them a write. */
  atomic(): Stmt[] {
    this.tags.add('atomic')
    const n = this.rng.int(2, 3)
    const stmts: Stmt[] = []
    for (let i = 0; i < n; i += 1) {
      this.derived = false
      const last = i === n - 1
      stmts.push(this.rng.chance(0.6) || (last && !stmts.some(writes)) ? this.write() : this.read())
    }
    return stmts
  }
}

export function lit(v: Scalar, ty: Ty): Expr {
  return { k: 'lit', v, ty }
}

export function field(c: Col): Expr {
  return { k: 'field', name: c.name, ty: c.ty }
}

export function cmp(op: CompareOp, l: Expr, r: Expr): Expr {
  return { k: 'cmp', op, l, r, ty: 'bool' }
}

export function arith(op: '+' | '-' | '*' | '%', l: Expr, r: Expr): Expr {
  const ty: Ty = l.ty === 'string' ? 'string' : l.ty === 'int' && r.ty === 'int' ? 'int' : 'float'
  return { k: 'arith', op, l, r, ty }
}

function flip(op: CompareOp): CompareOp {
  return ({ '==': '==', '!=': '!=', '<': '>', '<=': '>=', '>': '<', '>=': '<=' } as const)[op]
}

/** Whether the statement writes (a pipeline ending in update or delete, or an insert). */
export function writes(stmt: Stmt): boolean {
  if (stmt.kind !== 'pipeline') return true
  const sink = stmt.stages.at(-1)?.k
  return sink === 'update' || sink === 'delete'
}
