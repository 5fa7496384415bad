#!/usr/bin/env node
'use strict'
// Packs the current build as a prebuild for this platform, the layout
// node-gyp-build loads first: prebuilds/<platform>-<arch>/ holding the
// addon (tagged N-API, so any Node with N-API 8 takes it) and, beside it,
// the launcher and its recorded digest, which lib/binding.js looks for
// next to the loaded addon.
//   node scripts/prebuild.js [PACKAGE_DIR]   (default: this checkout)
const fs = require('node:fs')
const path = require('node:path')

const root = path.resolve(__dirname, '..')
const target = path.resolve(process.argv[2] || root)
const release = path.join(root, 'build', 'Release')
const libc = process.platform === 'linux' ? '.glibc' : ''
const dir = path.join(target, 'prebuilds', `${process.platform}-${process.arch}`)

fs.mkdirSync(dir, { recursive: true })
fs.copyFileSync(path.join(release, 'sandy.node'), path.join(dir, `sandy.napi${libc}.node`))
fs.copyFileSync(path.join(release, 'sandy-launcher'), path.join(dir, 'sandy-launcher'))
fs.chmodSync(path.join(dir, 'sandy-launcher'), 0o755)
// the digest the build recorded: copies of the launcher are made only from
// bytes that match it (lib/launcher-copy.js)
fs.copyFileSync(path.join(release, 'sandy-launcher.sha256'), path.join(dir, 'sandy-launcher.sha256'))
console.log(`prebuild written to ${dir}`)
