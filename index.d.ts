/* Types of the package entry (mcp-content.js), written by hand. */

/** MCP annotations; `audience` without "assistant" keeps a part from the model. */
export interface Annotations {
  audience?: Array<'user' | 'assistant'>
  priority?: number
  lastModified?: string
}

/** One content part of an MCP tool result (or opencode's `media` part). */
export type McpContent =
  | { type: 'text'; text: string; annotations?: Annotations }
  | { type: 'image' | 'audio'; data: string | Uint8Array; mimeType: string; annotations?: Annotations }
  | {
      type: 'resource'
      resource:
        | { uri: string; mimeType?: string; text: string }
        | { uri: string; mimeType?: string; blob: string | Uint8Array }
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
export type ContentPart =
  | { type: 'text'; text: string }
  | { type: 'file'; mediaType: string; data: string; uri?: string; filename?: string; note?: string }

/**
 * Target provider profiles: what each takes, where, and how much (README "Whole tool results").
 * - `default`: the strictest common denominator (png, jpeg, gif, webp, pdf; 5 MB as base64, 8000 px).
 * - `anthropic`, `anthropic-bedrock`, `anthropic-vertex`: Claude's Messages API, direct, on Amazon
 *   Bedrock, on Google Cloud.
 * - `openai` (Responses), `openai-chat` (Chat Completions: media only in a user message),
 *   `google` (Gemini), `bedrock` (Converse), `openrouter`.
 */
export type ProviderName =
  | 'default'
  | 'anthropic'
  | 'anthropic-bedrock'
  | 'anthropic-vertex'
  | 'openai'
  | 'openai-chat'
  | 'google'
  | 'bedrock'
  | 'openrouter'

/** Options shared by `toContent` and `toContentAsync`. */
export interface ToContentOptions {
  /**
   * Target provider profile (default `"default"`: png, jpeg, gif, webp, pdf). `toContent` attaches
   * what the provider takes anywhere; where it may go is `convertToolResult`'s business.
   */
  provider?: ProviderName
  /** Folder for binaries that cannot be sent (default: a per-user temp folder). */
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
  | 'ascii' | 'utf-8' | 'utf-16le' | 'utf-16be' | 'windows-1252' | 'shift_jis' | 'euc-jp'
  | 'iso-2022-jp' | 'gbk' | 'gb18030' | 'big5' | 'euc-kr' | 'koi8-r' | 'koi8-u' | 'ibm866'
  | 'macintosh' | 'x-mac-cyrillic' | 'windows-874' | 'windows-1250' | 'windows-1251'
  | 'windows-1253' | 'windows-1254' | 'windows-1255' | 'windows-1256' | 'windows-1257'
  | 'windows-1258' | 'iso-8859-2' | 'iso-8859-3' | 'iso-8859-4' | 'iso-8859-5' | 'iso-8859-6'
  | 'iso-8859-7' | 'iso-8859-8' | 'iso-8859-8-i' | 'iso-8859-10' | 'iso-8859-13' | 'iso-8859-14'
  | 'iso-8859-15' | 'iso-8859-16'

/** What the bytes are, set against the declared media type. */
export interface Classification {
  kind: 'image' | 'pdf' | 'audio' | 'video' | 'text' | 'binary' | 'empty' | 'invalid'
  /** Best media type for the bytes. */
  mediaType: string
  declaredMediaType?: string
  /** From magic bytes; absent when nothing matched. */
  sniffedMediaType?: string
  byteLength: number
  /** For images, from the header, without decoding pixels. */
  width?: number
  height?: number
  textEncoding?: TextEncoding
  /** Why the bytes cannot be used as declared (invalid base64, truncated PNG, ...). */
  problem?: string
  /**
   * A PNG whose only damage is bad CRCs on ancillary chunks: what the copy
   * sent instead leaves out, e.g. `dropped ancillary chunk iCCP with a bad CRC`.
   */
  repair?: string
}

/**
 * Classify bytes (a `Uint8Array`) or a base64 string. Only the head and tail
 * of a base64 string are decoded for sniffing; the whole string is validated.
 */
export declare function classify(data: Uint8Array | string, declaredMediaType?: string): Classification

/** True when the bytes are valid UTF-8. */
export declare function isUtf8(data: Uint8Array): boolean

/**
 * The tokens a text costs, estimated: ceil(characters / 4) + ceil(CJK characters * 1.5), CJK
 * characters not counted in the first term. An estimate, not any model's tokenizer.
 */
export declare function estimateTokens(text: string): number

/** True for media types whose content is text a model can read. */
export declare function isTextualMediaType(mediaType: string): boolean

export interface ToolOutputStoreOptions {
  /** Files older than this many days are removed by `cleanup()` (default 7). */
  retentionDays?: number
  /**
   * Size cap of the store's own files, in bytes (default 1 GiB): the oldest are removed to make
   * room, and a blob larger than the cap is not saved (`STORE_OVER_CAP`, or a note).
   */
  maxBytes?: number
}

export interface SaveOptions {
  /** Media type of the data; picks the file extension. */
  mediaType?: string
  /** File extension (a leading dot is dropped); wins over `mediaType`. */
  extension?: string
}

export interface SavedFile {
  path: string
  byteLength: number
}

/**
 * Saves blobs as `tool_<ascending id>.<ext>` files, atomically, 0600 in a
 * 0700 folder, within a size cap (oldest own files removed first), and
 * removes its own expired files.
 */
export declare class ToolOutputStore {
  constructor(dir?: string, options?: ToolOutputStoreOptions)
  /** The folder files are saved in. */
  get dir(): string
  /** Save bytes, or a base64 string decoded first. */
  save(data: Uint8Array | string, options?: SaveOptions): SavedFile
  /** `save` with the decoding and the write on the libuv thread pool, from a copy of the data. */
  saveAsync(data: Uint8Array | string, options?: SaveOptions): Promise<SavedFile>
  /** Delete this store's own files older than the retention; returns how many. */
  cleanup(): number
}

/** An MCP `CallToolResult`, as `client.callTool()` returns it. */
export interface CallToolResult {
  content?: McpContent[]
  /** Any JSON value; reaches the model as JSON text unless a text block already carries it. */
  structuredContent?: unknown
  isError?: boolean
  _meta?: Record<string, unknown>
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
   * Cap on the text of a result, in estimated tokens (`estimateTokens`). Accepted and checked (a
   * positive integer); applies once the text cap lands (not in this version).
   */
  maxTextTokens?: number
}

/** A file a conversion wrote. */
export interface SavedAttachment {
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
  isError: boolean
  /** Media for a following user message (also queued when `attachments` is given). */
  deferred: ContentPart[]
  /** Every file written: parts that could not be sent, and attachments over the request's budget. */
  saved: SavedAttachment[]
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

/** `convertToolResult` on the calling thread; the same answer. */
export declare function convertToolResultSync(result: CallToolResult, options?: ConvertOptions): ConvertedToolResult

/**
 * A rough token count: ceil(non-CJK characters / 4) + ceil(CJK characters * 1.5), counting Unicode
 * characters (decocms' formula). An estimate for budgets, not any model's tokenizer.
 */
export declare function estimateTokens(text: string): number

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
