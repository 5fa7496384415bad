'use strict'
// ctx.sandboxPolicy.resolve: the one place that owns mode precedence and the
// workspace-root fallback, so consumers do not repeat it.
const fs = require('node:fs')
const path = require('node:path')
const { SANDBOX_MODES } = require('./vocabulary')
const { currentDir } = require('./paths')
const { own } = require('./own')

function checkMode (mode, what) {
  if (mode === undefined) return undefined
  if (!SANDBOX_MODES.includes(mode)) throw new RangeError(`${what} must be one of ${SANDBOX_MODES.join(', ')}`)
  return mode
}

function checkRoot (root, what) {
  if (root === undefined) return undefined
  if (typeof root !== 'string' || root === '' || root.includes('\0')) throw new TypeError(`${what} must be a non-empty path string`)
  if (!path.isAbsolute(root)) throw new TypeError(`${what} must be an absolute path`)
  return root
}

// The session's opaque identity: a non-empty string, or none.
function checkId (id) {
  if (id === undefined) return undefined
  if (typeof id !== 'string' || id === '') throw new TypeError('session.id must be a non-empty string')
  return id
}

// Filesystem semantics first (the kernel resolves `link/..` through the
// link's target, where a spawned process really runs), then lexical form.
function canonicalRoot (root) {
  let real, isDirectory
  try {
    real = fs.realpathSync.native(root)
    isDirectory = fs.statSync(real).isDirectory()
  } catch (err) {
    throw new RangeError(`workspace root cannot be resolved (${err.code})`)
  }
  if (!isDirectory) throw new RangeError('workspace root is not a directory')
  return path.normalize(real)
}

function createSandboxPolicyService (config = {}) {
  const configured = Object.freeze({
    mode: checkMode(own(config, 'mode'), 'config.mode'),
    workspaceRoot: checkRoot(own(config, 'workspaceRoot'), 'config.workspaceRoot')
  })
  // A session without a cwd falls back to the configured root, then the
  // working directory (seam: "the configured root is the fallback for
  // agentless calls and sessions without a cwd"); its id, when it has one,
  // is carried as the policy's sessionId.
  function resolve (request = {}) {
    const session = own(request, 'session')
    if (session !== undefined && (session === null || typeof session !== 'object')) {
      throw new TypeError('request.session must be an object')
    }
    const explicit = checkMode(own(request, 'mode'), 'request.mode')
    const sessionMode = session ? checkMode(own(session, 'sandboxMode'), 'session.sandboxMode') : undefined
    const sessionRoot = session ? checkRoot(own(session, 'cwd'), 'session.cwd') : undefined
    const sessionId = session ? checkId(own(session, 'id')) : undefined
    const mode = explicit ?? sessionMode ?? configured.mode ?? 'read-only'
    const root = sessionRoot ?? configured.workspaceRoot ?? currentDir()
    const policy = { mode, workspaceRoot: canonicalRoot(root) }
    return Object.freeze(sessionId === undefined ? policy : { ...policy, sessionId })
  }
  return Object.freeze({ resolve })
}

module.exports = { createSandboxPolicyService, SANDBOX_MODES }
