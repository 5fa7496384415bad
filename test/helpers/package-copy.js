'use strict'
// This package, installed (copied) into dir/node_modules/sandy-native and
// owned by `owner`: what a project that depends on it holds. Its built
// files come from the loaded build; callers may then break them.
const fs = require('node:fs')
const path = require('node:path')
const { spawnSync } = require('node:child_process')
const { addonPath } = require('../../lib/binding.js')

const ROOT = path.join(__dirname, '..', '..')
const RELEASE = path.dirname(addonPath)

function installPackage (dir, owner) {
  const pkg = path.join(dir, 'node_modules', 'sandy-native')
  fs.mkdirSync(path.join(pkg, 'build', 'Release'), { recursive: true })
  for (const part of ['lib', 'bin']) fs.cpSync(path.join(ROOT, part), path.join(pkg, part), { recursive: true })
  fs.copyFileSync(path.join(ROOT, 'package.json'), path.join(pkg, 'package.json'))
  for (const f of ['sandy.node', 'sandy-launcher', 'sandy-launcher.sha256']) {
    fs.copyFileSync(path.join(RELEASE, f), path.join(pkg, 'build', 'Release', f))
  }
  fs.chmodSync(path.join(pkg, 'build', 'Release', 'sandy-launcher'), 0o755)
  fs.cpSync(path.join(ROOT, 'node_modules', 'node-gyp-build'), path.join(dir, 'node_modules', 'node-gyp-build'), { recursive: true })
  spawnSync('chown', ['-R', `${owner.uid}:${owner.gid}`, path.join(dir, 'node_modules')])
  return pkg
}

module.exports = { installPackage }
