'use strict'
// Ubuntu's AppArmor restriction of user namespaces (docs/apparmor.md),
// where no Ubuntu kernel is. The restriction has two marks, each made real
// here: its sysctl, which a test build of the launcher takes as set
// (csrc/Makefile's apparmor: Debian's kernels lack it), and the trial's
// refusal after the namespace was made, which a seccomp filter returning
// EPERM for mount(2) causes (test/fixtures/nosys.c), as AppArmor's
// withheld capabilities do. The probe's reasons name `sudo sandy apparmor
// --install` exactly when both hold, as root and as uid 65534. The
// profile that command writes names the resolved launcher only, refuses a
// path AppArmor would read as a pattern, and parses with Debian trixie's
// apparmor_parser (unpacked from the archive, with trixie's C library,
// never installed), which refuses a broken one.
const t = require('tap')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { spawnSync, execFileSync } = require('node:child_process')

const { users, setup, plainNodeEnv } = require('../helpers/sandbox.js')
const { addon, launcherPath } = require('../../lib/binding.js')
const { profileText, shippedLauncher } = require('../../lib/apparmor.js')
const { main } = require('../../lib/cli.js')

const ROOT = path.join(__dirname, '..', '..')
const COMMAND = 'sudo sandy apparmor --install'

const fx = setup(t)
const build = path.join(fx.bin, 'sandy-launcher-apparmor')
t.before(() => {
  execFileSync('make', ['-s', '--no-print-directory', '-C', path.join(ROOT, 'csrc'), 'apparmor', `O=${fx.bin}`], { stdio: ['ignore', 'ignore', 'inherit'] })
})

// A launcher whose every mount(2) is refused with EPERM, as a program
// (the addon runs the probe's launcher by path).
function refusingMounts (launcher, name) {
  const wrapper = path.join(fx.bin, name)
  fs.writeFileSync(wrapper, `#!/bin/sh\nexec ${fx.nosys} --errno 1 mount -- ${launcher} "$@"\n`, { mode: 0o755 })
  return wrapper
}

// The report of launcher's probe, asked by the addon in a process of user.
function probeAs (user, launcher) {
  const script = 'process.stdout.write(JSON.stringify(require(process.argv[1]).addon.probe(process.argv[2], null)))'
  const argv = [...user.wrap, process.execPath, '-e', script, path.join(ROOT, 'lib', 'binding.js'), launcher]
  const r = spawnSync(argv[0], argv.slice(1), { cwd: '/', env: plainNodeEnv(), encoding: 'utf8' })
  if (r.status !== 0) throw new Error(`the probe as ${user.name} failed: ${r.error || r.stderr}`)
  return JSON.parse(r.stdout)
}

for (const user of users()) {
  t.test(`the probe names the remedy exactly when both marks hold, as ${user.name}`, async (t) => {
    const both = probeAs(user, refusingMounts(build, 'restricted-refused'))
    t.equal(both.userNamespacesRestricted, true, 'the test build takes the sysctl as set')
    t.equal(both.userNamespacesDenied, true, 'the trial was refused after the namespace was made')
    t.equal(both.userNamespaces, false)
    for (const name of ['sandy', 'bwrap']) {
      t.equal(both.backends[name].usable, false, `${name}: unusable`)
      t.match(both.backends[name].reason, COMMAND, `${name}: the reason prints the command`)
      t.match(both.backends[name].reason, 'kernel.apparmor_restrict_unprivileged_userns=1', `${name}: and the sysctl`)
    }

    const allowed = probeAs(user, build)
    t.equal(allowed.userNamespacesRestricted, true, 'the sysctl set, the launcher allowed')
    t.equal(allowed.userNamespacesDenied, false)
    t.equal(allowed.backends.sandy.usable, true, `then sandy is usable (${allowed.backends.sandy.reason})`)
    t.notMatch(JSON.stringify(allowed.backends), /apparmor/i, 'and nothing speaks of AppArmor')

    const shipped = launcherPath()
    const other = probeAs(user, refusingMounts(shipped, 'shipped-refused'))
    t.equal(other.userNamespacesRestricted, false, 'the shipped launcher reads the real sysctl: absent on this kernel')
    t.equal(other.userNamespacesDenied, true, 'its trial refused all the same')
    t.equal(other.backends.sandy.usable, false)
    t.notMatch(other.backends.sandy.reason, COMMAND, 'a refusal that is not the restriction gets the generic reason')
    t.match(other.backends.sandy.reason, /cannot create user\+mount\+IPC namespaces/)

    const plain = probeAs(user, shipped)
    t.equal(plain.userNamespacesDenied || plain.userNamespacesRestricted, false, 'control: the shipped launcher, unfiltered, sees neither')
    t.equal(plain.backends.sandy.usable, true)
  })
}

