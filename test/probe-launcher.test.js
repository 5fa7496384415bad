'use strict'
// The probe asks the launcher (csrc/addon/probe.c, csrc/linux/probe.c): a
// launcher that is missing, not executable, not the one this package
// built, or that answers anything but its report leaves every Linux backend
// unusable, with the reason and the fix, in `sandy probe` and in the
// provider alike. Each case runs in a copy of the package, as root and as
// uid 65534, next to a control copy whose launcher is intact.
const t = require('tap')
const fs = require('node:fs')
const path = require('node:path')
const crypto = require('node:crypto')
const { spawnSync } = require('node:child_process')
const { users, plainNodeEnv, withSanitizerEnv } = require('./helpers/sandbox.js')
const { installPackage } = require('./helpers/package-copy.js')

t.setTimeout(300000)
const NODE = ['/usr/bin/env', '-u', 'NODE_OPTIONS', process.execPath]
const LINUX_BACKENDS = ['sandy', 'bwrap', 'landlock']
const isRoot = process.getuid() === 0

// `sandy probe --json`, and the provider's and the library's reports, from
// the package at pkg, as user; copies of scripts made there go to fresh
// tmpfs mounts on the copy directories when root can isolate them.
function reports (user, pkg) {
  const lib = `const s = require(${JSON.stringify(pkg)}); process.stdout.write(JSON.stringify({ probe: s.probe(), provider: s.createLocalSandboxProvider().probe() }))`
  let cli = [...user.wrap, ...NODE, path.join(pkg, 'bin', 'sandy'), 'probe', '--json', '--root', '/']
  let js = [...user.wrap, ...NODE, '-e', lib]
  if (isRoot) {
    const isolate = (argv) => ['unshare', '--mount', '--propagation', 'private', '/bin/sh', '-c',
      'mount -t tmpfs -o mode=0755 sandy /var/cache && mount -t tmpfs -o mode=1777 sandy /var/tmp && exec "$@"', 'isolate', ...argv]
    cli = isolate(cli)
    js = isolate(js)
  }
  const opts = { cwd: '/', env: plainNodeEnv(withSanitizerEnv({})), encoding: 'utf8', timeout: 60000 }
  const c = spawnSync(cli[0], cli.slice(1), opts)
  const j = spawnSync(js[0], js.slice(1), opts)
  try {
    return { cli: JSON.parse(c.stdout), ...JSON.parse(j.stdout) }
  } catch {
    return { crashed: `${c.status} ${c.stderr} ${j.status} ${j.stderr}` }
  }
}

function tempDir (t) {
  const dir = fs.realpathSync(fs.mkdtempSync('/tmp/sandy-probe-'))
  fs.chmodSync(dir, 0o755)
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }))
  return dir
}

function writeLauncher (pkg, text, { digest = true } = {}) {
  const file = path.join(pkg, 'build', 'Release', 'sandy-launcher')
  fs.writeFileSync(file, text)
  if (digest) {
    const sum = crypto.createHash('sha256').update(text).digest('hex')
    fs.writeFileSync(`${file}.sha256`, `${sum}\n`)
  }
}

const BREAKS = [
  ['is not executable', (pkg) => fs.chmodSync(path.join(pkg, 'build', 'Release', 'sandy-launcher'), 0o644),
    /the sandy launcher is not executable .*run `npm rebuild sandy-native`/],
  ['is missing', (pkg) => fs.rmSync(path.join(pkg, 'build', 'Release', 'sandy-launcher')),
    /the sandy launcher is missing .*run `npm rebuild sandy-native`/],
  ['is foreign (not the bytes this build recorded)', (pkg) => writeLauncher(pkg, '#!/bin/sh\nexit 0\n', { digest: false }),
    /the sandy launcher cannot be used: .*npm rebuild sandy-native/],
  // (run bare, it refuses as the launcher does: the copy directory's check)
  ['answers something else', (pkg) => writeLauncher(pkg, '#!/bin/sh\n[ "$1" = --sandy-probe-v1 ] || exit 125\necho hello\n'),
    /^the sandy launcher answered its probe with something else than a report .*; run `npm rebuild sandy-native`$/],
  ['fails its probe (a launcher of another version)', (pkg) =>
    writeLauncher(pkg, '#!/bin/sh\necho "sandy-launcher: fatal: PreparationFailed: malformed launcher arguments" >&2\nexit 125\n'),
  /^the sandy launcher did not answer its probe: exit status 125: sandy-launcher: fatal: PreparationFailed: malformed launcher arguments; run `npm rebuild sandy-native`$/]
]

for (const user of users()) {
  t.test(`control: an intact copy of the package probes the launcher [${user.name}]`, async (t) => {
    const r = reports(user, installPackage(tempDir(t), user))
    t.notOk(r.crashed, r.crashed)
    t.equal(r.cli.backends.sandy.usable, true, 'sandy usable')
    t.equal(r.cli.backends.bwrap.usable, r.cli.bwrap.works, 'bwrap usable where it works')
    t.same(r.cli.backends, r.probe.backends, 'sandy probe and probe() are one report')
    t.same(r.provider.candidates.map((c) => [c.name, c.usable]), Object.entries(r.probe.backends).map(([n, v]) => [n, v.usable]),
      'the provider judges by the same report')
  })

  for (const [name, breakIt, reason] of BREAKS) {
    t.test(`a launcher that ${name}: every Linux backend unusable, with the reason [${user.name}]`, async (t) => {
      const pkg = installPackage(tempDir(t), user)
      breakIt(pkg)
      const r = reports(user, pkg)
      t.notOk(r.crashed, r.crashed)
      for (const b of LINUX_BACKENDS) {
        t.equal(r.cli.backends[b].usable, false, `sandy probe: ${b} unusable`)
        t.match(r.cli.backends[b].reason, reason, `sandy probe: ${b} says why and how to fix it`)
      }
      t.same(r.cli.backends, r.probe.backends, 'sandy probe and probe() are one report')
      const candidates = Object.fromEntries(r.provider.candidates.map((c) => [c.name, c]))
      t.equal(r.provider.selected, null, 'the provider selects nothing')
      for (const b of LINUX_BACKENDS) t.match(candidates[b].reason, reason, `provider: ${b}`)
      t.equal(r.cli.userNamespaces, false, 'no fact is claimed without the launcher')
    })
  }
}
