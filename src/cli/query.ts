// `tenantdb query` (docs/operations.md, "Querying from the command line"): one Eel
// statement, from an argument or stdin, against a directory opened embedded or a
// running server (--url), its result on stdout (a table on a terminal, JSON
// otherwise); with no statement on a terminal, the interactive shell. A failed
// statement prints its diagnostic on stderr and exits 1.
import { parseQueryOptions } from './query-options.js'
import { formatResult } from './query-output.js'
import { StatementFailure } from './query-failure.js'
import type { QueryTarget } from './query-target.js'
import { UsageError } from './usage-error.js'

export async function query(argv: string[]): Promise<void> {
  const options = parseQueryOptions(argv, process.env)
  const shell = options.statement === undefined && process.stdin.isTTY === true
  const text = shell ? undefined : options.statement === undefined || options.statement === '-' ? await readStdin() : options.statement
  if (text !== undefined && text.trim() === '') throw new UsageError('no statement: give one as an argument, or on stdin with -')
  // Each target loads only its own modules: a query to a server never loads the engine.
  const target: QueryTarget = 'dir' in options.target
    ? await (await import('./query-target.js')).EmbeddedTarget.open(options.target.dir, options.target.schema, options.tenant)
    : new (await import('./query-remote.js')).RemoteTarget(options.target.server, options.tenant)
  try {
    if (text === undefined) {
      const { runShell } = await import('./query-shell.js')
      await runShell(target, options.params, options.format ?? 'table', process.env)
      // Nothing reads the terminal any more; a read readline's line iterator resumed
      // after it closed would otherwise keep the process from exiting.
      process.stdin.destroy()
      return
    }
    try {
      const result = await target.run(text, options.params)
      process.stdout.write(formatResult(result, options.format ?? (process.stdout.isTTY === true ? 'table' : 'json')))
    } catch (err) {
      if (!(err instanceof StatementFailure)) throw err
      process.stderr.write(`tenantdb: ${err.render(text)}`)
      process.exitCode = 1
    }
  } finally {
    await target.close()
  }
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = []
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks).toString('utf8')
}
