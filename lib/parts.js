'use strict'
// The one reader of MCP content parts: each field is read once, as an own
// property, into a model part (plain text), a Media (data native code
// converts) or a LongText (a text the cap may cut); null for a part not
// meant for the model.

const native = require('./native.js')
const { invalidArgument, own, append } = require('./own-objects.js')
const { privateData } = require('./data.js')
const { textPart, isShortText, textOrLong } = require('./text.js')

const ObjectHasOwn = Object.hasOwn
const ObjectGetPrototypeOf = Object.getPrototypeOf
const ObjectPrototype = Object.prototype
const ArrayIsArray = Array.isArray

/** A part whose data native code converts. */
class Media {
  constructor(kind, data, mimeType, uri) {
    this.kind = kind
    this.data = privateData(data)
    this.mimeType = mimeType
    this.uri = uri
  }
}

/** MCP `annotations.audience`: for the model unless it leaves "assistant" out. */
function isForModel(part) {
  const annotations = 'annotations' in part && ObjectHasOwn(part, 'annotations') ? part.annotations : undefined
  if (annotations === null || typeof annotations !== 'object') return true
  const audience = own(annotations, 'audience')
  if (!ArrayIsArray(audience)) return true
  // Its roles as read (own elements that are strings), for the core's rule.
  const roles = []
  for (let i = 0; i < audience.length; i++) {
    const role = ObjectHasOwn(audience, i) ? audience[i] : undefined
    if (typeof role === 'string') append(roles, role)
  }
  return native.isForModel(roles)
}

function stringField(value, name) {
  if (value === undefined || value === null) return ''
  if (typeof value !== 'string') throw invalidArgument(`\`${name}\` must be a string`)
  return value
}

/** The answer for a part (a model part or null), or the Media or LongText to convert. */
function readPart(part, options) {
  if (part === null || typeof part !== 'object') throw invalidArgument('a content part must be an object with a `type`')
  // Own properties, read so that a plain text part (the commonest) costs no
  // more than a hand-written `{ type: 'text', text: part.text }`. This
  // function is small enough to be inlined (other types are read in
  // readOtherPart); each read is named (each site keeps its own inline
  // cache); and a part whose prototype is an Object.prototype without the
  // key is read with no Object.hasOwn call (a call, where these checks fold
  // to shape checks in optimized code): there `part.type` can only read an
  // own property. The `in` check first gives the engine the part's shape,
  // so the prototype check after it folds to a constant; a part with no
  // annotations, own or inherited, is for the model.
  const plain = !('annotations' in part) && ObjectGetPrototypeOf(part) === ObjectPrototype
  if (!plain && !isForModel(part)) return null
  const type = (plain && !('type' in ObjectPrototype)) || ObjectHasOwn(part, 'type') ? part.type : undefined
  if (type !== 'text') return readOtherPart(part, type, options)
  const text = (plain && !('text' in ObjectPrototype)) || ObjectHasOwn(part, 'text') ? part.text : undefined
  if (typeof text === 'string' && isShortText(text, options)) return { type: 'text', text }
  return textOrLong('', stringField(text, 'text'), undefined, options)
}

/** readPart for any type but text. */
function readOtherPart(part, type, options) {
  switch (type) {
    case 'image':
    case 'audio':
      return new Media(type, own(part, 'data'), own(part, 'mimeType'), undefined)
    case 'media':
      return new Media(type, own(part, 'data'), own(part, 'mimeType'), own(part, 'uri'))
    case 'resource': {
      const resource = own(part, 'resource')
      if (resource === null || typeof resource !== 'object') return textPart(native.missingResourceText())
      const uri = own(resource, 'uri')
      const mimeType = own(resource, 'mimeType')
      const text = own(resource, 'text')
      if (text === undefined || text === null) return new Media(type, own(resource, 'blob'), mimeType, uri)
      return textOrLong(native.embeddedTextHeader(uri, mimeType), stringField(text, 'text'), mimeType, options, uri)
    }
    case 'resource_link':
      return textPart(native.resourceLinkText(own(part, 'uri'), own(part, 'name'), own(part, 'mimeType'), own(part, 'size'), own(part, 'description')))
    default:
      return textPart(native.unsupportedPartText(type))
  }
}

module.exports = { Media, isForModel, readPart }
