// The commit format of crates/storage/src/commit/codec.rs (the WAL frame payload), written
// (commit-writer.ts) and read (here) so a commit crosses the binding as one Buffer,
// which the storage core checks and logs as it is (docs/format.md, "Commit payload").
// Kept in step with Rust's encoder by one hand-written vector
// (crates/storage/tests/vectors/commit_every_op.hex, test/engine-commit-codec.test.ts).

export type Op =
  | { op: 'put'; tree: string; key: Uint8Array; value: Uint8Array }
  | { op: 'delete'; tree: string; key: Uint8Array }
  | { op: 'drop_tree'; tree: string }
  | { op: 'copy_tree'; from: string; to: string }
  | { op: 'copy_tree_from_pin'; pin: string; from: string; to: string }
  | { op: 'pin'; name: string }
  /** Pins only the trees whose names start with `prefix` (a tenant's snapshot); format version 2 on. */
  | { op: 'pin_prefix'; name: string; prefix: string }
  | { op: 'unpin'; name: string }
  | { op: 'compact_tree'; tree: string }

export interface CommitRecord {
  /** The caller's metadata, opaque to the engine. */
  meta: Uint8Array
  ops: Op[]
}

/** The version written. Version 1 (WAL frames written before pin_prefix existed) is still read. */
export const commit_format_version = 2
const commit_format_version_1 = 1
export const op_tags = {
  put: 1, delete: 2, drop_tree: 3, copy_tree: 4, copy_tree_from_pin: 5, pin: 6, unpin: 7, compact_tree: 8, pin_prefix: 9,
} as const

/** The payload's format version; throws on one this code does not read. */
function formatVersion(payload: Buffer): number {
  const version = payload.readUInt8(0)
  if (version !== commit_format_version && version !== commit_format_version_1) throw new Error('unknown commit payload version')
  return version
}
const names = Object.fromEntries(Object.entries(op_tags).map(([name, tag]) => [tag, name])) as Record<number, Op['op']>

/** Only the metadata of a frame payload (its operations unread); throws on anything this version did not write. */
export function commitMeta(payload: Buffer): Buffer {
  if (payload.length < 5) throw new Error('commit payload is truncated')
  formatVersion(payload)
  const len = payload.readUInt32LE(1)
  if (5 + len > payload.length) throw new Error('commit payload is truncated')
  return payload.subarray(5, 5 + len)
}

/** Decodes a frame payload; throws on anything this version did not write. */
export function decodeCommit(payload: Buffer): CommitRecord {
  let at = 0
  const need = (n: number) => {
    if (at + n > payload.length) throw new Error('commit payload is truncated')
  }
  const bytes = () => {
    need(4)
    const len = payload.readUInt32LE(at)
    at += 4
    need(len)
    const slice = payload.subarray(at, at + len)
    at += len
    return slice
  }
  const text = () => bytes().toString('utf8')
  need(1)
  const version = formatVersion(payload)
  at += 1
  const meta = bytes()
  need(4)
  const count = payload.readUInt32LE(at)
  at += 4
  const ops: Op[] = []
  for (let i = 0; i < count; i += 1) {
    need(1)
    const tag = payload.readUInt8(at++)
    const name = tag === op_tags.pin_prefix && version === commit_format_version_1 ? undefined : names[tag]
    switch (name) {
      case 'put': ops.push({ op: name, tree: text(), key: bytes(), value: bytes() }); break
      case 'delete': ops.push({ op: name, tree: text(), key: bytes() }); break
      case 'drop_tree': case 'compact_tree': ops.push({ op: name, tree: text() }); break
      case 'copy_tree': ops.push({ op: name, from: text(), to: text() }); break
      case 'copy_tree_from_pin': ops.push({ op: name, pin: text(), from: text(), to: text() }); break
      case 'pin': case 'unpin': ops.push({ op: name, name: text() }); break
      case 'pin_prefix': ops.push({ op: name, name: text(), prefix: text() }); break
      default: throw new Error('unknown operation in commit payload')
    }
  }
  if (at !== payload.length) throw new Error('commit payload has trailing bytes')
  return { meta, ops }
}
