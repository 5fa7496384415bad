'use strict'
// The launcher protects itself wherever the package is installed
// (docs/launcher-copy.md). Real processes, as root and as uid 65534; every
// attack also runs unconfined, where it must work, so a refusal proves the
// sandbox and not the setup. Cases that tamper with a copy run in a private
// mount namespace with fresh tmpfs mounts on the copies' directories, so
// the copies the rest of the suite uses are never touched.
const t = require('tap')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const crypto = require('node:crypto')
const { spawn, spawnSync, execFileSync } = require('node:child_process')
const { users, plainNodeEnv, withSanitizerEnv } = require('../helpers/sandbox.js')
const { patience } = require('../helpers/patience.js')
const { launcherDigest, addonPath } = require('../../lib/binding.js')
const { installPackage } = require('../helpers/package-copy.js')

const ROOT = path.join(__dirname, '..', '..')
const RELEASE = path.dirname(addonPath)
const SH = '/bin/sh'
// node without the test runner's hooks, which tap's process tracking adds
// back into every spawn's environment (it writes where uid 65534 cannot)
const NODE = ['/usr/bin/env', '-u', 'NODE_OPTIONS', process.execPath]
const BACKENDS = ['sandy', 'bwrap']

function sha256 (file) {
  return crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex')
}

// the owner of an install only root can change (as a global one is)
const ROOT_OWNER = { uid: 0, gid: 0 }

function ownedDir (p, user, mode = 0o755) {
  fs.mkdirSync(p, { recursive: true, mode })
  fs.chmodSync(p, mode)
  fs.chownSync(p, user.uid, user.gid)
  return p
}

// (cases that isolate the copies' directories keep their package in /tmp,
// which the isolation leaves alone: an install of their own, never the
// checkout, which may lie under /var/tmp or /var/cache itself)
function base (t, where = '/var/tmp') {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(where, 'sandy-copy-')))
  fs.chmodSync(dir, 0o755)
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }))
  return dir
}

// A node script run as the user (its own provider), from the package at
// pkg; it prints one JSON line (pkg may be the checkout's own ROOT, but
// not with `isolate`). `isolate` mounts fresh tmpfs file systems
// on the copies' directories first (root: /var/cache; others: /var/tmp,
// which then also holds the script's workspaces), in a private mount
// namespace that ends with the script.
function node (user, pkg, body, { isolate = false, args = [], bind = null } = {}) {
  const script = `
    const fs = require('node:fs'); const path = require('node:path')
    const { spawnSync } = require('node:child_process')
    const sandy = require(${JSON.stringify(pkg)})
    const run = (argv, opts = {}) => { const r = spawnSync(argv[0], argv.slice(1), { encoding: 'utf8', ...opts }); return { code: r.status, stdout: r.stdout, stderr: r.stderr, error: r.error && r.error.code } }
    const idOf = (p) => { const st = fs.statSync(p, { bigint: true }); return st.dev + ':' + st.ino }
    const out = (async () => { ${body} })()
    out.then((v) => process.stdout.write(JSON.stringify(v)), (e) => { process.stdout.write(JSON.stringify({ thrown: e.message, code: e.code })) })`
  let argv = [...user.wrap, ...NODE, '-e', script, ...args]
  if (isolate) {
    // (bind: [SOURCE, TARGET], a bind mount made after the tmpfs mounts;
    // SOURCE is made first)
    const alias = bind ? ` && mkdir -p ${bind[0]} && mount --bind ${bind[0]} ${bind[1]}` : ''
    const mounts = `mount -t tmpfs -o mode=0755 sandy /var/cache && mount -t tmpfs -o mode=1777 sandy /var/tmp${alias} && exec "$@"`
    argv = ['unshare', '--mount', '--propagation', 'private', SH, '-c', mounts, 'isolate', ...argv]
  }
  const r = spawnSync(argv[0], argv.slice(1), { cwd: '/', env: plainNodeEnv(withSanitizerEnv({})), encoding: 'utf8', timeout: patience(60000) })
  try {
    return JSON.parse(r.stdout)
  } catch {
    return { crashed: `${r.status} ${r.stderr}` }
  }
}

// Isolating the copy directories takes a private mount namespace: root.
const ISOLATION = process.getuid() !== 0 && `${require('../../scripts/test-verdict.js').UNCOVERED} cases that tamper with launcher copies: isolating their directories needs root`

const EVIL = (marker) => `#!/bin/sh\necho pwned > ${marker}\n`

// ---- the attacks of the review ---------------------------------------------

for (const user of users()) {
  for (const backend of BACKENDS) {
    t.test(`a package under <root>/..pkg cannot hand later runs a rewritten launcher [${backend}, ${user.name}]`, async (t) => {
      const dir = base(t)
      const ws = ownedDir(path.join(dir, 'ws'), user)
      const outside = ownedDir(path.join(dir, 'outside'), user)
      const pkg = installPackage(path.join(ws, '..pkg'), user)
      const shipped = path.join(pkg, 'build', 'Release', 'sandy-launcher')
      const evil = path.join(dir, 'evil')
      const marker = path.join(outside, 'pwned')
      fs.writeFileSync(evil, EVIL(marker), { mode: 0o755 })
      // one process: a workspace-write run rewrites every launcher it can
      // reach, then a read-only run must still be confined
      const got = node(user, pkg, `
        const p = sandy.createLocalSandboxProvider({ backend: ${JSON.stringify(backend)} })
        const ws = ${JSON.stringify(ws)}
        const copy = p.confine(['true'], { mode: 'read-only', workspaceRoot: ws }).argv[0]
        const first = p.confine(['/bin/sh', '-c', 'cat "$1" > "$2"; cat "$1" > "$3"; echo done', 'sh', ${JSON.stringify(evil)}, ${JSON.stringify(shipped)}, copy], { mode: 'workspace-write', workspaceRoot: ws })
        const r1 = run(first.argv, { cwd: ws })
        const second = p.confine(['/bin/sh', '-c', 'echo again > ${marker}'], { mode: 'read-only', workspaceRoot: ws })
        const r2 = run(second.argv, { cwd: ws })
        return { r1, r2, launcher: first.argv[0], launcher2: second.argv[0] }`)
      t.notOk(got.thrown || got.crashed, `the script ran (${got.thrown || got.crashed})`)
      t.equal(got.r1.code, 0, `the first run ran (${got.r1.stderr})`)
      t.match(got.r1.stderr, /Read-only file system|Permission denied/, 'the copy could not be rewritten')
      t.not(got.launcher, fs.realpathSync(shipped), 'argv[0] is not the file inside the workspace')
      t.equal(got.launcher2, got.launcher, 'the second run uses the same verified copy')
      t.equal(sha256(got.launcher), launcherDigest, 'the copy still holds the shipped bytes')
      t.not(got.r2.code, 0, 'the second run was confined (read-only)')
      t.notOk(fs.existsSync(marker), 'nothing ran outside the sandbox')
      // control: the shipped file was rewritten (the command could write
      // it), and running it unconfined runs the attacker's script
      t.equal(fs.readFileSync(shipped, 'utf8'), EVIL(marker), 'the command could rewrite the shipped launcher itself')
      const full = [...user.wrap, shipped]
      const bare = spawnSync(full[0], full.slice(1), { encoding: 'utf8' })
      t.equal(bare.status, 0, 'unconfined: the rewritten launcher runs')
      t.ok(fs.existsSync(marker), 'unconfined: and does what the attacker wrote')
      // a new Node process: the shipped file no longer matches its digest,
      // the verified copy is used
      fs.rmSync(marker)
      const again = node(user, pkg, `
        const c = sandy.createLocalSandboxProvider({ backend: ${JSON.stringify(backend)} }).confine(['/bin/sh', '-c', 'echo x > ${marker}'], { mode: 'read-only', workspaceRoot: ${JSON.stringify(ws)} })
        return { launcher: c.argv[0], r: run(c.argv, { cwd: ${JSON.stringify(ws)} }) }`)
      t.equal(again.launcher, got.launcher, 'a new process uses the verified copy')
      t.not(again.r.code, 0)
      t.notOk(fs.existsSync(marker), 'and stays confined')
    })
  }
}

// ---- hard links ------------------------------------------------------------

