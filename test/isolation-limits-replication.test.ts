// Tenant limits set on a replication primary hold on its follower (docs/replication.md,
// docs/operations.md, "Isolation"): they live in the tenant's catalog record, which
// the frames carry. A real nats-server and two real `tenantdb serve --nats` nodes; the
// follower lists the limits and refuses a read past the tenant's statement_rows_examined.
import t from 'tap'
import { primaryAndFollower, waitForLsn } from './helpers/cluster.js'

const schema = 'collection items { id: int primary, v: int }\n'

t.test('a limit set on the primary is seen and applied by the follower', async (t) => {
  const { a, b } = await primaryAndFollower(t, schema, 2000)
  t.equal((await a.api('/api/v1/t/acme/ops', { json: { op: 'create' } })).status, 200)
  const rows = Array.from({ length: 300 }, (_, i) => ({ id: i + 1, v: i }))
  t.equal((await a.api('/api/v1/t/acme/query', { json: { query: 'insert items $rows', params: { rows } } })).status, 200)
  const scan = { json: { query: 'items | where v >= 0 | count' } }
  t.equal((await b.api('/api/v1/t/acme/query', scan)).status, 200, 'no limit yet: the follower scans')
  t.equal((await a.api('/api/v1/t/acme/ops', { json: { op: 'limit', limits: { statement_rows_examined: 100, storage_rows: 500 } } })).status, 200)
  const primary = await a.status()
  await waitForLsn([b], primary?.applied_lsn ?? Infinity)

  const listed = (await b.api('/api/v1/tenants')).body.tenants.find((x: { name: string }) => x.name === 'acme')
  t.same(listed.limits, { statement_rows_examined: 100, storage_rows: 500 }, 'the follower lists the limits')
  const refused = await b.api('/api/v1/t/acme/query', scan)
  t.equal(refused.status, 400)
  t.match(refused.body, { code: 'statement_limit', limit: 'statement_rows_examined' }, 'the follower applies them')
  t.equal((await b.api('/api/v1/t/acme/query', { json: { query: 'items | where id <= 10 | count' } })).body.rows[0][0], 10, 'within the limit')
  t.equal(await b.stop(), 0)
  t.equal(await a.stop(), 0)
})
