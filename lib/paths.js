'use strict'
// Path containment, the JavaScript side's one copy (the C side's is
// sandy_path_within, csrc/core/paths.c: both answer the rows of
// test/fixtures/containment-cases.json, which says where their contracts
// part), and the working directory as the kernel has it.
const fs = require('node:fs')
const path = require('node:path')

// The process's working directory, asked of the kernel each time. Node's
// process.cwd() is cached until process.chdir(), so once a command renames
// the directory and leaves a symlink at the old name, it names the link's
// target while the kernel's cwd is the moved directory: a relative grant, a default workspace root, would then cover
// whatever the command pointed the link at.
function currentDir () {
  return fs.realpathSync.native('.')
}

// True when `file` is `dir` itself or lies beneath it, compared component
// by component ('/a' holds '/a/b' but not '/ab', and '/a/..b' lies beneath
// '/a'). Both are absolute; they are normalized first ('.', '..', doubled
// and trailing slashes), never looked up on the file system.
function isWithin (dir, file) {
  const d = path.resolve(dir)
  const f = path.resolve(file)
  return f === d || f.startsWith(d === '/' ? d : `${d}/`)
}

module.exports = { isWithin, currentDir }
