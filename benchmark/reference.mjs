// Pure-JS reference for the benchmark: the same decisions as the native
// `toContent` (docs/routing.md), written with the usual npm libraries:
// Buffer base64, buffer.isUtf8, TextDecoder, file-type, image-size,
// node:zlib, libwebp built to WebAssembly (@jsquash/webp), fs.promises.
// __test__/reference.test.mjs proves it gives the same parts as the native
// library on the corpus and on generated cases, so the race is fair.
//
// Where it follows the native library rather than the obvious JS:
// - png/jpeg/gif/webp/pdf are recognised by their magic bytes here, not by
//   file-type (which names an Illustrator PDF application/postscript, an
//   APNG image/apng, and returns nothing for a PNG with a bad CRC);
// - the structural checks of a large base64 string look at its first 64 KiB
//   and last 1 KiB like the native ones (a defect seen there is confirmed on
//   all the bytes); a PNG's chunks are all walked, every CRC summed (the
//   native walk reads them all, in every form);
// - a sound PNG, GIF or WebP is decoded whole before it is attached, as the
//   native library decodes it (reference-decode.mjs);
// - file-type's MPEG guess on FF FE (a UTF-16LE BOM) and its Windows .reg,
//   armored PGP and ASCII STL on clearly-text bytes are left to the text test.
//
// Saved notes give the native library's reasons in the same words: the
// structural checks (reference-structure.mjs) return the native defect
// texts, and the limits, aliases and mismatch rules are those of
// src/provider.rs, src/classify.rs and src/route.rs.
//
// Known naming differences (formats only one sniffer knows; the decision is
// the same, a spill, but the note names a different media type, and so its
// reason differs too):
// - file-type knows some formats the native sniffer does not (mie, draco,
//   dwg, Windows registry hive, Apple alias, asar, dmg, fbx, indd, jmp, shp,
//   skp): the reference names them, the native note says the declared type.
// - the native sniffer recognises MP3 frames after junk bytes and a damaged
//   Matroska header, which file-type does not.
//
// Known decoding differences: Node's TextDecoder does not know iso-8859-16,
// so text declared in it is read by the native library only; the frames of
// an animated WebP are decoded by the native library only (the reference's
// libwebp build decodes still images), so only it refuses a damaged one.
import { Buffer, isAscii, isUtf8 } from 'node:buffer'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileTypeFromBuffer } from 'file-type'
import { decodeAll } from './reference-decode.mjs'
import { server } from './reference-escape.mjs'
import { CHECKS, MAX_PIXELS, PNG_SIGNATURE, REPAIRABLE, ascii, dimensions, repairPng, startsWith } from './reference-structure.mjs'

export { MAX_PIXELS }

const MIB = 1024 * 1024
const OCTET_STREAM = 'application/octet-stream'
/** The default provider's allow-list and limits (src/provider.rs): an
 * image's size is the length of its canonical base64 (as Anthropic counts
 * it), a PDF's its decoded bytes. */
const IMAGE_LIMITS = { maxSize: { base64: true, max: 5 * MIB }, maxSide: 8000 }
const ATTACH_LIMITS = {
  'image/png': IMAGE_LIMITS,
  'image/jpeg': IMAGE_LIMITS,
  'image/gif': IMAGE_LIMITS,
  'image/webp': IMAGE_LIMITS,
  'application/pdf': { maxSize: { base64: false, max: 10 * MIB }, maxSide: null },
}
/** The native library sniffs a large base64 string by its first 64 KiB and
 * last 1 KiB only (docs/api.md, classify); the reference looks at the same bytes
 * so that both make the same call on data damaged in the middle. */
const HEAD_LEN = 64 * 1024
const TAIL_LEN = 1024

// ------------------------------------------------------------ media types

export function essence(mediaType) {
  return (mediaType ?? '').split(';')[0].trim().toLowerCase()
}

const TEXTUAL_SUBTYPES = new Set(
  (
    'json ld+json jsonl x-ndjson ndjson json5 xml javascript x-javascript ecmascript typescript ' +
    'x-typescript yaml x-yaml toml x-toml x-sh x-shellscript x-patch x-diff diff markdown ' +
    'x-markdown csv sql x-sql graphql x-httpd-php x-python x-ruby x-perl x-tex x-latex rtf ' +
    'x-subrip x-www-form-urlencoded xhtml+xml x-ipynb+json'
  ).split(' '),
)

export function isTextual(mediaType) {
  const mt = essence(mediaType)
  const slash = mt.indexOf('/')
  if (slash < 0) return false
  const top = mt.slice(0, slash)
  const sub = mt.slice(slash + 1)
  if (top === 'text') return true
  if (sub.endsWith('+json') || sub.endsWith('+xml') || sub.endsWith('+yaml')) return true
  return top === 'application' && TEXTUAL_SUBTYPES.has(sub)
}

const GENERIC_BINARY = new Set([
  '',
  OCTET_STREAM,
  'binary/octet-stream',
  'application/binary',
  'application/x-binary',
  'application/unknown',
  'unknown/unknown',
])
const isGenericBinary = (mediaType) => GENERIC_BINARY.has(essence(mediaType))

