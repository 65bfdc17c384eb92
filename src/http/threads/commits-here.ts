// Whether a query's text would commit (a write, a tenant operation), known from its
// parse before it runs: a worker thread hands such a request to the opening thread at
// once instead of running it until its commit is refused (docs/architecture.md, "Every
// core"). Text that does not parse is run here, to fail with its syntax error.
import { EelError } from '../../lang/diagnostic.js'
import { StatementCache, statementWrites } from '../../query/index.js'
import type { SchemaIR } from '../../schema/ir.js'

const statements = new StatementCache()

export function wouldCommit(text: string, schema: SchemaIR): boolean {
  try {
    const statement = statements.statement(text)
    return statement.kind === 'tenant_op' || statementWrites(statement, schema)
  } catch (err) {
    if (err instanceof EelError) return false
    throw err
  }
}
