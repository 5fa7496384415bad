'use strict'
// Ubuntu's AppArmor restriction of user namespaces (docs/apparmor.md),
// where no Ubuntu kernel is. The restriction has two marks, each made real
// here: its sysctl, which a test build of the launcher takes as set
// (csrc/Makefile's apparmor: Debian's kernels lack it), and an LSM's
// refusal of the namespaces trial, which a seccomp filter returning EPERM
// or EACCES causes (test/fixtures/nosys.c): for mount(2), a step after the
// namespace was made, as AppArmor's withheld capabilities refuse it; for
// unshare(2), EACCES, as AppArmor refuses it without its unprivileged_userns
// profile. The probe's reasons name the sysctl and its remedy exactly when
// both marks hold, as root and as uid 65534; unshare's EPERM (a sysctl or
// a seccomp rule elsewhere) is not the restriction.
const t = require('tap')
const fs = require('node:fs')
const path = require('node:path')
const { spawnSync, execFileSync } = require('node:child_process')

const { users, setup, plainNodeEnv } = require('../helpers/sandbox.js')
const { launcherPath } = require('../../lib/binding.js')

const ROOT = path.join(__dirname, '..', '..')
const REMEDY = 'sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0'

const fx = setup(t)
const build = path.join(fx.bin, 'sandy-launcher-apparmor')
t.before(() => {
  execFileSync('make', ['-s', '--no-print-directory', '-C', path.join(ROOT, 'csrc'), 'apparmor', `O=${fx.bin}`], { stdio: ['ignore', 'ignore', 'inherit'] })
})

// A launcher whose every call of syscall is refused with errno, as a
// program (the addon runs the probe's launcher by path).
function refusing (launcher, syscall, errno) {
  const wrapper = path.join(fx.bin, `${path.basename(launcher)}-${syscall}-${errno}`)
  fs.writeFileSync(wrapper, `#!/bin/sh\nexec ${fx.nosys} --errno ${errno} ${syscall} -- ${launcher} "$@"\n`, { mode: 0o755 })
  return wrapper
}
const EPERM = 1
const EACCES = 13

// The report of launcher's probe, asked by the addon in a process of user.
function probeAs (user, launcher) {
  const script = 'process.stdout.write(JSON.stringify(require(process.argv[1]).addon.probe(process.argv[2], null)))'
  const argv = [...user.wrap, process.execPath, '-e', script, path.join(ROOT, 'lib', 'binding.js'), launcher]
  const r = spawnSync(argv[0], argv.slice(1), { cwd: '/', env: plainNodeEnv(), encoding: 'utf8' })
  if (r.status !== 0) throw new Error(`the probe as ${user.name} failed: ${r.error || r.stderr}`)
  return JSON.parse(r.stdout)
}

for (const user of users()) {
  t.test(`the probe names the restriction and its remedy exactly when both marks hold, as ${user.name}`, async (t) => {
    for (const [syscall, errno, what] of [['mount', EPERM, 'a mount after unshare, EPERM'], ['mount', EACCES, 'a mount after unshare, EACCES'], ['unshare', EACCES, 'unshare itself, EACCES']]) {
      const both = probeAs(user, refusing(build, syscall, errno))
      t.equal(both.userNamespacesRestricted, true, `${what}: the test build takes the sysctl as set`)
      t.equal(both.userNamespacesDenied, true, `${what}: an LSM's refusal`)
      t.equal(both.userNamespaces, false)
      for (const name of ['sandy', 'bwrap']) {
        t.equal(both.backends[name].usable, false, `${what}: ${name} unusable`)
        t.match(both.backends[name].reason, REMEDY, `${what}: ${name}'s reason prints the remedy`)
        t.match(both.backends[name].reason, 'for every program', `${what}: ${name}'s reason says its cost`)
      }
    }

    const policy = probeAs(user, refusing(build, 'unshare', EPERM))
    t.equal(policy.userNamespacesDenied, false, 'unshare refused with EPERM (a sysctl, a seccomp rule): not an LSM\'s mark')
    t.notMatch(policy.backends.sandy.reason, REMEDY, 'and no remedy of AppArmor\'s')

    const allowed = probeAs(user, build)
    t.equal(allowed.userNamespacesRestricted, true, 'the sysctl set, the launcher allowed')
    t.equal(allowed.userNamespacesDenied, false)
    t.equal(allowed.backends.sandy.usable, true, `then sandy is usable (${allowed.backends.sandy.reason})`)
    t.notMatch(JSON.stringify(allowed.backends), /apparmor/i, 'and nothing speaks of AppArmor')

    const shipped = launcherPath()
    const other = probeAs(user, refusing(shipped, 'mount', EPERM))
    t.equal(other.userNamespacesRestricted, false, 'the shipped launcher reads the real sysctl: absent on this kernel')
    t.equal(other.userNamespacesDenied, true, 'its trial refused all the same')
    t.equal(other.backends.sandy.usable, false)
    t.notMatch(other.backends.sandy.reason, REMEDY, 'a refusal without the sysctl gets the generic reason')
    t.match(other.backends.sandy.reason, /cannot create user\+mount\+IPC namespaces/)

    const plain = probeAs(user, shipped)
    t.equal(plain.userNamespacesDenied || plain.userNamespacesRestricted, false, 'control: the shipped launcher, unfiltered, sees neither')
    t.equal(plain.backends.sandy.usable, true)
  })
}
