'use strict'
// Reading what a caller passed in: own properties only, each read once.
// A polluted Object.prototype (a `runner`, a `sandboxMode`) must never
// configure a sandbox, and a getter must not answer one check and then
// another.

// object[key] if object has it as its own property, else undefined.
function own (object, key) {
  return Object.hasOwn(object, key) ? object[key] : undefined
}

// The known keys' own values of an options object, read once, after
// refusing any unknown own key: a misspelt key would silently fall back to
// a default.
function ownOptions (object, known, what) {
  const unknown = Object.keys(object).find((k) => !known.includes(k))
  if (unknown !== undefined) throw new TypeError(`${what}: unknown key ${JSON.stringify(unknown)}`)
  return Object.fromEntries(known.map((k) => [k, own(object, k)]))
}

module.exports = { own, ownOptions }
