'use strict'
// What the proxy writes to its client stays within one message limit: SDK 1.x clients read at most
// 10 MiB a message over stdio (STDIO_DEFAULT_MAX_BUFFER_SIZE) and drop the connection past it, and
// a message is read together with what follows it in the pipe. A tool result over the limit has
// its largest attachments saved and noted until it fits; when its text alone is over, the whole
// result is saved and a short result names the file.

const { printable } = require('./terminal.js')

/** Bytes of one message with its newline: 10 MiB less 1 MiB of room for what is read with it. */
const MAX_MESSAGE_BYTES = 9 * 1024 * 1024
/** What a reason or a server's string may take in a text the proxy makes. */
const MAX_REASON_CHARS = 300
/** A generous size for a note standing in for an attachment (the path, the uri cut to MAX_REASON_CHARS). */
const NOTE_ROOM = 1000

/** Bytes of `message` as the line the proxy writes. */
const lineBytes = (message) => Buffer.byteLength(JSON.stringify(message)) + 1

/**
 * A server's string or an error's message, safe in a note: cut at MAX_REASON_CHARS characters,
 * controls, line and bidi marks escaped as the CLI escapes what it prints.
 */
function bounded(text) {
  const s = String(text)
  const cut = s.length > MAX_REASON_CHARS ? `${s.slice(0, MAX_REASON_CHARS)}…` : s
  return printable(cut)
}

/** An attachment of an MCP result part: its base64, media type and the words a note names it with. */
function attachmentOf(part) {
  if (part === null || typeof part !== 'object') return undefined
  if ((part.type === 'image' || part.type === 'audio') && typeof part.data === 'string') {
    return { data: part.data, mediaType: part.mimeType, what: part.type === 'image' ? 'Image' : 'Audio' }
  }
  const resource = part.type === 'resource' ? part.resource : undefined
  if (resource && typeof resource.blob === 'string') return { data: resource.blob, mediaType: resource.mimeType, what: `Resource ${bounded(resource.uri)}` }
  return undefined
}

/**
 * A converted `CallToolResult` that fits in one message with its JSON-RPC envelope `message`
 * (`{ jsonrpc, id }`); saving what it must into `store` (a ToolOutputStore).
 */
async function fitToolResult(result, message, store) {
  const size = lineBytes({ ...message, result })
  if (size <= MAX_MESSAGE_BYTES) return result
  const attachments = result.content
    .map((part, index) => ({ part, index, attachment: attachmentOf(part) }))
    .filter((a) => a.attachment !== undefined)
    .map((a) => ({ ...a, bytes: Buffer.byteLength(JSON.stringify(a.part)) }))
    .sort((a, b) => b.bytes - a.bytes)
  const withoutAttachments = size - attachments.reduce((sum, a) => sum + a.bytes - NOTE_ROOM, 0)
  if (withoutAttachments > MAX_MESSAGE_BYTES) return saveWhole(result, size, message, store)
  const content = [...result.content]
  let left = size
  for (const { part, index, attachment, bytes } of attachments) {
    if (left <= MAX_MESSAGE_BYTES) break
    const note = { type: 'text', text: await saveNote(attachment, store) }
    if (part.annotations !== undefined) note.annotations = part.annotations
    content[index] = note
    left += Buffer.byteLength(JSON.stringify(note)) - bytes
  }
  return { ...result, content }
}

async function saveNote({ data, mediaType, what }, store) {
  const type = typeof mediaType === 'string' ? bounded(mediaType) : 'unknown type'
  const why = `left out to keep the message under the proxy's limit of ${MAX_MESSAGE_BYTES} bytes`
  try {
    const saved = await store.saveAsync(data, typeof mediaType === 'string' ? { mediaType } : undefined)
    return `[${what} (${type}, ${saved.byteLength} bytes): ${why}; saved to ${saved.path}]`
  } catch (error) {
    return `[${what} (${type}): ${why}; it could not be saved: ${bounded(error.message)}]`
  }
}

/** The whole converted result as a JSON file, and a short result naming it. */
async function saveWhole(result, size, message, store) {
  const json = Buffer.from(JSON.stringify(result))
  let text
  try {
    const saved = await store.saveAsync(json, { mediaType: 'application/json' })
    text = `[The tool result (${json.length} bytes as JSON) is over the proxy's message limit of ${MAX_MESSAGE_BYTES} bytes; saved to ${saved.path}]`
  } catch (error) {
    text = `[The tool result (${json.length} bytes as JSON) is over the proxy's message limit of ${MAX_MESSAGE_BYTES} bytes and could not be saved: ${bounded(error.message)}]`
  }
  const small = { content: [{ type: 'text', text }] }
  if (result.isError !== undefined) small.isError = result.isError
  if (result.resultType !== undefined) small.resultType = result.resultType
  // Structured content stays when it fits: a client checks it against the tool's output schema,
  // and skips that check only for an error result.
  if (result.structuredContent !== undefined) {
    const withStructured = { ...small, structuredContent: result.structuredContent }
    if (lineBytes({ ...message, result: withStructured }) <= MAX_MESSAGE_BYTES) return withStructured
    small.isError = true
  }
  return small
}

module.exports = { MAX_MESSAGE_BYTES, lineBytes, bounded, fitToolResult }
