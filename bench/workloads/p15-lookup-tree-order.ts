// P15: a lookup of 1 000 posts to their authors among 1e5 users, against SQLite's
// LEFT JOIN of the same rows in the same run; and `sort k | take 10` on 1e6 rows,
// which reads in tree order, against `take 10` alone (docs/language.md "Lookups",
// "Order from the tree").
import Sqlite from 'better-sqlite3'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { Database } from '../../src/database/index.js'
import { tenantdbDataset } from '../harness/datasets.js'
import { spread } from '../harness/data.js'
import { ratePerS } from '../harness/timing.js'
import type { Workload } from '../harness/workload.js'

const posts = 1000
const repeats = 20

const schema = `
collection users { id: int primary, name: string, email: string }
collection posts { id: int primary, author: int, title: string }
`

export const p15: Workload = {
  id: 'P15',
  title: 'lookup of posts to authors; sort on the key then take',
  async run(ctx, rec) {
    const userCount = ctx.size(100_000, 10_000)
    const rowCount = ctx.size(1_000_000, 100_000)
    const users = Array.from({ length: userCount }, (_, i) => ({ id: i, name: `user ${i}`, email: `u${i}@example.com` }))
    const postRows = Array.from({ length: posts }, (_, i) => ({ id: i, author: spread(i, userCount), title: `post ${i}` }))

    const dir = ctx.scratch('p15-tenantdb')
    const schemaFile = join(dir, 'p15.eel')
    writeFileSync(schemaFile, schema)
    const db = await Database.open(join(dir, 'db'), { schema: [schemaFile] })
    const sqlite = new Sqlite(join(ctx.scratch('p15-sqlite'), 'p15.sqlite'))
    try {
      const tenant = db.tenant('default')
      ctx.progress.step(`loading ${userCount} users and ${posts} posts`)
      for (let from = 0; from < userCount; from += 50_000) await tenant.query('insert users $rows', { rows: users.slice(from, from + 50_000) })
      await tenant.query('insert posts $rows', { rows: postRows })
      sqlite.pragma('journal_mode = WAL')
      sqlite.exec('CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT NOT NULL, email TEXT NOT NULL); CREATE TABLE posts (id INTEGER PRIMARY KEY, author INTEGER NOT NULL, title TEXT NOT NULL)')
      const insertUser = sqlite.prepare('INSERT INTO users (id, name, email) VALUES (@id, @name, @email)')
      const insertPost = sqlite.prepare('INSERT INTO posts (id, author, title) VALUES (@id, @author, @title)')
      sqlite.transaction(() => {
        for (const u of users) insertUser.run(u)
        for (const p of postRows) insertPost.run(p)
      })()
      const join_ = sqlite.prepare('SELECT p.id, p.title, u.name FROM posts p LEFT JOIN users u ON u.id = p.author ORDER BY p.id').raw(true)
      const text = 'posts | lookup a: users on author == id | select id, title, name: a.name'
      const expect = (rows: unknown[][]) => {
        if (rows.length !== posts || rows[posts - 1]?.[2] !== `user ${spread(posts - 1, userCount)}`) throw new Error('the lookup returned other rows')
      }
      expect((await tenant.query(text)).rows)
      expect(join_.all() as unknown[][])

      const kv = (await tenantdbDataset(ctx, rowCount)).tenant('default')
      const sorted = await kv.query('kv | sort k | take 10')
      const plain = await kv.query('kv | take 10')
      if (JSON.stringify(sorted.rows) !== JSON.stringify(plain.rows) || sorted.stats.rows_examined !== 10) {
        throw new Error(`sort k | take 10 examined ${sorted.stats.rows_examined} rows`)
      }

      const samples = await ctx.rounds({
        tenantdb_lookup: () => ratePerS(posts * repeats, async () => {
          for (let i = 0; i < repeats; i += 1) expect((await tenant.query(text)).rows)
        }),
        sqlite_join: () => ratePerS(posts * repeats, () => {
          for (let i = 0; i < repeats; i += 1) expect(join_.all() as unknown[][])
        }),
        sort_take: () => ratePerS(repeats * 10, async () => {
          for (let i = 0; i < repeats * 10; i += 1) await kv.query('kv | sort k | take 10')
        }),
        take: () => ratePerS(repeats * 10, async () => {
          for (let i = 0; i < repeats * 10; i += 1) await kv.query('kv | take 10')
        }),
      })
      rec.figure('tenantdb_lookup', `tenantdb \`${text}\``, 'rows/s', samples.tenantdb_lookup)
      rec.figure('sqlite_join', 'better-sqlite3 `posts LEFT JOIN users ON u.id = p.author`', 'rows/s', samples.sqlite_join)
      rec.figure('sort_take', 'tenantdb `kv | sort k | take 10`', 'queries/s', samples.sort_take)
      rec.figure('take', 'tenantdb `kv | take 10`', 'queries/s', samples.take)
      rec.ratio('lookup: tenantdb / sqlite join', 'tenantdb_lookup', 'sqlite_join', '>=', 0.7)
      rec.ratio('sort k | take 10 / take 10', 'sort_take', 'take', '>=', 0.5)
      rec.note(`${posts} posts over ${userCount} users; sort and take over ${rowCount} rows`)
    } finally {
      sqlite.close()
      await db.close()
    }
  },
}
