#!/usr/bin/env node
// The demo's MCP server (stdio): one tool per case of cases.mjs, each returning its one content
// part. `--images <dir>` reads the two generated images from there (the demo makes them once);
// without it they are made here.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import { generatedImages } from './images.mjs'
import { demoCases } from './cases.mjs'

const at = process.argv.indexOf('--images')
const images = generatedImages(at === -1 ? null : process.argv[at + 1])
const server = new McpServer({ name: 'mcp-content-demo', version: '0.1.0' })
for (const [name, [description, build]] of Object.entries(demoCases)) {
  server.registerTool(name, { description }, async () => ({ content: [build(images)] }))
}
await server.connect(new StdioServerTransport())
