// The `tenantdb` command. Exit codes: 0 success, 1 failure, 2 usage or a locked directory.
import { EngineError } from '../database/index.js'
import { version } from '../version.js'
import { backup } from './backup.js'
import { bench } from './bench.js'
import { compact } from './compact.js'
import { restore } from './restore.js'
import { serve } from './serve.js'
import { token } from './token.js'
import { usage } from './usage.js'
import { UsageError } from './usage-error.js'
import { verify } from './verify.js'

const commands: Record<string, (argv: string[]) => Promise<void>> = { serve, compact, verify, backup, restore, bench, token }

export async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv
  if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
    process.stdout.write(usage)
    if (command === undefined) process.exitCode = 2
    return
  }
  if (command === '--version' || command === '-v') {
    process.stdout.write(`${version}\n`)
    return
  }
  const run = commands[command]
  if (run === undefined) throw new UsageError(`unknown command '${command}'`)
  await run(rest)
}

main(process.argv.slice(2)).catch((err: unknown) => {
  if (err instanceof UsageError) {
    process.stderr.write(`tenantdb: ${err.message}\n\n${usage}`)
    process.exit(2)
  }
  if (err instanceof EngineError && err.code === 'locked') {
    process.stderr.write(`tenantdb: ${err.message}\n`)
    process.exit(2)
  }
  process.stderr.write(`tenantdb: ${err instanceof Error ? err.message : String(err)}\n`)
  process.exit(1)
})
