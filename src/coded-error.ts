// The one family of errors users meet (docs/api.md, "Errors"; docs/architecture.md,
// "Errors"): every error that can reach a caller of the embedding API, an HTTP client
// or a user of the CLI is a CodedError. `code` is stable snake_case, and `details`
// holds the structured facts a caller acts on (an Eel position, the fields a write was
// refused for, the oldest retained LSN), so no caller ever reads the sentence to decide
// anything. The HTTP layer answers each code from one table (src/http/error-mapping.ts)
// and an error body carries the details as its fields.

/** The structured facts of an error, as JSON values: an HTTP error body carries them as they are. */
export type ErrorDetails = Readonly<Record<string, unknown>>

export class CodedError<Code extends string = string> extends Error {
  readonly code: Code
  readonly details: ErrorDetails

  constructor(code: Code, message: string, details: ErrorDetails = {}, options?: ErrorOptions) {
    super(message, options)
    this.name = new.target.name
    this.code = code
    this.details = details
  }
}
