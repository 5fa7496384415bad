'use strict'
// The operator's writable roots: the provider's writableRoots option and
// `sandy run --allow-write DIR`. Each usable backend, as root and as uid
// 65534: a root is writable with the option and only then, its siblings
// stay read-only, a root replaced after confine fails closed, and one that
// holds a launcher copy is refused by the provider and, asked directly, by
// the launcher and the bwrap guard. Every denied write is also shown to
// succeed unconfined.
const t = require('tap')
const fs = require('node:fs')
const path = require('node:path')
const { spawn, execFileSync } = require('node:child_process')
const { users, backendsFor, withSanitizerEnv } = require('../helpers/sandbox.js')
const { patience } = require('../helpers/patience.js')
const { UNCOVERED } = require('../../scripts/test-verdict.js')
const sandy = require('../..')
const binding = require('../../lib/binding.js')
const { LAUNCHER } = require('../../lib/vocabulary.js')

// npm runs on every backend as two users: more than tap's default beside
// the suite's other heavy files.
t.setTimeout(patience(600000))

const { createLocalSandboxProvider, classifyExit } = sandy
const PACKAGE = path.join(__dirname, '..', '..')
const SANDY = path.join(PACKAGE, 'bin', 'sandy')
const NONCE = 'ab'.repeat(16)

const dir = fs.realpathSync(fs.mkdtempSync('/var/tmp/sandy-wr-'))
fs.chmodSync(dir, 0o755)
t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }))

function spawnCollect (argv, { cwd, env }) {
  return new Promise((resolve) => {
    const child = spawn(argv[0], argv.slice(1), { cwd, env: withSanitizerEnv(env), stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d) => { stdout += d })
    child.stderr.on('data', (d) => { stderr += d })
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }))
  })
}

// The CLI as a process of user; env -u NODE_OPTIONS keeps tap's hooks out.
function cli (user, args, cwd, env = {}) {
  return spawnCollect([...user.wrap, '/usr/bin/env', '-u', 'NODE_OPTIONS', process.execPath, SANDY, ...args],
    { cwd, env: { PATH: '/usr/bin:/bin', ...env } })
}

// argv as user, unconfined or already confined.
function runAs (user, argv, cwd) {
  return spawnCollect([...user.wrap, ...argv], { cwd, env: { PATH: '/usr/bin:/bin' } })
}

const sh = (script) => ['/bin/sh', '-c', script]

// A fresh directory under dir owned by user.
function ownDir (user, name) {
  const d = path.join(dir, name)
  fs.mkdirSync(d, { recursive: true })
  fs.chownSync(d, user.uid, user.gid)
  return d
}

const idOf = (p) => {
  const st = fs.statSync(p, { bigint: true })
  return `${st.dev}:${st.ino}`
}

