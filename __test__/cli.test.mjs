// The mcp-content command (cli/mcp-content.js) run as a user runs it: each command, --help, exit
// codes, --json, one line per error; colours and progress only on a terminal (a pty from
// Python's pty module). The proxy's own tests are in proxy.test.mjs.
import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { spawn, spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { loadBinding, repoRoot, tempDir, corpus, corpusDir, parseSavedNote, listFiles, cliPath as cli } from './fixtures/index.mjs'
import { makePng } from './fixtures/proxy-cases.mjs'

const { ToolOutputStore } = loadBinding()
const manifest = JSON.parse(fs.readFileSync(path.join(repoRoot, 'package.json'), 'utf8'))
const PROVIDERS = ['default', 'anthropic', 'anthropic-bedrock', 'anthropic-vertex', 'openai', 'openai-chat', 'google', 'bedrock', 'openrouter']

/** Runs the CLI; resolves with { code, stdout, stderr }. */
function run(args, { input, env = {}, cwd = repoRoot } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, ...args], { cwd, env: { ...process.env, NO_COLOR: '', ...env } })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d) => (stdout += d))
    child.stderr.on('data', (d) => (stderr += d))
    child.on('error', reject)
    child.on('close', (code) => resolve({ code, stdout, stderr }))
    child.stdin.end(input)
  })
}

/** One error line on stderr, nothing on stdout unless said. */
function oneErrorLine(r, code, pattern) {
  assert.equal(r.code, code, `exit ${r.code}\n${r.stdout}\n${r.stderr}`)
  const lines = r.stderr.split('\n').filter(Boolean)
  assert.equal(lines.length, 1, r.stderr)
  assert.match(lines[0], pattern)
}

const png = path.join(corpusDir, 'fixture.png')
const b64 = (buf) => buf.toString('base64')
const toolResult = {
  content: [
    { type: 'text', text: 'two attachments:' },
    { type: 'image', data: b64(corpus('fixture.jpg')), mimeType: 'image/png' },
    { type: 'resource', resource: { uri: 'file:///data.parquet', mimeType: 'application/vnd.apache.parquet', blob: b64(corpus('fixture.parquet')) } },
  ],
}

