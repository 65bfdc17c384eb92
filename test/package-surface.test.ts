// The package's public surface (src/index.ts, docs/api.md "Embedding API"): an embedder
// imports everything from one module. Each export is used as an embedder would, so a
// missing or wrong re-export fails here rather than in someone's application.
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { Readable } from 'node:stream'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import t from 'tap'
import * as tenantdb from '../src/index.js'
import { package_root } from '../src/package-root.js'
import { tempDir } from './helpers/temp-dir.js'

const schema = 'collection notes { id: int primary, text: string }'

t.test('the embedding API works through the package entry point alone', async (t) => {
  const dir = tempDir(t)
  const schemaFile = join(dir, 'schema.eel')
  writeFileSync(schemaFile, schema)
  const db = await tenantdb.Database.open(join(dir, 'db'), { schema: [schemaFile] })
  t.teardown(() => db.close())
  const tenant = db.tenant('default')
  t.ok(tenant instanceof tenantdb.Tenant, 'tenant() returns the exported Tenant class')

  await tenant.query('insert notes {id: 1, text: "hello"}')
  const read = await tenant.query('notes | where id == 1')
  t.same({ columns: read.columns, rows: read.rows }, { columns: ['id', 'text'], rows: [[1, 'hello']] }, 'a written row reads back')

  const bad = await tenant.query('notes | wher id == 1').then(() => null, (e: unknown) => e)
  t.ok(bad instanceof tenantdb.EelError, `a syntax error is an EelError: ${String(bad)}`)
  t.match(tenantdb.formatDiagnostic((bad as tenantdb.EelError).diagnostic), /^1:9 unexpected 'wher'/, 'formatDiagnostic gives line, column and message')

  const missing = await tenant.query('nothing_here | where id == 1').then(() => null, (e: unknown) => e)
  t.ok(missing instanceof tenantdb.QueryError || missing instanceof tenantdb.EelError, `an unknown collection is a typed error: ${String(missing)}`)

  const op = await db.ops({ op: 'create', name: 'acme' }).then(() => null, (e: unknown) => e)
  t.equal(op, null, 'tenant operations run')
  const again = await db.ops({ op: 'create', name: 'acme' }).then(() => null, (e: unknown) => e)
  t.ok(again instanceof tenantdb.TenantError, `creating it twice is a TenantError: ${String(again)}`)

  const page = await tenant.tail({ after: 0 })
  t.equal(page.events.length, 1, 'the change tail holds the one insert')
  t.same(page.events.map((e) => e.changes.map((c) => [c.collection, c.op])), [[['notes', 'insert']]], 'as an insert into notes')
})

t.test('buildServer and version come from the same entry point', async (t) => {
  const manifest = JSON.parse(readFileSync(join(package_root, 'package.json'), 'utf8')) as { version: string }
  t.equal(tenantdb.version, manifest.version, 'version is package.json\'s')
  const dir = tempDir(t)
  const db = await tenantdb.Database.open(join(dir, 'db'))
  t.teardown(() => db.close())
  const app = await tenantdb.buildServer({ db, token: 'surface-token-0123456789abcdef' })
  t.teardown(() => app.close())
  await app.listen({ host: '127.0.0.1', port: 0 })
  const address = app.server.address()
  const port = typeof address === 'object' && address !== null ? address.port : 0
  const res = await fetch(`http://127.0.0.1:${port}/api/v1/health`, { headers: { authorization: 'Bearer surface-token-0123456789abcdef' } })
  t.same(await res.json(), { ok: true, tenant: 'default', version: manifest.version }, 'buildServer serves the API')
  t.equal(typeof tenantdb.EngineError, 'function')
  t.equal(typeof tenantdb.LsnExpiredError, 'function')
})

t.test('an online backup and its restore through the package entry point', async (t) => {
  const dir = tempDir(t)
  const db = await tenantdb.Database.open(join(dir, 'db'))
  t.teardown(() => db.close())
  const archive: tenantdb.BackupArchive = await db.backup()
  const chunks: Buffer[] = []
  for await (const chunk of archive.stream as AsyncIterable<Buffer>) chunks.push(chunk)
  t.equal(Buffer.concat(chunks).length, archive.bytes, 'the archive is as long as it says')
  const report: tenantdb.RestoreReport = await tenantdb.restoreArchive(Readable.from([Buffer.concat(chunks)]), join(dir, 'restored'))
  t.equal(report.lsn, archive.lsn, 'restored at the backup\'s LSN')
  const damaged = await tenantdb.restoreArchive(Readable.from([Buffer.alloc(4096, 1)]), join(dir, 'damaged')).then(() => null, (e: unknown) => e)
  t.ok(damaged instanceof tenantdb.BackupArchiveError, `a damaged archive is a BackupArchiveError: ${String(damaged)}`)
  const busy = await tenantdb.restoreArchive(Readable.from([Buffer.concat(chunks)]), join(dir, 'restored')).then(() => null, (e: unknown) => e)
  t.ok(busy instanceof tenantdb.RestoreTargetError, `a non-empty target is a RestoreTargetError: ${String(busy)}`)
})

t.test('the package exports its entry, the client and its manifest (after npm run build:ts)', async (t) => {
  const manifest = JSON.parse(readFileSync(join(package_root, 'package.json'), 'utf8')) as { main: string; types: string; exports: Record<string, unknown> }
  t.same(Object.keys(manifest.exports), ['.', './client', './package.json'], 'these three, nothing deeper')
  t.same(manifest.exports['.'], { types: `./${manifest.types}`, default: `./${manifest.main}` }, '"." is main and types')
  // The package's own name resolves through `exports` (self-reference), to the build.
  t.equal(import.meta.resolve('tenantdb/client'), pathToFileURL(join(package_root, 'dist', 'client', 'index.js')).href)
  t.ok(existsSync(join(package_root, 'dist', 'client', 'index.d.ts')), 'the client\'s declarations are built')
  const client = await import('tenantdb/client') as typeof import('../src/client/index.js')
  t.equal(typeof client.connect, 'function', 'tenantdb/client gives connect')
  t.equal(typeof client.TenantdbError, 'function', 'and TenantdbError')
  t.equal(import.meta.resolve('tenantdb'), pathToFileURL(join(package_root, 'dist', 'index.js')).href, 'tenantdb is dist/index.js')
})
