// Generators for the later additions to Eel (generate.ts has the rest): time
// arithmetic and parts, the conditional, patterns, more string and number functions,
// count_distinct, `returning`, and lookups into the `others` collection. Everything is
// type-correct for Eel's checker and cannot fail (durations are never divided by zero,
// `if` guards the division it holds).
import type { CaseGen } from './generate.js'
import { floatPool, lit, field, cmp, stringPool, timestampPool } from './generate.js'
import type { Rng } from './random.js'
import { fields, otherFields, primary, type Col, type Expr, type Pipeline, type Returning, type Row, type Stage, type Ty } from './model.js'

const units: ReadonlyArray<readonly [string, number]> = [['ms', 1], ['s', 1000], ['m', 60_000], ['h', 3_600_000], ['d', 86_400_000], ['w', 604_800_000]]

export function durationLit(rng: Rng): Expr {
  const parts = rng.weighted([[1, 4], [2, 1]] as const)
  let ms = 0
  let text = ''
  for (const [unit, size] of rng.sample(units, parts).sort((a, b) => b[1] - a[1])) {
    const n = rng.int(1, unit === 'ms' ? 999 : 40)
    ms += n * size
    text += `${n}${unit}`
  }
  return { k: 'dur', ms, text, ty: 'duration' }
}

const tsField = (): Expr => field({ name: 'ts', ty: 'timestamp' })
const anchor = (rng: Rng): Expr => ({ k: 'call', fn: 'timestamp', args: [lit(rng.pick(timestampPool), 'string')], ty: 'timestamp' })

/** A timestamp-typed expression over `ts`. */
export function timeExpr(g: CaseGen): Expr {
  const r = g.rng
  g.tags.add('time')
  switch (r.pick(['plus', 'minus', 'trunc', 'anchor'] as const)) {
    case 'plus': {
      const [l, rr] = r.chance(0.8) ? [tsField(), durationLit(r)] : [durationLit(r), tsField()]
      return { k: 'arith', op: '+', l, r: rr, ty: 'timestamp' }
    }
    case 'minus': return { k: 'arith', op: '-', l: tsField(), r: durationLit(r), ty: 'timestamp' }
    case 'trunc': return { k: 'call', fn: 'date_trunc', args: [tsField(), lit(r.pick(['second', 'minute', 'hour', 'day', 'week', 'month', 'year']), 'string')], ty: 'timestamp' }
    case 'anchor': return { k: 'arith', op: '+', l: anchor(r), r: durationLit(r), ty: 'timestamp' }
  }
}

/** A duration-typed expression: a difference of timestamps, literals, their sums and scalings. */
export function durationExpr(g: CaseGen, depth = 1): Expr {
  const r = g.rng
  g.tags.add('duration')
  const choice = r.weighted<string>([['diff', 3], ['lit', 1], ['sum', depth > 0 ? 1 : 0], ['scale', depth > 0 ? 1.5 : 0]])
  switch (choice) {
    case 'diff': return { k: 'arith', op: '-', l: r.chance(0.7) ? tsField() : timeExpr(g), r: anchor(r), ty: 'duration' }
    case 'sum': return { k: 'arith', op: r.pick(['+', '-'] as const), l: durationExpr(g, depth - 1), r: durationLit(r), ty: 'duration' }
    case 'scale': {
      const by = r.chance(0.5) ? lit(r.int(-3, 4), 'int') : lit(r.pick([0.5, 1.5, 2.5, -0.25, 1 / 3]), 'float')
      if (r.chance(0.5)) return { k: 'arith', op: '*', l: durationExpr(g, 0), r: by, ty: 'duration' }
      const d = r.pick([2, 3, 7, -4, 0.5, 2.5])
      return { k: 'arith', op: '/', l: durationExpr(g, 0), r: lit(d, Number.isInteger(d) ? 'int' : 'float'), ty: 'duration' }
    }
    default: return durationLit(r)
  }
}

/** An int: a UTC part of `ts` (or of a computed timestamp). */
export function timePart(g: CaseGen): Expr {
  const r = g.rng
  g.tags.add('time-part')
  const fn = r.pick(['year', 'month', 'day', 'hour', 'minute', 'second', 'weekday'] as const)
  return { k: 'call', fn, args: [r.chance(0.7) ? tsField() : timeExpr(g)], ty: 'int' }
}

/** A predicate on time: a computed timestamp against an instant, a duration against a duration. */
export function timeAtom(g: CaseGen): Expr {
  const r = g.rng
  const op = r.pick(['==', '!=', '<', '<=', '>', '>='] as const)
  if (r.chance(0.5)) return cmp(op, timeExpr(g), lit(r.pick(timestampPool), 'timestamp'))
  return cmp(op, durationExpr(g), r.chance(0.7) ? durationLit(r) : durationExpr(g, 0))
}

const likePatterns = ['%a%', 'a%', '%a', '_', '__', 'a_c', '%b_', 'A%', '%é%', '%😀%', '日%', '', '%', '%\\%%', 'say%', '%\\_%', 'line%', '%s%e', ' %']
const regexes = ['a', '^a', 'a$', '^[ab]', 'b.', '^.$', 'p+l', '(?i)apple', '[é日]', '😀', '^$', 'a|z', '\\d', '^(ab)+', '[^a-z]', 'x*']

/** like(s, pattern) or matches(s, regex) on a string expression. */
export function patternAtom(g: CaseGen, cols: readonly Col[]): Expr {
  const r = g.rng
  g.tags.add('pattern')
  const subject = g.str(cols, 1)
  if (r.chance(0.5)) return { k: 'call', fn: 'like', args: [subject, lit(r.pick(likePatterns), 'string')], ty: 'bool' }
  const pattern = r.pick(regexes)
  return { k: 'call', fn: 'matches', args: [subject, r.chance(0.3) ? g.param(pattern, 'string') : lit(pattern, 'string')], ty: 'bool' }
}

