'use strict'
// The Sandy policy model: intent only. Builders never touch the filesystem;
// they return a new frozen policy and leave the receiver as it was, so a
// policy shared between callers cannot be widened behind their backs.
const path = require('node:path')
const binding = require('./binding')
const { PolicyDocumentError, SandboxError } = require('./errors')
const { AccessMode, PathScope, NetworkPolicy, SCHEMA_VERSION, DOCUMENT_KEYS } = require('./vocabulary')
const { currentDir } = require('./paths')
const { own } = require('./own')

// Errors name a section as the document (and the C core) spells it.
const DOCUMENT_NAMES = DOCUMENT_KEYS

function oneOf (value, enumeration, what) {
  if (!Object.values(enumeration).includes(value)) {
    throw new TypeError(`${what} must be one of ${Object.values(enumeration).join(', ')}`)
  }
  return value
}

// A path is a string, or a Buffer or Uint8Array of its exact bytes (kept as
// a Buffer copy). Its contents are only checked when the policy is resolved
// (intent is recorded as given).
function checkPath (p, what) {
  if (typeof p === 'string') return p
  if (p instanceof Uint8Array) return Buffer.from(p)
  throw new TypeError(`${what} must be a string, a Buffer or a Uint8Array`)
}

// The exact bytes the core sees. A string with a lone surrogate has no
// UTF-8 form: converting it would silently name another path.
function pathBytes (p, where) {
  if (Buffer.isBuffer(p)) return p
  if (!p.isWellFormed()) throw new SandboxError('InvalidPolicy', `${where}: path is not valid Unicode`)
  return Buffer.from(p, 'utf8')
}

function pathText (p, where) {
  const text = typeof p === 'string' ? p : p.toString('utf8')
  if (typeof p !== 'string' && !Buffer.from(text, 'utf8').equals(p)) {
    throw new SandboxError('InvalidPolicy', `${where}: path is not valid UTF-8 and cannot be written to a document`)
  }
  if (text === '' || text.includes('\0') || !text.isWellFormed()) {
    throw new SandboxError('InvalidPolicy', `${where}: path cannot be written to a document`)
  }
  return text
}

const EMPTY = Object.freeze({
  network: NetworkPolicy.BlockAll,
  allowSubprocesses: false,
  grants: Object.freeze([]),
  executableGrants: Object.freeze([]),
  denySubtrees: Object.freeze([]),
  denyWriteExact: Object.freeze([])
})

class SandboxPolicy {
  #state

  constructor (network, state) {
    const base = state || EMPTY
    this.#state = Object.freeze({ ...base, network: oneOf(network, NetworkPolicy, 'network') })
    Object.freeze(this)
  }

  #with (changes) {
    return new SandboxPolicy(this.#state.network, { ...this.#state, ...changes })
  }

