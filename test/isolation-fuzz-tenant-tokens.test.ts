// Tenant isolation by fuzzing (docs/api.md, "Access"): random sequences of requests,
// each with a random credential (every scope of every tenant's tokens, a revoked one,
// the service token, none, garbage), on random tenants (their own, others', forks, names
// that do not exist), over real HTTP, against a model of what each token opens. No
// response body, and no event on a WebSocket tail, ever holds a row, an event, a
// snapshot name or a tenant name of a tenant the token does not open: every such string
// starts with its tenant's name, so a body is checked for every tenant name the token
// may not see (except the names the request itself carried: an echo is no leak).
// `TENANTDB_ISOLATION_SEED` replays a run, `TENANTDB_ISOLATION_STEPS` lengthens it.
import { createRequire } from 'node:module'
import t from 'tap'
import { openDatabase } from './helpers/database.js'
import { api, startServer } from './helpers/http-server.js'
import { pollUntil } from './helpers/poll.js'
import { rng } from './helpers/rng.js'
import { issue } from './helpers/tenant-tokens.js'
import { AccessTokens } from '../src/database/index.js'

const service = 'isolation-fuzz-service-token-0123456789'
const schema = 'collection users { id: int primary, name: string }'
const seed = Number(process.env.TENANTDB_ISOLATION_SEED ?? 20_260_901)
const steps = Number(process.env.TENANTDB_ISOLATION_STEPS ?? 600)

interface WsClient {
  on(event: 'message', listener: (data: Buffer) => void): WsClient
  on(event: 'open', listener: () => void): WsClient
  on(event: 'close' | 'error', listener: () => void): WsClient
  close(): void
}
const WebSocket = createRequire(import.meta.url)('ws') as new (url: string) => WsClient

type Scope = 'read' | 'write' | 'admin'
interface Holder {
  label: string
  secret: string | null
  /** The tenants it opens (null: every one, the service token). */
  opens: Set<string> | null
  scope?: Scope
}

