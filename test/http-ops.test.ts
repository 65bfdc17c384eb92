// POST /api/v1/t/:tenant/ops over real HTTP: every op, its defaults, and its errors.
import t from 'tap'
import { api, startServer } from './helpers/http-server.js'

const token = 'ops-token-0123456789abcdef'

t.test('ops: create, snapshot, fork (of head and of a snapshot), suspend, resume, compact, delete', async (t) => {
  const { origin } = await startServer(t, { token })
  const call = api(origin, token)
  const op = (tenant: string, body: unknown) => call(`/api/v1/t/${tenant}/ops`, { json: body })

  t.same((await op('acme', { op: 'create' })).body, { ok: true, message: 'created tenant acme' }, 'create defaults to the path tenant')
  t.same((await op('default', { op: 'create', name: 'beta' })).body, { ok: true, message: 'created tenant beta' })
  const snap = await op('acme', { op: 'snapshot', name: 'acme', target: 'before' })
  t.equal(snap.status, 200)
  t.match(snap.body, { ok: true, message: /^snapshot before of acme at lsn \d+$/ })
  t.same((await op('acme', { op: 'fork', name: 'acme', target: 'acme_test' })).body, { ok: true, message: 'forked acme into acme_test' })
  t.same((await op('acme', { op: 'fork', name: 'acme@before', target: 'acme_old' })).body, { ok: true, message: 'forked acme@before into acme_old' })
  t.same((await op('acme', { op: 'suspend', name: 'acme' })).body, { ok: true, message: 'suspended acme' })
  t.match((await call('/api/v1/tenants')).body.tenants.find((x: { name: string }) => x.name === 'acme'), { state: 'suspended' })
  const locked = await op('acme', { op: 'compact' })
  t.equal(locked.status, 423, 'compact of a suspended tenant')
  t.match(locked.body, { code: 'tenant_suspended' })
  t.same((await op('acme', { op: 'resume', name: 'acme' })).body, { ok: true, message: 'resumed acme' })
  const compacted = await op('acme', { op: 'compact', name: 'ignored' })
  t.equal(compacted.status, 200)
  t.match(compacted.body, { ok: true, message: /^compacted: \d+ collections, \d+ rows, \d+ pages in \d+ ms; page file \d+ → \d+ bytes$/ })
  t.match((await op('acme_test', { op: 'delete', name: 'acme_test' })).body, { ok: true, message: /^deleted acme_test/ })
  t.same((await call('/api/v1/tenants')).body.tenants.map((x: { name: string }) => x.name).sort(), ['acme', 'acme_old', 'beta', 'default'])
})

t.test('ops: 404, 409 and 400 errors', async (t) => {
  const { origin } = await startServer(t, { token })
  const call = api(origin, token)
  const op = (tenant: string, body: unknown) => call(`/api/v1/t/${tenant}/ops`, { json: body })
  await op('acme', { op: 'create' })
  await op('acme', { op: 'snapshot', target: 's' })
  const cases: Array<[string, unknown, number, string]> = [
    ['acme', { op: 'create' }, 409, 'tenant_exists'],
    ['acme', { op: 'fork', target: 'default' }, 409, 'tenant_exists'],
    ['acme', { op: 'snapshot', target: 's' }, 409, 'snapshot_exists'],
    ['nobody', { op: 'suspend' }, 404, 'unknown_tenant'],
    ['nobody', { op: 'compact' }, 404, 'unknown_tenant'],
    ['acme', { op: 'fork', name: 'nobody', target: 'x' }, 404, 'unknown_tenant'],
    ['acme', { op: 'fork', name: 'acme@nope', target: 'x' }, 404, 'unknown_snapshot'],
    ['acme', { op: 'delete', name: 'nobody' }, 404, 'unknown_tenant'],
    ['default', { op: 'delete' }, 400, 'bad_request'],
    ['acme', { op: 'explode' }, 400, 'bad_request'],
    ['acme', {}, 400, 'bad_request'],
    ['acme', { op: 'fork' }, 400, 'bad_request'],
    ['acme', { op: 'snapshot' }, 400, 'bad_request'],
    ['acme', { op: 'create', name: 'Bad Name' }, 400, 'bad_request'],
    ['acme', { op: 'create', name: 7 }, 400, 'bad_request'],
    ['acme', [1], 400, 'bad_request'],
  ]
  for (const [tenant, body, status, code] of cases) {
    const res = await op(tenant, body)
    t.equal(res.status, status, JSON.stringify(body))
    t.match(res.body, { code, error: String }, JSON.stringify(body))
    t.equal(res.body.conflict, code === 'conflict', 'every error body carries conflict, true only for a lost race')
  }
  const notJson = await call('/api/v1/t/acme/ops', { method: 'POST', body: 'create acme', headers: { 'content-type': 'text/plain' } })
  t.equal(notJson.status, 400)
  t.match(notJson.body, { code: 'bad_request' })
  const huge = await call('/api/v1/t/acme/ops', { method: 'POST', body: JSON.stringify({ op: 'create', name: 'x'.repeat(1024 * 1024) }), headers: { 'content-type': 'application/json' } })
  t.equal(huge.status, 413)
  t.match(huge.body, { code: 'payload_too_large' })
})
