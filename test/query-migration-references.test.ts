// Lazy migration of references: a field that becomes a reference is checked over the
// stored rows (a dangling value blocks the migration, nothing is written, as a unique
// index over duplicates does); clean data migrates, with the reference's index built;
// removing a reference is applied and keeps the data.
import t from 'tap'
import { expectBlocked, phase, planned } from './migration-fixtures/harness.js'
import { tempDir } from './helpers/temp-dir.js'

const v1 = 'collection users { id: int primary }  collection posts { id: int primary, author: int }'
const v2 = 'collection users { id: int primary }  collection posts { id: int primary, author: ref users on delete cascade }'

t.test('the plan checks the rows of a field that becomes a reference, after building its index', async (t) => {
  t.same(await planned(v1, v2), ['build index posts.author (author) from existing rows', 'check that every posts.author names a row of users'])
  t.same(await planned(v2, v1), ['drop index posts.author'], 'removing a reference drops only the index it brought')
  t.same(await planned(v2, v2.replace('on delete cascade', 'on delete refuse')), [], 'changing the action changes no data')
})

t.test('dangling data blocks; fixed data migrates; the reference then holds', async (t) => {
  const dir = tempDir(t)
  await phase(dir, v1, async (db) => {
    await db.run('a', 'insert users [{id: 1}, {id: 2}]')
    await db.run('a', 'insert posts [{id: 10, author: 1}, {id: 11, author: 7}]')
  })
  const lsn = await phase(dir, v2, async (db) => {
    const before = db.lsn()
    await expectBlocked(t, db, 'a', 'posts | count', "collection 'posts': field 'author' cannot become a reference to 'users': the row with key int 11 refers to int 7, which 'users' does not hold (fix or delete such rows first)")
    t.equal(db.lsn(), before, 'nothing was committed')
    return before
  })
  await phase(dir, v1, async (db) => {
    t.equal(db.lsn(), lsn)
    await db.run('a', 'posts | get 11 | update {author: 2}')
  })
  await phase(dir, v2, async (db) => {
    t.same((await db.rows('a', 'posts | sort id | select id, author')), [{ id: 10, author: 1 }, { id: 11, author: 2 }])
    t.same(db.indexEntries('a', 'posts', 'author'), [[1, 10], [2, 11]], 'the index built from the rows')
    t.match((await db.error('a', 'insert posts {id: 12, author: 9}')).code, 'constraint_violation')
    await db.run('a', 'users | get 2 | delete')
    t.same(await db.rows('a', 'posts | select id'), [{ id: 10 }], 'the declared cascade')
  })
  await phase(dir, v1, async (db) => {
    t.same(await db.run('a', 'insert posts {id: 12, author: 9}').then((r) => r.rows), [[1]], 'without the reference, anything goes again')
  })
})
