'use strict'
// Loads the addon (prebuilds first, then build/Release) and finds the
// launcher executable that was built beside it.
const fs = require('node:fs')
const path = require('node:path')
const load = require('node-gyp-build')

const root = path.resolve(__dirname, '..')
const LAUNCHER_NAME = 'sandy-launcher'

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
      'reinstall sandy-native or run `npm run build`')
    e.code = 'SANDY_LAUNCHER_UNUSABLE'
    throw e
  }
  return file
}

module.exports = { addon, addonPath, launcherPath }
