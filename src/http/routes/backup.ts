// GET /api/v1/backup (docs/api.md, "Backup"): an online backup of the whole database
// directory, streamed as a tar archive (docs/format.md, "Backup archive") of exactly
// Content-Length bytes, at one LSN (`X-Backup-Lsn`: every commit acknowledged before
// the request). Reads and writes go on meanwhile. A client that goes away, or a server
// that starts shutting down, destroys the stream, which ends the backup.
import type { FastifyInstance } from 'fastify'
import type { Database } from '../../database/index.js'
import { HttpError } from '../errors.js'
import { described, responses } from '../schemas.js'

export const backup_path = '/api/v1/backup'

const schema = {
  operationId: 'getBackup',
  summary: 'An online backup of the whole database directory, as a tar archive',
  description: 'The archive holds the page file, the checkpoint journal, the corruption log and the WAL segments as they stood at one LSN, ' +
    'then MANIFEST.json (format version, LSN, each file\'s size and xxh64); not LOCK nor service.token. `tenantdb restore` checks and unpacks it. ' +
    'The archive streams while reads and writes go on; checkpoints and compaction wait until it ends.',
  response: responses({
    200: described('the archive (Content-Length is its exact size)', {
      headers: { 'x-backup-lsn': { type: 'integer', description: 'every commit up to this LSN is in the archive' } },
      content: { 'application/x-tar': { schema: { type: 'string', format: 'binary' } } },
    }),
  }),
}

export function backupRoutes(db: Database, closing: AbortSignal) {
  return async function routes(app: FastifyInstance): Promise<void> {
    // No HEAD: it would copy the whole directory only to drop it.
    app.get(backup_path, { schema, exposeHeadRoute: false, config: { access: 'service' } }, async (_request, reply) => {
      const archive = await db.backup()
      const stop = () => archive.stream.destroy()
      // Shutdown began while the backup waited for a checkpoint to finish.
      if (closing.aborted) {
        stop()
        throw new HttpError('shutting_down', 'the server is shutting down')
      }
      closing.addEventListener('abort', stop, { once: true })
      archive.stream.once('close', () => closing.removeEventListener('abort', stop))
      return reply
        .type('application/x-tar')
        .header('content-length', archive.bytes)
        .header('x-backup-lsn', archive.lsn)
        .send(archive.stream)
    })
  }
}
