// Unique indexes checked per row against the transaction's own earlier rows by one
// lookup (write.ts, checkUnique): a value taken earlier in the same batch or block is
// refused, one released earlier in it (an update moved it, a delete dropped it) may be
// taken again, and a committed holder counts unless the transaction removed it. A
// large batch in no key order checks in linear time (it was quadratic: a range read
// merging every earlier write per row).
import t from 'tap'
import { openDatabase } from './helpers/database.js'

const schema = 'collection users {\n  id: int primary,\n  email: string unique,\n  n: int?,\n}\n'

t.test('a value taken earlier in the same batch is refused, wherever it stands', async (t) => {
  const { db } = await openDatabase(t, schema)
  const users = db.tenant('default')
  const rows = Array.from({ length: 3000 }, (_, i) => ({ id: (i * 7919) % 3001, email: `u${i}@x` }))
  rows.push({ id: 5000, email: 'u17@x' })
  await t.rejects(users.query('insert users $rows', { rows }), { code: 'constraint_violation', message: /already holds string "u17@x"/ })
  t.same((await users.query('users | count')).rows, [[0]], 'nothing of the batch was written')
  rows.pop()
  await users.query('insert users $rows', { rows })
  t.same((await users.query('users | count')).rows, [[3000]])
  await t.rejects(users.query('insert users {id: 9000, email: "u2999@x"}'), { code: 'constraint_violation' }, 'a committed holder counts')
})

t.test('a value released earlier in the block may be taken again; a committed holder removed by the block does not count', async (t) => {
  const { db } = await openDatabase(t, schema)
  const users = db.tenant('default')
  await users.query('insert users [{id: 1, email: "a"}, {id: 2, email: "b"}]')
  // Row 1 moves from a to c, then row 3 takes a: allowed.
  await users.query('atomic { users | where id == 1 | update {email: "c"}; insert users {id: 3, email: "a"} }')
  // Row 2 is deleted, then row 4 takes b: allowed.
  await users.query('atomic { users | where id == 2 | delete; insert users {id: 4, email: "b"} }')
  // Row 5 takes d, row 6 tries d in the same block: refused, and nothing of the block lands.
  await t.rejects(users.query('atomic { insert users {id: 5, email: "d"}; insert users {id: 6, email: "d"} }'), { code: 'constraint_violation' })
  // Row 7 takes e then moves to f; row 8 then takes e: allowed.
  await users.query('atomic { insert users {id: 7, email: "e"}; users | where id == 7 | update {email: "f"}; insert users {id: 8, email: "e"} }')
  // A row keeping its own value is not its own rival.
  await users.query('users | where id == 3 | update {n: 1}')
  const rows = (await users.query('users | sort id | select id, email')).rows
  t.same(rows, [[1, 'c'], [3, 'a'], [4, 'b'], [7, 'f'], [8, 'e']])
})
