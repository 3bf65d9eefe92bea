/* Types of the package entry (lib/index.js), written by hand. */

/** MCP annotations; `audience` without "assistant" keeps a part from the model. */
export interface Annotations {
  /** Who the part is for; without "assistant" the part is not sent to the model. */
  audience?: Array<'user' | 'assistant'>
  /** How important the part is, 0 to 1 (kept, not acted on). */
  priority?: number
  /** ISO 8601 time of the last change (kept, not acted on). */
  lastModified?: string
}

/**
 * One content part of an MCP tool result (or opencode's `media` part): SDK 1.x's and SDK v2's
 * `ContentBlock` as they are. A part's `_meta` and fields not named here are not read; a part of a
 * type not named here becomes a note (`[Unsupported content part of type "..."]`).
 */
export type McpContent =
  | { type: 'text'; text: string; annotations?: Annotations }
  | { type: 'image' | 'audio'; data: string | Uint8Array; mimeType: string; annotations?: Annotations }
  | {
      type: 'resource'
      resource: { uri: string; mimeType?: string; text: string } | { uri: string; mimeType?: string; blob: string | Uint8Array }
      annotations?: Annotations
    }
  | {
      type: 'resource_link'
      uri: string
      name: string
      mimeType?: string
      size?: number
      description?: string
      annotations?: Annotations
    }
  | { type: 'media'; data: string | Uint8Array; mimeType: string; uri?: string; annotations?: Annotations }

/**
 * One part for the model (AI SDK shape). `data` is canonical base64. `note` is set on an image made
 * to fit the provider (`fitImages`): the words to put beside it for the model (original and sent
 * size and pixels, where the original was saved). `convertToolResult` puts it in the content, as a
 * text part just before the image; a caller of `toContent` sends it the same way.
 */
export type ContentPart = { type: 'text'; text: string } | { type: 'file'; mediaType: string; data: string; uri?: string; filename?: string; note?: string }

/**
 * Target provider profiles: what each takes, where, and how much (docs/whole-results.md).
 * - `default`: the strictest common denominator (png, jpeg, gif, webp, pdf; 5 MB as base64, 8000 px).
 * - `anthropic`, `anthropic-bedrock`, `anthropic-vertex`: Claude's Messages API, direct, on Amazon
 *   Bedrock, on Google Cloud.
 * - `openai` (Responses), `openai-chat` (Chat Completions: media only in a user message),
 *   `google` (Gemini), `bedrock` (Converse), `openrouter`.
 */
/**
 * What `ToolOutputStore.read` resolves to: a Node.js `Buffer` (a `Uint8Array`). Typed as `Buffer`
 * where the Node.js types are loaded, as `Uint8Array` where they are not, so a project without
 * `@types/node` still compiles.
 */
export type SavedBytes = typeof globalThis extends { Buffer: new (...args: any[]) => infer B } ? B : Uint8Array

export type ProviderName = 'default' | 'anthropic' | 'anthropic-bedrock' | 'anthropic-vertex' | 'openai' | 'openai-chat' | 'google' | 'bedrock' | 'openrouter'

/** Options shared by `toContent` and `toContentAsync`. */
export interface ToContentOptions {
  /**
   * Target provider profile (default `"default"`: png, jpeg, gif, webp, pdf). `toContent` attaches
   * what the provider takes anywhere; where it may go is `convertToolResult`'s business.
   */
  provider?: ProviderName
  /**
   * Folder for binaries that cannot be sent (default: a per-user temp folder), or an
   * `s3://bucket/prefix` store reached as the AWS environment says (`ToolOutputStore`'s `s3`
   * defaults). Any other URL is refused.
   */
  outputDir?: string
  /** A store to save into instead of `outputDir`. */
  store?: ToolOutputStore
  /**
   * Cap on the text of one part, in tokens as `estimateTokens` counts them (default 12,500: about
   * 50,000 characters of English). Over it the model gets a preview cut at a line boundary and a
   * note naming the whole text, saved by the store. `Infinity` turns the cap off.
   */
  maxTextTokens?: number
  /**
   * Make images fit the provider instead of saving them (default `true`): an image over the
   * profile's pixel or byte limits is resized (aspect ratio kept; 8000 px, or 2000 px a side once a
   * whole result carries more than 20 images where the provider says so), then re-encoded until
   * within the byte limit (a photo-like PNG may become JPEG); BMP, TIFF, ICO and other formats the
   * provider refuses become PNG or JPEG; an animation where only still images are taken becomes its
   * first frame. The original is saved by the store and a note goes beside the image. At most 64
   * megapixels are decoded (checked from the header first). `false` saves such images with a note
   * instead.
   */
  fitImages?: boolean
  /**
   * With `fitImages`, the longest side sent, in pixels (a whole number, at least 1), for any
   * provider: e.g. 1568, beyond which Anthropic downsizes anyway, to save tokens and bytes.
   */
  maxLongSide?: number
}

