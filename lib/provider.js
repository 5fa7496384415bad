'use strict'
// The seam's local provider: arbitrates once between the backends this host
// can really use, then confines each call under that call's own policy.
// confine() is synchronous, touches no provider state after the first call,
// and never hands back the caller's argv unconfined.
const fs = require('node:fs')
const path = require('node:path')
const binding = require('./binding')
const { ancestorIds, exposure } = require('./launcher-copy')
const { probe: hostProbe } = require('./probe')
const { SandboxUnavailableError } = require('./errors')
const { isWithin } = require('./paths')
const { seatbeltArgv } = require('./seatbelt')
const { privatePackageFiles, linkWarnings } = require('./package-links')
const { own, ownOptions, isDense } = require('./own')
const { checkRunner, refuseRunner } = require('./runner')
const { newNonce, launcherRules, checkArgv, checkArgvSize } = require('./launcher-protocol')
const { BACKENDS, CONFINED_MODES, UNCONFINED_MODE, LAUNCHER } = require('./vocabulary')
const { PRESET_NAMES, DEFAULT_PRESETS, MAX_PROTECTED, ProtectError, protectedPaths } = require('./protect')
const { PROTECTION_NAMES, DEFAULT_PROTECTIONS, ProtectWriteError, protectedWrites, homesHeld } = require('./protect-writes')

const quoted = (words) => words.map((w) => `'${w}'`).join(' or ')

// ---- argument checks --------------------------------------------------------

const OPTION_KEYS = Object.freeze(['backend', 'runner', 'writableRoots', 'protect', 'denyRead', 'keepEnv', 'protectWrites', 'allowHomeWorkspace'])

// The secret variables' names one call may keep (csrc/core/secret_env.h).
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,254}$/

function checkOptions (options) {
  if (options === null || typeof options !== 'object') throw new TypeError('options must be an object')
  const given = ownOptions(options, OPTION_KEYS, 'options')
  const runner = checkRunner(given.runner)
  const backend = given.backend ?? (runner ? 'runner' : 'auto')
  if (backend !== 'auto' && backend !== 'runner' && !BACKENDS.includes(backend)) {
    throw new RangeError(`backend must be one of auto, ${BACKENDS.join(', ')}, runner`)
  }
  if (backend === 'runner' && !runner) throw new TypeError("backend 'runner' needs options.runner")
  const writableRoots = checkWritableRoots(given.writableRoots)
  if (runner && writableRoots.length > 0) throw new TypeError('options.writableRoots cannot go with options.runner, which confines by its own rules')
  const shield = checkShield(given)
  if (runner && shield.given) throw new TypeError('options.protect, denyRead, keepEnv, protectWrites and allowHomeWorkspace cannot go with options.runner, which confines by its own rules')
  return { backend, runner, writableRoots, shield }
}

// What a call protects beyond its mode (docs/protected-reads.md): presets
// (default both), paths the caller names, secret variables it keeps.
// asked: the caller chose presets or named paths, so a backend that
// cannot hold them all refuses instead of running without them.
function checkShield ({ protect, denyRead, keepEnv, protectWrites, allowHomeWorkspace }) {
  const list = (v, what, max, ok, many, one) => {
    if (v === undefined) return []
    if (!isDense(v) || v.length > max) throw new TypeError(`options.${what} must be an array of at most ${max} ${many}`)
    v.forEach((x, i) => { if (!ok(x)) throw new TypeError(`options.${what}[${i}] must be ${one}`) })
    return Object.freeze([...new Set(v)])
  }
  const names = PRESET_NAMES.join(', ')
  return Object.freeze({
    presets: protect === undefined
      ? DEFAULT_PRESETS
      : list(protect, 'protect', PRESET_NAMES.length, (x) => PRESET_NAMES.includes(x), `preset names (${names})`, `a preset name (${names})`),
    denyRead: list(denyRead, 'denyRead', MAX_PROTECTED, (x) => isPathString(x) && path.isAbsolute(x), 'absolute paths', 'an absolute path string'),
    keepEnv: list(keepEnv, 'keepEnv', LAUNCHER.keepEnvMax, (x) => typeof x === 'string' && ENV_NAME.test(x), 'variable names', 'a variable name'),
    asked: protect !== undefined || denyRead !== undefined,
    // (docs/protected-writes.md)
    writes: protectWrites === undefined
      ? DEFAULT_PROTECTIONS
      : list(protectWrites, 'protectWrites', PROTECTION_NAMES.length, (x) => PROTECTION_NAMES.includes(x), `protection names (${PROTECTION_NAMES.join(', ')})`, `a protection name (${PROTECTION_NAMES.join(', ')})`),
    writesAsked: protectWrites !== undefined && protectWrites.length > 0,
    allowHome: checkAllowHome(allowHomeWorkspace),
    given: protect !== undefined || denyRead !== undefined || keepEnv !== undefined || protectWrites !== undefined || allowHomeWorkspace !== undefined
  })
}

