// repairHistory on Bedrock Converse `messages`, through
// @aws-sdk/client-bedrock-runtime against the strict local endpoint: each
// broken shape in a toolResult (bytes as the SDK takes them) is refused,
// then accepted repaired.
import { loadBinding } from './fixtures/index.mjs'
import { BedrockRuntimeClient, ConverseCommand, ValidationException } from '@aws-sdk/client-bedrock-runtime'
import { startBedrockMock } from './endpoints/bedrock.mjs'
import { repairMatrix } from './fixtures/repair-matrix.mjs'

loadBinding()

async function start() {
  const endpoint = await startBedrockMock()
  const bedrock = new BedrockRuntimeClient({
    region: 'us-east-1',
    endpoint: endpoint.url,
    credentials: { accessKeyId: 'AKIDTEST', secretAccessKey: 'test' },
    maxAttempts: 3,
  })
  const toolConfig = { tools: [{ toolSpec: { name: 'read', inputSchema: { json: { type: 'object' } } } }] }
  return {
    send: (messages) => bedrock.send(new ConverseCommand({ modelId: 'anthropic.claude-test', toolConfig, messages })),
    refusal: (e) => (e instanceof ValidationException ? e.message : null),
    close: async () => {
      bedrock.destroy()
      await endpoint.close()
    },
  }
}

/** The SDK takes bytes (a Uint8Array) and writes their base64 itself. */
const BYTES = 'the SDK sends bytes: there is no base64 text to break'

/** A naive wrapper's block: the subtype of the declared type as the format, the bytes as given. */
function block(shape) {
  const format = shape.declared.slice(shape.declared.indexOf('/') + 1)
  const bytes = new Uint8Array(shape.bytes)
  if (shape.block === 'image') return { image: { format, source: { bytes } } }
  return { document: { format, name: 'attachment', source: { bytes } } }
}

repairMatrix({
  name: 'Bedrock Converse (@aws-sdk/client-bedrock-runtime): broken media in a toolResult',
  format: 'bedrock',
  start,
  place: (shape) => [
    { role: 'user', content: [{ text: 'Read the attachment' }] },
    { role: 'assistant', content: [{ toolUse: { toolUseId: 'tooluse_01', name: 'read', input: {} } }] },
    { role: 'user', content: [{ toolResult: { toolUseId: 'tooluse_01', content: [{ text: 'done' }, block(shape)] } }] },
  ],
  skip: {
    'base64 with line breaks': BYTES,
    'base64 without padding': BYTES,
    'base64 with garbage': BYTES,
    'animated GIF': 'Bedrock takes animated GIFs',
    'data URL typed image/jpeg holding a PNG': 'no data URLs in this format (see PNG declared image/jpeg)',
  },
})
