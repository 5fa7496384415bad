'use strict'
// True when `file` is `dir` itself or lies beneath it (absolute, canonical
// paths).
const path = require('node:path')

function isWithin (dir, file) {
  const rel = path.relative(dir, file)
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel))
}

module.exports = { isWithin }
