// Crash: auto ids across kill -9 of the real server. Each cycle starts `tenantdb
// serve` on the same directory; four clients insert into an auto-id collection while a
// fifth deletes the highest rows and inserts again (and each cycle starts by deleting
// the highest rows the last one left); the server is killed with SIGKILL 5–60 ms after
// its first answer. With the server dead, a copy of the directory is
// opened in-process and its whole change history read: no id may ever be inserted
// twice (an id of a committed row issued again, even one deleted since), every row
// must be the one its id was inserted as, and no insert may have failed (a conflict
// over the counter, or a reissued id colliding with a stored row).
//
//   TENANTDB_AUTO_ID_KILL9_CYCLES  cycles (default 12)
import { cpSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { Database } from '../src/database/index.js'
import type { Value } from '../src/lang/ast.js'
import { spawnCli } from './helpers/spawn-cli.js'
import { tempDir } from './helpers/temp-dir.js'

const cycles = Number(process.env.TENANTDB_AUTO_ID_KILL9_CYCLES ?? 12)
const token = 'autoid-k9-autoid-k9-autoid-k9-00'
const schema = 'collection events { client: int, seq: int }\n'
const inserters = 4

async function post(url: string, query: string, params: Record<string, Value> = {}): Promise<{ status: number; body: unknown }> {
  const res = await fetch(`${url}/t/default/query`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ query, params }),
  })
  const text = await res.text().catch(() => '')
  let body: unknown = text
  try { body = JSON.parse(text) } catch { /* keep the text */ }
  return { status: res.status, body }
}

const isConflict = (res: { status: number; body: unknown }) =>
  res.status === 400 && (res.body as { code?: unknown } | null)?.code === 'conflict'

/** Every insert the tenant's change history holds: id → the rows inserted under it. */
async function insertedIds(db: Database): Promise<Map<number, string[]>> {
  const inserted = new Map<number, string[]>()
  let after = 0
  for (;;) {
    const page = await db.tenant('default').tail({ after, limit: 1000 })
    for (const event of page.events) {
      for (const change of event.changes) {
        if (change.op !== 'insert') continue
        const row = change.row as { client: number; seq: number }
        inserted.set(change.key as number, [...(inserted.get(change.key as number) ?? []), `${row.client}/${row.seq}`])
      }
    }
    after = page.last_lsn
    if (page.last_lsn >= page.head_lsn) return inserted
  }
}

t.test(`crash: no auto id of a committed row is issued again across ${cycles} kill -9 cycles`, async (t) => {
  const dir = tempDir(t, 'tenantdb-autoid-kill9-')
  const dbDir = join(dir, 'db')
  const checkDir = join(dir, 'check')
  const schemaFile = join(dir, 'schema.eel')
  writeFileSync(schemaFile, schema)
  const seqs = Array.from({ length: inserters + 1 }, () => 0)
  let acknowledged = 0
  let deletes = 0
  for (let cycle = 0; cycle < cycles; cycle += 1) {
    const server = spawnCli(t, ['serve', '--dir', dbDir, '--port', '0', '--schema', schemaFile, '--token', token], { LOG_LEVEL: 'warn' })
    const url = (await server.waitFor(/url: (http:\/\/\S+\/api\/v1)\n/))[1] as string
    // The highest rows the last cycle committed go first: their ids lie above every
    // stored one, and only the persisted high-water mark still knows them.
    const first = await post(url, 'events | sort id desc | take 3 | delete')
    t.equal(first.status, 200, `cycle ${cycle}: the highest rows were deleted after the restart`)
    if (first.status === 200) deletes += 1
    let killed = false
    let timer: NodeJS.Timeout | undefined
    const unexpected: string[] = []
    const answered = (status: number, body: unknown, what: string) => {
      if (timer === undefined) timer = setTimeout(() => { killed = true; server.child.kill('SIGKILL') }, 5 + ((cycle * 37) % 56))
      if (status === 200) acknowledged += 1
      else if (!killed) unexpected.push(`${what}: ${status} ${JSON.stringify(body)}`)
    }
    await Promise.all(Array.from({ length: inserters + 1 }, async (_, client) => {
      while (!killed) {
        try {
          if (client === inserters && seqs[client]! % 4 === 3) {
            // Delete the highest rows, so the largest stored id falls below ids already issued.
            const res = await post(url, 'events | sort id desc | take 3 | delete')
            if (res.status === 200) deletes += 1
            // A delete may lose a race with an insert it saw as not yet committed
            // (retrying is safe); an insert writes only keys of its own and never may.
            if (isConflict(res)) continue
            answered(res.status, res.body, 'delete')
            seqs[client]! += 1
            continue
          }
          const seq = seqs[client]!
          seqs[client] = seq + 1
          const res = await post(url, 'insert events {client: $c, seq: $s}', { c: client, s: seq })
          answered(res.status, res.body, `insert ${client}/${seq}`)
        } catch (err) {
          if (!killed) unexpected.push(`request failed before the kill: ${String((err as Error).cause ?? err)}`)
          return
        }
      }
    }))
    t.equal(await server.exited, 'SIGKILL', `cycle ${cycle}: the server was killed`)
    t.same(unexpected, [], `cycle ${cycle}: every answer before the kill was a success`)

    rmSync(checkDir, { recursive: true, force: true })
    cpSync(dbDir, checkDir, { recursive: true })
    const db = await Database.open(checkDir, { schema: [schemaFile] })
    try {
      const inserted = await insertedIds(db)
      const reissued = [...inserted].filter(([, rows]) => rows.length > 1)
      t.same(reissued, [], `cycle ${cycle}: no id was inserted twice in ${inserted.size} inserts`)
      const read = await db.tenant('default').query('events | select id, client, seq')
      t.not(read.truncated, true, `cycle ${cycle}: every row is read (${read.rows.length}), none left past a limit`)
      const rows = read.rows
      const strays = rows.filter(([id, client, seq]) => inserted.get(id as number)?.[0] !== `${client}/${seq}`)
      t.same(strays, [], `cycle ${cycle}: every row is the one its id was inserted as`)
    } finally {
      await db.close()
    }
  }
  t.ok(acknowledged > cycles * inserters, `the clients had writes acknowledged (${acknowledged})`)
  t.ok(deletes > 0, `the highest rows were deleted (${deletes} times)`)
})
