// An OpenAI Responses tool loop over an MCP server: each result converted for
// 'openai' and sent as a function_call_output item.
import OpenAI from 'openai'
import type { ResponseInputItem, FunctionTool } from 'openai/resources/responses/responses'
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
// The MCP SDK's own result type: convertToolResult takes it as it is.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { convertToolResult, toOpenAIResponsesOutput, repairHistory, ToolOutputStore } from 'mcp-content'

export async function loop(openai: OpenAI, client: Client, history: ResponseInputItem[]) {
  const store = new ToolOutputStore()
  const { tools: mcpTools } = await client.listTools()
  const tools: FunctionTool[] = mcpTools.map((t) => ({
    type: 'function',
    name: t.name,
    description: t.description ?? null,
    parameters: t.inputSchema,
    strict: false,
  }))
  let { messages: input } = repairHistory(history, { format: 'openai-responses', provider: 'openai', store })
  for (;;) {
    const response = await openai.responses.create({ model: 'gpt-5', tools, input })
    const calls = response.output.filter((item) => item.type === 'function_call')
    if (calls.length === 0) return response.output_text
    input = [...input, ...calls]
    for (const call of calls) {
      const result = (await client.callTool({ name: call.name, arguments: JSON.parse(call.arguments) as Record<string, unknown> })) as CallToolResult
      const converted = await convertToolResult(result, { provider: 'openai', store })
      input.push(toOpenAIResponsesOutput(converted, call.call_id))
    }
  }
}