for (const user of users()) {
  for (const backend of backendsFor(t, user, ['sandy', 'bwrap', 'landlock'])) {
    t.test(`--allow-write DIR with ${backend} [${user.name}]`, async (t) => {
      const ws = ownDir(user, `ws-${backend}-${user.uid}`)
      const cache = ownDir(user, `cache-${backend}-${user.uid}`)
      const sibling = ownDir(user, `sibling-${backend}-${user.uid}`)
      const mode = ['--mode', 'workspace-write', '--backend', backend]
      const script = `echo a > ${cache}/f && mkdir ${cache}/sub && echo b > ${cache}/sub/g && echo c > ${ws}/h`

      const before = await cli(user, ['run', ...mode, '--', ...sh(script)], ws)
      t.not(before.code, 0, 'without --allow-write the directory is read-only')
      t.match(before.stderr, /Read-only file system|Permission denied/)
      t.notOk(fs.existsSync(path.join(cache, 'f')))

      const r = await cli(user, ['run', ...mode, '--allow-write', cache, '--verbose', '--', ...sh(script)], ws)
      t.equal(r.code, 0, r.stderr)
      t.equal(fs.readFileSync(path.join(cache, 'sub', 'g'), 'utf8'), 'b\n', 'with it, writes and new directories land on the host')
      t.equal(fs.readFileSync(path.join(ws, 'h'), 'utf8'), 'c\n', 'and the workspace stays writable')
      t.match(r.stderr, new RegExp(`^sandy: writable beside the workspace: ${cache}$`, 'm'), '--verbose names it')

      const beside = await cli(user, ['run', ...mode, '--allow-write', cache, '--', ...sh(`echo x > ${sibling}/f`)], ws)
      t.not(beside.code, 0, 'a sibling of the writable root stays read-only')
      t.notOk(fs.existsSync(path.join(sibling, 'f')))

      const ro = await cli(user, ['run', '--mode', 'read-only', '--backend', backend, '--allow-write', cache, '--', 'true'], ws)
      t.equal(ro.code, 2, 'read-only with --allow-write is a usage error')
      t.match(ro.stderr, /--allow-write goes with --mode workspace-write, not read-only/)

      for (const target of [path.join(sibling, 'f'), path.join(cache, 'f2')]) {
        const bare = await runAs(user, sh(`echo x > ${target}`), ws)
        t.equal(bare.code, 0, `unconfined, ${target} can be written`)
      }
    })

    // the must-show: a package manager's cache in the home directory
    t.test(`npm with its cache writable, with ${backend} [${user.name}]`, async (t) => {
      const home = ownDir(user, `home-${backend}-${user.uid}`)
      const ws = ownDir(user, `npm-ws-${backend}-${user.uid}`)
      const npmDir = ownDir(user, `home-${backend}-${user.uid}/.npm`)
      const npm = ['--', 'npm', 'cache', 'verify']
      const env = { HOME: home, npm_config_update_notifier: 'false' }
      const without = await cli(user, ['run', '--mode', 'workspace-write', '--backend', backend, ...npm], ws, env)
      t.not(without.code, 0, 'without --allow-write npm cannot write ~/.npm')
      t.match(without.stderr, /EROFS|EACCES|EPERM|Log files were not written/)
      const withIt = await cli(user, ['run', '--mode', 'workspace-write', '--backend', backend, '--allow-write', npmDir, ...npm], ws, env)
      t.equal(withIt.code, 0, withIt.stderr)
      t.match(withIt.stdout, /Cache verified and compressed|Content verified/)
      t.ok(fs.existsSync(path.join(npmDir, '_cacache')), 'npm wrote its cache on the host')
      const bare = await runAs(user, ['/usr/bin/env', `HOME=${home}`, 'npm_config_update_notifier=false', 'npm', 'cache', 'verify'], ws)
      t.equal(bare.code, 0, 'unconfined npm works too')
    })
  }
}

// Through the provider: argvs made here, run as each user.
const native = ['sandy', 'bwrap'].filter((b) => sandy.probe().backends[b].usable)