function checkAllowHome (v) {
  if (v !== undefined && typeof v !== 'boolean') throw new TypeError('options.allowHomeWorkspace must be a boolean')
  return v === true
}

function isPathString (p) {
  return typeof p === 'string' && p !== '' && !p.includes('\0') && p.isWellFormed()
}

// The operator's directories writable beside each workspace-write
// workspace: absolute paths, resolved at each confine.
function checkWritableRoots (roots) {
  if (roots === undefined) return []
  const max = LAUNCHER.writableRootsMax
  if (!isDense(roots) || roots.length > max) throw new TypeError(`options.writableRoots must be an array of at most ${max} paths`)
  roots.forEach((r, i) => {
    if (!isPathString(r) || !path.isAbsolute(r)) throw new TypeError(`options.writableRoots[${i}] must be an absolute path string`)
  })
  return Object.freeze([...roots])
}

// A directory that is to be a workspace or a writable root, resolved once:
// canonical (bind mounts and Landlock act on the real directory) with the
// object it names. Throws the error `fail` makes of why, never the path.
// None lies on a kernel filesystem, whose files are kernel settings and
// devices rather than data (the C core's rule, csrc/core/kernel_fs.h).
function resolveDirectory (dir, fail) {
  let root, st
  try {
    root = fs.realpathSync.native(dir)
    st = fs.statSync(root, { bigint: true })
  } catch (err) {
    throw fail(`cannot be resolved (${err.code})`, err.code)
  }
  if (!st.isDirectory()) throw fail('is not a directory')
  // (an error here, ESANDYFS, is the host's: its mount table unreadable)
  if (binding.addon.onKernelFilesystem(Buffer.from(root))) throw fail('lies on a kernel filesystem (/proc, /sys, /dev and the like)')
  return { root, rootId: `${st.dev}:${st.ino}` }
}

// The seam's SandboxPolicy: a confining mode and an existing absolute root,
// returned canonical.
function checkPolicy (policy) {
  if (policy === null || typeof policy !== 'object') throw new TypeError('policy must be an object')
  const mode = own(policy, 'mode')
  const workspaceRoot = own(policy, 'workspaceRoot')
  if (!CONFINED_MODES.includes(mode)) {
    throw new RangeError(`policy.mode must be ${quoted(CONFINED_MODES)}` +
      (mode === UNCONFINED_MODE ? ` (a '${UNCONFINED_MODE}' caller spawns its argv itself)` : ''))
  }
  if (!isPathString(workspaceRoot)) throw new TypeError('policy.workspaceRoot must be a non-empty path string')
  if (!path.isAbsolute(workspaceRoot)) throw new TypeError('policy.workspaceRoot must be an absolute path')
  const { root, rootId } = resolveDirectory(workspaceRoot, (why) => new RangeError(`policy.workspaceRoot ${why}`))
  if (mode === 'workspace-write' && root === '/') throw new RangeError('a workspace root of / would make everything writable')
  return { mode, root, rootId }
}

