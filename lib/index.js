'use strict'
const { SandboxPolicy, AccessMode, PathScope, NetworkPolicy } = require('./policy')
const { PolicyDocumentError, SandboxError } = require('./errors')
const { probe } = require('./probe')
const { addon } = require('./binding')

module.exports = {
  SandboxPolicy,
  AccessMode,
  PathScope,
  NetworkPolicy,
  PolicyDocumentError,
  SandboxError,
  probe,
  limits: Object.freeze(addon.limits())
}
