'use strict'
// ToolOutputStore: the folder where blobs, long texts and originals of
// fitted images are saved. The files, the size cap and the cleanup are
// native code's; this class holds its handle.

const native = require('./native.js')
const { invalidArgument, own } = require('./own-objects.js')
const { hostDir, isLatin1, nativeData, nativeWord, privateData } = require('./data.js')

const NO_SAVE_OPTIONS = { mediaType: undefined, extension: undefined }

/** The store's handle: only this file can read it, and only from a store it made. */
let handleOf

function storeHandle(store, optional) {
  if (optional && (store === undefined || store === null)) return undefined
  const handle = store !== null && typeof store === 'object' ? handleOf(store) : undefined
  if (handle === undefined) throw invalidArgument('`store` must be a ToolOutputStore of this copy of mcp-content')
  return handle
}

function readSaveOptions(options) {
  if (options === undefined || options === null) return NO_SAVE_OPTIONS
  if (typeof options !== 'object') throw invalidArgument('`options` must be an object')
  return { mediaType: own(options, 'mediaType'), extension: own(options, 'extension') }
}

/**
 * Saves blobs as `tool_<ascending id>.<ext>` files, atomically, 0600 in a
 * 0700 folder, within a size cap (oldest own files removed first), and
 * removes its own expired files.
 */
class ToolOutputStore {
  #handle

  constructor(dir, options) {
    let retentionDays
    let maxBytes
    if (options !== undefined && options !== null) {
      if (typeof options !== 'object') throw invalidArgument('`options` must be an object')
      retentionDays = own(options, 'retentionDays')
      maxBytes = own(options, 'maxBytes')
    }
    this.#handle = native.storeNew(hostDir(dir), retentionDays, maxBytes)
  }

  /** The folder files are saved in. */
  get dir() {
    return native.storeDir(storeHandle(this))
  }

  /** Save bytes, or a base64 string decoded first. */
  save(data, options) {
    const handle = storeHandle(this)
    const { mediaType, extension } = readSaveOptions(options)
    const bytes = privateData(data)
    const latin1 = isLatin1(bytes)
    return native.storeSaveSync(handle, nativeData(bytes, latin1), mediaType, extension, nativeWord(latin1))
  }

  /** `save` on the libuv thread pool, from a copy of the data. */
  async saveAsync(data, options) {
    const handle = storeHandle(this)
    const { mediaType, extension } = readSaveOptions(options)
    const bytes = privateData(data)
    const latin1 = isLatin1(bytes)
    return native.storeSave(handle, nativeData(bytes, latin1), mediaType, extension, nativeWord(latin1))
  }

  /** Delete this store's own files older than the retention (and temp files a crash left); returns how many. */
  cleanup() {
    return native.storeCleanup(storeHandle(this)).length
  }

  /** `cleanup`, returning the files it removed, in name order: `{ name, byteLength }` each. */
  cleanupFiles() {
    return native.storeCleanup(storeHandle(this))
  }

  static {
    handleOf = (store) => (#handle in store ? store.#handle : undefined)
  }
}

module.exports = { ToolOutputStore, storeHandle }
