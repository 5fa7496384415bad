'use strict'
// Reading what a caller passed in, never through Object.prototype: a
// polluted prototype (a `runner`, a `sandboxMode`, a `cwd`) must never
// configure a sandbox. Properties of the object itself and of its own
// classes (a dsh Session's getters) are read, each once.

// object[key] if object or a prototype of its own below Object.prototype
// has it, else undefined.
function own (object, key) {
  for (let o = object; o !== null && o !== Object.prototype; o = Object.getPrototypeOf(o)) {
    if (Object.hasOwn(o, key)) return object[key]
  }
  return undefined
}

// The known keys' values of an options object, read once, after refusing
// any unknown own key: a misspelt key would silently fall back to a
// default.
function ownOptions (object, known, what) {
  const unknown = Object.keys(object).find((k) => !known.includes(k))
  if (unknown !== undefined) throw new TypeError(`${what}: unknown key ${JSON.stringify(unknown)}`)
  return Object.fromEntries(known.map((k) => [k, own(object, k)]))
}

// An array every index of which is its own: a hole would be read through
// Array.prototype and Object.prototype (and every(), some() skip holes, so
// a checked array could still hand one on).
function isDense (array) {
  if (!Array.isArray(array)) return false
  for (let i = 0; i < array.length; i++) if (!Object.hasOwn(array, i)) return false
  return true
}

module.exports = { own, ownOptions, isDense }