// Why a writable root may not be one (a RangeError naming its index and
// carrying { index, why } for the CLI, which names the path).
function writableRootError (index, why) {
  return Object.assign(new RangeError(`options.writableRoots[${index}] ${why}`), { writableRoot: { index, why } })
}

// The sandbox's own temp area, private to each workspace-write run (/dev/shm
// lies on a kernel filesystem, refused as such).
const PRIVATE_TEMP = '/tmp'

// This call's writable roots beside the workspace, canonical with their
// objects: none unless workspace-write; one that does not exist (a cache
// not made yet) is left out, as the facts then show; a duplicate or the
// workspace itself is given once. Refused: /, the private temp areas, and
// any directory that holds a launcher copy directory (protect), compared
// by device and inode: a confined command could change the launcher of a
// later run there.
function resolveWritableRoots (roots, { mode, root: workspace }, protect, parents) {
  if (mode !== 'workspace-write' || roots.length === 0) return []
  const out = []
  // (asked once for all the roots)
  const temp = ancestorIds(PRIVATE_TEMP)
  const copies = protect.map((d) => ancestorIds(d))
  roots.forEach((dir, i) => {
    let r
    try {
      r = resolveDirectory(dir, (why, code) => Object.assign(writableRootError(i, why), { code }))
    } catch (err) {
      if (err.code === 'ENOENT') return
      throw err
    }
    // by device and inode: a bind mount shows the same directory elsewhere
    if (r.root === '/') throw writableRootError(i, 'is /, which would make everything writable')
    if (temp.has(r.rootId)) throw writableRootError(i, 'is a temp area the sandbox makes private to each run')
    if (parents.has(r.rootId)) throw writableRootError(i, 'holds the parent of a launcher copy directory (a confined command could make it, with its own program in it)')
    if (copies.some((above) => above.has(r.rootId))) throw writableRootError(i, "holds the launcher's copy (a confined command could change a later run's launcher)")
    if (r.root !== workspace && !out.some((o) => o.root === r.root)) out.push({ ...r, index: i })
  })
  return out
}

// ---- arbitration ------------------------------------------------------------

// A verified launcher (lib/launcher-copy.js), looked at again at every
// confine: its canonical path goes into the argv.
function launcherCheck () {
  try {
    return { ok: true, path: binding.verifiedLauncherPath() }
  } catch (err) {
    return { ok: false, why: err.message }
  }
}

// Every candidate in the design's order, usable or not, and why.
function arbitrate ({ backend, runner }) {
  const host = hostProbe()
  const launcher = launcherCheck()
  const candidates = BACKENDS.map((name) => {
    const v = host.backends[name]
    const held = protectionsOf(name)
    const c = { name, usable: v.usable, enforcement: v.enforcement, reason: v.usable ? v.reason + unheldNote(held) + REPLACED_NOTE[held.replaced] : v.reason, protections: held }
    // every Linux backend runs the launcher: as itself, or as bwrap's
    // descriptor guard
    if (c.usable && name !== 'seatbelt' && !launcher.ok) {
      Object.assign(c, { usable: false, enforcement: null, reason: launcher.why })
    }
    return Object.freeze(c)
  })
  if (runner) {
    candidates.push(Object.freeze({ name: 'runner', usable: true, enforcement: runner.enforcement, reason: 'operator-configured runner' }))
  }
  const pick = backend === 'auto'
    ? candidates.find((c) => c.usable)
    : candidates.find((c) => c.name === backend && c.usable)
  return Object.freeze({
    requested: backend,
    selected: pick ? pick.name : null,
    candidates: Object.freeze(candidates),
    host,
    launcher: launcher.ok ? launcher.path : null,
    launcherProblem: launcher.ok ? null : launcher.why
  })
}

