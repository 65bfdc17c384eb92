import { CodedError } from '../coded-error.js'

/** A mistake in how the command was called: printed with that command's usage, exit code 2. */
export class UsageError extends CodedError<'usage'> {
  /** The command whose usage to print (main.ts sets it when the command threw). */
  command: string | undefined

  constructor(message: string, options?: ErrorOptions) {
    super('usage', message, {}, options)
  }
}
