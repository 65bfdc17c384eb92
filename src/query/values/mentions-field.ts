// What an expression reads of the current row: whether it reads it at all (a constant
// does not), and the field paths it reads (a lookup decodes only those, lookup-fields.ts).
import type { Expr } from '../../lang/ast.js'

/** Whether an expression reads the current row (so it is not a constant). */
export function mentionsField(expr: Expr): boolean {
  switch (expr.kind) {
    case 'field': return true
    case 'unary': return mentionsField(expr.operand)
    case 'binary': return mentionsField(expr.left) || mentionsField(expr.right)
    case 'call': return expr.args.some(mentionsField)
    case 'list': return expr.items.some(mentionsField)
    case 'record': return expr.fields.some((f) => mentionsField(f.value))
    default: return false
  }
}

/** Every field path an expression reads of the current row (`a.name` is ['a', 'name']). */
export function fieldPaths(expr: Expr, out: string[][] = []): string[][] {
  switch (expr.kind) {
    case 'field': out.push(expr.path); break
    case 'unary': fieldPaths(expr.operand, out); break
    case 'binary': fieldPaths(expr.left, out); fieldPaths(expr.right, out); break
    case 'call': for (const arg of expr.args) fieldPaths(arg, out); break
    case 'list': for (const item of expr.items) fieldPaths(item, out); break
    case 'record': for (const field of expr.fields) fieldPaths(field.value, out); break
    default: break
  }
  return out
}
