// A panic in the storage engine under the real server (docs/architecture.md, "The
// binding"; docs/operations.md, "When the engine fails"): `tenantdb serve` runs with the
// test-only trigger TENANTDB_TEST_PANIC=checkpoint (native/src/test_panic.rs), so the
// checkpoint of a tenant compaction panics on the thread pool. The request answers 500
// `internal`; the server process lives on; later writes answer 503
// `storage_unavailable` (not written); reads, /health, /health/detail (which names the
// panic) and /metrics answer; a restart recovers every acknowledged write. Without the
// binding's catch the server aborts on the compaction and the request gets no answer.
import t from 'tap'
import { spawnCli } from './helpers/spawn-cli.js'
import { tempDir } from './helpers/temp-dir.js'

const token = 'engine-panic-token-0123456789abcdef'
const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' }

async function call(url: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(url + path, body === undefined ? { headers } : { method: 'POST', headers, body: JSON.stringify(body) })
  const text = await res.text()
  try {
    return { status: res.status, body: JSON.parse(text) }
  } catch {
    return { status: res.status, body: text }
  }
}

const insert = (id: number) => ({ query: 'insert users {id: $id, email: $email, name: "N"}', params: { id, email: `u${id}@x` } })

t.test('a panic in a checkpoint answers 500 internal; the server stays up, stops writing, and reads, reports and restarts', async (t) => {
  const dir = tempDir(t)
  const args = ['serve', '--dir', dir, '--port', '0', '--schema', 'examples/schema.eel', '--token', token]
  const server = spawnCli(t, args, { TENANTDB_TEST_PANIC: 'checkpoint' })
  const [, url] = await server.waitFor(/url: (http:\/\/127\.0\.0\.1:\d+\/api\/v1)\n/) as unknown as [string, string]
  t.match(server.stderr(), /TENANTDB_TEST_PANIC=checkpoint: the engine will panic in these calls \(a test-only trigger\)/, 'the trigger says so as it loads')

  for (const id of [1, 2]) t.equal((await call(url, '/t/default/query', insert(id))).status, 200, `insert ${id}`)
  t.match(await call(url, '/health/detail'), { status: 200, body: { ok: true, fail_stopped: null } })

  const compact = await call(url, '/t/default/ops', { op: 'compact' })
  t.equal(compact.status, 500, 'the compaction, whose checkpoint panicked, answers 500')
  t.match(compact.body, { code: 'internal', error: /^an internal error stopped the storage engine/ })
  t.notMatch(JSON.stringify(compact.body), /panic/, 'the panic itself stays in the server log')
  t.equal(server.child.exitCode, null, 'the server process is alive')
  t.equal(server.child.signalCode, null)
  await server.waitFor(/the engine panicked in checkpoint: a test panic \(TENANTDB_TEST_PANIC\) in checkpoint/)

  const write = await call(url, '/t/default/query', insert(3))
  t.equal(write.status, 503, 'a later write is refused')
  t.match(write.body, { code: 'storage_unavailable', outcome: 'not_written', error: /internal error: nothing of this request was written/ })
  const read = await call(url, '/t/default/query', { query: 'users | sort id' })
  t.equal(read.status, 200, 'reads answer')
  t.same(read.body.rows.map((row: unknown[]) => row[0]), [1, 2], 'every acknowledged write, nothing refused')
  t.match(await call(url, '/health'), { status: 200, body: { ok: true } }, '/health answers')
  t.match(await call(url, '/health/detail'), {
    status: 200,
    body: { ok: false, fail_stopped: /^a panic in checkpoint: a test panic \(TENANTDB_TEST_PANIC\) in checkpoint$/, corruption: { total: 0 } },
  }, '/health/detail names the panic')
  const metrics = await fetch(`${url}/metrics`, { headers })
  t.equal(metrics.status, 200, '/metrics answers')
  t.match(await metrics.text(), /^tenantdb_engine_fail_stopped 1$/m)
  t.equal(server.child.exitCode, null, 'the server process is still alive')

  server.child.kill('SIGTERM')
  t.equal(await server.exited, 1, 'a stop after the panic exits 1, as after a disk failure')
  t.match(server.stderr(), /tenantdb: shutdown failed: database stopped writing after a failure \(a panic in checkpoint: .*\); this change was not written; reopen the directory to recover/, 'saying why')
  const restarted = spawnCli(t, args)
  const [, url2] = await restarted.waitFor(/url: (http:\/\/127\.0\.0\.1:\d+\/api\/v1)\n/) as unknown as [string, string]
  t.match(await call(url2, '/health/detail'), { status: 200, body: { ok: true, fail_stopped: null } }, 'a restart recovers')
  t.equal((await call(url2, '/t/default/query', insert(3))).status, 200, 'and writes again')
  t.same((await call(url2, '/t/default/query', { query: 'users | sort id' })).body.rows.map((row: unknown[]) => row[0]), [1, 2, 3])
  t.match(await call(url2, '/t/default/ops', { op: 'compact' }), { status: 200 }, 'and compacts')
  t.match(await fetch(`${url2}/metrics`, { headers }).then((r) => r.text()), /^tenantdb_engine_fail_stopped 0$/m)
  restarted.child.kill('SIGTERM')
  t.equal(await restarted.exited, 0)
})
