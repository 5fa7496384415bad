'use strict'
// The files the next Node process runs unconfined: this package's own (its
// JavaScript, its addon, its build files) and node-gyp-build's, which
// loads the addon. A hard link to one of them from a directory a confined
// command can write (pnpm links every file of every install to one store,
// so a project's node_modules shares each inode with every other install)
// lets that command change them through its own name, where no sandbox
// sees the package. A link count above one says nothing by itself (pnpm
// users have it on every file); what counts is a file with other names
// that the confined uid could write. Each such file is made private once
// per process, before the first confine: copied beside itself and renamed
// over its own name, so that this install's name holds an inode of its
// own. Files that cannot be made private (an install the process cannot
// write) are listed for the warnings.
const crypto = require('node:crypto')
const fs = require('node:fs')
const path = require('node:path')

const PACKAGE_ROOT = path.resolve(__dirname, '..')

// Where the code lives: what this package ships (package.json's "files",
// its globs and exclusions aside, package.json itself, and every file at the
// top of build/Release: the addon, the launcher, its recorded digest, and
// any other .node file, since node-gyp-build loads the first it finds
// there), and node-gyp-build's own directory.
function codeRoots () {
  const shipped = require('../package.json').files.filter((f) => !f.startsWith('!') && !f.includes('*'))
  const release = path.join(PACKAGE_ROOT, 'build', 'Release')
  let built = []
  try {
    built = fs.readdirSync(release, { withFileTypes: true }).filter((e) => e.isFile()).map((e) => path.join('build', 'Release', e.name))
  /* c8 ignore next: an install from a prebuild has no build/Release */
  } catch {}
  const roots = ['package.json', ...built, ...shipped].map((f) => path.join(PACKAGE_ROOT, f))
  try {
    roots.push(path.dirname(require.resolve('node-gyp-build/package.json')))
  /* c8 ignore next: a dependency of the package, always installed with it */
  } catch {}
  return roots.filter((r) => fs.existsSync(r)).map((r) => fs.realpathSync(r))
}

const NOT_WALKED = new Set(['node_modules', '.git'])

// root itself when a file, else the regular files beneath it, not
// descending into node_modules (other packages) or .git. (One that goes
// while it is read is not there.)
function filesOf (dir, out = []) {
  let entries = []
  try {
    if (!fs.lstatSync(dir).isDirectory()) {
      out.push(dir)
      return out
    }
    entries = fs.readdirSync(dir, { withFileTypes: true })
  } catch {}
  for (const e of entries) {
    if (NOT_WALKED.has(e.name)) continue
    const p = path.join(dir, e.name)
    if (e.isDirectory()) filesOf(p, out)
    else if (e.isFile()) out.push(p)
  }
  return out
}

// A process of uid could write st: root, its owner, or anyone where group
// or others may write.
const writableBy = (st, uid) => uid === 0 || st.uid === uid || (st.mode & 0o022) !== 0

// file, with other names, replaced by a copy of its own: the same bytes
// and mode, written beside it and renamed over it.
function makePrivate (file, st) {
  const tmp = path.join(path.dirname(file), `.${path.basename(file)}.sandy-${process.pid}-${crypto.randomBytes(6).toString('hex')}`)
  try {
    fs.copyFileSync(file, tmp, fs.constants.COPYFILE_EXCL)
    fs.chmodSync(tmp, st.mode & 0o7777)
    fs.renameSync(tmp, file)
  } catch (err) {
    fs.rmSync(tmp, { force: true })
    throw err
  }
}

// The files beneath roots made private for uid: { made, left } (left: the
// files that keep other names uid could write through).
function makePrivateFiles (roots, uid) {
  const made = []
  const left = []
  for (const root of roots) {
    for (const file of filesOf(root, [])) {
      let st
      try {
        st = fs.lstatSync(file)
      /* c8 ignore next 3: the file went between the listing and this lstat */
      } catch {
        continue
      }
      if (!st.isFile() || st.nlink <= 1 || !writableBy(st, uid)) continue
      try {
        makePrivate(file, st)
        made.push(file)
      } catch {
        left.push(file)
      }
    }
  }
  return Object.freeze({ made: Object.freeze(made), left: Object.freeze(left) })
}

let result = null

// This install's files, once per process.
function privatePackageFiles (uid = process.geteuid()) {
  if (result === null) result = makePrivateFiles(codeRoots(), uid)
  return result
}

// The warning, when some files keep their other names.
function linkWarnings ({ left }) {
  if (left.length === 0) return []
  return [`${left.length} of sandy-native's files (or node-gyp-build's) have other names, as a pnpm store gives them, and could not be made ` +
    'private to this install: a confined command that can write one of those names changes what the next Node process runs; ' +
    'install the package with copied files (pnpm: package-import-method=copy) or root-owned']
}

module.exports = { privatePackageFiles, makePrivateFiles, linkWarnings }
