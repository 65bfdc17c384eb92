// The two budgets of the long tests (docs/architecture.md, "Testing"): a short one that
// `npm test` runs and that still asserts its minimum counts, and a long one behind
// `TENANTDB_SOAK=1`, run before resolving a change to what the test protects. A test's
// own variable (e.g. `TENANTDB_HTTP_KILL9_CYCLES`) overrides both.

/** Whether the long budget was asked for. */
export const soak = process.env.TENANTDB_SOAK === '1'

/** `name`'s value if set, else `long` under `TENANTDB_SOAK=1`, else `short`. */
export function budget(name: string, short: number, long: number): number {
  const text = process.env[name]
  if (text === undefined || text === '') return soak ? long : short
  const value = Number(text)
  if (!Number.isFinite(value) || value < 0) throw new Error(`${name} must be a number ≥ 0, got ${JSON.stringify(text)}`)
  return value
}
