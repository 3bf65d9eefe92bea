'use strict'
// The proxy's line and message limits: a line over `--max-line-bytes` is never forwarded nor kept
// (lines.js drops it as it comes), and a message over the message limit (message-limit.js) is not
// written. Either way the request it answers gets a JSON-RPC error, a request gets one from the
// proxy, and anything else costs one line on stderr.
const { peekMessage } = require('./lines.js')
const { MAX_MESSAGE_BYTES } = require('./message-limit.js')
const { usageError } = require('./terminal.js')
const { INTERNAL_ERROR, INVALID_REQUEST, isObject, isId } = require('./proxy-routing.js')

const DEFAULT_MAX_LINE_BYTES = 64 * 1024 * 1024
/** Lines are decoded as one string, and V8 strings end near 512 MiB. */
const MOST_MAX_LINE_BYTES = 256 * 1024 * 1024

/** `--max-line-bytes`: a positive integer up to MOST_MAX_LINE_BYTES. */
function maxLineBytes(value) {
  if (value === undefined) return DEFAULT_MAX_LINE_BYTES
  if (!/^[1-9][0-9]*$/.test(value) || Number(value) > MOST_MAX_LINE_BYTES) {
    throw usageError(`--max-line-bytes must be a positive integer up to ${MOST_MAX_LINE_BYTES}, not "${value}" (see mcp-content proxy --help)`)
  }
  return Number(value)
}

/** A message over the limit: the request it answers gets an error, the server's request an error too, others a line on stderr. */
function messageOverLimit(proxy, m, bytes, request) {
  const why = `(${bytes} bytes) is over the proxy's message limit of ${MAX_MESSAGE_BYTES} bytes`
  if (request) return proxy.sendError(request, INTERNAL_ERROR, `mcp-content proxy: the MCP server's answer ${why}`)
  if (isObject(m) && typeof m.method === 'string' && isId(m.id))
    proxy.toServer({ jsonrpc: '2.0', id: m.id, error: { code: INTERNAL_ERROR, message: `mcp-content proxy: the request ${why}` } })
  process.stderr.write(`mcp-content proxy: dropped a message from the MCP server ${why}\n`)
  return undefined
}

/** A line from the server over the line limit: dropped unread; the request it answers (when its id can be read) gets an error. */
function serverLineOverLimit(proxy, { bytes, head, tail }) {
  const { keys, id } = peekMessage(head, tail)
  const { maxLineBytes } = proxy.settings
  const why = `over the proxy's line limit (${maxLineBytes} bytes); it was discarded`
  const isResponse = (keys.has('result') || keys.has('error')) && !keys.has('method')
  // An answer to the proxy's own read of a resource link: that link is noted with why.
  if (isResponse && proxy.links !== undefined && proxy.links.owns(id)) return proxy.links.fail(id, `the answer is ${why}`)
  const request = isResponse ? proxy.requests.requestFor(id) : undefined
  if (request && !request.answered) {
    proxy.requests.forget(request)
    // A cancelled request's answer is dropped anyway (MCP cancellation).
    if (request.cancelled) return undefined
    return proxy.sendError(request, INTERNAL_ERROR, `mcp-content proxy: the MCP server's answer is ${why}`)
  }
  if (keys.has('method') && id !== undefined)
    proxy.toServer({ jsonrpc: '2.0', id, error: { code: INVALID_REQUEST, message: `mcp-content proxy: the request is ${why}` } })
  process.stderr.write(`mcp-content proxy: discarded a line of ${bytes} bytes from the MCP server, over the line limit (${maxLineBytes} bytes)\n`)
  return undefined
}

/** A line from the client over the line limit: not sent to the server; a request gets its error from the proxy. */
function clientLineOverLimit(proxy, { bytes, head, tail }) {
  const { keys, id } = peekMessage(head, tail)
  const { maxLineBytes } = proxy.settings
  const why = `over the proxy's line limit (${maxLineBytes} bytes); it was not sent to the MCP server`
  if (keys.has('method') && id !== undefined) {
    return proxy.send(JSON.stringify({ jsonrpc: '2.0', id, error: { code: INVALID_REQUEST, message: `mcp-content proxy: the request is ${why}` } }))
  }
  // The client's answer to the server's request: the server gets an error in its place.
  if ((keys.has('result') || keys.has('error')) && id !== undefined) {
    proxy.toServer({ jsonrpc: '2.0', id, error: { code: INTERNAL_ERROR, message: `mcp-content proxy: the client's answer is ${why}` } })
  }
  process.stderr.write(`mcp-content proxy: discarded a line of ${bytes} bytes from the client, over the line limit (${maxLineBytes} bytes)\n`)
  return undefined
}

module.exports = { maxLineBytes, messageOverLimit, serverLineOverLimit, clientLineOverLimit }
