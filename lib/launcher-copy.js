'use strict'
// The launcher every confined argv starts with (docs/launcher-copy.md): a
// private copy of the launcher this package shipped, made only from bytes
// that match the digest the build recorded, kept where only its owner can
// change it, and checked again at every confine. Every sandbox makes the
// copy's directory read-only (the launcher protects its own directory in
// the view; bubblewrap's argv binds it read-only), so no confined command
// can replace it for a later run.
//
// A non-root process may use the shipped launcher itself when neither it
// nor any directory above it can be changed by anyone but root (a
// root-owned global install). Root always uses a copy: root can write
// anything, so only the sandboxes' read-only mounts protect it.
const crypto = require('node:crypto')
const fs = require('node:fs')
const path = require('node:path')
const { spawnSync } = require('node:child_process')
const { LAUNCHER } = require('./vocabulary')
const { isWithin } = require('./paths')

const NAME = LAUNCHER.name
const COPY_MODE = 0o555
const MAX_BYTES = 64 * 1024 * 1024
const { O_RDONLY, O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW, O_NONBLOCK, O_DIRECTORY } = fs.constants

function unusable (why, remedy = 'reinstall sandy-native or run `npm rebuild sandy-native`') {
  const e = new Error(`the sandy launcher cannot be used: ${why}; ${remedy}`)
  e.code = 'SANDY_LAUNCHER_UNUSABLE'
  return e
}

// What the host did to a copy directory, in words (the code kept): none of
// these is mended by reinstalling the package.
const HOST_CAUSES = {
  ENOSPC: 'its file system is full',
  EDQUOT: "the user's disk quota there is used up",
  EROFS: 'its file system is read-only',
  EACCES: 'permission denied',
  EMFILE: 'this process has no file descriptor left'
}
const hostCause = (dir, code) => `${dir}: ${HOST_CAUSES[code] ? `${HOST_CAUSES[code]} (${code})` : code}`

// The directories every sandbox of this user keeps read-only and
// unrenamable: the chosen launcher's own, and each of the user's copy
// directories (candidates: csrc/core/copy_dirs.c, best first). A missing one is
// made first, so that a sandbox started now protects it even if another
// process of the user puts a copy there later; one that another user
// squats, or that lies behind a symlink, is no copy directory and is left
// alone (the launcher skips it too).
function protectedDirs (launcher, candidates, euid = process.geteuid()) {
  // (a launcher that is not there yet protects nothing: the spawn fails)
  const dirs = new Set(fs.existsSync(path.dirname(launcher)) ? [path.dirname(launcher)] : [])
  for (const dir of candidates) {
    makeDir(dir, euid)
    if (chainProblem(dir, euid) === null) dirs.add(dir)
  }
  return [...dirs]
}

const idOf = (st) => `${st.dev}:${st.ino}`
const groupOrOtherWrite = (st) => (Number(st.mode) & 0o022) !== 0
const sticky = (st) => (Number(st.mode) & 0o1000) !== 0

// Nobody but root and `owner` can change dir or anything above it: every
// component is a real directory owned by root or owner, and none is
// writable by group or others, unless it is sticky (/tmp) and the entry
// beneath it belongs to root or owner. dir itself must belong to owner.
function chainProblem (dir, owner) {
  let child = null
  for (const p of selfAndAncestors(dir)) {
    let st
    try {
      st = fs.lstatSync(p)
    } catch (err) {
      return `${p}: ${err.code}`
    }
    if (!st.isDirectory()) return `${p} is not a directory`
    if ((p === dir && st.uid !== owner) || (st.uid !== 0 && st.uid !== owner)) return `${p} belongs to uid ${st.uid}`
    if (groupOrOtherWrite(st) && !(sticky(st) && child && (child.uid === 0 || child.uid === owner))) {
      return `${p} is writable by others`
    }
    child = st
  }
  return null
}

// p, its parent, ... up to and including /.
function selfAndAncestors (p) {
  const out = [p]
  while (p !== '/') {
    p = path.dirname(p)
    out.push(p)
  }
  return out
}

// size, times and identity: what any change to the file changes
function keyOf (st) {
  return `${st.dev}:${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}:${st.mode}:${st.uid}:${st.nlink}`
}

// What the copy (or the original) must look like at every confine.
// (st is known to be a regular file: readVerified checked it, and a later
// change of type changes its key.)
function fileProblem (st, owner) {
  if (st.nlink !== 1n) return `${st.nlink} hard links`
  if (Number(st.uid) !== owner) return `owned by uid ${st.uid}`
  if (groupOrOtherWrite(st)) return 'writable by group or others'
  if ((Number(st.mode) & 0o100) === 0) return 'not executable'
  return null
}

