'use strict'
// Loads the addon (prebuilds first, then build/Release) on first use, and
// finds the launcher executable that was built beside it, with the digest
// its build recorded (read once, when the addon loads: lib/launcher-copy.js
// makes copies only from bytes that match it, whatever the file holds
// later). Requiring this module loads nothing, so the pure-JS exports work
// where the addon cannot load; the first call that needs it throws
// SANDY_ADDON_UNAVAILABLE, naming what is missing.
const fs = require('node:fs')
const path = require('node:path')
const load = require('node-gyp-build')
const { verifiedLauncher, protectedDirs, copyParentIds } = require('./launcher-copy')
const { privatePackageFiles } = require('./package-links')
const { LAUNCHER } = require('./vocabulary')

const root = path.resolve(__dirname, '..')
const LAUNCHER_NAME = LAUNCHER.name
const REBUILD = 'run `npm rebuild sandy-native` (it builds the addon from source when no prebuild fits)'

function addonUnavailable (what, cause) {
  const e = new Error(`the sandy-native addon ${what}; ${REBUILD}`, { cause })
  e.code = 'SANDY_ADDON_UNAVAILABLE'
  return e
}

// Why a found addon would not load, in the loader's words (without the
// path it repeats): a missing shared library is named as such.
function loadFailure (file, err) {
  const said = err.message.startsWith(`${file}: `) ? err.message.slice(file.length + 2) : err.message
  const lib = /^([^\s:]+): cannot open shared object file/.exec(said)
  const why = lib ? `needs the shared library ${lib[1]}, which this system does not have` : `cannot be loaded: ${said}`
  return addonUnavailable(`(${file}) ${why}`, err)
}

// Not cached when it fails: each call says why again (and a rebuild made
// meanwhile is found).
let loaded = null
function loadAddon () {
  if (loaded !== null) return loaded
  let file
  try {
    file = load.resolve(root)
  } catch (err) {
    throw addonUnavailable(`is missing: no prebuild for ${process.platform}-${process.arch} and no build in ${path.join(root, 'build', 'Release')}`, err)
  }
  let addon
  try {
    addon = require(file)
  } catch (err) {
    throw loadFailure(file, err)
  }
  const dir = path.dirname(file)
  loaded = { addon, addonPath: file, launcherDigest: readDigest(dir) }
  return loaded
}

// Throws a clear error when the launcher is missing or not executable: a
// provider without its launcher must fail, never run commands bare.
function launcherPath (dir = path.dirname(loadAddon().addonPath)) {
  const file = path.join(dir, LAUNCHER_NAME)
  try {
    fs.accessSync(file, fs.constants.X_OK)
  } catch (err) {
    const why = err.code === 'ENOENT' ? 'is missing' : 'is not executable'
    const e = new Error(`the sandy launcher ${why} (expected next to the loaded addon, in ${dir}); ` +
      'run `npm rebuild sandy-native`')
    e.code = 'SANDY_LAUNCHER_UNUSABLE'
    throw e
  }
  return file
}

function readDigest (dir = path.dirname(loadAddon().addonPath)) {
  try {
    return fs.readFileSync(path.join(dir, `${LAUNCHER_NAME}.sha256`), 'latin1').trim()
  } catch {
    return null
  }
}

// The launcher every argv starts with: a verified private copy (or the
// shipped file where only root can change it). Throws
// SANDY_LAUNCHER_UNUSABLE like launcherPath(). Every confine comes here.
function verifiedLauncherPath () {
  // (first, once per process: no file of the package shares its inode
  // with a name a confined command could write, lib/package-links.js)
  privatePackageFiles()
  return verifiedLauncher({ source: launcherPath(), digest: loadAddon().launcherDigest, dirs: copyDirs() })
}

// Where this user's copies live (csrc/core/copy_dirs.c), and the directories
// every sandbox of the user keeps read-only: the launcher's and those.
const copyDirs = () => loadAddon().addon.copyDirs(process.geteuid())
const guardedDirs = (launcher) => protectedDirs(launcher, copyDirs())
const copyParents = () => copyParentIds(copyDirs())

// addon, addonPath and launcherDigest load the addon when first read; the
// lib/ modules read binding.addon at call time, never when they load.
module.exports = {
  get addon () { return loadAddon().addon },
  get addonPath () { return loadAddon().addonPath },
  get launcherDigest () { return loadAddon().launcherDigest },
  loadAddon,
  launcherPath,
  readDigest,
  verifiedLauncherPath,
  guardedDirs,
  copyParents
}
