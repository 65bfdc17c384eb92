// Checked forms of one parsed statement, per shape of its parameters: checking types
// the statement against the schema and the parameters' values, and the schema is
// fixed for the life of an open database, so a statement needs checking again only
// when the types of its parameters change (docs/api.md, "Prepared statements"). The
// shape is the type of each value (typeOfValue, lists and records included), and for
// a whole number whether take/skip accept it as a count. A statement that binds
// named-query parameters is checked on every call: its bound values come from the
// call's.
import type { Statement, Value } from '../../lang/ast.js'
import type { SchemaIR } from '../../schema/ir.js'
import { check, type Checked } from './check.js'
import { checkParamValues } from './param-values.js'
import { typeName, typeOfValue } from '../values/index.js'

/** Parameter shapes kept per statement; the oldest goes first. */
const shapes_max = 16

export class CheckCache {
  readonly #checked = new Map<string, Checked>()

  /** `check(statement, ir, text, params)` after `checkParamValues`, from the cache when the shape was seen. */
  check(statement: Statement, ir: SchemaIR, text: string, params: Record<string, Value>): Checked {
    checkParamValues(params)
    const shape = paramShape(params)
    const known = this.#checked.get(shape)
    if (known !== undefined) return { statement: known.statement, params, integerOps: known.integerOps, durationOps: known.durationOps }
    const checked = check(statement, ir, text, params)
    if (Object.keys(checked.params).length === Object.keys(params).length) {
      if (this.#checked.size >= shapes_max) this.#checked.delete(this.#checked.keys().next().value as string)
      this.#checked.set(shape, checked)
    }
    return checked
  }

  get size(): number {
    return this.#checked.size
  }
}

function paramShape(params: Record<string, Value>): string {
  let shape = ''
  for (const name in params) {
    const value = params[name] as Value
    shape += `${name}:${typeName(typeOfValue(value))}${typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? '+' : ''};`
  }
  return shape
}