/**
 * Convert one MCP content part for the model. `null` when the part is not
 * meant for the model (annotations.audience without "assistant").
 */
export declare function toContent(part: McpContent, options?: ToContentOptions): ContentPart | null

/**
 * `toContent` with the decoding, the checks and any disk write on the libuv
 * thread pool, on a copy of the data; the JS thread only reads the part.
 */
export declare function toContentAsync(part: McpContent, options?: ToContentOptions): Promise<ContentPart | null>

/**
 * The encoding text was read in: ASCII, UTF-8, UTF-16, or the WHATWG Encoding Standard's name
 * (lower case, as `TextDecoder.encoding` gives it) of a declared charset or the windows-1252
 * fallback for a declared text type.
 */
export type TextEncoding =
  | 'ascii'
  | 'utf-8'
  | 'utf-16le'
  | 'utf-16be'
  | 'windows-1252'
  | 'shift_jis'
  | 'euc-jp'
  | 'iso-2022-jp'
  | 'gbk'
  | 'gb18030'
  | 'big5'
  | 'euc-kr'
  | 'koi8-r'
  | 'koi8-u'
  | 'ibm866'
  | 'macintosh'
  | 'x-mac-cyrillic'
  | 'windows-874'
  | 'windows-1250'
  | 'windows-1251'
  | 'windows-1253'
  | 'windows-1254'
  | 'windows-1255'
  | 'windows-1256'
  | 'windows-1257'
  | 'windows-1258'
  | 'iso-8859-2'
  | 'iso-8859-3'
  | 'iso-8859-4'
  | 'iso-8859-5'
  | 'iso-8859-6'
  | 'iso-8859-7'
  | 'iso-8859-8'
  | 'iso-8859-8-i'
  | 'iso-8859-10'
  | 'iso-8859-13'
  | 'iso-8859-14'
  | 'iso-8859-15'
  | 'iso-8859-16'

/** What the bytes are, set against the declared media type. */
export interface Classification {
  /** The family of the bytes; `invalid` for bad base64, `empty` for no data. */
  kind: 'image' | 'pdf' | 'audio' | 'video' | 'text' | 'binary' | 'empty' | 'invalid'
  /** Best media type for the bytes. */
  mediaType: string
  /** The media type the caller declared, when one was given. */
  declaredMediaType?: string
  /** From magic bytes; absent when nothing matched. */
  sniffedMediaType?: string
  /** Decoded size in bytes. */
  byteLength: number
  /** For images, from the header, without decoding pixels. */
  width?: number
  height?: number
  /** For text: the encoding it was read in. */
  textEncoding?: TextEncoding
  /** Why the bytes cannot be used as declared (invalid base64, truncated PNG, ...). */
  problem?: string
  /**
   * A PNG whose only damage is bad CRCs on ancillary chunks: what the copy
   * sent instead leaves out, e.g. `dropped ancillary chunk iCCP with a bad CRC`.
   */
  repair?: string
  /**
   * Images only: `true` for a GIF of more than one image (an animation,
   * which some providers refuse). APNG and animated WebP are not told apart
   * from still ones yet and give `false`.
   */
  animated?: boolean
  /**
   * PDFs only: the pages the file says it has (its linearization dictionary, its page tree's
   * `/Count`, or its page objects); absent when they are not in plain sight (a page tree in
   * compressed object streams) or the file is over 64 MiB.
   */
  pages?: number
}

/**
 * Classify bytes (a `Uint8Array`) or a base64 string. Only the head and tail
 * of a base64 string are decoded for sniffing; the whole string is validated.
 */
export declare function classify(data: Uint8Array | string, declaredMediaType?: string): Classification

/** True when the bytes are valid UTF-8. */
export declare function isUtf8(data: Uint8Array): boolean

