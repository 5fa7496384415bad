'use strict'
// An operator's runner (the provider's `runner` option): checked once when
// the provider is created, its program fixed then, and refused at confine
// when a confined command could have written it (THREAT_MODEL.md, "An
// operator's runner given by name").
const fs = require('node:fs')
const path = require('node:path')
const { ancestorIds } = require('./launcher-copy')
const { SandboxUnavailableError } = require('./errors')
const { isWithin, currentDir } = require('./paths')
const { isSignature } = require('./classify')
const { ownOptions, isDense } = require('./own')
const { ENFORCEMENTS } = require('./vocabulary')

const RUNNER_KEYS = Object.freeze(['argv', 'runnerFailureSignatures', 'enforcement', 'denialSignatures'])

// Where a name not found on PATH points: no one can create an entry at
// the top of /proc, so the spawn fails with ENOENT, which
// classifySpawnError reports as the runner failing to start. (Kept bare,
// the name would be looked up at spawn through the spawner's PATH, whose
// empty or relative entries name its working directory: the workspace.)
const NOT_FOUND = '/proc/sandy-native-runner-not-found'

const isArgWord = (w) => typeof w === 'string' && !w.includes('\0')

function checkRunner (runner) {
  if (runner === undefined) return undefined
  if (runner === null || typeof runner !== 'object') throw new TypeError('runner must be an object')
  const { argv, runnerFailureSignatures, enforcement, denialSignatures = [] } = ownOptions(runner, RUNNER_KEYS, 'runner')
  if (!isDense(argv) || argv.length === 0 || !argv.every(isArgWord)) {
    throw new TypeError('runner.argv must be a non-empty array of strings without NUL bytes')
  }
  if (argv[0] === '') throw new TypeError('runner.argv[0] must name a program')
  if (!isDense(runnerFailureSignatures) || runnerFailureSignatures.length === 0 ||
      !runnerFailureSignatures.every(isSignature)) {
    throw new TypeError('runner.runnerFailureSignatures must be a non-empty array of non-empty, single-line strings')
  }
  if (!isDense(denialSignatures) || !denialSignatures.every(isSignature)) {
    throw new TypeError('runner.denialSignatures must be an array of non-empty, single-line strings')
  }
  if (!ENFORCEMENTS.includes(enforcement)) throw new TypeError(`runner.enforcement must be ${ENFORCEMENTS.map((w) => `'${w}'`).join(' or ')}`)
  return Object.freeze({
    argv: Object.freeze([resolveRunner(argv[0]), ...argv.slice(1)]),
    enforcement,
    denialSignatures: Object.freeze([...denialSignatures]),
    runnerFailureRules: Object.freeze([Object.freeze({ fatalSignatures: Object.freeze([...runnerFailureSignatures]) })])
  })
}

// The runner's program, fixed when the provider is created, never looked
// up again at spawn through a PATH or working directory a confined command
// could have changed: a bare name is looked up on PATH (its absolute
// entries) once, a relative path is resolved against the working
// directory; a name that cannot be found points where nothing can be.
function resolveRunner (file) {
  if (path.isAbsolute(file)) return file
  if (file.includes('/')) return path.resolve(currentDir(), file)
  for (const dir of (process.env.PATH ?? '').split(path.delimiter).filter((d) => path.isAbsolute(d))) {
    const candidate = path.join(dir, file)
    try {
      if (fs.statSync(candidate).isFile()) {
        fs.accessSync(candidate, fs.constants.X_OK)
        return candidate
      }
    } catch {}
  }
  return path.join(NOT_FOUND, file)
}

// ---- where a file really is ---------------------------------------------------

const unescapeMountinfo = (s) => s.replace(/\\([0-7]{3})/g, (_, octal) => String.fromCharCode(parseInt(octal, 8)))

// The kernel's mounts (/proc/self/mountinfo): each one's filesystem
// (major:minor), the directory of that filesystem it shows, and where.
function mounts () {
  return fs.readFileSync('/proc/self/mountinfo', 'utf8').split('\n').filter(Boolean).map((line) => {
    const f = line.split(' ')
    return { dev: f[2], root: unescapeMountinfo(f[3]), point: unescapeMountinfo(f[4]) }
  })
}

// A canonical path as its filesystem and the path inside that filesystem,
// through the mount it lies on (the deepest; of mounts stacked on one
// place, the last, which is on top): a bind mount of a workspace's
// subdirectory shows that subdirectory, wherever it is attached.
function placeOf (real, all) {
  let on = null
  for (const m of all) if (isWithin(m.point, real) && (on === null || m.point.length >= on.point.length)) on = m
  return { dev: on.dev, inFs: path.join(on.root, path.relative(on.point, real)) }
}

// The canonical path of file, or of the deepest directory above it that
// exists; a dangling symbolic link is followed to where it points
// (bounded, as the kernel is).
function nearestReal (file, links = 0) {
  try {
    return fs.realpathSync.native(file)
  } catch {}
  let st = null
  try {
    st = fs.lstatSync(file)
  } catch {}
  if (st !== null && st.isSymbolicLink() && links < 40) {
    return nearestReal(path.resolve(path.dirname(file), fs.readlinkSync(file)), links + 1)
  }
  // ('/' always resolves, so this ends there at the latest)
  return nearestReal(path.dirname(file), links)
}

// The canonical directory a path is found in, if it exists (for a
// symbolic link: where the link itself is, which a writer there can
// re-point).
function realDirOf (file) {
  try {
    return fs.realpathSync.native(path.dirname(file))
  } catch {
    return null
  }
}

// Why a confined command with the workspace writable could change the
// runner's program (or what will be there at spawn), or null. By identity:
// the workspace's directory (device and inode) above the program, above
// its directory, or above where a dangling link or a missing path leads;
// the same filesystem place seen through another mount (a bind mount of a
// workspace subdirectory); or a second hard link, which nothing can
// locate, on the workspace's filesystem.
function writableRunner (file, root, rootId) {
  const real = nearestReal(file)
  const places = [real, realDirOf(file)].filter((p) => p !== null)
  let all
  try {
    all = mounts()
  } catch (err) {
    return `cannot be placed (/proc/self/mountinfo: ${err.code})`
  }
  const ws = placeOf(root, all)
  const at = places.map((p) => placeOf(p, all))
  for (const [i, p] of places.entries()) {
    if (ancestorIds(p).has(rootId)) return 'lies inside the writable workspace'
    if (at[i].dev === ws.dev && isWithin(ws.inFs, at[i].inFs)) return 'lies inside the writable workspace (seen through another mount)'
  }
  const st = fs.statSync(real)
  if (st.isFile() && st.nlink > 1 && at[0].dev === ws.dev) return 'has a second hard link on the writable workspace\'s filesystem'
  return null
}

// At confine: a workspace-write call refuses a runner a confined command
// could have written.
function refuseRunner (file, { mode, root, rootId }) {
  if (mode !== 'workspace-write') return
  const why = writableRunner(file, root, rootId)
  if (why !== null) throw new SandboxUnavailableError(`the runner ${why}`, { reasons: [`runner: ${why}`] })
}

module.exports = { checkRunner, refuseRunner, NOT_FOUND }
