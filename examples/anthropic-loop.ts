// A raw Anthropic SDK tool loop over an MCP server: each tool result is
// converted for Claude within what the rest of the request leaves and written
// as a tool_result block; a session broken by an attachment from before is
// mended with repairHistory first.
import Anthropic from '@anthropic-ai/sdk'
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
// The MCP SDK's own result type: convertToolResult takes it as it is.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { convertToolResult, toAnthropicToolResult, repairHistory, ToolOutputStore } from 'mcp-content'

export async function loop(anthropic: Anthropic, client: Client, history: Anthropic.MessageParam[]) {
  const store = new ToolOutputStore()
  const { tools: mcpTools } = await client.listTools()
  const tools: Anthropic.Tool[] = mcpTools.map((t) => ({ name: t.name, description: t.description, input_schema: t.inputSchema as Anthropic.Tool.InputSchema }))
  let { messages } = repairHistory(history, { format: 'anthropic', provider: 'anthropic', store })
  for (;;) {
    const reply = await anthropic.messages.create({ model: 'claude-sonnet-4-5', max_tokens: 1024, tools, messages })
    messages = [...messages, { role: 'assistant', content: reply.content }]
    if (reply.stop_reason !== 'tool_use') return messages
    const results: Anthropic.ToolResultBlockParam[] = []
    for (const block of reply.content) {
      if (block.type !== 'tool_use') continue
      const result = (await client.callTool({ name: block.name, arguments: block.input as Record<string, unknown> })) as CallToolResult
      // The request's limits (100 images and documents, 32 MB) are for all of it: count what
      // the history and this turn's results so far carry, and the new result gets what is left.
      const history = { format: 'anthropic' as const, messages: [...messages, { role: 'user' as const, content: results }] }
      const converted = await convertToolResult(result, { provider: 'anthropic', store, history })
      results.push(toAnthropicToolResult(converted, block.id))
    }
    messages = [...messages, { role: 'user', content: results }]
  }
}