/**
 * The tokens a text costs, estimated: ceil(non-CJK characters / 4) + ceil(CJK characters * 1.5),
 * counting Unicode characters (decocms' formula). An estimate for budgets and the text cap, not
 * any model's tokenizer.
 */
export declare function estimateTokens(text: string): number

/** True for media types whose content is text a model can read. */
export declare function isTextualMediaType(mediaType: string): boolean

/**
 * Which build runs this copy: `'native'` for the native addon, `'wasm32-wasi'`
 * for the WebAssembly fallback (slower on base64 strings; docs/platforms.md,
 * "WebAssembly fallback"), which the loader takes when no native addon loads.
 */
export declare const bindingTarget: 'native' | 'wasm32-wasi'

/** Every provider profile name (`ProviderName`), in the core's table order; frozen. */
export declare const providers: readonly ProviderName[]

/** Options of `new ToolOutputStore(dir, options)`. */
export interface ToolOutputStoreOptions {
  /** Files older than this many days are removed by `cleanup()` (default 7). */
  retentionDays?: number
  /**
   * Size cap of the store's own files, in bytes (default 1 GiB): the oldest are removed to make
   * room (in a folder, until an eighth of the cap is free besides the new file, so that a full
   * folder is not listed at every save), and a blob larger than the cap is not saved
   * (`STORE_OVER_CAP`, or a note).
   */
  maxBytes?: number
  /**
   * Where the bucket of an `s3://bucket/prefix` store is and who asks. Each field defaults to
   * the AWS environment: `endpoint` to `AWS_ENDPOINT_URL_S3`, then `AWS_ENDPOINT_URL` (else
   * `https://s3.<region>.amazonaws.com`), `region` to `AWS_REGION`, then `AWS_DEFAULT_REGION`
   * (else `us-east-1`), the credentials to `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY` and
   * `AWS_SESSION_TOKEN` (given as a pair or not at all; `sessionToken` only with the pair given
   * here). `forcePathStyle` defaults to true when an endpoint is given (self-hosted servers),
   * false for AWS.
   */
  s3?: S3StoreOptions
}

/** Where an `s3://` store's bucket is and who asks (`ToolOutputStoreOptions.s3`). */
export interface S3StoreOptions {
  endpoint?: string
  region?: string
  forcePathStyle?: boolean
  accessKeyId?: string
  secretAccessKey?: string
  /**
   * Seconds a presigned GET URL stays valid: a whole number from 1 to 604800 (7 days); 0 or
   * absent, no URL. When set, each note naming a saved object gives the URL after its `s3://`
   * location (`saved to s3://b/k (presigned URL, valid until <UTC time>: <url>)`). Anyone holding
   * the URL reads the object until it expires, and notes go to the model provider.
   */
  presignSeconds?: number
  /**
   * The session token of temporary credentials (STS, SSO, a role), signed with the
   * `accessKeyId` and `secretAccessKey` given beside it: without both, `INVALID_ARGUMENT`.
   */
  sessionToken?: string
}

/** Options of `ToolOutputStore.save` and `saveAsync`: what picks the file's extension. */
export interface SaveOptions {
  /** Media type of the data; picks the file extension. */
  mediaType?: string
  /** File extension (a leading dot is dropped); wins over `mediaType`. */
  extension?: string
}

/** A file `ToolOutputStore.save` wrote. */
export interface SavedFile {
  /** Absolute path of the file. */
  path: string
  /** Decoded size in bytes. */
  byteLength: number
}

/**
 * Saves blobs as `tool_<ascending id>.<ext>` files, atomically, 0600 in a
 * 0700 folder, within a size cap (oldest own files removed first), and
 * removes its own expired files.
 */
