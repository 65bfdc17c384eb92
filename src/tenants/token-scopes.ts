// The scopes of a tenant token, apart from the catalog code that stores tokens, so the
// CLI checks a --scope without loading the transaction layer.

/** What a tenant token may do on the tenants it opens (docs/api.md, "Access"). */
export type TokenScope = 'read' | 'write' | 'admin'

export const token_scopes: readonly TokenScope[] = ['read', 'write', 'admin']
