import { readFileSync, statSync, writeFileSync, chmodSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { resolveToken, TokenError } from '../src/config/token.js'
import { tempDir } from './helpers/temp-dir.js'

t.test('auth: the flag wins over the environment and the file', async (t) => {
  const dir = tempDir(t)
  writeFileSync(join(dir, 'service.token'), 'from-file\n', { mode: 0o600 })
  const long = 'f'.repeat(32)
  t.same(await resolveToken({ flag: long, env: 'from-env', dir }), { token: long, source: 'flag' })
  t.same(await resolveToken({ env: long, dir }), { token: long, source: 'env' })
  t.match(await resolveToken({ flag: 'from-flag', env: 'from-env', dir }), { token: 'from-flag', source: 'flag' })
  t.same(await resolveToken({ dir }), { token: 'from-file', source: 'file', file: join(dir, 'service.token') })
})

t.test('auth: a generated token is 32 random bytes, saved with mode 0600, then reused', async (t) => {
  const dir = tempDir(t)
  const first = await resolveToken({ dir })
  t.equal(first.source, 'generated')
  t.equal(Buffer.from(first.token, 'base64url').length, 32)
  const file = join(dir, 'service.token')
  t.equal(statSync(file).mode & 0o777, 0o600)
  t.equal(readFileSync(file, 'utf8').trim(), first.token)
  const second = await resolveToken({ dir })
  t.equal(second.token, first.token)
  t.equal(second.source, 'file')
  const other = await resolveToken({ dir: tempDir(t) })
  t.not(other.token, first.token)
})

t.test('auth: a token chosen with --token or SERVICE_TOKEN shorter than 32 characters is used with a warning', async (t) => {
  const dir = tempDir(t)
  const short = await resolveToken({ flag: 'hunter2', dir })
  t.equal(short.token, 'hunter2')
  t.match(short.warning, /the token from --token is 7 characters: wrong guesses are throttled, but a right one is never refused, so use 32 or more random characters/)
  t.match((await resolveToken({ env: 'x'.repeat(31), dir })).warning, /from SERVICE_TOKEN is 31 characters/)
  t.equal((await resolveToken({ env: 'x'.repeat(32), dir })).warning, undefined, 'none at 32')
})

t.test('auth: a token file readable by others is used with a warning', async (t) => {
  const dir = tempDir(t)
  const file = join(dir, 'service.token')
  writeFileSync(file, 'shared-token')
  chmodSync(file, 0o644)
  const resolved = await resolveToken({ dir })
  t.equal(resolved.token, 'shared-token')
  t.match(resolved.warning, /readable by other users/)
})

t.test('auth: unusable tokens are refused clearly', async (t) => {
  const dir = tempDir(t)
  await t.rejects(resolveToken({ flag: 'has space', dir }), TokenError)
  await t.rejects(resolveToken({ flag: '', dir }), /--token must be printable ASCII/)
  writeFileSync(join(dir, 'service.token'), '\n', { mode: 0o600 })
  await t.rejects(resolveToken({ dir }), /service\.token must be printable ASCII/)
  t.same(await resolveToken({ env: '', flag: undefined, dir: tempDir(t) }).then((r) => r.source), 'generated',
    'an empty SERVICE_TOKEN counts as unset')
})
