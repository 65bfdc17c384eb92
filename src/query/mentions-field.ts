import type { Expr } from '../lang/ast.js'

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