function unavailable (report) {
  const reasons = report.candidates.map((c) => `${c.name}: ${c.usable ? 'usable' : c.reason}`)
  const what = report.requested === 'auto' ? 'no usable sandbox backend on this host' : `the ${report.requested} backend is not usable on this host`
  // (the launcher every Linux backend needs, when that is what failed:
  // named in the message itself, not only among the reasons)
  if (report.launcherProblem) return new SandboxUnavailableError(`${what}: ${report.launcherProblem}`, { reasons })
  return new SandboxUnavailableError(what, { reasons })
}

// ---- per-backend argv -------------------------------------------------------

function nativeDialect (name) {
  const d = binding.addon.backendDialect(name)
  return {
    denialSignatures: Object.freeze(d.denialSignatures),
    runnerFailureRules: Object.freeze(d.runnerFailureRules.map((r) => Object.freeze(r)))
  }
}

// ---- protections ------------------------------------------------------------

// What keeps each protection on a backend (csrc/backends/): a mechanism
// word, or null where it cannot be kept.
const protectionsOf = (name) => Object.freeze({ ...binding.addon.backendDialect(name).protections })

// Each preset's kind of object: credentials are read, host sockets are
// connected to.
const PRESET_KIND = Object.freeze({ credentials: 'files', 'host-sockets': 'sockets' })

// The presets and kinds a backend does not keep, as the note its verdict
// carries ('' when it keeps them all).
function unheldNote (held) {
  const missing = [...Object.entries(PRESET_KIND).filter(([, k]) => held[k] === null).map(([p]) => p),
    ...(held.environment === null ? ['secret variables'] : [])]
  return (missing.length === 0 ? '' : `; it does not keep ${missing.join(', ')} out of reach`) +
    (held.writes === null ? "; it does not keep git's hooks and config or a home's start-up files read-only (protected writes)" : '')
}

// What the verdict says of a denied path the host replaces during a run
// (docs/deny-durability.md), by the backend's word for it.
const REPLACED_NOTE = Object.freeze({
  watch: '; a protected path the host replaces during a run ends the run (watched: a window of one signal and a kill remains)',
  seatbelt: '; its deny rules name paths, whatever object the host puts there'
})

// This call's protected paths on the candidate's backend, by what its
// verdict says it keeps (lib/protect.js's objects), with the kinds it cannot keep dropped when the caller chose the
// defaults and refused when the caller asked for them (a request a
// backend cannot honour is never dropped silently).
function protectedReads ({ name, protections: held }, shield) {
  const refuse = (what) => new SandboxUnavailableError(`the ${name} backend cannot keep ${what} out of reach`, { reasons: [`${name}: protections it cannot keep were asked for`] })
  // (a preset the backend does not keep is not even looked for: what it
  // would find could only refuse the call)
  const unkept = shield.presets.find((p) => held[PRESET_KIND[p]] === null)
  if (unkept !== undefined && shield.asked) throw refuse(`the ${unkept} preset`)
  const presets = shield.presets.filter((p) => held[PRESET_KIND[p]] !== null)
  let found
  try {
    found = protectedPaths({ presets, denyRead: shield.denyRead })
  } catch (err) {
    // (anything else is a fault of this code, passed on as it is)
    /* c8 ignore next */
    if (!(err instanceof ProtectError)) throw err
    if (err.input) throw new RangeError(err.message)
    throw new SandboxUnavailableError(err.message, { reasons: [`${name}: ${err.message}`] })
  }
  if (found.some((f) => f.source === 'denyRead' && (f.socket ? held.sockets : held.files) === null)) throw refuse('a socket options.denyRead names')
  return found
}

// A workspace-write root that is or holds the home of the uid commands run
// as is refused unless the caller accepted the risk (allowHomeWorkspace):
// every start-up file, PATH directory and agent of the user would be
// writable, and not all of them can be named (docs/protected-writes.md).
const HOME_RISK = 'is or holds the home directory: a confined command could plant what the user runs later (shell start-up files, autostart entries, commands on the PATH); pass allowHomeWorkspace: true (--allow-home) to accept that risk'

