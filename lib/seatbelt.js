'use strict'
// The seam's `seatbelt` backend (macOS), as words: sandbox-exec by absolute
// path (protected by System Integrity Protection: no launcher copy), the
// fixed profile of the mode, every path a -D parameter, and a shim that
// keeps a missing command the shell's 127 (csrc/backends/seatbelt.h). It has
// never run on a Mac (docs/backends.md, "macOS"); lib/provider.js decides when.
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const binding = require('./binding')
const { SandboxUnavailableError } = require('./errors')
const { LAUNCHER } = require('./vocabulary')

// The words for argv under { mode, root } (root canonical). workspace-write
// gets a temp directory of its own, made here (0700) under the canonical
// temp directory (Seatbelt matches resolved paths: /var/folders/... is
// /private/var/folders/...), exported to the command as TMPDIR instead of
// the user's whole one; it is left to the system's periodic cleanup.
// reads: the protected paths (lib/protect.js's objects), each denied by a
// rule of its kind; keepEnv: the secret variables the shim leaves; writes:
// the protected writes (lib/protect-writes.js's objects), each kept
// unwritable; under workspace-write every directory between the workspace
// root and a protected write or read kept from removal and renaming.
// check(words), when given, may refuse the whole argv: the temp directory
// made for it is removed then.
function seatbeltArgv ({ mode, root }, argv, { tmpdir = os.tmpdir, check = () => {}, reads = [], keepEnv = [], writes = [] } = {}) {
  const kept = mode === 'workspace-write' ? keptWrites(root, writes, reads) : []
  if (kept.length > LAUNCHER.seatbeltWritesMax) {
    throw new SandboxUnavailableError(`the seatbelt backend keeps at most ${LAUNCHER.seatbeltWritesMax} protected paths and directories above them in one call, and this one has ${kept.length}`,
      { reasons: ['seatbelt: too many protected paths and directories above them'] })
  }
  const shield = [reads.map((r) => [r.path, r.kind]), keepEnv, kept]
  if (mode !== 'workspace-write') {
    const words = [...binding.addon.seatbeltArgv(mode, null, null, ...shield), ...argv]
    check(words)
    return words
  }
  let temp
  try {
    temp = fs.mkdtempSync(path.join(fs.realpathSync.native(tmpdir()), 'sandy-'))
  } catch (err) {
    // (the code, never the path)
    throw new SandboxUnavailableError(`the seatbelt backend cannot make its temp directory (${err.code})`, { reasons: [`seatbelt: no temp directory under $TMPDIR (${err.code})`] })
  }
  try {
    const words = [...binding.addon.seatbeltArgv(mode, root, temp, ...shield), ...argv]
    check(words)
    return words
  } catch (err) {
    fs.rmSync(temp, { recursive: true, force: true })
    throw err
  }
}

// [path, keep] pairs: each protected write as 'file' or 'directory', then
// each directory strictly between root and one of them, or one of the
// protected reads, as 'above', once: renamed away, a directory would take
// the object out from under its rule (the rules name paths), and the read
// or write would land under the new name.
function keptWrites (root, writes, reads) {
  const above = new Set()
  for (const w of [...writes, ...reads]) {
    for (let d = path.dirname(w.path); d !== root && d.startsWith(root + '/'); d = path.dirname(d)) above.add(d)
  }
  return [...writes.map((w) => [w.path, w.kind]), ...[...above].map((d) => [d, 'above'])]
}

module.exports = { seatbeltArgv }
