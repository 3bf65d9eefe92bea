'use strict'
// ToolOutputStore: the folder where blobs, long texts and originals of
// fitted images are saved. The files, the size cap and the cleanup are
// native code's; this class holds its handle.

const native = require('./native.js')
const { invalidArgument, own } = require('./own-objects.js')
const { hostDir, isLatin1, nativeData, nativeWord, privateData } = require('./data.js')

const NumberIsSafeInteger = Number.isSafeInteger
const StringPrototypeStartsWith = Function.prototype.call.bind(String.prototype.startsWith)
/** SigV4's longest validity of a presigned URL: 7 days. */
const MAX_PRESIGN_SECONDS = 604_800
const NO_SAVE_OPTIONS = { mediaType: undefined, extension: undefined }
const env = process.env

/** An environment variable, undefined when unset or empty. */
function fromEnv(name) {
  const value = env[name]
  return typeof value === 'string' && value !== '' ? value : undefined
}

/** A field of the `s3` option: undefined when the field or the whole option is absent. */
function s3Field(s3, name) {
  return s3 === undefined || s3 === null ? undefined : own(s3, name)
}

/** A string option of `s3`: undefined when absent. */
function s3String(s3, name) {
  const value = s3Field(s3, name)
  if (value === undefined || value === null) return undefined
  if (typeof value !== 'string') throw invalidArgument(`\`s3.${name}\` must be a string`)
  return value
}

/**
 * Where an `s3://` store's bucket is and who asks: the `s3` option, else the AWS SDKs'
 * environment variables (credentials only as a pair: a key from one place and a secret
 * from another would sign as nobody; a session token belongs to its key pair, so
 * `s3.sessionToken` goes only with both keys given in `s3`, `AWS_SESSION_TOKEN` only with
 * the pair from the environment).
 */
function bucketOptions(s3) {
  if (s3 !== undefined && s3 !== null && typeof s3 !== 'object') throw invalidArgument('`s3` must be an object')
  const forcePathStyle = s3Field(s3, 'forcePathStyle')
  if (forcePathStyle !== undefined && forcePathStyle !== null && typeof forcePathStyle !== 'boolean') {
    throw invalidArgument('`s3.forcePathStyle` must be a boolean')
  }
  const presignSeconds = s3Field(s3, 'presignSeconds')
  if (
    presignSeconds !== undefined &&
    presignSeconds !== null &&
    (typeof presignSeconds !== 'number' || !NumberIsSafeInteger(presignSeconds) || presignSeconds < 0 || presignSeconds > MAX_PRESIGN_SECONDS)
  ) {
    throw invalidArgument(`\`s3.presignSeconds\` must be a whole number of seconds from 0 (no URL) to ${MAX_PRESIGN_SECONDS} (7 days)`)
  }
  let accessKeyId = s3String(s3, 'accessKeyId')
  let secretAccessKey = s3String(s3, 'secretAccessKey')
  let sessionToken = s3String(s3, 'sessionToken')
  if (sessionToken !== undefined && (accessKeyId === undefined || secretAccessKey === undefined)) {
    throw invalidArgument(
      '`s3.sessionToken` is given without `s3.accessKeyId` and `s3.secretAccessKey`: a session token signs only with the key pair it was issued with, so give the three together (or all three in AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN)',
    )
  }
  if (accessKeyId === undefined && secretAccessKey === undefined) {
    accessKeyId = fromEnv('AWS_ACCESS_KEY_ID')
    secretAccessKey = fromEnv('AWS_SECRET_ACCESS_KEY')
    sessionToken = fromEnv('AWS_SESSION_TOKEN')
  }
  return {
    endpoint: s3String(s3, 'endpoint') ?? fromEnv('AWS_ENDPOINT_URL_S3') ?? fromEnv('AWS_ENDPOINT_URL'),
    region: s3String(s3, 'region') ?? fromEnv('AWS_REGION') ?? fromEnv('AWS_DEFAULT_REGION'),
    forcePathStyle: forcePathStyle ?? undefined,
    presignSeconds: presignSeconds ?? undefined,
    accessKeyId,
    secretAccessKey,
    sessionToken,
  }
}

/** The store's handle: only this file can read it, and only from a store it made. */
let handleOf

function storeHandle(store, optional) {
  if (optional && (store === undefined || store === null)) return undefined
  const handle = store !== null && typeof store === 'object' ? handleOf(store) : undefined
  if (handle === undefined) throw invalidArgument('`store` must be a ToolOutputStore of this copy of mcp-content')
  return handle
}

/** A byte offset or length of `read`: undefined, or a whole number from 0 to 2^53 - 1. */
function byteCount(value, name) {
  if (value === undefined) return undefined
  if (typeof value !== 'number' || !NumberIsSafeInteger(value) || value < 0) {
    throw invalidArgument(`\`range.${name}\` must be a whole number of bytes, at least 0`)
  }
  return value
}

function readRange(range) {
  if (range === undefined || range === null) return { offset: undefined, length: undefined }
  if (typeof range !== 'object') throw invalidArgument('`range` must be an object')
  return { offset: byteCount(own(range, 'offset'), 'offset'), length: byteCount(own(range, 'length'), 'length') }
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
    let s3
    if (options !== undefined && options !== null) {
      if (typeof options !== 'object') throw invalidArgument('`options` must be an object')
      retentionDays = own(options, 'retentionDays')
      maxBytes = own(options, 'maxBytes')
      s3 = own(options, 's3')
    }
    // A plain object of checked strings and a boolean: native code reads it, no getter runs.
    const bucket = typeof dir === 'string' && StringPrototypeStartsWith(dir, 's3://') ? bucketOptions(s3) : undefined
    this.#handle = native.storeNew(hostDir(dir), retentionDays, maxBytes, bucket)
  }

  /** The folder files are saved in, or the `s3://bucket/prefix/` URL of a store in a bucket. */
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

  /**
   * Bytes of a file this store wrote, `location` as a note names it (any
   * other path is refused: `STORE_NOT_OWN_FILE`; a file no longer there:
   * `STORE_NOT_FOUND`), read on the libuv thread pool: `range.length` bytes
   * (default the rest, at most 8 MiB a call) from `range.offset` (default 0).
   * An async function: a bad argument becomes a rejection.
   */
  async read(location, range) {
    const handle = storeHandle(this)
    if (typeof location !== 'string') throw invalidArgument('`location` must be a string')
    const { offset, length } = readRange(range)
    return native.storeRead(handle, location, offset, length)
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
