// Which prebuilt native module this machine needs (docs/operations.md, "The package"):
// napi-rs names a platform package `<package>-<platform>-<arch>[-<abi>]`, installed as
// an optional dependency of the main package, and the generated loader requires it.
// When no module loads, the error names the package this machine needed, rather than
// the generated loader's generic advice.

/** Platforms a prebuilt module is published for (package.json, `napi.targets`). */
export const prebuilt_platforms: readonly string[] = ['linux-x64-gnu']

/** This machine's platform triple as napi-rs spells it, e.g. `linux-x64-gnu`. */
export function platformTriple(): string {
  if (process.platform !== 'linux') return `${process.platform}-${process.arch}`
  const header = (process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined)?.header
  return `linux-${process.arch}-${header?.glibcVersionRuntime === undefined ? 'musl' : 'gnu'}`
}

/** The error for a native module that did not load, naming what to install; the loader's errors are its `cause`. */
export function nativeLoadError(packageName: string, cause: unknown): Error {
  const triple = platformTriple()
  const wanted = `${packageName}-${triple}`
  const message = prebuilt_platforms.includes(triple)
    ? `tenantdb: the native module for ${triple} did not load; install the platform package '${wanted}' ` +
      `(an optional dependency of ${packageName}: reinstall without --omit=optional / --no-optional), ` +
      `or build it from a checkout with a Rust toolchain (npm run build:native)`
    : `tenantdb: there is no prebuilt native module for ${triple} (prebuilt: ${prebuilt_platforms.join(', ')}); ` +
      `build it from a checkout with a Rust toolchain (npm run build:native)`
  return Object.assign(new Error(message, { cause }), { code: 'native_module_missing', platformPackage: wanted })
}
