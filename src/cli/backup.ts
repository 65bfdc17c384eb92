// `tenantdb backup (--url URL [--token TOKEN] | DIR) OUT` (docs/operations.md, "Backup
// and restore"): a consistent backup archive of the whole database, from a running
// server (GET /api/v1/backup) or from a directory no server holds (opened read-only),
// written to OUT (`-`: stdout). A file is written beside OUT and renamed into place
// only when whole, so OUT is either the complete archive or absent. Progress on a
// terminal; a summary line on stdout unless the archive goes there.
import { randomBytes } from 'node:crypto'
import { createWriteStream, existsSync } from 'node:fs'
import { open, rename, rm } from 'node:fs/promises'
import { basename, dirname, join, resolve } from 'node:path'
import { Readable, Transform } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { parseArgs } from 'node:util'
import { requireDatabaseDir } from './database-dir.js'
import { envValue } from './env.js'
import { progress } from './progress.js'
import { TenantdbError } from '../client/index.js'
import { clientOf, reached, serverAt, type Server } from './server-client.js'
import { UsageError } from './usage-error.js'

const synopsis = 'tenantdb backup (--url URL [--token TOKEN] | DIR) OUT'

interface Archive {
  lsn: number
  bytes: number
  stream: Readable
}

export async function backup(argv: string[]): Promise<void> {
  const { url, token, dir, out } = parse(argv)
  if (out === '-' && process.stdout.isTTY === true) throw new UsageError('refusing to write an archive to a terminal; name a file, or pipe stdout')
  if (out !== '-' && existsSync(out)) throw new Error(`${out} exists: name a new file (a backup never overwrites one)`)
  const archive = url !== undefined ? await fromServer(serverAt(url, token, process.env)) : await fromDirectory(dir as string)
  const meter = progress(`backing up LSN ${archive.lsn}`, archive.bytes)
  const counted = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      meter.add(chunk.length)
      done(null, chunk)
    },
  })
  const whole = () => meter.done === archive.bytes
  try {
    if (out === '-') await pipeline(archive.stream, counted, process.stdout)
    else await writeFile(archive.stream, counted, out, whole)
  } catch (err) {
    if (whole()) throw err
    throw new Error(`the backup broke off after ${meter.done} of ${archive.bytes} bytes (${(err as Error).message})${out === '-' ? '' : `; nothing was written to ${out}`}`)
  } finally {
    meter.finish()
  }
  if (!whole()) throw new Error(`the backup ended after ${meter.done} of ${archive.bytes} bytes${out === '-' ? '' : `; nothing was written to ${out}`}`)
  if (out !== '-') process.stdout.write(`backed up LSN ${archive.lsn}: ${archive.bytes} bytes to ${out}\n`)
}

function parse(argv: string[]): { url?: string; token?: string; dir?: string; out: string } {
  let parsed
  try {
    parsed = parseArgs({ args: argv, options: { url: { type: 'string' }, token: { type: 'string' } }, strict: true, allowPositionals: true })
  } catch (err) {
    throw new UsageError((err as Error).message)
  }
  const { values: { token }, positionals } = parsed
  // While TENANTDB_URL is set, a lone argument is OUT; DIR and OUT back up a directory.
  const url = parsed.values.url ?? (positionals.length === 1 ? envValue(process.env, 'TENANTDB_URL') : undefined)
  const wanted = url === undefined ? 2 : 1
  if (positionals.length !== wanted || positionals.some((p) => p === '')) {
    throw new UsageError(`${positionals.length < wanted ? 'missing' : 'too many'} arguments; expected: ${synopsis}`)
  }
  if (url === undefined && token !== undefined) throw new UsageError('--token goes with --url')
  const out = positionals[positionals.length - 1] as string
  return url === undefined
    ? { dir: positionals[0] as string, out }
    : { url, ...(token === undefined ? {} : { token }), out }
}

async function fromDirectory(dir: string): Promise<Archive> {
  requireDatabaseDir(dir)
  const { backupDirectory } = await import('../database/index.js')
  return backupDirectory(dir)
}

/** The archive a server streams (GET /api/v1/backup), through the client. */
async function fromServer(server: Server): Promise<Archive> {
  try {
    const { lsn, bytes, body } = await reached(server, async () => (await clientOf(server)).backup())
    return { lsn, bytes, stream: Readable.fromWeb(body as import('node:stream/web').ReadableStream<Uint8Array>) }
  } catch (err) {
    if (!(err instanceof TenantdbError) || err.status === undefined) throw err
    if (err.code === `http_${err.status}` && err.status < 300) throw new Error(`${server.api} did not answer as a tenantdb backup (no Content-Length or X-Backup-Lsn)`, { cause: err })
    throw new Error(`the server refused the backup (${err.status}): ${err.message}`, { cause: err })
  }
}

/** Writes `stream` through `counted` beside `out`, and renames it to `out` once whole and synced. */
async function writeFile(stream: Readable, counted: Transform, out: string, whole: () => boolean): Promise<void> {
  const target = resolve(out)
  const partial = join(dirname(target), `.${basename(target)}.partial-${randomBytes(6).toString('hex')}`)
  try {
    await pipeline(stream, counted, createWriteStream(partial, { flags: 'wx', mode: 0o600 }))
    if (!whole()) return
    await sync(partial)
    await rename(partial, target)
    await sync(dirname(target))
  } finally {
    await rm(partial, { force: true })
  }
}

async function sync(path: string): Promise<void> {
  const handle = await open(path, 'r')
  try {
    await handle.sync()
  } finally {
    await handle.close()
  }
}
