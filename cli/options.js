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

/** A store for `--output-dir`, or the package's default store; a store that cannot be made is a failure (exit 1). */
function store(dir) {
  return dir === undefined ? new mcp.ToolOutputStore() : new mcp.ToolOutputStore(dir)
}

module.exports = { PROVIDERS, parse, provider, maxTextTokens, maxInput, deferMedia, store }
