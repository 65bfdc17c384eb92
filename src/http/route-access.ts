// Who may call what (docs/api.md, "Access"): the one place where the server decides
// what a credential opens. Every route declares its needs (`config.access`); the auth
// hook (auth.ts) finds the credential and asks `routeRefusal`; the two routes whose
// needs depend on the request's body ask `queryRefusal` (a writing statement needs a
// write token) and `opRefusal` (which operation, on which tenant). Nothing else in the
// server decides access.
//
//   'public'               no credential (the console's files)
//   'any'                  any valid credential (liveness, the OpenAPI document, the schema source)
//   'service'              the service token only (server-wide: health detail, stats,
//                          metrics, backup, the tenant list)
//   { tenant: scope }      the service token, or a tenant token that opens the path's
//                          :tenant with at least `scope` (read < write < admin);
//                          `service`: the service token only (a tenant's tokens)
//
// A tenant token on a tenant it does not open is answered as an unknown tenant (404
// `unknown_tenant`, the same sentence), so tenant names do not leak; on a route or
// operation its scope does not reach, 403 `forbidden`.
import type { IncomingMessage } from 'node:http'
import type { FastifyRequest } from 'fastify'
import type { TokenGrant, TokenScope } from '../database/index.js'
import { EelError } from '../lang/diagnostic.js'
import { StatementCache, statementWrites } from '../query/index.js'
import type { SchemaIR } from '../schema/ir.js'
import type { TenantOpRequest } from '../tenants/index.js'
import type { ErrorCode } from './errors.js'

export type RouteAccess = 'public' | 'any' | 'service' | { tenant: TokenScope | 'service' }

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
  if (request.routeOptions.url === undefined) return 'any'
  return request.routeOptions.config.access ?? 'service'
}

const credentials = new WeakMap<IncomingMessage, Credential>()

export function recordCredential(raw: IncomingMessage, credential: Credential): void {
  credentials.set(raw, credential)
}

/** The credential the auth hook accepted for the request (undefined on a public route). */
export function credentialOf(request: FastifyRequest): Credential | undefined {
  return credentials.get(request.raw)
}

/** The same answer an unknown tenant gets (rules.ts): a token learns nothing of tenants it does not open. */
function unknownTenant(tenant: string): Refusal {
  return { code: 'unknown_tenant', message: `no tenant named '${tenant}'` }
}

/** Whether `credential` may call a route declared `access`, for the path's `tenant`. */
export function routeRefusal(credential: Credential, access: RouteAccess, tenant: string | undefined): Refusal | null {
  if (credential.kind === 'service' || access === 'public' || access === 'any') return null
  if (access === 'service') return { code: 'forbidden', message: 'this route is server-wide: it needs the service token' }
  const { grant } = credential
  if (tenant === undefined || !grant.tenants.includes(tenant)) return unknownTenant(tenant ?? '')
  if (access.tenant === 'service' || rank[grant.scope] < rank[access.tenant]) {
    return { code: 'forbidden', message: `this needs ${needs[access.tenant]}; the token is a ${grant.scope} token` }
  }
  return null
}

/**
 * Whether `credential` may run the query `text`: a read token may not run a statement
 * that writes (statement-writes.ts decides from the parsed text, before it runs). Text
 * that does not parse is left to the query route, which refuses it as it would for any
 * token.
 */
export function queryRefusal(credential: Credential | undefined, text: string, schema: SchemaIR): Refusal | null {
  if (credential?.kind !== 'tenant' || rank[credential.grant.scope] >= rank.write) return null
  let writes: boolean
  try {
    writes = statementWrites(statements.statement(text), schema)
  } catch (err) {
    // Only a parse failure: anything else is a bug, and fails the request (never opens it).
    if (err instanceof EelError) return null
    throw err
  }
  return writes ? { code: 'forbidden', message: 'this statement writes, and the token is a read token: it needs a write token (or admin)' } : null
}

/**
 * Whether `credential` may run the tenant operation `op` (its shape already checked).
 * An admin token may snapshot, fork (into a new tenant it then administers too),
 * restore to a snapshot, suspend, resume and compact the tenants it opens; creating and deleting tenants, and
 * dropping snapshots, need the service token.
 */
export function opRefusal(credential: Credential | undefined, op: TenantOpRequest): Refusal | null {
  if (credential?.kind !== 'tenant') return null
  if (op.op === 'create' || op.op === 'delete') {
    return { code: 'forbidden', message: `'${op.op}' needs the service token; an admin token may snapshot, fork, restore, suspend, resume and compact its tenants` }
  }
  const source = op.op === 'fork' || op.op === 'restore' ? op.name.split('@')[0] ?? '' : op.name
  return credential.grant.tenants.includes(source) ? null : unknownTenant(source)
}