for (const user of users()) {
  for (const backend of native) {
    t.test(`a writable root replaced after confine fails closed, with ${backend} [${user.name}]`, async (t) => {
      const ws = ownDir(user, `swap-ws-${backend}-${user.uid}`)
      const root = ownDir(user, `swap-root-${backend}-${user.uid}`)
      const c = createLocalSandboxProvider({ backend, writableRoots: [root] })
        .confine(sh(`echo x > ${root}/f`), { mode: 'workspace-write', workspaceRoot: ws })
      fs.renameSync(root, `${root}.old`)
      ownDir(user, path.basename(root))
      const r = await runAs(user, c.argv, ws)
      t.equal(r.code, 125, r.stderr)
      t.match(r.stderr, /changed since confine/)
      t.equal(classifyExit(c, r).kind, 'runner-failure')
      t.notOk(fs.existsSync(path.join(root, 'f')), 'nothing written to the new directory')
      t.notOk(fs.existsSync(path.join(`${root}.old`, 'f')), 'nor to the old one')
      const bare = await runAs(user, sh(`echo x > ${root}/f`), ws)
      t.equal(bare.code, 0, 'unconfined, the new directory is writable')
    })

    t.test(`a writable root that holds the workspace, and one in /tmp, with ${backend} [${user.name}]`, async (t) => {
      const outer = ownDir(user, `outer-${backend}-${user.uid}`)
      const ws = ownDir(user, `outer-${backend}-${user.uid}/ws`)
      const inTmp = fs.realpathSync(fs.mkdtempSync('/tmp/sandy-wr-'))
      t.teardown(() => fs.rmSync(inTmp, { recursive: true, force: true }))
      fs.chownSync(inTmp, user.uid, user.gid)
      const c = createLocalSandboxProvider({ backend, writableRoots: [outer, inTmp] })
        .confine(sh(`echo a > ${outer}/f && echo b > ${ws}/g && echo c > ${inTmp}/h`), { mode: 'workspace-write', workspaceRoot: ws })
      t.same(c.writableRoots, [outer, inTmp])
      const r = await runAs(user, c.argv, ws)
      t.equal(r.code, 0, r.stderr)
      t.equal(fs.readFileSync(path.join(outer, 'f'), 'utf8'), 'a\n')
      t.equal(fs.readFileSync(path.join(ws, 'g'), 'utf8'), 'b\n')
      t.equal(fs.readFileSync(path.join(inTmp, 'h'), 'utf8'), 'c\n', 'the host directory in /tmp, not the private /tmp')
      const other = `/tmp/sandy-wr-other-${process.pid}-${backend}-${user.uid}`
      const elsewhere = await runAs(user, c.argv.slice(0, -1).concat(`echo x > ${other}`), ws)
      t.equal(elsewhere.code, 0, 'the rest of /tmp is the private one')
      t.notOk(fs.existsSync(other), 'so nothing lands in the host /tmp')
      const bare = await runAs(user, sh(`echo x > ${other}`), ws)
      t.equal(bare.code, 0, 'unconfined it lands')
      fs.rmSync(other)
    })
  }
}

t.test('the facts name the roots made writable, canonical', async (t) => {
  const ws = fs.mkdtempSync(path.join(dir, 'facts-ws-'))
  const a = fs.mkdtempSync(path.join(dir, 'facts-a-'))
  const link = path.join(dir, 'facts-link')
  fs.symlinkSync(a, link)
  const provider = createLocalSandboxProvider({ writableRoots: [link, a, ws, path.join(dir, 'not-made-yet')] })
  const c = provider.confine(['true'], { mode: 'workspace-write', workspaceRoot: ws })
  t.same(c.writableRoots, [a], 'canonical, once, without the workspace or a directory that does not exist')
  t.ok(Object.isFrozen(c.writableRoots))
  t.same(provider.confine(['true'], { mode: 'read-only', workspaceRoot: ws }).writableRoots, [], 'read-only writes nothing')
  t.same(createLocalSandboxProvider().confine(['true'], { mode: 'workspace-write', workspaceRoot: ws }).writableRoots, [], 'none without the option')
  const runner = { argv: ['/usr/bin/env'], runnerFailureSignatures: ['runner: fatal'], enforcement: 'partial' }
  t.same(createLocalSandboxProvider({ runner }).confine(['true'], { mode: 'workspace-write', workspaceRoot: ws }).writableRoots, [])
})

