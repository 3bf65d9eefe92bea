// How the reference shows a server's string in a note, as the native
// library does.
import { Buffer } from 'node:buffer'

/** What a server's string may not hold as it is: controls, line separators, brackets, parentheses, bidi controls. */
const NEEDS_ESCAPE = /[\p{Cc}[\]()\u2028\u2029\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/u

/** A server's string in a note: those characters percent-encoded, at most `max` characters as shown, then how many more there were. */
export function server(s, max = 500) {
  const chars = [...s]
  let out = ''
  let width = 0
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i]
    const shown = NEEDS_ESCAPE.test(c) ? [...Buffer.from(c)].map((b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join('') : c
    const w = shown === c ? 1 : shown.length
    if (width + w > max) return `${out}… +${chars.length - i} characters`
    width += w
    out += shown
  }
  return out
}