/** A string from trim, replace or substr. */
export function stringFn(g: CaseGen, cols: readonly Col[], depth: number): Expr {
  const r = g.rng
  g.tags.add('string-functions')
  const s = g.str(cols, depth - 1)
  switch (r.pick(['trim', 'replace', 'substr'] as const)) {
    case 'trim': return { k: 'call', fn: 'trim', args: [s], ty: 'string' }
    case 'replace': return { k: 'call', fn: 'replace', args: [s, lit(r.pick(['a', 'p', '', 'é', ' ', '😀']), 'string'), lit(r.pick(['', 'X', 'ab', '日']), 'string')], ty: 'string' }
    case 'substr': {
      const args = [s, lit(r.int(0, 4), 'int')]
      if (r.chance(0.6)) args.push(lit(r.int(0, 3), 'int'))
      return { k: 'call', fn: 'substr', args, ty: 'string' }
    }
  }
}

/** floor(n) or ceil(n). */
export function rounding(g: CaseGen, arg: Expr): Expr {
  g.tags.add('floor-ceil')
  return { k: 'call', fn: g.rng.pick(['floor', 'ceil'] as const), args: [arg], ty: 'int' }
}

/** if(cond, a, b) of the branches' type; sometimes a division the condition guards. */
export function conditional(g: CaseGen, cols: readonly Col[], a: Expr, b: Expr): Expr {
  g.tags.add('conditional')
  return { k: 'call', fn: 'if', args: [g.pred(cols, 1), a, b], ty: a.ty }
}

export function guardedDivision(g: CaseGen, cols: readonly Col[]): Expr {
  g.tags.add('conditional')
  const x = g.num(cols, 0)
  const d = field({ name: g.rng.pick(['a', 'b']), ty: 'int' })
  return { k: 'call', fn: 'if', args: [cmp('!=', d, lit(0, 'int')), { k: 'arith', op: '/', l: x, r: d, ty: 'float' }, lit(null, 'float')], ty: 'float' }
}

/** `returning` for a write, or none. */
export function returning(g: CaseGen): Returning | undefined {
  const r = g.rng
  if (!r.chance(0.25)) return undefined
  g.tags.add('returning')
  if (r.chance(0.3)) return '*'
  const names = r.sample(fields.map((f) => f.name).filter((n) => n !== primary), r.int(0, 3))
  return [primary, ...names]
}

/** The `others` rows of a run: duplicates and nulls in `k`, `name` and `w`. */
export function genOthers(rng: Rng, count: number): Row[] {
  return Array.from({ length: count }, (_, i) => ({
    id: i + 1 - Math.floor(count / 4),
    k: rng.chance(0.15) ? null : rng.int(-5, 8),
    name: rng.chance(0.15) ? null : rng.pick(stringPool.slice(0, 18)),
    w: rng.chance(0.2) ? null : rng.pick(floatPool),
  }))
}

/** A read with one or two lookups into `others`, then stages over the looked-up fields, ending in a select. */
export function lookupRead(g: CaseGen): Pipeline {
  const r = g.rng
  g.tags.add('lookup')
  const stages: Stage[] = [...g.wheres(fields)]
  if (r.chance(0.3)) stages.push(g.sort(fields))
  if (r.chance(0.3)) stages.push(...g.paging())
  const found: Expr[] = []
  const n = r.weighted([[1, 3], [2, 1]] as const)
  for (let i = 0; i < n; i += 1) {
    const name = `lk${i}`
    const [left, other] = r.pick<[Expr, string]>([
      [field({ name: 'a', ty: 'int' }), 'id'],
      [field({ name: 'b', ty: 'int' }), 'k'],
      [field({ name: 'a', ty: 'int' }), 'k'],
      [field({ name: 's', ty: 'string' }), 'name'],
      [field({ name: 'f', ty: 'float' }), 'w'],
      [field({ name: 'f', ty: 'float' }), 'k'],
      [{ k: 'arith', op: '+', l: field({ name: 'b', ty: 'int' }), r: lit(1, 'int'), ty: 'int' }, 'id'],
    ])
    const many = r.chance(0.3)
    const inner = r.chance(0.35)
    g.tags.add(`lookup ${other === 'id' ? 'primary' : other === 'k' ? 'index' : 'hash'}${inner ? ' inner' : ''}${many ? ' many' : ''}`)
    stages.push({ k: 'lookup', name, left, field: other, inner, many })
    if (many) found.push({ k: 'lkcount', lookup: name, ty: 'int' })
    else for (const f of otherFields) found.push({ k: 'lkfield', lookup: name, field: f.name, ty: f.ty })
  }
  if (r.chance(0.4)) {
    const e = r.pick(found)
    const constant = e.ty === 'string' ? lit(r.pick(stringPool), 'string') : lit(r.int(-3, 8), e.ty as Ty)
    stages.push({ k: 'where', p: r.chance(0.2) ? cmp('==', e, lit(null, e.ty)) : cmp(g.op(), e, constant) })
  }
  if (r.chance(0.3)) {
    stages.push({ k: 'sort', keys: [{ e: r.pick(found), desc: r.chance(0.5), explicitAsc: false }] })
    if (r.chance(0.5)) stages.push(...g.paging())
  }
  const items = [{ name: 'id', e: field({ name: 'id', ty: 'int' }), bare: true }]
  for (const [i, e] of r.sample(found, r.int(1, Math.min(4, found.length))).entries()) items.push({ name: `v${i}`, e, bare: false })
  stages.push({ k: 'select', items })
  return { kind: 'pipeline', stages }
}
