// A request's parameter values, checked before anything runs: every number finite
// (JSON has no Infinity, but a JSON number beyond ±1.8e308 parses as one, and the
// embedding API can pass any) and no value nested deeper than the codecs store, so no
// non-finite value reaches an expression, a row or an index (docs/language.md
// "Numbers").
import type { Value } from '../../lang/ast.js'
import { nesting_depth_max } from '../../limits.js'
import { QueryError } from '../errors.js'

export function checkParamValues(params: Record<string, Value>): void {
  for (const name in params) {
    const value = params[name] as Value
    // Scalars, the common parameters, need no walk.
    if (typeof value !== 'object' || value === null || value instanceof Date) {
      if (typeof value === 'number' && !Number.isFinite(value)) checkScalar(name, value)
      continue
    }
    // Iterative, so a hostile nesting cannot overflow the stack before it is refused;
    // two parallel stacks, so a bulk insert's million rows allocate no pair per value.
    const items: Value[] = [value]
    const depths: number[] = [0]
    while (items.length > 0) {
      const item = items.pop() as Value
      const depth = depths.pop() as number
      if (typeof item === 'number') {
        if (!Number.isFinite(item)) checkScalar(name, item)
        continue
      }
      if (item === null || typeof item !== 'object' || item instanceof Date) continue
      if (depth >= nesting_depth_max) throw new QueryError('type_error', `parameter $${name} nests deeper than ${nesting_depth_max} levels`)
      for (const inner of Array.isArray(item) ? item : Object.values(item)) {
        items.push(inner as Value)
        depths.push(depth + 1)
      }
    }
  }
}

/** Refuses a number that is not finite. */
function checkScalar(name: string, value: number): never {
  throw new QueryError('type_error', `parameter $${name} holds ${value}: numbers must be finite (a JSON number beyond ±1.7976931348623157e308 overflows)`)
}