function refuseHomes (policy, writable, shield) {
  if (policy.mode !== 'workspace-write' || shield.allowHome) return
  if (homesHeld(policy.root, policy.rootId).length > 0) throw new RangeError(`policy.workspaceRoot ${HOME_RISK}`)
  writable.forEach((w) => {
    if (homesHeld(w.root, w.rootId).length > 0) throw writableRootError(w.index, HOME_RISK)
  })
}

// This call's protected writes on the candidate's backend
// (lib/protect-writes.js's { kept, watched }): none outside workspace-write; where
// the backend cannot keep them, dropped with the defaults (its verdict's
// reason says so) and refused when the caller asked for them.
function protectedWritesOf ({ name, protections: held }, shield, policy, writable) {
  const none = { kept: [], watched: [] }
  if (policy.mode !== 'workspace-write' || shield.writes.length === 0) return none
  if (held.writes === null) {
    if (shield.writesAsked) throw new SandboxUnavailableError(`the ${name} backend cannot keep protected writes read-only`, { reasons: [`${name}: protections it cannot keep were asked for`] })
    return none
  }
  try {
    // (Seatbelt's allow covers the mounts beneath the workspace too)
    return protectedWrites(shield.writes, [policy, ...writable], process.env, { crossMounts: name === 'seatbelt' })
  } catch (err) {
    /* c8 ignore next */
    if (!(err instanceof ProtectWriteError)) throw err
    const why = `${err.message}; pass protectWrites without the protection (--no-protect-writes), with the risk docs/protected-writes.md names, to run without it`
    throw new SandboxUnavailableError(why, { reasons: [`${name}: ${err.message}`] })
  }
}

// As the launcher and the guard take them: [path, "dev:ino"].
const pinned = (reads) => reads.map((f) => [f.path, f.id])

// A workspace that exposes a launcher copy directory is refused
// (lib/launcher-copy.js exposure(); the launcher checks the same).
function refuseExposure ({ mode, root, rootId }, protect, parents, name) {
  if (mode !== 'workspace-write') return
  const why = exposure({ root, rootId }, protect, name === 'landlock') ??
    (parents.has(rootId) ? 'the writable workspace holds the parent of a launcher copy directory of this user' : null)
  if (why !== null) throw new SandboxUnavailableError(why, { reasons: [`${name}: ${why}`] })
}

// The workspace first, then the writable roots, as [path, "dev:ino"].
const rootPairs = ({ root, rootId }, writable) => [[root, rootId], ...writable.map((w) => [w.root, w.rootId])]

function launcherArgv (launcher, protect, policy, writable, argv, landlockOnly, nonce, reads, keepEnv, watched) {
  return [launcher, ...binding.addon.seamLauncherWords(policy.mode, rootPairs(policy, writable), landlockOnly, nonce, protect, reads, keepEnv, watched), '--', ...argv]
}

// bubblewrap comes from a system directory (the probe looks nowhere else),
// and never from the workspace.
function bwrapArgv (launcher, protect, report, policy, writable, argv, nonce, reads, keepEnv, watched) {
  const bwrap = report.host.bwrap.path
  const above = writable.length > 0 ? ancestorIds(bwrap) : new Set()
  if (isWithin(policy.root, bwrap) || writable.some((w) => above.has(w.rootId))) {
    throw new SandboxUnavailableError('bubblewrap lies inside a writable directory', { reasons: ['bwrap: found inside the workspace root or a writable root'] })
  }
  return [...binding.addon.bwrapArgv(launcher, nonce, bwrap, policy.mode, rootPairs(policy, writable), protect, reads, keepEnv, watched), ...argv]
}

// The launcher as it is now: verified again at every confine.
function currentLauncher (name) {
  try {
    return binding.verifiedLauncherPath()
  } catch (err) {
    throw new SandboxUnavailableError(`the ${name} backend cannot use its launcher`, { reasons: [`${name}: ${err.message}`] })
  }
}