// The format table of src/sniff/formats.rs: media type, the extension a
// saved file gets, and the other names of the same format (declaring one
// is no mismatch). __test__/reference.test.mjs holds the two to the same rows.
export const FORMATS = [
  ['image/png', 'png', 'image/x-png image/apng'],
  ['image/jpeg', 'jpg', 'image/jpg image/pjpeg'],
  ['image/gif', 'gif'],
  ['image/webp', 'webp'],
  ['image/bmp', 'bmp', 'image/x-bmp image/x-ms-bmp'],
  ['image/tiff', 'tif'],
  ['image/vnd.microsoft.icon', 'ico', 'image/x-icon'],
  ['image/avif', 'avif'],
  ['image/heic', 'heic'],
  ['image/heic-sequence', 'heics'],
  ['image/heif', 'heif'],
  ['image/heif-sequence', 'heifs'],
  ['image/svg+xml', 'svg'],
  ['image/jls', 'jls'],
  ['image/vnd.adobe.photoshop', 'psd'],
  ['image/x-xcf', 'xcf'],
  ['image/bpg', 'bpg'],
  ['image/jxl', 'jxl'],
  ['image/jp2', 'jp2'],
  ['image/jpx', 'jpx'],
  ['image/jpm', 'jpm'],
  ['image/x-jp2-codestream', 'j2c', 'image/j2c'],
  ['image/vnd.ms-photo', 'jxr'],
  ['image/ktx', 'ktx'],
  ['image/icns', 'icns'],
  ['image/x-fujifilm-raf', 'raf'],
  ['image/x-canon-cr2', 'cr2'],
  ['image/x-canon-cr3', 'cr3'],
  ['image/x-olympus-orf', 'orf'],
  ['image/x-panasonic-rw2', 'rw2'],
  ['application/pdf', 'pdf'],
  ['application/rtf', 'rtf', 'text/rtf'],
  ['application/postscript', 'ps'],
  ['application/x-mobipocket-ebook', 'mobi'],
  ['application/epub+zip', 'epub'],
  ['application/xml', 'xml', 'text/xml'],
  ['text/vtt', 'vtt'],
  ['text/calendar', 'ics'],
  ['text/vcard', 'vcf', 'text/x-vcard'],
  ['text/plain', 'txt'],
  ['text/markdown', 'md', 'text/x-markdown'],
  ['text/csv', 'csv'],
  ['text/html', 'html'],
  ['text/css', 'css'],
  ['text/x-patch', 'patch', 'text/x-diff application/x-patch'],
  ['application/json', 'json'],
  ['application/yaml', 'yaml', 'application/x-yaml text/yaml'],
  ['application/toml', 'toml'],
  ['application/javascript', 'js', 'text/javascript'],
  ['application/x-sh', 'sh'],
  ['application/sql', 'sql'],
  ['application/zip', 'zip', 'application/x-zip-compressed'],
  ['application/vnd.openxmlformats-officedocument.wordprocessingml.document', 'docx'],
  ['application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', 'xlsx'],
  ['application/vnd.openxmlformats-officedocument.presentationml.presentation', 'pptx'],
  ['application/vnd.visio', 'vsdx'],
  ['application/vnd.oasis.opendocument.text', 'odt'],
  ['application/vnd.oasis.opendocument.text-template', 'ott'],
  ['application/vnd.oasis.opendocument.spreadsheet', 'ods'],
  ['application/vnd.oasis.opendocument.spreadsheet-template', 'ots'],
  ['application/vnd.oasis.opendocument.presentation', 'odp'],
  ['application/vnd.oasis.opendocument.presentation-template', 'otp'],
  ['application/vnd.oasis.opendocument.graphics', 'odg'],
  ['application/vnd.oasis.opendocument.graphics-template', 'otg'],
  ['application/vnd.oasis.opendocument.formula', 'odf'],
  ['application/vnd.oasis.opendocument.chart', 'odc'],
  ['application/java-archive', 'jar'],
  ['application/vnd.android.package-archive', 'apk'],
  ['application/x-xpinstall', 'xpi'],
  ['model/3mf', '3mf'],
  ['application/gzip', 'gz', 'application/x-gzip'],
  ['application/x-compress', 'Z'],
  ['application/x-bzip2', 'bz2'],
  ['application/x-xz', 'xz'],
  ['application/zstd', 'zst'],
  ['application/x-lz4', 'lz4'],
  ['application/x-lzip', 'lz'],
  ['application/x-7z-compressed', '7z'],
  ['application/vnd.rar', 'rar', 'application/x-rar-compressed'],
  ['application/x-tar', 'tar'],
  ['application/x-archive', 'ar', 'application/x-unix-archive'],
  ['application/vnd.debian.binary-package', 'deb', 'application/x-deb'],
  ['application/vnd.ms-cab-compressed', 'cab'],
  ['application/x-cfb', 'cfb'],
  ['application/x-rpm', 'rpm'],
  ['application/x-chrome-extension', 'crx', 'application/x-google-chrome-extension'],
  ['application/x-cpio', 'cpio'],
  ['application/x-arj', 'arj'],
  ['application/x-lzh-compressed', 'lzh'],
  ['application/x-ace-compressed', 'ace'],
  ['application/vnd.apache.parquet', 'parquet'],
  ['application/vnd.sqlite3', 'sqlite', 'application/x-sqlite3'],
  ['application/wasm', 'wasm'],
  ['application/x-elf', 'elf', 'application/x-executable'],
  ['application/x-mach-binary', 'macho'],
  ['application/java-vm', 'class'],
  ['application/vnd.microsoft.portable-executable', 'exe', 'application/x-msdownload'],
  ['application/vnd.apache.arrow.file', 'arrow'],
  ['application/avro', 'avro'],
  ['application/vnd.tcpdump.pcap', 'pcap'],
  ['application/x-blender', 'blend'],
  ['font/woff', 'woff'],
  ['font/woff2', 'woff2'],
  ['font/otf', 'otf'],
  ['font/ttf', 'ttf'],
  ['font/collection', 'ttc'],
  ['application/vnd.ms-fontobject', 'eot'],
  ['application/x-shockwave-flash', 'swf'],
  ['application/vnd.ms-outlook', 'pst'],
  ['application/x-nintendo-nes-rom', 'nes'],
  ['application/vnd.ms-htmlhelp', 'chm'],
  ['application/x-spss-sav', 'sav'],
  ['application/x-ms-shortcut', 'lnk'],
  ['application/vnd.iccprofile', 'icc'],
  ['application/dicom', 'dcm'],
  ['audio/mpeg', 'mp3', 'audio/mp3'],
  ['audio/wav', 'wav', 'audio/x-wav audio/wave audio/vnd.wave'],
  ['audio/flac', 'flac', 'audio/x-flac'],
  ['audio/ogg', 'ogg'],
  ['audio/opus', 'opus'],
  ['audio/mp4', 'm4a', 'audio/x-m4a audio/m4a'],
  ['audio/aac', 'aac', 'audio/x-aac'],
  ['audio/aiff', 'aiff', 'audio/x-aiff'],
  ['audio/webm', 'weba'],
  ['audio/ac3', 'ac3'],
  ['audio/qcelp', 'qcp'],
  ['audio/amr', 'amr'],
  ['audio/midi', 'mid', 'audio/x-midi'],
  ['audio/ape', 'ape'],
  ['audio/wavpack', 'wv'],
  ['audio/x-musepack', 'mpc'],
  ['audio/x-dsf', 'dsf'],
  ['audio/x-voc', 'voc'],
  ['audio/x-it', 'it'],
  ['audio/x-xm', 'xm'],
  ['audio/x-s3m', 's3m'],
  ['video/mp4', 'mp4', 'video/x-m4v'],
  ['video/quicktime', 'mov'],
  ['video/webm', 'webm'],
  ['video/x-matroska', 'mkv', 'video/matroska'],
  ['video/ogg', 'ogv'],
  ['application/ogg', 'ogx'],
  ['video/x-msvideo', 'avi', 'video/avi video/vnd.avi video/msvideo'],
  ['video/3gpp', '3gp'],
  ['video/3gpp2', '3g2'],
  ['video/mj2', 'mj2'],
  ['video/x-flv', 'flv'],
  ['video/x-ms-asf', 'asf'],
  ['video/mpeg', 'mpg'],
  ['video/mp2t', 'mts'],
  ['application/vnd.rn-realmedia', 'rm'],
  ['application/mxf', 'mxf'],
]
const FORMAT_BY_NAME = new Map()
for (const [mediaType, ext, aliases = ''] of FORMATS) {
  for (const name of [mediaType, ...aliases.split(' ').filter(Boolean)]) FORMAT_BY_NAME.set(name, { mediaType, ext })
}

