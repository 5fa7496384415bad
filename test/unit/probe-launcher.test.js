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
const { users, plainNodeEnv, withSanitizerEnv } = require('../helpers/sandbox.js')
const { patience } = require('../helpers/patience.js')
const { installPackage } = require('../helpers/package-copy.js')

t.setTimeout(patience(300000))
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
  const opts = { cwd: '/', env: plainNodeEnv(withSanitizerEnv({})), encoding: 'utf8', timeout: patience(60000) }
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
  // (the recorded digest is one no copy can have yet: a verified copy of
  // the real launcher, left by an earlier run where the copy directories
  // cannot be isolated, would rightly be used)
  ['is foreign (not the bytes this build recorded)', (pkg) => {
    writeLauncher(pkg, '#!/bin/sh\nexit 0\n', { digest: false })
    fs.writeFileSync(path.join(pkg, 'build', 'Release', 'sandy-launcher.sha256'), crypto.randomBytes(32).toString('hex') + '\n')
  },
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

// Worker threads share the one loaded addon: each probe call keeps its
// report to itself (review of issue 12: a shared static report let a
// worker whose launcher failed verification read another's "usable").
t.test('concurrent probes in worker threads never mix their reports', async (t) => {
  const { Worker } = require('node:worker_threads')
  const binding = path.join(__dirname, '..', '..', 'lib', 'binding.js')
  // (verified here: tap's process hooks do not spawn from a worker)
  const copy = require(binding).verifiedLauncherPath()
  const body = `
    const { parentPort, workerData } = require('node:worker_threads')
    const { addon } = require(${JSON.stringify(binding)})
    const launcher = workerData.launcher
    const end = Date.now() + 2000
    let n = 0; const bad = []
    while (Date.now() < end) {
      const r = addon.probe(launcher, launcher ? null : 'no launcher (test)')
      n++
      for (const b of ['sandy', 'bwrap', 'landlock']) {
        const v = r.backends[b]
        if (!launcher && (v.usable || v.reason !== 'no launcher (test)')) bad.push(b + ': ' + JSON.stringify(v))
      }
      if (launcher && (!r.backends.sandy.usable || r.userNamespaces !== true)) bad.push('sandy: ' + JSON.stringify(r.backends.sandy))
    }
    parentPort.postMessage({ n, bad: bad.slice(0, 3) })`
  const run = (verified) => new Promise((resolve, reject) => {
    const w = new Worker(body, { eval: true, workerData: { launcher: verified ? launcherPath : null } })
    w.once('message', resolve)
    w.once('error', reject)
  })
  const launcherPath = copy
  const results = await Promise.all([run(true), run(true), run(false), run(false)])
  for (const [i, r] of results.entries()) {
    t.ok(r.n > 0, `worker ${i} probed ${r.n} times`)
    t.same(r.bad, [], `worker ${i}: every report whole`)
  }
})

t.test('a long reason (a deep install path) is cut, never a thrown RangeError', async (t) => {
  const { addon } = require('../../lib/binding.js')
  const r = addon.probe(null, 'x'.repeat(5000))
  t.equal(r.backends.sandy.usable, false)
  t.ok(r.backends.sandy.reason.length < 5000 && /^x+$/.test(r.backends.sandy.reason), 'the reason, cut short')
})
