// xxHash64, written from the algorithm's description with BigInt, slow and plain: an
// implementation independent of the xxhash-wasm module src/schema/fingerprint.ts uses,
// so a test can compute a fingerprint without the code under test.
// test/schema-fingerprint.test.ts checks it against xxHash's own published vectors.

const mask = (1n << 64n) - 1n
const P1 = 11400714785074694791n
const P2 = 14029467366897019727n
const P3 = 1609587929392839161n
const P4 = 9650029242287828579n
const P5 = 2870177450012600261n

const rotl = (x: bigint, r: bigint): bigint => ((x << r) | (x >> (64n - r))) & mask
const read64 = (b: Uint8Array, at: number): bigint => {
  let v = 0n
  for (let i = 7; i >= 0; i -= 1) v = (v << 8n) | BigInt(b[at + i] as number)
  return v
}
const read32 = (b: Uint8Array, at: number): bigint => BigInt(((b[at] as number) | ((b[at + 1] as number) << 8) | ((b[at + 2] as number) << 16) | ((b[at + 3] as number) << 24)) >>> 0)

function round(acc: bigint, lane: bigint): bigint {
  return (rotl((acc + lane * P2) & mask, 31n) * P1) & mask
}

function mergeRound(acc: bigint, v: bigint): bigint {
  return (((acc ^ round(0n, v)) * P1) + P4) & mask
}

/** XXH64 of `input` with `seed`, as a 64-bit unsigned BigInt. */
export function xxh64Reference(input: Uint8Array, seed = 0n): bigint {
  const len = input.length
  let at = 0
  let h: bigint
  if (len >= 32) {
    let v1 = (seed + P1 + P2) & mask
    let v2 = (seed + P2) & mask
    let v3 = seed & mask
    let v4 = (seed - P1) & mask
    for (; at + 32 <= len; at += 32) {
      v1 = round(v1, read64(input, at))
      v2 = round(v2, read64(input, at + 8))
      v3 = round(v3, read64(input, at + 16))
      v4 = round(v4, read64(input, at + 24))
    }
    h = (rotl(v1, 1n) + rotl(v2, 7n) + rotl(v3, 12n) + rotl(v4, 18n)) & mask
    h = mergeRound(h, v1)
    h = mergeRound(h, v2)
    h = mergeRound(h, v3)
    h = mergeRound(h, v4)
  } else {
    h = (seed + P5) & mask
  }
  h = (h + BigInt(len)) & mask
  for (; at + 8 <= len; at += 8) h = ((rotl(h ^ round(0n, read64(input, at)), 27n) * P1) + P4) & mask
  if (at + 4 <= len) {
    h = ((rotl(h ^ ((read32(input, at) * P1) & mask), 23n) * P2) + P3) & mask
    at += 4
  }
  for (; at < len; at += 1) h = (rotl(h ^ ((BigInt(input[at] as number) * P5) & mask), 11n) * P1) & mask
  h ^= h >> 33n
  h = (h * P2) & mask
  h ^= h >> 29n
  h = (h * P3) & mask
  h ^= h >> 32n
  return h
}

/** The fingerprint form docs/format.md gives: 16 lowercase hex digits. */
export function xxh64Hex(text: string): string {
  return xxh64Reference(new TextEncoder().encode(text)).toString(16).padStart(16, '0')
}
