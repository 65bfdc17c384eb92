// xxHash64 over a stream of chunks (its seed is 0), for the backup manifest's checksums.
// xxhash-wasm compiles its module asynchronously: it is set up once and shared.
import xxhash from 'xxhash-wasm'

let api: ReturnType<typeof xxhash> | undefined

export interface Xxh64 {
  update(chunk: Uint8Array): void
  /** 16 lowercase hex digits. */
  digest(): string
}

/** A new hasher (after the module's one-time set-up). */
export async function xxh64(): Promise<Xxh64> {
  api ??= xxhash()
  const hasher = (await api).create64()
  return {
    update: (chunk) => { hasher.update(chunk) },
    digest: () => hasher.digest().toString(16).padStart(16, '0'),
  }
}
