'use strict'
// Loading the package loads no addon (lib/binding.js loads it on first
// use): the policy builders, classification, errors and vocabulary work
// where it cannot load, and the first call that needs it throws
// SANDY_ADDON_UNAVAILABLE.
const { SandboxPolicy, AccessMode, PathScope, NetworkPolicy } = require('./policy')
const { PolicyDocumentError, SandboxError, SandboxUnavailableError } = require('./errors')
const { probe } = require('./probe')
const binding = require('./binding')
const { confinePolicy } = require('./confine')
const { createLocalSandboxProvider } = require('./provider')
const { createSandboxPolicyService } = require('./policy-service')
const { classifyExit, classifySpawnError } = require('./classify')

// The core's bounds, read from the addon when one is first read. The names
// are the addon's (test/package/package.test.js compares them).
const LIMITS = ['documentBytes', 'sectionEntries', 'effectiveRules', 'pathBytes']
const limits = Object.freeze(Object.defineProperties({}, Object.fromEntries(LIMITS.map((name) =>
  [name, { enumerable: true, get: () => binding.addon.limits()[name] }]))))

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
  limits
}
