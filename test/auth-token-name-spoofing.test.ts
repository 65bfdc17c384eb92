// Token names that would spoof a listing (docs/api.md, "Tenant tokens"): a name holding a
// control character (C0, DEL, C1) or a bidirectional formatting character (U+200E,
// U+200F, U+202A to U+202E, U+2066 to U+2069) is refused with 400 `bad_request` naming
// the character, and nothing is issued, through the HTTP route and through `tenantdb
// token create` on a directory; names with other characters (accents, CJK, emoji,
// the spaces beside those ranges) are issued. Run `npm run build:ts` first: the
// command runs from dist/.
import { join } from 'node:path'
import t from 'tap'
import { Database } from '../src/database/index.js'
import { openExampleDatabase, api, startServer } from './helpers/http-server.js'
import { spawnCli } from './helpers/spawn-cli.js'
import { tempDir } from './helpers/temp-dir.js'

const service = 'token-name-spoofing-service-token-012345'

/** One refused character of each kind, at the start, inside and at the end of a name. */
const refused: Array<[string, string]> = [
  ['\u0000', 'U+0000'], ['\u0007', 'U+0007'], ['\u001b', 'U+001B'], ['\r', 'U+000D'], ['\n', 'U+000A'], ['\u001f', 'U+001F'],
  ['\u007f', 'U+007F'], ['\u0080', 'U+0080'], ['\u0085', 'U+0085'], ['\u009b', 'U+009B'], ['\u009f', 'U+009F'],
  ['\u200e', 'U+200E'], ['\u200f', 'U+200F'],
  ['\u202a', 'U+202A'], ['\u202b', 'U+202B'], ['\u202c', 'U+202C'], ['\u202d', 'U+202D'], ['\u202e', 'U+202E'],
  ['\u2066', 'U+2066'], ['\u2067', 'U+2067'], ['\u2068', 'U+2068'], ['\u2069', 'U+2069'],
]

/** Characters beside the refused ranges, and others a label may well hold. */
const accepted = ['acme web app', 'Zoë’s app ✓', '日本語のアプリ', 'key 🔑 of acme', 'tab\u00a0nbsp', 'a\u200db', 'a\u2029b', 'a\u202fb', 'a\u2065b', 'a\u206ab', 'x\u00a0\u00ff']

/** A name for an assertion's label: every character outside printable ASCII as its code point (a raw U+2029 would break the TAP stream). */
const shown = (name: string) => [...name].map((c) => (/^[\x20-\x7e]$/.test(c) ? c : `<U+${(c.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}>`)).join('')

const message = (code: string, at: number) =>
  `name may not hold control characters (C0, DEL, C1) nor bidirectional formatting characters (U+200E, U+200F, U+202A to U+202E, U+2066 to U+2069); it holds ${code} at character ${at}`

t.test('auth-token-name-spoofing: the HTTP route refuses control and bidi characters in a name, with 400', async (t) => {
  const db = await openExampleDatabase(t)
  const { origin } = await startServer(t, { token: service, db })
  const admin = api(origin, service)
  t.equal((await admin('/api/v1/t/default/ops', { json: { op: 'create', name: 'acme' } })).status, 200)
  for (const [char, code] of refused) {
    for (const [name, at] of [[`${char}acme`, 1], [`acme${char}ppa.exe`, 5], [`🔑acme${char}`, 6]] as const) {
      const res = await admin('/api/v1/t/acme/tokens', { json: { scope: 'read', name } })
      t.equal(res.status, 400, `${code} at ${at}: 400`)
      t.same(res.body, { error: message(code, at), code: 'bad_request', conflict: false }, `${code} at ${at}: the sentence names it, never echoes it`)
    }
  }
  t.same((await admin('/api/v1/t/acme/tokens')).body.tokens, [], 'nothing was issued')
  for (const name of accepted) {
    const res = await admin('/api/v1/t/acme/tokens', { json: { scope: 'read', name } })
    t.equal(res.status, 201, `${shown(name)} is issued`)
    t.equal(res.body.name, name, `${shown(name)} is kept as it was given`)
  }
  t.same((await admin('/api/v1/t/acme/tokens')).body.tokens.map((x: { name: string }) => x.name), accepted, 'the listing shows them')
})

t.test('auth-token-name-spoofing: tenantdb token create refuses them too (exit 1, nothing issued)', async (t) => {
  const dir = join(tempDir(t), 'db')
  const db = await Database.open(dir)
  await db.ops({ op: 'create', name: 'acme' })
  await db.close()
  // An argument cannot hold NUL; every other kind can.
  for (const [char, code] of [['\u001b', 'U+001B'], ['\u007f', 'U+007F'], ['\u0085', 'U+0085'], ['\u200f', 'U+200F'], ['\u202e', 'U+202E'], ['\u2066', 'U+2066']]) {
    const cli = spawnCli(t, ['token', 'create', dir, 'acme', '--scope', 'read', '--name', `acme${char}ppa.exe`])
    t.equal(await cli.exited, 1, `${code}: exit 1`)
    t.ok(cli.stderr().includes(message(code as string, 5)), `${code}: the sentence on stderr: ${shown(cli.stderr())}`)
    t.equal(cli.stdout(), '', `${code}: no token printed`)
  }
  const listed = spawnCli(t, ['token', 'list', dir, 'acme', '--json'])
  t.equal(await listed.exited, 0)
  t.same(JSON.parse(listed.stdout()), [], 'nothing was issued')
  const fine = spawnCli(t, ['token', 'create', dir, 'acme', '--scope', 'read', '--name', 'Zoë’s app ✓'])
  t.equal(await fine.exited, 0, shown(fine.stderr()))
  t.match(fine.stdout(), /^tdb_[A-Za-z0-9_-]{43}\n$/)
})
