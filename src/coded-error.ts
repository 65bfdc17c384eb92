/** An error users meet, with the stable snake_case code the HTTP layer maps to a status. */
export class CodedError<Code extends string> extends Error {
  readonly code: Code

  constructor(code: Code, message: string) {
    super(message)
    this.name = new.target.name
    this.code = code
  }
}