// macOS: sandbox-exec and the shell its shim runs, by absolute path (System
// Integrity Protection keeps both; lib/seatbelt.js makes the words), and
// the link that chooses which shell /bin/sh runs. The probe ran both
// profiles and checked the kernel's answers before this backend could be
// selected (csrc/darwin/probe.c). A workspace that holds any of them is
// refused, and writable roots are not offered yet.
const SEATBELT_PROGRAMS = ['/usr/bin/sandbox-exec', '/bin/sh', '/private/var/select/sh']

// The directories that hold program, by device and inode: those above its
// canonical directory, and those above the program's own target when it
// is there (a link such as Debian's /bin/sh leads elsewhere). Nothing for
// a directory that is not there.
function holderIds (program) {
  const ids = new Set()
  for (const p of [path.dirname(program), program]) {
    try {
      for (const id of ancestorIds(fs.realpathSync(p))) ids.add(id)
    } catch {}
  }
  return ids
}

// The probe's workspace-write check made again inside a workspace, in a
// scratch directory of its own there (csrc/darwin/probe.c): the probe's
// own lies in /private/tmp, and a workspace on another volume, or spelt so
// that Seatbelt's resolved path differs (a firmlink, a case spelling),
// could miss the profile's allow or a deny only there. A check that held
// is kept for the canonical root and its identity in this process; one
// that did not (a full disk, a timeout) is asked again at the next call.
// null when it held, else why. (rootId: the root's "dev:ino")
const volumes = new Set()
function volumeVerdict (root, rootId) {
  const key = `${rootId}:${root}`
  if (volumes.has(key)) return null
  const why = binding.addon.seatbeltVolume(Buffer.from(root))
  if (why === null) volumes.add(key)
  return why
}
const VOLUME_REFUSED = 'the seatbelt backend does not hold in this workspace'

function seatbeltConfine (verdict, writableRoots, policy, argv, reads, keepEnv, shield) {
  // the shim's `exec "$@"`: bash (macOS's /bin/sh) reads a leading - as
  // exec's own option (-c, -l, -a NAME), and runs another command
  if (argv[0].startsWith('-')) throw new RangeError('argv[0] must not start with "-" under the seatbelt backend (its shell shim would read it as an option)')
  if (policy.mode === 'workspace-write') {
    if (writableRoots.length > 0) {
      throw new SandboxUnavailableError('the seatbelt backend takes no writable roots beside the workspace yet', { reasons: ['seatbelt: writableRoots are not supported'] })
    }
    if (SEATBELT_PROGRAMS.some((p) => holderIds(p).has(policy.rootId))) {
      throw new SandboxUnavailableError('sandbox-exec or the shell its shim runs lies inside the workspace', { reasons: ['seatbelt: the workspace root holds sandbox-exec or the shell its shim runs'] })
    }
    const why = volumeVerdict(policy.root, policy.rootId)
    if (why !== null) throw new SandboxUnavailableError(VOLUME_REFUSED, { reasons: [`seatbelt: ${SEATBELT_PROGRAMS[0]} ${why} in this workspace`] })
  }
  // (the size checked before the words are handed back, so a refused argv
  // leaves no temp directory behind)
  refuseHomes(policy, [], shield)
  // (a missing name by its path: Seatbelt's rules match paths, made or not)
  const { kept, watched } = protectedWritesOf(verdict, shield, policy, [])
  const writes = [...kept, ...watched.map(([dir, , n]) => ({ path: path.join(dir, n), kind: 'file' }))]
  const built = seatbeltArgv(policy, [...argv], { reads, keepEnv, writes, check: (words) => checkArgvSize(words, (why) => new RangeError(why)) })
  const tail = built.slice(built.length - argv.length)
  /* c8 ignore next 3 */
  if (built[0] !== SEATBELT_PROGRAMS[0] || built.length <= argv.length || tail.some((w, i) => w !== argv[i])) {
    throw new SandboxUnavailableError('the confined argv could not be built', { reasons: ['seatbelt: internal error'] })
  }
  const dialect = nativeDialect('seatbelt')
  return { argv: built, enforcement: verdict.enforcement, ...dialect, writableRoots: [] }
}