// Isolated: root's copies in a fresh /var/cache, uid 65534's in a fresh
// /var/tmp, which holds the workspace too, so that a hard link between the
// copy and the workspace is possible at all (one file system).
function copyHome (user) {
  return user.uid === 0 ? '/var/cache' : '/var/tmp'
}

for (const user of users()) {
  t.test(`a second hard link to the copy, made before a run, does not survive into the argv [${user.name}]`, { skip: ISOLATION }, async (t) => {
    const dir = base(t, '/tmp')
    const pkg = installPackage(dir, user)
    const outside = ownedDir(path.join(dir, 'outside'), user)
    const marker = path.join(outside, 'pwned')
    const evil = path.join(dir, 'evil')
    fs.writeFileSync(evil, EVIL(marker), { mode: 0o755 })
    const got = node(user, pkg, `
      const ws = path.join(${JSON.stringify(copyHome(user))}, 'ws'); fs.mkdirSync(ws)
      const p = sandy.createLocalSandboxProvider({ backend: 'sandy' })
      const copy = p.confine(['true'], { mode: 'read-only', workspaceRoot: ws }).argv[0]
      // before the run, unconfined: a second name inside the workspace,
      // and through it the attacker's bytes (the owner may chmod)
      fs.linkSync(copy, path.join(ws, 'second-name'))
      fs.chmodSync(path.join(ws, 'second-name'), 0o755)
      fs.writeFileSync(path.join(ws, 'second-name'), fs.readFileSync(${JSON.stringify(evil)}))
      const tampered = run([copy])
      fs.rmSync(${JSON.stringify(marker)}, { force: true })
      const c = p.confine(['/bin/sh', '-c', 'echo x > ${marker}'], { mode: 'read-only', workspaceRoot: ws })
      const st = fs.statSync(c.argv[0])
      return { tampered, copy, launcher: c.argv[0], nlink: st.nlink, head: fs.readFileSync(c.argv[0]).subarray(0, 4).toString('latin1'), r: run(c.argv, { cwd: ws }), pwned: fs.existsSync(${JSON.stringify(marker)}) }`,
    { isolate: true })
    t.notOk(got.thrown || got.crashed, `the script ran (${got.thrown || got.crashed})`)
    t.equal(got.tampered.code, 0, 'control: through the second name the copy itself was rewritten, and ran')
    t.equal(got.launcher, got.copy, 'the argv names the same path')
    t.equal(got.nlink, 1, 'which is a fresh file with one link')
    t.equal(got.head, '\x7fELF', 'holding the launcher again')
    t.not(got.r.code, 0, 'the run is confined (read-only)')
    t.notOk(got.pwned, 'nothing ran unconfined')
  })

  for (const backend of BACKENDS) {
    t.test(`a confined command cannot make a second hard link to the copy [${backend}, ${user.name}]`, { skip: ISOLATION }, async (t) => {
      const dir = base(t, '/tmp')
      const pkg = installPackage(dir, user)
      const got = node(user, pkg, `
        const p = sandy.createLocalSandboxProvider({ backend: ${JSON.stringify(backend)} })
        const copy = p.confine(['true'], { mode: 'read-only', workspaceRoot: '/tmp' }).argv[0]
        // a workspace holding the copy: none may hold the copy directory's
        // parent, so the copy directory itself
        const home = path.dirname(copy)
        const ws = home
        fs.mkdirSync(ws, { recursive: true })
        const attack = ['/bin/ln', copy, path.join(ws, 'link')]
        const c = p.confine(attack, { mode: 'workspace-write', workspaceRoot: home })
        const confined = run(c.argv, { cwd: ws })
        const linked = fs.existsSync(path.join(ws, 'link'))
        const bare = run(attack, { cwd: ws })
        return { confined, linked, bare, nlink: fs.statSync(copy).nlink }`,
      { isolate: true })
      t.notOk(got.thrown || got.crashed, `the script ran (${got.thrown || got.crashed})`)
      t.not(got.confined.code, 0, `confined: ln fails (${got.confined.stderr.trim()})`)
      t.notOk(got.linked, 'confined: no second name')
      t.equal(got.bare.code, 0, `unconfined: the same ln works (${got.bare.stderr})`)
      t.equal(got.nlink, 2, 'unconfined: the copy then has two links')
    })
  }
}

// ---- where the package is installed ----------------------------------------

for (const user of users()) {
  t.test(`the README's example works with the package inside the workspace [${user.name}]`, async (t) => {
    const dir = base(t)
    const ws = ownedDir(path.join(dir, 'project'), user)
    const pkg = installPackage(ws, user)
    const outsideDir = ownedDir(path.join(dir, 'outside'), user)
    // root's README target is /etc/x; uid 65534 cannot write /etc unconfined
    // either, so its control aims at a directory of its own
    const outside = user.uid === 0 ? `/etc/sandy-readme-${process.pid}` : path.join(outsideDir, 'x')
    t.teardown(() => fs.rmSync(outside, { force: true }))
    const script = `echo ok > here.txt; echo no > ${outside}`
    const argv = [...user.wrap, ...NODE, path.join(pkg, 'bin', 'sandy'), 'run', '--mode', 'workspace-write', '--', SH, '-c', script]
    const r = spawnSync(argv[0], argv.slice(1), { cwd: ws, encoding: 'utf8', env: plainNodeEnv(withSanitizerEnv({ PATH: '/usr/bin:/bin' })) })
    t.not(r.status, 0, `the outside write fails (${r.stderr.trim()})`)
    t.notMatch(r.stderr, /cannot use its launcher|not usable/, 'the package inside the workspace is no reason to refuse')
    t.match(r.stderr, /^sandy: warning: sandy-native's own files \(its JavaScript and addon\) lie inside the writable workspace/m,
      'but what no sandbox protects is said: the package\'s own files')
    t.equal(fs.readFileSync(path.join(ws, 'here.txt'), 'utf8'), 'ok\n', 'the workspace write landed')
    t.notOk(fs.existsSync(outside), 'nothing outside')
    fs.rmSync(path.join(ws, 'here.txt'))
    const bare = spawnSync(user.wrap[0] || SH, [...user.wrap.slice(1), ...(user.wrap.length ? [SH] : []), '-c', script], { cwd: ws })
    t.equal(bare.status, 0, 'unconfined, both writes work')
    t.ok(fs.existsSync(outside))
  })
}

t.test('the README\'s own line in a fresh checkout, as root', async (t) => {
  const dir = base(t)
  const checkout = path.join(dir, 'checkout')
  const files = spawnSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8' })
  const git = files.status === 0 && Boolean(files.stdout)
  if (git) {
    for (const f of files.stdout.split('\0').filter(Boolean)) {
      fs.mkdirSync(path.dirname(path.join(checkout, f)), { recursive: true })
      fs.copyFileSync(path.join(ROOT, f), path.join(checkout, f))
    }
  } else {
    // a copy without git (the sanitizer stage's build-asan/, which holds no
    // lockfile for npx): its sources, run through the bin npx would run
    for (const part of ['lib', 'bin', 'package.json']) fs.cpSync(path.join(ROOT, part), path.join(checkout, part), { recursive: true })
  }
  fs.mkdirSync(path.join(checkout, 'build'), { recursive: true })
  fs.cpSync(RELEASE, path.join(checkout, 'build', 'Release'), { recursive: true })
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(checkout, 'node_modules'))
  const outside = `/etc/sandy-readme-${process.pid}`
  t.teardown(() => fs.rmSync(outside, { force: true }))
  // the README's line as written, read from it, with a target in /etc of
  // this run's own, its scratch directory made under one of this test's
  // (TMPDIR), and npx, which finds the checkout's bin, by its path
  const line = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8').split('\n').find((l) => l.includes('npx sandy run '))
  t.match(line, /^dir=\$\(mktemp -d\) && npx sandy run --mode workspace-write --cwd "\$dir" -- sh -c '.*> \/etc\/x'$/, 'the README confines in a scratch directory')
  const sandyCli = git ? [path.join(path.dirname(process.execPath), 'npx'), '--no-install', 'sandy'] : [process.execPath, path.join(checkout, 'bin', 'sandy')]
  const scratch = fs.mkdtempSync(path.join(dir, 'tmp-'))
  const script = line.replace('npx sandy', ['/usr/bin/env', '-u', 'NODE_OPTIONS', ...sandyCli].join(' ')).replace('/etc/x', outside)
  // (the shell's $0 is node's path: the sanitizer stage's preload,
  // scripts/asan-preload.js, gives the runtimes only to a command line that
  // runs node, and the node in this one loads the sanitized addon)
  const r = spawnSync(SH, ['-c', script, process.execPath], { cwd: checkout, encoding: 'utf8', env: plainNodeEnv(withSanitizerEnv({ npm_config_update_notifier: 'false', TMPDIR: scratch })) })
  t.match(r.stderr, /Read-only file system/, 'the write to /etc is refused')
  const made = fs.readdirSync(scratch).filter((d) => fs.existsSync(path.join(scratch, d, 'here.txt')))
  t.equal(made.length, 1, 'the write landed in the scratch directory')
  t.equal(made.length === 1 && fs.readFileSync(path.join(scratch, made[0], 'here.txt'), 'utf8'), 'ok\n', 'as written')
  t.notOk(fs.existsSync(path.join(checkout, 'here.txt')), 'and none in the checkout')
  t.notOk(fs.existsSync(outside), 'nothing in /etc')
})

