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
import { backupDirectory } from '../database/index.js'
import { progress } from './progress.js'
import { UsageError } from './usage-error.js'
import { requireDatabaseDir } from './verify.js'

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
  const archive = url !== undefined ? await fromServer(url, token ?? process.env.SERVICE_TOKEN) : await fromDirectory(dir as string)
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
  const { values: { url, token }, positionals } = parsed
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
  return backupDirectory(dir)
}

/** The archive a server streams; `url` is its address, with or without /api/v1. */
async function fromServer(url: string, token: string | undefined): Promise<Archive> {
  if (token === undefined || token === '') throw new UsageError('--url needs the service token: --token TOKEN, or SERVICE_TOKEN')
  let endpoint: URL
  try {
    endpoint = new URL(url)
  } catch {
    throw new UsageError(`--url ${url} is not a URL (e.g. http://127.0.0.1:7070)`)
  }
  endpoint.pathname = `${endpoint.pathname.replace(/\/+$/, '').replace(/\/api\/v1$/, '')}/api/v1/backup`
  const res = await fetch(endpoint, { headers: { authorization: `Bearer ${token}` } })
  if (res.status !== 200 || res.body === null) {
    const text = await res.text()
    let reason = text
    try {
      reason = (JSON.parse(text) as { error?: string }).error ?? text
    } catch { /* not the JSON error body: say what came */ }
    throw new Error(`the server refused the backup (${res.status}): ${reason}`)
  }
  const bytes = Number(res.headers.get('content-length'))
  const lsn = Number(res.headers.get('x-backup-lsn'))
  if (!Number.isSafeInteger(bytes) || !Number.isSafeInteger(lsn)) throw new Error(`${endpoint.origin} did not answer as a tenantdb backup (no Content-Length or X-Backup-Lsn)`)
  return { lsn, bytes, stream: Readable.fromWeb(res.body as import('node:stream/web').ReadableStream<Uint8Array>) }
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
