'use strict'
// The kernel matrix's runner (scripts/kernels.js) without a network or a
// virtual machine: how it picks a kernel from Debian's metapackages (a
// package missing from the archive, or a suite that moved to another line,
// is a clear failure), the modules' dependencies it reads, the kernel line
// it writes, how it reads a smoke guest's console, and the host's strict
// rules it holds the strict kernels' guests to.
const t = require('tap')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { stanza, dependsOf, resolveKernel, smokeSummary, kernelLine, hostProblems, unfinished, panickedBeforeBoot, LIST } = require('../../scripts/kernels.js')

// An apt of canned `apt-cache show` answers; a missing one fails as
// apt-cache does.
function fakeApt (answers) {
  return {
    show: (pkg) => {
      if (!(pkg in answers)) throw new Error(`apt-cache show ${pkg} failed (exit 100): E: No packages found`)
      return answers[pkg]
    }
  }
}

const k612 = LIST.find((k) => k.name === '6.12')

t.test('the list names 6.1, 6.12, the newest and arm64', async (t) => {
  t.same(LIST.map((k) => k.name), ['6.1', '6.12', 'newest', 'arm64'])
  t.same(LIST.filter((k) => k.strict).map((k) => k.name), ['6.12', 'newest'], 'the host\'s strict mode holds on the kernels with every backend')
})

t.test('a strict kernel\'s guest is held to the host\'s skips', async (t) => {
  const file = 'test/confinement/escape-exec.test.js'
  const counts = (skips, files = { [file]: { pass: 3, fail: 0, skip: skips.length, todo: 0 } }) =>
    ({ pass: 3, fail: 0, skip: skips.length, todo: 0, files, fails: [], todos: [], skips: skips.map(([name, reason]) => ({ file, name, reason })) })
  t.same(hostProblems(counts([['not covered: landlock backend as root: the Landlock-only level refuses uid 0', '']])), [], 'a skip the host allows')
  t.match(hostProblems(counts([['an inherited block device', 'not covered: this host has no loop devices']])),
    [/skip not on the allowlist: "an inherited block device # not covered: this host has no loop devices"/], 'one it does not')
  t.match(hostProblems(counts([], { [file]: { pass: 0, fail: 0, skip: 1, todo: 0 } })), [/no test passed in it/], 'a file where nothing passed')
})

t.test('a kernel is what its suite\'s metapackage names, followed through split packages', async (t) => {
  const apt = fakeApt({
    'linux-image-amd64/trixie': 'Package: linux-image-amd64\nVersion: 6.12.117-1\nDepends: linux-image-6.12.117+deb13-amd64 (= 6.12.117-1)\n\nPackage: other\n',
    'linux-image-6.12.117+deb13-amd64:amd64=6.12.117-1': 'Package: x\nDepends: initramfs-tools | linux-initramfs-tool, linux-modules-6.12.117+deb13-amd64 (= 6.12.117-1), linux-base\n',
    'linux-modules-6.12.117+deb13-amd64:amd64=6.12.117-1': 'Package: y\n'
  })
  t.same(resolveKernel(apt, k612), {
    release: '6.12.117+deb13-amd64',
    packages: ['linux-image-6.12.117+deb13-amd64:amd64=6.12.117-1', 'linux-modules-6.12.117+deb13-amd64:amd64=6.12.117-1']
  })
})

t.test('a metapackage missing from the archive is a failure that says so', async (t) => {
  t.throws(() => resolveKernel(fakeApt({}), k612), /apt-cache show linux-image-amd64\/trixie failed .*No packages found/)
})

t.test('a suite that moved to another line is a failure, not a silent change', async (t) => {
  const apt = fakeApt({
    'linux-image-amd64/trixie': 'Package: linux-image-amd64\nDepends: linux-image-7.1.3+deb13-amd64 (= 7.1.3-1)\n',
    'linux-image-7.1.3+deb13-amd64:amd64=7.1.3-1': 'Package: x\n'
  })
  t.throws(() => resolveKernel(apt, k612), { message: 'trixie now gives kernel 7.1.3+deb13-amd64, which does not match ^6\\.12\\.: update test/kernels/kernels.json' })
  t.throws(() => resolveKernel(fakeApt({ 'linux-image-amd64/trixie': 'Package: linux-image-amd64\nDepends: linux-base\n' }), k612),
    /depends on no versioned kernel image/)
})

t.test('fields, module dependencies and the kernel line', async (t) => {
  t.same(stanza('A: 1\nB: two\n words\n\nA: 2\n'), { A: '1', B: 'two\nwords' })
  t.same(dependsOf(Buffer.from('\0name=9p\0depends=netfs,9pnet\0vermagic=x\0')), ['netfs', '9pnet'])
  t.same(dependsOf(Buffer.from('\0depends=\0')), [])
  t.match(kernelLine(k612, 'test/kernels/guest'), /^console=ttyS0 .* sandy\.checkout=\S+ sandy\.guest=test\/kernels\/guest$/)
  t.notMatch(kernelLine(k612, 'a b'), / b$/, 'a space is encoded, never a second word')
})

t.test('a smoke guest\'s console: TAP, facts, verdicts, and a run that did not finish', async (t) => {
  const text = [
    '[ 1.0] kernel noise', 'ok 1 - [root] a', '# facts root kernel=6.12 landlockAbi=6 userNamespaces=true',
    '# verdict root sandy usable=true enforcement=full reason=works', 'not ok 2 - [root] b', '# end root plan-ok',
    'ok 1 - [nobody] a', '# skip nobody network checks: no'
  ].join('\r\n')
  const s = smokeSummary(text, '6.12')
  t.equal(s.counts.pass, 2)
  t.equal(s.counts.skip, 1)
  t.same(s.counts.fails.map((f) => f.name), ['[root] b', 'the nobody run did not complete its plan'])
  t.same(s.probes.root, { backends: { sandy: { usable: true, reason: 'works' } }, landlockAbi: 6 })
})

t.test('a guest\'s test file that never finished is named, with its last lines', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sandy-streams-'))
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }))
  fs.writeFileSync(path.join(dir, 'test__confinement__done.test.js.tap'), 'TAP version 14\nok 1 - x\n1..1\n# time=12.5ms\n')
  fs.writeFileSync(path.join(dir, 'test__confinement__hangs.test.js.tap'), 'TAP version 14\n# Subtest: waits forever\n')
  t.same(unfinished(dir), [['test/confinement/hangs.test.js', ['TAP version 14', '# Subtest: waits forever', '']]])
  t.same(unfinished(path.join(dir, 'none')), [], 'no streams (the guest never ran a file): none')
})

t.test('a kernel that panicked while booting is booted once more; nothing else is', async (t) => {
  // (the console of the replay at e585fe7: the newest kernel under TCG)
  const crashed = '[    1.114909]  ? __pfx_kthread+0x10/0x10\n[    1.116246] Kernel panic - not syncing: Fatal exception in interrupt\n[    2.567713] Shutting down cpus with NMI\n'
  t.equal(panickedBeforeBoot(crashed), true)
  t.equal(panickedBeforeBoot('Kernel panic - not syncing: VFS: Unable to mount root fs\n'), true, 'without timestamps too')
  t.equal(panickedBeforeBoot('[    0.5] Run /init as init process\nkernel-guest: fatal: no checkout\n'), false, 'a guest that fails on its own is not booted again')
  t.equal(panickedBeforeBoot('# a test named "Kernel panic - not syncing" printed mid-line: Kernel panic - not syncing\n'), false, 'only a line the kernel starts')
})
