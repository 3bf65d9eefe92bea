// An AI SDK agent (7) for serverless functions or replicas behind a load
// balancer: spills go to a bucket, not to the instance's temp folder, so the
// instance that serves the model's `read_saved_output` call can read back what
// another one saved (docs/hosted.md). The bucket's region, endpoint and
// credentials come from the AWS environment (on AWS Lambda, the function's role).
import { ToolLoopAgent, tool, jsonSchema, type LanguageModel } from 'ai'
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
// The MCP SDK's own result type: convertToolResult takes it as it is.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { convertToolResult, toAiSdkToolOutput, readSavedOutputTool, ToolOutputStore, type ConvertedToolResult, type ProviderName } from 'mcp-content'

// Claude takes images and PDFs in a tool result: nothing is deferred, so no AttachmentQueue.
const provider: ProviderName = 'anthropic'

/**
 * The store every instance of one agent shares: the same bucket and prefix, since a store reads
 * back only objects directly under its own prefix. Making it sends nothing, so an instance can
 * make it once and keep it while it is warm. Old objects are removed by the bucket's lifecycle
 * rule (docs/hosted.md), not by `store.cleanup()` on the request path.
 */
export function spillStore(bucket: string, agent: string): ToolOutputStore {
  return new ToolOutputStore(`s3://${bucket}/tool-output/${agent}`)
}

/** Each MCP tool: its result converted (what cannot be sent becomes an object and a note). */
function mcpTools(client: Client, names: string[], store: ToolOutputStore) {
  return Object.fromEntries(
    names.map((name) => [
      name,
      tool({
        description: `MCP tool ${name}`,
        inputSchema: jsonSchema<Record<string, unknown>>({ type: 'object' }),
        execute: async (args): Promise<ConvertedToolResult> => {
          const result = (await client.callTool({ name, arguments: args })) as CallToolResult
          return convertToolResult(result, { provider, store })
        },
        toModelOutput: ({ output }) => toAiSdkToolOutput(output),
      }),
    ]),
  )
}

/** `read_saved_output`: the model reads an s3:// location a note named, from any instance. */
function readBackTool(store: ToolOutputStore) {
  const read = readSavedOutputTool(store, { provider })
  return {
    [read.name]: tool({
      description: read.description,
      inputSchema: jsonSchema<{ location: string; offset?: number; limit?: number }>(read.inputSchema),
      execute: async (args): Promise<ConvertedToolResult> => convertToolResult(await read.execute(args), { provider, store }),
      toModelOutput: ({ output }) => toAiSdkToolOutput(output),
    }),
  }
}

export function hostedAgent(model: LanguageModel, client: Client, names: string[], store: ToolOutputStore) {
  return new ToolLoopAgent({
    model,
    instructions: 'Notes in tool results name saved outputs; read them with read_saved_output when you need them.',
    tools: { ...mcpTools(client, names, store), ...readBackTool(store) },
  })
}

/** The instance's store: made on its first request, kept for the next ones while it is warm. */
let store: ToolOutputStore | undefined

/** One request of a serverless handler. */
export async function handle(prompt: string, model: LanguageModel, client: Client, names: string[]) {
  store ??= spillStore(process.env.SPILL_BUCKET ?? 'agent-spills', 'support-bot')
  const { text } = await hostedAgent(model, client, names, store).generate({ prompt })
  return text
}
