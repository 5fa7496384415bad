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
const { spawn, execFileSync } = require('node:child_process')
const { UNCOVERED } = require('../../scripts/test-verdict.js')
const { createLocalSandboxProvider, classifySpawnError, classifyExit, SandboxUnavailableError } = require('../..')

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

t.test('a name that cannot be found points where nothing can be: its spawn is the runner failing to start', async (t) => {
  const name = `sandy-no-such-runner-${process.pid}`
  // a PATH with an empty and a relative entry, and the name planted in the
  // workspace, where a spawn's own lookup would find it
  runnerAt(path.join(ws, name))
  runnerAt(path.join(ws, 'bin', name))
  const provider = withPath('/usr/bin::bin:.:/bin:', () => createLocalSandboxProvider(config(name)))
  const c = provider.confine(['true'], request('workspace-write'))
  t.equal(c.argv[0], `/proc/sandy-native-runner-not-found/${name}`, 'never the bare name')
  const r = await run(c.argv, ws)
  t.equal(r.error.code, 'ENOENT', 'the planted files do not run')
  const verdict = classifySpawnError(c, r.error, { cwd: ws })
  t.ok(verdict instanceof SandboxUnavailableError, 'SANDBOX_UNAVAILABLE, not an ordinary failure')
  t.equal(verdict.cause, r.error)
  t.equal(withPath(undefined, () => createLocalSandboxProvider(config(name))).confine(['true'], request('read-only')).argv[0],
    `/proc/sandy-native-runner-not-found/${name}`, 'no PATH: the same')
  // control: the same bare spawn, with no provider, runs the planted file
  const bare = await new Promise((resolve) => {
    const child = spawn(name, [], { cwd: ws, env: { PATH: '/usr/bin::bin:/bin' }, stdio: 'ignore' })
    child.on('error', (error) => resolve(error.code))
    child.on('close', (code) => resolve(code))
  })
  t.equal(bare, 0, 'a bare name spawned with that PATH runs the workspace\'s file')
  // and it stays so once the program appears on PATH
  const bin = path.join(dir, 'bin-late')
  runnerAt(path.join(bin, name))
  t.equal(withPath(`${bin}:/usr/bin`, () => provider.confine(['true'], request('read-only')).argv[0]), c.argv[0])
  for (const f of [path.join(ws, name), path.join(ws, 'bin', name)]) fs.rmSync(f)
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
  // where a missing runner would be, or a dangling link leads, counts too
  const dangling = path.join(dir, 'dangling-runner')
  fs.symlinkSync(path.join(ws, 'later', 'fake-runner'), dangling)
  const detour = path.join(dir, 'detour')
  fs.mkdirSync(path.join(ws, 'tools', 'sub'), { recursive: true })
  fs.symlinkSync(path.join(ws, 'tools', 'sub'), detour)
  for (const [what, file] of [['a missing file in it', path.join(ws, 'not-yet', 'fake-runner')], ['a dangling link into it', dangling],
    ['a path stepping out of a link into it with ..', `${detour}/../fake-runner`]]) {
    const err = t.throws(() => createLocalSandboxProvider(config(file)).confine(['true'], request('workspace-write')), SandboxUnavailableError, what)
    t.match(err.reasons, [/runner: lies inside the writable workspace/], what)
  }
  // controls: one outside is used, and a missing one outside fails at spawn
  const outside = runnerAt(path.join(dir, 'outside', 'fake-runner'))
  t.equal(createLocalSandboxProvider(config(outside)).confine(['true'], request('workspace-write')).argv[0], outside)
  const missing = path.join(dir, 'outside', 'not-yet')
  const c = createLocalSandboxProvider(config(missing)).confine(['true'], request('workspace-write'))
  const r = await run(c.argv, ws)
  t.equal(r.error.code, 'ENOENT', 'a missing runner is the spawn failing')
  // and a runner's own refusal is a runner failure by its signature
  t.equal(classifyExit(c, { code: 1, stderr: 'fake-runner: fatal: no\n' }).kind, 'runner-failure')
})

t.test('a runner that is a workspace file under another name is refused', async (t) => {
  const inside = runnerAt(path.join(ws, 'linked', 'fake-runner'))
  const hard = path.join(dir, 'hard-runner')
  fs.linkSync(inside, hard)
  const err = t.throws(() => createLocalSandboxProvider(config(hard)).confine(['true'], request('workspace-write')), SandboxUnavailableError)
  t.match(err.reasons, [/runner: has a second hard link on the writable workspace's filesystem/], 'a hard link')
  if (process.getuid() !== 0) return t.skip(`${UNCOVERED} a bind mount of a workspace directory as the runner's: this run is not root`)
  const bound = path.join(dir, 'bound-bin')
  fs.mkdirSync(bound)
  execFileSync('mount', ['--bind', path.join(ws, 'linked'), bound])
  t.teardown(() => execFileSync('umount', ['--lazy', bound]))
  const viaMount = path.join(bound, 'fake-runner')
  const e2 = t.throws(() => createLocalSandboxProvider(config(viaMount)).confine(['true'], request('workspace-write')), SandboxUnavailableError)
  t.match(e2.reasons, [/runner: lies inside the writable workspace \(seen through another mount\)/], 'a bind mount of a workspace directory')
  // control: the bind mount's file is the workspace's, which a confined command can write
  fs.appendFileSync(inside, '# changed\n')
  t.match(fs.readFileSync(viaMount, 'utf8'), /# changed/)
})

t.test('options are read as own properties: a polluted prototype configures nothing', async (t) => {
  const polluted = { argv: ['/bin/sh', '-c', 'exec "$@"', 'x'], runnerFailureSignatures: ['x'], enforcement: 'full' }
  Object.prototype.runner = polluted // eslint-disable-line no-extend-native
  Object.prototype.sandboxMode = 'danger-full-access' // eslint-disable-line no-extend-native
  try {
    const p = createLocalSandboxProvider()
    t.not(p.probe().selected, 'runner', 'no runner from the prototype')
    t.not(p.confine(['true'], { workspaceRoot: ws, mode: 'read-only' }).argv[0], '/bin/sh')
    const { createSandboxPolicyService } = require('../..')
    t.equal(createSandboxPolicyService().resolve({ session: { cwd: ws } }).mode, 'read-only', 'no mode from the prototype')
  } finally {
    delete Object.prototype.runner
    delete Object.prototype.sandboxMode
  }
})

t.test('runner.argv[0] must name a program', async (t) => {
  t.throws(() => createLocalSandboxProvider(config('')), { name: 'TypeError', message: /runner.argv\[0\] must name a program/ })
})

t.test('without /proc/self/mountinfo a workspace-write runner is refused, not guessed at', async (t) => {
  const real = fs.readFileSync
  const { createLocalSandboxProvider: create } = t.mockRequire('../../lib/provider.js', {
    '../../lib/runner.js': t.mockRequire('../../lib/runner.js', {
      'node:fs': { ...fs, readFileSync: (file, ...rest) => { if (file === '/proc/self/mountinfo') throw Object.assign(new Error('gone'), { code: 'ENOENT' }); return real(file, ...rest) } }
    })
  })
  const outside = runnerAt(path.join(dir, 'outside-2', 'fake-runner'))
  const err = t.throws(() => create(config(outside)).confine(['true'], request('workspace-write')), { code: 'SANDBOX_UNAVAILABLE' })
  t.match(err.reasons, [/runner: cannot be placed \(\/proc\/self\/mountinfo: ENOENT\)/])
  t.equal(create(config(outside)).confine(['true'], request('read-only')).argv[0], outside, 'read-only does not need it')
})
