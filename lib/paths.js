'use strict'
// Path containment, the JavaScript side's one copy (the C side's is
// sandy_path_within, csrc/core/paths.c, with the same answers).
const path = require('node:path')

// True when `file` is `dir` itself or lies beneath it, compared component
// by component ('/a' holds '/a/b' but not '/ab', and '/a/..b' lies beneath
// '/a'). Both are absolute; they are normalized first ('.', '..', doubled
// and trailing slashes), never looked up on the file system.
function isWithin (dir, file) {
  const d = path.resolve(dir)
  const f = path.resolve(file)
  return f === d || f.startsWith(d === '/' ? d : `${d}/`)
}

module.exports = { isWithin }
