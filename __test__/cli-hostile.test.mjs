// The mcp-content command with hostile input (issue 25, item 5): what it prints never carries a
// server's C0 or C1 controls or bidi controls (escaped, JSON output keeping its value); what it
// reads from a file or standard input is capped (--max-input, 256 MiB by default), endless input
// included, with one error line; convert stops at the first byte that cannot start JSON. The
// other commands' cases are in cli.test.mjs, the proxy's in proxy.test.mjs.
import { after, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { loadBinding, repoRoot, tempDir, cliPath as cli } from './fixtures/index.mjs'

const { convertToolResultSync } = loadBinding()

/** Children still running: killed when the file's tests end, so a command that hangs (reading input that never ends) fails its test, by its timeout, and leaves nothing behind. */
const running = new Set()
after(() => {
  for (const child of running) child.kill()
})
/** A test that would hang if the command waited for input that never ends. */
const HANG = { timeout: 60_000 }

/** Runs the CLI; `stdin` is a string (written, then closed), a file descriptor, or 'open' (written to, never closed). */
function run(args, { input, stdin, env = {} } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, ...args], {
      cwd: repoRoot,
      env: { ...process.env, NO_COLOR: '', ...env },
      stdio: [typeof stdin === 'number' ? stdin : 'pipe', 'pipe', 'pipe'],
    })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d) => (stdout += d))
    child.stderr.on('data', (d) => (stderr += d))
    child.on('error', reject)
    running.add(child)
    child.on('close', (code) => {
      running.delete(child)
      resolve({ code, stdout, stderr })
    })
    if (typeof stdin === 'number') return
    // The command may stop reading early: a write after that is no error of the test's.
    child.stdin.on('error', () => {})
    if (stdin === 'open') child.stdin.write(input)
    else child.stdin.end(input)
  })
}

function oneErrorLine(r, pattern) {
  assert.equal(r.code, 1, `exit ${r.code}\n${r.stdout}\n${r.stderr}`)
  const lines = r.stderr.split('\n').filter(Boolean)
  assert.equal(lines.length, 1, r.stderr)
  assert.match(lines[0], pattern)
  assert.doesNotMatch(r.stderr, UNSAFE)
}

/** What a terminal acts on or that reorders what it shows; a newline is the layout's. */
const UNSAFE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/
/** A server's string: ESC sequences (clear screen, an OSC 8 link), a C1 CSI, DEL, a bidi override and isolate, a line break. */
const HOSTILE = 'a\x1b[2J\x1b]8;;http://evil\x07\x9b31m\x7f\u202eb\u2066c\u061c\n]'

const hostileResult = {
  content: [
    { type: HOSTILE, text: 'x' },
    { type: 'resource_link', uri: `file:///${HOSTILE}`, name: HOSTILE, mimeType: HOSTILE, description: HOSTILE },
    { type: 'resource', resource: { uri: `file:///${HOSTILE}`, mimeType: `text/${HOSTILE}`, text: `text ${HOSTILE}` } },
    { type: 'image', data: Buffer.from('not an image at all').toString('base64'), mimeType: `image/${HOSTILE}` },
  ],
}

const devZero = process.platform !== 'win32' && fs.existsSync('/dev/zero')
if (!devZero) console.log('cli-hostile.test: /dev/zero cases skipped: no /dev/zero on this platform')

describe('mcp-content prints no control or bidi character that came from input', () => {
  test('inspect', async () => {
    const r = await run(['inspect', '-'], { input: JSON.stringify(hostileResult) })
    assert.equal(r.code, 0, r.stderr)
    assert.doesNotMatch(r.stdout, UNSAFE)
    assert.doesNotMatch(r.stderr, UNSAFE)
    // Each part on its line: the type's newline and ESC are shown escaped.
    assert.match(r.stdout, /^ {2}part 1: a\\u001b\[2J\\u001b\]8;;http:\/\/evil\\u0007\\u009b31m\\u007f\\u202eb\\u2066c\\u061c\\n\] 1 characters, ~1 tokens$/m)
    assert.equal(r.stdout.match(/^ {2}part \d/gm).length, 4)
  })

  test("inspect --json: escaped with JSON's own escapes, so the document keeps its value", async () => {
    const r = await run(['inspect', '--json', '-'], { input: JSON.stringify(hostileResult) })
    assert.equal(r.code, 0, r.stderr)
    assert.doesNotMatch(r.stdout, UNSAFE)
    const report = JSON.parse(r.stdout)
    assert.equal(report.sources[0].parts[0].type, HOSTILE)
    assert.equal(report.sources[0].parts[1].name, HOSTILE)
  })

  test('convert: the JSON written keeps its value', async () => {
    const r = await run(['convert', '-'], { input: JSON.stringify(hostileResult) })
    assert.equal(r.code, 0, r.stderr)
    assert.doesNotMatch(r.stdout, UNSAFE)
    const converted = JSON.parse(r.stdout)
    const expected = convertToolResultSync(hostileResult)
    assert.deepEqual(
      converted.content.map((p) => p.text),
      expected.content.map((p) => p.text),
    )
    // The embedded text is the server's own, kept whole.
    assert.ok(converted.content.some((p) => p.text.endsWith(`text ${HOSTILE}`)))
  })

  test('an error line naming a path', async (t) => {
    const missing = path.join(tempDir(t), `no-such-${HOSTILE.replace('\n', '')}`)
    const r = await run(['inspect', missing])
    oneErrorLine(r, /^mcp-content inspect: cannot read .*no-such-a\\u001b\[2J.*: no such file$/)
  })
})

