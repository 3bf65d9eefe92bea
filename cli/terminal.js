'use strict'
// What the CLI writes besides its answers: colours (only on a TTY, never with NO_COLOR), one line
// per error, progress on a TTY, and the exit codes every command shares.

/** Exit codes of every command (docs/command-line.md). */
const EXIT = Object.freeze({
  OK: 0,
  /** The work failed: a file could not be read, the input is not what the command takes, a conversion threw. */
  FAILED: 1,
  /** The command line is wrong: unknown command or option, a missing or bad value. */
  USAGE: 2,
})

/** An error whose message is the whole line the user sees, and the exit code it ends with. */
class CliError extends Error {
  constructor(message, exitCode = EXIT.FAILED) {
    super(message)
    this.exitCode = exitCode
  }
}

const usageError = (message) => new CliError(message, EXIT.USAGE)

/** Colours for a stream: on a TTY only, off with NO_COLOR (no-color.org), TERM=dumb or --no-color. */
function colours(stream, { noColor = false } = {}) {
  const on = !noColor && stream.isTTY === true && !(process.env.NO_COLOR !== undefined && process.env.NO_COLOR !== '') && process.env.TERM !== 'dumb'
  const wrap = (open, close) => (text) => (on ? `\x1b[${open}m${text}\x1b[${close}m` : String(text))
  return {
    on,
    bold: wrap(1, 22),
    dim: wrap(2, 22),
    red: wrap(31, 39),
    green: wrap(32, 39),
    yellow: wrap(33, 39),
    cyan: wrap(36, 39),
  }
}

/**
 * What a terminal acts on or that reorders what it shows: C0 controls, DEL and C1 controls (ESC
 * and CSI start the sequences that move the cursor, clear the screen, set the title or make
 * links), line and paragraph separators, and the bidirectional marks, embeddings, overrides and
 * isolates (U+061C, U+200E, U+200F, U+202A-U+202E, U+2066-U+2069).
 */
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g

/**
 * `text` safe to print, every character of UNSAFE written as its JSON escape (`\u001b`, `\u202e`;
 * `\n` for a newline): the one function every string from input goes through before the CLI
 * prints it. With `keepNewlines` a newline stays, for text whose line breaks are the CLI's own
 * layout (JSON.stringify's output, where every control character inside a string is escaped
 * already: there the escapes keep the document's value).
 */
function printable(text, { keepNewlines = false } = {}) {
  return String(text).replace(UNSAFE, (c) => {
    if (keepNewlines && c === '\n') return c
    if (c === '\n') return '\\n'
    return `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`
  })
}

/** JSON of `value` for stdout, indented, with no character a terminal acts on (its value unchanged). */
function jsonText(value) {
  return printable(JSON.stringify(value, null, 2), { keepNewlines: true })
}

/** One line: a message (a server's text, a path) cannot break it; line breaks and tabs become spaces. */
function oneLine(text) {
  return printable(
    String(text)
      .replace(/[\r\n\t\u2028\u2029]+/g, ' ')
      .trim(),
  )
}

/** Writes the error line: `mcp-content <command>: <message>`, with the error's code when it has one. */
function printError(command, error) {
  const c = colours(process.stderr)
  const code = error && typeof error.code === 'string' && !(error instanceof CliError) ? ` (${error.code})` : ''
  const message = error instanceof Error ? error.message : String(error)
  const who = command ? `mcp-content ${command}` : 'mcp-content'
  process.stderr.write(`${c.red(`${who}:`)} ${oneLine(message)}${code}\n`)
}

/**
 * A status line on stderr, redrawn in place, for work that takes a while: only when stderr is a
 * TTY, at most 10 times a second, and gone when the work ends.
 */
function progress() {
  const stream = process.stderr
  if (stream.isTTY !== true) return { update() {}, done() {} }
  let last = 0
  let shown = false
  const c = colours(stream)
  return {
    update(text) {
      const now = Date.now()
      if (now - last < 100) return
      last = now
      const width = Math.max(20, (stream.columns || 80) - 1)
      const line = oneLine(text)
      stream.write(`\r\x1b[K${c.dim(line.length > width ? `${line.slice(0, width - 1)}…` : line)}`)
      shown = true
    },
    done() {
      if (shown) stream.write('\r\x1b[K')
      shown = false
    },
  }
}

/** Byte counts for people: 812 B, 53.0 KB, 4.5 MB (decimal, as the notes count). */
function formatBytes(n) {
  if (n < 1000) return `${n} B`
  if (n < 1_000_000) return `${(n / 1000).toFixed(1)} KB`
  return `${(n / 1_000_000).toFixed(1)} MB`
}

module.exports = { EXIT, CliError, usageError, colours, printable, jsonText, oneLine, printError, progress, formatBytes }
