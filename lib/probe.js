'use strict'
// The host probe, run once per process (it spawns short-lived children) and
// cached; callers get a deep copy so the cache cannot be edited.
const { addon } = require('./binding')

let cached = null

function probe () {
  if (cached === null) cached = addon.probe()
  return structuredClone(cached)
}

module.exports = { probe }
