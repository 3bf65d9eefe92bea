'use strict'
// Reading what the commands take: files or standard input, never more than a stated limit, and
// telling an MCP tool result apart from any other file.
const fs = require('node:fs')
const { CliError } = require('./terminal.js')

/** The most read from one file or standard input unless --max-input says otherwise: 256 MiB. */
const DEFAULT_MAX_INPUT = 256 * 1024 * 1024

/** JSON's whitespace: space, tab, line feed, carriage return. */
const isJsonSpace = (b) => b === 0x20 || b === 0x09 || b === 0x0a || b === 0x0d

/** `1024` bytes as `1KiB`, `268435456` as `256MiB`: as --max-input takes them. */
function sizeWords(n) {
  for (const [unit, size] of [
    ['GiB', 2 ** 30],
    ['MiB', 2 ** 20],
    ['KiB', 2 ** 10],
  ]) {
    if (n >= size && n % size === 0) return `${n / size}${unit}`
  }
  return `${n} bytes`
}

const nameOf = (source) => (source === '-' ? 'standard input' : source)

function notJson(source) {
  return new CliError(`${nameOf(source)} is not JSON of an MCP tool result (an object with a content array)`)
}

function overLimit(source, maxBytes) {
  return new CliError(`${nameOf(source)} is over the input limit of ${sizeWords(maxBytes)} (--max-input raises it)`)
}

function cannotRead(source, error) {
  const why = { ENOENT: 'no such file', EACCES: 'permission denied', EISDIR: 'is a directory' }[error.code]
  return new CliError(`cannot read ${source}: ${why ?? error.message}`)
}

/**
 * The bytes of `source`, a path or `-` for standard input, read as a stream and never more than
 * `maxBytes`: past it reading stops with an error, so endless input (/dev/zero, a stream that
 * never ends) is refused too. A regular file already over it is refused before it is read. With
 * `json`, reading stops at the first byte other than JSON whitespace unless it is `{` or `[`:
 * such input cannot be a tool result.
 */
async function readSource(source, { maxBytes = DEFAULT_MAX_INPUT, json = false } = {}) {
  let stream = process.stdin
  if (source !== '-') {
    let stat
    try {
      stat = await fs.promises.stat(source)
    } catch (error) {
      throw cannotRead(source, error)
    }
    if (stat.isDirectory()) throw cannotRead(source, { code: 'EISDIR' })
    if (stat.isFile() && stat.size > maxBytes) throw overLimit(source, maxBytes)
    stream = fs.createReadStream(source)
  }
  const chunks = []
  let total = 0
  let started = !json
  try {
    for await (const chunk of stream) {
      if (!started) {
        let i = 0
        while (i < chunk.length && isJsonSpace(chunk[i])) i++
        if (i < chunk.length) {
          if (chunk[i] !== 0x7b && chunk[i] !== 0x5b) throw notJson(source)
          started = true
        }
      }
      total += chunk.length
      if (total > maxBytes) throw overLimit(source, maxBytes)
      chunks.push(chunk)
    }
  } catch (error) {
    if (error instanceof CliError) throw error
    throw cannotRead(source, error)
  } finally {
    // Left early: no more is read (a `for await` that throws has destroyed the stream already).
    if (!stream.destroyed) stream.destroy()
  }
  return Buffer.concat(chunks, total)
}

const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v)
const isPart = (v) => isObject(v) && typeof v.type === 'string'

/**
 * The MCP tool result held by parsed JSON, or null: a CallToolResult (`{ content: [...] }`), a
 * JSON-RPC response carrying one (`{ result: { content } }`), one content part, or an array of parts.
 */
function asToolResult(value) {
  if (isObject(value) && isObject(value.result) && Array.isArray(value.result.content)) return value.result
  if (isObject(value) && Array.isArray(value.content)) return value
  if (isPart(value)) return { content: [value] }
  if (Array.isArray(value) && value.length > 0 && value.every(isPart)) return { content: value }
  return null
}

/** JSON text of a tool result, or null when the bytes are not JSON of one. */
function parseToolResult(bytes) {
  const head = bytes.subarray(0, 64).toString('latin1').trimStart()
  if (!head.startsWith('{') && !head.startsWith('[')) return null
  let value
  try {
    value = JSON.parse(bytes.toString('utf8'))
  } catch {
    return null
  }
  return asToolResult(value)
}

module.exports = { DEFAULT_MAX_INPUT, sizeWords, readSource, parseToolResult, asToolResult, notJson }
