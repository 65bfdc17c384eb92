// The TypeScript half of the one error mapping: native/src/error.rs throws
// "<code>: <sentence>"; this turns it back into a typed error.

// `storage_full`: a full disk refused the change before any of it was written (not
// written; the database carries on). `outcome_unknown`: writing the commit failed
// after its bytes went out (it may or may not be durable; the database stopped).
// `fail_stopped`: the database stopped earlier, so this change was not written.
// `read_only`: the engine was opened read-only.
export type EngineErrorCode =
  | 'corrupted' | 'locked' | 'io' | 'invalid_argument' | 'closed'
  | 'fail_stopped' | 'outcome_unknown' | 'storage_full' | 'read_only'

const codes: readonly EngineErrorCode[] = [
  'corrupted', 'locked', 'io', 'invalid_argument', 'closed',
  'fail_stopped', 'outcome_unknown', 'storage_full', 'read_only',
]

export class EngineError extends Error {
  readonly code: EngineErrorCode
  /** The page that failed verification, for `corrupted` errors of the page file. */
  readonly page: number | undefined

  constructor(code: EngineErrorCode, message: string, page?: number) {
    super(message)
    this.name = 'EngineError'
    this.code = code
    this.page = page
  }
}

/** Rethrows a native failure as an EngineError; anything else is a bug and passes through. */
export function toEngineError(err: unknown): unknown {
  if (!(err instanceof Error)) return err
  const match = /^([a-z_]+): (.*)$/s.exec(err.message)
  const code = match?.[1] as EngineErrorCode | undefined
  if (match === null || code === undefined || !codes.includes(code)) return err
  const sentence = match[2] ?? ''
  const pageText = code === 'corrupted' ? /^page (\d+)/.exec(sentence)?.[1] : undefined
  const page = pageText === undefined ? undefined : Number(pageText)
  return new EngineError(code, sentence, page)
}

export async function mapAsync<T>(promise: Promise<T>): Promise<T> {
  try {
    return await promise
  } catch (err) {
    throw toEngineError(err)
  }
}

export function mapSync<T>(call: () => T): T {
  try {
    return call()
  } catch (err) {
    throw toEngineError(err)
  }
}
