'use strict'
// Loads the addon (prebuilds first, then build/Release) and finds the
// launcher executable that was built beside it, with the digest its build
// recorded (read once, when the package loads: lib/launcher-copy.js makes
// copies only from bytes that match it, whatever the file holds later).
const fs = require('node:fs')
const path = require('node:path')
const load = require('node-gyp-build')
const { verifiedLauncher, protectedDirs } = require('./launcher-copy')
const { LAUNCHER } = require('./vocabulary')

const root = path.resolve(__dirname, '..')
const LAUNCHER_NAME = LAUNCHER.name

const addonPath = load.resolve(root)
const addon = require(addonPath)

// Throws a clear error when the launcher is missing or not executable: a
// provider without its launcher must fail, never run commands bare.
function launcherPath (dir = path.dirname(addonPath)) {
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

function readDigest (dir = path.dirname(addonPath)) {
  try {
    return fs.readFileSync(path.join(dir, `${LAUNCHER_NAME}.sha256`), 'latin1').trim()
  } catch {
    return null
  }
}
const launcherDigest = readDigest()

// The launcher every argv starts with: a verified private copy (or the
// shipped file where only root can change it). Throws
// SANDY_LAUNCHER_UNUSABLE like launcherPath().
function verifiedLauncherPath () {
  return verifiedLauncher({ source: launcherPath(), digest: launcherDigest, dirs: copyDirs() })
}

// Where this user's copies live (csrc/core/copy_dirs.c), and the directories
// every sandbox of the user keeps read-only: the launcher's and those.
const copyDirs = () => addon.copyDirs(process.geteuid())
const guardedDirs = (launcher) => protectedDirs(launcher, copyDirs())

module.exports = { addon, addonPath, launcherPath, readDigest, launcherDigest, verifiedLauncherPath, guardedDirs }
