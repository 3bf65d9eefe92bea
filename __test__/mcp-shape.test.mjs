// The proxy's CallToolResult from a converted result (cli/mcp-shape.js): each converted part in
// the place of the part it comes from, with that part's annotations (a note made from a part
// takes its annotations, as the image made to fit keeps them); parts for the user alone stay
// where they were; the error note first, the structured content's JSON last.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'
import { loadBinding, tempDir, makePng, b64, repoRoot, bindingPath } from './fixtures/index.mjs'

const require = createRequire(import.meta.url)
const { convertToolResult } = loadBinding()
const { toMcpResult } = require(
  require('node:fs').existsSync(`${bindingPath}/cli/mcp-shape.js`) ? `${bindingPath}/cli/mcp-shape.js` : `${repoRoot}/cli/mcp-shape.js`,
)

const wide = b64(makePng(9000, 40))
const forUser = { type: 'text', text: 'for the user', annotations: { audience: ['user'] } }

test('annotations stay on the parts they belong to after an image made to fit', async (t) => {
  const result = {
    content: [
      { type: 'image', data: wide, mimeType: 'image/png', annotations: { priority: 0.9 } },
      forUser,
      { type: 'text', text: 'next', annotations: { priority: 0.1 } },
      { type: 'text', text: 'last' },
    ],
  }
  const converted = await convertToolResult(result, { outputDir: tempDir(t), deferMedia: false })
  const out = toMcpResult(converted, result)
  assert.deepEqual(
    out.content.map((p) => [p.type, p.type === 'text' ? p.text.slice(0, 16) : p.mimeType, p.annotations]),
    [
      ['text', '[Image resized t', { priority: 0.9 }],
      ['image', 'image/png', { priority: 0.9 }],
      ['text', 'for the user', { audience: ['user'] }],
      ['text', 'next', { priority: 0.1 }],
      ['text', 'last', undefined],
    ],
  )
})

test('the error note first and the structured JSON last, parts for the user in their places', async (t) => {
  const result = { isError: true, content: [forUser], structuredContent: { n: 1 } }
  const converted = await convertToolResult(result, { outputDir: tempDir(t), deferMedia: false })
  const out = toMcpResult(converted, result)
  assert.deepEqual(
    out.content.map((p) => p.text),
    ['[The tool reported an error and sent no message]', 'for the user', '{"n":1}'],
  )
  assert.deepEqual(out.structuredContent, { n: 1 })
  assert.equal(out.isError, true)
})

test('tools/list: output schemas lose the string constraints a marker could fail, nothing else', () => {
  const { toolsForProxy } = require(`${repoRoot}/cli/mcp-shape.js`)
  const strict = {
    type: 'object',
    properties: {
      data: { type: 'string', pattern: '^[A-Za-z0-9+/=]+$', minLength: 4, maxLength: 9_000_000, description: 'base64' },
      files: { type: 'array', items: { anyOf: [{ type: 'string', format: 'byte', contentEncoding: 'base64' }, { type: 'null' }] } },
      format: { type: 'string', enum: ['png', 'jpeg'] },
    },
    required: ['data'],
  }
  const plain = { type: 'object', properties: { content: { type: 'string' } } }
  const result = Object.freeze({ tools: Object.freeze([{ name: 'strict', outputSchema: strict }, { name: 'plain', outputSchema: plain }, { name: 'none' }]) })
  const out = toolsForProxy(result)
  assert.deepEqual(out.tools[0].outputSchema, {
    type: 'object',
    properties: {
      data: { type: 'string', maxLength: 9_000_000, description: 'base64' },
      files: { type: 'array', items: { anyOf: [{ type: 'string' }, { type: 'null' }] } },
      format: { type: 'string', enum: ['png', 'jpeg'] },
    },
    required: ['data'],
  })
  assert.equal(out.tools[1], result.tools[1], 'a schema with nothing to relax is the same object')
  assert.equal(strict.properties.data.pattern, '^[A-Za-z0-9+/=]+$', 'the input is left as it was')
  const untouched = { tools: [{ name: 'plain', outputSchema: plain }] }
  assert.equal(toolsForProxy(untouched), untouched)
})