function confineWith (report, { runner, writableRoots, shield }, policy, argv) {
  const name = report.selected
  const verdict = report.candidates.find((c) => c.name === name)
  if (name === 'runner') {
    refuseRunner(runner.argv[0], policy)
    return { argv: [...runner.argv, ...argv], enforcement: runner.enforcement, denialSignatures: runner.denialSignatures, runnerFailureRules: runner.runnerFailureRules, writableRoots: [] }
  }
  const reads = protectedReads(verdict, shield)
  if (name === 'seatbelt') return seatbeltConfine(verdict, writableRoots, policy, argv, reads, shield.keepEnv, shield)
  const nonce = newNonce()
  const launcher = currentLauncher(name)
  // the launcher copies' directories: kept read-only in every sandbox, and
  // a workspace that exposes one is refused
  const protect = binding.guardedDirs(launcher)
  const parents = binding.copyParents()
  refuseExposure(policy, protect, parents, name)
  const writable = resolveWritableRoots(writableRoots, policy, protect, parents)
  refuseHomes(policy, writable, shield)
  // the protected writes: read-only and unrenamable as the copies are, and
  // the missing ones watched (docs/protected-writes.md)
  const writes = protectedWritesOf(verdict, shield, policy, writable)
  const kept = [...protect, ...writes.kept.map((w) => w.path)]
  const built = name === 'bwrap'
    ? bwrapArgv(launcher, kept, report, policy, writable, argv, nonce, pinned(reads), shield.keepEnv, writes.watched)
    : launcherArgv(launcher, kept, policy, writable, argv, name === 'landlock', nonce, pinned(reads), shield.keepEnv, writes.watched)
  // Last line of defence: whatever went wrong above, never hand back an argv
  // that does not start with the runner and wrap the caller's argv.
  const tail = built.slice(built.length - argv.length)
  /* c8 ignore next 3 */
  if (built[0] !== launcher || built.length <= argv.length || tail.some((w, i) => w !== argv[i])) {
    throw new SandboxUnavailableError('the confined argv could not be built', { reasons: [`${name}: internal error`] })
  }
  const dialect = nativeDialect(name)
  // The launcher's rule is this call's (its fatal line carries the nonce);
  // bwrap keeps its own rule next to that of the launcher guarding it.
  const launcherRule = launcherRules(nonce)
  const rules = name === 'bwrap' ? [...dialect.runnerFailureRules, ...launcherRule] : launcherRule
  return { argv: built, enforcement: verdict.enforcement, denialSignatures: dialect.denialSignatures, runnerFailureRules: Object.freeze(rules), writableRoots: writable.map((w) => w.root) }
}

// ---- the package inside a workspace ----------------------------------------

const PACKAGE_ROOT = path.resolve(__dirname, '..')
// (with what to do: an install the workspace does not hold, or a
// workspace that does not hold the install)
const PACKAGE_INSIDE = 'sandy-native\'s own files (its JavaScript and addon) lie inside the writable workspace: ' +
  'a confined command can change what the next Node process loads from them; install the package outside the workspace ' +
  '(globally with npm install -g, then run the sandy on your PATH rather than npx sandy; or as a dependency of ' +
  'the tool that runs the agent rather than of the project it works in), or make the workspace root a directory that does not hold it'

// Whether the directory "dev:ino" holds sandy-native's own files.
const packageUnder = (id) => ancestorIds(fs.realpathSync(PACKAGE_ROOT)).has(id)

