'use strict'
// confinePolicy: wraps a caller's argv so that it runs under a Sandy policy,
// enforced by the launcher (which applies the policy to itself, then execs
// the argv). Everything that can be checked before the spawn is checked
// here, so a policy that cannot be enforced fails in the caller, not later.
const crypto = require('node:crypto')
const fs = require('node:fs')
const { addon, verifiedLauncherPath, guardedDirs } = require('./binding')
const { SandboxError } = require('./errors')
const { SandboxPolicy, cwdBytes, resolveNative } = require('./policy')
const { probe } = require('./probe')
const { DOCUMENT_KEYS } = require('./vocabulary')

// The launcher's dialect comes from the C core (csrc/addon/seam.c), the one place
// that knows its failure protocol (one line starting
// 'sandy-launcher: fatal:', exit 125, tagged per run below) and what its
// denials print:
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
const DIALECT = addon.backendDialect('sandy')
const LAUNCHER_EXIT_FAILURE = DIALECT.runnerFailureRules[0].allowedExitCodes[0]
// dash (Debian's /bin/sh) prints "Cannot fork", with no strerror text, when
// fork is denied: a denial only where the policy forbids subprocesses
// (elsewhere it is the ordinary result of exhausted resources).
const DENIAL_SIGNATURES = Object.freeze([...DIALECT.denialSignatures])
const DENIAL_SIGNATURES_NO_FORK = Object.freeze([...DIALECT.denialSignatures, 'Cannot fork'])

// Each confined run gets its own secret tag, which the launcher appends to
// its fatal line (csrc/core/protocol.h). The command never sees the launcher's
// argv, so it cannot print a line that passes for a runner failure.
function newNonce () {
  return crypto.randomBytes(16).toString('hex')
}

function launcherRules (nonce) {
  return Object.freeze(DIALECT.runnerFailureRules.map((r) => Object.freeze({
    ...r,
    fatalSignatures: Object.freeze(r.fatalSignatures.map(() => `[run ${nonce}]`))
  })))
}

// The kernel takes at most ARG_MAX (a quarter of the stack limit, 2 MiB
// by default) for the argv and the environment together, and a larger argv
// fails to spawn with E2BIG, which looks like any failure to start. A
// confined argv is refused above this size, each word counted with its NUL
// and its pointer, leaving the rest for the environment.
const ARGV_MAX_BYTES = 1024 * 1024

function argvBytes (words) {
  return words.reduce((n, w) => n + Buffer.byteLength(w) + 1 + 8, 8)
}

// ... and at most 128 KiB (MAX_ARG_STRLEN, its NUL included) for one word.
const ARGV_WORD_MAX_BYTES = 128 * 1024 - 1

function checkArgvSize (words, fail) {
  const n = argvBytes(words)
  if (n > ARGV_MAX_BYTES) throw fail(`the confined argv would take ${n} bytes, more than the ${ARGV_MAX_BYTES} a spawn is allowed here`)
  const long = words.findIndex((w) => Buffer.byteLength(w) > ARGV_WORD_MAX_BYTES)
  if (long >= 0) throw fail(`word ${long} of the confined argv is longer than the ${ARGV_WORD_MAX_BYTES} bytes the kernel takes for one`)
  return words
}

function checkArgv (argv) {
  if (!Array.isArray(argv) || argv.length === 0) {
    throw new TypeError('argv must be a non-empty array of strings')
  }
  for (const word of argv) {
    if (typeof word !== 'string') throw new TypeError('argv must be a non-empty array of strings')
    if (word.includes('\0')) throw new TypeError('argv words must not contain NUL characters')
  }
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

// What confine resolved, pinned (policy_argv.h --pin/--pinned): each
// entry by the key the launcher's own resolution gives it, with its
// canonical path (and a deny's symlink spelling, the link itself), the
// working directory, and the object each names now. The launcher refuses
// to run when any of them names another object, or when an entry of its
// own resolution does not match the pin of its key.
function pinsOf (resolved) {
  const pins = [['cwd', resolved.cwd]]
  resolved.grants.forEach((g, i) => pins.push([`${DOCUMENT_KEYS.grants}[${i}]:${g.access}:${g.scope}`, g.path]))
  resolved.executableGrants.forEach((g, i) => pins.push([`${DOCUMENT_KEYS.executableGrants}[${i}]:${g.scope}`, g.path]))
  for (const [section, denies] of [[DOCUMENT_KEYS.denySubtrees, resolved.denySubtrees], [DOCUMENT_KEYS.denyWriteExact, resolved.denyWriteExact]]) {
    denies.forEach((d, i) => {
      pins.push([`${section}[${i}]`, d.canonical])
      if (d.lexical) pins.push([`${section}[${i}].lexical`, d.lexical])
    })
  }
  return pins.map(([key, p]) => {
    try {
      const st = fs.lstatSync(p, { bigint: true })
      return [key, p, `${st.dev}:${st.ino}`]
    } catch (err) {
      throw new SandboxError('InvalidPolicy', `a resolved path cannot be pinned (${err.code})`)
    }
  })
}

function verifiedRunner () {
  try {
    return verifiedLauncherPath()
  } catch (err) {
    throw new SandboxError('Unsupported', `the sandy launcher cannot be used here: ${err.message}`)
  }
}

// The implementation, with the launcher and the probe injectable for the
// test suite (a build with one layer switched off is run against the same
// cases). Production callers use confinePolicy, which takes neither.
function confineWith (argv, policy, { cwd = process.cwd() } = {}, { launcher, report } = {}) {
  checkArgv(argv)
  if (!(policy instanceof SandboxPolicy)) throw new TypeError('policy must be a SandboxPolicy')
  const cwdArg = cwdBytes(cwd)
  const enforcement = hostVerdict(report || probe())
  const runner = launcher || verifiedRunner()
  // The launcher copies' directories are read-only and unrenamable in the
  // view, even where a grant makes their surroundings writable (the
  // launcher protects its own directory too).
  const native = guardedDirs(runner).reduce((p, dir) => p.denyWriteExact(dir), policy).toNative()
  const resolved = resolveNative(native, cwdArg)
  if (!resolved.coversCwd) {
    throw new SandboxError('InvalidPolicy', 'the working directory must be covered by a grant')
  }
  const nonce = newNonce()
  const words = addon.policyArgv(native, cwdArg, nonce, pinsOf(resolved))
  const full = checkArgvSize([runner, ...words, '--', ...argv], (why) => new SandboxError('InvalidPolicy', why))
  return Object.freeze({
    argv: Object.freeze(full),
    enforcement,
    denialSignatures: policy.allowsSubprocesses ? DENIAL_SIGNATURES : DENIAL_SIGNATURES_NO_FORK,
    runnerFailureRules: launcherRules(nonce)
  })
}

function confinePolicy (argv, policy, options = {}) {
  return confineWith(argv, policy, options)
}

module.exports = {
  confinePolicy,
  confineWith,
  newNonce,
  launcherRules,
  LAUNCHER_EXIT_FAILURE,
  ARGV_MAX_BYTES,
  checkArgvSize
}
