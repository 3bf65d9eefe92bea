'use strict'
// Options shared by the commands, read and checked once; errors are usage errors (exit 2).
const buffer = require('node:buffer')
const { parseArgs } = require('node:util')
const mcp = require('../lib/index.js')
const { usageError } = require('./terminal.js')
const { DEFAULT_MAX_INPUT } = require('./input.js')

/** Every provider profile, from the core's table. */
const PROVIDERS = mcp.providers

/** node:util parseArgs, with its errors turned into one usage line naming the command's help. */
function parse(command, args, options, allowPositionals = true) {
  try {
    return parseArgs({ args, options: { ...options, help: { type: 'boolean', short: 'h' } }, allowPositionals, strict: true })
  } catch (error) {
    const message = error.message.replace(/\. To specify a positional argument.*$/s, '').replace(/^Unknown option/, 'unknown option')
    throw usageError(`${message} (see mcp-content ${command} --help)`)
  }
}

/** A provider name the package knows (a new profile in the core needs no change here). */
function provider(command, name) {
  if (name === undefined) return 'default'
  if (!PROVIDERS.includes(name)) {
    throw usageError(`unknown provider "${name}": one of ${PROVIDERS.join(', ')} (see mcp-content ${command} --help)`)
  }
  return name
}

/** `--max-text-tokens`: a positive integer, or `Infinity` (no cap). */
function maxTextTokens(command, value) {
  if (value === undefined) return undefined
  if (value === 'Infinity' || value === 'infinity') return Infinity
  if (!/^[1-9][0-9]*$/.test(value))
    throw usageError(`--max-text-tokens must be a positive integer or Infinity, not "${value}" (see mcp-content ${command} --help)`)
  return Number(value)
}

/** `--max-input <size>`: bytes, or a whole number of KiB, MiB or GiB (`512MiB`); default 256 MiB. */
function maxInput(command, value) {
  if (value === undefined) return DEFAULT_MAX_INPUT
  const m = /^([1-9][0-9]*)(KiB|MiB|GiB)?$/.exec(value)
  const unit = m && m[2] ? { KiB: 2 ** 10, MiB: 2 ** 20, GiB: 2 ** 30 }[m[2]] : 1
  const bytes = m ? Number(m[1]) * unit : NaN
  if (!(bytes <= buffer.constants.MAX_LENGTH)) {
    throw usageError(
      `--max-input must be a number of bytes, or with KiB, MiB or GiB (512MiB), up to ${buffer.constants.MAX_LENGTH} bytes, not "${value}" (see mcp-content ${command} --help)`,
    )
  }
  return bytes
}

/** `--defer-media auto|true|false`. */
function deferMedia(command, value) {
  if (value === undefined || value === 'auto') return 'auto'
  if (value === 'true' || value === 'false') return value === 'true'
  throw usageError(`--defer-media must be auto, true or false, not "${value}" (see mcp-content ${command} --help)`)
}

/** The longest `--presign-seconds`: SigV4's 7 days, as the store takes it. */
const MAX_PRESIGN_SECONDS = 7 * 24 * 60 * 60

/**
 * `--presign-seconds <n>`, for a bucket store (`--output-dir s3://...`) only: a whole number of
 * seconds up to 7 days, or undefined when not given.
 */
function presignSeconds(command, value, dir) {
  if (value === undefined) return undefined
  if (!/^(0|[1-9][0-9]{0,5})$/.test(value) || Number(value) > MAX_PRESIGN_SECONDS) {
    throw usageError(
      `--presign-seconds must be a whole number of seconds from 0 (no URL) to ${MAX_PRESIGN_SECONDS} (7 days), not "${value}" (see mcp-content ${command} --help)`,
    )
  }
  if (dir === undefined || !dir.startsWith('s3://')) {
    throw usageError(`--presign-seconds is for a bucket store: give --output-dir s3://bucket/prefix (see mcp-content ${command} --help)`)
  }
  return Number(value)
}

/**
 * A store for `--output-dir`, or the package's default store; a store that cannot be made is a
 * failure (exit 1). With `presign` (seconds, from `presignSeconds`), each note naming a saved
 * object also gives a presigned URL of it.
 */
function store(dir, presign) {
  if (dir === undefined) return new mcp.ToolOutputStore()
  return presign === undefined ? new mcp.ToolOutputStore(dir) : new mcp.ToolOutputStore(dir, { s3: { presignSeconds: presign } })
}

module.exports = { PROVIDERS, parse, provider, maxTextTokens, maxInput, deferMedia, presignSeconds, store }
