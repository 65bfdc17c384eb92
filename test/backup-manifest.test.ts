// The backup manifest's reader (src/backup/manifest.ts, docs/format.md "Backup
// archive"): it accepts exactly the documented shape and refuses every other with a
// BackupArchiveError naming what is wrong. Breaks when a check is dropped.
import t from 'tap'
import { BackupArchiveError, parseManifest } from '../src/backup/index.js'

const good = { format: 'tenantdb-backup', version: 1, lsn: 9, files: [{ path: 'pages', bytes: 8192, xxh64: '0123456789abcdef' }, { path: 'wal/00000000000000000001.wal', bytes: 40, xxh64: 'fedcba9876543210' }] }
const json = (value: unknown) => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value))

t.test('the documented manifest is accepted as it is', async (t) => {
  t.same(parseManifest(json(good)), good)
})

t.test('every other shape is refused, saying why', async (t) => {
  const file = good.files[0] as Record<string, unknown>
  const cases: Array<[string, unknown, RegExp]> = [
    ['not JSON', '{"format":', /is not JSON/],
    ['an array', [good], /is not an object/],
    ['another format', { ...good, format: 'tar' }, /does not say it is a tenantdb-backup archive/],
    ['a newer version', { ...good, version: 2 }, /backup format 2; this tenantdb reads format 1/],
    ['an extra key', { ...good, extra: 1 }, /has keys other than format, version, lsn, files/],
    ['a missing key', { format: good.format, version: 1, lsn: 1 }, /has keys other than/],
    ['a negative lsn', { ...good, lsn: -1 }, /has no valid lsn/],
    ['a fractional lsn', { ...good, lsn: 1.5 }, /has no valid lsn/],
    ['files not a list', { ...good, files: {} }, /has no list of files/],
    ['a file with another key', { ...good, files: [{ ...file, mode: 1 }] }, /file 0 is not \{path, bytes, xxh64\}/],
    ['a file that is not an object', { ...good, files: ['pages'] }, /file 0 is not/],
    ['a foreign path', { ...good, files: [{ ...file, path: 'service.token' }] }, /a path a backup never holds: "service.token"/],
    ['an escaping path', { ...good, files: [{ ...file, path: '../pages' }] }, /a path a backup never holds/],
    ['a path twice', { ...good, files: [file, file] }, /lists pages twice/],
    ['a bad size', { ...good, files: [{ ...file, bytes: '8192' }] }, /file pages has no valid size/],
    ['an uppercase checksum', { ...good, files: [{ ...file, xxh64: '0123456789ABCDEF' }] }, /file pages has no valid xxh64/],
    ['a short checksum', { ...good, files: [{ ...file, xxh64: '0123' }] }, /no valid xxh64/],
    ['no page file', { ...good, files: [good.files[1]] }, /does not list the page file/],
  ]
  for (const [name, value, reason] of cases) {
    const err = (() => { try { parseManifest(json(value)); return null } catch (e) { return e } })()
    t.ok(err instanceof BackupArchiveError, `${name}: a BackupArchiveError`)
    t.match((err as Error).message, reason, name)
    t.equal((err as BackupArchiveError).code, name === 'a newer version' ? 'archive_unsupported' : 'archive_damaged', `${name}: its code`)
  }
})