/** The format's own name for a media type or one of its aliases, or undefined. */
const canonical = (mediaType) => FORMAT_BY_NAME.get(essence(mediaType))?.mediaType

export function extension(mediaType) {
  const mt = essence(mediaType)
  return FORMAT_BY_NAME.get(mt)?.ext ?? (isTextual(mt) ? 'txt' : 'bin')
}

/** Declared parameters a header label keeps (src/media_type.rs). */
const LABEL_PARAMETERS = new Set(['charset', 'format', 'delsp', 'header', 'variant', 'profile'])
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z{}]+$/
const QUOTED = /^"[ !#-'*-Z^-~]*"$/

/** `mediaType` with the declared type's parameters that matter, when it is the declared type. */
function labelType(mediaType, declared) {
  if (declared === undefined || essence(declared) !== mediaType) return mediaType
  const kept = new Set()
  let out = mediaType
  for (const piece of declared.split(';').slice(1)) {
    const eq = piece.indexOf('=')
    if (eq < 0) continue
    const name = piece
      .slice(0, eq)
      .replace(/^[ \t]+|[ \t]+$/g, '')
      .replace(/[A-Z]/g, (c) => c.toLowerCase())
    const value = piece.slice(eq + 1).replace(/^[ \t]+|[ \t]+$/g, '')
    if (LABEL_PARAMETERS.has(name) && (TOKEN.test(value) || QUOTED.test(value)) && !kept.has(name)) {
      out += `; ${name}=${value}`
      kept.add(name)
    }
  }
  return out
}

// ---------------------------------------------------------------- base64

const BASE64_CANONICAL = /^[A-Za-z0-9+/]*={0,2}$/
const CR = 13
const LF = 10
const EQ = 61
const UNUSED_BITS = 'the last symbol has non-zero unused bits (not canonical base64)'

const isSymbol = (b, c62, c63) => (b >= 65 && b <= 90) || (b >= 97 && b <= 122) || (b >= 48 && b <= 57) || b === c62 || b === c63

/** What is wrong at `position` (a symbol index, line breaks not counted);
 * the same words as the native error. */
function describeByte(b, position) {
  if (b === EQ) return `padding '=' inside the data at symbol ${position}`
  if (b === 32) return `unexpected space at symbol ${position}`
  if (b === 9) return `unexpected tab at symbol ${position}`
  if (b > 32 && b < 127) return `unexpected character '${server(String.fromCharCode(b))}' at symbol ${position}`
  if (b >= 128) return `non-ASCII character at symbol ${position}`
  return `unexpected byte 0x${b.toString(16).padStart(2, '0')} at symbol ${position}`
}

/**
 * Validate a base64 string the way docs/routing.md describes (standard or
 * url-safe alphabet, not both; optional but correct padding; CR/LF skipped).
 * Returns `{ error }` or `{ canonical }`. The common case, a canonical string,
 * is settled by one regex; anything else gets a byte scan that names the
 * first problem like the native library does.
 */
export function checkBase64(s) {
  if (s.length % 4 === 0 && BASE64_CANONICAL.test(s)) {
    const unpadded = s.length - (s.endsWith('==') ? 2 : s.endsWith('=') ? 1 : 0)
    const zero = unusedBitsAreZero(s.charCodeAt(unpadded - 1), unpadded % 4)
    return zero ? { canonical: true } : { error: UNUSED_BITS }
  }
  // Positions count UTF-8 bytes, as the native library reads the string.
  const bytes = Buffer.from(s, 'utf8')
  const urlSafe = bytes.includes(45) || bytes.includes(95) // - _
  if (urlSafe && (bytes.includes(43) || bytes.includes(47))) {
    return { error: 'mixes the standard (+/) and url-safe (-_) alphabets' }
  }
  const [c62, c63] = urlSafe ? [45, 95] : [43, 47]
  let breaks = 0
  for (const b of bytes) if (b === CR || b === LF) breaks++
  const symbols = bytes.length - breaks
  let padding = 0
  for (let i = bytes.length - 1; i >= 0; i--) {
    if (bytes[i] === CR || bytes[i] === LF) continue
    if (bytes[i] !== EQ) break
    padding++
  }
  const dataSymbols = symbols - padding
  // A stray character (a space) is named before any other problem.
  let position = 0
  let misplacedPad = -1
  let last = 0
  for (const b of bytes) {
    if (b === CR || b === LF) continue
    if (b === EQ) {
      if (position < dataSymbols && misplacedPad < 0) misplacedPad = position
    } else if (!isSymbol(b, c62, c63)) {
      return { error: describeByte(b, position) }
    } else {
      last = b
    }
    position++
  }
  if (padding > 2) return { error: 'more than two padding characters' }
  if (dataSymbols % 4 === 1) return { error: `length ${symbols} leaves a single dangling symbol` }
  if (padding > 0 && symbols % 4 !== 0) return { error: 'padding does not complete a 4-character group' }
  if (misplacedPad >= 0) return { error: `padding '=' inside the data at symbol ${misplacedPad}` }
  if (!unusedBitsAreZero(last, dataSymbols % 4)) return { error: UNUSED_BITS }
  return { canonical: !urlSafe && breaks === 0 && symbols % 4 === 0 }
}

/** The last symbol of a partial group (2 or 3 symbols) carries bits that
 * decoding drops; accepted base64 has them zero. */
function unusedBitsAreZero(lastSymbol, groupLength) {
  const c = lastSymbol
  const value = c >= 97 ? c - 71 : c >= 65 && c <= 90 ? c - 65 : c >= 48 && c <= 57 ? c + 4 : c === 43 || c === 45 ? 62 : 63
  if (groupLength === 2) return (value & 0x0f) === 0
  if (groupLength === 3) return (value & 0x03) === 0
  return true
}

// ------------------------------------------------------------------ text
// The native order (src/text.rs): a BOM decides; then a declared charset;
// UTF-16 without a BOM by its NUL pattern; UTF-8; for a textual type,
// windows-1252 when that gives mostly-ASCII clear text. TextDecoder resolves
// the same WHATWG labels and decodes the same encodings as encoding_rs.

const SAMPLE = 8 * 1024

/** The encoding a media type's `charset` parameter names, as TextDecoder
 * names it; null without one, for an unknown label, and for the encodings
 * that name no text (replacement, x-user-defined). */
