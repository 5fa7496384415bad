'use strict'
// Loaded with --require into every node process of the sanitizer run.
// node itself is not instrumented, so the ASan/UBSan runtimes are preloaded
// for the sanitized addon's sake, and must reach the node processes the
// tests start (which load the addon too) but no other program: confined
// commands cannot even read /proc/self/maps, which the runtimes need.
// So LD_PRELOAD leaves this process's environment, and child_process adds
// it back only for children whose command line runs node (inserting this
// file after node, so that it holds there too even when NODE_OPTIONS is
// dropped on the way, as `env -u NODE_OPTIONS node ...` does).
const fs = require('node:fs')
const childProcess = require('node:child_process')
const { syncBuiltinESMExports } = require('node:module')

const preload = process.env.LD_PRELOAD
delete process.env.LD_PRELOAD

// A script run through `#!/usr/bin/env node` (bin/sandy).
function isNodeScript (word) {
  try {
    const head = Buffer.alloc(64)
    // (without blocking: an argument may name a FIFO, whose open for
    // reading waits for a writer)
    const fd = fs.openSync(word, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK)
    let n = 0
    try {
      if (fs.fstatSync(fd).isFile()) n = fs.readSync(fd, head, 0, 64, 0)
    } finally {
      fs.closeSync(fd)
    }
    const line = head.subarray(0, n).toString('latin1').split('\n')[0]
    return line.startsWith('#!') && /\bnode\b/.test(line)
  } catch {
    return false
  }
}

// (file, [args], [options], ...callbacks) -> the same, for the original.
function withPreload (file, params) {
  const args = Array.isArray(params[0]) ? params.shift() : []
  const opts = params[0] !== null && typeof params[0] === 'object' ? params.shift() : {}
  const words = [file, ...args]
  const at = words.indexOf(process.execPath)
  if (preload && (at >= 0 || words.some(isNodeScript))) {
    if (at >= 0) words.splice(at + 1, 0, '--require', __filename)
    return [words[0], words.slice(1), { ...opts, env: { ...(opts.env || process.env), LD_PRELOAD: preload } }, ...params]
  }
  return [file, args, opts, ...params]
}

for (const name of ['spawn', 'spawnSync', 'execFile', 'execFileSync']) {
  const original = childProcess[name]
  childProcess[name] = function (file, ...params) {
    return original.call(this, ...withPreload(file, params))
  }
}
// tap is an ES module: its imports of child_process see the patch too.
syncBuiltinESMExports()
