// An opencode-style MCP tool: `execute` calls the MCP server and returns what
// the tool layer keeps (the output text and the attachments), with every part
// converted for the provider the session talks to. Media the provider takes
// only in a user message wait in the session's AttachmentQueue.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
// The MCP SDK's own result type: convertToolResult takes it as it is.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { convertToolResult, AttachmentQueue, ToolOutputStore, type ProviderName } from 'mcp-content'

/** What opencode's tool layer keeps of one call: text for the model, files beside it. */
export interface ToolOutput {
  title: string
  output: string
  metadata: Record<string, unknown>
  attachments: Array<{ type: 'file'; mime: string; url: string; filename?: string }>
}

export function mcpTool(client: Client, name: string, provider: ProviderName, store: ToolOutputStore, queue: AttachmentQueue) {
  return {
    async execute(args: Record<string, unknown>, ctx: { callID: string }): Promise<ToolOutput> {
      const result = (await client.callTool({ name, arguments: args })) as CallToolResult
      const converted = await convertToolResult(result, {
        provider,
        store,
        toolCallId: ctx.callID,
        attachments: queue,
      })
      const output = converted.content.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('\n\n')
      const attachments = converted.content.flatMap((p) =>
        p.type === 'file' ? [{ type: 'file' as const, mime: p.mediaType, url: `data:${p.mediaType};base64,${p.data}`, filename: p.filename }] : [],
      )
      return { title: name, output, metadata: { isError: converted.isError, saved: converted.saved }, attachments }
    },
  }
}
