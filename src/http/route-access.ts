// Who may call what (docs/api.md, "Access"): the one place where the server decides
// what a credential opens. Every route declares its needs (`config.access`); the auth
// hook (auth.ts) finds the credential and asks `routeRefusal`; the two routes whose
// needs depend on the request's body ask `queryRefusal` (a writing statement needs a
// write token; a tenant operation in the text names a tenant) and `opRefusal` (which
// operation, on which tenant). Nothing else in the server decides access.
//
//   'public'               no credential (the console's files)
//   'any'                  any valid credential (liveness, the OpenAPI document, the schema source)
//   'service'              the service token only (server-wide: health detail, stats,
//                          metrics, backup, the tenant list)
//   { tenant: scope }      the service token, or a tenant token that opens the path's
//                          :tenant with at least `scope` (read < write < admin);
//                          `service`: the service token only (a tenant's tokens).
//                          `references`: the query-string parameters that may name
//                          another tenant as `tenant@snapshot` (diff's `from`)
//
// Every tenant a request names, wherever it names it (the path, a reference in the
// query string, an operation's body, a tenant operation in Eel text), is checked by
// one function, `tenantRefusal`, before anything looks at the database: a tenant token
// on a tenant it does not open is answered as an unknown tenant (404 `unknown_tenant`,
// the same sentence), whether that tenant exists or not, so tenant and snapshot names
// do not leak; then, on a route or operation its scope does not reach, 403 `forbidden`.
import type { IncomingMessage } from 'node:http'
import type { FastifyRequest } from 'fastify'
import type { TokenGrant, TokenScope } from '../database/index.js'
import type { Statement } from '../lang/ast.js'
import { EelError } from '../lang/diagnostic.js'
import { StatementCache, statementWrites } from '../query/index.js'
import type { SchemaIR } from '../schema/ir.js'
import { opRequestOf, token_scopes, type TenantOpRequest } from '../tenants/index.js'
import type { ErrorCode } from './errors.js'
import { routeOptionsOf } from './route-options.js'

export type RouteAccess = 'public' | 'any' | 'service' | TenantAccess

export interface TenantAccess {
  tenant: TokenScope | 'service'
  /** Query-string parameters that may hold `tenant@snapshot`: that tenant is checked as the path's :tenant. */
  references?: readonly string[]
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Who may call the route (route-access.ts). Every route declares it: registering one without fails. */
    access?: RouteAccess
  }
}

/** The credential a request authenticated with. */
export type Credential = { kind: 'service' } | { kind: 'tenant'; grant: TokenGrant }

export interface Refusal {
  code: Extract<ErrorCode, 'forbidden' | 'unknown_tenant'>
  message: string
}

/** Parsed query texts of read tokens (bounded; the parse depends on the text alone). */
const statements = new StatementCache()

const rank: Readonly<Record<TokenScope, number>> = { read: 1, write: 2, admin: 3 }

/** What each scope adds, for the sentences of a refusal. */
const needs: Readonly<Record<TokenScope | 'service', string>> = {
  read: 'a read token',
  write: 'a write token (or admin)',
  admin: 'an admin token',
  service: 'the service token',
}

/**
 * The access the request's route declares. A request no route matched (answered 404
 * or 405 after authentication) needs any valid credential; a route without a
 * declaration cannot be registered (server.ts), and would need the service token.
 */
export function routeAccess(request: FastifyRequest): RouteAccess {
  const route = routeOptionsOf(request)
  if (route.url === undefined) return 'any'
  return route.config.access ?? 'service'
}

/**
 * What a route declared `access` needs, as the OpenAPI document says it (openapi.ts):
 * `roles`, each one that opens the route (`service`: the service token; `tenant:<scope>`:
 * a tenant token of the path's tenant with that scope), [] for any valid credential,
 * null for none; and a sentence. Written from the same declaration the auth step obeys.
 */
export function documentedAccess(access: RouteAccess): { roles: readonly string[] | null; says: string } {
  if (access === 'public') return { roles: null, says: 'No credential.' }
  if (access === 'any') return { roles: [], says: 'Credential: any valid one, the service token or a tenant token.' }
  if (access === 'service' || access.tenant === 'service') {
    return { roles: ['service'], says: 'Credential: the service token only; a tenant token is refused with 403 `forbidden`.' }
  }
  const from = access.tenant
  const scopes = token_scopes.filter((scope) => rank[scope] >= rank[from])
  const references = (access.references ?? []).map((name) => ` and the tenant \`${name}\` names as tenant@snapshot`).join('')
  return {
    roles: ['service', ...scopes.map((scope) => `tenant:${scope}`)],
    says: `Credential: the service token, or a tenant token with scope ${scopes.join(' or ')} that opens the path's tenant${references} ` +
      '(one that does not is answered 404 `unknown_tenant`, as a tenant that does not exist).',
  }
}

/** Where the auth step leaves the credential: a property of the request, not a WeakMap entry made for every request. */
const credential_mark = Symbol('tenantdb.credential')

type Marked = IncomingMessage & { [credential_mark]?: Credential }