describe('mcp-content caps what it reads', () => {
  test('--help and the docs say the cap', async () => {
    for (const command of ['inspect', 'convert']) {
      const r = await run([command, '--help'])
      assert.match(r.stdout, /--max-input <size> +the most read from one file or standard input \(default 256MiB\)/)
    }
    const doc = fs.readFileSync(path.join(repoRoot, 'docs', 'command-line.md'), 'utf8')
    assert.match(doc, /`--max-input <size>`/)
  })

  test('a bad --max-input: one line, exit 2', async () => {
    const r = await run(['inspect', '--max-input', 'lots', '-'], { input: '' })
    assert.equal(r.code, 2, r.stderr)
    assert.match(r.stderr, /^mcp-content inspect: --max-input must be a number of bytes, or with KiB, MiB or GiB/)
  })

  test('a file over the cap: refused, one line', async (t) => {
    const file = path.join(tempDir(t), 'big.bin')
    fs.writeFileSync(file, Buffer.alloc(2048, 1))
    oneErrorLine(
      await run(['inspect', '--max-input', '1KiB', file]),
      /^mcp-content inspect: .*big\.bin is over the input limit of 1KiB \(--max-input raises it\)$/,
    )
    oneErrorLine(await run(['convert', '--max-input', '1KiB', file]), /big\.bin is over the input limit of 1KiB/)
    const r = await run(['inspect', '--max-input', '2KiB', file])
    assert.equal(r.code, 0, r.stderr)
  })

  test('standard input over the cap, left open: stops reading, one line', HANG, async () => {
    const json = JSON.stringify({ content: [{ type: 'text', text: 'x'.repeat(4096) }] })
    oneErrorLine(
      await run(['convert', '--max-input', '1KiB'], { input: json, stdin: 'open' }),
      /^mcp-content convert: standard input is over the input limit of 1KiB \(--max-input raises it\)$/,
    )
    oneErrorLine(await run(['inspect', '--max-input', '1KiB', '-'], { input: json, stdin: 'open' }), /standard input is over the input limit of 1KiB/)
  })

  test('endless input: /dev/zero as a file and as standard input', { ...HANG, skip: devZero ? false : 'no /dev/zero' }, async () => {
    oneErrorLine(
      await run(['inspect', '--max-input', '1MiB', '/dev/zero']),
      /^mcp-content inspect: \/dev\/zero is over the input limit of 1MiB \(--max-input raises it\)$/,
    )
    const zero = fs.openSync('/dev/zero', 'r')
    try {
      oneErrorLine(await run(['inspect', '--max-input', '1MiB', '-'], { stdin: zero }), /^mcp-content inspect: standard input is over the input limit of 1MiB/)
    } finally {
      fs.closeSync(zero)
    }
  })

  test('endless input under the default cap: 256 MiB of /dev/zero, then one line', { ...HANG, skip: devZero ? false : 'no /dev/zero' }, async () => {
    oneErrorLine(await run(['inspect', '/dev/zero']), /^mcp-content inspect: \/dev\/zero is over the input limit of 256MiB \(--max-input raises it\)$/)
  })
})

describe('convert fails fast on input that cannot be JSON', () => {
  test('standard input left open: the first byte says it', HANG, async () => {
    oneErrorLine(await run(['convert'], { input: '  \n\tnot json', stdin: 'open' }), /^mcp-content convert: standard input is not JSON of an MCP tool result/)
  })

  test('/dev/zero: its first byte', { ...HANG, skip: devZero ? false : 'no /dev/zero' }, async () => {
    oneErrorLine(await run(['convert', '/dev/zero']), /^mcp-content convert: \/dev\/zero is not JSON of an MCP tool result/)
  })

  test('JSON that is not a tool result still reads whole first', async () => {
    oneErrorLine(await run(['convert'], { input: '{"hello":1}' }), /^mcp-content convert: standard input is not JSON of an MCP tool result/)
  })
})
