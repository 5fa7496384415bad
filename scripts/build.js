#!/usr/bin/env node
'use strict'
// Builds the addon with node-gyp against the Node headers that are already
// installed, so no header download is ever attempted (the machines this
// runs on may have no network), then, on Linux, the launcher
// (csrc/Makefile's launcher target: static, with musl where musl-tools is
// installed). Used by `npm install` and `npm run build`.
//
// Install skips the build only when a prebuild node-gyp-build will really
// load is present: one for this platform and architecture whose libc tag
// (glibc or musl, node-gyp-build's rule: $LIBC, else musl where
// /etc/alpine-release exists) matches this host's, with the launcher
// beside it. `npm install --build-from-source` (npm_config_build_from_source)
// and --force always build. --explain prints the decision and builds
// nothing.
const fs = require('node:fs')
const path = require('node:path')
const { spawnSync } = require('node:child_process')
const { onPath, nodedir, nodeGyp } = require('./tools')

const root = path.resolve(__dirname, '..')
const fromSource = process.argv.includes('--force') || process.argv.includes('--build-from-source') ||
  ['true', '1'].includes(process.env.npm_config_build_from_source)
const debug = process.argv.includes('--debug')
const explain = process.argv.includes('--explain')

// node-gyp-build's libc rule, so that this decision and its loader agree.
function hostLibc () {
  if (process.platform !== 'linux') return null
  return process.env.LIBC || (fs.existsSync('/etc/alpine-release') ? 'musl' : 'glibc')
}

// A prebuild's libc tag ("sandy.napi.glibc.node"), or null for none: a
// prebuild without one loads on any libc.
function libcTag (file) {
  return file.split('.').find((tag) => tag === 'glibc' || tag === 'musl') || null
}

// Why a build is needed, or null when a loadable prebuild is present.
function buildReason () {
  if (fromSource) return 'asked to build from source'
  const where = `${process.platform}-${process.arch}`
  let files
  try {
    files = fs.readdirSync(path.join(root, 'prebuilds', where))
  } catch {
    return `no prebuild for ${where}`
  }
  const libc = hostLibc()
  const addons = files.filter((f) => f.endsWith('.node') && f.includes('.napi'))
  if (!addons.some((f) => libc === null || [null, libc].includes(libcTag(f)))) {
    return `no prebuild for ${where} with ${libc}`
  }
  if (!files.includes('sandy-launcher') || !files.includes('sandy-launcher.sha256')) return `the ${where} prebuild has no launcher`
  return null
}

// What a build needs besides Node's headers, named with the packages that
// hold it, before node-gyp fails in its own words.
function missingTools () {
  const tools = process.platform === 'linux' ? ['cc', 'make', 'python3'] : ['cc', 'make']
  return tools.filter((tool) => !onPath(tool))
}

const reason = buildReason()
if (explain) {
  console.log(reason === null ? 'skip: a prebuild this host loads is present' : `build: ${reason}`)
  process.exit(0)
}
if (reason === null) process.exit(0)
const missing = missingTools()
if (missing.length > 0) {
  console.error(`sandy-native: building from source (${reason}) needs ${missing.join(', ')} on PATH: ` +
    'install build-essential and python3 (Debian, Ubuntu), build-base, python3 and linux-headers (Alpine), ' +
    'or the Xcode command line tools (macOS); see docs/development.md, "Build and packaging notes"')
  process.exit(1)
}
// configure + build (not rebuild): make stays incremental between builds.
const args = [nodeGyp(), 'configure', 'build', `--nodedir=${nodedir()}`]
if (debug) args.push('--debug')
const r = spawnSync(process.execPath, args, { cwd: root, stdio: 'inherit' })
if (r.status !== 0 || process.platform !== 'linux') process.exit(r.status === null ? 1 : r.status)
// (O relative to csrc/: make splits its target names at spaces, and the
// checkout's path may hold some)
const out = path.join('..', 'build', debug ? 'Debug' : 'Release')
const l = spawnSync('make', ['-s', '--no-print-directory', '-C', 'csrc', 'launcher', `O=${out}`, `VARIANT=${debug ? 'debug' : 'release'}`],
  { cwd: root, stdio: 'inherit' })
process.exit(l.status === null ? 1 : l.status)