export declare class ToolOutputStore {
  /**
   * `dir`: a folder, or `s3://bucket/prefix` for a store in an S3-compatible bucket (any other
   * URL is refused, never taken for a folder; the WebAssembly build refuses `s3://` with
   * `STORE_S3_UNAVAILABLE`).
   */
  constructor(dir?: string, options?: ToolOutputStoreOptions)
  /** The folder files are saved in, or the `s3://bucket/prefix/` URL of a store in a bucket. */
  get dir(): string
  /** Save bytes, or a base64 string decoded first. */
  save(data: Uint8Array | string, options?: SaveOptions): SavedFile
  /** `save` with the decoding and the write on the libuv thread pool, from a copy of the data. */
  saveAsync(data: Uint8Array | string, options?: SaveOptions): Promise<SavedFile>
  /**
   * Bytes of a file this store wrote, `location` being its path as a note names it, read on the
   * libuv thread pool: `range.length` bytes (default: the rest, at most 8 MiB a call; a longer
   * range is cut, read on from where it ended) from `range.offset` (default 0; at or past the end:
   * an empty Buffer). Any other location (another folder, `..`, the lock file, a temp file, a
   * symlink, anything but a regular file with one of the store's names) rejects with
   * `STORE_NOT_OWN_FILE`; a file no longer there with `STORE_NOT_FOUND`.
   */
  read(location: string, range?: { offset?: number; length?: number }): Promise<SavedBytes>
  /** Delete this store's own files older than the retention (and temp files a crash left); returns how many. */
  cleanup(): number
  /** `cleanup`, returning the files it removed (temp files included), in name order. */
  cleanupFiles(): Array<{ name: string; byteLength: number }>
}

/** Options of `readSavedOutputTool`. */
export interface ReadSavedOutputOptions {
  /** The provider images read back are made to fit (default `"default"`). */
  provider?: ProviderName
}

/** The arguments the model gives `read_saved_output`. */
export interface ReadSavedOutputArgs {
  /** The saved file's path, as the note named it. */
  location: string
  /** Text: the first line of the page, from 1 (default 1). */
  offset?: number
  /** Text: lines in the page, 1 to 2000 (default 2000; more is cut to 2000). */
  limit?: number
}

/**
 * A tool definition for an agent: the model reads back files `store` saved. A text comes a page
 * at a time (at most 2000 lines, each cut at 2000 characters, within the default text cap of
 * 12,500 estimated tokens; the answer's last line says which lines, of how many, and the next
 * page's offset), an image as an image fitted for `options.provider` (up to 32 MiB read), another
 * file as a line naming its type and size. A location the store did not write, or a file no longer
 * there, answers `isError: true` with the reason. `execute` answers an MCP `CallToolResult`:
 * convert it with `convertToolResult` like any tool's.
 */
export declare function readSavedOutputTool(
  store: ToolOutputStore,
  options?: ReadSavedOutputOptions,
): {
  name: 'read_saved_output'
  description: string
  /** JSON Schema (draft 7 and later) of `ReadSavedOutputArgs`; a new object each call. */
  inputSchema: {
    type: 'object'
    properties: {
      location: { type: 'string'; description: string }
      offset: { type: 'integer'; minimum: number; description: string }
      limit: { type: 'integer'; minimum: number; maximum: number; description: string }
    }
    required: ['location']
    additionalProperties: false
  }
  execute(args: object): Promise<CallToolResult & { content: McpContent[] }>
}

/**
 * An MCP `CallToolResult`, as `client.callTool()` returns it: from `@modelcontextprotocol/sdk` 1.x
 * or `@modelcontextprotocol/client` 2.x (each SDK's own type is taken as it is, no cast), or as JSON
 * of MCP 2025-11-25 or 2026-07-28. Only the fields named here are read: `_meta`, and fields of a
 * later revision on the result or on its parts, never reach the model.
 */
export interface CallToolResult {
  content?: McpContent[]
  /** Any JSON value (MCP 2026-07-28: an array, string, number or boolean too); reaches the model as JSON text unless a text block already carries it. */
  structuredContent?: unknown
  isError?: boolean
  _meta?: Record<string, unknown>
  /**
   * MCP 2026-07-28: `'complete'` for a tool's answer (absent means the same). A result that asks for
   * input first (`resultType: 'input_required'`, SDK v2's `InputRequiredResult`) is not a tool's
   * answer, and this type does not take it: the client answers its `inputRequests` and calls again
   * (SDK v2's `callTool` does this itself), then converts the answer.
   */
  resultType?: 'complete'
}

/** What a request carries besides the result being converted (each default 0). */
export interface RequestCarries {
  /** Image blocks. */
  images?: number
  /** Document blocks (PDFs and others). */
  documents?: number
  /** Pages of those documents, where the provider counts pages (Claude: 100 with the images); at least one each. */
  pages?: number
  /** Decoded bytes of all those attachments (measured as the provider measures: base64 for Claude). */
  bytes?: number
  /** Decoded bytes of the documents among them (OpenAI's 50 MB of files a request). */
  documentBytes?: number
}

