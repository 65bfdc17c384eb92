// A `tenant …` statement (docs/language.md, "Tenant operations") as the request that
// `db.ops` and `POST …/ops` take, so the same text runs alike through the embedded
// `db.run` and through `tenantdb query --url` against a server.
import type { TenantOp } from '../lang/ast.js'
import type { TenantOpRequest } from './op-request.js'

export function opRequestOf(statement: TenantOp): TenantOpRequest {
  switch (statement.op) {
    case 'fork':
      return { op: 'fork', name: statement.snapshot === null ? statement.name : `${statement.name}@${statement.snapshot}`, target: statement.target }
    case 'snapshot':
      return { op: 'snapshot', name: statement.name, target: statement.target }
    case 'delete':
      return { op: 'delete', name: statement.snapshot === null ? statement.name : `${statement.name}@${statement.snapshot}` }
    case 'restore':
      return { op: 'restore', name: `${statement.name}@${statement.snapshot}` }
    case 'limit':
      return { op: 'limit', name: statement.name, limits: statement.limits }
    default:
      return { op: statement.op, name: statement.name }
  }
}
