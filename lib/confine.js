'use strict'
// confinePolicy: wraps a caller's argv so that it runs under a Sandy policy,
// enforced by the launcher (which applies the policy to itself, then execs
// the argv). Everything that can be checked before the spawn is checked
// here, so a policy that cannot be enforced fails in the caller, not later.
const binding = require('./binding')
const { SandboxError } = require('./errors')
const { SandboxPolicy, cwdBytes } = require('./policy')
const { probe } = require('./probe')
const { launcherDialect, newNonce, launcherRules, checkArgv, checkArgvSize } = require('./launcher-protocol')
const { currentDir } = require('./paths')
const { own, ownOptions } = require('./own')

// What the launcher's denials print (csrc/backends/sandy.c):
// - EACCES from Landlock ("Permission denied"),
// - EROFS from the read-only mounts of the view ("Read-only file system"),
// - EPERM from seccomp and from the view for chmod/chown/utime/xattr on
//   nosuid/read-only objects ("Operation not permitted").
// Deliberately absent: "No such file or directory" (ENOENT). Paths outside
// the grants are invisible and do give ENOENT, but so does every ordinary
// typo or missing file; listing it would make the consumer call ordinary
// failures denials. Likewise "Invalid cross-device link" (EXDEV between
// grants) is also the ordinary result of linking across file systems, and
// mv/cp recover from it on their own.
// dash (Debian's /bin/sh) prints "Cannot fork", with no strerror text, when
// fork is denied: a denial only where the policy forbids subprocesses
// (elsewhere it is the ordinary result of exhausted resources).
// Asked of the addon once, at the first confine.
let signatures = null
function denialSignatures (allowsSubprocesses) {
  if (signatures === null) {
    const all = Object.freeze([...launcherDialect().denialSignatures])
    signatures = { all, noFork: Object.freeze([...all, 'Cannot fork']) }
  }
  return allowsSubprocesses ? signatures.all : signatures.noFork
}

// The host must keep the whole contract; there is no weaker level here.
function hostVerdict (report) {
  const v = report.backends && report.backends.sandy
  if (!v || !v.usable) {
    const why = v && v.reason ? v.reason : 'the host probe did not judge the sandy backend'
    throw new SandboxError('Unsupported', `the sandy launcher cannot keep its contract on this host: ${why}`)
  }
  return v.enforcement
}

function verifiedRunner () {
  try {
    return binding.verifiedLauncherPath()
  } catch (err) {
    throw new SandboxError('Unsupported', `the sandy launcher cannot be used here: ${err.message}`)
  }
}

// The implementation, with the launcher and the probe injectable for the
// test suite (a build with one layer switched off is run against the same
// cases). Production callers use confinePolicy, which takes neither.
function confineWith (argv, policy, options = {}, inject = {}) {
  checkArgv(argv)
  if (options === null || typeof options !== 'object') throw new TypeError('options must be an object')
  const cwd = ownOptions(options, ['cwd'], 'options').cwd ?? currentDir()
  const launcher = own(inject, 'launcher')
  const report = own(inject, 'report')
  if (!(policy instanceof SandboxPolicy)) throw new TypeError('policy must be a SandboxPolicy')
  const cwdArg = cwdBytes(cwd)
  const enforcement = hostVerdict(report || probe())
  const runner = launcher || verifiedRunner()
  // The launcher copies' directories are read-only and unrenamable in the
  // view, even where a grant makes their surroundings writable (the
  // launcher protects its own directory too).
  const native = binding.guardedDirs(runner).reduce((p, dir) => p.denyWriteExact(dir), policy).toNative()
  // One crossing (csrc/addon/confine.c): resolved against cwd, refused
  // unless a grant covers it, or when a writable grant holds the parent of
  // one of the user's launcher copy directories (made or not: by device
  // and inode; the launcher refuses it again, csrc/linux/self.c); every
  // resolved entry pinned by the key the launcher's own resolution gives
  // it, with its path and the object it names now (policy_argv.h
  // --pin/--pinned): the launcher refuses to run when any names another
  // object, or when an entry of its own resolution does not match the pin
  // of its key.
  const nonce = newNonce()
  const r = binding.addon.confinePolicy(native, cwdArg, nonce, [...binding.copyParents()])
  if (r.error) throw new SandboxError(r.error.kind, r.error.message)
  const full = checkArgvSize([runner, ...r.argv, '--', ...argv], (why) => new SandboxError('InvalidPolicy', why))
  return Object.freeze({
    argv: Object.freeze(full),
    enforcement,
    denialSignatures: denialSignatures(policy.allowsSubprocesses),
    runnerFailureRules: launcherRules(nonce),
    // (the launcher itself, the seam's 'sandy' backend)
    backend: 'sandy'
  })
}

function confinePolicy (argv, policy, options = {}) {
  return confineWith(argv, policy, options)
}

module.exports = { confinePolicy, confineWith }
