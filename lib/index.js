'use strict'
// The package entry: what mcp-content exports, each from the file that does
// its one job (see the header of each). Native code (src/, loaded by
// native.js) makes the decisions and writes every note; the files here read
// what a caller gives, once, and build the answers.

const native = require('./native.js')
const { ON_WASM } = require('./data.js')
const { toContent, toContentAsync } = require('./to-content.js')
const { classify, isUtf8, isTextualMediaType, estimateTokens } = require('./checks.js')
const { ToolOutputStore } = require('./store.js')
const { readSavedOutputTool } = require('./read-saved-output.js')
const { convertToolResult, convertToolResultSync } = require('./tool-result.js')
const { AttachmentQueue } = require('./attachment-queue.js')
const anthropic = require('./wire/anthropic.js')
const openaiResponses = require('./wire/openai-responses.js')
const openaiChat = require('./wire/openai-chat.js')
const gemini = require('./wire/gemini.js')
const bedrock = require('./wire/bedrock.js')
const aiSdk = require('./wire/ai-sdk.js')
const { repairHistory } = require('./repair-history.js')

exports.toContent = toContent
exports.toContentAsync = toContentAsync
exports.classify = classify
exports.isUtf8 = isUtf8
exports.isTextualMediaType = isTextualMediaType
exports.estimateTokens = estimateTokens
exports.bindingTarget = ON_WASM ? native.__napiBindingTarget : 'native'
/** Every provider profile name, from the core's table. */
exports.providers = Object.freeze(native.providerNames())
exports.ToolOutputStore = ToolOutputStore
exports.readSavedOutputTool = readSavedOutputTool
exports.convertToolResult = convertToolResult
exports.convertToolResultSync = convertToolResultSync
exports.AttachmentQueue = AttachmentQueue

// Wire formats (lib/wire/): one converted result in each provider's shape.
exports.toAnthropicToolResult = anthropic.toAnthropicToolResult
exports.toAnthropicContent = anthropic.toAnthropicContent
exports.toOpenAIResponsesOutput = openaiResponses.toOpenAIResponsesOutput
exports.toOpenAIResponsesMessage = openaiResponses.toOpenAIResponsesMessage
exports.toOpenAIChatMessages = openaiChat.toOpenAIChatMessages
exports.toOpenAIChatUserMessage = openaiChat.toOpenAIChatUserMessage
exports.toGeminiFunctionResponse = gemini.toGeminiFunctionResponse
exports.toBedrockToolResult = bedrock.toBedrockToolResult
exports.toBedrockContent = bedrock.toBedrockContent
exports.toAiSdkToolOutput = aiSdk.toAiSdkToolOutput

exports.repairHistory = repairHistory