/** Options of `convertToolResult` and `convertToolResultSync`. */
export interface ConvertOptions extends ToContentOptions {
  /** The tool call's id; required with `attachments` (media are queued once per id). */
  toolCallId?: string
  /** Deferred media are also queued here, once per `toolCallId`. */
  attachments?: AttachmentQueue
  /**
   * Move sendable images, documents and audio out of the tool result into a following user message:
   * each is replaced by `[image/png image, 98 KB, attached below]` and returned in `deferred`.
   * `'auto'` (default) defers for `openai-chat` (tool messages take text only), `openrouter` (the
   * upstream model may not take media in a tool message) and `google` (function responses take
   * media on Gemini 3 and later only). With `false`, what a provider takes only in a user message is
   * saved and noted.
   */
  deferMedia?: boolean | 'auto'
  /**
   * Cap on the text of each part, in estimated tokens (`estimateTokens`; default 12,500), as for
   * `toContent`: over it a preview and a note naming the whole text, saved by the store.
   */
  maxTextTokens?: number
  /**
   * What the request already carries besides this result (earlier turns, other tool results of
   * the same turn, deferred media): its attachments count toward the provider's request-wide
   * limits, so this result gets what they leave. Its images are made to fit what is left (with
   * `fitImages`), and saved and noted only when that cannot make room. Give this, `history` or
   * `priorImages`, not more than one. docs/whole-results.md, "Whole-request budgets".
   */
  requestCarries?: RequestCarries
  /**
   * The conversation the result goes into, to count what the request carries from it: every
   * inline image and document of `messages`, written in `format` (as for `repairHistory`), told
   * by its bytes (a PDF counted as its pages). Read, never written to.
   */
  history?: { format: HistoryFormat; messages: readonly unknown[] }
  /**
   * Images the request already carries: `requestCarries: { images }`, kept for callers that
   * count only images. With 15 before, a result of 6 images of 2500 px makes 21, over 20, so its
   * large images are fitted to 2000 px (or, with `fitImages: false`, saved and noted).
   */
  priorImages?: number
  /**
   * Read each `resource_link` part for the model through the MCP client, and convert what it
   * answers like embedded resources at the link's place (sniffed, attached, decoded or saved); a
   * link not read keeps its note, which says why (`not read: over the limit of 10 links read per
   * result`, `could not be read: timed out after 10 s`, `could not be read: <the error>`). A read
   * that throws, rejects, answers what is not a resource's contents or does not settle in time
   * never fails the conversion. `convertToolResult` only: `convertToolResultSync` refuses it
   * (`INVALID_ARGUMENT`). Pass `(uri) => client.readResource({ uri })` (SDK 1.x `Client`, SDK v2
   * `Client`). docs/whole-results.md, "Resource links".
   */
  readResource?: (uri: string) => Promise<{ contents: Array<{ uri: string; mimeType?: string; text?: string; blob?: string }> }>
  /** With `readResource`: how many links of a result are read, the first in order (default 10). */
  maxLinks?: number
  /**
   * With `readResource`: how many bytes all the reads of a result may bring (decoded bytes of
   * blobs, UTF-8 bytes of texts; default 16 MiB, 16,777,216). A read that would pass it is left
   * out, and one after it that fits is still taken.
   */
  maxLinkedBytes?: number
  /** With `readResource`: how long one read may take, in milliseconds (default 10,000); at most 4 run at once. */
  linkTimeoutMs?: number
}

/** A file a conversion wrote. */
export interface SavedAttachment {
  /** Absolute path of the file. */
  path: string
  /** Decoded size in bytes. */
  byteLength: number
  mediaType: string
  /** The part's uri, when it had one. */
  uri?: string
}

/** A tool result converted for one provider. */
export interface ConvertedToolResult {
  /** The model-bound parts of the tool result, in order. */
  content: ContentPart[]
  /** The result's `isError`: true for a tool error. */
  isError: boolean
  /** Media for a following user message (also queued when `attachments` is given). */
  deferred: ContentPart[]
  /**
   * Every file written, in content order: parts that could not be sent, attachments over the
   * request's budget, and the whole text of each text over `maxTextTokens` (`text/plain` for a
   * text part, the resource's `mimeType` for an embedded one).
   */
  saved: SavedAttachment[]
  /**
   * For each part of `content`, the index in the result's `content` of the part it comes from (a
   * note beside an image made to fit, a placeholder, a saved part's note, the parts of a resource
   * read through its link: their part's index); `-1` for the error note added first, the number
   * of the result's parts for the structured content's JSON added last.
   */
  sources: number[]
  /**
   * The result's `structuredContent` with the long strings the model's JSON leaves out replaced by
   * their markers (`"<repeats content part 1>"`, `"<base64 of image/png, N bytes: left out>"`);
   * the value itself when none was. Absent when the result had none.
   */
  structuredContent?: unknown
}

