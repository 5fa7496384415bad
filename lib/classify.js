'use strict'
// How a consumer judges a finished or failed confined run (seam:
// "Wrapped argv and classification dialects", "Provider and fail-closed
// errors"). Runner failure is checked first: it means the command never ran.
const fs = require('node:fs')
const { SandboxUnavailableError } = require('./errors')
const { currentDir } = require('./paths')

function stderrLines (stderr) {
  const text = stderr instanceof Uint8Array
    ? Buffer.from(stderr.buffer, stderr.byteOffset, stderr.byteLength).toString('utf8')
    : String(stderr ?? '')
  return text.split(/\r?\n/)
}

function isFailureExit (code) {
  return typeof code === 'number' && code !== 0
}

// One rule: nonzero exit, the optional exit-code gate, informational lines
// removed by case-insensitive exact equality, then a case-insensitive fatal
// signature within one remaining line. Returns the matched line or null.
function matchRule (rule, code, lines) {
  if (!isFailureExit(code)) return null
  if (rule.allowedExitCodes && !rule.allowedExitCodes.includes(code)) return null
  const informational = new Set((rule.informationalLines || []).map((l) => l.toLowerCase()))
  const fatal = rule.fatalSignatures.map((s) => s.toLowerCase())
  for (const line of lines) {
    const lower = line.toLowerCase()
    if (informational.has(lower)) continue
    if (fatal.some((s) => lower.includes(s))) return line
  }
  return null
}

function matchDenial (signatures, lines) {
  const wanted = signatures.map((s) => s.toLowerCase())
  return lines.find((line) => wanted.some((s) => line.toLowerCase().includes(s))) ?? null
}

// -> {kind: 'runner-failure' | 'denied' | 'ordinary', detail?: string}
function classifyExit (confined, { code = null, signal = null, stderr = '' } = {}) {
  const lines = stderrLines(stderr)
  for (const rule of confined.runnerFailureRules) {
    const line = matchRule(rule, code, lines)
    if (line !== null) return Object.freeze({ kind: 'runner-failure', detail: line })
  }
  // A run ended by a signal, or a success, is never a denial.
  if (signal === null && isFailureExit(code)) {
    const line = matchDenial(confined.denialSignatures, lines)
    if (line !== null) return Object.freeze({ kind: 'denied', detail: line })
  }
  return Object.freeze({ kind: 'ordinary' })
}

// The caller-owned working directory, checked independently of the spawn:
// Node reports a missing cwd as ENOENT too.
function usableDirectory (cwd) {
  if (typeof cwd !== 'string' || cwd === '') return false
  try {
    if (!fs.statSync(cwd).isDirectory()) return false
    fs.accessSync(cwd, fs.constants.X_OK)
    return true
  } catch {
    return false
  }
}

// Only ENOENT/EACCES with Node's own provenance for the provider's argv[0]
// (syscall `spawn <file>` or `spawnSync <file>`, and path `<file>`) after the cwd is verified
// usable mean the confined launch could not start; everything else keeps the
// consumer's ordinary command-start semantics (null).
function classifySpawnError (confined, err, { cwd = currentDir() } = {}) {
  if (!(err instanceof Error)) return null
  if (err.code !== 'ENOENT' && err.code !== 'EACCES') return null
  const file = confined.argv[0]
  if (err.path !== file || (err.syscall !== `spawn ${file}` && err.syscall !== `spawnSync ${file}`)) return null
  if (!usableDirectory(cwd)) return null
  return new SandboxUnavailableError('the sandbox runner could not be started', {
    reasons: [`${err.code}: the sandbox runner is missing or not executable`],
    cause: err
  })
}

module.exports = { classifyExit, classifySpawnError }
