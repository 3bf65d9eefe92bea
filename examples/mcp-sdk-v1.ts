// MCP TypeScript SDK 1.x (@modelcontextprotocol/sdk, MCP 2025-11-25): what `callTool` answers, and
// each of its content blocks, go to mcp-content as they are, without a cast.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import type { CallToolResult, ContentBlock } from '@modelcontextprotocol/sdk/types.js'
import { convertToolResult, toContent, type ContentPart, type ConvertedToolResult } from 'mcp-content'

export async function callAndConvert(client: Client, name: string, args: Record<string, unknown>): Promise<ConvertedToolResult> {
  return convertToolResult(await client.callTool({ name, arguments: args }), { provider: 'anthropic' })
}

// Resource links in the result read through the same client, their contents converted in place.
export async function callAndConvertLinked(client: Client, name: string, args: Record<string, unknown>): Promise<ConvertedToolResult> {
  const result = await client.callTool({ name, arguments: args })
  return convertToolResult(result, { provider: 'anthropic', readResource: (uri) => client.readResource({ uri }), maxLinks: 5 })
}

export const convertBlock = (block: ContentBlock): ContentPart | null => toContent(block, { provider: 'openai' })
export const convertResult = (result: CallToolResult): Promise<ConvertedToolResult> => convertToolResult(result)
