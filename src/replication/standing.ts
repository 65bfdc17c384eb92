// Where a node's directory stands against the cluster's stream (docs/replication.md,
// "Rejoining"), decided when the node starts: it can follow from some sequence; it is
// ahead (it holds frames of the stream's newest term the stream lacks: it was that
// term's primary, and publishes them if it takes over again); it diverged (it holds
// frames the cluster never acknowledged, written in a term the stream has moved past);
// or it is behind what the stream still holds. Two frames of one LSN and one term are
// the same frame, since a term has one primary and it wrote each LSN once; so are all
// frames before them (each node's history is a prefix of what that term's primary
// held when it took over). So one comparison of terms decides, and a binary search
// over LSNs finds the last frame the node and the stream share.
import { termOf, type ClusterState } from './cluster-state.js'
import type { StreamEnds, WalStream } from './wal-stream.js'

export type Standing =
  | { kind: 'follow'; from_seq: number; stream_term: number }
  | { kind: 'ahead'; from_seq: number; stream_lsn: number; stream_term: number }
  | { kind: 'diverged'; common_lsn: number; reason: string }
  | { kind: 'behind'; reason: string }

export async function standing(stream: WalStream, state: ClusterState, head: number): Promise<Standing> {
  const ends = await stream.ends()
  if (ends.last === null) return { kind: 'follow', from_seq: ends.last_seq + 1, stream_term: 0 }
  const stream_lsn = ends.last.message.lsn
  const stream_term = ends.last.message.term
  const shared = Math.min(head, stream_lsn)
  const matches = await matchesAt(stream, state, shared, ends)
  if (matches === 'unknown') return { kind: 'behind', reason: `the stream no longer holds frame ${shared}, so this node's frames cannot be checked against it` }
  if (!matches) return { kind: 'diverged', common_lsn: await commonLsn(stream, state, shared, ends), reason: `frame ${shared} here is of another term than the stream's` }
  if (head > stream_lsn) {
    const mine = [termOf(state, stream_lsn + 1), termOf(state, head)]
    if (mine.every((term) => term === null || term === stream_term)) return { kind: 'ahead', from_seq: ends.last_seq + 1, stream_lsn, stream_term }
    return { kind: 'diverged', common_lsn: stream_lsn, reason: `frames ${stream_lsn + 1}..${head} here were written in term ${mine[1]}, which the stream's term ${stream_term} superseded` }
  }
  const from_seq = await stream.firstAfter(head, ends)
  const next = from_seq <= ends.last_seq ? await stream.at(from_seq) : null
  if (next !== null && next.message.kind === 'frame' && next.message.lsn > head + 1) {
    return { kind: 'behind', reason: `the stream's frames after LSN ${head} begin at ${next.message.lsn}: the ones between were dropped by its limits` }
  }
  return { kind: 'follow', from_seq, stream_term }
}

/** Whether local frame `lsn` is the stream's: `unknown` when the stream no longer holds it. */
async function matchesAt(stream: WalStream, state: ClusterState, lsn: number, ends: StreamEnds): Promise<boolean | 'unknown'> {
  const local = termOf(state, lsn)
  if (lsn === 0 || local === null) return true
  const frame = await stream.frame(lsn, ends)
  if (frame === null) return 'unknown'
  return frame.message.term === local
}

/** The last LSN up to `upper` that this node and the stream share (0 when none can be shown). */
async function commonLsn(stream: WalStream, state: ClusterState, upper: number, ends: StreamEnds): Promise<number> {
  let low = Math.min(state.base_lsn, upper)
  let high = upper
  while (low < high) {
    const middle = Math.ceil((low + high) / 2)
    if ((await matchesAt(stream, state, middle, ends)) === true) low = middle
    else high = middle - 1
  }
  return low
}
