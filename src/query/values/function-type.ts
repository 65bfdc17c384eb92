// What a built-in function is to the checker and the evaluator.
import type { Value } from '../../lang/ast.js'
import type { EelType } from './types.js'

export interface BuiltinFunction {
  args: [min: number, max: number]
  /** The result type, or a sentence saying what is wrong with the argument types. */
  type(args: EelType[]): EelType | string
  call(args: Value[], now: Date): Value
}
