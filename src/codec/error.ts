// One error class for every codec refusal, so callers can tell "these bytes or this
// value cannot be encoded/decoded" apart from a bug. It is a plain Error underneath.

export class CodecError extends Error {
  override name = 'CodecError'
}
