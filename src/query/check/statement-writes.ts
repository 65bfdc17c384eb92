// Whether a statement may write, decided from its parsed form before it runs: the HTTP
// layer refuses a read-only token's writing query with it (docs/api.md, "Access") before
// anything of the statement happens. It errs on the side of writing: a stage `update`
// or `delete` anywhere (the checker accepts one only last), in the statement or in the
// body of a named query it calls, makes it a write, as do `insert`, `upsert` and an
// atomic block holding any of these. `explain` runs nothing. A statement the runner
// refuses anyway (a tenant operation, a declaration, a call of an unknown query, a
// body that does not parse) is not a write: it fails as it would with any token.
import type { Stage, Statement } from '../../lang/ast.js'
import { parse } from '../../lang/parse.js'
import type { SchemaIR } from '../../schema/ir.js'

const writing_stages: ReadonlySet<Stage['kind']> = new Set(['update', 'delete'])

export function statementWrites(statement: Statement, schema: SchemaIR): boolean {
  switch (statement.kind) {
    case 'insert': case 'upsert':
      return true
    case 'atomic':
      return statement.statements.some((inner) => statementWrites(inner, schema))
    case 'pipeline': {
      if (statement.stages.some((stage) => writing_stages.has(stage.kind))) return true
      if (statement.source.kind !== 'call') return false
      const { name } = statement.source
      const query = schema.queries.find((q) => q.name === name)
      if (query === undefined) return false
      let body: Statement | undefined
      try {
        body = parse(query.body, 'query').statements[0]
      } catch {
        return false
      }
      // A body must be a pipeline over a collection (the checker refuses any other), so
      // only its stages count; a call in it is never followed (no cycle).
      return body?.kind === 'pipeline' && body.stages.some((stage) => writing_stages.has(stage.kind))
    }
    default:
      return false
  }
}