export function declaredCharset(mediaType) {
  if (typeof mediaType !== 'string') return null
  for (const parameter of mediaType.split(';').slice(1)) {
    const eq = parameter.indexOf('=')
    if (eq < 0 || parameter.slice(0, eq).trim().toLowerCase() !== 'charset') continue
    let value = parameter.slice(eq + 1).trim()
    if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) value = value.slice(1, -1)
    try {
      const encoding = new TextDecoder(value).encoding
      return encoding === 'replacement' || encoding === 'x-user-defined' ? null : encoding
    } catch {
      return null // a label TextDecoder does not know
    }
  }
  return null
}

const isUtf8Family = (encoding) => encoding === 'utf-8' || encoding === 'ascii'
const NOT_ASCII_COMPATIBLE = new Set(['utf-16le', 'utf-16be', 'iso-2022-jp'])

/** The bytes after the BOM of `encoding`, if they start with it. */
function body(buf, encoding) {
  if (isUtf8Family(encoding) && buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf) return buf.subarray(3)
  if (encoding === 'utf-16le' && buf[0] === 0xff && buf[1] === 0xfe) return buf.subarray(2)
  if (encoding === 'utf-16be' && buf[0] === 0xfe && buf[1] === 0xff) return buf.subarray(2)
  return buf
}

/** windows-1252 is Latin-1 but for 0x80-0x9F, which map to these (the
 * WHATWG index). Node 20's TextDecoder decodes windows-1252 (and every label
 * of it: latin1, iso-8859-1, ascii) as Latin-1, so those bytes become C1
 * controls there (fixed in Node 22); the reference decodes it itself. */
const WINDOWS_1252_HIGH = [
  0x20ac, 0x81, 0x201a, 0x192, 0x201e, 0x2026, 0x2020, 0x2021, 0x2c6, 0x2030, 0x160, 0x2039, 0x152, 0x8d, 0x17d, 0x8f, 0x90, 0x2018, 0x2019, 0x201c, 0x201d,
  0x2022, 0x2013, 0x2014, 0x2dc, 0x2122, 0x161, 0x203a, 0x153, 0x9d, 0x17e, 0x178,
]
const WINDOWS_1252_HIGH_CHARS = /[\x80-\x9f]/g
const decodeWindows1252 = (bytes) =>
  Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length)
    .toString('latin1')
    .replace(WINDOWS_1252_HIGH_CHARS, (c) => String.fromCharCode(WINDOWS_1252_HIGH[c.charCodeAt(0) - 0x80]))

/** The decoded text, or null when the bytes are not valid in `encoding`.
 * `stream`: the bytes are a prefix (a character cut at the end is kept back). */
function decodeStrict(bytes, encoding, stream = false) {
  if (encoding === 'windows-1252') return decodeWindows1252(bytes) // every byte is valid
  try {
    return new TextDecoder(isUtf8Family(encoding) ? 'utf-8' : encoding, { fatal: true, ignoreBOM: true }).decode(bytes, { stream })
  } catch {
    return null
  }
}

const decodes = (buf, encoding) => (isUtf8Family(encoding) ? isUtf8(buf) : decodeStrict(body(buf, encoding), encoding) !== null)

/** The first 8 KiB counted: UTF-8 in bytes (a BOM included), any other
 * encoding in the characters they decode to after the BOM. */
function sampleCount(buf, encoding) {
  const count = { chars: 0, control: 0, nonAscii: 0, nul: false }
  const add = (c) => {
    count.chars++
    if (c === 0) count.nul = true
    else if ((c >= 1 && c <= 8) || (c >= 14 && c <= 31) || c === 127) count.control++
    else if (c >= 128) count.nonAscii++
  }
  if (isUtf8Family(encoding)) {
    for (const b of buf.subarray(0, SAMPLE)) add(b)
  } else {
    const text = decodeStrict(body(buf, encoding).subarray(0, SAMPLE), encoding, true)
    if (text === null) count.nul = true // malformed: not text whatever the count
    else for (const ch of text) add(ch.codePointAt(0))
  }
  return count
}

/** No NUL and at most 10% control characters (1-8, 14-31, 127) in the sample. */
function isClearlyText(buf, encoding) {
  const { chars, control, nul } = sampleCount(buf, encoding)
  return !nul && chars > 0 && control <= 0.1 * chars
}

const isClearTextIn = (buf, encoding) => isClearlyText(buf, encoding) && decodes(buf, encoding)

/** UTF-16 without a BOM: more than half of the sample's code units have a
 * NUL high byte and a non-NUL low byte. */
function utf16ByNulPattern(buf) {
  const sample = buf.subarray(0, SAMPLE)
  let units = 0
  let le = 0
  let be = 0
  for (let i = 0; i + 1 < sample.length; i += 2) {
    units++
    if (sample[i] !== 0 && sample[i + 1] === 0) le++
    else if (sample[i] === 0 && sample[i + 1] !== 0) be++
  }
  if (le * 2 > units) return 'utf-16le'
  if (be * 2 > units) return 'utf-16be'
  return null
}

/** The encoding the bytes are text in ('ascii', 'utf-8', 'utf-16le', a
 * TextDecoder name), or null. `textual`: the declared type says text;
 * `charset`: its charset parameter (declaredCharset). */
export function detectEncoding(buf, { textual = false, charset = null } = {}) {
  const bom =
    buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf
      ? 'utf-8'
      : buf[0] === 0xff && buf[1] === 0xfe
        ? 'utf-16le'
        : buf[0] === 0xfe && buf[1] === 0xff
          ? 'utf-16be'
          : null
  if (bom) return decodes(buf, bom) && (textual || isClearlyText(buf, bom)) ? bom : null
  if (charset !== null && charset !== 'utf-8') {
    const plainAscii = !NOT_ASCII_COMPATIBLE.has(charset) && isAscii(buf)
    if (!plainAscii && isClearTextIn(buf, charset)) return charset
  }
  const utf16 = utf16ByNulPattern(buf)
  if (utf16 && isClearTextIn(buf, utf16)) return utf16
  if (isUtf8(buf)) {
    const encoding = isAscii(buf) ? 'ascii' : 'utf-8'
    if (textual || isClearlyText(buf, encoding)) return encoding
  }
  // windows-1252 is a guess for Western text: at most a quarter beyond ASCII.
  if (textual) {
    const { chars, nonAscii } = sampleCount(buf, 'windows-1252')
    if (nonAscii <= 0.25 * chars && isClearTextIn(buf, 'windows-1252')) return 'windows-1252'
  }
  return null
}

function decodeText(buf, encoding) {
  if (isUtf8Family(encoding)) return new TextDecoder().decode(buf) // drops a UTF-8 BOM
  return decodeStrict(body(buf, encoding), encoding)
}

// -------------------------------------------------------------- text cap

