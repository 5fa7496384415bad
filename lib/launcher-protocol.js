'use strict'
// The launcher's protocol as JS sees it (csrc/core/protocol.h, carried here
// by lib/vocabulary.js): the per-call nonce, the runner-failure rule its
// fatal line makes, the argv a caller may hand over and the size a spawn
// takes. One module for the provider, confinePolicy and the CLI.
// Loading it needs no addon (the CLI's help works without one).
const crypto = require('node:crypto')
const { LAUNCHER } = require('./vocabulary')
const { isDense } = require('./own')

// The launcher's dialect comes from the C core (csrc/backends/sandy.c), the one
// place that knows what its denials print and which exit status and line
// make a runner failure; asked once, when first needed.
let dialect = null
function launcherDialect () {
  if (dialect === null) dialect = require('./binding').addon.backendDialect('sandy')
  return dialect
}
const LAUNCHER_EXIT_FAILURE = LAUNCHER.exitFailure

// Each confined run gets its own secret tag, which the launcher appends to
// its fatal line. The command never sees the launcher's argv, so it cannot
// print a line that passes for a runner failure. 32 hex digits: within the
// launcher's bounds (16 to 64).
const NONCE_BYTES = 16
function newNonce () {
  return crypto.randomBytes(NONCE_BYTES).toString('hex')
}

function launcherRules (nonce) {
  return Object.freeze(launcherDialect().runnerFailureRules.map((r) => Object.freeze({
    ...r,
    fatalSignatures: Object.freeze(r.fatalSignatures.map(() => `[run ${nonce}]`))
  })))
}

// The argv a caller hands over: words the kernel can carry, a program to
// run.
function checkArgv (argv) {
  if (!isDense(argv) || argv.length === 0 || argv[0] === '' ||
      !argv.every((w) => typeof w === 'string' && !w.includes('\0'))) {
    throw new TypeError('argv must be a non-empty array of strings without NUL bytes')
  }
}

// The kernel takes at most ARG_MAX (a quarter of the stack limit, 2 MiB
// by default) for the argv and the environment together, and a larger argv
// fails to spawn with E2BIG, which looks like any failure to start. A
// confined argv is refused above this size, each word counted with its NUL
// and its pointer, leaving the rest for the environment ...
const ARGV_MAX_BYTES = 1024 * 1024
// ... and at most 128 KiB (MAX_ARG_STRLEN, its NUL included) for one word.
const ARGV_WORD_MAX_BYTES = 128 * 1024 - 1

function argvBytes (words) {
  return words.reduce((n, w) => n + Buffer.byteLength(w) + 1 + 8, 8)
}

function checkArgvSize (words, fail) {
  const n = argvBytes(words)
  if (n > ARGV_MAX_BYTES) throw fail(`the confined argv would take ${n} bytes, more than the ${ARGV_MAX_BYTES} a spawn is allowed here`)
  const long = words.findIndex((w) => Buffer.byteLength(w) > ARGV_WORD_MAX_BYTES)
  if (long >= 0) throw fail(`word ${long} of the confined argv is longer than the ${ARGV_WORD_MAX_BYTES} bytes the kernel takes for one`)
  return words
}

module.exports = { launcherDialect, LAUNCHER_EXIT_FAILURE, newNonce, launcherRules, checkArgv, ARGV_MAX_BYTES, checkArgvSize }
