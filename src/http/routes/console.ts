// GET /console/…: the operator console's static files (docs/operations.md,
// "The operator console"), built by `npm run build:console` into dist/console/. Their
// routes are the only ones declared `access: 'public'` (route-access.ts): loading them needs no token;
// the page asks for the token and sends it with every API call.
//
// Only a plain relative path of ordinary names is served: a segment that is empty,
// `.`, `..`, hidden (leading dot) or holds a backslash or NUL is refused, and the
// resolved path must still lie inside the console directory. Nothing is listed.
//
// Caching: the build names every asset after its content hash (app-3KX7QZ2A.js), so
// those are cached for a year as immutable; index.html names them and is revalidated
// on every load (no-cache), so a rebuilt console is picked up at once.
import { readFile, stat } from 'node:fs/promises'
import { extname, join, resolve, sep } from 'node:path'
import type { FastifyInstance, FastifyReply } from 'fastify'
import { package_root } from '../../package-root.js'
import { sendError } from '../errors.js'

export const console_path = '/console'
export const default_console_dir = join(package_root, 'dist', 'console')

const content_types: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.txt': 'text/plain; charset=utf-8',
}

/** esbuild's `[name]-[hash]`: eight characters of base32 before the extension. */
const hashed_name = /-[A-Z0-9]{8}\.[a-z0-9.]+$/

// Scripts only from the console itself. Styles may be inline because CodeMirror
// injects its own style sheet; connect-src is open because the API base may be
// another origin (--console-origin) and the tail is a WebSocket.
const content_security_policy = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  'connect-src * ws: wss:',
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'none'",
].join('; ')

/** The path of `relative` inside `root`, or null if it is not a plain path of visible names. */
export function consoleFile(root: string, relative: string): string | null {
  const name = relative === '' ? 'index.html' : relative
  const segments = name.split('/')
  for (const segment of segments) {
    if (segment === '' || segment.startsWith('.') || segment.includes('\\') || segment.includes('\0')) return null
  }
  const base = resolve(root)
  const file = resolve(base, ...segments)
  return file.startsWith(base + sep) ? file : null
}

export function cacheControlFor(file: string): string {
  if (file.endsWith('index.html')) return 'no-cache'
  return hashed_name.test(file) ? 'public, max-age=31536000, immutable' : 'no-cache'
}

async function sendFile(reply: FastifyReply, root: string, relative: string): Promise<FastifyReply> {
  const file = consoleFile(root, relative)
  if (file === null) return sendError(reply, 'not_found', 'no such console file')
  const info = await stat(file).catch(() => null)
  if (info === null || !info.isFile()) {
    if (relative === '' || relative === 'index.html') {
      return sendError(reply, 'not_found', 'the console is not built: run `npm run build:console` (or `npm run build`)')
    }
    return sendError(reply, 'not_found', 'no such console file')
  }
  const body = await readFile(file)
  return reply
    .code(200)
    .type(content_types[extname(file)] ?? 'application/octet-stream')
    .header('cache-control', cacheControlFor(file))
    .header('x-content-type-options', 'nosniff')
    .header('referrer-policy', 'no-referrer')
    .header('content-security-policy', content_security_policy)
    .send(body)
}

// Not part of the API, so not in its OpenAPI document (hide).
const redirect_schema = { hide: true, summary: 'The console, at /console/' }
const file_schema = {
  hide: true,
  summary: 'A file of the built console',
  params: { type: 'object', required: ['*'], properties: { '*': { type: 'string', description: 'the file, relative to the console directory; empty for index.html' } } },
}

export function consoleRoutes(root: string = default_console_dir) {
  return async function routes(app: FastifyInstance): Promise<void> {
    // Relative asset URLs in index.html resolve against the directory, so the page
    // must be loaded as /console/, not /console.
    app.get(console_path, { schema: redirect_schema, config: { access: 'public' } }, async (_request, reply) => reply.redirect(`${console_path}/`, 301))
    app.get<{ Params: { '*': string } }>(`${console_path}/*`, { schema: file_schema, config: { access: 'public' } }, async (request, reply) =>
      sendFile(reply, root, request.params['*']))
  }
}
