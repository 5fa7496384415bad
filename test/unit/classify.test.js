'use strict'
// classifyExit / classifySpawnError against the seam's rules, with real
// spawn errors from Node where provenance matters.
const t = require('tap')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { spawn } = require('node:child_process')
const { classifyExit, classifySpawnError, SandboxUnavailableError } = require('../..')

const confined = {
  argv: ['/opt/runner', '--', 'true'],
  enforcement: 'full',
  denialSignatures: ['Read-only file system'],
  runnerFailureRules: [
    { allowedExitCodes: [125], fatalSignatures: ['runner: fatal:'], informationalLines: ['runner: fatal: just a notice'] }
  ]
}

t.test('runner failure needs a nonzero exit, the exit-code gate and a fatal line', async (t) => {
  const stderr = 'noise\nRUNNER: FATAL: namespaces unavailable\n'
  t.same(classifyExit(confined, { code: 125, signal: null, stderr }), { kind: 'runner-failure', detail: 'RUNNER: FATAL: namespaces unavailable' })
  t.equal(classifyExit(confined, { code: 1, signal: null, stderr }).kind, 'ordinary', 'exit code outside the gate')
  t.equal(classifyExit(confined, { code: 0, signal: null, stderr }).kind, 'ordinary', 'a success is never a runner failure')
  t.equal(classifyExit(confined, { code: null, signal: 'SIGKILL', stderr }).kind, 'ordinary', 'a signal has no exit code')
  t.equal(classifyExit(confined, { code: 125, signal: null, stderr: 'exit status alone\n' }).kind, 'ordinary', 'exit status alone never proves it')
})

t.test('informational lines are removed by exact, case-insensitive full-line equality', async (t) => {
  t.equal(classifyExit(confined, { code: 125, stderr: 'Runner: Fatal: just a notice\n' }).kind, 'ordinary')
  t.equal(classifyExit(confined, { code: 125, stderr: 'runner: fatal: just a notice!\n' }).kind, 'runner-failure', 'not an exact line')
})

t.test('a rule without an exit-code gate matches any nonzero exit', async (t) => {
  const c = { ...confined, runnerFailureRules: [{ fatalSignatures: ['boom'] }] }
  t.equal(classifyExit(c, { code: 3, stderr: Buffer.from('x BOOM y') }).kind, 'runner-failure')
  const view = new Uint8Array(Buffer.from('no BOOM y')).subarray(3)
  t.same(classifyExit(c, { code: 3, stderr: view }), { kind: 'runner-failure', detail: 'BOOM y' }, 'a plain Uint8Array (a view: only its bytes)')
  t.equal(classifyExit(c, { code: 0, stderr: 'boom' }).kind, 'ordinary')
})

t.test('denials use the selected backend dialect only, and never for signals or successes', async (t) => {
  const line = "sh: 1: cannot create /etc/x: Read-only file system"
  t.same(classifyExit(confined, { code: 2, signal: null, stderr: line }), { kind: 'denied', detail: line })
  t.equal(classifyExit(confined, { code: 1, stderr: 'cat: x: Permission denied' }).kind, 'ordinary', 'another backend\'s dialect is not a denial here')
  t.equal(classifyExit(confined, { code: null, signal: 'SIGTERM', stderr: line }).kind, 'ordinary', 'signal')
  t.equal(classifyExit(confined, { code: 0, stderr: line }).kind, 'ordinary', 'success')
  t.equal(classifyExit(confined, {}).kind, 'ordinary', 'no facts at all')
  t.equal(classifyExit(confined).kind, 'ordinary')
})

t.test('runner failure is checked before denial', async (t) => {
  const c = { ...confined, denialSignatures: ['fatal'] }
  t.equal(classifyExit(c, { code: 125, stderr: 'runner: fatal: x' }).kind, 'runner-failure')
})

function spawnError (file, options = {}) {
  return new Promise((resolve) => {
    const child = spawn(file, [], options)
    child.on('error', resolve)
    child.on('exit', () => resolve(null))
  })
}

t.test('spawn ENOENT/EACCES of the provider argv[0] with a usable cwd is SANDBOX_UNAVAILABLE', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sandy-classify-'))
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }))
  const missing = path.join(dir, 'missing-runner')
  const c = { ...confined, argv: [missing, '--', 'true'] }
  const enoent = await spawnError(missing, { cwd: dir })
  t.equal(enoent.code, 'ENOENT')
  const e = classifySpawnError(c, enoent, { cwd: dir })
  t.ok(e instanceof SandboxUnavailableError)
  t.equal(e.code, 'SANDBOX_UNAVAILABLE')
  t.equal(e.cause, enoent, 'the original error is attached')

  const plain = path.join(dir, 'not-executable')
  fs.writeFileSync(plain, '#!/bin/sh\n')
  const eacces = await spawnError(plain, { cwd: dir })
  t.equal(eacces.code, 'EACCES')
  t.ok(classifySpawnError({ ...c, argv: [plain] }, eacces, { cwd: dir }) instanceof SandboxUnavailableError)
})