// What no sandbox protects once this process has loaded the package: a
// workspace-write root (an absolute path) that contains it, by device and
// inode, is reported (THREAT_MODEL.md, "the package's own files"). Throws
// a RangeError naming the error code, never the path, when the root
// cannot be resolved.
function workspaceWarnings (workspaceRoot) {
  let id
  try {
    const st = fs.statSync(fs.realpathSync.native(workspaceRoot), { bigint: true })
    id = `${st.dev}:${st.ino}`
  } catch (err) {
    throw new RangeError(`the workspace root cannot be resolved (${err.code})`)
  }
  return [...(packageUnder(id) ? [PACKAGE_INSIDE] : []), ...linkWarnings(privatePackageFiles())]
}

// The warnings the command line has printed in this process, by canonical
// workspace root: `sandy run` says each once per root, so a process that
// runs many commands in one workspace is told once; `sandy probe`, asked,
// always shows them. provider.probe() answers in full at every call.
const printed = new Map()

// Of the warnings about workspaceRoot (which exists), those this process
// has not printed yet; all of them count as printed from now on.
function unprintedWarnings (workspaceRoot, warnings) {
  const root = fs.realpathSync.native(workspaceRoot)
  const seen = printed.get(root) ?? new Set()
  printed.set(root, seen)
  const fresh = warnings.filter((w) => !seen.has(w))
  for (const w of fresh) seen.add(w)
  return fresh
}

// Whether a writable root (canonical) holds sandy-native's own files or
// lies among them (its lib/, its build/): either way a confined command can
// change what the next Node process loads. By device and inode.
function holdsPackage (root) {
  const pkg = fs.statSync(PACKAGE_ROOT, { bigint: true })
  const rootSt = fs.statSync(root, { bigint: true })
  return packageUnder(`${rootSt.dev}:${rootSt.ino}`) || ancestorIds(root).has(`${pkg.dev}:${pkg.ino}`)
}

// ---- the provider -----------------------------------------------------------

function createLocalSandboxProvider (options = {}) {
  const config = checkOptions(options)
  let report = null
  // Cached once the launcher was usable; until then asked again, so a
  // provider outlives a moment in which no verified launcher could be had.
  // (Seatbelt needs no launcher.)
  const arbitration = () => (report && (report.launcher !== null || report.selected === 'seatbelt') ? report : (report = arbitrate(config)))

  function confine (argv, policy) {
    checkArgv(argv)
    const checked = checkPolicy(policy)
    const r = arbitration()
    if (r.selected === null) throw unavailable(r)
    const out = confineWith(r, config, checked, argv)
    // (backend: which one made the argv, as probe().selected names it)
    return Object.freeze({ ...out, argv: Object.freeze(checkArgvSize([...out.argv], (why) => new RangeError(why))), writableRoots: Object.freeze(out.writableRoots), backend: r.selected })
  }

  // With { workspaceRoot }, also what a workspace-write run there leaves
  // unprotected (warnings).
  function probe (options) {
    const r = arbitration()
    const report = { requested: r.requested, selected: r.selected, candidates: r.candidates }
    if (options !== undefined) {
      if (options === null || typeof options !== 'object') throw new TypeError('options must be an object')
      const { workspaceRoot } = ownOptions(options, ['workspaceRoot'], 'options')
      if (typeof workspaceRoot !== 'string' || !path.isAbsolute(workspaceRoot) || workspaceRoot.includes('\0')) {
        throw new TypeError('options.workspaceRoot must be an absolute path')
      }
      report.warnings = workspaceWarnings(workspaceRoot)
      const ws = r.selected === 'seatbelt' ? resolveDirectory(workspaceRoot, (why) => new RangeError(`options.workspaceRoot ${why}`)) : null
      const why = ws !== null ? volumeVerdict(ws.root, ws.rootId) : null
      if (why !== null) report.warnings.push(`${VOLUME_REFUSED} (${SEATBELT_PROGRAMS[0]} ${why} there): confine refuses workspace-write in it`)
    }
    return structuredClone(report)
  }

  return Object.freeze({ confine, probe })
}

module.exports = { createLocalSandboxProvider, workspaceWarnings, unprintedWarnings, holdsPackage, CONFINED_MODES }
