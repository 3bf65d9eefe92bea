'use strict'
// How the JS files read objects a caller gave and write objects they made,
// whatever a caller or another library did to Object.prototype and
// Array.prototype: inherited properties are never read, no setter found on a
// prototype ever runs, and the built-ins used are the ones captured at load.

const ObjectHasOwn = Object.hasOwn
const ObjectDefineProperty = Object.defineProperty
const TypeErrorConstructor = TypeError

/** A TypeError with the stable code INVALID_ARGUMENT. */
function invalidArgument(message) {
  const error = new TypeErrorConstructor(message)
  ObjectDefineProperty(error, 'code', { value: 'INVALID_ARGUMENT', writable: true, enumerable: true, configurable: true })
  return error
}

/** `object[key]` when it is the object's own property; inherited ones are ignored. */
function own(object, key) {
  return ObjectHasOwn(object, key) ? object[key] : undefined
}

/** Set a field of an object made here: defined, with a null-prototype descriptor, so no inherited `get` or setter plays a part. */
function setField(object, key, value) {
  ObjectDefineProperty(object, key, /** @type {PropertyDescriptor} */ ({ __proto__: null, value, writable: true, enumerable: true, configurable: true }))
}

/** Append to an array made here, whatever setters Array.prototype has. */
function append(list, value) {
  ObjectDefineProperty(list, list.length, /** @type {PropertyDescriptor} */ ({ __proto__: null, value, writable: true, enumerable: true, configurable: true }))
}

module.exports = { invalidArgument, own, setField, append }