/**
 * Convert a whole MCP tool result: each part in order (parts whose `annotations.audience` leaves out
 * "assistant" are dropped), attachments checked against what one request may carry (image and
 * document counts, Anthropic's 2000 px rule past 20 images, byte totals; what does not fit is saved
 * and noted), media deferred where the provider needs it, `structuredContent` kept as JSON text, an
 * error result given a text when it has none. The input is not modified. Decoding, checks and disk
 * writes run on the libuv thread pool.
 */
export declare function convertToolResult(result: CallToolResult, options?: ConvertOptions): Promise<ConvertedToolResult>

/** `convertToolResult` on the calling thread; the same answer. Resource links are not read here: `readResource` is `INVALID_ARGUMENT`. */
export declare function convertToolResultSync(result: CallToolResult, options?: ConvertOptions): ConvertedToolResult

/**
 * Media deferred from tool results, waiting for the next user message. Each tool call's media are
 * queued once, however often its result is converted (an SDK may call `toModelOutput` again).
 */
export declare class AttachmentQueue {
  constructor()
  /** Queue `parts` for `toolCallId`; `false`, and nothing queued, when that id was queued before. */
  add(toolCallId: string, parts: ContentPart[]): boolean
  /** Everything queued, in order, once: the queue is empty afterwards. */
  drain(): ContentPart[]
  /** How many parts are waiting. */
  readonly size: number
}

/* ------------------------------------------------------------------ wire formats */
/*
 * One converted tool result in each provider's wire shape (docs/wire-formats.md). Pure shape
 * mapping: convert the result for the same provider first (`provider` option), which decides what
 * is attached, deferred or saved. The types below are structural copies of each SDK's own types,
 * checked against them in the tests; the input is never modified.
 */

/** An Anthropic Messages content block as the adapters write it. */
export type AnthropicBlock =
  | { type: 'text'; text: string }
  | { type: 'image'; source: { type: 'base64'; media_type: 'image/jpeg' | 'image/png' | 'image/gif' | 'image/webp'; data: string } }
  | { type: 'document'; source: { type: 'base64'; media_type: 'application/pdf'; data: string } | { type: 'text'; media_type: 'text/plain'; data: string } }

/** Anthropic's `tool_result` block (`ToolResultBlockParam` of `@anthropic-ai/sdk`). */
export interface AnthropicToolResult {
  type: 'tool_result'
  tool_use_id: string
  content: AnthropicBlock[]
  /** Present (true) for an error result only. */
  is_error?: boolean
}

/**
 * The `tool_result` block for a result converted with an Anthropic provider: text, image and
 * document blocks (PDF as base64, text/plain as a text document), `is_error` for an error result.
 * Deferred media are not in it: put `toAnthropicContent(converted.deferred)` after the tool_result
 * blocks of the same user message.
 */
export declare function toAnthropicToolResult(converted: ConvertedToolResult, toolUseId: string): AnthropicToolResult

/** Content parts (deferred media, `AttachmentQueue#drain()`) as Anthropic content blocks. */
export declare function toAnthropicContent(parts: ContentPart[]): AnthropicBlock[]

/** An item of OpenAI Responses content (`ResponseInputContent` of `openai`). */
export type OpenAIResponsesContent =
  | { type: 'input_text'; text: string }
  | { type: 'input_image'; image_url: string; detail: 'auto' }
  | { type: 'input_file'; file_data: string; filename: string }

/** OpenAI Responses `function_call_output` input item (`ResponseInputItem.FunctionCallOutput`). */
export interface OpenAIFunctionCallOutput {
  type: 'function_call_output'
  call_id: string
  output: OpenAIResponsesContent[]
}

/**
 * The `function_call_output` item for a result converted with `provider: 'openai'`: `input_text`,
 * `input_image` (a data URL) and `input_file` (a data URL with a file name whose extension names
 * the type). The Responses API has no error flag: an error result's text says so.
 */
export declare function toOpenAIResponsesOutput(converted: ConvertedToolResult, callId: string): OpenAIFunctionCallOutput

