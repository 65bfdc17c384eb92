// Every tenant's rate budgets, shared by all threads of the process (docs/operations.md,
// "Isolation"). A budget is a GCRA bucket (the generic cell rate algorithm, a token
// bucket kept as one number): its theoretical arrival time `tat`, in microseconds. A
// charge of `cost` units at rate r moves tat to max(tat, now) + cost / r; the bucket
// conforms while tat - now <= its burst. One 64-bit word per bucket, so a charge is one
// compare-and-swap and every thread sees the same budget (a worker thread's reads and
// the opening thread's commits alike).
//
// | word | field                                                        |
// |-----:|--------------------------------------------------------------|
// |    0 | key: 64-bit hash of the tenant's name (0 = free slot)        |
// |  1–6 | tat of each budget kind, microseconds (budget_kinds order)   |
//
// A slot whose every bucket has drained is as good as free, and is taken by another
// tenant when its own probe finds none (so the table never fills); a tenant that finds
// neither shares the last slot probed, which only makes its budget stricter.
import { budget_slots, budget_probe_slots } from '../limits.js'

export const budget_kinds = ['commits', 'commits_reserved', 'write_bytes', 'write_bytes_reserved', 'rows_examined', 'rows_examined_reserved'] as const
export type BudgetKind = typeof budget_kinds[number]

const words_per_slot = 1 + budget_kinds.length
const kind_word: Record<BudgetKind, number> = Object.fromEntries(budget_kinds.map((k, i) => [k, i + 1])) as Record<BudgetKind, number>

/** Microseconds on a clock every thread of the process shares. */
export function nowUs(): number {
  return Math.round((performance.timeOrigin + performance.now()) * 1000)
}

/** FNV-1a over the name's UTF-16 units, 64 bits; never 0 (the free mark). */
function keyOf(tenant: string): bigint {
  let h = 0xcbf29ce484222325n
  for (let i = 0; i < tenant.length; i += 1) h = BigInt.asUintN(64, (h ^ BigInt(tenant.charCodeAt(i))) * 0x100000001b3n)
  return BigInt.asIntN(64, h === 0n ? 1n : h)
}

export class BudgetTable {
  readonly buffer: SharedArrayBuffer
  readonly #words: BigInt64Array
  /** Where this thread last found each tenant (checked against the slot's key on use). */
  readonly #found = new Map<string, { key: bigint; slot: number }>()

  /** A new table, or the one another thread of the process made (`buffer`). */
  constructor(buffer?: SharedArrayBuffer) {
    this.buffer = buffer ?? new SharedArrayBuffer(budget_slots * words_per_slot * 8)
    this.#words = new BigInt64Array(this.buffer)
  }

  /**
   * Charges `cost` units to `tenant`'s `kind` at `per_s` units a second, unless the
   * bucket would then be more than `wait_us_max` past conforming; returns how long to
   * wait until it conforms (0: at once), or -(that wait) when refused (nothing charged).
   * `wait_us_max` Infinity always charges: a cost known only afterwards (rows examined,
   * bytes written) is charged whatever it is, and the next statement waits it off.
   */
  charge(tenant: string, kind: BudgetKind, cost: number, per_s: number, burst_us: number, wait_us_max: number, now = nowUs()): number {
    const at = this.#slot(tenant) + kind_word[kind]
    const words = this.#words
    for (;;) {
      const tat = Atomics.load(words, at)
      const base = Math.max(Number(tat), now)
      const next = base + (cost * 1e6) / per_s
      const wait = Math.max(0, next - burst_us - now)
      if (wait > wait_us_max) return -wait
      if (Atomics.compareExchange(words, at, tat, BigInt(Math.round(next))) === tat) return wait
    }
  }

  /** How long `tenant`'s `kind` has to drain before it conforms again, in microseconds (0: it does). */
  debt(tenant: string, kind: BudgetKind, burst_us: number, now = nowUs()): number {
    const tat = Number(Atomics.load(this.#words, this.#slot(tenant) + kind_word[kind]))
    return Math.max(0, tat - burst_us - now)
  }

  #slot(tenant: string): number {
    const words = this.#words
    const known = this.#found.get(tenant)
    if (known !== undefined && Atomics.load(words, known.slot) === known.key) return known.slot
    const key = keyOf(tenant)
    const first = Number(BigInt.asUintN(64, key) % BigInt(budget_slots))
    const now = BigInt(nowUs())
    let drained = -1
    let slot = first * words_per_slot
    for (let probe = 0; probe < budget_probe_slots; probe += 1) {
      slot = ((first + probe) % budget_slots) * words_per_slot
      const held = Atomics.load(words, slot)
      if (held === key) return this.#remember(tenant, key, slot)
      if (held === 0n && Atomics.compareExchange(words, slot, 0n, key) === 0n) return this.#remember(tenant, key, slot)
      if (drained < 0 && this.#drainedAt(slot, now)) drained = slot
    }
    if (drained >= 0) {
      const held = Atomics.load(words, drained)
      if (Atomics.compareExchange(words, drained, held, key) === held) {
        for (let w = 1; w < words_per_slot; w += 1) Atomics.store(words, drained + w, 0n)
        return this.#remember(tenant, key, drained)
      }
    }
    return slot
  }

  #drainedAt(slot: number, now: bigint): boolean {
    for (let w = 1; w < words_per_slot; w += 1) if (Atomics.load(this.#words, slot + w) > now) return false
    return true
  }

  #remember(tenant: string, key: bigint, slot: number): number {
    if (this.#found.size >= budget_slots) this.#found.clear()
    this.#found.set(tenant, { key, slot })
    return slot
  }
}
