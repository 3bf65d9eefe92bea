'use strict'
// Loads the native addon through the loader napi-rs generates (binding/index.js),
// which tries binding/mcp-content.<platform>.node (a checkout's build), then the
// platform package mcp-content-<platform>. When neither loads, that loader
// only says "Cannot find native binding"; this rethrows an error that names
// the platform package and how to install it, with the loader's error (and
// every failed attempt) as its `cause`.

const fs = require('node:fs')
const path = require('node:path')

const ARCH = { x86_64: 'x64', aarch64: 'arm64', i686: 'ia32', armv7: 'arm' }

/** `linux-x64-gnu` for `x86_64-unknown-linux-gnu`: the suffix napi-rs gives packages and binaries. */
function suffixOfTriple(triple) {
  // The WebAssembly fallback: napi-rs names its package wasm32-wasi.
  if (triple.startsWith('wasm32-wasi')) return 'wasm32-wasi'
  const [cpu, , system, abi] = triple.split('-')
  const arch = ARCH[cpu] ?? cpu
  if (system === 'darwin') return `darwin-${arch}`
  if (system === 'windows') return `win32-${arch}-${abi}`
  return abi ? `${system}-${arch}-${abi}` : `${system}-${arch}`
}

/** The same test as the generated loader: /usr/bin/ldd first, then the process report. */
function isMusl() {
  try {
    return fs.readFileSync('/usr/bin/ldd', 'utf8').includes('musl')
  } catch {}
  try {
    const report = /** @type {{ header: { glibcVersionRuntime?: string } }} */ (process.report.getReport())
    return !report.header.glibcVersionRuntime
  } catch {
    return false
  }
}

function platformSuffix() {
  const { platform, arch } = process
  if (platform === 'linux') return `linux-${arch}-${isMusl() ? 'musl' : 'gnu'}`
  if (platform === 'win32') return `win32-${arch}-msvc`
  return `${platform}-${arch}`
}

function unavailable(loadError) {
  const manifest = require('../package.json')
  const { name, version } = manifest
  const suffix = platformSuffix()
  const pkg = `${name}-${suffix}`
  const prebuilt = (manifest.napi?.targets ?? []).map(suffixOfTriple)
  let message
  let code
  if (!prebuilt.includes(suffix)) {
    code = 'NATIVE_ADDON_NOT_FOUND'
    message =
      `${name}: no prebuilt native addon for ${suffix} (prebuilt: ${prebuilt.join(', ')}). ` +
      'Build it from a checkout of mcp-content with Rust and Node.js >= 20: `npm install && npm run build`.'
  } else {
    let installedAt = null
    try {
      installedAt = path.dirname(require.resolve(`${pkg}/package.json`))
    } catch {}
    if (installedAt === null) {
      code = 'NATIVE_ADDON_NOT_FOUND'
      message =
        `${name}: the native addon for ${suffix} is not installed. It ships in the package ${pkg}@${version}, ` +
        `an optional dependency of ${name} that was not installed (npm install --omit=optional or --no-optional, ` +
        'a lockfile written on another platform, or https://github.com/npm/cli/issues/4828). ' +
        `Install it: \`npm install ${pkg}@${version}\` (or delete node_modules and package-lock.json and run npm install again).`
    } else {
      code = 'NATIVE_ADDON_LOAD_FAILED'
      message =
        `${name}: the native addon package ${pkg} is installed (${installedAt}) but could not be loaded; ` +
        'see `cause` for why (a wrong libc or CPU, a damaged or mismatched install).'
    }
  }
  const error = /** @type {Error & { code: string }} */ (new Error(message, { cause: loadError }))
  error.code = code
  return error
}

/** @type {typeof import('./binding/binding.d.ts')} */
let binding
try {
  binding = require('./binding/index.js')
} catch (error) {
  throw unavailable(error)
}
module.exports = binding
