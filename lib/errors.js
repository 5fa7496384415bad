'use strict'
// Error classes. Messages name a phase or a document position, never a
// policy value (no paths, no key values).
const { own } = require('./own')

class PolicyDocumentError extends Error {
  constructor ({ kind, line, column, version, message }) {
    super(`invalid policy document (${kind}): ${message}`)
    this.name = 'PolicyDocumentError'
    this.kind = kind
    if (kind === 'Parse') {
      this.line = line
      this.column = column
    }
    if (kind === 'UnsupportedVersion') this.version = version
  }
}

class SandboxError extends Error {
  constructor (kind, message) {
    super(`${kind}: ${message}`)
    this.name = 'SandboxError'
    this.kind = kind
  }
}


// The seam's fail-closed error: no usable backend, or a confined launch that
// provably never started. `reasons` says why, per candidate when known.
class SandboxUnavailableError extends Error {
  constructor (message, options = {}) {
    const reasons = own(options, 'reasons') ?? []
    const cause = own(options, 'cause')
    super(message, cause === undefined ? undefined : { cause })
    this.name = 'SandboxUnavailableError'
    this.code = 'SANDBOX_UNAVAILABLE'
    this.reasons = Object.freeze([...reasons])
  }
}

module.exports = { PolicyDocumentError, SandboxError, SandboxUnavailableError }
