'use strict'
// A seam provider's confine in a node process of the user, with the
// environment the user's commands see (a fake $HOME, say), and a run of
// the argv it gives as that user: the two halves of every case that
// compares a confined command with its unconfined control.
const path = require('node:path')
const { spawn, spawnSync } = require('node:child_process')
const { plainNodeEnv, withSanitizerEnv } = require('./sandbox.js')

const PACKAGE = path.join(__dirname, '..', '..')
// (a test build of the launcher, when the suite runs against one, starts
// from the user's node process too: test/helpers/launcher-override.js)
const OVERRIDE = process.env.SANDY_TEST_LAUNCHER ? ['-r', path.join(__dirname, 'launcher-override.js')] : []

// The argv that runs node with args as user (behind setpriv for uid 65534).
function nodeAs (user, args) {
  return [...user.wrap, process.execPath, ...args]
}

// provider.confine as user, in a node process of the user with env; the
// ConfinedArgv, or { error: { name, code, message, reasons } }.
function confineAs (user, env, options, argv, request) {
  const script = `const [pkg, a] = process.argv.slice(1); const x = JSON.parse(a)
    try { process.stdout.write(JSON.stringify(require(pkg).createLocalSandboxProvider(x.options).confine(x.argv, x.request))) }
    catch (err) { process.stdout.write(JSON.stringify({ error: { name: err.name, code: err.code, message: err.message, reasons: err.reasons } })) }`
  const full = nodeAs(user, [...OVERRIDE, '-e', script, PACKAGE, JSON.stringify({ options, argv, request })])
  const r = spawnSync(full[0], full.slice(1), { cwd: '/', env: plainNodeEnv(env), encoding: 'utf8' })
  if (r.status !== 0) throw new Error(`confine as ${user.name} failed: ${r.error || r.stderr}`)
  return JSON.parse(r.stdout)
}

// (the coverage build's streams, when the suite runs against it,
// test/meta/c-coverage.test.js)
const COVERAGE = process.env.SANDY_COVERAGE_DIR ? { SANDY_COVERAGE_DIR: process.env.SANDY_COVERAGE_DIR } : {}

function runAs (user, argv, { cwd, env }) {
  const full = [...user.wrap, ...argv]
  return new Promise((resolve, reject) => {
    const child = spawn(full[0], full.slice(1), { cwd, env: withSanitizerEnv({ ...COVERAGE, ...env }), stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d) => { stdout += d })
    child.stderr.on('data', (d) => { stderr += d })
    child.on('error', reject)
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }))
  })
}

module.exports = { confineAs, runAs, nodeAs, PACKAGE }
