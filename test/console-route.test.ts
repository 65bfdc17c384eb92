// The console's static files at /console/ over real HTTP: served without a token, with
// the right content types and cache headers, and nothing outside the console directory
// is reachable however the path is spelled.
import { mkdirSync, writeFileSync } from 'node:fs'
import { request } from 'node:http'
import { join } from 'node:path'
import t from 'tap'
import { package_root } from '../src/package-root.js'
import { consoleFile, default_console_dir } from '../src/http/routes/console.js'
import { startServer } from './helpers/http-server.js'
import { tempDir } from './helpers/temp-dir.js'

const token = 'console-route-token-0123456789'

/** A console directory with a secret file beside it, as an attacker would aim for. */
function fixture(t: Parameters<typeof tempDir>[0]): string {
  const dir = tempDir(t)
  const root = join(dir, 'console')
  mkdirSync(join(root, 'assets'), { recursive: true })
  writeFileSync(join(dir, 'secret.txt'), 'SECRET')
  writeFileSync(join(root, '.hidden'), 'SECRET')
  writeFileSync(join(root, 'index.html'), '<!doctype html><title>console</title>')
  writeFileSync(join(root, 'app-3KX7QZ2A.js'), 'console.log(1)')
  writeFileSync(join(root, 'console-ABCDEFGH.css'), 'body{}')
  writeFileSync(join(root, 'app-3KX7QZ2A.js.map'), '{}')
  writeFileSync(join(root, 'assets', 'icon-ZZZZZZZZ.svg'), '<svg/>')
  return root
}

/** A GET with the path sent exactly as written (fetch would normalise `..`). */
function rawGet(origin: string, path: string): Promise<{ status: number; body: string }> {
  const { hostname, port } = new URL(origin)
  return new Promise((resolve, reject) => {
    const req = request({ host: hostname, port, path, method: 'GET' }, (res) => {
      let body = ''
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => { body += chunk })
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }))
    })
    req.on('error', reject)
    req.end()
  })
}

t.test('console files are served without a token, typed and cached by kind', async (t) => {
  const { origin } = await startServer(t, { token, consoleDir: fixture(t) })

  const bare = await fetch(`${origin}/console`, { redirect: 'manual' })
  t.equal(bare.status, 301)
  t.equal(bare.headers.get('location'), '/console/')

  const index = await fetch(`${origin}/console/`)
  t.equal(index.status, 200)
  t.equal(index.headers.get('content-type'), 'text/html; charset=utf-8')
  t.equal(index.headers.get('cache-control'), 'no-cache', 'index.html is revalidated, so a rebuild shows at once')
  t.equal(index.headers.get('x-content-type-options'), 'nosniff')
  t.match(index.headers.get('content-security-policy'), /script-src 'self'/)
  t.match(await index.text(), /<title>console<\/title>/)
  t.equal((await fetch(`${origin}/console/index.html`)).status, 200)

  const cases: Array<[path: string, type: string]> = [
    ['app-3KX7QZ2A.js', 'text/javascript; charset=utf-8'],
    ['console-ABCDEFGH.css', 'text/css; charset=utf-8'],
    ['app-3KX7QZ2A.js.map', 'application/json; charset=utf-8'],
    ['assets/icon-ZZZZZZZZ.svg', 'image/svg+xml'],
  ]
  for (const [path, type] of cases) {
    const res = await fetch(`${origin}/console/${path}`)
    t.equal(res.status, 200, path)
    t.equal(res.headers.get('content-type'), type, path)
    t.equal(res.headers.get('cache-control'), 'public, max-age=31536000, immutable', `${path}: hashed, so immutable`)
    await res.arrayBuffer()
  }

  const head = await fetch(`${origin}/console/app-3KX7QZ2A.js`, { method: 'HEAD' })
  t.equal(head.status, 200, 'HEAD')

  const missing = await fetch(`${origin}/console/nope.js`)
  t.equal(missing.status, 404)
  t.match(await missing.json(), { code: 'not_found' })
})

t.test('no path reaches outside the console directory or a hidden file', async (t) => {
  const { origin } = await startServer(t, { token, consoleDir: fixture(t) })
  const attempts = [
    '/console/../secret.txt',
    '/console/..%2fsecret.txt',
    '/console/%2e%2e/secret.txt',
    '/console/%2E%2E%2Fsecret.txt',
    '/console/assets/../../secret.txt',
    '/console/assets/..%2f..%2fsecret.txt',
    '/console/..%5csecret.txt',
    '/console/.hidden',
    '/console/%2ehidden',
    '/console/assets',
    '/console/assets/',
    '/console//etc/passwd',
    '/console/%2fetc%2fpasswd',
    '/console/index.html%00.js',
  ]
  for (const path of attempts) {
    const res = await rawGet(origin, path)
    t.not(res.status, 200, path)
    t.notMatch(res.body, /SECRET|root:/, `${path}: nothing leaks`)
  }
})

t.test('consoleFile accepts only plain relative paths', async (t) => {
  t.equal(consoleFile('/srv/console', ''), '/srv/console/index.html')
  t.equal(consoleFile('/srv/console', 'a/b.js'), '/srv/console/a/b.js')
  for (const bad of ['..', '../x', 'a/../../x', './x', 'a//b', '/etc/passwd', 'a\\..\\x', '.env', 'x\0']) {
    t.equal(consoleFile('/srv/console', bad), null, JSON.stringify(bad))
  }
})

t.test('an unbuilt console says how to build it; the default is dist/console', async (t) => {
  t.equal(default_console_dir, join(package_root, 'dist', 'console'))
  const { origin } = await startServer(t, { token, consoleDir: join(tempDir(t), 'absent') })
  const res = await fetch(`${origin}/console/`)
  t.equal(res.status, 404)
  t.match(await res.json(), { code: 'not_found', error: /npm run build:console/ })
})