t.test('the profile names one plain path, the resolved shipped launcher', async (t) => {
  const { file, why } = shippedLauncher()
  t.equal(why, null, 'this checkout is root\'s alone (CI clones as root)')
  t.equal(file, fs.realpathSync(launcherPath()))
  const text = profileText(file)
  t.match(text, `profile sandy-native-launcher ${file} flags=(unconfined) {\n  userns,\n`)
  t.equal(text.split('\n').filter((l) => l.includes('/') && !l.startsWith('#') && !l.includes('<')).length, 1, 'no other path')
  for (const bad of ['/opt/x*/sandy-launcher', '/opt/a b/l', '/opt/{a,b}/l', '/opt/[ab]/l', '/opt/a?/l', '/opt/^a/l', 'relative/l', '/opt/a\n/l', '/opt/a"/l']) {
    t.throws(() => profileText(bad), { name: 'RangeError', message: /pattern/ }, `refused: ${JSON.stringify(bad)}`)
  }
  const out = []
  t.equal(await main(['apparmor'], { out: (s) => out.push(s), err: (s) => out.push(s) }), 0)
  t.equal(out.join(''), text, '`sandy apparmor` prints it')
})

t.test('a launcher a user can change is never named', async (t) => {
  // a copy of the package's launcher in a directory of uid 65534's
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sandy-apparmor-user-'))
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }))
  fs.chownSync(dir, 65534, 65534)
  const binding = require('../../lib/binding.js')
  const { shippedLauncher: at } = t.mockRequire('../../lib/apparmor.js', {
    '../../lib/binding.js': Object.create(binding, { launcherPath: { value: () => { const f = path.join(dir, 'sandy-launcher'); fs.copyFileSync(launcherPath(), f); return f } } })
  })
  const r = at()
  t.equal(r.file, null)
  t.match(r.why, /belongs to uid 65534.*install sandy-native root-owned/)
  const nobody = users().find((u) => u.name !== 'root')
  if (nobody) {
    const cli = spawnSync(nobody.wrap[0], [...nobody.wrap.slice(1), process.execPath, path.join(ROOT, 'bin', 'sandy'), 'apparmor', '--install'],
      { cwd: '/', env: plainNodeEnv(), encoding: 'utf8' })
    t.equal(cli.status, 1, 'as a user, --install is refused')
    t.match(cli.stderr, /only root can install/)
  }
})

// Debian trixie's apparmor_parser, with trixie's C library, unpacked into
// the kernels' cache (scripts/kernels.js's private apt configuration).
function trixieParser () {
  const { aptSetup, run } = require('../../scripts/kernels.js')
  const cache = process.env.SANDY_KERNEL_CACHE || '/var/cache/sandy-kernels'
  const dir = path.join(cache, 'apparmor-trixie')
  const done = path.join(dir, '.complete')
  if (!fs.existsSync(done)) {
    fs.rmSync(dir, { recursive: true, force: true })
    const debs = path.join(dir, 'debs')
    fs.mkdirSync(debs, { recursive: true })
    aptSetup(cache).download(['apparmor/trixie', 'libc6/trixie'], debs)
    for (const deb of fs.readdirSync(debs)) run('dpkg-deb', ['-x', path.join(debs, deb), path.join(dir, 'root')])
    fs.rmSync(debs, { recursive: true })
    fs.writeFileSync(done, '')
  }
  const root = path.join(dir, 'root')
  return (file) => spawnSync(path.join(root, 'usr', 'lib64', 'ld-linux-x86-64.so.2'),
    ['--library-path', path.join(root, 'usr', 'lib', 'x86_64-linux-gnu'), path.join(root, 'usr', 'sbin', 'apparmor_parser'),
      '-Q', '--config-file', '/dev/null', '-I', path.join(root, 'etc', 'apparmor.d'), '--base', path.join(root, 'etc', 'apparmor.d'), file], { encoding: 'utf8' })
}

t.test('the profile parses with apparmor_parser -Q (Debian trixie\'s)', { skip: process.arch !== 'x64' && 'the parser is fetched for x86_64' }, async (t) => {
  const parse = trixieParser()
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sandy-apparmor-'))
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }))
  const good = path.join(dir, 'good')
  fs.writeFileSync(good, profileText(shippedLauncher().file))
  const r = parse(good)
  t.equal(r.status, 0, `parsed (${r.stderr.trim()})`)
  const bad = path.join(dir, 'bad')
  fs.writeFileSync(bad, profileText(shippedLauncher().file).replace('userns,', 'usrns,'))
  const b = parse(bad)
  t.not(b.status, 0, `control: a misspelt rule is refused (${b.stderr.trim().split('\n').pop()})`)
})
