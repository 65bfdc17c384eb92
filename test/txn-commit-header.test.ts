// The commit header is written out by hand rather than by JSON.stringify of an object
// (src/txn/commit-header.ts), and its time is reused for the commits of one
// millisecond. What could break: a byte that differs from JSON.stringify's text (an
// escaped tenant name, a field out of order, `ops` written when empty), a time kept
// from another millisecond, an invalid time that no longer throws.
import t from 'tap'
import { decodeCommitHeader, encodeCommitHeader, type CommitKind } from '../src/txn/index.js'

/** The header as it was made before: JSON.stringify of the object, field by field. */
function reference(tenant: string, at: Date, kind: CommitKind, ops: string, restored: { snapshot: string; lsn: number } | null): string {
  const header: Record<string, unknown> = { tenant, at: at.toISOString(), kind }
  if (ops !== '') header.ops = ops
  if (restored !== null) header.restored = restored
  return JSON.stringify(header)
}

t.test('the header is byte for byte JSON.stringify\'s text of the same fields', async (t) => {
  const tenants = ['default', 'acme_test', 'q"uote', 'back\\slash', 'line\nbreak', 'ünïcode ✓', '\u0001control', 'emoji 🦀']
  const times = [new Date(0), new Date('2026-11-29T05:00:00.123Z'), new Date(8.64e15), new Date(-62198755200000)]
  const kinds: CommitKind[] = ['write', 'migration', 'catalog']
  for (const tenant of tenants) {
    for (const at of times) {
      for (const kind of kinds) {
        for (const ops of ['', 'i', 'iud-', '-'.repeat(50)]) {
          for (const restored of [null, { snapshot: 's"1', lsn: 42 }]) {
            const made = encodeCommitHeader(tenant, at, kind, ops, restored)
            const wanted = reference(tenant, at, kind, ops, restored)
            if (made.toString('utf8') !== wanted) t.fail(`${JSON.stringify([tenant, at, kind, ops, restored])}: ${made.toString('utf8')} != ${wanted}`)
            const decoded = decodeCommitHeader(made)
            if (decoded?.tenant !== tenant || decoded.at !== at.toISOString() || decoded.ops !== ops) t.fail(`${wanted} reads back as ${JSON.stringify(decoded)}`)
          }
        }
      }
    }
  }
  t.pass('every combination checked')
})

t.test('each commit carries its own time, whichever came before it', async (t) => {
  const times = [1000, 1000, 1001, 999, 1000, 1_700_000_000_000, 1000].map((ms) => new Date(ms))
  for (const at of times) t.equal(JSON.parse(encodeCommitHeader('a', at, 'write').toString()).at, at.toISOString())
  // A Date changed after it was used is read again (the time is kept by its value, not by the object).
  const at = new Date(5000)
  encodeCommitHeader('a', at, 'write')
  at.setTime(6000)
  t.equal(JSON.parse(encodeCommitHeader('a', at, 'write').toString()).at, new Date(6000).toISOString())
})

t.test('an invalid time throws, as before', async (t) => {
  t.throws(() => encodeCommitHeader('a', new Date(Number.NaN), 'write', 'i'), RangeError)
  t.throws(() => encodeCommitHeader('a', new Date(Number.NaN), 'write', 'i'), RangeError, 'and again: nothing of it was kept')
})
