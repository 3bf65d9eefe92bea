'use strict'
// Newline-delimited framing of MCP's stdio transport: one JSON-RPC message a line. A message may be
// tens of megabytes, so a line is joined from its chunks once, when its newline arrives.

const NEWLINE = 0x0a

class LineReader {
  /** `onLine(buffer)` gets each line without its newline (and without a CR before it). */
  constructor(onLine) {
    this.onLine = onLine
    this.pending = []
  }

  push(chunk) {
    let start = 0
    let end = chunk.indexOf(NEWLINE)
    while (end !== -1) {
      const piece = chunk.subarray(start, end)
      const line = this.pending.length === 0 ? piece : Buffer.concat([...this.pending, piece])
      this.pending = []
      this.emit(line)
      start = end + 1
      end = chunk.indexOf(NEWLINE, start)
    }
    if (start < chunk.length) this.pending.push(chunk.subarray(start))
  }

  /** The input ended: a last line without a newline still counts. */
  end() {
    if (this.pending.length > 0) this.emit(Buffer.concat(this.pending))
    this.pending = []
  }

  emit(line) {
    const trimmed = line.length > 0 && line[line.length - 1] === 0x0d ? line.subarray(0, line.length - 1) : line
    if (trimmed.length > 0) this.onLine(trimmed)
  }
}

module.exports = { LineReader }
