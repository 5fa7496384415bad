'use strict'
// An operator's runner as dsh configures one: a bare name is looked up on
// PATH once, when the provider is created; a relative path is resolved
// against the working directory then; a name that cannot be found is kept,
// so its spawn fails with ENOENT, which classifySpawnError reports as the
// runner failing to start. A runner a confined command could have written
// (inside the writable workspace, by identity; or a name that appeared on
// PATH since) is refused at confine.
const t = require('tap')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { spawn } = require('node:child_process')
const { createLocalSandboxProvider, classifySpawnError, classifyExit, SandboxUnavailableError } = require('..')

const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'sandy-runner-')))
t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }))

// A runner that takes its --flag, then runs what follows, after a notice
// on stderr.
function runnerAt (file) {
  fs.mkdirSync(path.dirname(file), { recursive: true })
  fs.writeFileSync(file, '#!/bin/sh\necho "fake-runner: starting" >&2\n[ "$1" = --flag ] && shift\nexec "$@"\n', { mode: 0o755 })
  return file
}

const config = (argv0) => ({ runner: { argv: [argv0, '--flag'], runnerFailureSignatures: ['fake-runner: fatal:'], enforcement: 'partial' } })

// PATH set to value for the duration of fn (undefined: unset).
function withPath (value, fn) {
  const saved = process.env.PATH
  if (value === undefined) delete process.env.PATH
  else process.env.PATH = value
  try {
    return fn()
  } finally {
    process.env.PATH = saved
  }
}

function run (argv, cwd) {
  return new Promise((resolve) => {
    const child = spawn(argv[0], argv.slice(1), { cwd, stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d) => { stdout += d })
    child.stderr.on('data', (d) => { stderr += d })
    child.on('error', (error) => resolve({ error }))
    child.on('close', (code) => resolve({ code, stdout, stderr }))
  })
}

const ws = path.join(dir, 'ws')
fs.mkdirSync(ws)
const request = (mode) => ({ mode, workspaceRoot: ws })

t.test('a bare name is looked up on PATH once, when the provider is created', async (t) => {
  const bin = path.join(dir, 'bin-a')
  const file = runnerAt(path.join(bin, 'fake-runner'))
  const provider = withPath(`relative-dir:${bin}:/usr/bin:/bin`, () => createLocalSandboxProvider(config('fake-runner')))
  const c = provider.confine(['echo', 'hi'], request('workspace-write'))
  t.same(c.argv, [file, '--flag', 'echo', 'hi'], 'the absolute path from then on')
  const r = await run(c.argv, ws)
  t.equal(r.code, 0, r.stderr)
  t.equal(r.stdout, 'hi\n', 'the runner runs the command')
  // another program of that name earlier on PATH later changes nothing
  const other = runnerAt(path.join(dir, 'bin-b', 'fake-runner'))
  t.same(withPath(`${path.dirname(other)}:${bin}`, () => provider.confine(['true'], request('read-only')).argv[0]), file)
})

t.test('a relative path is resolved against the working directory at creation', async (t) => {
  const file = runnerAt(path.join(dir, 'rel', 'bin', 'fake-runner'))
  const saved = process.cwd()
  process.chdir(path.join(dir, 'rel'))
  let provider
  try {
    provider = createLocalSandboxProvider(config('./bin/fake-runner'))
  } finally {
    process.chdir(saved)
  }
  t.equal(provider.confine(['true'], request('read-only')).argv[0], file)
  t.equal(createLocalSandboxProvider(config('bin/../rel/bin/fake-runner')).confine(['true'], request('read-only')).argv[0],
    path.resolve('bin/../rel/bin/fake-runner'), 'a path with a slash is never looked up on PATH')
})

t.test('a name that cannot be found is kept, and its spawn is the runner failing to start', async (t) => {
  const name = `sandy-no-such-runner-${process.pid}`
  const provider = withPath('/usr/bin:/bin', () => createLocalSandboxProvider(config(name)))
  const c = provider.confine(['true'], request('read-only'))
  t.equal(c.argv[0], name)
  const r = await run(c.argv, ws)
  t.equal(r.error.code, 'ENOENT')
  const verdict = classifySpawnError(c, r.error, { cwd: ws })
  t.ok(verdict instanceof SandboxUnavailableError, 'SANDBOX_UNAVAILABLE, not an ordinary failure')
  t.equal(verdict.cause, r.error)
  t.equal(withPath(undefined, () => createLocalSandboxProvider(config(name))).confine(['true'], request('read-only')).argv[0], name, 'no PATH: kept too')
  // once something puts it on PATH, a later confine refuses
  const bin = path.join(dir, 'bin-late')
  runnerAt(path.join(bin, name))
  const err = withPath(`${bin}:/usr/bin`, () => t.throws(() => provider.confine(['true'], request('read-only')), SandboxUnavailableError))
  t.match(err.reasons, [/runner: was not on PATH when the provider was created and is now/])
})

t.test('a runner inside the writable workspace is refused, by identity', async (t) => {
  const inside = runnerAt(path.join(ws, 'tools', 'fake-runner'))
  const link = path.join(dir, 'link-to-inside')
  fs.symlinkSync(inside, link)
  const alias = path.join(dir, 'ws-alias')
  fs.symlinkSync(ws, alias)
  for (const [what, file] of [['its path', inside], ['a symlink to it', link], ['a path through a symlink to the workspace', path.join(alias, 'tools', 'fake-runner')]]) {
    const provider = createLocalSandboxProvider(config(file))
    const err = t.throws(() => provider.confine(['true'], request('workspace-write')), SandboxUnavailableError, what)
    t.match(err.reasons, [/runner: lies inside the writable workspace/], what)
    t.equal(provider.confine(['true'], request('read-only')).argv[0], file, `${what}: read-only writes nothing, so it is used`)
  }
  // controls: one outside is used, and one not there yet fails at spawn
  const outside = runnerAt(path.join(dir, 'outside', 'fake-runner'))
  t.equal(createLocalSandboxProvider(config(outside)).confine(['true'], request('workspace-write')).argv[0], outside)
  const missing = path.join(ws, 'not-yet', 'fake-runner')
  const c = createLocalSandboxProvider(config(missing)).confine(['true'], request('workspace-write'))
  const r = await run(c.argv, ws)
  t.equal(r.error.code, 'ENOENT', 'a missing runner is the spawn failing')
  // and a runner's own refusal is a runner failure by its signature
  t.equal(classifyExit(c, { code: 1, stderr: 'fake-runner: fatal: no\n' }).kind, 'runner-failure')
})

t.test('runner.argv[0] must name a program', async (t) => {
  t.throws(() => createLocalSandboxProvider(config('')), { name: 'TypeError', message: /runner.argv\[0\] must name a program/ })
})