describe('mcp-content: help, version, usage errors', () => {
  test('--help and no command', async () => {
    const help = await run(['--help'])
    assert.equal(help.code, 0)
    assert.match(help.stdout, /^Usage: mcp-content <command>/)
    for (const c of ['inspect', 'convert', 'cleanup', 'proxy']) assert.match(help.stdout, new RegExp(`^  ${c} `, 'm'))
    assert.match(help.stdout, /Exit codes: 0 success, 1 the work failed .*, 2 bad command line/)
    const none = await run([])
    assert.equal(none.code, 2)
    assert.equal(none.stdout, help.stdout)
  })

  test('--version', async () => {
    const r = await run(['--version'])
    assert.deepEqual([r.code, r.stdout], [0, `${manifest.version}\n`])
  })

  for (const command of ['inspect', 'convert', 'cleanup', 'proxy']) {
    test(`${command} --help (and help ${command}) say how to use it and the exit codes`, async () => {
      const r = await run([command, '--help'])
      assert.equal(r.code, 0)
      assert.match(r.stdout, new RegExp(`^Usage: mcp-content ${command} `))
      assert.match(r.stdout, /Exit code/)
      assert.equal(r.stderr, '')
      assert.equal((await run(['help', command])).stdout, r.stdout)
    })
  }

  test('an unknown command, option or provider: one line, exit 2', async () => {
    oneErrorLine(await run(['frobnicate']), 2, /^mcp-content: unknown command "frobnicate": one of inspect, convert, cleanup, proxy/)
    oneErrorLine(await run(['inspect', '--bogus', png]), 2, /^mcp-content inspect: unknown option '--bogus' \(see mcp-content inspect --help\)$/)
    oneErrorLine(await run(['convert', '--provider', 'claude']), 2, /^mcp-content convert: unknown provider "claude": one of default, anthropic,/)
    oneErrorLine(await run(['convert', '--defer-media', 'maybe']), 2, /--defer-media must be auto, true or false/)
    oneErrorLine(await run(['convert', '--max-text-tokens', '0']), 2, /--max-text-tokens must be a positive integer/)
    oneErrorLine(await run(['convert', '--max-text-tokens', '-5']), 2, /^mcp-content convert: Option '--max-text-tokens' argument is ambiguous/)
    oneErrorLine(await run(['convert', '--presign-seconds', '60']), 2, /--presign-seconds is for a bucket store: give --output-dir s3:\/\/bucket\/prefix/)
    oneErrorLine(await run(['convert', '--output-dir', '/tmp/x', '--presign-seconds', '60']), 2, /--presign-seconds is for a bucket store/)
    for (const bad of ['1.5', '604801', '1e3', '060', 'week', '', '99999999999999999999']) {
      oneErrorLine(
        await run(['convert', '--output-dir', 's3://spills/x', '--presign-seconds', bad]),
        2,
        /--presign-seconds must be a whole number of seconds from 0 \(no URL\) to 604800/,
      )
    }
    oneErrorLine(
      await run(['proxy', '--presign-seconds', '-1', '--output-dir', 's3://spills/x', '--', 'node']),
      2,
      /^mcp-content proxy: Option '--presign-seconds' argument is ambiguous/,
    )
    oneErrorLine(await run(['proxy', '--presign-seconds', '3600', '--', 'node']), 2, /^mcp-content proxy: --presign-seconds is for a bucket store/)
    oneErrorLine(await run(['inspect']), 2, /^mcp-content inspect: no file to inspect/)
    oneErrorLine(await run(['cleanup', '--retention-days', 'week']), 2, /--retention-days must be a number of days/)
    oneErrorLine(await run(['proxy', 'node', 'server.js']), 2, /^mcp-content proxy: unexpected "node": the server's command goes after --/)
    oneErrorLine(await run(['proxy', '--']), 2, /^mcp-content proxy: no server to run/)
  })
})

describe('mcp-content inspect', () => {
  test('a plain PNG: type, dimensions and every provider', async () => {
    const r = await run(['inspect', png])
    assert.equal(r.code, 0, r.stderr)
    assert.match(r.stdout, /bytes: image\/png, 200x133 px, 54\.3 KB/)
    assert.match(r.stdout, /default, anthropic, anthropic-bedrock, anthropic-vertex, openai, bedrock +attached as image\/png/)
    assert.match(r.stdout, /openai-chat, google, openrouter +image\/png, moved to a following user message/)
    assert.equal(r.stderr, '', 'no progress on a pipe')
  })

  test('--json: a tool result from stdin, each part with its classification and each provider', async () => {
    const r = await run(['inspect', '--json', '-'], { input: JSON.stringify(toolResult) })
    assert.equal(r.code, 0, r.stderr)
    const [source] = JSON.parse(r.stdout).sources
    assert.equal(source.source, '-')
    assert.equal(source.kind, 'tool-result')
    assert.deepEqual(
      source.parts.map((p) => p.type),
      ['text', 'image', 'resource'],
    )
    const [text, image, parquet] = source.parts
    assert.equal(text.chars, 'two attachments:'.length)
    assert.deepEqual(Object.keys(image.providers), PROVIDERS)
    assert.equal(image.classification.mediaType, 'image/jpeg')
    assert.equal(image.classification.declaredMediaType, 'image/png')
    assert.deepEqual([image.classification.width, image.classification.height], [200, 133])
    assert.match(image.classification.problem, /declared image\/png but the bytes are image\/jpeg/)
    assert.deepEqual(image.providers.anthropic, { action: 'attached', mediaType: 'image/jpeg' })
    assert.deepEqual(image.providers['openai-chat'], { action: 'deferred', mediaType: 'image/jpeg' })
    assert.equal(parquet.uri, 'file:///data.parquet')
    for (const p of PROVIDERS)
      assert.deepEqual(parquet.providers[p], {
        action: 'saved',
        mediaType: 'application/vnd.apache.parquet',
        reason: 'application/vnd.apache.parquet is not accepted',
      })
  })

  test('a 9000 px PNG and a corrupt one: the problems and reasons; nothing is left on disk', async (t) => {
    const dir = tempDir(t)
    const tall = path.join(dir, 'tall.png')
    fs.writeFileSync(tall, makePng(50, 9000, false))
    const tmp = tempDir(t)
    const r = await run(['inspect', '--json', '--provider', 'anthropic', '--provider', 'openai', tall, path.join(corpusDir, 'fixture-corrupt.png')], {
      env: { TMPDIR: tmp },
    })
    assert.equal(r.code, 0, r.stderr)
    const [a, b] = JSON.parse(r.stdout).sources
    assert.deepEqual(Object.keys(a.parts[0].providers), ['anthropic', 'openai'])
    const fitted = a.parts[0].providers.anthropic
    assert.deepEqual([fitted.action, fitted.mediaType, fitted.reason], ['fitted', 'image/png', '50x9000 px, over the 8000 px limit'])
    assert.match(fitted.sent, /^image\/png 44x8000 px, \d+ KB$/)
    assert.deepEqual(a.parts[0].providers.openai, { action: 'attached', mediaType: 'image/png' })
    assert.match(b.parts[0].classification.problem, /^corrupt PNG/)
    assert.equal(b.parts[0].providers.anthropic.action, 'saved')
    assert.deepEqual(fs.readdirSync(tmp), [], 'the temporary store is removed')
  })

  test('--type declares what a plain file is', async () => {
    const r = await run(['inspect', '--json', '--type', 'text/markdown', png])
    const [part] = JSON.parse(r.stdout).sources[0].parts
    assert.equal(part.declaredMediaType, 'text/markdown')
    assert.match(part.classification.problem, /declared text\/markdown but the bytes are image\/png/)
  })

  test('a part of no MCP type is a note; a part that is not an object: one line, exit 1', async () => {
    const r = await run(['inspect', '--json', '--provider', 'default', '-'], { input: '{"content":[{"type":"weird"}]}' })
    assert.deepEqual(JSON.parse(r.stdout).sources[0].parts[0].providers.default, { action: 'note', reason: 'not a content part type MCP defines' })
    oneErrorLine(await run(['inspect', '-'], { input: '{"content":[null]}' }), 1, /^mcp-content inspect: .*\(INVALID_ARGUMENT\)$/)
  })

  test('a file that cannot be read: one line, exit 1, the others still inspected', async () => {
    const r = await run(['inspect', path.join(repoRoot, 'no-such-file.png'), png])
    oneErrorLine(r, 1, /^mcp-content inspect: cannot read .*no-such-file\.png: no such file$/)
    assert.match(r.stdout, /image\/png, 200x133 px/)
  })
})

describe('mcp-content convert', () => {
  test('a tool result from stdin: the converted result as JSON, files saved in --output-dir', async (t) => {
    const dir = tempDir(t)
    const r = await run(['convert', '--provider', 'anthropic', '--output-dir', dir], { input: JSON.stringify(toolResult) })
    assert.equal(r.code, 0, r.stderr)
    const out = JSON.parse(r.stdout)
    assert.deepEqual(Object.keys(out).sort(), ['content', 'deferred', 'isError', 'saved', 'sources'])
    assert.deepEqual(out.content[0], { type: 'text', text: 'two attachments:' })
    assert.deepEqual(out.content[1], { type: 'file', mediaType: 'image/jpeg', data: b64(corpus('fixture.jpg')) })
    const note = parseSavedNote(out.content[2].text)
    assert.equal(path.dirname(note.path), dir)
    assert.ok(fs.readFileSync(note.path).equals(corpus('fixture.parquet')))
    assert.deepEqual(out.saved, [
      { path: note.path, byteLength: corpus('fixture.parquet').length, mediaType: 'application/vnd.apache.parquet', uri: 'file:///data.parquet' },
    ])
  })

  test('openai-chat defers the image; --defer-media false saves it; a file argument and a JSON-RPC response work', async (t) => {
    const dir = tempDir(t)
    const file = path.join(dir, 'response.json')
    fs.writeFileSync(file, JSON.stringify({ jsonrpc: '2.0', id: 4, result: toolResult }))
    const deferred = JSON.parse((await run(['convert', '--provider', 'openai-chat', '--output-dir', dir, file])).stdout)
    assert.deepEqual(deferred.content[1], { type: 'text', text: '[image/jpeg image, 58 KB, attached below]' })
    assert.equal(deferred.deferred[0].mediaType, 'image/jpeg')
    const kept = JSON.parse((await run(['convert', '--provider', 'openai-chat', '--defer-media', 'false', '--output-dir', dir, file])).stdout)
    assert.deepEqual(kept.deferred, [])
    assert.match(kept.content[1].text, /image\/jpeg is not accepted inside a tool result; saved to /)
  })

  test('--mcp: the CallToolResult the proxy would send', async (t) => {
    const r = await run(['convert', '--mcp', '--output-dir', tempDir(t)], { input: JSON.stringify({ ...toolResult, structuredContent: { n: 1 } }) })
    const out = JSON.parse(r.stdout)
    assert.deepEqual(out.content[1], { type: 'image', data: b64(corpus('fixture.jpg')), mimeType: 'image/jpeg' })
    assert.deepEqual(out.structuredContent, { n: 1 })
    assert.deepEqual(out.content.at(-1), { type: 'text', text: '{"n":1}' })
    oneErrorLine(await run(['convert', '--mcp', '--defer-media', 'true'], { input: '{}' }), 2, /--mcp sends no media to a following message/)
    // The error note first, a part for the user only as it came, annotations kept, the JSON last.
    const forUser = { type: 'image', data: '', mimeType: 'image/png', annotations: { audience: ['user'] } }
    const input = {
      isError: true,
      content: [forUser, { type: 'image', data: '', mimeType: 'image/png', annotations: { priority: 1 } }],
      structuredContent: { a: 1 },
    }
    const error = JSON.parse((await run(['convert', '--mcp'], { input: JSON.stringify(input) })).stdout)
    assert.deepEqual(error, {
      content: [
        { type: 'text', text: '[The tool reported an error and sent no message]' },
        forUser,
        { type: 'text', text: '[Image (image/png): empty data; nothing was saved]', annotations: { priority: 1 } },
        { type: 'text', text: '{"a":1}' },
      ],
      structuredContent: { a: 1 },
      isError: true,
    })
  })

  test('input that is not a tool result, or a bad part: one line, exit 1', async () => {
    oneErrorLine(await run(['convert'], { input: '{"hello":1}' }), 1, /^mcp-content convert: standard input is not JSON of an MCP tool result/)
    oneErrorLine(await run(['convert'], { input: 'not json' }), 1, /^mcp-content convert: standard input is not JSON/)
    oneErrorLine(await run(['convert'], { input: '{"content":[{"type":"text","text":5}]}' }), 1, /^mcp-content convert: .*\(INVALID_ARGUMENT\)$/)
    oneErrorLine(await run(['convert', 'a.json', 'b.json']), 2, /convert takes one result/)
  })
})

describe('mcp-content cleanup', () => {
  function storeWithFiles(t) {
    const dir = tempDir(t)
    const store = new ToolOutputStore(dir)
    const old = [store.save(Buffer.from('old one')), store.save(Buffer.from('old two'), { extension: 'txt' })]
    const fresh = store.save(Buffer.from('fresh'))
    const past = new Date(Date.now() - 10 * 24 * 3600 * 1000)
    for (const f of old) fs.utimesSync(f.path, past, past)
    fs.writeFileSync(path.join(dir, 'notes.txt'), "not the store's")
    fs.utimesSync(path.join(dir, 'notes.txt'), past, past)
    return { dir, old, fresh }
  }

  test("removes the store's own expired files and lists them; nothing else", async (t) => {
    const { dir, old, fresh } = storeWithFiles(t)
    const r = await run(['cleanup', dir])
    assert.equal(r.code, 0, r.stderr)
    const lines = r.stdout.trim().split('\n')
    assert.equal(lines[0], `removed 2 files (14 B) from ${dir}; 1 kept`)
    assert.deepEqual(
      lines.slice(1).map((l) => l.trim().split(/\s+/)[0]),
      old.map((f) => path.basename(f.path)).sort(),
    )
    assert.deepEqual(listFiles(dir), [path.basename(fresh.path), 'notes.txt'].sort())
  })

  test('--json, and --retention-days 0 removes every own file', async (t) => {
    const { dir, old, fresh } = storeWithFiles(t)
    const r = await run(['cleanup', '--json', '--retention-days', '0', dir])
    const out = JSON.parse(r.stdout)
    assert.equal(out.dir, dir)
    assert.equal(out.count, 3)
    assert.deepEqual(
      out.removed.map((f) => f.name),
      [...old, fresh].map((f) => path.basename(f.path)).sort(),
    )
    assert.deepEqual(out.removed.map((f) => f.byteLength).sort(), [5, 7, 7])
    assert.deepEqual(listFiles(dir), ['notes.txt'])
    const again = JSON.parse((await run(['cleanup', '--json', dir])).stdout)
    assert.deepEqual([again.count, again.removed], [0, []])
  })

  test("--json lists every file it removed, a temp file a crash left included; a .bak copy is not the store's", async (t) => {
    const { dir, old, fresh } = storeWithFiles(t)
    const past = new Date(Date.now() - 10 * 24 * 3600 * 1000)
    const temp = `.tool_tmp_0000000001_${'0'.repeat(19)}1_000000001`
    const bak = `${path.basename(old[0].path)}.bak`
    for (const [name, text] of [
      [temp, 'half'],
      [bak, 'a copy'],
    ]) {
      fs.writeFileSync(path.join(dir, name), text)
      fs.utimesSync(path.join(dir, name), past, past)
    }
    const out = JSON.parse((await run(['cleanup', '--json', dir])).stdout)
    assert.deepEqual(
      out.removed,
      [temp, ...old.map((f) => path.basename(f.path))].sort().map((name) => ({ name, byteLength: name === temp ? 4 : 7 })),
    )
    assert.equal(out.count, 3)
    assert.deepEqual(listFiles(dir), [bak, path.basename(fresh.path), 'notes.txt'].sort())
  })

  test('the default store, in a TMPDIR of its own', async (t) => {
    const tmp = tempDir(t)
    // Windows takes its temp folder from TMP (then TEMP).
    const r = await run(['cleanup', '--json'], { env: { TMPDIR: tmp, TMP: tmp, TEMP: tmp } })
    assert.equal(r.code, 0, r.stderr)
    assert.ok(JSON.parse(r.stdout).dir.startsWith(tmp))
  })

  test('a missing folder or a file: one line, exit 1', async (t) => {
    oneErrorLine(await run(['cleanup', path.join(repoRoot, 'no-such-dir')]), 1, /^mcp-content cleanup: no such folder: /)
    const file = path.join(tempDir(t), 'f')
    fs.writeFileSync(file, '')
    oneErrorLine(await run(['cleanup', file]), 1, /^mcp-content cleanup: not a folder: /)
  })
})

describe('mcp-content proxy: start-up errors', () => {
  test('a command that does not exist: one line, exit 1', async () => {
    oneErrorLine(await run(['proxy', '--', '/no/such/mcp-server']), 1, /^mcp-content proxy: cannot start \/no\/such\/mcp-server: no such command$/)
  })
})

const python = spawnSync('python3', ['-c', 'import pty'], { encoding: 'utf8' }).status === 0 ? 'python3' : null
if (!python) console.log('cli.test: terminal checks skipped: no python3 with the pty module to make a terminal')

describe('on a terminal', { skip: python ? false : 'no python3 with the pty module' }, () => {
  /**
   * Runs the CLI with stdout and stderr on a pty; their output, merged. It runs in the
   * fixture's folder so that paths stay short: the progress line is cut to the terminal's
   * width, and a checkout at a long path would cut it before the text the test looks for.
   */
  function onTty(args, env = {}) {
    const script = 'import pty, sys; sys.exit(pty.spawn(sys.argv[1:]) >> 8)'
    return spawnSync(python, ['-c', script, process.execPath, cli, ...args], {
      cwd: corpusDir,
      encoding: 'utf8',
      env: { ...process.env, NO_COLOR: '', TERM: 'xterm', ...env },
    })
  }
  const png = 'fixture.png'

  test('colours and a progress line on a terminal', () => {
    const r = onTty(['inspect', png])
    assert.equal(r.status, 0, r.stdout)
    assert.match(r.stdout, /\x1b\[32mattached as image\/png\x1b\[39m/)
    assert.match(r.stdout, /\r\x1b\[K\x1b\[2minspecting fixture\.png: part 1 of 1/)
  })

  test('NO_COLOR and --no-color turn colours off, not the progress line', () => {
    for (const [args, env] of [
      [['inspect', png], { NO_COLOR: '1' }],
      [['inspect', '--no-color', png], {}],
    ]) {
      const r = onTty(args, env)
      assert.equal(r.status, 0, r.stdout)
      assert.doesNotMatch(r.stdout.replace(/\r\x1b\[K/g, '').replace(/\x1b\[2m[^\x1b]*\x1b\[22m/g, ''), /\x1b\[/)
      assert.match(r.stdout, /attached as image\/png/)
    }
  })
})
