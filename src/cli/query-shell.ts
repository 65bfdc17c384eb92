// The interactive shell of `tenantdb query` on a terminal (docs/operations.md, "The
// query shell"): node:readline for line editing and history, a statement continued over
// lines while a bracket is open (query-input.ts), dot commands, and results as tables.
// A failed statement prints its diagnostic and the shell goes on; Ctrl-C drops the
// statement being typed, Ctrl-D or .exit leaves.
import { createInterface } from 'node:readline'
import type { Value } from '../lang/ast.js'
import { query_history_lines_max } from '../limits.js'
import { version } from '../version.js'
import { loadHistory, saveHistory } from './query-history.js'
import { statementComplete } from './query-input.js'
import { parseFormat, type OutputFormat } from './query-options.js'
import { formatResult, table } from './query-output.js'
import { StatementFailure } from './query-failure.js'
import type { QueryTarget } from './query-target.js'
import { UsageError } from './usage-error.js'

const shell_help = `Type an Eel statement and Enter; it continues over lines while a bracket is open
or after a trailing |. Tenant operations work too (tenant fork default as staging).
  .tenants            the tenants, their state and parent
  .tenant [NAME]      the tenant statements run on; NAME switches to another
  .collections        the tenant's collections, rows and indexes
  .schema             the schema statements are checked against
  .format [FORMAT]    the output: table, json or csv
  .help               this text
  .exit               leave (or Ctrl-D); Ctrl-C drops the statement being typed
`

export async function runShell(target: QueryTarget, params: Record<string, Value>, format: OutputFormat, env: NodeJS.ProcessEnv): Promise<void> {
  const history = loadHistory(env)
  const rl = createInterface({ input: process.stdin, output: process.stdout, terminal: true, history: history.lines, historySize: query_history_lines_max, removeHistoryDuplicates: true })
  rl.on('history', (lines: string[]) => saveHistory(history, lines))
  const say = (text: string) => {
    process.stdout.write(text)
  }
  const shell = { target, format, pending: [] as string[] }
  const prompt = () => {
    rl.setPrompt(shell.pending.length === 0 ? `${shell.target.tenant}> ` : `${' '.repeat(Math.max(0, shell.target.tenant.length - 3))}...> `)
    rl.prompt()
  }
  say(`tenantdb ${version} query: ${target.where}, tenant ${target.tenant}. .help for help, .exit to leave.\n`)
  rl.on('SIGINT', () => {
    // Drop what is typed: the line (Ctrl-U) and the lines before it of the statement.
    rl.write(null, { ctrl: true, name: 'u' })
    say('^C\n')
    if (shell.pending.length > 0) shell.pending = []
    else say('(.exit or Ctrl-D to leave)\n')
    prompt()
  })
  prompt()
  for await (const line of rl) {
    if (shell.pending.length === 0 && line.trim().startsWith('.')) {
      if (!(await dotCommand(line.trim(), shell, say))) break
    } else if (shell.pending.length > 0 || line.trim() !== '') {
      shell.pending.push(line)
      const text = shell.pending.join('\n')
      if (statementComplete(text)) {
        shell.pending = []
        await guarded(say, text, async () => say(formatResult(await shell.target.run(text, params), shell.format)))
      }
    }
    prompt()
  }
  rl.close()
}

/** Runs one command of the shell; false for `.exit`. */
async function dotCommand(line: string, shell: { target: QueryTarget; format: OutputFormat }, say: (text: string) => void): Promise<boolean> {
  const [command, ...args] = line.split(/\s+/)
  const arg = args.join(' ')
  switch (command) {
    case '.exit':
    case '.quit':
      return false
    case '.help':
      say(shell_help)
      return true
    case '.tenants':
      await guarded(say, line, async () => {
        const tenants = await shell.target.tenants()
        const parent = (p: (typeof tenants)[number]['parent']) => (p === null ? '' : `${p.tenant}${p.snapshot === null ? '' : `@${p.snapshot}`} at lsn ${p.lsn}`)
        say(table(['name', 'state', 'parent'], tenants.map((t) => [t.name, t.state, parent(t.parent)])))
      })
      return true
    case '.tenant':
      if (arg === '') say(`${shell.target.tenant}\n`)
      else await guarded(say, line, () => shell.target.useTenant(arg))
      return true
    case '.collections':
      await guarded(say, line, async () => {
        const collections = await shell.target.collections()
        say(table(['name', 'rows', 'indexes'], collections.map((c) => [c.name, c.rows, c.indexes.join(', ')])))
      })
      return true
    case '.schema':
      await guarded(say, line, async () => say(await shell.target.schema()))
      return true
    case '.format':
      if (arg === '') say(`${shell.format}\n`)
      else {
        try {
          shell.format = parseFormat(arg) as OutputFormat
        } catch (err) {
          say(`${(err as UsageError).message}\n`)
        }
      }
      return true
    default:
      say(`unknown command ${command}; .help lists them\n`)
      return true
  }
}

/**
 * Runs `work`, printing a failure of `text` (a statement's diagnostic, or why the server
 * could not be reached) instead of ending the shell.
 */
async function guarded(say: (text: string) => void, text: string, work: () => Promise<void>): Promise<void> {
  try {
    await work()
  } catch (err) {
    if (err instanceof StatementFailure) say(err.render(text))
    else if (err instanceof Error) say(`${err.message}\n`)
    else throw err
  }
}
