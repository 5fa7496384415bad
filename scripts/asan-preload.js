'use strict'
// Loaded with --require into every node process of the sanitizer run.
// node itself is not instrumented, so the ASan/UBSan runtimes are preloaded
// for the sanitized addon's sake, and must reach the node processes the
// tests start (which load the addon too) but no other program: confined
// commands cannot even read /proc/self/maps, which the runtimes need.
// So LD_PRELOAD leaves this process's environment, and child_process adds
// it back only for children whose command line runs this node.
const childProcess = require('node:child_process')
const { syncBuiltinESMExports } = require('node:module')

const preload = process.env.LD_PRELOAD
delete process.env.LD_PRELOAD

function withPreload (file, args, options) {
  const words = [file, ...(Array.isArray(args) ? args : [])]
  const opts = Array.isArray(args) ? options : args
  if (!preload || !words.includes(process.execPath)) return [file, args, options]
  const env = { ...((opts && opts.env) || process.env), LD_PRELOAD: preload }
  return Array.isArray(args) ? [file, args, { ...opts, env }] : [file, { ...opts, env }, options]
}

for (const name of ['spawn', 'spawnSync', 'execFile', 'execFileSync']) {
  const original = childProcess[name]
  childProcess[name] = function (file, args, options, ...rest) {
    return original.call(this, ...withPreload(file, args, options), ...rest)
  }
}
// tap is an ES module: its imports of child_process see the patch too.
syncBuiltinESMExports()