const MAX_TEXT_TOKENS = 12_500
const CJK =
  /[\u1100-\u11FF\u2E80-\u2FDF\u3000-\u30FF\u3100-\u31FF\u3200-\u4DBF\u4E00-\u9FFF\uA960-\uA97F\uAC00-\uD7FF\uF900-\uFAFF\uFE30-\uFE4F\uFF00-\uFFEF\u{20000}-\u{3FFFF}]/u

/** A quarter token a character, 1.5 a CJK character. */
export function estimateTokens(text) {
  let cjk = 0
  let other = 0
  for (const ch of text) {
    if (CJK.test(ch)) cjk++
    else other++
  }
  return Math.ceil(other / 4) + Math.ceil((cjk * 3) / 2)
}

/** Whole lines within `quarters` quarter tokens, or the start of line 1. */
function preview(text, quarters) {
  let spent = 0
  let lastLineEnd = -1
  let lines = 0
  let at = 0
  for (const ch of text) {
    spent += CJK.test(ch) ? 6 : 1
    if (spent > quarters) {
      if (lastLineEnd >= 0) return { text: text.slice(0, lastLineEnd), lines }
      const start = text.slice(0, at)
      return { text: start, chars: [...start].length }
    }
    at += ch.length
    if (ch === '\n') {
      lines++
      lastLineEnd = at
    }
  }
  return { text, lines: lines + (text && !text.endsWith('\n') ? 1 : 0) }
}

function countLines(buf) {
  let lines = 0
  for (let i = buf.indexOf(10); i >= 0; i = buf.indexOf(10, i + 1)) lines++
  return lines + (buf.length && buf[buf.length - 1] !== 10 ? 1 : 0)
}

/**
 * `header + text` when within the cap, else `header`, a preview and a note on
 * the whole text, saved. `whole`: the bytes to save when they are not simply
 * the text's UTF-8, with `text` then only their start (`surelyOver`).
 */
async function bounded(header, text, ext, outputDir, { whole = null, surelyOver = false } = {}) {
  const over = surelyOver || (text.length * 1.5 > MAX_TEXT_TOKENS && estimateTokens(text) > MAX_TEXT_TOKENS)
  if (!over) return header + text
  const bytes = whole ?? Buffer.from(text)
  const p = preview(text, (MAX_TEXT_TOKENS / 5) * 4)
  const lines = countLines(bytes)
  const shown = p.lines !== undefined ? `the first ${p.lines} of ${lines} lines` : `the first ${p.chars} characters of line 1 (of ${lines} lines)`
  const start = p.text && !p.text.endsWith('\n') ? `${p.text}\n` : p.text
  const lead = `${header}${start}[Text truncated: ${shown} are shown above; the whole text (${bytes.length} bytes)`
  try {
    return `${lead} is saved to ${await save(outputDir, bytes, ext)}]`
  } catch (error) {
    return `${lead} could not be saved: ${error.message}]`
  }
}

/** The start of a UTF-8 text blob too long to be within the cap (16 bytes a token), or null. */
function headOfLongUtf8(buf) {
  if (buf.length / 16 <= MAX_TEXT_TOKENS) return null
  let end = Math.min(buf.length, (MAX_TEXT_TOKENS / 5) * 4 * 4 + 4)
  while (end > 0 && end < buf.length && (buf[end] & 0xc0) === 0x80) end--
  return buf.toString('utf8', 0, end)
}

// -------------------------------------------------------------- sniffing

/** file-type's names where the native sniffer uses another one for the same
 * format (the note of a spilled file names it). */
const FILE_TYPE_NAMES = {
  'image/apng': 'image/png',
  'image/x-icon': 'image/vnd.microsoft.icon',
  'image/x-adobe-dng': 'image/tiff', // raw formats that are TIFF inside
  'image/x-nikon-nef': 'image/tiff',
  'image/x-sony-arw': 'image/tiff',
  'image/j2c': 'image/x-jp2-codestream',
  'image/mj2': 'video/mj2',
  'audio/x-flac': 'audio/flac',
  'audio/x-m4a': 'audio/mp4',
  'audio/vnd.dolby.dd-raw': 'audio/ac3',
  'audio/ogg; codecs=opus': 'audio/opus',
  'audio/x-ms-asf': 'video/x-ms-asf',
  'video/x-m4v': 'video/mp4',
  'video/vnd.avi': 'video/x-msvideo',
  'video/matroska': 'video/x-matroska',
  'video/MP1S': 'video/mpeg',
  'video/MP2P': 'video/mpeg',
  'application/x-unix-archive': 'application/x-archive',
  'application/x-deb': 'application/vnd.debian.binary-package',
  'application/x-google-chrome-extension': 'application/x-chrome-extension',
  'application/x-rar-compressed': 'application/vnd.rar',
  'application/x-sqlite3': 'application/vnd.sqlite3',
  'application/x-msdownload': 'application/vnd.microsoft.portable-executable',
  'application/x.ms.shortcut': 'application/x-ms-shortcut',
  'application/eps': 'application/postscript',
}
/** By extension where file-type's media type is shared by several formats. */
const FILE_TYPE_NAMES_BY_EXT = {
  m4p: 'audio/mp4', // file-type says video/mp4 for an M4P (audio) file
}
// OOXML variants (macro-enabled, templates): the native sniffer reads only
// the zip entry names, which are the same, and names the base type.
const OOXML = {
  word: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  excel: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  powerpoint: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
}
const OOXML_BY_EXT = {
  docm: OOXML.word,
  dotm: OOXML.word,
  dotx: OOXML.word,
  xlsm: OOXML.excel,
  xltm: OOXML.excel,
  xltx: OOXML.excel,
  pptm: OOXML.powerpoint,
  potm: OOXML.powerpoint,
  potx: OOXML.powerpoint,
  ppsm: OOXML.powerpoint,
  ppsx: OOXML.powerpoint,
}
/** Text formats file-type names that the native sniffer leaves to the text
 * test (so clearly-text bytes go out as text there). */
const FILE_TYPE_TEXT_FORMATS = new Set(['reg', 'pgp', 'stl'])
/** Text formats the native sniffer names (family Text): sent as text under
 * their name when they decode. */
const TEXT_FORMATS = new Set(['image/svg+xml', 'application/xml', 'text/vtt', 'text/calendar', 'text/vcard', 'application/rtf', 'application/postscript'])

/** The five attachable formats by their magic bytes: these decide what is
 * attached, so they are not left to a general-purpose sniffer. */
function sniffAttachable(head) {
  if (startsWith(head, PNG_SIGNATURE)) return 'image/png'
  if (startsWith(head, [0xff, 0xd8, 0xff])) return head[3] === 0xf7 ? 'image/jls' : 'image/jpeg'
  if (startsWith(head, ascii('GIF87a')) || startsWith(head, ascii('GIF89a'))) return 'image/gif'
  if (startsWith(head, ascii('RIFF')) && startsWith(head, ascii('WEBP'), 8)) return 'image/webp'
  if (startsWith(head, ascii('%PDF-'))) return 'application/pdf' // Illustrator .ai files too
  return null
}