/** A Responses user message input item carrying content parts (deferred media); null for none. */
export declare function toOpenAIResponsesMessage(parts: ContentPart[]): { type: 'message'; role: 'user'; content: OpenAIResponsesContent[] } | null

/** A Chat Completions user content part (`ChatCompletionContentPart` of `openai`). */
export type OpenAIChatContentPart =
  | { type: 'text'; text: string }
  | { type: 'image_url'; image_url: { url: string } }
  | { type: 'input_audio'; input_audio: { data: string; format: 'wav' | 'mp3' } }
  | { type: 'file'; file: { file_data: string; filename: string } }

/** Chat Completions tool message: text only. */
export interface OpenAIChatToolMessage {
  role: 'tool'
  tool_call_id: string
  content: string
}

/** Chat Completions user message carrying media. */
export interface OpenAIChatUserMessage {
  role: 'user'
  content: OpenAIChatContentPart[]
}

/**
 * The messages for a result converted with `provider: 'openai-chat'`: the tool message (its text
 * parts, one paragraph each: Chat Completions takes text only there) and, when there are media,
 * a user message carrying them (`image_url`, `input_audio`, `file`). With several tool calls in one
 * assistant turn, send every tool message first and the user messages after them, or queue media
 * with an `AttachmentQueue` and send `toOpenAIChatUserMessage(queue.drain())` once.
 */
export declare function toOpenAIChatMessages(
  converted: ConvertedToolResult,
  toolCallId: string,
): [OpenAIChatToolMessage] | [OpenAIChatToolMessage, OpenAIChatUserMessage]

/** A Chat Completions user message carrying content parts (deferred media); null for none. */
export declare function toOpenAIChatUserMessage(parts: ContentPart[]): OpenAIChatUserMessage | null

/** Gemini inline data (`Blob` of `@google/genai`). */
export interface GeminiInlineData {
  inlineData: { mimeType: string; data: string; displayName: string }
}

/** Gemini `functionResponse` part (`Part` of `@google/genai`). */
export interface GeminiFunctionResponsePart {
  functionResponse: {
    name: string
    /** The call's id: Gemini 3 requires it. */
    id?: string
    response: { output: string } | { error: string }
    /** Media inside the response (Gemini 3 and later: png, jpeg, webp, pdf, text/plain). */
    parts?: GeminiInlineData[]
  }
}

/**
 * The parts of the user turn answering one function call, for a result converted with
 * `provider: 'google'`: the `functionResponse` (with the call's `id`; `response.output`, or
 * `response.error` for an error result, holds the text), its media as `functionResponse.parts`
 * (only with `deferMedia: false`, for Gemini 3 and later), then the deferred media as sibling
 * `inlineData` parts of the same turn.
 */
export declare function toGeminiFunctionResponse(converted: ConvertedToolResult, name: string, id?: string): [GeminiFunctionResponsePart, ...GeminiInlineData[]]

/** A Bedrock Converse content block as the adapters write it (`ToolResultContentBlock`). */
export type BedrockBlock =
  | { text: string }
  | { image: { format: 'png' | 'jpeg' | 'gif' | 'webp'; source: { bytes: Uint8Array } } }
  | {
      document: {
        format: 'pdf' | 'csv' | 'doc' | 'docx' | 'xls' | 'xlsx' | 'html' | 'txt' | 'md'
        /** Letters, digits, single spaces, hyphens, parentheses, square brackets; unique in the result. */
        name: string
        source: { bytes: Uint8Array }
      }
    }

/** Bedrock Converse `toolResult` content block (`ContentBlock.ToolResultMember`). */
export interface BedrockToolResult {
  toolResult: { toolUseId: string; content: BedrockBlock[]; status: 'success' | 'error' }
}

/**
 * The `toolResult` content block for a result converted with `provider: 'bedrock'`: text, image
 * and document blocks (bytes decoded), `status: 'error'` for an error result. Document names are
 * made from the file name within Bedrock's character rules; documents get a text block beside
 * them when the result has none (Bedrock requires one).
 */
export declare function toBedrockToolResult(converted: ConvertedToolResult, toolUseId: string): BedrockToolResult

/** Content parts (deferred media) as Bedrock content blocks for a user message. */
export declare function toBedrockContent(parts: ContentPart[]): BedrockBlock[]

