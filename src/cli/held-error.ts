import { CodedError } from '../coded-error.js'

/**
 * What the command needs is held by another process (a port in use, a directory a
 * server holds): the message says what to do instead; exit code 2, like a locked
 * directory (docs/operations.md, "Exit codes of `tenantdb`").
 */
export class HeldError extends CodedError<'held'> {
  constructor(message: string) {
    super('held', message)
  }
}
