// tenant.transaction(fn): several statements with application code between them, on one
// snapshot, committed together first-committer-wins; a throw leaves nothing; a conflict
// runs fn again (retries); two concurrent read-modify-write transactions lose no update.
import t from 'tap'
import { QueryError } from '../src/query/index.js'
import { openDatabase } from './helpers/database.js'

const schema = 'collection accounts { id: int primary, balance: int }  collection log { what: string }'

const internalsLsn = (r: { lsn?: number }) => r.lsn ?? -1

const rejected = (p: Promise<unknown>) => p.then(() => undefined, (e: unknown) => e)

t.test('statements see each other; others see nothing until commit', async (t) => {
  const { db } = await openDatabase(t, schema)
  const main = db.tenant('default')
  await main.query('insert accounts [{id: 1, balance: 100}, {id: 2, balance: 0}]')
  let outsideDuring: unknown
  const before = internalsLsn(await main.query('insert log {what: "start"}'))
  const result = await main.transaction(async (tx) => {
    t.ok(tx.lsn >= before, 'the transaction reads a snapshot at or after the last commit')
    const from = (await tx.query('accounts | get 1 | select balance')).rows[0]?.[0] as number
    const amount = Math.floor(from / 4) // application logic between statements
    await tx.query('accounts | where id == 1 | update {balance: balance - $a}', { a: amount })
    await tx.query('accounts | where id == 2 | update {balance: balance + $a}', { a: amount })
    const inside = await tx.query('accounts | sort id | select balance')
    outsideDuring = (await main.query('accounts | sort id | select balance')).rows
    const logged = await tx.query('insert log {what: "moved"} returning id')
    return { inside: inside.rows, id: logged.rows[0]?.[0] }
  })
  t.same(result, { inside: [[75], [25]], id: 2 }, 'the value fn resolved with')
  t.same(outsideDuring, [[100], [0]], 'not visible before commit')
  t.same((await main.query('accounts | sort id | select balance')).rows, [[75], [25]], 'visible after')
})

t.test('a throw in the middle leaves nothing', async (t) => {
  const { db } = await openDatabase(t, schema)
  const main = db.tenant('default')
  await main.query('insert accounts {id: 1, balance: 10}')
  let handle: Parameters<Parameters<typeof main.transaction>[0]>[0] | undefined
  const thrown = await rejected(main.transaction(async (tx) => {
    handle = tx
    await tx.query('accounts | get 1 | update {balance: 0}')
    await tx.query('insert log {what: "x"}')
    throw new Error('application says no')
  }))
  t.match(thrown, { message: 'application says no' })
  t.same((await main.query('accounts | get 1 | select balance')).rows, [[10]])
  t.same((await main.query('log | count')).rows, [[0]])
  t.match(await rejected(handle!.query('log | count')), { code: 'not_allowed_here', message: /has ended/ }, 'the handle is dead afterwards')

  const failed = await rejected(main.transaction(async (tx) => {
    await tx.query('insert log {what: "first"}')
    await tx.query('insert accounts {id: 1, balance: 5}').catch(() => undefined) // a duplicate key, caught by the application
    return 'done'
  }))
  t.match(failed, { code: 'constraint_violation' }, 'a failed statement fails the transaction even when fn catches it')
  t.same((await main.query('log | count')).rows, [[0]], 'nothing of it was written')
})

t.test('a conflict retries on a new snapshot; without retries it rejects', async (t) => {
  const { db } = await openDatabase(t, schema)
  const main = db.tenant('default')
  await main.query('insert accounts {id: 1, balance: 0}')
  let runs = 0
  const value = await main.transaction(async (tx) => {
    runs += 1
    const seen = (await tx.query('accounts | get 1 | select balance')).rows[0]?.[0] as number
    // Another writer commits the same row between this read and this write, once.
    if (runs === 1) await main.query('accounts | get 1 | update {balance: balance + 100}')
    await tx.query('accounts | get 1 | update {balance: $b}', { b: seen + 1 })
    return seen
  }, { retries: 2 })
  t.equal(runs, 2, 'ran again after the conflict')
  t.equal(value, 100, 'the second run read the other writer\'s commit')
  t.same((await main.query('accounts | get 1 | select balance')).rows, [[101]], 'no update lost')

  const conflict = await rejected(main.transaction(async (tx) => {
    await tx.query('accounts | get 1 | select balance')
    await main.query('accounts | get 1 | update {balance: 0}')
    await tx.query('accounts | get 1 | update {balance: 1}')
  }))
  t.type(conflict, QueryError)
  t.match(conflict, { code: 'conflict' })
  t.same((await main.query('accounts | get 1 | select balance')).rows, [[0]])
  t.match(await rejected(main.transaction(async () => 1, { retries: -1 })), { code: 'type_error' })
})

t.test('concurrent read-modify-write transactions lose no update', async (t) => {
  const { db } = await openDatabase(t, schema)
  const main = db.tenant('default')
  await main.query('insert accounts {id: 1, balance: 0}')
  const workers = 6
  const increments = 10
  let attempts = 0
  await Promise.all(Array.from({ length: workers }, async () => {
    for (let i = 0; i < increments; i += 1) {
      await main.transaction(async (tx) => {
        attempts += 1
        const now = (await tx.query('accounts | get 1 | select balance')).rows[0]?.[0] as number
        await new Promise((resolve) => setImmediate(resolve)) // let the others interleave
        await tx.query('accounts | get 1 | update {balance: $b}', { b: now + 1 })
      }, { retries: 1000 })
    }
  }))
  t.same((await main.query('accounts | get 1 | select balance')).rows, [[workers * increments]], 'every increment counted')
  t.ok(attempts > workers * increments, `conflicts happened and were retried (${attempts} runs for ${workers * increments} increments)`)
})

t.test('a transaction on a suspended tenant is refused before fn runs', async (t) => {
  const { db } = await openDatabase(t, schema)
  await db.ops({ op: 'suspend', name: 'default' })
  let ran = false
  t.match(await rejected(db.tenant('default').transaction(async () => { ran = true })), { code: 'tenant_suspended' })
  t.notOk(ran)
})
