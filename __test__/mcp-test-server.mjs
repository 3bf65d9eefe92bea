#!/usr/bin/env node
// A small real MCP server over stdio whose tools return the content parts of
// __test__/fixtures/mcp-cases.mjs (markdown/patch blobs, png, parquet, svg, pdf,
// mislabelled jpeg, truncated png, empty blob, invalid base64, resource links,
// audience-user content, audio). Run: node __test__/mcp-test-server.mjs
// With --proxy-cases it also serves what the proxy tests need (proxy.test.mjs): large results,
// delayed answers, a slow tool with progress that honours cancellation, a tool that makes the
// server exit, and blob resources.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import { cases } from './fixtures/mcp-cases.mjs'

const server = new McpServer({ name: 'mcp-content-test-server', version: '0.1.0' })

for (const [name, build] of Object.entries(cases)) {
  server.registerTool(name, { description: `mcp-content test case: ${name}` }, async () => ({
    content: build(),
    ...(name === 'error_result' ? { isError: true } : {}),
  }))
}

if (process.argv.includes('--proxy-cases')) {
  const { registerProxyCases } = await import('./fixtures/proxy-cases.mjs')
  registerProxyCases(server)
}

await server.connect(new StdioServerTransport())