t.test('a root-owned, read-only install serves uid 65534 without a copy', { skip: process.getuid() !== 0 && `${require('../../scripts/test-verdict.js').UNCOVERED} a root-owned install used by uid 65534: this run is not root` }, async (t) => {
  const dir = base(t)
  const root = { uid: 0, gid: 0 }
  const pkg = installPackage(dir, root)
  const nobody = users().at(-1)
  const ws = ownedDir(path.join(dir, 'ws'), nobody)
  const got = node(nobody, pkg, `
    const c = sandy.createLocalSandboxProvider({ backend: 'sandy' }).confine(['/bin/sh', '-c', 'echo in > f; echo out > ../escaped'], { mode: 'workspace-write', workspaceRoot: ${JSON.stringify(ws)} })
    return { launcher: c.argv[0], r: run(c.argv, { cwd: ${JSON.stringify(ws)} }) }`)
  t.notOk(got.thrown || got.crashed, `the script ran (${got.thrown || got.crashed})`)
  t.equal(got.launcher, fs.realpathSync(path.join(pkg, 'build', 'Release', 'sandy-launcher')), 'the shipped launcher itself: only root can change it')
  t.equal(fs.readFileSync(path.join(ws, 'f'), 'utf8'), 'in\n')
  t.notOk(fs.existsSync(path.join(dir, 'escaped')), 'and it confines')
})

for (const backend of BACKENDS) {
  t.test(`a root provider's argv spawned as uid 65534 runs confined [${backend}]`, { skip: process.getuid() !== 0 && `${require('../../scripts/test-verdict.js').UNCOVERED} a root provider's argv run as uid 65534: this run is not root` }, async (t) => {
    const dir = base(t)
    const nobody = users().at(-1)
    const ws = ownedDir(path.join(dir, 'ws'), nobody)
    const outside = ownedDir(path.join(dir, 'outside'), nobody)
    const script = `echo in > f && id -u && echo out > ${outside}/x`
    const c = require('../..').createLocalSandboxProvider({ backend }).confine([SH, '-c', script], { mode: 'workspace-write', workspaceRoot: ws })
    t.match(c.argv[0], /^\/var\/cache\/sandy-native\/sandy-launcher-[0-9a-f]{64}$/, 'root\'s copy')
    const r = await new Promise((resolve) => {
      const child = spawn(c.argv[0], c.argv.slice(1), { cwd: ws, uid: nobody.uid, gid: nobody.gid, env: withSanitizerEnv({ PATH: '/usr/bin:/bin' }) })
      let stdout = ''
      let stderr = ''
      child.stdout.on('data', (d) => { stdout += d })
      child.stderr.on('data', (d) => { stderr += d })
      child.on('close', (code) => resolve({ code, stdout, stderr }))
    })
    t.equal(r.stdout, '65534\n', `the command ran as uid 65534 (${r.stderr.trim()})`)
    t.equal(fs.readFileSync(path.join(ws, 'f'), 'utf8'), 'in\n', 'inside the workspace')
    t.not(r.code, 0)
    t.notOk(fs.existsSync(path.join(outside, 'x')), 'and nowhere else')
    const bare = spawnSync(SH, ['-c', script], { cwd: ws, uid: nobody.uid, gid: nobody.gid })
    t.equal(bare.status, 0, 'unconfined, uid 65534 can write there')
  })
}

// ---- a workspace that contains a copy --------------------------------------

for (const user of users()) {
  for (const backend of BACKENDS) {
    t.test(`provider A's workspace contains provider B's copy: A's command cannot change it [${backend}, ${user.name}]`, { skip: ISOLATION }, async (t) => {
      const dir = base(t, '/tmp')
      const pkgB = installPackage(path.join(dir, 'b'), user)
      const pkgA = installPackage(path.join(dir, 'a'), ROOT_OWNER)
      const evil = path.join(dir, 'evil')
      const marker = path.join(ownedDir(path.join(dir, 'outside'), user), 'pwned')
      fs.writeFileSync(evil, EVIL(marker), { mode: 0o755 })
      // B makes its copy first; A's workspace is the directory holding it.
      // A is a root-owned install: for uid 65534 one that needs no copy,
      // for root the same copy directory.
      const attack = 'd=$(dirname "$1"); cat "$2" > "$1"; mv "$d" "$d.moved"; rm -f "$1"; cp "$2" "$d/x"; echo tried'
      const got = node(user, pkgB, `
        const b = sandy.createLocalSandboxProvider({ backend: ${JSON.stringify(backend)} })
        const copy = b.confine(['true'], { mode: 'read-only', workspaceRoot: '/tmp' }).argv[0]
        // (no workspace may hold a copy directory's parent: the copy
        // directory itself)
        const home = path.dirname(copy)
        const a = require(${JSON.stringify(pkgA)}).createLocalSandboxProvider({ backend: ${JSON.stringify(backend)} })
        const c = a.confine(['/bin/sh', '-c', ${JSON.stringify(attack)}, 'sh', copy, ${JSON.stringify(evil)}], { mode: 'workspace-write', workspaceRoot: home })
        const confined = run(c.argv, { cwd: home })
        const intact = fs.readFileSync(copy).subarray(0, 4).toString('latin1') === '\\x7fELF' && fs.readdirSync(path.dirname(copy)).length === 1
        const later = b.confine(['/bin/sh', '-c', 'echo x > ${marker}'], { mode: 'read-only', workspaceRoot: '/tmp' })
        const r = run(later.argv, { cwd: '/' })
        const pwned = fs.existsSync(${JSON.stringify(marker)})
        const bare = run(['/bin/sh', '-c', ${JSON.stringify(attack)}, 'sh', copy, ${JSON.stringify(evil)}])
        return { copy, home, aLauncher: c.argv[0], confined, intact, r, pwned, bare, bareDone: fs.existsSync(path.dirname(copy) + '.moved') }`,
      { isolate: true })
      t.notOk(got.thrown || got.crashed, `the script ran (${got.thrown || got.crashed})`)
      t.ok(got.copy.startsWith(got.home + '/'), `B's copy lies in A's workspace (${got.copy})`)
      t.match(got.confined.stderr, /Read-only file system|Device or resource busy/, 'confined: refused')
      t.ok(got.intact, 'confined: B\'s copy and its directory are untouched')
      t.not(got.r.code, 0, 'B\'s next run is confined')
      t.notOk(got.pwned, 'and nothing ran outside')
      t.equal(got.bare.code, 0, 'unconfined: the same commands work')
      t.ok(got.bareDone, 'unconfined: the directory was moved away')
    })
  }
}

// ---- the copy tampered with between two confines ---------------------------

const TAMPER = {
  'rewritten in place, mode restored': (copy, evil) => `chmod u+w ${copy} && cat ${evil} > ${copy} && chmod 555 ${copy}`,
  'replaced by a symlink': (copy, evil) => `rm -f ${copy} && ln -s ${evil} ${copy}`,
  'made group-writable': (copy) => `chmod 775 ${copy}`,
  'given a second hard link': (copy) => `ln ${copy} ${copy}.second`
}