// The file's bytes and their digest, read through one descriptor that was
// opened without following a symlink.
function readVerified (file, expected) {
  // (O_NONBLOCK: a FIFO in its place must not hang the caller)
  const fd = fs.openSync(file, O_RDONLY | O_NOFOLLOW | O_NONBLOCK)
  try {
    const st = fs.fstatSync(fd, { bigint: true })
    if (!st.isFile() || st.size > BigInt(MAX_BYTES)) return null
    const bytes = Buffer.alloc(Number(st.size))
    let off = 0
    while (off < bytes.length) {
      const n = fs.readSync(fd, bytes, off, bytes.length - off, off)
      /* c8 ignore next: the file shrank while it was read */
      if (n === 0) return null
      off += n
    }
    const digest = crypto.createHash('sha256').update(bytes).digest('hex')
    return digest === expected ? { bytes, key: keyOf(st) } : null
  } finally {
    fs.closeSync(fd)
  }
}

// Writes a new copy beside the final name and renames it into place, so a
// concurrent reader sees a whole verified file or none.
function install (dir, file, bytes) {
  const tmp = path.join(dir, `.${NAME}.${process.pid}.${crypto.randomBytes(6).toString('hex')}`)
  const fd = fs.openSync(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o700)
  try {
    fs.writeSync(fd, bytes)
    fs.fsyncSync(fd)
    fs.fchmodSync(fd, COPY_MODE)
  /* c8 ignore start: a full or failing disk */
  } catch (err) {
    fs.closeSync(fd)
    fs.rmSync(tmp, { force: true })
    throw err
  }
  /* c8 ignore stop */
  fs.closeSync(fd)
  try {
    fs.renameSync(tmp, file)
  } catch (err) {
    fs.rmSync(tmp, { force: true })
    throw err
  }
}

// The kernel's answer to "does this run here" (noexec mounts): the
// launcher without arguments refuses with its own status (125).
function runs (file) {
  const r = spawnSync(file, [], { stdio: 'ignore', env: {}, timeout: 10000 })
  return !r.error && r.status === LAUNCHER.exitFailure
}

// A state is what this process verified by digest: { file, key, dir,
// dirKey, owner }. It stays valid while the file and its directory look
// exactly as they did then.
function stillValid (s) {
  try {
    const st = fs.lstatSync(s.file, { bigint: true })
    const dir = fs.lstatSync(s.dir)
    return keyOf(st) === s.key && fileProblem(st, s.owner) === null && `${idOf(dir)}:${dir.uid}:${dir.mode}` === s.dirKey &&
      chainProblem(s.dir, s.owner) === null
  } catch {
    return false
  }
}

function settle (file, dir, owner, key) {
  const d = fs.lstatSync(dir)
  return { file, dir, owner, key, dirKey: `${idOf(d)}:${d.uid}:${d.mode}` }
}

// The shipped launcher, when only root can change it and the process is
// not root's.
function original (source, expected, euid) {
  if (euid === 0) return null
  const file = fs.realpathSync(source)
  const dir = path.dirname(file)
  if (chainProblem(dir, 0) !== null) return null
  const got = readVerified(file, expected)
  const st = fs.lstatSync(file, { bigint: true })
  if (got === null || fileProblem(st, 0) !== null || keyOf(st) !== got.key) return null
  return settle(file, dir, 0, got.key)
}

// A copy directory, made when missing; one of the user's own whose mode
// was loosened (the Landlock-only level does not govern chmod) is
// tightened again: every copy in it is verified by its digest before use
// anyway. Returns null, or the error code.
function makeDir (dir, euid) {
  const mode = euid === 0 ? 0o755 : 0o700
  let fd
  try {
    // (the directory alone first, so that a failure says why: a
    // recursive mkdir reads a read-only file system as ENOENT; then its
    // parents, should an image lack /var/cache)
    try {
      fs.mkdirSync(dir, { mode })
    } catch (err) {
      if (err.code === 'ENOENT') fs.mkdirSync(dir, { recursive: true, mode })
      else if (err.code !== 'EEXIST') throw err
    }
    // through a descriptor of the directory itself: a name swapped for a
    // symlink in between is never followed
    fd = fs.openSync(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW)
  } catch (err) {
    return err.code
  }
  try {
    const st = fs.fstatSync(fd)
    if (st.uid === euid && groupOrOtherWrite(st)) fs.fchmodSync(fd, mode)
    return null
  /* c8 ignore next 3: fstat or fchmod of one's own open directory */
  } catch (err) {
    return err.code
  } finally {
    fs.closeSync(fd)
  }
}