t.test('everything else keeps ordinary command-start semantics', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sandy-classify-'))
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }))
  const missing = path.join(dir, 'missing-runner')
  const c = { ...confined, argv: [missing] }
  const enoent = await spawnError(missing, { cwd: dir })
  const gone = path.join(dir, 'gone')
  t.equal(classifySpawnError(c, enoent, { cwd: gone }), null, 'cwd not usable')
  t.equal(classifySpawnError(c, enoent, { cwd: '' }), null, 'cwd empty')
  t.equal(classifySpawnError(c, enoent, { cwd: path.join(dir, '..', path.basename(dir), 'x') }), null)
  fs.writeFileSync(path.join(dir, 'file'), '')
  t.equal(classifySpawnError(c, enoent, { cwd: path.join(dir, 'file') }), null, 'cwd is a file')
  t.equal(classifySpawnError({ ...c, argv: ['/other'] }, enoent, { cwd: dir }), null, 'another argv[0]')
  const bare = Object.assign(new Error('spawn ENOENT'), { code: 'ENOENT', syscall: 'spawn' })
  t.equal(classifySpawnError(c, bare, { cwd: dir }), null, 'bare syscall spawn without a path')
  const elsewhere = Object.assign(new Error('spawn ENOENT'), { code: 'ENOENT', syscall: 'spawn', path: '/other' })
  t.equal(classifySpawnError(c, elsewhere, { cwd: dir }), null, 'bare syscall spawn with another path')
  const other = Object.assign(new Error('x'), { code: 'ENOENT', syscall: 'open', path: missing })
  t.equal(classifySpawnError(c, other, { cwd: dir }), null, 'an unrelated syscall with the exact path')
  const emfile = Object.assign(new Error('x'), { code: 'EMFILE', syscall: `spawn ${missing}`, path: missing })
  t.equal(classifySpawnError(c, emfile, { cwd: dir }), null, 'resource failure')
  t.equal(classifySpawnError(c, { code: 'ENOENT' }, { cwd: dir }), null, 'not an Error')
  t.ok(classifySpawnError(c, enoent) instanceof SandboxUnavailableError, 'the default cwd is process.cwd(), which is usable')
})

t.test('a bare spawn syscall with the exact path of argv[0] is the runner failing to start', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sandy-classify-'))
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }))
  const missing = path.join(dir, 'missing-runner')
  const c = { ...confined, argv: [missing] }
  for (const syscall of ['spawn', 'spawnSync']) {
    for (const code of ['ENOENT', 'EACCES']) {
      const err = Object.assign(new Error(`${syscall} ${code}`), { code, syscall, path: missing })
      const verdict = classifySpawnError(c, err, { cwd: dir })
      t.ok(verdict instanceof SandboxUnavailableError, `${syscall} ${code} with path ${missing}`)
      t.equal(verdict.cause, err)
    }
  }
})

t.test('classifyExit validates the rules it is given: a blank signature cannot match every line', async (t) => {
  const line = { code: 1, stderr: 'any line at all\n' }
  for (const [rules, message] of [
    [[{ fatalSignatures: [''] }], /runnerFailureRules\[0\]\.fatalSignatures must be a non-empty array of non-blank, single-line strings/],
    [[{ fatalSignatures: ['  '] }], /fatalSignatures/],
    [[{ fatalSignatures: ['a\nb'] }], /fatalSignatures/],
    [[{ fatalSignatures: [] }], /fatalSignatures/],
    [[{ fatalSignatures: 'x' }], /fatalSignatures/],
    [[{ fatalSignatures: ['ok'] }, { fatalSignatures: [' '] }], /runnerFailureRules\[1\]/],
    [[{ fatalSignatures: ['x'], allowedExitCodes: [0] }], /allowedExitCodes must be an array of nonzero integers/],
    [[{ fatalSignatures: ['x'], allowedExitCodes: 125 }], /allowedExitCodes/],
    [[{ fatalSignatures: ['x'], informationalLines: [1] }], /informationalLines must be an array of strings/],
    [[null], /runnerFailureRules\[0\] must be an object/]
  ]) {
    t.throws(() => classifyExit({ ...confined, runnerFailureRules: rules }, line), { name: 'TypeError', message })
  }
  t.throws(() => classifyExit({ ...confined, denialSignatures: [''] }, line), /denialSignatures must be non-blank/)
  t.throws(() => classifyExit(null, line), /confined must be a ConfinedArgv/)
  t.throws(() => classifyExit({ argv: ['x'] }, line), /confined must be a ConfinedArgv/)
  t.throws(() => classifyExit({ ...confined, denialSignatures: [1] }, line), /confined must be a ConfinedArgv/)
  for (const code of ['1', 0.5, NaN, 1n]) {
    t.throws(() => classifyExit(confined, { code, stderr: 'runner: fatal: x' }), { name: 'TypeError', message: /code must be an integer or null/ }, `code ${String(code)}`)
  }
  // a rule is read once: a getter cannot pass the check and then answer a blank
  let reads = 0
  const sly = { get fatalSignatures () { return reads++ === 0 ? ['runner: fatal'] : [''] } }
  t.equal(classifyExit({ ...confined, runnerFailureRules: [sly] }, line).kind, 'ordinary', 'checked and matched as first read')
  t.equal(reads, 1)
  // control: the same run with a real signature is ordinary
  t.equal(classifyExit({ ...confined, runnerFailureRules: [{ fatalSignatures: ['runner: fatal'] }] }, line).kind, 'ordinary')
})

t.test('the synchronous spawn APIs have the same provenance', async (t) => {
  const { spawnSync } = require('node:child_process')
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sandy-classify-'))
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }))
  const missing = path.join(dir, 'missing-runner')
  const r = spawnSync(missing, [], { cwd: dir })
  t.equal(r.error.syscall, `spawnSync ${missing}`)
  t.ok(classifySpawnError({ ...confined, argv: [missing] }, r.error, { cwd: dir }) instanceof SandboxUnavailableError)
})
