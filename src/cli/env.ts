// Flags from environment variables (docs/operations.md, "Flags and environment
// variables"): a flag given wins over its variable, and an empty variable is unset.

/** The variable's value, or undefined when unset or empty. */
export function envValue(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const value = env[name]
  return value === undefined || value === '' ? undefined : value
}

/**
 * A repeatable flag's values: those given, else the variable's, split at `separator`
 * (`:` for paths, as PATH; `,` for URLs and names), empty items dropped.
 */
export function flagList(given: string[], env: NodeJS.ProcessEnv, name: string, separator: ':' | ','): string[] {
  if (given.length > 0) return given
  return (envValue(env, name) ?? '').split(separator).map((item) => item.trim()).filter((item) => item !== '')
}
