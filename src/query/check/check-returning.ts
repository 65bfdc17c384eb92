// `returning` on a write: the items are typed against the written collection's whole
// rows, as a select right after a read of it would be; `returning *` names every field
// in declaration order.
import type { Returning, SelectItem } from '../../lang/ast.js'
import type { CollectionIR } from '../../schema/ir.js'
import { collectionShape, report, typeExpr, type CheckContext, type Shape } from './check-expr.js'
import type { EelType } from '../values/index.js'

export function checkReturning(returning: Returning | null, collection: CollectionIR, ctx: CheckContext): { items: SelectItem[]; shape: Shape } | null {
  const items = returningItems(returning, collection)
  if (items === null) return null
  const whole = collectionShape(collection)
  const types = new Map<string, EelType>()
  for (const item of items) {
    if (item.name === '') report(ctx, item.span, 'syntax_error', 'this column needs a name', { hint: 'write name: expression' })
    if (types.has(item.name)) report(ctx, item.span, 'syntax_error', `column '${item.name}' is returned twice`)
    types.set(item.name, typeExpr(item.expr, whole, ctx))
  }
  return { items, shape: { columns: [...types.keys()], types, collection: null } }
}

/** The items of `returning`, `*` spelled out; null without one. */
export function returningItems(returning: Returning | null, collection: CollectionIR): SelectItem[] | null {
  if (returning === null) return null
  if (returning.kind === 'items') return returning.items
  return collection.fields.map((f) => ({ name: f.name, expr: { kind: 'field', path: [f.name], span: returning.span }, span: returning.span }))
}
