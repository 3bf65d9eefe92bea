// What Claude's Messages API does with a content block inside a tool_result, written from its
// documented limits and the error texts users report (images: png, jpeg, gif, webp; at most 8000 px
// a side; "5 MB" counted on the base64 string: 5,242,880 characters on Bedrock and Google Cloud,
// 10,485,760 on the direct API; the bytes must match the declared type and decode; documents:
// PDF only). Independent of mcp-content: image-size reads the dimensions, pngjs decodes PNGs.
// The verdict is 'refused' (with the API's error), 'at-risk' (strict decoders refuse it; the API
// is not known to), or 'accepted'.
import zlib from 'node:zlib'
import { imageSize } from 'image-size'
import pngjs from 'pngjs'

export const IMAGE_LIMIT_BEDROCK_VERTEX = 5_242_880
export const IMAGE_LIMIT_DIRECT = 10_485_760
const IMAGE_TYPES = ['image/jpeg', 'image/png', 'image/gif', 'image/webp']

/** What a naive client sends for an MCP content part: the declared type, as it came. */
export function naiveBlock(part) {
  if (part.type === 'text') return { type: 'text', text: part.text }
  if (part.type === 'resource_link') return { type: 'text', text: JSON.stringify(part) }
  const resource = part.type === 'resource' ? part.resource : undefined
  if (resource && typeof resource.text === 'string') return { type: 'text', text: resource.text }
  const mediaType = (resource ? resource.mimeType : part.mimeType) ?? 'application/octet-stream'
  const data = resource ? resource.blob : part.data
  const source = { type: 'base64', media_type: mediaType, data }
  return mediaType.startsWith('image/') ? { type: 'image', source } : { type: 'document', source }
}

function sniff(buf) {
  if (buf.length >= 8 && buf[0] === 0x89 && buf.toString('latin1', 1, 4) === 'PNG') return 'image/png'
  if (buf.length >= 3 && buf[0] === 0xff && buf[1] === 0xd8 && buf[2] === 0xff) return 'image/jpeg'
  if (buf.length >= 6 && /^GIF8[79]a$/.test(buf.toString('latin1', 0, 6))) return 'image/gif'
  if (buf.length >= 12 && buf.toString('latin1', 0, 4) === 'RIFF' && buf.toString('latin1', 8, 12) === 'WEBP') return 'image/webp'
  return null
}

/** A PNG chunk with a bad CRC that decoders skipping ancillary chunks ignore, or null. */
function badAncillaryCrc(buf) {
  if (typeof zlib.crc32 !== 'function') return null
  let at = 8
  while (at + 12 <= buf.length) {
    const length = buf.readUInt32BE(at)
    const type = buf.toString('latin1', at + 4, at + 8)
    if (at + 12 + length > buf.length) return null
    const crc = buf.readUInt32BE(at + 8 + length)
    if (zlib.crc32(buf.subarray(at + 4, at + 8 + length)) >>> 0 !== crc && type[0] === type[0].toLowerCase()) return type
    at += 12 + length
  }
  return null
}

const refused = (error) => ({ verdict: 'refused', error })

/** The verdict on one tool_result block, `imageLimit` base64 characters per image. */
export function checkBlock(block, imageLimit = IMAGE_LIMIT_BEDROCK_VERTEX) {
  if (block.type === 'text') return block.text.length > 0 ? { verdict: 'accepted' } : refused('text content blocks must be non-empty')
  const src = block.source
  if (block.type === 'document') {
    if (src.media_type !== 'application/pdf') return refused("document.source.base64.media_type: Input should be 'application/pdf'")
    const pdf = Buffer.from(src.data, 'base64')
    const tail = pdf.subarray(Math.max(0, pdf.length - 1024)).toString('latin1')
    if (pdf.toString('latin1', 0, 5) !== '%PDF-' || !tail.includes('%%EOF')) return refused('The PDF specified was not valid.')
    return { verdict: 'accepted' }
  }
  if (!IMAGE_TYPES.includes(src.media_type)) {
    return refused("image.source.base64.media_type: Input should be 'image/jpeg', 'image/png', 'image/gif' or 'image/webp'")
  }
  if (src.data === '') return refused('image cannot be empty')
  if (src.data.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(src.data)) return refused('invalid base64 data')
  if (src.data.length > imageLimit) {
    const mb = Math.round(imageLimit / 1_048_576)
    return refused(`image exceeds ${mb} MB maximum: ${src.data.length} bytes > ${imageLimit} bytes`)
  }
  const bytes = Buffer.from(src.data, 'base64')
  const actual = sniff(bytes)
  if (actual !== src.media_type) {
    return refused(
      actual
        ? `The image was specified using the ${src.media_type} media type, but the image appears to be a ${actual} image`
        : `Image does not match the provided media type ${src.media_type}`,
    )
  }
  let size
  try {
    size = imageSize(bytes)
  } catch {
    return refused('Could not process image')
  }
  if (size.width > 8000 || size.height > 8000) return refused('At least one of the image dimensions exceed max allowed size: 8000 pixels')
  if (actual === 'image/png') {
    try {
      pngjs.PNG.sync.read(bytes)
    } catch {
      return refused('Could not process image')
    }
    const chunk = badAncillaryCrc(bytes)
    if (chunk) return { verdict: 'at-risk', error: `the ${chunk} chunk has a bad CRC: libpng skips it, Pillow refuses the whole file` }
  }
  if (actual === 'image/jpeg' && !(bytes[bytes.length - 2] === 0xff && bytes[bytes.length - 1] === 0xd9)) {
    return refused('Could not process image')
  }
  return { verdict: 'accepted' }
}