t.test('isolation-fuzz: no answer or tail event holds a name of a tenant the token does not open', async (t) => {
  t.comment(`seed ${seed}, ${steps} steps (TENANTDB_ISOLATION_SEED, TENANTDB_ISOLATION_STEPS)`)
  const random = rng(seed)
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T
  const { db } = await openDatabase(t, schema)
  const first = await startServer(t, { token: service, db })
  const admin = api(first.origin, service)
  // Revoked and garbage tokens are wrong tokens, which the throttle counts (20 a minute
  // per address): every batch of steps goes to a fresh server over the same database.
  const batch_steps = 40
  let origin = first.origin

  // The model: every tenant that ever existed, its parent, whether it exists now.
  const parents = new Map<string, string | null>()
  const exists = new Set<string>()
  const snapshots = new Map<string, string[]>()
  let counter = 0
  const base = ['tnalpha', 'tnbravo', 'tncharlie']
  const holders: Holder[] = [
    { label: 'service', secret: service, opens: null },
    { label: 'none', secret: null, opens: new Set() },
    { label: 'garbage', secret: 'tdb_not-a-token-at-all-0000000000000000000000', opens: new Set() },
  ]
  for (const name of base) {
    t.equal((await admin('/api/v1/t/default/ops', { json: { op: 'create', name } })).status, 200)
    parents.set(name, null)
    exists.add(name)
    snapshots.set(name, [])
    await admin(`/api/v1/t/${name}/query`, { json: { query: `insert users [{id: 1, name: "${name}-r1"}, {id: 2, name: "${name}-r2"}]` } })
    for (const scope of ['read', 'write', 'admin'] as const) {
      holders.push({ label: `${name}:${scope}`, secret: (await issue(db, name, scope)).token, opens: new Set([name]), scope })
    }
    const revoked = await issue(db, name, 'admin')
    await AccessTokens.of(db).revoke(name, revoked.id)
    holders.push({ label: `${name}:revoked`, secret: revoked.token, opens: new Set() })
  }

  /** Names a holder may see: the tenants it opens and the tenants their data came from. */
  const visible = (holder: Holder): Set<string> | null => {
    if (holder.opens === null) return null
    const names = new Set<string>()
    for (const opened of holder.opens) {
      for (let name: string | null | undefined = opened; name !== null && name !== undefined; name = parents.get(name)) names.add(name)
    }
    return names
  }
  const leaks = (holder: Holder, text: string, asked: string): string[] => {
    const seen = visible(holder)
    if (seen === null) return []
    return [...parents.keys()].filter((name) => !seen.has(name) && !asked.includes(name) && text.includes(name))
  }

  // A WebSocket tail for each tenant token on its tenant, checked for the whole run.
  const tailLeaks: string[] = []
  const sockets: WsClient[] = []
  const tails: Array<{ tenant: string; seen: { lsn: number } }> = []
  for (const holder of holders.filter((h) => h.scope !== undefined)) {
    const [tenant = ''] = [...(holder.opens as Set<string>)]
    const seen = { lsn: 0 }
    const socket = new WebSocket(`${first.origin.replace('http', 'ws')}/api/v1/t/${tenant}/tail?after=0&token=${holder.secret}`)
    socket.on('message', (data) => {
      const text = data.toString('utf8')
      seen.lsn = Math.max(seen.lsn, (JSON.parse(text) as { lsn: number }).lsn)
      for (const name of leaks(holder, text, '')) tailLeaks.push(`${holder.label}'s tail: ${name}`)
    })
    await new Promise<void>((resolve, reject) => { socket.on('open', resolve); socket.on('error', reject) })
    sockets.push(socket)
    tails.push({ tenant, seen })
  }

  const statuses = new Map<string, number>()
  /** The LSN of each tenant's last write: its tails must reach it. */
  const lastWrite = new Map<string, number>()
  /** Whether tenant tokens succeeded on their own tenants, and on forks they made. */
  const tokenSuccesses = new Set<string>()
  let checked = 0
  for (let step = 0; step < steps; step += 1) {
    if (step > 0 && step % batch_steps === 0) origin = (await startServer(t, { token: service, db })).origin
    const holder = pick(holders)
    // Half the time a tenant the token opens, else any tenant there ever was, or none.
    const own = holder.opens === null ? [] : [...holder.opens]
    const tenant = own.length > 0 && random() < 0.5 ? pick(own) : random() < 0.1 ? `tnghost${step}` : pick([...parents.keys()])
    const other = pick([...parents.keys()])
    const snapshotOf = (name: string) => pick([...(snapshots.get(name) ?? []), `${name}-s0`])
    const n = (counter += 1)
    const fork = `tnfork${String(n).padStart(4, '0')}`
    const requests: Array<[string, string, unknown?, Record<string, string>?]> = [
      ['GET', `/api/v1/t/${tenant}/collections`],
      ['GET', `/api/v1/t/${tenant}/schema`],
      ['GET', `/api/v1/t/${tenant}/snapshots`],
      ['GET', `/api/v1/t/${tenant}/diff?from=${snapshotOf(random() < 0.7 ? tenant : other)}`],
      ['GET', `/api/v1/t/${tenant}/tail?after=0`],
      ['POST', `/api/v1/t/${tenant}/query`, { query: 'users | select name' }],
      ['POST', `/api/v1/t/${tenant}/query`, { query: 'users | take 3' }, { 'service-snapshot': snapshotOf(random() < 0.7 ? tenant : other) }],
      ['POST', `/api/v1/t/${tenant}/query`, { query: `insert users {id: ${1000 + n}, name: "${tenant}-r${n}"}` }],
      ['POST', `/api/v1/t/${tenant}/query`, { query: `users | where id == 1 | update {name: "${tenant}-u${n}"}` }],
      ['POST', `/api/v1/t/${tenant}/ops`, { op: 'snapshot', target: `${tenant}-s${n}` }],
      ['POST', `/api/v1/t/${tenant}/ops`, { op: 'fork', name: random() < 0.5 ? tenant : `${tenant}@${snapshotOf(tenant)}`, target: fork }],
      ['POST', `/api/v1/t/${tenant}/ops`, { op: 'fork', name: other, target: fork }],
      ['POST', `/api/v1/t/${tenant}/ops`, { op: pick(['suspend', 'resume', 'resume']), name: pick([tenant, other]) }],
      ['POST', `/api/v1/t/${tenant}/ops`, { op: 'compact' }],
      ['GET', `/api/v1/t/${tenant}/tokens`],
      ['GET', '/api/v1/tenants'],
      ['GET', '/api/v1/access'],
      ['GET', '/api/v1/stats'],
    ]
    // Now and then the service token deletes a fork: the tokens that forked it lose it.
    const forks = [...exists].filter((name) => name.startsWith('tnfork'))
    const deleting = holder.opens === null && forks.length > 0 && random() < 0.1
    const [method, path, body, extra] = deleting ? ['POST', '/api/v1/t/default/ops', { op: 'delete', name: pick(forks) }, undefined] : pick(requests)
    const headers: Record<string, string> = { ...extra }
    if (holder.secret !== null) headers.authorization = `Bearer ${holder.secret}`
    if (body !== undefined) headers['content-type'] = 'application/json'
    const res = await fetch(origin + path, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) })
    const text = await res.text()
    const asked = `${path} ${JSON.stringify(body ?? '')} ${JSON.stringify(extra ?? {})}`
    const label = `${step}: ${holder.label} ${method} ${asked} → ${res.status}`
    statuses.set(String(res.status), (statuses.get(String(res.status)) ?? 0) + 1)
    const found = leaks(holder, text, asked)
    if (found.length > 0) t.fail(`${label} leaks ${found.join(', ')}: ${text.slice(0, 300)}`)
    checked += 1
    const pathTenant = /^\/api\/v1\/t\/([^/?]+)/.exec(path)?.[1]
    if (res.status < 300 && holder.opens !== null && pathTenant !== undefined && !holder.opens.has(pathTenant)) t.fail(`${label}: a success on a tenant the token does not open`)
    if (res.status < 300 && holder.opens !== null && pathTenant === undefined && !['/api/v1/access', '/api/v1/health'].includes(path)) t.fail(`${label}: a success on a server-wide route`)
    if (res.status >= 500) t.fail(`${label}: ${text}`)
    if (res.status < 300 && holder.scope !== undefined && pathTenant !== undefined) tokenSuccesses.add(pathTenant.startsWith('tnfork') ? 'fork' : 'own')
    const written = res.status === 200 && path.endsWith('/query') ? (JSON.parse(text) as { lsn?: number }).lsn : undefined
    if (written !== undefined && pathTenant !== undefined) lastWrite.set(pathTenant, written)

    // The model follows what succeeded.
    if (res.status === 200 && method === 'POST' && path.endsWith('/ops')) {
      const op = body as { op: string; name?: string; target?: string }
      if (op.op === 'snapshot') snapshots.get(pathTenant as string)?.push(op.target as string)
      if (op.op === 'fork') {
        const source = (op.name ?? '').split('@')[0] as string
        parents.set(fork, source)
        exists.add(fork)
        snapshots.set(fork, [])
        if (holder.opens !== null) holder.opens.add(fork)
      }
      if (op.op === 'delete') {
        exists.delete(op.name as string)
        for (const h of holders) h.opens?.delete(op.name as string)
      }
    }
  }
  // Every tail has seen its tenant's last write before it is judged.
  await pollUntil(() => tails.every(({ tenant, seen }) => seen.lsn >= (lastWrite.get(tenant) ?? 0)), 'every tail to reach its tenant\'s last write')
  for (const socket of sockets) socket.close()
  t.same(tailLeaks, [], 'no tail event held a name its token does not open')
  t.comment(`answers by status: ${JSON.stringify(Object.fromEntries([...statuses].sort()))}`)
  for (const status of ['200', '401', '403', '404']) t.ok((statuses.get(status) ?? 0) > 0, `the run met ${status}`)
  t.equal(statuses.get('429'), undefined, 'the throttle never answered: every request was judged by its token')
  t.ok([...parents.keys()].some((name) => name.startsWith('tnfork')), 'the run forked')
  t.same([...tokenSuccesses].sort(), ['fork', 'own'], 'tenant tokens were answered on their tenants and on forks they made')
  t.equal(checked, steps)
})
