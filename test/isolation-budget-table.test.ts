// The rate budgets' table (src/isolation/budget-table.ts; docs/operations.md,
// "Isolation"): a GCRA bucket per tenant and kind, one 64-bit word in shared memory,
// so another thread charging the same tenant spends the same budget; a drained slot is
// taken over when a tenant's probe finds no free one, so the table never fills.
// The other thread loads dist/ (run `npm run build:ts` first, as the CLI tests need).
import { Worker } from 'node:worker_threads'
import t from 'tap'
import { BudgetTable } from '../src/isolation/index.js'
import { budget_probe_slots, budget_slots } from '../src/limits.js'

const second_us = 1_000_000

t.test('a charge conforms within the burst, then owes; a refusal charges nothing', async (t) => {
  const table = new BudgetTable()
  const now = 1_000 * second_us
  const burst = second_us / 4
  // 100 a second with a quarter second of burst: 25 at once, the 26th waits 10 ms.
  for (let i = 0; i < 25; i += 1) t.equal(table.charge('acme', 'commits', 1, 100, burst, 0, now), 0)
  t.equal(table.charge('acme', 'commits', 1, 100, burst, 0, now), -10_000, 'the 26th is refused with no wait allowed, owing 10 ms')
  t.equal(table.charge('acme', 'commits', 1, 100, burst, 20_000, now), 10_000, 'allowed to wait 20 ms: charged, 10 ms to wait')
  t.equal(table.debt('acme', 'commits', burst, now), 10_000, 'the debt is that wait')
  t.equal(table.debt('acme', 'commits', burst, now + 10_000), 0, 'drained after it')
  t.equal(table.debt('other', 'commits', burst, now), 0, 'another tenant owes nothing')
  t.equal(table.debt('acme', 'rows_examined', burst, now), 0, 'another kind neither')
  // A cost known afterwards is charged whatever it is.
  t.equal(table.charge('acme', 'rows_examined', 1000, 100, burst, Infinity, now), 10 * second_us - burst)
})

t.test('another thread charges the same budget', async (t) => {
  const table = new BudgetTable()
  // The worker uses the same class through the built module, over the same memory.
  const worker = new Worker(`
    const { workerData, parentPort } = require('node:worker_threads')
    import(workerData.module).then(({ BudgetTable }) => {
      const table = new BudgetTable(workerData.buffer)
      for (let i = 0; i < 50; i += 1) table.charge('acme', 'commits', 1, 100, 250000, Infinity, workerData.now)
      parentPort.postMessage('charged')
    })
  `, { eval: true, workerData: { buffer: table.buffer, module: new URL('../src/isolation/budget-table.ts', import.meta.url).href.replace('/src/', '/dist/').replace(/\.ts$/, '.js'), now: 1_000 * second_us } })
  const message = await new Promise((resolve, reject) => { worker.once('message', resolve); worker.once('error', reject) })
  await worker.terminate()
  t.equal(message, 'charged')
  // 50 at 100 a second is half a second; a quarter second of it was burst.
  t.equal(table.debt('acme', 'commits', 250_000, 1_000 * second_us), 250_000, 'this thread sees the other thread\'s charges')
})

t.test('a drained slot is taken over; a full probe shares a slot', async (t) => {
  const table = new BudgetTable()
  const now = 1_000 * second_us
  // More tenants than the table holds, each owing for a second: most probes fill up.
  const names = Array.from({ length: budget_slots + budget_probe_slots * 4 }, (_, i) => `t${i}`)
  for (const name of names) table.charge(name, 'commits', 1, 1, 0, Infinity, now)
  const owing = names.filter((name) => table.debt(name, 'commits', 0, now) > 0).length
  // Probes that find no free slot share one (the stricter budget): most tenants have one.
  t.ok(owing >= budget_slots * 0.8, `most slots hold a tenant in debt (${owing} owe)`)
  // A second later every bucket has drained: a new tenant takes a drained slot, starting clean.
  const later = now + 2 * second_us
  t.equal(table.charge('newcomer', 'commits', 1, 1, second_us, 0, later), 0, 'a new tenant conforms at once')
  t.equal(table.debt('newcomer', 'commits', 0, later), second_us, 'and owes its own charge only')
})
