// The whole of a cluster's stream, read with a NATS client of the test's own, to check
// what only the stream can show (docs/replication.md, "Invariants"): one history in LSN
// order, each term written by one node.
import { connect } from '@nats-io/transport-node'
import { jetstreamManager } from '@nats-io/jetstream'
import { decodeMessage, type StreamMessage } from '../../src/replication/messages.js'
import { clusterNames } from '../../src/replication/names.js'

export async function readClusterStream(url: string, cluster: string): Promise<Array<StreamMessage & { seq: number }>> {
  const nc = await connect({ servers: [url] })
  try {
    const jsm = await jetstreamManager(nc)
    const { stream } = clusterNames(cluster)
    const { state } = await jsm.streams.info(stream)
    const out: Array<StreamMessage & { seq: number }> = []
    for (let seq = state.first_seq; seq <= state.last_seq && state.messages > 0; seq++) {
      const stored = await jsm.streams.getMessage(stream, { seq })
      if (stored !== null) out.push({ ...decodeMessage(seq, stored.header, stored.data), seq })
    }
    return out
  } finally {
    await nc.close()
  }
}

/** What breaks the stream's invariants: a frame out of LSN order, a term going back, a term with two nodes. */
export function streamProblems(messages: ReadonlyArray<StreamMessage & { seq: number }>): string[] {
  const problems: string[] = []
  const nodes = new Map<number, string>()
  let lsn: number | null = null
  let term = 0
  for (const m of messages) {
    if (m.kind === 'term') {
      if (m.term <= term) problems.push(`seq ${m.seq}: term ${m.term} after term ${term}`)
      term = m.term
      if (lsn !== null && m.lsn !== lsn) problems.push(`seq ${m.seq}: term ${m.term} begins after LSN ${m.lsn}, the last frame was ${lsn}`)
    } else {
      if (m.term > term) problems.push(`seq ${m.seq}: a frame of term ${m.term} before its term record`)
      if (lsn !== null && m.lsn !== lsn + 1) problems.push(`seq ${m.seq}: frame ${m.lsn} after frame ${lsn}`)
      lsn = m.lsn
    }
    // A term has one primary: its record and every frame of it (its own, or republished when it took over again) name one node.
    const seen = nodes.get(m.term)
    if (seen === undefined) nodes.set(m.term, m.node)
    else if (seen !== m.node) problems.push(`seq ${m.seq}: a message of term ${m.term} from ${m.node}, the term is ${seen}'s`)
  }
  return problems
}
