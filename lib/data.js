'use strict'
// How a part's data crosses to native code: a string or bytes, told whether
// a string is Latin-1 (read with a plain copy), copied first when another
// thread could write it, and made into base64 when native code hands bytes
// back. Also the folders handed to the WebAssembly build.
//
// Built-ins are captured at load, so later changes to prototypes or globals
// (pollution, monkey-patching) cannot change what this file does.

const native = require('./native.js')
const { types } = require('node:util')
const { isAbsolute, resolve: resolvePath } = require('node:path')

const ReflectApply = Reflect.apply
const RegExpPrototypeExec = RegExp.prototype.exec
const TypedArrayPrototype = Object.getPrototypeOf(Uint8Array.prototype)
const TypedArrayBuffer = Object.getOwnPropertyDescriptor(TypedArrayPrototype, 'buffer').get
const TypedArrayByteLength = Object.getOwnPropertyDescriptor(TypedArrayPrototype, 'byteLength').get
const Uint8ArrayConstructor = Uint8Array
// Node's base64 encoder (also in Bun); the public Buffer#toString reaches it
// through prototype lookups that could be replaced.
const base64Slice = Buffer.prototype.base64Slice
const BufferAllocUnsafeSlow = Buffer.allocUnsafeSlow
const latin1Write = Buffer.prototype.latin1Write
const isUint8Array = types.isUint8Array
const isSharedArrayBuffer = types.isSharedArrayBuffer

// The WebAssembly build (docs/platforms.md, "WebAssembly fallback") runs in WASI, whose
// working directory is `/`: it is handed relative folders made absolute here.
const ON_WASM = native.__napiBindingTarget !== undefined && native.__napiBindingTarget !== 'native'

/** `<scheme>://`: a URL (an `s3://` store, or one refused), never a folder to resolve. */
const URL_LIKE = /^[A-Za-z][A-Za-z0-9+.-]+:\/\//

function hostDir(dir) {
  return ON_WASM && typeof dir === 'string' && dir !== '' && !isAbsolute(dir) && ReflectApply(RegExpPrototypeExec, URL_LIKE, [dir]) === null
    ? resolvePath(dir)
    : dir
}

/** Data up to this size is converted on the calling thread unless it needs a disk write. */
const INLINE_MAX_DATA = 256 * 1024

/**
 * V8 answers this match in constant time for a one-byte string (it cannot
 * match), and a string without characters above U+00FF can be read with a
 * plain Latin-1 copy. JavaScriptCore (Bun) scans the string instead, slower
 * than the UTF-8 read native code does when not told.
 */
const ABOVE_LATIN1 = /[^\x00-\xff]/
const CHECK_LATIN1 = typeof globalThis.Bun === 'undefined'

function isLatin1(data) {
  return CHECK_LATIN1 && typeof data === 'string' && ReflectApply(RegExpPrototypeExec, ABOVE_LATIN1, [data]) === null
}

/**
 * The data as native code gets it, with `word`: on the wasm build emnapi
 * copies a string into wasm memory one character at a time and a Uint8Array
 * in one block, so a Latin-1 string goes as its bytes with the word
 * 'base64Bytes' (native code reads them as base64 text). The native addon
 * gets the string and whether it is Latin-1, as before.
 */
function nativeData(data, latin1) {
  if (!(ON_WASM && latin1)) return data
  const bytes = ReflectApply(BufferAllocUnsafeSlow, Buffer, [data.length])
  ReflectApply(latin1Write, bytes, [data, 0, data.length])
  return bytes
}

function nativeWord(latin1) {
  return ON_WASM && latin1 ? 'base64Bytes' : latin1
}

/**
 * Data native code may read: a string, or bytes no other thread can write
 * while they are read (a view of a SharedArrayBuffer is copied first).
 */
function privateData(data) {
  if (isUint8Array(data) && isSharedArrayBuffer(ReflectApply(TypedArrayBuffer, data, []))) {
    return new Uint8ArrayConstructor(data)
  }
  return data
}

/** Canonical base64 of bytes. */
function encodeBytes(bytes) {
  return ReflectApply(base64Slice, bytes, [0, ReflectApply(TypedArrayByteLength, bytes, [])])
}

function dataSize(data) {
  if (typeof data === 'string') return data.length
  return isUint8Array(data) ? ReflectApply(TypedArrayByteLength, data, []) : 0
}

// ------------------------------------------------------------------ options

module.exports = { ON_WASM, INLINE_MAX_DATA, hostDir, isLatin1, nativeData, nativeWord, privateData, encodeBytes, dataSize }
