// The `tenantdb` command. Exit codes: 0 success, 1 failure, 2 usage, a locked
// directory or a port in use (the error codes `usage`, `locked`, `held`).
import { CodedError } from '../coded-error.js'
import { version } from '../version.js'
import { command_help, overview } from './usage.js'
import { UsageError } from './usage-error.js'

/**
 * Each command's function, loaded when it runs: a command pays only for the modules it
 * uses (a remote query never loads the engine, `--help` loads nothing), which is most
 * of a short command's start. Its help text is in usage.ts under the same name.
 */
const commands: Record<string, (argv: string[]) => Promise<void>> = {
  serve: async (argv) => (await import('./serve.js')).serve(argv),
  query: async (argv) => (await import('./query.js')).query(argv),
  compact: async (argv) => (await import('./compact.js')).compact(argv),
  verify: async (argv) => (await import('./verify.js')).verify(argv),
  repair: async (argv) => (await import('./repair.js')).repair(argv),
  backup: async (argv) => (await import('./backup.js')).backup(argv),
  restore: async (argv) => (await import('./restore.js')).restore(argv),
  token: async (argv) => (await import('./token.js')).token(argv),
  bench: async (argv) => (await import('./bench.js')).bench(argv),
}

/** `--help` or `-h` anywhere before a `--`. */
function asksForHelp(argv: string[]): boolean {
  const end = argv.indexOf('--')
  return (end === -1 ? argv : argv.slice(0, end)).some((a) => a === '--help' || a === '-h')
}

export async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv
  if (command === undefined || command === '--help' || command === '-h') {
    process.stdout.write(overview())
    if (command === undefined) process.exitCode = 2
    return
  }
  if (command === 'help') {
    const [topic] = rest
    if (topic !== undefined && command_help[topic] === undefined) throw new UsageError(`unknown command '${topic}'`)
    process.stdout.write(topic === undefined ? overview() : (command_help[topic] as { text: string }).text)
    return
  }
  if (command === '--version' || command === '-v') {
    process.stdout.write(`${version}\n`)
    return
  }
  const run = commands[command]
  if (run === undefined) throw new UsageError(`unknown command '${command}'`)
  if (asksForHelp(rest)) {
    process.stdout.write(command_help[command]?.text ?? overview())
    return
  }
  try {
    await run(rest)
  } catch (err) {
    if (err instanceof UsageError && err.command === undefined) err.command = command
    throw err
  }
}

main(process.argv.slice(2)).catch((err: unknown) => {
  if (err instanceof UsageError) {
    // The command's own usage, or the overview for a mistake before any command.
    const help = err.command === undefined ? overview() : command_help[err.command]?.text ?? overview()
    process.stderr.write(`tenantdb: ${err.message}\n\n${help}`)
    process.exit(2)
  }
  // A directory another process holds, or anything else a command needs that is held.
  if (err instanceof CodedError && (err.code === 'locked' || err.code === 'held')) {
    process.stderr.write(`tenantdb: ${err.message}\n`)
    process.exit(2)
  }
  // A command that needs the engine, installed without its platform package: the
  // loader's sentence, which names the package and already starts with `tenantdb:`.
  if ((err as { code?: unknown } | null)?.code === 'native_module_missing') {
    process.stderr.write(`${(err as Error).message}\n`)
    process.exit(1)
  }
  process.stderr.write(`tenantdb: ${err instanceof Error ? err.message : String(err)}\n`)
  process.exit(1)
})
