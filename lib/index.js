'use strict'
const { SandboxPolicy, AccessMode, PathScope, NetworkPolicy } = require('./policy')
const { PolicyDocumentError, SandboxError, SandboxUnavailableError } = require('./errors')
const { probe } = require('./probe')
const { addon } = require('./binding')
const { confinePolicy } = require('./confine')
const { createLocalSandboxProvider } = require('./provider')
const { createSandboxPolicyService } = require('./policy-service')
const { classifyExit, classifySpawnError } = require('./classify')

module.exports = {
  // Sandy's policy model
  SandboxPolicy,
  AccessMode,
  PathScope,
  NetworkPolicy,
  PolicyDocumentError,
  SandboxError,
  confinePolicy,
  // the seam
  createLocalSandboxProvider,
  createSandboxPolicyService,
  classifyExit,
  classifySpawnError,
  SandboxUnavailableError,
  // the host
  probe,
  limits: Object.freeze(addon.limits())
}