/** Text formats by their content: WebVTT, iCalendar, vCard, and SVG or XML
 * by the root element after the prolog (file-type leaves SVG out and names
 * any `<?xml` file XML). */
function sniffMarkup(head) {
  let text = head.subarray(0, 4096)
  if (text[0] === 0xef && text[1] === 0xbb && text[2] === 0xbf) text = text.subarray(3)
  else if ((text[0] === 0xff && text[1] === 0xfe) || (text[0] === 0xfe && text[1] === 0xff)) {
    // UTF-16 with a BOM: one byte per code unit, non-ASCII as 0x80.
    const units = text.subarray(2, 2 + ((text.length - 2) & ~1))
    const narrow = Buffer.alloc(units.length / 2)
    for (let i = 0; i < narrow.length; i++) {
      const u = text[0] === 0xff ? units[2 * i] | (units[2 * i + 1] << 8) : (units[2 * i] << 8) | units[2 * i + 1]
      narrow[i] = u < 0x80 ? u : 0x80
    }
    text = narrow
  }
  let s = text.toString('latin1').replace(/^[\t\n\f\r ]+/, '')
  if (/^WEBVTT([\t\n\r ]|$)/.test(s)) return 'text/vtt'
  if (s.startsWith('BEGIN:VCALENDAR')) return 'text/calendar'
  if (s.startsWith('BEGIN:VCARD')) return 'text/vcard'
  let declared = false
  for (;;) {
    s = s.replace(/^[\t\n\f\r ]+/, '')
    let close
    if (s.startsWith('<?xml')) {
      declared = true
      close = '?>'
    } else if (s.startsWith('<?')) close = '?>'
    else if (s.startsWith('<!--')) close = '-->'
    else if (s.slice(0, 9).toUpperCase() === '<!DOCTYPE') {
      // An internal subset in brackets may hold '>' characters.
      const bracket = s.indexOf('[')
      const end = s.indexOf('>')
      close = bracket >= 0 && end >= 0 && bracket < end ? ']>' : '>'
    } else break
    const end = s.indexOf(close)
    if (end < 0) return null
    s = s.slice(end + close.length)
  }
  if (/^<svg([\t\n\f\r />]|$)/.test(s)) return 'image/svg+xml'
  if (declared && s.startsWith('<')) return 'application/xml'
  return null
}

/** The media type of the bytes, named as the native sniffer names it. */
async function sniff(all) {
  const head = all
  const attachable = sniffAttachable(head)
  if (attachable) return attachable
  let found = await fileTypeFromBuffer(head)
  // FF FE opens UTF-16LE text (its BOM) far more often than an MPEG audio
  // frame; file-type's frame-sync guess there is not taken (the native
  // sniffer wants a whole second frame).
  if (found?.mime === 'audio/mpeg' && head[0] === 0xff && head[1] === 0xfe) found = undefined
  if (found && found.ext !== 'xml') {
    if (FILE_TYPE_TEXT_FORMATS.has(found.ext) && detectEncoding(all)) return null
    return OOXML_BY_EXT[found.ext] ?? FILE_TYPE_NAMES_BY_EXT[found.ext] ?? FILE_TYPE_NAMES[found.mime] ?? found.mime
  }
  return sniffMarkup(head)
}

// -------------------------------------------------------------- classify

/** What the bytes are and where they go: attach, text or spill. */
async function decide(buf, declared, fromBase64, charset) {
  const len = buf.length
  const whole = !fromBase64 || len <= HEAD_LEN + TAIL_LEN
  const wholeWindow = { head: buf, tail: buf, len, whole: true }
  let window = whole ? wholeWindow : { head: buf.subarray(0, HEAD_LEN), tail: buf.subarray(len - TAIL_LEN), len, whole }
  // file-type reads as far into the buffer as the format needs.
  const sniffed = await sniff(buf)

  if (sniffed) {
    const limits = ATTACH_LIMITS[sniffed]
    if (limits) {
      let size = null
      if (limits.maxSide) {
        size = dimensions(window.head)
        if (!size && !window.whole) {
          // The header lies past the head (a JPEG with a large EXIF block):
          // the native library decodes all of it, and then checks all of it.
          size = dimensions(buf)
          window = wholeWindow
        }
      }
      // A defect seen through the window is confirmed on all of the data.
      // A PNG's chunks are all read, in every form.
      let reason = CHECKS[sniffed](sniffed === 'image/png' ? wholeWindow : window)
      if (typeof reason === 'string' && !window.whole) reason = CHECKS[sniffed](wholeWindow)
      let repaired = null
      if (reason === REPAIRABLE) {
        const repair = repairPng(buf)
        reason = typeof repair === 'string' ? repair : null
        if (reason === null) repaired = repair.copy
      }
      // Every byte of a sound image decoded, as the native check decodes it
      // (the repaired copy when there is one: it is what is sent).
      if (!reason && size && size.width * size.height <= MAX_PIXELS) {
        reason = await decodeAll(sniffed, repaired ?? buf)
      }
      if (!reason && limits.maxSide && !size) reason = 'the pixel size could not be read from the header'
      if (!reason) {
        const over = []
        const { maxSide, maxSize } = limits
        if (maxSide && (size.width > maxSide || size.height > maxSide)) {
          over.push(`${size.width}x${size.height} px, over the ${maxSide} px limit`)
        }
        const measured = maxSize.base64 ? Math.ceil(len / 3) * 4 : len
        if (measured > maxSize.max) {
          over.push(`${megabytesUp(measured)} MB${maxSize.base64 ? ' as base64' : ''}, over the ${megabytesDown(maxSize.max)} MB limit`)
        }
        if (over.length === 0) return { route: 'attach', mediaType: sniffed, repaired }
        reason = over.join(', and ')
      }
      return { route: 'spill', mediaType: sniffed, reason }
    }
    if (TEXT_FORMATS.has(sniffed)) {
      const encoding = detectEncoding(buf, { textual: true, charset })
      if (encoding) return { route: 'text', mediaType: sniffed, encoding }
      return { route: 'spill', mediaType: sniffed, reason: NOT_TEXT }
    }
    const reason =
      declared !== null && !sameFormat(declared, sniffed)
        ? `declared ${server(declared)} but the bytes are ${sniffed}, which is not accepted`
        : notAccepted(sniffed)
    return { route: 'spill', mediaType: sniffed, reason }
  }

  // Not a known format: text if the declared type says so or says nothing
  // specific and the bytes are clearly text.
  const declaredTextual = declared !== null && isTextual(declared)
  const encoding = detectEncoding(buf, { textual: declaredTextual, charset })
  if (encoding) {
    // Keep a declared type that says text or names a format we do not know.
    const vague = declared === null || isGenericBinary(declared)
    const keep = declared !== null && (declaredTextual || (!vague && extension(declared) === 'bin'))
    const mediaType = keep ? declared : 'text/plain'
    // A specific binary declaration (image/png) on text bytes is not sent as text.
    if (vague || declaredTextual || extension(declared) === 'bin') return { route: 'text', mediaType, encoding }
    return { route: 'spill', mediaType, reason: `declared ${server(declared)} but the bytes are text` }
  }
  if (declared !== null && !declaredTextual && isSniffable(declared)) {
    // Not named after a format the bytes are not: saved as unknown bytes.
    return { route: 'spill', mediaType: OCTET_STREAM, reason: `declared ${server(declared)} but the bytes do not match that format` }
  }
  const mediaType = declared ?? OCTET_STREAM
  const reason = declaredTextual ? `declared ${server(declared)} but ${NOT_TEXT}` : notAccepted(mediaType)
  return { route: 'spill', mediaType, reason }
}