for (const user of users()) {
  t.test(`a copy tampered with between two confines is made again [${user.name}]`, { skip: ISOLATION }, async (t) => {
    const dir = base(t, '/tmp')
    const pkg = installPackage(dir, user)
    const evil = path.join(dir, 'evil')
    const marker = path.join(ownedDir(path.join(dir, 'outside'), user), 'pwned')
    fs.writeFileSync(evil, EVIL(marker), { mode: 0o755 })
    const tampers = Object.entries(TAMPER).map(([what, make]) => [what, make('"$C"', evil)])
    const got = node(user, pkg, `
      const p = sandy.createLocalSandboxProvider({ backend: 'sandy' })
      const results = []
      for (const [what, script] of ${JSON.stringify(tampers)}) {
        const copy = p.confine(['true'], { mode: 'read-only', workspaceRoot: '/' }).argv[0]
        const tamper = run(['/bin/sh', '-c', script], { env: { C: copy, PATH: '/usr/bin:/bin' } })
        fs.rmSync(${JSON.stringify(marker)}, { force: true })
        const direct = run([copy])
        const pwnedDirect = fs.existsSync(${JSON.stringify(marker)})
        fs.rmSync(${JSON.stringify(marker)}, { force: true })
        const c = p.confine(['/bin/sh', '-c', 'echo x > ${marker}'], { mode: 'read-only', workspaceRoot: '/' })
        const st = fs.lstatSync(c.argv[0])
        results.push({ what, tamper: tamper.code, direct: direct.code, pwnedDirect, same: c.argv[0] === copy,
          clean: st.isFile() && st.nlink === 1 && (st.mode & 0o777) === 0o555, r: run(c.argv, { cwd: '/' }).code, pwned: fs.existsSync(${JSON.stringify(marker)}) })
      }
      return results`,
    { isolate: true })
    t.notOk(got.thrown || got.crashed, `the script ran (${got.thrown || got.crashed})`)
    for (const g of Array.isArray(got) ? got : []) {
      t.equal(g.tamper, 0, `${g.what}: the tampering worked`)
      t.equal(g.same, true, `${g.what}: the argv names the copy's path`)
      t.ok(g.clean, `${g.what}: which holds a clean copy again`)
      t.not(g.r, 0, `${g.what}: the run is confined`)
      t.notOk(g.pwned, `${g.what}: nothing ran unconfined`)
    }
    const rewritten = Array.isArray(got) && got.find((g) => g.what.startsWith('rewritten'))
    t.ok(rewritten && rewritten.pwnedDirect, 'control: the rewritten copy, run directly, runs the attacker\'s script')
  })
}

// ---- the parents of the copy directories ----------------------------------