export function recordCredential(raw: IncomingMessage, credential: Credential): void {
  (raw as Marked)[credential_mark] = credential
}

/** The credential the auth step accepted for the request (undefined on a public route). */
export function credentialOf(request: FastifyRequest): Credential | undefined {
  return (request.raw as Marked)[credential_mark]
}

/** The same answer an unknown tenant gets (rules.ts): a token learns nothing of tenants it does not open. */
function unknownTenant(tenant: string): Refusal {
  return { code: 'unknown_tenant', message: `no tenant named '${tenant}'` }
}

/**
 * The one check of a tenant a request names, for a tenant token: it depends on the
 * token alone, never on what exists, so a tenant it does not open and one that does
 * not exist get the same answer.
 */
function tenantRefusal(grant: TokenGrant, tenants: ReadonlyArray<string | null>): Refusal | null {
  for (const tenant of tenants) {
    if (tenant !== null && !grant.tenants.includes(tenant)) return unknownTenant(tenant)
  }
  return null
}

/** The tenant of `tenant@snapshot`; null for a bare name (a snapshot of the path's tenant). */
function referencedTenant(reference: string): string | null {
  const at = reference.indexOf('@')
  return at === -1 ? null : reference.slice(0, at)
}

/** The tenants named by the references the route declares (each value, also one given twice: the schema refuses that later). */
function queryReferences(access: TenantAccess, query: unknown): Array<string | null> {
  const values = (query ?? {}) as Record<string, unknown>
  return (access.references ?? []).flatMap((name) => [values[name]].flat())
    .map((value) => (typeof value === 'string' ? referencedTenant(value) : null))
}

/** The article and the scope: "a read token", "an admin token". */
const tokenOf: Readonly<Record<TokenScope, string>> = { read: 'a read token', write: 'a write token', admin: 'an admin token' }

/**
 * Whether `credential` may call a route declared `access`, for the path's `params.tenant`
 * and the references its `query` string holds.
 */
export function routeRefusal(credential: Credential, access: RouteAccess, params: unknown, query: unknown): Refusal | null {
  if (credential.kind === 'service' || access === 'public' || access === 'any') return null
  if (access === 'service') return { code: 'forbidden', message: 'this route is server-wide: it needs the service token' }
  const { grant } = credential
  const tenant = (params as { tenant?: unknown } | undefined)?.tenant
  const refusal = tenantRefusal(grant, [typeof tenant === 'string' ? tenant : '', ...queryReferences(access, query)])
  if (refusal !== null) return refusal
  if (access.tenant === 'service' || rank[grant.scope] < rank[access.tenant]) {
    return { code: 'forbidden', message: `this needs ${needs[access.tenant]}; the token is ${tokenOf[grant.scope]}` }
  }
  return null
}

/**
 * Whether `credential` may run the query `text`: a tenant operation in it (which the
 * query route refuses anyway) names a tenant, checked first; a read token may not run
 * a statement that writes (statement-writes.ts decides from the parsed text, before it
 * runs). Text that does not parse is left to the query route, which refuses it as it
 * would for any token.
 */
export function queryRefusal(credential: Credential | undefined, text: string, schema: SchemaIR): Refusal | null {
  if (credential?.kind !== 'tenant') return null
  const { grant } = credential
  const reads = rank[grant.scope] < rank.write
  // A tenant operation starts with the keyword `tenant` (keywords are case-sensitive,
  // docs/language.md): other text of a write token needs no parse here.
  if (!reads && !text.includes('tenant')) return null
  let statement: Statement
  try {
    statement = statements.statement(text)
  } catch (err) {
    // Only a parse failure: anything else is a bug, and fails the request (never opens it).
    if (err instanceof EelError) return null
    throw err
  }
  if (statement.kind === 'tenant_op') return tenantRefusal(grant, opReferences(opRequestOf(statement)))
  if (!reads || !statementWrites(statement, schema)) return null
  return { code: 'forbidden', message: 'this statement writes, and the token is a read token: it needs a write token (or admin)' }
}

/** The existing tenants an operation names: every name but a new one (`create`; a fork's target). */
function opReferences(op: TenantOpRequest): string[] {
  return op.op === 'create' ? [] : [op.name.split('@')[0] ?? '']
}

/**
 * Whether `credential` may run the tenant operation `op` (its shape already checked).
 * An admin token may snapshot, fork (into a new tenant it then administers too),
 * restore to a snapshot, suspend, resume and compact the tenants it opens; creating and deleting tenants, and
 * dropping snapshots, need the service token. The tenant an operation names is checked
 * first, as a path's.
 */
export function opRefusal(credential: Credential | undefined, op: TenantOpRequest): Refusal | null {
  if (credential?.kind !== 'tenant') return null
  const refusal = tenantRefusal(credential.grant, opReferences(op))
  if (refusal !== null) return refusal
  // A tenant's limits are the operator's: an admin token may not raise its own.
  if (op.op === 'create' || op.op === 'delete' || op.op === 'limit') {
    return { code: 'forbidden', message: `'${op.op}' needs the service token; an admin token may snapshot, fork, restore, suspend, resume and compact its tenants` }
  }
  return null
}