t.test('writableRoots: bad options and refused directories', async (t) => {
  const runner = { argv: ['/usr/bin/env'], runnerFailureSignatures: ['runner: fatal'], enforcement: 'partial' }
  for (const [value, message] of [
    ['/x', /must be an array of at most 8 paths/],
    [Array(LAUNCHER.writableRootsMax + 1).fill('/x'), /at most 8/],
    [['relative'], /writableRoots\[0\] must be an absolute path string/],
    [['/a', ''], /writableRoots\[1\] must be an absolute path string/],
    [['/a\0b'], /must be an absolute path string/],
    [['/\ud800'], /must be an absolute path string/],
    [[7], /must be an absolute path string/]
  ]) {
    t.throws(() => createLocalSandboxProvider({ writableRoots: value }), { name: 'TypeError', message })
  }
  t.throws(() => createLocalSandboxProvider({ runner, writableRoots: ['/x'] }), /cannot go with options.runner/)
  if (native.includes('bwrap')) {
    const bwrapDir = path.dirname(sandy.probe().bwrap.path)
    const p = createLocalSandboxProvider({ backend: 'bwrap', writableRoots: [bwrapDir] })
    const err = t.throws(() => p.confine(['true'], { mode: 'workspace-write', workspaceRoot: dir }), { code: 'SANDBOX_UNAVAILABLE' })
    t.match(err.reasons, [/bwrap: found inside the workspace root or a writable root/], 'bubblewrap inside a writable root is refused')
  }

  const ws = fs.mkdtempSync(path.join(dir, 'refused-ws-'))
  const file = path.join(ws, 'file')
  fs.writeFileSync(file, '')
  const launcher = binding.verifiedLauncherPath()
  const copyDir = binding.guardedDirs(launcher).find((d) => !ws.startsWith(d))
  const refused = [
    ['/', /is \/, which would make everything writable/],
    ['/tmp', /is a temp area the sandbox makes private to each run/],
    ['/dev/shm', /lies on a kernel filesystem|is a temp area/],
    ['/proc/sys', /lies on a kernel filesystem/],
    [file, /is not a directory/],
    [copyDir, /holds the launcher's copy/],
    [path.dirname(copyDir), /holds the parent of a launcher copy directory/]
  ]
  const fine = fs.mkdtempSync(path.join(dir, 'fine-'))
  for (const [root, message] of refused) {
    const p = createLocalSandboxProvider({ writableRoots: [fine, root] })
    const err = t.throws(() => p.confine(['true'], { mode: 'workspace-write', workspaceRoot: ws }), { name: 'RangeError', message })
    t.match(err.message, /^options\.writableRoots\[1\] /, `${root}: named by its index`)
    if (root !== '/') t.notOk(err.message.includes(root), `${root}: the path is not echoed`)
    t.same(err.writableRoot, { index: 1, why: err.message.slice('options.writableRoots[1] '.length) })
    // read-only ignores the option: nothing to refuse
    t.doesNotThrow(() => p.confine(['true'], { mode: 'read-only', workspaceRoot: ws }))
  }
})

t.test('sandy run --allow-write: usage errors and refusals name what the user typed', async (t) => {
  const user = users()[0]
  const ws = fs.mkdtempSync(path.join(dir, 'cli-ws-'))
  const typed = `${dir}/no-such-dir`
  const cases = [
    [['--policy', '/x.json', '--allow-write', ws], 2, /--root, --backend and --allow-write go with --mode, not --policy/],
    [['--mode', 'read-only', '--allow-write', ws], 2, /--allow-write goes with --mode workspace-write, not read-only/],
    [['--mode', 'workspace-write', '--allow-write', typed], 2, new RegExp(`--allow-write ${typed}: no such directory \\(ENOENT\\)`)],
    [['--mode', 'workspace-write', ...Array(LAUNCHER.writableRootsMax + 1).fill(['--allow-write', ws]).flat()], 2, /--allow-write may be given at most 8 times/],
    [['--mode', 'workspace-write', '--allow-write', '/'], 1, /^sandy run: --allow-write \/ is \/, which would make everything writable$/m],
    [['--mode', 'workspace-write', '--allow-write', '/tmp/'], 1, /^sandy run: --allow-write \/tmp\/ is a temp area/m]
  ]
  for (const [args, code, message] of cases) {
    const r = await cli(user, ['run', ...args, '--', 'true'], ws)
    t.equal(r.code, code, `${args.join(' ')}: exit ${code}`)
    t.match(r.stderr, message)
  }
})

t.test('sandy run --allow-write warns when DIR holds sandy-native\'s own files or lies among them', async (t) => {
  const user = users()[0]
  const ws = fs.mkdtempSync(path.join(dir, 'pkg-ws-'))
  const warning = /^sandy: warning: --allow-write (.+?) holds sandy-native's own files \(its JavaScript and addon\) or lies among them: /m
  for (const typed of [path.join(PACKAGE, 'lib'), path.join(PACKAGE, 'lib', '..')]) {
    const r = await cli(user, ['run', '--mode', 'workspace-write', '--allow-write', typed, '--', 'true'], ws)
    t.equal(r.code, 0, r.stderr)
    t.equal((warning.exec(r.stderr) || [])[1], typed, `${typed}: warned, as typed`)
  }
  for (const typed of [ws, dir]) {
    const r = await cli(user, ['run', '--mode', 'workspace-write', '--allow-write', typed, '--', 'true'], ws)
    t.equal(r.code, 0, r.stderr)
    t.notMatch(r.stderr, warning, `${typed}: no warning (the workspace itself, or a directory apart from the package)`)
  }
})

t.test('a bind mount of /tmp or of bubblewrap\'s directory is refused as they are', { skip: process.getuid() !== 0 && `${UNCOVERED} bind mounts as writable roots: this run is not root` }, async (t) => {
  const ws = fs.mkdtempSync(path.join(dir, 'alias-ws-'))
  const alias = (source, name) => {
    const at = path.join(dir, name)
    fs.mkdirSync(at)
    execFileSync('mount', ['--bind', source, at])
    t.teardown(() => execFileSync('umount', ['--lazy', at]))
    return at
  }
  const tmp = alias('/tmp', 'tmp-alias')
  t.throws(() => createLocalSandboxProvider({ writableRoots: [tmp] }).confine(['true'], { mode: 'workspace-write', workspaceRoot: ws }),
    { name: 'RangeError', message: /^options\.writableRoots\[0\] is a temp area the sandbox makes private to each run$/ })
  if (native.includes('bwrap')) {
    const bin = alias(path.dirname(sandy.probe().bwrap.path), 'bin-alias')
    const err = t.throws(() => createLocalSandboxProvider({ backend: 'bwrap', writableRoots: [bin] }).confine(['true'], { mode: 'workspace-write', workspaceRoot: ws }),
      { code: 'SANDBOX_UNAVAILABLE' })
    t.match(err.reasons, [/bwrap: found inside the workspace root or a writable root/])
    t.same(createLocalSandboxProvider({ backend: 'sandy', writableRoots: [bin] }).confine(['true'], { mode: 'workspace-write', workspaceRoot: ws }).writableRoots, [bin],
      'the sandy backend does not run bubblewrap: accepted there')
  }
  // control: an ordinary directory beside them is accepted
  const plain = fs.mkdtempSync(path.join(dir, 'plain-'))
  t.same(createLocalSandboxProvider({ writableRoots: [plain] }).confine(['true'], { mode: 'workspace-write', workspaceRoot: ws }).writableRoots, [plain])
})

// The provider refuses these; the launcher and the guard must refuse them
// too when asked directly (an argv made by another caller of the addon).
t.test('a writable root over a launcher copy, asked of the launcher directly', async (t) => {
  const launcher = binding.verifiedLauncherPath()
  const protect = binding.guardedDirs(launcher)
  const bwrap = sandy.probe().bwrap.path
  for (const user of users()) {
    const ws = ownDir(user, `direct-ws-${user.uid}`)
    // the parent of a copy directory of this user: root's is the package's
    // /var/cache one; uid 65534's live in world-writable /var/tmp, refused
    // all the same
    const copy = user.uid === 0 ? path.dirname(launcher) : `/var/tmp/sandy-native-${user.uid}`
    if (!fs.existsSync(copy)) {
      fs.mkdirSync(copy, { mode: 0o700 })
      fs.chownSync(copy, user.uid, user.gid)
    }
    const holder = path.dirname(copy)
    const roots = [[ws, idOf(ws)], [holder, idOf(holder)]]
    const probeFile = path.join(copy, `probe-${process.pid}`)
    const script = `echo x > ${probeFile}; mv ${copy} ${copy}.moved; echo y > ${holder}/sandy-wr-direct-${process.pid}-$0; exit 0`
    for (const backend of native) {
      const words = backend === 'sandy'
        ? [launcher, ...binding.addon.seamLauncherWords('workspace-write', roots, false, NONCE, protect, [], [], []), '--']
        : binding.addon.bwrapArgv(launcher, NONCE, bwrap, 'workspace-write', roots, protect, [], [], [])
      const r = await runAs(user, [...words, ...sh(script), backend], ws)
      const landed = path.join(holder, `sandy-wr-direct-${process.pid}-${backend}`)
      t.notOk(fs.existsSync(probeFile), `${backend} [${user.name}]: nothing written in the copy directory`)
      t.ok(fs.existsSync(copy) && !fs.existsSync(`${copy}.moved`), `${backend} [${user.name}]: the copy directory was not renamed`)
      // the parent of a copy directory, whoever owns it (root's /var/cache,
      // the shared /var/tmp): a command could make the directory again
      t.equal(r.code, 125, `${backend} [${user.name}]: refused before the command (${r.stderr.trim()})`)
      t.match(r.stderr, /holds the parent of a launcher copy directory/)
      t.notOk(fs.existsSync(landed))
    }
    // unconfined, the same write works for each user (and, where the user
    // owns the copy directory and not the shared launcher's, the rename)
    const bare = await runAs(user, sh(`echo x > ${probeFile}`), ws)
    t.equal(bare.code, 0, `unconfined, the copy directory is writable by its user [${user.name}]`)
    fs.rmSync(probeFile)
    if (user.uid !== 0) {
      const moved = await runAs(user, sh(`mv ${copy} ${copy}.moved && mv ${copy}.moved ${copy}`), ws)
      t.equal(moved.code, 0, 'unconfined, its user can rename it')
    }
  }
  t.throws(() => binding.addon.seamLauncherWords('read-only', [[dir, idOf(dir)], ['/x', '1:2']], false, NONCE, [], [], [], []), /writable roots need workspace-write/)
  t.throws(() => binding.addon.seamLauncherWords('workspace-write', [], false, NONCE, [], [], [], []), /writable roots: 1 to 9 pairs/)
  t.throws(() => binding.addon.seamLauncherWords('workspace-write', [['relative', '1:2']], false, NONCE, [], [], [], []), /writable roots/)
  t.throws(() => binding.addon.seamLauncherWords('workspace-write', [['/a']], false, NONCE, [], [], [], []), /writable roots/)
  t.throws(() => binding.addon.bwrapArgv(launcher, NONCE, bwrap, 'workspace-write', Array(10).fill(['/a', '1:2']), [], [], [], []), /writable roots/)
})

// The same messages from runCommand in this process (the CLI runs above as
// a process of its own).
t.test('sandy run --allow-write in process: warnings, refusals, --verbose', async (t) => {
  const { runCommand } = require('../../lib/cli-run.js')
  const lines = []
  const io = { out: (x) => lines.push(x), err: (x) => lines.push(x) }
  const ws = fs.mkdtempSync(path.join(dir, 'inproc-ws-'))
  const lib = path.join(PACKAGE, 'lib')
  t.equal(await runCommand(['--mode', 'workspace-write', '--root', ws, '--cwd', ws, '--allow-write', lib, '--verbose', '--', '/bin/true'], io), 0)
  const text = lines.join('')
  t.match(text, new RegExp(`^sandy: warning: --allow-write ${lib} holds sandy-native's own files \\(its JavaScript and addon\\) or lies among them: `, 'm'))
  t.match(text, new RegExp(`^sandy: writable beside the workspace: ${fs.realpathSync(lib)}$`, 'm'))
  lines.length = 0
  t.equal(await runCommand(['--mode', 'workspace-write', '--root', ws, '--cwd', ws, '--allow-write', ws, '--', '/bin/true'], io), 0)
  t.same(lines, [], 'the workspace itself as DIR: nothing to warn about, nothing beside it')
  lines.length = 0
  t.equal(await runCommand(['--mode', 'workspace-write', '--root', ws, '--cwd', ws, '--allow-write', '/', '--', '/bin/true'], io), 1)
  t.equal(lines.join(''), 'sandy run: --allow-write / is /, which would make everything writable\n')
  for (const [args, message] of [
    [['--mode', 'read-only', '--allow-write', ws], /^sandy run: --allow-write goes with --mode workspace-write, not read-only\n/],
    [['--mode', 'workspace-write', ...Array(LAUNCHER.writableRootsMax + 1).fill(['--allow-write', ws]).flat()], /^sandy run: --allow-write may be given at most 8 times\n/]
  ]) {
    lines.length = 0
    t.equal(await runCommand([...args, '--', '/bin/true'], io), 2, 'a usage error')
    t.match(lines.join(''), message)
  }
})
