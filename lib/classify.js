'use strict'
// How a consumer judges a finished or failed confined run (seam:
// "Wrapped argv and classification dialects", "Provider and fail-closed
// errors"). Runner failure is checked first: it means the command never ran.
const fs = require('node:fs')
const { SandboxUnavailableError } = require('./errors')
const { currentDir } = require('./paths')
const { own, isDense } = require('./own')

function stderrLines (stderr) {
  const text = stderr instanceof Uint8Array
    ? Buffer.from(stderr.buffer, stderr.byteOffset, stderr.byteLength).toString('utf8')
    : String(stderr)
  return text.split(/\r?\n/)
}

function isFailureExit (code) {
  return code !== null && code !== 0
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
  return lines.find((line) => {
    const lower = line.toLowerCase()
    return wanted.some((s) => lower.includes(s))
  }) ?? null
}

// A signature: a non-empty, single-line string with something besides
// blanks in it (a blank one would be found in every line, and an exit
// status alone would prove a runner failure).
function isSignature (s) {
  return typeof s === 'string' && s.trim() !== '' && !/[\r\n]/.test(s)
}

const isStringArray = (a) => isDense(a) && a.every((x) => typeof x === 'string')

// A RunnerFailureRule as the seam defines it, wherever it came from,
// copied once (a getter cannot pass the check and then answer otherwise).
function checkRule (rule, i) {
  const what = `confined.runnerFailureRules[${i}]`
  if (rule === null || typeof rule !== 'object') throw new TypeError(`${what} must be an object`)
  // (a hole would be read through the prototype: not an array here)
  const copy = (v) => (isDense(v) ? [...v] : Array.isArray(v) ? null : v)
  const fatalSignatures = copy(own(rule, 'fatalSignatures'))
  const allowedExitCodes = copy(own(rule, 'allowedExitCodes'))
  const informationalLines = copy(own(rule, 'informationalLines'))
  if (!Array.isArray(fatalSignatures) || fatalSignatures.length === 0 || !fatalSignatures.every(isSignature)) {
    throw new TypeError(`${what}.fatalSignatures must be a non-empty array of non-blank, single-line strings`)
  }
  if (allowedExitCodes !== undefined && !(Array.isArray(allowedExitCodes) && allowedExitCodes.every((c) => Number.isInteger(c) && c !== 0))) {
    throw new TypeError(`${what}.allowedExitCodes must be an array of nonzero integers`)
  }
  if (informationalLines !== undefined && !isStringArray(informationalLines)) {
    throw new TypeError(`${what}.informationalLines must be an array of strings`)
  }
  return { fatalSignatures, allowedExitCodes, informationalLines }
}

// -> {kind: 'runner-failure' | 'denied' | 'ordinary', detail?: string}
function classifyExit (confined, result = {}) {
  const code = own(result, 'code') ?? null
  const signal = own(result, 'signal') ?? null
  const stderr = own(result, 'stderr') ?? ''
  // each read once, and copied
  const given = confined !== null && typeof confined === 'object' ? [own(confined, 'runnerFailureRules'), own(confined, 'denialSignatures')] : []
  const [rules, denials] = given.map((v) => (isDense(v) ? [...v] : null))
  if (!rules || !denials || !isStringArray(denials)) {
    throw new TypeError('confined must be a ConfinedArgv (runnerFailureRules and denialSignatures arrays)')
  }
  const checked = rules.map(checkRule)
  if (!denials.every(isSignature)) throw new TypeError('confined.denialSignatures must be non-blank, single-line strings')
  if (code !== null && !Number.isInteger(code)) throw new TypeError('code must be an integer or null')
  const lines = stderrLines(stderr)
  for (const rule of checked) {
    const line = matchRule(rule, code, lines)
    if (line !== null) return Object.freeze({ kind: 'runner-failure', detail: line })
  }
  // A run ended by a signal, or a success, is never a denial.
  if (signal === null && isFailureExit(code)) {
    const line = matchDenial(denials, lines)
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
// (path exactly `<file>`, syscall `spawn`, `spawnSync`, `spawn <file>` or
// `spawnSync <file>`) after the cwd is verified usable mean the confined
// launch could not start; everything else, a bare `spawn` without that
// exact path among it, keeps the consumer's ordinary command-start
// semantics (null).
const SPAWN_SYSCALLS = ['spawn', 'spawnSync']

function classifySpawnError (confined, err, options = {}) {
  if (!(err instanceof Error)) return null
  const [code, errPath, syscall] = ['code', 'path', 'syscall'].map((k) => own(err, k))
  if (code !== 'ENOENT' && code !== 'EACCES') return null
  const argv = own(confined, 'argv')
  const file = isDense(argv) ? argv[0] : undefined
  if (typeof file !== 'string' || errPath !== file || !SPAWN_SYSCALLS.some((s) => syscall === s || syscall === `${s} ${file}`)) return null
  const cwd = own(options, 'cwd') ?? currentDir()
  if (!usableDirectory(cwd)) return null
  return new SandboxUnavailableError('the sandbox runner could not be started', {
    reasons: [`${code}: the sandbox runner is missing or not executable`],
    cause: err
  })
}

module.exports = { classifyExit, classifySpawnError, isSignature }
