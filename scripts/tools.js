'use strict'
// What the build scripts find on this machine, written once: a program on
// PATH, Node's headers and npm's node-gyp next to the running node, and the
// GNU triplet Debian names each architecture's toolchain by. Used by
// build.js (which ships) and prebuild.js.
const fs = require('node:fs')
const path = require('node:path')

// Node's arch names → GNU triplets.
const TRIPLET = Object.freeze({ x64: 'x86_64-linux-gnu', arm64: 'aarch64-linux-gnu' })

// Whether tool (a name, or a path) can be run.
function onPath (tool) {
  if (tool.includes('/')) return fs.existsSync(tool)
  return (process.env.PATH || '').split(path.delimiter).some((d) => {
    try {
      fs.accessSync(path.join(d, tool), fs.constants.X_OK)
      return true
    } catch {
      return false
    }
  })
}

// The installed headers live next to the running node: <prefix>/include/node.
function nodedir () {
  const candidates = [
    process.env.npm_config_nodedir,
    path.resolve(path.dirname(process.execPath), '..'),
    '/usr',
    '/usr/local'
  ].filter(Boolean)
  for (const dir of candidates) {
    if (fs.existsSync(path.join(dir, 'include', 'node', 'node_api.h'))) return dir
  }
  throw new Error('Node.js headers not found (looked for include/node/node_api.h under ' +
    candidates.join(', ') + '); install the nodejs development headers')
}

// npm tells lifecycle scripts where its bundled node-gyp is; otherwise use
// the one bundled with the npm next to this node.
function nodeGyp () {
  const candidates = [
    process.env.npm_config_node_gyp,
    path.resolve(path.dirname(process.execPath), '..', 'lib', 'node_modules', 'npm',
      'node_modules', 'node-gyp', 'bin', 'node-gyp.js')
  ].filter(Boolean)
  for (const file of candidates) if (fs.existsSync(file)) return file
  throw new Error('node-gyp not found: run this through npm (npm run build)')
}

module.exports = { TRIPLET, onPath, nodedir, nodeGyp }