/** Images the native addon decodes to make them fit (src/image_fit/mod.rs, `decodes`). */
const FIT_DECODES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp', 'image/bmp', 'image/tiff', 'image/vnd.microsoft.icon'])

/** A type the provider does not take; an image no decoder reads cannot be shown at all. */
function notAccepted(mediaType) {
  return mediaType.startsWith('image/') && !FIT_DECODES.has(mediaType)
    ? `${server(mediaType)} is not accepted and cannot be converted here, so it cannot be shown`
    : `${server(mediaType)} is not accepted`
}

const NOT_TEXT = 'the bytes are not text (neither UTF-8 nor UTF-16)'

/** Declared types whose bytes the sniffers would have recognised (src/classify.rs). */
const SNIFFABLE = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp', 'application/pdf'])
const isSniffable = (declared) => SNIFFABLE.has(canonical(declared))

/** The declared type names the sniffed format, by its name or an alias of the format table. */
const sameFormat = (declared, sniffed) => declared === sniffed || canonical(declared) === sniffed

/** Decimal MB with one decimal: a size over a limit rounded up, the limit
 * rounded down, so the two never read equal (src/note.rs). */
const tenths = (t) => `${Math.floor(t / 10)}.${t % 10}`
const megabytesUp = (n) => tenths(Math.ceil(n / 100_000))
const megabytesDown = (n) => tenths(Math.floor(n / 100_000))

// ------------------------------------------------------------------ store

let sequence = 0

/** Save like the native store: a temp file in the same folder, then a link
 * to the final name, so no reader sees half a file and nothing is overwritten. */
async function save(outputDir, buf, ext) {
  await fs.promises.mkdir(outputDir, { recursive: true, mode: 0o700 })
  const tmp = path.join(outputDir, `.tmp_${process.pid}_${++sequence}_${Math.random().toString(36).slice(2)}`)
  await fs.promises.writeFile(tmp, buf, { mode: 0o600 })
  try {
    for (;;) {
      const id = `${Date.now()}_${String(++sequence).padStart(6, '0')}_${process.pid}`
      const file = path.join(outputDir, `tool_${id}.${ext}`)
      try {
        await fs.promises.link(tmp, file)
        return file
      } catch (error) {
        if (error.code !== 'EEXIST') throw error
      }
    }
  } finally {
    await fs.promises.unlink(tmp).catch(() => {})
  }
}

// ------------------------------------------------------------------ parts

function invalidArgument(message) {
  return Object.assign(new TypeError(message), { code: 'INVALID_ARGUMENT' })
}

/** The last path segment of a uri, percent-decoded; undefined when there
 * is none, an escape is malformed or not UTF-8, or the name would hold a
 * separator or control character or be a dot name (src/content/uri.rs). */
