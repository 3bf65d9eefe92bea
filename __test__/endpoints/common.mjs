// What the strict local endpoints share: an HTTP server on 127.0.0.1 that
// records each request body, and checks of inline media written from the
// formats' specifications (not from mcp-content): strict base64, magic
// bytes, image headers, animated GIFs.
import http from 'node:http'
import http2 from 'node:http2'
import { referenceImageInfo, isPdf } from '../fixtures/index.mjs'
import { gifFrames } from '../fixtures/results.mjs'

/** A request the endpoint refuses: `status` and the provider's error body come from `respond`. */
export class Refusal extends Error {
  constructor(message, status = 400) {
    super(message)
    this.status = status
  }
}

/**
 * Start an endpoint. `route(req, body, raw)` answers `{ status, headers?, json }`
 * or throws a Refusal, which `refuse(refusal)` turns into the provider's error answer.
 * Resolves to `{ url, requests, close }`; `requests` holds every parsed body.
 * `h2c`: serve HTTP/2 without TLS instead of HTTP/1.1.
 */
export async function startEndpoint({ route, refuse, maxBytes, h2c = false }) {
  const requests = []
  // h2c: HTTP/2 without TLS, which the Bedrock runtime client speaks.
  const server = (h2c ? http2 : http).createServer((req, res) => {
    const chunks = []
    req.on('data', (c) => chunks.push(c))
    req.on('end', () => {
      const reply = ({ status, headers = {}, json }) => {
        res.writeHead(status, { 'content-type': 'application/json', ...headers })
        res.end(JSON.stringify(json))
      }
      const raw = Buffer.concat(chunks)
      try {
        if (maxBytes !== undefined && raw.length > maxBytes) throw new Refusal('request too large', 413)
        let body
        try {
          body = raw.length === 0 ? {} : JSON.parse(raw.toString('utf8'))
        } catch {
          throw new Refusal('the request body is not valid JSON')
        }
        requests.push(body)
        reply(route(req, body, raw))
      } catch (e) {
        if (e instanceof Refusal) reply(refuse(e))
        else reply({ status: 500, json: { error: { message: String(e?.stack ?? e) } } })
      }
    })
  })
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    requests,
    close: () => new Promise((resolve) => server.close(resolve)),
  }
}

/** Standard, padded base64 only; null when `s` is anything else. */
export function strictBase64(s) {
  if (typeof s !== 'string' || s.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(s)) return null
  return Buffer.from(s, 'base64')
}

/** `data:<type>;base64,<data>`, split; null when `url` is not one. */
export function parseDataUrl(url) {
  const m = typeof url === 'string' ? /^data:([^;,]*);base64,(.*)$/s.exec(url) : null
  return m ? { mediaType: m[1], data: m[2] } : null
}

/** The media type the bytes' magic says, for the formats the providers take; null otherwise. */
export function sniff(buf) {
  if (buf.length >= 8 && buf[0] === 0x89 && buf.toString('latin1', 1, 4) === 'PNG') return 'image/png'
  if (buf.length >= 3 && buf[0] === 0xff && buf[1] === 0xd8 && buf[2] === 0xff) return 'image/jpeg'
  if (buf.length >= 6 && /^GIF8[79]a$/.test(buf.toString('latin1', 0, 6))) return 'image/gif'
  if (buf.length >= 12 && buf.toString('latin1', 0, 4) === 'RIFF' && buf.toString('latin1', 8, 12) === 'WEBP') return 'image/webp'
  if (buf.length >= 12 && buf.toString('latin1', 0, 4) === 'RIFF' && buf.toString('latin1', 8, 12) === 'WAVE') return 'audio/wav'
  if (buf.length >= 5 && buf.toString('latin1', 0, 5) === '%PDF-') return 'application/pdf'
  if (buf.length >= 3 && (buf.toString('latin1', 0, 3) === 'ID3' || (buf[0] === 0xff && (buf[1] & 0xe0) === 0xe0))) return 'audio/mpeg'
  return null
}

/**
 * Why image bytes cannot be used as `declared` (one of `accepted`), or null:
 * the checks every provider makes before it looks at the pixels. `limits`:
 * `{ maxSide }`; `texts` words the reasons in the provider's way.
 */
export function imageProblem(buf, declared, accepted, { maxSide = Infinity, stillGifOnly = false } = {}) {
  if (!accepted.includes(declared)) return { kind: 'type' }
  if (buf.length === 0) return { kind: 'empty' }
  const actual = sniff(buf)
  if (actual !== declared) return { kind: 'mismatch', actual }
  const info = referenceImageInfo(buf)
  if (!info || info.width === 0 || info.height === 0) return { kind: 'corrupt' }
  if (info.width > maxSide || info.height > maxSide) return { kind: 'pixels', info }
  if (stillGifOnly && declared === 'image/gif' && gifFrames(buf) > 1) return { kind: 'animated' }
  return null
}

export { referenceImageInfo, isPdf }
