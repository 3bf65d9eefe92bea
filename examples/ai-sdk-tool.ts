// An MCP tool for the AI SDK (7): `execute` converts the result for the
// provider, `toModelOutput` writes it in the SDK's shape, and media the
// provider takes only in a user message are sent by `prepareStep` before the
// next model call. `read_saved_output` lets the model read back what a note
// says was saved (a long text by pages, an image fitted).
import { generateText, tool, jsonSchema, type ModelMessage, type LanguageModel } from 'ai'
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
// The MCP SDK's own result type: convertToolResult takes it as it is.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import {
  convertToolResult,
  toAiSdkToolOutput,
  readSavedOutputTool,
  AttachmentQueue,
  ToolOutputStore,
  type ConvertedToolResult,
  type ContentPart,
} from 'mcp-content'

export function mcpTools(client: Client, names: string[], store: ToolOutputStore, queue: AttachmentQueue) {
  return Object.fromEntries(
    names.map((name) => [
      name,
      tool({
        description: `MCP tool ${name}`,
        inputSchema: jsonSchema<Record<string, unknown>>({ type: 'object' }),
        execute: async (args, { toolCallId }): Promise<ConvertedToolResult> => {
          const result = (await client.callTool({ name, arguments: args })) as CallToolResult
          return convertToolResult(result, { provider: 'openai-chat', store, toolCallId, attachments: queue })
        },
        toModelOutput: ({ output }) => toAiSdkToolOutput(output),
      }),
    ]),
  )
}

/** The tool reading saved files back, its answer converted like an MCP tool's. */
export function readBackTool(store: ToolOutputStore, queue: AttachmentQueue) {
  const read = readSavedOutputTool(store, { provider: 'openai-chat' })
  return {
    [read.name]: tool({
      description: read.description,
      inputSchema: jsonSchema<{ location: string; offset?: number; limit?: number }>(read.inputSchema),
      execute: async (args, { toolCallId }): Promise<ConvertedToolResult> =>
        convertToolResult(await read.execute(args), { provider: 'openai-chat', store, toolCallId, attachments: queue }),
      toModelOutput: ({ output }) => toAiSdkToolOutput(output),
    }),
  }
}

/** A user message of queued media, in AI SDK parts. */
function mediaMessage(parts: ContentPart[]): ModelMessage {
  return {
    role: 'user',
    content: parts.map((p) => (p.type === 'text' ? { type: 'text' as const, text: p.text } : { type: 'file' as const, mediaType: p.mediaType, data: p.data })),
  }
}

export async function run(model: LanguageModel, client: Client, names: string[]) {
  const store = new ToolOutputStore()
  const queue = new AttachmentQueue()
  return generateText({
    model,
    tools: { ...mcpTools(client, names, store, queue), ...readBackTool(store, queue) },
    prompt: 'Read the attachments of JIRA-1',
    prepareStep: ({ messages }) => (queue.size > 0 ? { messages: [...messages, mediaMessage(queue.drain())] } : undefined),
  })
}