function fileName(uri) {
  let p = uri.split(/[?#]/)[0]
  p = p.replace(/^[A-Za-z][A-Za-z0-9+.-]*:/, '')
  if (p.startsWith('//')) {
    const slash = p.indexOf('/', 2)
    if (slash < 0) return undefined
    p = p.slice(slash)
  }
  let name
  try {
    name = decodeURIComponent(p.slice(p.lastIndexOf('/') + 1))
  } catch {
    return undefined
  }
  if (name === '' || name === '.' || name === '..' || /[/\\\p{Cc}]/u.test(name)) return undefined
  return name
}

function isForModel(part) {
  const audience = part.annotations?.audience
  return !Array.isArray(audience) || audience.includes('assistant')
}

const str = (v) => (typeof v === 'string' ? v : undefined)

/** One media part: validate, decode, classify, route, save. */
async function mediaToContent(kind, uri, mimeType, data, outputDir) {
  const label = uri ? `Resource ${server(uri)}` : kind[0].toUpperCase() + kind.slice(1)
  const binaryLabel = uri ? `Binary resource ${server(uri)}` : `Binary ${kind}`
  const declared = essence(mimeType) || null
  const charset = declaredCharset(mimeType)
  const unreadable = (problem, mt = declared ?? OCTET_STREAM) => ({
    type: 'text',
    text: `[${label} (${server(mt)}): ${problem}; nothing was saved]`,
  })

  let buf
  let canonical = false
  const fromBase64 = typeof data === 'string'
  if (fromBase64) {
    const checked = checkBase64(data)
    if (checked.error) return unreadable(`invalid base64 data (${checked.error})`)
    canonical = checked.canonical
    buf = Buffer.from(data, 'base64')
  } else if (data == null) {
    buf = Buffer.alloc(0) // no data at all reads as empty data
  } else if (data instanceof Uint8Array) {
    buf = Buffer.from(data.buffer, data.byteOffset, data.byteLength) // a view, no copy
  } else {
    throw invalidArgument('`data` must be a base64 string or a Uint8Array')
  }
  if (buf.length === 0) return unreadable('empty data')

  const d = await decide(buf, declared, fromBase64, charset)
  if (d.route === 'attach') {
    const sent = d.repaired ? d.repaired.toString('base64') : canonical ? data : buf.toString('base64')
    const part = { type: 'file', mediaType: d.mediaType, data: sent }
    if (uri !== undefined) part.uri = uri
    const filename = uri && fileName(uri)
    if (filename) part.filename = filename
    return part
  }
  if (d.route === 'text') {
    // The header names an encoding other than UTF-8 (src/note.rs).
    const named = isUtf8Family(d.encoding) ? '' : `, ${d.encoding}`
    // A named encoding replaces the declared charset: the model reads decoded text.
    const shown = named
      ? labelType(d.mediaType, mimeType)
          .split('; ')
          .filter((p) => !p.startsWith('charset='))
          .join('; ')
      : labelType(d.mediaType, mimeType)
    const header = `[${label} (${server(shown)}${named})]\n`
    const ext = extension(d.mediaType)
    const head = d.encoding === 'utf-8' || d.encoding === 'ascii' ? headOfLongUtf8(buf) : null
    const text =
      head !== null
        ? await bounded(header, head, ext, outputDir, { whole: buf, surelyOver: true })
        : await bounded(header, decodeText(buf, d.encoding), ext, outputDir)
    return { type: 'text', text }
  }
  try {
    const file = await save(outputDir, buf, extension(d.mediaType))
    return { type: 'text', text: `[${binaryLabel} (${server(d.mediaType)}, ${buf.length} bytes): ${d.reason}; saved to ${file}]` }
  } catch (error) {
    return { type: 'text', text: `[${binaryLabel} (${server(d.mediaType)}, ${buf.length} bytes): ${d.reason}; could not be saved: ${error.message}]` }
  }
}

/**
 * The reference `toContentAsync`: the same part as the native library for
 * an MCP content part, or null when its audience leaves the assistant out.
 */
export async function toContentJs(part, { outputDir } = {}) {
  const dir = outputDir ?? path.join(os.tmpdir(), `mcp-content-${process.getuid?.() ?? process.env.USERNAME}`, 'tool-output')
  if (part === null || typeof part !== 'object') throw invalidArgument('a content part must be an object with a `type`')
  if (!isForModel(part)) return null
  const type = str(part.type) ?? ''
  switch (type) {
    case 'text':
      return { type: 'text', text: await bounded('', str(part.text) ?? '', 'txt', dir) }
    case 'image':
    case 'audio':
      return mediaToContent(type, undefined, str(part.mimeType), part.data, outputDir)
    case 'media':
      return mediaToContent('media', str(part.uri), str(part.mimeType), part.data, outputDir)
    case 'resource': {
      const r = part.resource
      if (r === null || typeof r !== 'object') return { type: 'text', text: '[Resource part without a `resource` object]' }
      const uri = str(r.uri) ?? ''
      if (typeof r.text === 'string') {
        const mt = essence(r.mimeType) || 'text/plain'
        const shown = essence(r.mimeType) ? labelType(mt, str(r.mimeType)) : 'text/plain'
        return { type: 'text', text: await bounded(`[${uri ? `Resource ${server(uri)}` : 'Media'} (${server(shown)})]\n`, r.text, extension(mt), dir) }
      }
      return mediaToContent('media', uri, str(r.mimeType), r.blob, outputDir)
    }
    case 'resource_link': {
      const size = part.size
      const details = [str(part.name), str(part.mimeType)].filter((s) => s).map((s) => server(s))
      if (Number.isSafeInteger(size) && size >= 0) details.push(`${size} bytes`)
      let text = `[Resource link ${server(str(part.uri) ?? '')}${details.length ? ` (${details.join(', ')})` : ''}]`
      if (str(part.description)) text += `\n${server(part.description, 2000)}`
      return { type: 'text', text }
    }
    default:
      return { type: 'text', text: `[Unsupported content part of type "${server(type)}"]` }
  }
}

/** The naive floor agents do today: forward whatever was declared, unchecked. */
export function passThrough(part) {
  switch (part.type) {
    case 'text':
      return { type: 'text', text: part.text }
    case 'image':
    case 'audio':
      return { type: 'file', mediaType: part.mimeType, data: part.data }
    case 'resource':
      if (part.resource.blob !== undefined) return { type: 'file', mediaType: part.resource.mimeType, data: part.resource.blob }
      return { type: 'text', text: part.resource.text }
    default:
      return null
  }
}

/** Images a request may carry under the default profile, and the side past that many. */
const MAX_IMAGES = 20
const MAX_SIDE_MANY_IMAGES = 2000

/**
 * The reference `convertToolResult` for the default profile: each part as
 * `toContentJs` makes it (all at once), then the request budget: images
 * past the first 20 are saved and noted, as is any image over 2000 px a
 * side once there are more than 20. The JSON of `structuredContent` is
 * added when no text part carries it.
 */
export async function convertToolResultJs(result, { outputDir } = {}) {
  const parts = await Promise.all(result.content.map((part) => toContentJs(part, { outputDir })))
  const content = []
  const saved = []
  const images = parts.filter((p) => p !== null && p.type === 'file' && p.mediaType.startsWith('image/')).length
  let attached = 0
  for (const part of parts) {
    if (part === null) continue
    if (part.type !== 'file' || !part.mediaType.startsWith('image/')) {
      content.push(part)
      continue
    }
    const buf = Buffer.from(part.data, 'base64')
    const size = images > MAX_IMAGES ? dimensions(buf) : null
    const tooLarge = size !== null && Math.max(size.width, size.height) > MAX_SIDE_MANY_IMAGES
    if (attached < MAX_IMAGES && !tooLarge) {
      attached++
      content.push(part)
      continue
    }
    const file = await save(outputDir, buf, extension(part.mediaType))
    saved.push({ path: file, byteLength: buf.length, mediaType: part.mediaType })
    content.push({ type: 'text', text: `[Binary image (${part.mediaType}, ${buf.length} bytes): over the request's image budget; saved to ${file}]` })
  }
  const json = result.structuredContent === undefined ? undefined : JSON.stringify(result.structuredContent)
  if (json !== undefined && !content.some((p) => p.type === 'text' && p.text === json)) content.push({ type: 'text', text: json })
  return { content, isError: result.isError === true, deferred: [], saved }
}

/** Image types a provider takes, and Anthropic's limits on them. */
const CAREFUL_IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp']
const CAREFUL_MAX_BASE64 = 5 * 1024 * 1024
const CAREFUL_MAX_SIDE = 8000
const BASE64_SHAPE = /^[A-Za-z0-9+/]*={0,2}$/

/**
 * The careful pure-JS way an agent would write for an image part, lighter
 * than `toContentJs`: a regex check of the base64, `Buffer.from`, file-type
 * for the real format and image-size for the pixels; no structural check,
 * no spill. What issue 10 measures native code against (at least 10x).
 */
export async function carefulImageJs(part) {
  if (part.type !== 'image') return passThrough(part)
  const data = part.data
  if (typeof data !== 'string' || data.length % 4 !== 0 || !BASE64_SHAPE.test(data)) {
    return { type: 'text', text: '[Image: invalid base64 data]' }
  }
  const bytes = Buffer.from(data, 'base64')
  const type = await fileTypeFromBuffer(bytes)
  if (!type || !CAREFUL_IMAGE_TYPES.includes(type.mime)) return { type: 'text', text: '[Image of an unsupported type]' }
  const size = dimensions(bytes)
  if (!size || size.width > CAREFUL_MAX_SIDE || size.height > CAREFUL_MAX_SIDE || data.length > CAREFUL_MAX_BASE64) {
    return { type: 'text', text: '[Image over the provider limits]' }
  }
  return { type: 'file', mediaType: type.mime, data }
}
