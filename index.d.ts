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

/** One part for the model (AI SDK shape). `data` is canonical base64. */
export type ContentPart =
  | { type: 'text'; text: string }
  | { type: 'file'; mediaType: string; data: string; uri?: string; filename?: string }

/** Target provider profiles. */
export type ProviderName = 'default'

/** Options shared by `toContent` and `toContentAsync`. */
export interface ToContentOptions {
  /** Target provider profile; `"default"` attaches png, jpeg, gif, webp, pdf. */
  provider?: ProviderName
  /** Folder for binaries that cannot be sent (default: a per-user temp folder). */
  outputDir?: string
  /** A store to save into instead of `outputDir`. */
  store?: ToolOutputStore
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
}

/**
 * Classify bytes (a `Uint8Array`) or a base64 string. Only the head and tail
 * of a base64 string are decoded for sniffing; the whole string is validated.
 */
export declare function classify(data: Uint8Array | string, declaredMediaType?: string): Classification

/** True when the bytes are valid UTF-8. */
export declare function isUtf8(data: Uint8Array): boolean

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