  #append (section, entry) {
    return this.#with({ [section]: Object.freeze([...this.#state[section], Object.freeze(entry)]) })
  }

  get network () { return this.#state.network }
  get allowsSubprocesses () { return this.#state.allowSubprocesses }

  grant (p, access, scope) {
    return this.#append('grants', {
      path: checkPath(p, 'path'),
      access: oneOf(access, AccessMode, 'access'),
      scope: oneOf(scope, PathScope, 'scope')
    })
  }

  allowExecute (p, scope) {
    return this.#append('executableGrants', { path: checkPath(p, 'path'), scope: oneOf(scope, PathScope, 'scope') })
  }

  allowSubprocesses () {
    return this.#with({ allowSubprocesses: true })
  }

  denySubtree (p) {
    return this.#append('denySubtrees', { path: checkPath(p, 'path') })
  }

  denyWriteExact (p) {
    return this.#append('denyWriteExact', { path: checkPath(p, 'path') })
  }

  // The shape the addon reads: every path as the exact bytes to resolve.
  toNative () {
    const s = this.#state
    const bytes = (section) => s[section].map((e, i) => ({ ...e, path: pathBytes(e.path, `${DOCUMENT_NAMES[section]}[${i}]`) }))
    return {
      network: s.network,
      allowSubprocesses: s.allowSubprocesses,
      grants: bytes('grants'),
      executableGrants: bytes('executableGrants'),
      denySubtrees: bytes('denySubtrees'),
      denyWriteExact: bytes('denyWriteExact')
    }
  }

  // A version 1 document (JSON.stringify(policy) writes it).
  // Throws SandboxError (InvalidPolicy) for what no document can hold: a
  // path that is empty, holds a NUL or is not UTF-8, or a section over the
  // document's entry limit.
  toJSON () {
    const s = this.#state
    const text = (section) => {
      if (s[section].length > binding.addon.limits().sectionEntries) {
        throw new SandboxError('InvalidPolicy', `${DOCUMENT_NAMES[section]}: more entries than a document may hold`)
      }
      return s[section].map((e, i) => pathText(e.path, `${DOCUMENT_NAMES[section]}[${i}]`))
    }
    const grantPaths = text('grants')
    const execPaths = text('executableGrants')
    return {
      schema_version: SCHEMA_VERSION,
      network: s.network,
      allow_subprocesses: s.allowSubprocesses,
      [DOCUMENT_NAMES.grants]: s.grants.map((g, i) => ({ path: grantPaths[i], access: g.access, scope: g.scope })),
      [DOCUMENT_NAMES.executableGrants]: s.executableGrants.map((g, i) => ({ path: execPaths[i], scope: g.scope })),
      [DOCUMENT_NAMES.denySubtrees]: text('denySubtrees'),
      [DOCUMENT_NAMES.denyWriteExact]: text('denyWriteExact')
    }
  }

  // Effective rules against one working-directory snapshot, as the
  // launcher will compute them; throws SandboxError (InvalidPolicy).
  resolve (options = {}) {
    return resolveNative(this.toNative(), cwdBytes(own(options, 'cwd') ?? currentDir()))
  }

  static fromJson (source) {
    const r = binding.addon.parsePolicyJson(documentBytes(source))
    if (r.error) throw new PolicyDocumentError(r.error)
    return SandboxPolicy.#fromNative(r.policy)
  }

  static #fromNative (n) {
    let p = new SandboxPolicy(n.network)
    if (n.allowSubprocesses) p = p.allowSubprocesses()
    for (const g of n.grants) p = p.grant(g.path, g.access, g.scope)
    for (const g of n.executableGrants) p = p.allowExecute(g.path, g.scope)
    for (const d of n.denySubtrees) p = p.denySubtree(d)
    for (const d of n.denyWriteExact) p = p.denyWriteExact(d)
    return p
  }
}

function documentBytes (source) {
  if (typeof source === 'string') {
    // (the size limit is checked first, in the core, as for any document)
    if (!source.isWellFormed() && Buffer.byteLength(source) <= binding.addon.limits().documentBytes) throw loneSurrogate(source)
    return Buffer.from(source, 'utf8')
  }
  if (source instanceof Uint8Array) return Buffer.from(source.buffer, source.byteOffset, source.byteLength)
  throw new TypeError('policy document must be a string, Buffer or Uint8Array')
}

// A string with a lone surrogate has no UTF-8 form: the document is
// malformed at that character (line and column in UTF-8 bytes, as the
// core counts them).
function loneSurrogate (source) {
  let at = 0
  for (; at < source.length; at++) {
    const c = source.charCodeAt(at)
    const pairs = c >= 0xd800 && c <= 0xdbff && (source.charCodeAt(at + 1) & 0xfc00) === 0xdc00
    if (pairs) at++
    else if ((c & 0xf800) === 0xd800) break
  }
  const before = source.slice(0, at)
  const line = before.split('\n').length
  const lineStart = before.lastIndexOf('\n') + 1
  const column = Buffer.byteLength(before.slice(lineStart), 'utf8') + 1
  return new PolicyDocumentError({ kind: 'Parse', line, column, message: 'invalid Unicode (lone surrogate)' })
}

// The working-directory snapshot: an absolute path, as exact bytes.
function cwdBytes (cwd) {
  const given = cwd instanceof Uint8Array ? Buffer.from(cwd.buffer, cwd.byteOffset, cwd.byteLength) : null
  const text = given ? given.toString('latin1') : cwd
  if (typeof text !== 'string') throw new TypeError('cwd must be a string, a Buffer or a Uint8Array')
  if (!path.isAbsolute(text)) throw new TypeError('cwd must be an absolute path')
  const bytes = given || pathBytes(cwd, 'cwd')
  if (bytes.includes(0)) throw new TypeError('cwd must not contain NUL bytes')
  return bytes
}

// The core's resolution of a policy already in the addon's shape.
function resolveNative (native, cwd) {
  const r = binding.addon.resolvePolicy(native, cwd)
  if (r.error) throw new SandboxError(r.error.kind, r.error.message)
  return deepFreeze(r.resolved)
}

function deepFreeze (o) {
  for (const v of Object.values(o)) if (v && typeof v === 'object') deepFreeze(v)
  return Object.freeze(o)
}

module.exports = { SandboxPolicy, AccessMode, PathScope, NetworkPolicy, SCHEMA_VERSION, cwdBytes, resolveNative }
