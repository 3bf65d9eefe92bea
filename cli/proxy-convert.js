'use strict'
// The proxy's conversions of the server's answers, each into the JSON-RPC message sent to the
// client: a tools/call (or tasks/result) result through convertToolResult, a result the package
// refuses replaced by one that says why; each blob of a resources/read answer through
// toContentAsync; a tools/call run as a task answered with its task alone.
const mcp = require('../lib/index.js')
const { toMcpResult, toResourceContents } = require('./mcp-shape.js')
const { bounded, fitToolResult } = require('./message-limit.js')
const { oneLine } = require('./terminal.js')
const { isObject, has, shownId } = require('./proxy-routing.js')

/**
 * A part for the user alone, as the proxy sends it: itself, unless its data is not valid base64,
 * which makes an SDK client refuse the whole result; then the note the model would get, with the
 * part's annotations.
 */
function readableUserPart(part) {
  const media = part.type === 'image' || part.type === 'audio' ? part : part.type === 'resource' && isObject(part.resource) ? part.resource : undefined
  const data = media === undefined ? undefined : (media.data ?? media.blob)
  if (typeof data !== 'string' || mcp.classify(data).kind !== 'invalid') return part
  const { annotations, ...forModel } = part
  return { ...mcp.toContent(forModel), annotations }
}

/** The answer that a tools/call runs as a task: the task (and `_meta`) alone, nothing beside it. */
function taskAnswer(m, request) {
  const result = { task: m.result.task }
  if (m.result._meta !== undefined) result._meta = m.result._meta
  return { jsonrpc: '2.0', id: request.id, result }
}

/**
 * The converted answer to a tools/call; a result the package refuses is replaced by one that says
 * why. With `reader` (--resolve-links, proxy-links.js) its resource links are read through it.
 */
async function toolResultAnswer(m, request, settings, reader) {
  const { provider, store, maxTextTokens, links } = settings
  const envelope = { jsonrpc: '2.0', id: request.id }
  let result
  try {
    // An array is an object to the package (a result with no content); the client refuses it.
    if (!isObject(m.result)) throw new Error('`result` must be an object (an MCP CallToolResult)')
    const options = { provider, store, maxTextTokens, deferMedia: false }
    const converted = await mcp.convertToolResult(m.result, reader === undefined ? options : { ...options, ...links, readResource: reader.read })
    result = toMcpResult(converted, m.result, readableUserPart)
  } catch (error) {
    process.stderr.write(
      `mcp-content proxy: the result of request ${shownId(request.id)} could not be converted, so it is not passed on: ${oneLine(bounded(error.message))}\n`,
    )
    const text = `[mcp-content proxy: the tool result could not be converted, so it is not passed on: ${bounded(error.message)}]`
    const result = { content: [{ type: 'text', text }], isError: true }
    // A 2026-07-28 client takes no result without its kind.
    if (request.modern) result.resultType = 'complete'
    return { ...envelope, result }
  }
  return { ...envelope, result: await fitToolResult(result, envelope, store) }
}

/** The converted answer to a resources/read: each blob item converted, or replaced by a text item that says why. */
async function resourceAnswer(m, request, settings) {
  const { provider, store, maxTextTokens } = settings
  const refused = (item, why) => ({
    uri: typeof item.uri === 'string' ? item.uri : '',
    mimeType: 'text/plain',
    text: `[mcp-content proxy: the resource could not be converted, so it is not passed on: ${bounded(why)}]`,
  })
  const contents = await Promise.all(
    m.result.contents.map(async (item) => {
      if (!isObject(item) || !has(item, 'blob')) return item
      if (typeof item.blob !== 'string') return refused(item, '`blob` is not a string')
      if (typeof item.uri !== 'string') return refused(item, '`uri` is not a string')
      try {
        const resource = { uri: item.uri, blob: item.blob }
        if (typeof item.mimeType === 'string') resource.mimeType = item.mimeType
        const part = await mcp.toContentAsync({ type: 'resource', resource }, { provider, store, maxTextTokens })
        return toResourceContents(part, item)
      } catch (error) {
        process.stderr.write(`mcp-content proxy: the resource ${shownId(item.uri)} could not be converted: ${oneLine(bounded(error.message))}\n`)
        return refused(item, error.message)
      }
    }),
  )
  return { ...m, jsonrpc: '2.0', id: request.id, result: { ...m.result, contents } }
}

module.exports = { taskAnswer, toolResultAnswer, resourceAnswer }
