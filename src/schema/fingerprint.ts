// The schema fingerprint: xxHash64 of the canonical JSON's UTF-8 bytes, as 16 lowercase
// hex digits. xxhash-wasm compiles its module asynchronously, so it is set up once and
// the promise shared.
import xxhash from 'xxhash-wasm'
import { canonicalJson } from './canonical-json.js'
import type { SchemaIR } from './ir.js'

let hasher: ReturnType<typeof xxhash> | undefined

export async function fingerprint(ir: SchemaIR): Promise<string> {
  return fingerprintOf(canonicalJson(ir))
}

/** The fingerprint of text already in canonical form (as a tenant stores it). */
export async function fingerprintOf(canonical: string): Promise<string> {
  hasher ??= xxhash()
  const api = await hasher
  return api.h64Raw(new TextEncoder().encode(canonical)).toString(16).padStart(16, '0')
}