// A verified copy in dir, made when missing or wrong; null when dir cannot
// hold one (with the reason pushed to `why`).
function copyIn (dir, source, expected, euid, why) {
  const failed = makeDir(dir, euid)
  if (failed) {
    why.push(hostCause(dir, failed))
    return null
  }
  // (lstat of every component: a symlink anywhere on the way is refused,
  // so the path is canonical, as the launcher expects of it too)
  const problem = chainProblem(dir, euid)
  if (problem !== null) {
    why.push(`${dir}: ${problem}`)
    return null
  }
  const file = path.join(dir, `${NAME}-${expected}`)
  for (let attempt = 0; attempt < 2; attempt++) {
    let got = null
    try {
      got = readVerified(file, expected)
    } catch {}
    const st = got && fs.lstatSync(file, { bigint: true })
    if (got && fileProblem(st, euid) === null && keyOf(st) === got.key) {
      if (!runs(file)) {
        why.push(`${dir}: a program there cannot be executed (noexec mount?)`)
        return null
      }
      return settle(file, dir, euid, got.key)
    }
    if (attempt === 1) break
    let src = null
    try {
      src = readVerified(fs.realpathSync(source), expected)
    } catch (err) {
      throw unusable(`the shipped launcher cannot be read (${err.code})`)
    }
    if (src === null) throw unusable('the shipped launcher does not match the digest recorded when it was built')
    try {
      install(dir, file, src.bytes)
    } catch (err) {
      why.push(hostCause(dir, err.code))
      return null
    }
  }
  why.push(`${dir}: the copy did not verify after it was written`)
  return null
}

let state = null

// The path of a verified launcher (a private copy, or the original where
// only root can change it), checked at every call. Throws
// SANDY_LAUNCHER_UNUSABLE rather than ever return an unverified one.
// dirs: where copies may go, best first (csrc/core/copy_dirs.c's list for euid).
function verifiedLauncher ({ source, digest, dirs }, euid = process.geteuid()) {
  // (the candidates compared by value: each caller builds its list anew)
  if (state && state.source === source && state.digest === digest && state.euid === euid &&
      state.dirs.length === dirs.length && state.dirs.every((d, i) => d === dirs[i]) && stillValid(state.at)) {
    return state.at.file
  }
  if (typeof digest !== 'string' || !/^[0-9a-f]{64}$/.test(digest)) {
    throw unusable('its build recorded no digest (sandy-launcher.sha256)')
  }
  const why = []
  let at = null
  try {
    at = original(source, digest, euid)
  } catch (err) {
    throw unusable(`the shipped launcher cannot be read (${err.code})`)
  }
  for (const dir of at ? [] : dirs) {
    at = copyIn(dir, source, digest, euid, why)
    if (at) break
  }
  if (!at) {
    throw unusable(`no directory can hold a private copy of it (${why.join('; ')})`,
      'make one of them usable (each reason says what is wrong there), or install sandy-native root-owned, where a user other than root runs the shipped launcher in place')
  }
  state = { source, digest, euid, dirs: [...dirs], at }
  return at.file
}

// Device/inode of the file and of every directory above it: a writable
// grant among them could change it (the Landlock-only level has no view
// to make it read-only).
function ancestorIds (file) {
  return new Set(ancestorChain(file).map((a) => a.id))
}

// The same, in order from file up to /, with each path and owner.
function ancestorChain (file) {
  return selfAndAncestors(file).map((p) => {
    const st = fs.statSync(p, { bigint: true })
    return { path: p, id: idOf(st), uid: Number(st.uid) }
  })
}

// Why a writable root (path and "dev:ino") may not be granted with these
// protected directories, or null. The sandboxes protect each directory by
// its path, so the root may not show one under another name (a bind
// mount). landlockOnly: no view at all, so it may not hold one anywhere.
// (That it may not hold a copy directory's parent is copyParentIds'.)
function exposure ({ root, rootId }, protect, landlockOnly) {
  for (const dir of protect) {
    const chain = ancestorChain(dir)
    const at = chain.findIndex((a) => a.id === rootId)
    if (at < 0) continue
    if (landlockOnly) return 'the Landlock-only level cannot protect a launcher copy directory inside the writable workspace'
    if (!isWithin(root, dir)) {
      return 'the writable workspace shows a launcher copy directory under another name (a bind mount)'
    }
  }
  return null
}

// Device/inode of every directory a process could make one of these copy
// directories in, or that holds one: each one's parent (or its nearest
// ancestor that exists, since a missing parent can be made too) and every
// directory above, symlinks followed. None may be writable in a sandbox of
// this user, whether the copy directory exists now or not (the launcher
// refuses the same: csrc/linux/self.c).
function copyParentIds (candidates) {
  const ids = new Set()
  for (const dir of candidates) {
    let parent = path.dirname(dir)
    while (parent !== '/' && !fs.existsSync(parent)) parent = path.dirname(parent)
    for (const id of ancestorIds(fs.realpathSync(parent))) ids.add(id)
  }
  return ids
}

module.exports = { verifiedLauncher, protectedDirs, ancestorIds, copyParentIds, exposure, chainProblem, unusable, NAME }
