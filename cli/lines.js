'use strict'
// Newline-delimited framing of MCP's stdio transport: one JSON-RPC message a line. A message may be
// tens of megabytes, so a line is joined from its chunks once, when its newline arrives. A line over
// `maxBytes` is never joined nor kept: its bytes are dropped as they come, up to its newline, and
// only its first and last few bytes are kept, to find the id of the message it was.

const NEWLINE = 0x0a
/** Bytes kept from each end of a line over the limit: enough for the top-level keys and the id. */
const EDGE_BYTES = 4096

class LineReader {
  /**
   * `onLine(buffer)` gets each line without its newline (and without a CR before it);
   * `onOverlong({ bytes, head, tail })` each line over `maxBytes`, once its newline came.
   */
  constructor(onLine, { maxBytes = Infinity, onOverlong = () => {} } = {}) {
    this.onLine = onLine
    this.onOverlong = onOverlong
    this.maxBytes = maxBytes
    this.pending = []
    this.pendingBytes = 0
    /** The line being dropped: { bytes, head, tail }, or null. */
    this.overlong = null
  }

  push(chunk) {
    let start = 0
    let end = chunk.indexOf(NEWLINE)
    while (end !== -1) {
      this.add(chunk.subarray(start, end))
      this.endLine()
      start = end + 1
      end = chunk.indexOf(NEWLINE, start)
    }
    if (start < chunk.length) this.add(chunk.subarray(start))
  }

  /** The input ended: a last line without a newline still counts. */
  end() {
    this.endLine()
  }

  /** Part of the current line: kept while the line is within the limit, else only its edges. */
  add(piece) {
    if (piece.length === 0) return
    if (this.overlong === null && this.pendingBytes + piece.length <= this.maxBytes) {
      this.pending.push(piece)
      this.pendingBytes += piece.length
      return
    }
    if (this.overlong === null) {
      this.overlong = { bytes: 0, head: Buffer.alloc(0), tail: Buffer.alloc(0) }
      const kept = this.pending
      this.pending = []
      this.pendingBytes = 0
      for (const p of kept) this.addEdges(p)
    }
    this.addEdges(piece)
  }

  addEdges(piece) {
    const o = this.overlong
    o.bytes += piece.length
    if (o.head.length < EDGE_BYTES) o.head = Buffer.concat([o.head, piece.subarray(0, EDGE_BYTES - o.head.length)])
    const last = piece.length >= EDGE_BYTES ? Buffer.from(piece.subarray(piece.length - EDGE_BYTES)) : Buffer.concat([o.tail, piece])
    o.tail = last.length > EDGE_BYTES ? Buffer.from(last.subarray(last.length - EDGE_BYTES)) : last
  }

  endLine() {
    if (this.overlong !== null) {
      const o = this.overlong
      this.overlong = null
      this.onOverlong(o)
      return
    }
    if (this.pending.length === 0) return
    const line = this.pending.length === 1 ? this.pending[0] : Buffer.concat(this.pending, this.pendingBytes)
    this.pending = []
    this.pendingBytes = 0
    const trimmed = line[line.length - 1] === 0x0d ? line.subarray(0, line.length - 1) : line
    if (trimmed.length > 0) this.onLine(trimmed)
  }
}

const STRING = String.raw`"(?:[^"\\]|\\.)*"`
const NUMBER = String.raw`-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?`
/** A top-level key, then a value that is a string, number or literal, then `,` or `}`. */
const KEY = new RegExp(String.raw`\s*(${STRING})\s*:\s*`, 'y')
const PRIMITIVE = new RegExp(String.raw`(${STRING}|${NUMBER}|true|false|null)\s*([,}])`, 'y')
/** The object's last member is `"id": <string or number>`: what JSON.parse would read as its id. */
const LAST_ID = new RegExp(String.raw`[{,]\s*"id"\s*:\s*(${STRING}|${NUMBER})\s*\}\s*$`)

/**
 * What the first and last bytes of a line too long to read say of the JSON-RPC message it holds:
 * the top-level keys read before the first object or array value (`result`, `error`, `method`...),
 * and its id when the line starts or ends with it (`{"jsonrpc":"2.0","id":1,"result":...` as most
 * write it, `...,"jsonrpc":"2.0","id":1}` as the SDK does). A batch or anything else: no id.
 */
function peekMessage(head, tail) {
  const keys = new Set()
  let id
  const text = head.toString('utf8')
  const open = /^\s*\{/.exec(text)
  let at = open ? open[0].length : text.length
  while (at < text.length) {
    KEY.lastIndex = at
    const key = KEY.exec(text)
    if (!key) break
    const name = parseJson(key[1])
    keys.add(name)
    PRIMITIVE.lastIndex = KEY.lastIndex
    const value = PRIMITIVE.exec(text)
    if (!value) break // an object or array value (the long part), or cut off
    if (name === 'id') id = parseJson(value[1])
    if (value[2] === '}') break
    at = PRIMITIVE.lastIndex
  }
  const last = open ? LAST_ID.exec(tail.toString('utf8')) : null
  if (last) id = parseJson(last[1]) // JSON.parse keeps the last of two equal keys
  return { keys, id: typeof id === 'string' || typeof id === 'number' ? id : undefined }
}

function parseJson(text) {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

module.exports = { LineReader, peekMessage }
