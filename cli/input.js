'use strict'
// Reading what the commands take: files or standard input, and telling an MCP tool result apart
// from any other file.
const fs = require('node:fs')
const { CliError } = require('./terminal.js')

/** All of standard input, as bytes. */
async function readStdin() {
  const chunks = []
  for await (const chunk of process.stdin) chunks.push(chunk)
  return Buffer.concat(chunks)
}

/** The bytes of `source`: a path, or `-` for standard input. */
async function readSource(source) {
  if (source === '-') return readStdin()
  try {
    return await fs.promises.readFile(source)
  } catch (error) {
    const why = { ENOENT: 'no such file', EACCES: 'permission denied', EISDIR: 'is a directory' }[error.code]
    throw new CliError(`cannot read ${source}: ${why ?? error.message}`)
  }
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

module.exports = { readSource, parseToolResult, asToolResult }
