#!/usr/bin/env node
'use strict'
// Builds the addon and the launcher with node-gyp against the Node headers
// that are already installed, so no header download is ever attempted (the
// machines this runs on may have no network). Used by `npm install` (skipped
// when a prebuild for this platform is present) and `npm run build`.
const fs = require('node:fs')
const path = require('node:path')
const { spawnSync } = require('node:child_process')

const root = path.resolve(__dirname, '..')
const force = process.argv.includes('--force')
const debug = process.argv.includes('--debug')

function prebuildPresent () {
  const dir = path.join(root, 'prebuilds', `${process.platform}-${process.arch}`)
  try {
    const files = fs.readdirSync(dir)
    return files.some((f) => f.endsWith('.node')) && files.includes('sandy-launcher') && files.includes('sandy-launcher.sha256')
  } catch {
    return false
  }
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

if (!force && prebuildPresent()) process.exit(0)
// configure + build (not rebuild): make stays incremental between builds.
const args = [nodeGyp(), 'configure', 'build', `--nodedir=${nodedir()}`]
if (debug) args.push('--debug')
const r = spawnSync(process.execPath, args, { cwd: root, stdio: 'inherit' })
process.exit(r.status === null ? 1 : r.status)