// Whoever can write the parent of a copy directory can make the directory
// once the host removes it (a tmp cleaner, a user's rm -r), and put its own
// program in it. No sandbox of the user may make such a parent writable:
// not as the workspace, not as a writable root, not as a policy's grant,
// whether the copy directory exists now or not.
for (const user of users()) {
  t.test(`no writable workspace, root or grant holds the parent of a copy directory [${user.name}]`, async (t) => {
    const parent = user.uid === 0 ? '/var/cache' : '/var/tmp'
    const ws = ownedDir(path.join(base(t), 'ws'), user)
    const got = node(user, ROOT, `
      const parent = ${JSON.stringify(parent)}
      const tryIt = (f) => { try { f(); return 'accepted' } catch (e) { return e.message } }
      const out = {}
      for (const backend of ['sandy', 'bwrap', ...(process.getuid() === 0 ? [] : ['landlock'])]) {
        out[backend + ' workspace'] = tryIt(() => sandy.createLocalSandboxProvider({ backend }).confine(['true'], { mode: 'workspace-write', workspaceRoot: parent }))
        out[backend + ' workspace above'] = tryIt(() => sandy.createLocalSandboxProvider({ backend }).confine(['true'], { mode: 'workspace-write', workspaceRoot: '/var' }))
        if (backend !== 'landlock') out[backend + ' writable root'] = tryIt(() => sandy.createLocalSandboxProvider({ backend, writableRoots: ['/var'] }).confine(['true'], { mode: 'workspace-write', workspaceRoot: ${JSON.stringify(ws)} }))
      }
      const policy = new sandy.SandboxPolicy('allow_all').grant('/usr', 'read', 'subtree').allowExecute('/usr', 'subtree').grant(parent, 'read_write', 'subtree')
      out.policy = tryIt(() => sandy.confinePolicy(['/bin/true'], policy, { cwd: '/usr' }))
      // (the launcher, handed such a policy's words directly)
      const launcher = sandy.createLocalSandboxProvider({ backend: 'sandy' }).confine(['true'], { mode: 'read-only', workspaceRoot: '/' }).argv[0]
      const words = require(${JSON.stringify(path.join(ROOT, 'lib', 'binding.js'))}).addon.confinePolicy(policy.toNative(), Buffer.from('/usr'), 'ab'.repeat(16), []).argv
      out.grant = run([launcher, ...words, '--', '/bin/true'], { cwd: '/usr' })
      // (the control: unconfined, the user makes a directory there)
      const sibling = path.join(parent, 'sandy-native-control-' + process.pid)
      fs.mkdirSync(sibling); fs.rmdirSync(sibling)
      out.control = 'made'
      return out`)
    t.notOk(got.thrown || got.crashed, `the script ran (${got.thrown || got.crashed})`)
    for (const [what, said] of Object.entries(got)) {
      if (what === 'grant' || what === 'control') continue
      t.match(said, /holds the (parent of a launcher copy directory|launcher's copy)|Landlock-only level cannot protect a launcher copy directory/, `${what}: refused (${said})`)
    }
    t.equal(got.grant.code, 125, `the launcher refuses such a policy too (${got.grant.stderr})`)
    t.match(got.grant.stderr, /fatal: InvalidPolicy: a writable grant holds the parent of a launcher copy directory/)
    t.equal(got.control, 'made', `unconfined, the user can make a directory in ${parent}`)
  })
}

// The copy directory removed by the host during a run (a tmp cleaner), and
// the running command trying to make it again with its own program in it,
// at the moment the test chooses: it waits on a FIFO that the test opens
// once the directory is gone. No sleeps. Then a new confine, and its run.
// Two workspaces: the copy directory's parent (refused before anything
// runs; on main it ran, and the command planted its program), and a
// directory beneath that parent.
for (const user of users()) {
  for (const backend of BACKENDS) {
    t.test(`a copy directory removed during a run cannot be planted by the run [${backend}, ${user.name}]`, { skip: ISOLATION }, async (t) => {
      const dir = base(t, '/tmp')
      const pkg = installPackage(dir, user)
      const marker = path.join(ownedDir(path.join(dir, 'outside'), user), 'pwned')
      // (the program is written by the command itself: bubblewrap's /tmp,
      // where evil lies, is private)
      const plant = 'echo READY; read go < "$3"; mkdir -p "$1" && printf "#!/bin/sh\\necho pwned > %s\\n" "$2" > "$1/$4" && chmod 755 "$1/$4" && echo PLANTED; true'
      const got = node(user, pkg, `
        const { spawn, execFileSync } = require('node:child_process')
        const p = sandy.createLocalSandboxProvider({ backend: ${JSON.stringify(backend)} })
        const copy = p.confine(['true'], { mode: 'read-only', workspaceRoot: '/tmp' }).argv[0]
        const d = path.dirname(copy)
        const attempt = async (ws, fifo) => {
          let c
          try {
            c = p.confine(['/bin/sh', '-c', ${JSON.stringify(plant)}, 'sh', d, ${JSON.stringify(marker)}, fifo, path.basename(copy)], { mode: 'workspace-write', workspaceRoot: ws })
          } catch (e) {
            return { refused: e.message }
          }
          const child = spawn(c.argv[0], c.argv.slice(1), { cwd: ws })
          let out = ''
          child.stdout.on('data', (x) => { out += x })
          child.stderr.on('data', (x) => { out += x })
          const done = new Promise((resolve) => child.on('close', resolve))
          // (the command says READY just before it opens the FIFO; opening
          // it for writing waits for that open, or for the command's end,
          // after which the test opens it for reading itself to let the
          // waiting open go)
          const ready = await Promise.race([done.then(() => false), new Promise((resolve) => child.stdout.on('data', () => { if (out.includes('READY')) resolve(true) }))])
          if (ready) {
            fs.rmSync(d, { recursive: true, force: true })
            const writer = fs.promises.open(fifo, 'w')
            const first = await Promise.race([writer.then(() => 'open'), done.then(() => 'ended')])
            if (first === 'ended') fs.closeSync(fs.openSync(fifo, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK))
            const w = await writer
            if (first === 'open') await w.write('go\\n')
            await w.close()
          }
          const code = await done
          const planted = fs.existsSync(copy) && fs.readFileSync(copy, 'latin1').startsWith('#!')
          const next = p.confine(['/bin/true'], { mode: 'read-only', workspaceRoot: ws })
          const r = run(next.argv, { cwd: ws })
          return { out, code, planted, r, pwned: fs.existsSync(${JSON.stringify(marker)}) }
        }
        const beneath = fs.mkdtempSync(path.join(path.dirname(d), 'ws-'))
        const parent = path.join(beneath, 'go-parent')
        execFileSync('mkfifo', [parent, path.join(beneath, 'go')])
        const out = { parent: await attempt(path.dirname(d), parent), beneath: await attempt(beneath, path.join(beneath, 'go')) }
        out.bare = run(['/bin/sh', '-c', ${JSON.stringify(plant.replace('echo READY; read go < "$3"; ', ''))}, 'sh', d + '.control', ${JSON.stringify(marker)} + '.control', '-', path.basename(copy)]).stdout
        return out`,
      { isolate: true })
      t.notOk(got.thrown || got.crashed, `the script ran (${got.thrown || got.crashed})`)
      t.match(got.parent.refused, /holds the parent of a launcher copy directory/, `the copy directory's parent as the workspace: refused (${got.parent.refused || got.parent.out})`)
      t.notOk(got.parent.pwned, 'and nothing ran outside the sandbox')
      const b = got.beneath
      t.equal(b.code, 0, `beneath it: the command ran to its end (${(b.out || '').trim()})`)
      t.notMatch(b.out, /PLANTED/, `beneath it: the command could not make the directory again (${(b.out || '').trim()})`)
      t.notOk(b.planted, 'nothing of the command\'s stands where the copy goes')
      t.equal(b.r && b.r.code, 0, 'the next confine made a fresh copy, which runs')
      t.notOk(b.pwned, 'and nothing ran outside the sandbox')
      t.equal(got.bare, 'PLANTED\n', 'control: unconfined, the same commands make a directory there with a program in it')
    })
  }
}

// ---- an install whose files are hard links (pnpm's store) -----------------

// Three installs sharing every inode, as pnpm's store makes them (cp -al):
// the store, one outside the workspace that the caller runs, one inside
// the workspace. A confined command appends code to the workspace's copy
// of lib/index.js; the next Node process that loads the outside install
// must not run it.
for (const user of users()) {
  for (const backend of BACKENDS) {
    t.test(`an install hard-linked into the workspace cannot hand the next process code [${backend}, ${user.name}]`, async (t) => {
      const dir = base(t)
      installPackage(ownedDir(path.join(dir, 'store'), user), user)
      const outside = ownedDir(path.join(dir, 'outside'), user)
      const ws = ownedDir(path.join(dir, 'ws'), user)
      for (const to of [outside, ws]) execFileSync('cp', ['-al', path.join(dir, 'store', 'node_modules'), to])
      const marker = path.join(ownedDir(path.join(dir, 'marker'), user), 'pwned')
      const pkg = path.join(outside, 'node_modules', 'sandy-native')
      const target = path.join(ws, 'node_modules', 'sandy-native', 'lib', 'index.js')
      const line = `require('node:fs').writeFileSync(${JSON.stringify(marker)}, 'pwned')`
      t.ok(fs.statSync(path.join(pkg, 'lib', 'index.js')).nlink >= 3, 'before: the three installs share lib/index.js')
      const got = node(user, pkg, `
        const c = sandy.createLocalSandboxProvider({ backend: ${JSON.stringify(backend)} }).confine(['/bin/sh', '-c', 'echo "$1" >> "$2" && echo appended', 'sh', ${JSON.stringify(line)}, ${JSON.stringify(target)}], { mode: 'workspace-write', workspaceRoot: ${JSON.stringify(ws)} })
        const r = run(c.argv, { cwd: ${JSON.stringify(ws)} })
        return { r, nlink: fs.statSync(${JSON.stringify(path.join(pkg, 'lib', 'index.js'))}).nlink, release: fs.readdirSync(${JSON.stringify(path.join(pkg, 'build', 'Release'))}).map((f) => fs.statSync(path.join(${JSON.stringify(path.join(pkg, 'build', 'Release'))}, f)).nlink) }`)
      t.notOk(got.thrown || got.crashed, `the script ran (${got.thrown || got.crashed})`)
      t.equal(got.r.stdout, 'appended\n', `control: the confined command appended to the workspace's file (${got.r.stderr})`)
      t.match(fs.readFileSync(path.join(dir, 'store', 'node_modules', 'sandy-native', 'lib', 'index.js'), 'utf8'), line, 'control: which changed the store\'s file, the same inode')
      t.equal(got.nlink, 1, 'the outside install\'s file has a name of its own since the first confine')
      t.ok(got.release.length >= 3 && got.release.every((n) => n === 1), `and so has every file of build/Release: the addon, the launcher, its digest (${got.release})`)
      const next = node(user, pkg, 'return { loaded: typeof sandy.createLocalSandboxProvider }')
      t.equal(next.loaded, 'function', 'the next process loads the outside install')
      t.notOk(fs.existsSync(marker), 'and runs none of the appended code')
    })
  }
}

// Where the install cannot be changed by its user (a directory without
// write permission), its shared files stay shared: the probe warns.
const NOBODY_ONLY = users().at(-1).uid === 0 && `${require('../../scripts/test-verdict.js').UNCOVERED} an install its user cannot change: this run has no uid 65534 (root writes anything)`
t.test('hard-linked files the install cannot make private are warned about [nobody]', { skip: NOBODY_ONLY }, async (t) => {
  const user = users().at(-1)
  const dir = base(t)
  installPackage(ownedDir(path.join(dir, 'store'), user), user)
  const outside = ownedDir(path.join(dir, 'outside'), user)
  execFileSync('cp', ['-al', path.join(dir, 'store', 'node_modules'), outside])
  const pkg = path.join(outside, 'node_modules', 'sandy-native')
  fs.chmodSync(path.join(pkg, 'lib'), 0o555)
  t.teardown(() => fs.chmodSync(path.join(pkg, 'lib'), 0o755))
  const got = node(user, pkg, `return sandy.createLocalSandboxProvider().probe({ workspaceRoot: ${JSON.stringify(dir)} }).warnings`)
  t.ok(Array.isArray(got) && got.some((w) => /files \(or node-gyp-build's\) have other names, as a pnpm store gives them, and could not be made private/.test(w)), `the warning (${JSON.stringify(got)})`)
  t.ok(fs.statSync(path.join(pkg, 'lib', 'index.js')).nlink > 1, 'control: lib/ could not be changed, its files keep their other names')
})

// ---- resource pressure -------------------------------------------------------

// Every copy directory of the user full (a tmpfs mounted on each, filled,
// in a private mount namespace): confine says so, names the directories
// and what to do, and suggests no reinstall, which would not help.
for (const user of users()) {
  t.test(`full copy directories are named as the cause [${user.name}]`, { skip: ISOLATION }, async (t) => {
    const pkg = installPackage(path.join(base(t), 'pkg'), user)
    const dirs = user.uid === 0 ? ['/var/cache/sandy-native'] : ['/var/tmp', '/tmp', '/dev/shm'].map((d) => `${d}/sandy-native-${user.uid}`)
    const fill = dirs.map((d) => `mkdir -p ${d} && mount -t tmpfs -o size=16k,mode=${user.uid === 0 ? '0755' : '0700'},uid=${user.uid},gid=${user.gid} sandy ${d} && ` +
      `{ dd if=/dev/zero of=${d}/fill bs=4k count=16 2>/dev/null; true; }`).join(' && ')
    const script = `const sandy = require(${JSON.stringify(pkg)}); const fs = require('node:fs')
      const said = (f) => { try { f(); return 'accepted' } catch (e) { return e.message } }
      const out = {
        provider: said(() => sandy.createLocalSandboxProvider({ backend: 'sandy' }).confine(['true'], { mode: 'read-only', workspaceRoot: '/' })),
        policy: said(() => sandy.confinePolicy(['true'], new sandy.SandboxPolicy('block_all').grant('/usr', 'read', 'subtree'), { cwd: '/usr' })),
        control: said(() => fs.writeFileSync(${JSON.stringify(dirs[0])} + '/more', Buffer.alloc(8192)))
      }
      process.stdout.write(JSON.stringify(out))`
    const argv = ['unshare', '--mount', '--propagation', 'private', SH, '-c', `${fill} && exec "$@"`, 'full', ...user.wrap, ...NODE, '-e', script]
    const r = spawnSync(argv[0], argv.slice(1), { cwd: '/', env: plainNodeEnv(withSanitizerEnv({})), encoding: 'utf8', timeout: patience(60000) })
    let got = {}
    try { got = JSON.parse(r.stdout) } catch {}
    t.ok(got.provider, `the script ran (${r.stderr.slice(0, 300)})`)
    for (const what of ['provider', 'policy']) {
      t.match(got[what], /no directory can hold a private copy of it \(.*its file system is full \(ENOSPC\)/, `${what}: the full directory is the cause given (${got[what]})`)
      for (const d of dirs) t.match(got[what], d, `${what}: it names ${d}`)
      t.notMatch(got[what], /reinstall/, `${what}: and suggests no reinstall`)
    }
    t.match(got.provider, /^the sandy backend is not usable on this host: the sandy launcher cannot be used: no directory/, 'the provider\'s message itself says it')
    t.match(got.control, /ENOSPC/, 'control: the directory is full for the user too')
  })
}

// A low descriptor limit: the launcher raises its soft limit to the hard
// one while it pins paths and gives the command the caller's; a hard limit
// too low for the policy ends in a runner failure that names the limit.
for (const user of users()) {
  for (const backend of BACKENDS) {
    t.test(`a low descriptor limit [${backend}, ${user.name}]`, async (t) => {
      const ws = ownedDir(path.join(base(t), 'ws'), user)
      const { createLocalSandboxProvider, classifyExit } = require('../..')
      const c = createLocalSandboxProvider({ backend }).confine([SH, '-c', 'echo "limit $(ulimit -n)"'], { mode: 'workspace-write', workspaceRoot: ws })
      const at = (limit, argv) => { const full = [...user.wrap, 'prlimit', `--nofile=${limit}`, '--', ...argv]; return spawnSync(full[0], full.slice(1), { cwd: ws, encoding: 'utf8' }) }
      const soft = at('48:4096', c.argv)
      t.equal(soft.status, 0, `a soft limit of 48 under a hard one of 4096: runs (${soft.stderr.trim()})`)
      t.equal(soft.stdout, 'limit 48\n', 'and the command has the caller\'s limit')
      const hard = at('40', c.argv)
      if (backend === 'sandy') {
        t.equal(hard.status, 125, 'a hard limit of 40: the launcher cannot pin the seam\'s paths')
        t.match(hard.stderr, /^sandy-launcher: fatal: .*\(out of file descriptors: RLIMIT_NOFILE is 40, raise its hard limit\) \[run [0-9a-f]{32}\]$/m, `and says which limit (${hard.stderr.trim()})`)
        t.equal(classifyExit(c, { code: hard.status, signal: hard.signal, stderr: hard.stderr }).kind, 'runner-failure')
      } else {
        t.equal(hard.status, 0, `bubblewrap's guard pins nothing per path: runs at 40 (${hard.stderr.trim()})`)
      }
      const bare = at('40', [SH, '-c', 'echo "limit $(ulimit -n)"'])
      t.equal(bare.stdout, 'limit 40\n', 'control: unconfined, the same limit runs the command')
    })
  }
}

// ---- confine() starts nothing ---------------------------------------------

// What the kernel saw a traced process do between two marker opens:
// programs executed, processes started (threads aside), and opens of the
// launcher's files. strace is one of setup.sh's packages.
function census (log, mark, launchers) {
  const lines = fs.readFileSync(log, 'utf8').split('\n')
  const begin = lines.findIndex((l) => l.includes(`${mark}-begin`))
  const end = lines.findIndex((l) => l.includes(`${mark}-end`))
  const window = begin >= 0 && end > begin ? lines.slice(begin + 1, end) : null
  if (window === null) return null
  return {
    execs: window.filter((l) => /\bexecve(at)?\(/.test(l)).length,
    processes: window.filter((l) => /\b(fork|vfork|clone3?)\(/.test(l) && !l.includes('CLONE_THREAD')).length,
    opens: window.filter((l) => /\bopenat\(/.test(l) && launchers.some((f) => l.includes(JSON.stringify(f)))).length
  }
}

for (const user of users()) {
  t.test(`confine() starts no process and reads no launcher after its first call [${user.name}]`, async (t) => {
    const dir = ownedDir(base(t), user)
    const ws = ownedDir(path.join(dir, 'ws'), user)
    const log = path.join(dir, 'trace')
    const script = `
      const fs = require('node:fs')
      const sandy = require(${JSON.stringify(ROOT)})
      const { spawnSync } = require('node:child_process')
      const mark = (m) => { try { fs.openSync('/sandy-census-' + m) } catch {} }
      const providers = ['sandy', 'bwrap'].map((backend) => sandy.createLocalSandboxProvider({ backend }))
      const once = () => providers.map((p) => [p.confine(['true'], { mode: 'read-only', workspaceRoot: ${JSON.stringify(ws)} }).argv[0],
        p.confine(['true'], { mode: 'workspace-write', workspaceRoot: ${JSON.stringify(ws)} }).argv[0]])
      const launcher = once()[0][0]
      mark('calls-begin')
      for (let i = 0; i < 25; i++) once()
      mark('calls-end')
      // (the control: what the census counts when it happens)
      mark('control-begin')
      spawnSync(launcher, [], { stdio: 'ignore' })
      fs.readFileSync(launcher)
      mark('control-end')
      process.stdout.write(launcher)`
    const argv = [...user.wrap, '/usr/bin/strace', '-f', '-qq', '-e', 'trace=openat,execve,execveat,fork,vfork,clone,clone3', '-o', log, ...NODE, '-e', script]
    const r = spawnSync(argv[0], argv.slice(1), { cwd: '/', env: plainNodeEnv(withSanitizerEnv({})), encoding: 'utf8', timeout: patience(120000) })
    t.equal(r.status, 0, `the traced script ran (${r.stderr.slice(0, 400)})`)
    const launchers = [r.stdout, path.join(RELEASE, 'sandy-launcher')]
    const calls = census(log, 'calls', launchers)
    t.same(calls, { execs: 0, processes: 0, opens: 0 }, '100 confine() calls: no program run, no process started, no launcher file opened')
    const control = census(log, 'control', launchers)
    t.ok(control && control.execs >= 1 && control.processes >= 1 && control.opens >= 1, `control: a spawn and a read of the launcher are counted (${JSON.stringify(control)})`)
  })
}

// ---- the Landlock-only level -----------------------------------------------

t.test('the Landlock-only level refuses a workspace that contains a launcher copy', { skip: ISOLATION }, async (t) => {
  const nobody = users().at(-1)
  if (nobody.uid === 0) return t.skip(`${require('../../scripts/test-verdict.js').UNCOVERED} landlock backend as root: the Landlock-only level refuses uid 0`)
  const dir = base(t, '/tmp')
  const pkg = installPackage(dir, nobody)
  const got = node(nobody, pkg, `
    const p = sandy.createLocalSandboxProvider({ backend: 'landlock' })
    const copy = p.confine(['true'], { mode: 'read-only', workspaceRoot: '/' }).argv[0]
    let refused = null
    // (the copy directory itself: none may hold its parent at any level)
    try { p.confine(['true'], { mode: 'workspace-write', workspaceRoot: path.dirname(copy) }) } catch (e) { refused = e.message + ' ' + e.reasons.join('; ') }
    // the launcher itself, handed such a policy directly (no provider)
    const words = require(${JSON.stringify(path.join(pkg, 'lib', 'binding.js'))}).addon.seamLauncherWords('workspace-write', [[path.dirname(copy), idOf(path.dirname(copy))]], true, 'ab'.repeat(16), [], [], [], [])
    const direct = run([copy, ...words, '--', '/bin/true'], { cwd: '/' })
    const ok = p.confine(['/bin/sh', '-c', 'echo hi > f'], { mode: 'workspace-write', workspaceRoot: fs.mkdtempSync('/var/tmp/ws-') })
    return { copy, refused, direct, fine: run(ok.argv, { cwd: ok.argv[ok.argv.indexOf('--') - 1] }).code }`,
  { isolate: true })
  t.notOk(got.thrown || got.crashed, `the script ran (${got.thrown || got.crashed})`)
  t.match(got.refused, /the Landlock-only level cannot protect/, 'the provider refuses')
  t.equal(got.direct.code, 125, `the launcher refuses too (${got.direct.stderr.trim()})`)
  t.match(got.direct.stderr, /the policy lets the command write the launcher itself/)
})

t.test('a sandbox that started before the user\'s copy directory was used cannot write it later [nobody]', { skip: process.getuid() !== 0 && `${require('../../scripts/test-verdict.js').UNCOVERED} the copy directory race as uid 65534: this run is not root` }, async (t) => {
  const nobody = users().at(-1)
  const dir = base(t, '/tmp')
  const pkgB = installPackage(path.join(dir, 'b'), nobody)
  const pkgA = installPackage(path.join(dir, 'a'), ROOT_OWNER)
  const evil = path.join(dir, 'evil')
  fs.writeFileSync(evil, EVIL(path.join(dir, 'never')), { mode: 0o755 })
  // A would wait in the shared /var/tmp for a copy to appear in the
  // user's first candidate directory and then replace it: a workspace of
  // /var/tmp holds that directory's parent, and is refused before anything
  // runs
  const attack = `for f in "$1"/sandy-launcher-*; do [ -f "$f" ] && { chmod u+w "$f" && cat "$2" > "$f" && echo WROTE; exit 0; }; done; echo NONE`
  const got = node(nobody, pkgB, `
    const d = '/var/tmp/sandy-native-${nobody.uid}'
    const a = require(${JSON.stringify(pkgA)}).createLocalSandboxProvider({ backend: 'sandy' })
    let refused = null
    try { a.confine(['/bin/sh', '-c', ${JSON.stringify(attack)}, 'sh', d, ${JSON.stringify(evil)}], { mode: 'workspace-write', workspaceRoot: '/var/tmp' }) } catch (e) { refused = e.message }
    const copy = sandy.createLocalSandboxProvider({ backend: 'sandy' }).confine(['true'], { mode: 'read-only', workspaceRoot: '/tmp' }).argv[0]
    const bare = run(['/bin/sh', '-c', ${JSON.stringify(attack)}, 'sh', d, ${JSON.stringify(evil)}])
    return { copy, refused, bare: bare.stdout }`,
  { isolate: true })
  t.notOk(got.thrown || got.crashed, `the script ran (${got.thrown || got.crashed})`)
  t.equal(path.dirname(got.copy), `/var/tmp/sandy-native-${nobody.uid}`, 'B\'s copy is in the directory A would watch')
  t.match(got.refused, /holds the parent of a launcher copy directory/, 'A\'s workspace of /var/tmp is refused')
  t.equal(got.bare, 'WROTE\n', 'unconfined: the same loop replaces the copy')
})

// ---- the review of issue 8 ---------------------------------------------------

const DIR_ATTACK = 'd=$1; mkdir -p "$d"; touch "$d/new" && echo CREATED; chmod 777 "$d" && echo CHMODDED; for f in "$d"/sandy-launcher-*; do [ -e "$f" ] || continue; mv "$f" "$f.x" && echo MOVED; done; echo tried'

for (const user of users()) {
  for (const backend of BACKENDS) {
    t.test(`a workspace root that is the copy directory itself stays read-only [${backend}, ${user.name}]`, { skip: ISOLATION }, async (t) => {
      const dir = base(t, '/tmp')
      const pkg = installPackage(dir, user)
      const got = node(user, pkg, `
        const p = sandy.createLocalSandboxProvider({ backend: ${JSON.stringify(backend)} })
        const copy = p.confine(['true'], { mode: 'read-only', workspaceRoot: '/tmp' }).argv[0]
        const d = path.dirname(copy)
        const c = p.confine(['/bin/sh', '-c', ${JSON.stringify(DIR_ATTACK)}, 'sh', d], { mode: 'workspace-write', workspaceRoot: d })
        const confined = run(c.argv, { cwd: d })
        const after = fs.readdirSync(d)
        const bare = run(['/bin/sh', '-c', ${JSON.stringify(DIR_ATTACK)}, 'sh', d])
        return { d, confined, after, bare: bare.stdout }`,
      { isolate: true })
      t.notOk(got.thrown || got.crashed, `the script ran (${got.thrown || got.crashed})`)
      t.notMatch(got.confined.stdout, /CREATED|CHMODDED|MOVED/, `confined: nothing changed (${got.confined.stderr.trim()})`)
      t.ok(got.after.length === 1 && /^sandy-launcher-[0-9a-f]{64}$/.test(got.after[0]), 'the directory holds the copy alone')
      t.match(got.bare, /CREATED\nCHMODDED\nMOVED/, 'unconfined: all of it works')
    })
  }
}

for (const backend of BACKENDS) {
  t.test(`a root service's argv run as uid 65534 cannot touch uid 65534's own copies [${backend}]`, { skip: process.getuid() !== 0 && `${require('../../scripts/test-verdict.js').UNCOVERED} a root service spawning as uid 65534: this run is not root` }, async (t) => {
    const nobody = users().at(-1)
    const dir = base(t, '/tmp')
    const pkg = installPackage(dir, nobody)
    const rootPkg = installPackage(path.join(dir, 'root'), ROOT_OWNER)
    const rootScript = `
      const { spawnSync } = require('node:child_process')
      const d = process.argv[1]
      const c = require(${JSON.stringify(rootPkg)}).createLocalSandboxProvider({ backend: ${JSON.stringify(backend)} })
        .confine(['/bin/sh', '-c', ${JSON.stringify(DIR_ATTACK)}, 'sh', d], { mode: 'workspace-write', workspaceRoot: '/var/tmp' })
      const r = spawnSync(c.argv[0], c.argv.slice(1), { cwd: '/var/tmp', uid: ${nobody.uid}, gid: ${nobody.gid}, encoding: 'utf8' })
      process.stdout.write(JSON.stringify({ stdout: r.stdout, stderr: r.stderr }))`
    // in one private mount namespace: the root service runs its argv as
    // uid 65534, which has never used the package (its copy directory does
    // not exist yet: the command would make it and wait there); then uid
    // 65534 makes its own copy; then the unconfined control
    const userScript = `process.stdout.write(require(${JSON.stringify(pkg)}).createLocalSandboxProvider({ backend: 'sandy' }).confine(['true'], { mode: 'read-only', workspaceRoot: '/tmp' }).argv[0])`
    const d = `/var/tmp/sandy-native-${nobody.uid}`
    const steps = [
      'mount -t tmpfs -o mode=0755 sandy /var/cache && mount -t tmpfs -o mode=1777 sandy /var/tmp || exit 1',
      '"$@" -e "$ROOT_SCRIPT" "$D" > "$OUT/root.json"',
      `${nobody.wrap.join(' ')} "$@" -e "$USER_SCRIPT" > "$OUT/copy"`,
      'ls -A "$D" > "$OUT/after"',
      `${nobody.wrap.join(' ')} /bin/sh -c "$ATTACK" sh "$D" > "$OUT/bare"`
    ].join('\n')
    const r = spawnSync('unshare', ['--mount', '--propagation', 'private', SH, '-c', steps, 'steps', ...NODE], {
      env: plainNodeEnv(withSanitizerEnv({ USER_SCRIPT: userScript, ROOT_SCRIPT: rootScript, ATTACK: DIR_ATTACK, D: d, OUT: dir })),
      encoding: 'utf8',
      timeout: patience(60000)
    })
    t.equal(r.status, 0, `the steps ran (${r.stderr})`)
    const copy = fs.readFileSync(path.join(dir, 'copy'), 'utf8')
    const root = JSON.parse(fs.readFileSync(path.join(dir, 'root.json'), 'utf8'))
    t.equal(path.dirname(copy), d, 'uid 65534 keeps its copy in its own directory')
    t.notMatch(root.stdout, /CREATED|CHMODDED|MOVED/, `confined as uid 65534 by root's argv: nothing changed (${root.stderr.trim()})`)
    t.equal(fs.readFileSync(path.join(dir, 'after'), 'utf8'), `${path.basename(copy)}\n`, 'the directory holds uid 65534\'s copy alone')
    const bare = fs.readFileSync(path.join(dir, 'bare'), 'utf8')
    t.match(bare, /CREATED\nCHMODDED\nMOVED/, 'unconfined, uid 65534 can do all of it')
  })
}

// ---- the second review of issue 8 --------------------------------------------

// A confined root with a workspace holding /var/cache could loosen it for a
// moment, and another local user swap root's copy directory for one the
// confined root made. Such a workspace is refused, by the provider and by
// the launcher itself (a policy handed to it directly).
for (const backend of BACKENDS) {
  t.test(`a root workspace that holds the parent of root's copy directory is refused [${backend}]`, { skip: process.getuid() !== 0 && `${require('../../scripts/test-verdict.js').UNCOVERED} root's copy directory: this run is not root` }, async (t) => {
    const pkg = installPackage(base(t, '/tmp'), ROOT_OWNER)
    const got = node(users()[0], pkg, `
      const p = sandy.createLocalSandboxProvider({ backend: ${JSON.stringify(backend)} })
      const copy = p.confine(['true'], { mode: 'read-only', workspaceRoot: '/tmp' }).argv[0]
      const out = {}
      for (const ws of ['/var/cache', '/var']) {
        try { p.confine(['true'], { mode: 'workspace-write', workspaceRoot: ws }); out[ws] = 'allowed' } catch (e) { out[ws] = e.code + ': ' + e.message }
      }
      out.copyDir = p.confine(['true'], { mode: 'workspace-write', workspaceRoot: path.dirname(copy) }).argv[0] === copy
      const policy = new sandy.SandboxPolicy('allow_all').grant('/usr', 'read', 'subtree').allowExecute('/usr', 'subtree').grant('/var/cache', 'read_write', 'subtree')
      try { sandy.confinePolicy(['/bin/true'], policy, { cwd: '/var/cache' }); out.policy = 'allowed' } catch (e) { out.policy = e.message }
      // (the launcher, handed such a policy's words directly)
      const words = require(${JSON.stringify(path.join(pkg, 'lib', 'binding.js'))}).addon.confinePolicy(policy.toNative(), Buffer.from('/var/cache'), 'ab'.repeat(16), []).argv
      out.direct = run([copy, ...words, '--', '/bin/true'], { cwd: '/var/cache' })
      return out`, { isolate: true })
    t.notOk(got.thrown || got.crashed, `the script ran (${got.thrown || got.crashed})`)
    for (const ws of ['/var/cache', '/var']) t.match(got[ws], /^SANDBOX_UNAVAILABLE: the writable workspace holds the parent of a launcher copy directory of this user/, `${ws}: refused`)
    t.ok(got.copyDir, 'the copy directory itself may be the workspace (read-only there)')
    t.match(got.policy, /^InvalidPolicy: a writable grant holds the parent of a launcher copy directory/, 'confinePolicy refuses a policy granting it read_write')
    t.equal(got.direct.code, 125, 'the launcher refuses such a policy too')
    t.match(got.direct.stderr, /InvalidPolicy: a writable grant holds the parent of a launcher copy directory of this user/)
  })
}

// The sandboxes protect a copy directory by its path: a workspace root that
// shows it under another name (a bind mount) is refused, by the provider
// and by the launcher.
for (const user of users()) {
  t.test(`a workspace root that shows a copy directory under another name is refused [${user.name}]`, { skip: process.getuid() !== 0 && `${require('../../scripts/test-verdict.js').UNCOVERED} bind mounts: this run is not root` }, async (t) => {
    const dir = base(t, '/tmp')
    const pkg = installPackage(dir, user)
    const alias = ownedDir(path.join(dir, 'alias'), user)
    const parent = user.uid === 0 ? '/var/cache/sandy-native' : '/var/tmp'
    const got = node(user, pkg, `
      const out = {}
      for (const backend of ['sandy', 'bwrap']) {
        const p = sandy.createLocalSandboxProvider({ backend })
        p.confine(['true'], { mode: 'read-only', workspaceRoot: '/tmp' })
        try { p.confine(['true'], { mode: 'workspace-write', workspaceRoot: ${JSON.stringify(alias)} }); out[backend] = 'allowed' } catch (e) { out[backend] = e.message }
      }
      const copy = sandy.createLocalSandboxProvider({ backend: 'sandy' }).confine(['true'], { mode: 'read-only', workspaceRoot: '/tmp' }).argv[0]
      const words = require(${JSON.stringify(path.join(pkg, 'lib', 'binding.js'))}).addon.seamLauncherWords('workspace-write', [[${JSON.stringify(alias)}, idOf(${JSON.stringify(alias)})]], false, 'ab'.repeat(16), [], [], [], [])
      out.direct = run([copy, ...words, '--', '/bin/true'], { cwd: '/' })
      return out`, { isolate: true, bind: [parent, alias] })
    t.notOk(got.thrown || got.crashed, `the script ran (${got.thrown || got.crashed})`)
    for (const backend of BACKENDS) t.match(got[backend], /shows a launcher copy directory under another name/, `${backend}: refused`)
    t.equal(got.direct.code, 125, `the launcher refuses it too (${got.direct.stderr.trim()})`)
    t.match(got.direct.stderr, /InvalidPolicy: a writable grant shows a launcher copy directory under another name/)
  })
}

// The guard builds bubblewrap's tree in a namespace of its own: the
// workspace writable, its own uid's copy directory read-only, every other
// mount read-only (shown with a shell as the runner, which then runs in
// that namespace unconfined otherwise). A workspace holding the copy
// directory's parent is refused before anything runs; the copy directory
// itself as the workspace stays read-only.
t.test('the bwrap guard keeps its own copy directory read-only inside a writable workspace', { skip: process.getuid() !== 0 && `${require('../../scripts/test-verdict.js').UNCOVERED} the guard as uid 65534: this run is not root` }, async (t) => {
  const nobody = users().at(-1)
  const dir = base(t, '/tmp')
  const pkg = installPackage(dir, nobody)
  const got = node(nobody, pkg, `
    const copy = sandy.createLocalSandboxProvider({ backend: 'sandy' }).confine(['true'], { mode: 'read-only', workspaceRoot: '/tmp' }).argv[0]
    const d = '/var/tmp/sandy-native-' + process.getuid()
    const guard = (root, script) => { const st = fs.statSync(root, { bigint: true }); return run([copy, '--sandy-guard-v1', '--nonce', 'ab'.repeat(16), '--bind-root', root, st.dev + ':' + st.ino, '--',
      '/bin/sh', '-c', script, '--'], { cwd: '/' }) }
    const parent = guard('/var/tmp', 'echo x > /var/tmp/probe && echo WS')
    const itself = guard(d, 'touch ' + d + '/x && echo COPY; touch /var/x && echo VAR; true')
    return { parent, itself, probe: fs.existsSync('/var/tmp/probe') }`, { isolate: true })
  t.notOk(got.thrown || got.crashed, `the script ran (${got.thrown || got.crashed})`)
  t.equal(got.parent.code, 125, `a workspace of the copy directory's parent: refused (${got.parent.stderr.trim()})`)
  t.match(got.parent.stderr, /fatal: InvalidPolicy: a writable grant holds the parent of a launcher copy directory/)
  t.notOk(got.probe, 'and nothing ran')
  t.equal(got.itself.stdout, '', `the copy directory as the workspace: nothing written (${got.itself.stderr.trim()})`)
  t.match(got.itself.stderr, /sandy-native-\d+\/x'?: Read-only file system/, 'the copy directory is read-only')
  t.match(got.itself.stderr, /\/var\/x'?: Read-only file system/, 'everything else is read-only')
})
