import t from 'tap'
import { phase } from './migration-fixtures/harness.js'
import { tempDir } from './helpers/temp-dir.js'

t.test('smoke', async (t) => {
  const dir = tempDir(t)
  await phase(dir, 'collection users { id: int primary, name: string }', async (db) => {
    await db.run('a', 'insert users [{id: 1, name: "Ada"}, {id: 2, name: "Bo"}]')
    console.log(await db.rows('a', 'users'), db.lsn(), db.trees('a'))
  })
  await phase(dir, 'collection users { id: int primary, name: string, age: int? }', async (db) => {
    console.log(await db.rows('a', 'users'), db.lsn(), db.trees('a'))
  })
})
