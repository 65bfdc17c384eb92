// The error for a native module that does not load names the platform package this
// machine needs, or says none is built for it (docs/operations.md, "The package").
// test/package-install.test.ts sees it from an installed package; this checks both
// sentences in-process, including a platform no module is built for.
import t from 'tap'
import { nativeLoadError, platformTriple, prebuilt_platforms } from '../src/engine/native-platform.js'

t.test('a platform with a prebuilt module: the package to install', async (t) => {
  t.equal(platformTriple(), 'linux-x64-gnu', 'this machine (Linux x64, glibc)')
  t.ok(prebuilt_platforms.includes(platformTriple()))
  const cause = new Error('Cannot find native binding')
  const err = nativeLoadError('tenantdb', cause) as Error & { code: string; platformPackage: string }
  t.equal(err.code, 'native_module_missing')
  t.equal(err.platformPackage, 'tenantdb-linux-x64-gnu')
  t.match(err.message, /install the platform package 'tenantdb-linux-x64-gnu'/)
  t.equal(err.cause, cause, "the loader's errors stay reachable as the cause")
})

t.test('a platform without one: says so, and how to build it', async (t) => {
  const platform = Object.getOwnPropertyDescriptor(process, 'platform') as PropertyDescriptor
  Object.defineProperty(process, 'platform', { value: 'darwin' })
  t.teardown(() => Object.defineProperty(process, 'platform', platform))
  t.equal(platformTriple(), `darwin-${process.arch}`)
  const err = nativeLoadError('tenantdb', new Error('x')) as Error & { platformPackage: string }
  t.match(err.message, `there is no prebuilt native module for darwin-${process.arch} (prebuilt: linux-x64-gnu)`)
  t.match(err.message, /npm run build:native/)
  t.equal(err.platformPackage, `tenantdb-darwin-${process.arch}`)
})
