// The OpenAPI fuzzer (R15; docs/api.md, "OpenAPI"): the document served at
// /api/v1/openapi.json is valid OpenAPI 3.1 (openapi-spec-validator), and schemathesis,
// generating requests from it against the real server (the real engine,
// examples/schema.eel, 127.0.0.1), finds no server error and no status code, content
// type or response body that the document does not describe, and no request the
// document calls invalid that the server accepts. The budget is fixed (a seed, a number
// of examples per operation, one worker) so a run is repeatable: 100 examples per
// operation in `npm test` (about 40 s), 400 under TENANTDB_SOAK=1 (test/helpers/soak.ts,
// 1-3 minutes).
// Its Python packages live in .venv/ (test/fuzz-requirements.txt); without them the
// test installs them, and fails if it cannot. What it found is kept as exact requests
// in test/http-openapi-regressions.test.ts.
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { budget } from './helpers/soak.js'
import { package_root } from '../src/package-root.js'
import { openExampleDatabase, startServer } from './helpers/http-server.js'
import { ensureFuzzVenv, run, venvBin } from './helpers/python-venv.js'
import { tempDir } from './helpers/temp-dir.js'

const token = 'openapi-fuzz-token-0123456789ab'
const seed = '20261124'
const examples_per_operation = String(budget('TENANTDB_OPENAPI_EXAMPLES', 100, 400))
const checks = [
  'not_a_server_error',
  'status_code_conformance',
  'content_type_conformance',
  'response_schema_conformance',
  'negative_data_rejection',
].join(',')

t.setTimeout(15 * 60_000)

t.test('schemathesis finds nothing the OpenAPI document does not describe', async (t) => {
  await ensureFuzzVenv()

  const db = await openExampleDatabase(t)
  const { origin } = await startServer(t, { token, db })
  const dir = tempDir(t)
  const document = join(dir, 'openapi.json')
  const res = await fetch(`${origin}/api/v1/openapi.json`, { headers: { authorization: `Bearer ${token}` } })
  t.equal(res.status, 200)
  const text = await res.text()
  writeFileSync(document, text)
  // Every operation but the document's own, which schemathesis leaves out of a run it loads from that URL.
  const paths = (JSON.parse(text) as { paths: Record<string, Record<string, unknown>> }).paths
  const operations = Object.entries(paths).filter(([path]) => path !== '/api/v1/openapi.json')
    .flatMap(([, item]) => Object.keys(item).filter((key) => ['get', 'put', 'post', 'delete', 'patch'].includes(key))).length
  const valid = await run(venvBin('openapi-spec-validator'), ['--schema', '3.1', document], { timeoutMs: 120_000 })
  t.equal(valid.code, 0, 'the document is valid OpenAPI 3.1', { output: valid.output })

  const started = Date.now()
  const fuzz = await run(venvBin('schemathesis'), [
    '--config-file', join(package_root, 'test', 'schemathesis.toml'),
    'run', `${origin}/api/v1/openapi.json`,
    '--header', `Authorization: Bearer ${token}`,
    '--checks', checks,
    '--max-examples', examples_per_operation,
    '--seed', seed,
    '--workers', '1',
    '--generation-database', 'none',
    '--request-timeout', '20',
    '--no-color',
  ], { cwd: dir, timeoutMs: 12 * 60_000 })
  const summary = /(\d+) generated, (.*)/.exec(fuzz.output)
  t.comment(`schemathesis: ${summary?.[0] ?? 'no summary'} in ${Math.round((Date.now() - started) / 1000)} s`)
  t.equal(fuzz.code, 0, 'schemathesis reports no failure and no error', { output: fuzz.output })
  t.ok(operations >= 14, `the document has ${operations} operations besides its own`)
  t.match(fuzz.output, new RegExp(`Selected: ${operations}/${operations}\\b`), 'every operation was tested')
  t.ok(Number(summary?.[1] ?? 0) > 1000, 'it generated cases')
})
