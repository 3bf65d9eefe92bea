// MCP TypeScript SDK v2 (@modelcontextprotocol/client, MCP 2025-11-25 and 2026-07-28): what
// `callTool` answers, and each of its content blocks, go to mcp-content as they are, without a
// cast. `callTool` answers the server's questions itself (input_required), so what it returns is
// the tool's answer; an `InputRequiredResult` is not, and the types refuse it.
import { Client, type CallToolResult, type ContentBlock, type InputRequiredResult } from '@modelcontextprotocol/client'
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio'
import { convertToolResult, toContent, type ContentPart, type ConvertedToolResult } from 'mcp-content'

export async function connect(command: string, args: string[]): Promise<Client> {
  // 'auto': server/discover first (2026-07-28), initialize for a 2025-era server.
  const client = new Client({ name: 'my-agent', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } })
  await client.connect(new StdioClientTransport({ command, args }))
  return client
}

export async function callAndConvert(client: Client, name: string, args: Record<string, unknown>): Promise<ConvertedToolResult> {
  return convertToolResult(await client.callTool({ name, arguments: args }), { provider: 'anthropic' })
}

// Resource links in the result read through the same client, their contents converted in place.
export async function callAndConvertLinked(client: Client, name: string, args: Record<string, unknown>): Promise<ConvertedToolResult> {
  const result = await client.callTool({ name, arguments: args })
  return convertToolResult(result, { provider: 'anthropic', readResource: (uri) => client.readResource({ uri }), linkTimeoutMs: 5000 })
}

export const convertBlock = (block: ContentBlock): ContentPart | null => toContent(block, { provider: 'openai' })
export const convertResult = (result: CallToolResult): Promise<ConvertedToolResult> => convertToolResult(result)

declare const asking: InputRequiredResult
// @ts-expect-error: a result that asks for input first is not a tool's answer
export const refused = convertToolResult(asking)
