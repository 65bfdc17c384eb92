import { readFileSync, statSync, writeFileSync, chmodSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { resolveToken, TokenError } from '../src/config/token.js'
import { tempDir } from './helpers/temp-dir.js'

t.test('auth: the flag wins over the environment and the file', async (t) => {
  const dir = tempDir(t)
  writeFileSync(join(dir, 'service.token'), 'from-file\n', { mode: 0o600 })
  t.same(await resolveToken({ flag: 'from-flag', env: 'from-env', dir }), { token: 'from-flag', source: 'flag' })
  t.same(await resolveToken({ env: 'from-env', dir }), { token: 'from-env', source: 'env' })
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
