// One error class for every codec refusal, so callers can tell "these bytes or this
// value cannot be encoded/decoded" apart from a bug. The query layer answers a value
// it refuses as a `type_error`; one that reaches the HTTP layer is a bug there
// (`internal`, docs/api.md "Errors").
import { CodedError } from '../coded-error.js'

export class CodecError extends CodedError<'codec_refused'> {
  constructor(message: string) {
    super('codec_refused', message)
  }
}
