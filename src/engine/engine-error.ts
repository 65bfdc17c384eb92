// The TypeScript half of the one error mapping. native/src/error.rs throws Errors
// whose own properties say what failed: `code` (one of the binding's ErrorCode values,
// generated from the Rust enum), and for corruption `file` and `page`. This makes
// them EngineErrors, of the one error family (src/coded-error.ts); nothing is read out
// of the message. The HTTP layer answers each code from its table
// (src/http/error-mapping.ts): the engine's sentences name files and internals, so
// clients get the table's instead.
import { CodedError } from '../coded-error.js'
import { native, type NativeErrorCode } from './native.js'

// `storage_full`: a full disk refused the change before any of it was written (not
// written; the database carries on). `outcome_unknown`: writing the commit failed
// after its bytes went out (it may or may not be durable; the database stopped).
// `fail_stopped`: the database stopped earlier (a failed fsync, or a panic below),
// so this change was not written. `internal`: a bug: the engine panicked in this call;
// the binding caught it, and the engine stopped writing (docs/architecture.md, "The
// binding"). `read_only`: the engine was opened read-only.
export type EngineErrorCode = `${NativeErrorCode}`

const codes: ReadonlySet<string> = new Set(Object.values(native.ErrorCode))

export interface EngineErrorFields {
  /** The damaged file, relative to the database directory (`pages`, `wal/<segment>`). */
  file?: string | undefined
  /** The page of the page file that failed verification. */
  page?: number | undefined
}

export class EngineError extends CodedError<EngineErrorCode> {
  /** For `corrupted` errors: the damaged file, relative to the database directory. */
  readonly file: string | undefined
  /** For `corrupted` errors of the page file: the page that failed verification. */
  readonly page: number | undefined

  constructor(code: EngineErrorCode, message: string, fields: EngineErrorFields = {}) {
    super(code, message, {
      ...(fields.file === undefined ? {} : { file: fields.file }),
      ...(fields.page === undefined ? {} : { page: fields.page }),
    })
    this.file = fields.file
    this.page = fields.page
  }
}

/** Rethrows a native failure as an EngineError; anything else is a bug and passes through. */
export function toEngineError(err: unknown): unknown {
  if (!(err instanceof Error)) return err
  const { code, file, page } = err as Error & { code?: unknown; file?: unknown; page?: unknown }
  if (typeof code !== 'string' || !codes.has(code)) return err
  return new EngineError(code as EngineErrorCode, err.message, {
    file: typeof file === 'string' ? file : undefined,
    page: typeof page === 'number' ? page : undefined,
  })
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
