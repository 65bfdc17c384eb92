// `lookup`: the looked-up collection and field exist, the two sides can be equal, and
// the incoming rows gain one column: the matching row as a record whose fields the
// checker knows (`author.name`), or with `many` a list of them.
import type { Stage } from '../../lang/ast.js'
import { didYouMean } from '../../lang/diagnostic.js'
import { collectionShape, findCollection, report, suggest, typeExpr, type CheckContext, type Shape } from './check-expr.js'
import { comparable, fromFieldType, t, typeName, type EelType } from '../values/index.js'

export function checkLookup(stage: Stage & { kind: 'lookup' }, shape: Shape, ctx: CheckContext): Shape {
  const other = findCollection(stage.collection, stage.collectionSpan, ctx.schema, ctx)
  const left = typeExpr(stage.left, shape, ctx)
  const field = other.fields.find((f) => f.name === stage.field)
  if (field === undefined && stage.field !== '' && other.fields.length > 0) {
    const hint = didYouMean(stage.field, other.fields.map((f) => f.name))
    report(ctx, stage.fieldSpan, 'unknown_field', suggest(`unknown field '${stage.field}' in '${other.name}'`, hint))
  } else if (field !== undefined) {
    const right = fromFieldType(field.type)
    if (!comparable(left, right)) {
      report(ctx, stage.left.span, 'type_error', `cannot match ${typeName(left)} with '${other.name}.${field.name}', which is ${typeName(right)}`)
    }
  }
  const row: EelType = { kind: 'record', fields: collectionShape(other).types }
  const types = new Map(shape.types)
  types.set(stage.name, stage.many ? t.list(row) : row)
  const columns = shape.columns.includes(stage.name) ? shape.columns : [...shape.columns, stage.name]
  return { columns, types, collection: null }
}
