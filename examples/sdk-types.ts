// The adapters' return types assigned to each SDK's own types: a shape that
// drifts from an SDK fails `tsc --noEmit --strict` here.
import type Anthropic from '@anthropic-ai/sdk'
import type { ResponseInputItem } from 'openai/resources/responses/responses'
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions'
import type { Part } from '@google/genai'
import type { ContentBlock } from '@aws-sdk/client-bedrock-runtime'
import { tool as toolV7, jsonSchema as jsonSchemaV7, type ModelMessage } from 'ai'
import { tool as toolV6, jsonSchema as jsonSchemaV6, type ModelMessage as ModelMessageV6 } from 'ai-v6'
import * as m from 'mcp-content'

declare const converted: m.ConvertedToolResult

export const anthropic: Anthropic.ToolResultBlockParam = m.toAnthropicToolResult(converted, 'toolu_1')
export const anthropicMore: Anthropic.ContentBlockParam[] = m.toAnthropicContent(converted.deferred)
export const anthropicHistory: Anthropic.MessageParam[] = m.repairHistory([] as Anthropic.MessageParam[], { format: 'anthropic' }).messages

export const responses: ResponseInputItem = m.toOpenAIResponsesOutput(converted, 'call_1')
const responsesMessage = m.toOpenAIResponsesMessage(converted.deferred)
export const responsesMore: ResponseInputItem[] = responsesMessage === null ? [] : [responsesMessage]

export const chat: ChatCompletionMessageParam[] = m.toOpenAIChatMessages(converted, 'call_1')
const chatUser = m.toOpenAIChatUserMessage(converted.deferred)
export const chatMore: ChatCompletionMessageParam[] = chatUser === null ? [] : [chatUser]

export const gemini: Part[] = m.toGeminiFunctionResponse(converted, 'read', 'fc_1')

export const bedrock: ContentBlock = m.toBedrockToolResult(converted, 'tooluse_1')
export const bedrockMore: ContentBlock[] = m.toBedrockContent(converted.deferred)

export const aiSdk7 = toolV7({
  inputSchema: jsonSchemaV7<{ path: string }>({ type: 'object' }),
  execute: async (): Promise<m.ConvertedToolResult> => converted,
  toModelOutput: ({ output }) => m.toAiSdkToolOutput(output),
})
export const aiSdk6 = toolV6({
  inputSchema: jsonSchemaV6<{ path: string }>({ type: 'object' }),
  execute: async (): Promise<m.ConvertedToolResult> => converted,
  toModelOutput: ({ output }) => m.toAiSdkToolOutput(output, { version: 6 }),
})
export const aiSdkHistory: ModelMessage[] = m.repairHistory([] as ModelMessage[], { format: 'ai-sdk' }).messages
export const aiSdk6History: ModelMessageV6[] = m.repairHistory([] as ModelMessageV6[], { format: 'ai-sdk' }).messages