/** A tool output of AI SDK 7 (`ToolResultOutput` of `@ai-sdk/provider-utils` 5). */
export type AiSdkToolOutput =
  | {
      type: 'content'
      value: Array<{ type: 'text'; text: string } | { type: 'file'; mediaType: string; data: { type: 'data'; data: string }; filename?: string }>
    }
  | { type: 'error-text'; value: string }

/** A tool output of AI SDK 6 (`ToolResultOutput` of `@ai-sdk/provider-utils` 4); AI SDK 7 takes it too. */
export type AiSdk6ToolOutput =
  | {
      type: 'content'
      value: Array<
        | { type: 'text'; text: string }
        | { type: 'image-data'; data: string; mediaType: string }
        | { type: 'file-data'; data: string; mediaType: string; filename?: string }
      >
    }
  | { type: 'error-text'; value: string }

/**
 * What a tool's `toModelOutput` returns in the AI SDK: `{ type: 'content', value }` with text and
 * file parts in the shape of AI SDK 7, or with `{ version: 6 }` of AI SDK 6 (`image-data`,
 * `file-data`). An error result whose parts are all text is `{ type: 'error-text', value }`.
 * Deferred media are not in it: give convertToolResult an `AttachmentQueue` and send its drain in
 * the next user message.
 */
export declare function toAiSdkToolOutput(converted: ConvertedToolResult, options?: { version?: 7 }): AiSdkToolOutput
/** `toAiSdkToolOutput` for AI SDK 6 (`{ version: 6 }`): `image-data` and `file-data` parts. */
export declare function toAiSdkToolOutput(converted: ConvertedToolResult, options: { version: 6 }): AiSdk6ToolOutput

/** The wire formats a history may be written in (`repairHistory`, `ConvertOptions.history`). */
export type HistoryFormat = 'anthropic' | 'openai-responses' | 'openai-chat' | 'gemini' | 'bedrock' | 'ai-sdk'

/** Options of `repairHistory`. */
export interface RepairHistoryOptions {
  /**
   * The history's shape: Anthropic Messages `messages`, OpenAI Responses `input` items, OpenAI
   * Chat Completions `messages`, Gemini `contents`, Bedrock Converse `messages`, or AI SDK model
   * messages (`ModelMessage[]` of AI SDK 6 or 7).
   */
  format: HistoryFormat
  /**
   * The provider the history is sent to. Default: the format's (`anthropic`, `openai`,
   * `openai-chat`, `google`, `bedrock`); for `ai-sdk`, `"default"` (what every provider takes).
   * Name another for the same format elsewhere, e.g. `anthropic-bedrock` for Claude on Bedrock.
   */
  provider?: ProviderName
  /** Where refused attachments are saved (default: a per-user temp folder). */
  store?: ToolOutputStore
  /** Folder to save into instead of `store`. */
  outputDir?: string
  /** Cap on a decoded text, as for `toContent`. */
  maxTextTokens?: number
  /**
   * Make an image over the provider's limits fit instead of replacing it by a note (default
   * `true`, as for `toContent`): the history keeps the image, smaller, beside a note naming the
   * saved original.
   */
  fitImages?: boolean
  /** As for `toContent`: make every image longer than this many pixels smaller. */
  maxLongSide?: number
}

/**
 * Repair a history that a provider refuses because of an attachment already in it (a session
 * that fails on every turn): each inline image or document (Anthropic `image`/`document` blocks
 * with base64 sources, in tool results too; Responses `input_image`/`input_file` data URLs, in
 * `function_call_output` too; Chat `image_url`/`file`/`input_audio` parts; Gemini `inlineData`
 * parts, in `functionResponse.parts` too; Bedrock `image`/`document` blocks, in `toolResult`
 * too; AI SDK `image`/`file` parts and `file`/`file-data`/`image-data`/`media` parts of tool
 * outputs) is checked by its bytes and converted as `convertToolResult` converts a media part for
 * `provider`, all of them budgeted as one request. What the provider would refuse (wrong media
 * type, over a limit, corrupt, empty, invalid base64) is replaced by the same note, the bytes saved
 * when there are any; a mislabelled one gets its true media type, in the kind of block that type
 * needs (a PDF in an image block becomes a document); a textual one becomes text. URLs and file
 * ids are left as they are. Returns a new array (messages with nothing to repair are the same objects; nothing
 * given is modified) and how many attachments were repaired.
 */
export declare function repairHistory<M>(messages: readonly M[], options: RepairHistoryOptions): { messages: M[]; repaired: number }
