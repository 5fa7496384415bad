'use strict'
// The host probe: report shape, facts cross-checked against independent
// sources (uname, bwrap itself, a Landlock syscall made by perl, unshare),
// caching, the verdicts for a missing, broken or hanging bwrap, and the CLI.
const t = require('tap')
const fs = require('node:fs')
const path = require('node:path')
const { spawnSync } = require('node:child_process')

const { addon } = require('../../lib/binding')
const sandy = require('../..')
const { main, formatTable } = require('../../lib/cli')
const { expectedAbi, syscallAbi, literal } = require('../helpers/kernel.js')
const { UNCOVERED } = require('../../scripts/test-verdict.js')
const { patience } = require('../helpers/patience.js')

const root = path.resolve(__dirname, '..', '..')
const cli = path.join(root, 'bin', 'sandy')
const BWRAP_DIRS = ['/usr/bin', '/bin', '/usr/local/bin']
const NOBODY = ['--reuid=65534', '--regid=65534', '--clear-groups']
const isRoot = process.getuid() === 0
// What this kernel must give, derived from its release (the kernel
// matrix runs the suite on several kernels), not from the machine the
// suite was written on.
const EXPECTED = expectedAbi()
// Whether this kernel has what the sandy backend (and the Landlock-only
// level) needs: Landlock ABI 6 (the kernel matrix's 6.1 has 2).
const SANDY_KERNEL = syscallAbi() >= 6
const AUTO = ['sandy', 'bwrap', 'landlock'].find((b) => sandy.probe().backends[b].usable) ?? null

function run (file, args, opts = {}) {
  return spawnSync(file, args, { encoding: 'utf8', timeout: patience(20000), ...opts })
}

// Runs the probe in a fresh node, optionally behind a command prefix (for
// example setpriv or unshare), and returns the parsed report.
function probeInChild (t, prefix = [], script = '') {
  const code = `${script};process.stdout.write(JSON.stringify(require(${JSON.stringify(root)}).probe()))`
  const argv = [...prefix, process.execPath, '-e', code]
  const res = run(argv[0], argv.slice(1))
  t.equal(res.status, 0, `probe child exits 0 (${res.stderr.trim()})`)
  return JSON.parse(res.stdout)
}

const report = sandy.probe()

t.test('report shape', async (t) => {
  t.same(Object.keys(report).sort(), ['backends', 'bwrap', 'kernelRelease', 'landlockAbi',
    'landlockErrata', 'mountApi', 'mountApiDetail', 'noNewPrivs', 'openat2', 'pidNamespace', 'pidNamespaceDetail', 'platform',
    'sandboxExec', 'seccompFilter', 'userNamespaces', 'userNamespacesDenied', 'userNamespacesDetail', 'userNamespacesRestricted'])
  t.equal(report.platform, 'linux')
  for (const k of ['landlockAbi', 'landlockErrata']) t.ok(Number.isInteger(report[k]) && report[k] >= 0, k)
  for (const k of ['userNamespaces', 'mountApi', 'pidNamespace', 'openat2', 'seccompFilter', 'noNewPrivs', 'sandboxExec']) {
    t.type(report[k], 'boolean', k)
  }
  t.type(report.userNamespacesDetail, 'string')
  t.type(report.pidNamespaceDetail, 'string')
  t.type(report.mountApiDetail, 'string')
  t.same(Object.keys(report.bwrap).sort(), ['detail', 'found', 'path', 'version', 'works'])
  t.same(Object.keys(report.backends), ['sandy', 'bwrap', 'landlock', 'seatbelt'])
  for (const [name, v] of Object.entries(report.backends)) {
    t.same(Object.keys(v).sort(), ['enforcement', 'reason', 'usable'], name)
    t.ok(v.reason.length > 0, `${name} says why`)
    if (v.usable) t.match(v.enforcement, /^(full|partial)$/, name)
    else t.equal(v.enforcement, null, name)
  }
})

t.test('kernel release matches uname -r', async (t) => {
  t.equal(report.kernelRelease, run('uname', ['-r']).stdout.trim())
})

t.test('Landlock ABI matches an independent syscall and the LSM list', async (t) => {
  // landlock_create_ruleset(NULL, 0, VERSION) made by perl, not by us.
  const perl = run('perl', ['-e', 'my $v = syscall(444, 0, 0, 1); print $v < 0 ? 0 : $v'])
  t.equal(perl.status, 0, 'perl ran')
  t.equal(report.landlockAbi, Number(perl.stdout), 'same ABI as perl measured')
  if (report.landlockAbi > 0 || EXPECTED.abi === 0) {
    if (EXPECTED.exact) t.equal(report.landlockAbi, EXPECTED.abi, `kernel ${report.kernelRelease} has Landlock ABI ${EXPECTED.abi}`)
    else t.ok(report.landlockAbi >= EXPECTED.abi, `kernel ${report.kernelRelease} has Landlock ABI ${EXPECTED.abi} or later`)
  }
  t.equal(report.landlockErrata, syscallAbi(2), 'same errata as perl measured')
  // securityfs may not be mounted: read it in a private mount namespace.
  const lsm = run('unshare', ['-m', 'sh', '-c',
    'mountpoint -q /sys/kernel/security || mount -t securityfs none /sys/kernel/security; ' +
    'cat /sys/kernel/security/lsm'])
  if (lsm.status !== 0) {
    t.skip('cannot read /sys/kernel/security/lsm here')
    return
  }
  t.equal(lsm.stdout.split(',').includes('landlock'), report.landlockAbi > 0, 'landlock listed iff ABI > 0')
})

t.test('user namespaces match unshare, as root and as nobody', async (t) => {
  const asIs = run('unshare', ['-Ur', 'true'])
  t.equal(report.userNamespaces, asIs.status === 0, 'same verdict as unshare -Ur true')
  t.equal(report.userNamespaces, true, 'usable on this host')
  t.equal(report.userNamespacesDetail, '', 'no failure detail when it works')
  t.equal(report.mountApi, true)
  t.equal(report.mountApiDetail, '', 'no detail when the view was built')
  t.equal(report.openat2, true)
  t.equal(report.seccompFilter, true)
  t.equal(report.noNewPrivs, true)
  if (!isRoot) return
  const nobodyUnshare = run('setpriv', [...NOBODY, 'unshare', '-Ur', 'true'])
  const nobody = probeInChild(t, ['setpriv', ...NOBODY])
  t.equal(nobody.userNamespaces, nobodyUnshare.status === 0, 'nobody: same verdict as unshare')
  t.equal(nobody.userNamespaces, true, 'nobody can create them too')
  t.equal(nobody.backends.sandy.usable, SANDY_KERNEL, `nobody can use the sandy backend${SANDY_KERNEL ? '' : ' (not below Landlock ABI 6)'}`)
})

t.test('a denied user namespace is reported with the failing step', async (t) => {
  // (as an unprivileged user: the Landlock-only level refuses uid 0; a real
  // one, whose launcher copy is its own)
  const inner = [...(isRoot ? ['setpriv', ...NOBODY] : []), 'bwrap', '--dev-bind', '/', '/', '--unshare-user', '--disable-userns']
  if (run(inner[0], [...inner.slice(1), 'true']).status !== 0) {
    t.skip('bwrap --disable-userns is not available here')
    return
  }
  const r = probeInChild(t, inner)
  t.equal(r.userNamespaces, false)
  t.match(r.userNamespacesDetail, /^namespaces: unshare failed \(errno \d+\)$/, 'the launcher\'s own words: the step and the error')
  t.equal(r.mountApi, false, 'mount API is not tried without namespaces')
  t.equal(r.backends.sandy.usable, false)
  t.match(r.backends.sandy.reason, /cannot create user\+mount\+IPC namespaces/)
  t.equal(r.backends.landlock.usable, SANDY_KERNEL, `the landlock backend remains${SANDY_KERNEL ? '' : ' (not below Landlock ABI 6)'}`)
})

// A host whose /proc has a part masked, as container runtimes mask
// /proc/kcore and others with a bind of /dev/null: the kernel refuses a new
// procfs to a user namespace there, so no backend can give its command a
// PID namespace with a /proc of its own. The probe says so and selects no
// such backend, and the launcher refuses an argv made where it could (a
// runner failure, nothing runs). As root, which can mask, for root and for
// uid 65534; the same argv runs unmasked.
t.test('a /proc with a part masked: no PID namespace of its own, said and refused', { skip: (!isRoot && 'only root can mask a part of /proc') || (!SANDY_KERNEL && `${UNCOVERED} a masked /proc: its argv is the sandy backend's, unusable below Landlock ABI 6`) }, async (t) => {
  const masked = ['/proc/kcore', '/proc/timer_list', '/proc/sysrq-trigger'].find((f) => fs.existsSync(f))
  // The kernel grants a new procfs if any procfs of the mount namespace is
  // whole, so every other one is detached in the private copy first: a
  // test running beside this one mounts a procfs beneath its workspace
  // on the host (submounts.test.js), and then this check would pass.
  const others = 'awk \'{ for (i = 7; $i != "-"; i++); } $(i + 1) == "proc" && $5 != "/proc" { print $5 }\' /proc/self/mountinfo | sort -r | while read -r m; do umount -l "$(printf "%b" "$m")" || exit 1; done'
  const mask = ['unshare', '-m', '--propagation', 'private', 'sh', '-c', `${others} && mount --bind /dev/null ${masked} && exec "$@"`, 'sh']
  const ws = fs.mkdtempSync('/var/tmp/sandy-masked-')
  fs.chmodSync(ws, 0o755)
  t.teardown(() => fs.rmSync(ws, { recursive: true, force: true }))
  for (const [who, as] of [['root', []], ['nobody', ['setpriv', ...NOBODY]]]) {
    const r = probeInChild(t, [...mask, ...as])
    t.equal(r.userNamespaces, true, `${who}: user namespaces still work`)
    t.equal(r.pidNamespace, false, `${who}: no PID namespace with its own /proc`)
    t.match(r.pidNamespaceDetail, /^a \/proc of its own cannot be mounted \(errno 1\)$/, 'the launcher\'s words: the step and the error')
    t.equal(r.backends.sandy.usable, false, `${who}: the sandy backend is not usable`)
    t.match(r.backends.sandy.reason, /a PID namespace with a \/proc of its own cannot be made here \(a \/proc of its own cannot be mounted \(errno 1\); a host whose \/proc has parts masked/)
    t.equal(r.backends.bwrap.usable, false, `${who}: nor bwrap, whose trial mounts a /proc too (${r.backends.bwrap.reason})`)
    if (who === 'nobody') t.equal(r.backends.landlock.usable, true, 'the Landlock-only level, which has no PID namespace, remains')
    const code = `const c = require(${JSON.stringify(root)}).createLocalSandboxProvider({ backend: 'sandy' })
      .confine(['/bin/sh', '-c', 'echo RAN'], { mode: 'read-only', workspaceRoot: ${JSON.stringify(ws)} })
      process.stdout.write(JSON.stringify(c.argv))`
    const made = run(as[0] || process.execPath, [...as.slice(1), ...(as.length ? [process.execPath] : []), '-e', code], { cwd: ws })
    t.equal(made.status, 0, `${who}: an argv made unmasked (${made.stderr})`)
    const argv = JSON.parse(made.stdout)
    const inside = run(mask[0], [...mask.slice(1), ...as, ...argv], { cwd: ws })
    t.equal(inside.status, 125, `${who}: masked, it is a runner failure (${inside.stderr.trim()})`)
    t.match(inside.stderr, /^sandy-launcher: fatal: EnforcementFailed: view: a \/proc of its own failed \(errno 1\) \[run [0-9a-f]+\]\n$/, 'its one fatal line')
    t.equal(inside.stdout, '', 'nothing ran')
    const plain = run(as[0] || argv[0], [...as.slice(1), ...(as.length ? argv : argv.slice(1))], { cwd: ws })
    t.equal(plain.stdout, 'RAN\n', `${who}: the same argv runs where /proc is whole (${plain.stderr.trim()})`)
  }
})

t.test('bwrap facts match bwrap itself', async (t) => {
  const found = BWRAP_DIRS.map((d) => path.join(d, 'bwrap')).find((f) => {
    try {
      fs.accessSync(f, fs.constants.X_OK)
      return fs.statSync(f).isFile()
    } catch {
      return false
    }
  })
  t.equal(report.bwrap.found, found !== undefined)
  if (found === undefined) {
    t.match(report.backends.bwrap.reason, /not found/)
    return
  }
  t.equal(report.bwrap.path, found, 'absolute path from a fixed directory')
  const version = run(found, ['--version']).stdout.trim()
  t.equal(`bubblewrap ${report.bwrap.version}`, version, 'same as bwrap --version')
  const works = run(found, ['--unshare-user', '--unshare-pid', '--ro-bind', '/', '/', '--proc', '/proc', 'true']).status === 0
  t.equal(report.bwrap.works, works, 'same as the trial sandbox run here')
  t.equal(report.backends.bwrap.usable, works)
  if (works) t.equal(report.backends.bwrap.enforcement, 'full')
})

t.test('backend verdicts on this host', async (t) => {
  t.same(report.backends.sandy, {
    usable: SANDY_KERNEL,
    enforcement: SANDY_KERNEL ? 'full' : null,
    reason: report.backends.sandy.reason
  })
  if (process.geteuid() === 0) {
    // the Landlock-only level cannot govern chmod/chown, which uid 0 would
    // turn on every file root owns
    t.equal(report.backends.landlock.usable, false)
    t.match(report.backends.landlock.reason, /does not confine uid 0/)
  } else {
    t.equal(report.backends.landlock.usable, SANDY_KERNEL)
    t.equal(report.backends.landlock.enforcement, 'partial')
  }
  t.equal(report.backends.seatbelt.usable, false)
  t.match(report.backends.seatbelt.reason, /macOS only/)
})

t.test('probe() is computed once and handed out as copies', async (t) => {
  // A fresh lib/probe.js whose addon counts its calls.
  let calls = 0
  const counted = t.mockRequire('../../lib/probe', {
    '../../lib/binding': { ...require('../../lib/binding'), addon: { probe: (...args) => { calls++; return addon.probe(...args) } } }
  })
  t.same(counted.probe(), counted.probe(), 'same facts twice')
  t.equal(calls, 1, 'the addon probed once')
  // (the package's probe is that function: the counted copy's calls are
  // its own)
  t.equal(sandy.probe, require('../../lib/probe').probe, 'sandy.probe is lib/probe.js\'s, the one counted')
  const again = sandy.probe()
  t.same(again, report)
  t.not(again, report, 'a new object each time')
  again.backends.sandy.usable = false
  again.landlockAbi = -1
  t.same(sandy.probe(), report, 'mutating a result does not change the next one')
})

// A private mount namespace; for a user other than root, in a user
// namespace where it keeps its own uid (the probe runs its launcher copy,
// whose directory is chosen and checked by that uid) and its capabilities
// there across exec (to bind over bwrap).
const PRIVATE_MOUNTS = isRoot
  ? ['-m']
  : ['-U', `--map-user=${process.getuid()}`, `--map-group=${process.getgid()}`, '-m', '--keep-caps']

// Replaces every bwrap in the fixed directories with `replacement` inside a
// private mount namespace and probes there.
function probeWithBwrap (t, replacement) {
  // (quoted: the replacement lies in the checkout, whose path may hold a
  // space)
  const quote = (s) => `'${s.replaceAll("'", "'\\''")}'`
  const binds = BWRAP_DIRS.map((d) => path.join(d, 'bwrap')).filter((f) => fs.existsSync(f))
    .map((f) => `mount --bind ${quote(replacement)} ${quote(f)}`).join(' && ')
  const prefix = ['unshare', ...PRIVATE_MOUNTS, 'sh', '-c', `${binds || 'true'} && exec "$@"`, 'sh']
  return probeInChild(t, prefix)
}

t.test('bwrap missing, failing or hanging', async (t) => {
  if (run('unshare', [...PRIVATE_MOUNTS, 'true']).status !== 0) {
    t.skip('cannot create a private mount namespace here')
    return
  }
  const dir = t.testdir({
    'bwrap-fails': '#!/bin/sh\nif [ "$1" = --version ]; then echo "bubblewrap 9.9.9"; exit 0; fi\n' +
      'printf "bwrap: setting up uid map: Permission denied\\nsecond line\\n" >&2\nexit 1\n',
    'bwrap-hangs': '#!/bin/sh\n[ "$1" = --version ] && exit 0\nsleep 3600.417 &\nsleep 3600.417\n'
  })
  for (const f of ['bwrap-fails', 'bwrap-hangs']) fs.chmodSync(path.join(dir, f), 0o755)

  const missing = probeWithBwrap(t, '/dev/null')
  t.equal(missing.bwrap.found, false, 'a non-regular file is not a bwrap')
  t.equal(missing.bwrap.path, '')
  t.equal(missing.backends.bwrap.usable, false)
  t.equal(missing.backends.bwrap.reason,
    'bubblewrap not found in /usr/bin, /bin, /usr/local/bin (install the bubblewrap package)')
  t.equal(missing.backends.sandy.usable, SANDY_KERNEL, 'the sandy backend does not need bwrap')

  const failing = probeWithBwrap(t, path.join(dir, 'bwrap-fails'))
  t.equal(failing.bwrap.found, true)
  t.equal(failing.bwrap.version, '9.9.9')
  t.equal(failing.bwrap.works, false)
  t.equal(failing.bwrap.detail, 'exit status 1: bwrap: setting up uid map: Permission denied',
    'exit status and the first stderr line')
  t.equal(failing.backends.bwrap.reason,
    'bubblewrap is installed but cannot create its sandbox here: ' + failing.bwrap.detail)

  // (its sleeps outlast any test run: a probe that waited for them, or for
  // the pipe the one in the background holds, would not come back at all)
  const hanging = probeWithBwrap(t, path.join(dir, 'bwrap-hangs'))
  t.equal(hanging.bwrap.works, false)
  t.match(hanging.bwrap.detail, /^timed out after \d+ ms$/, 'the probe gave up on it')
  const leftovers = fs.readdirSync('/proc').filter((p) => /^\d+$/.test(p)).filter((p) => {
    try {
      return fs.readFileSync(`/proc/${p}/cmdline`, 'utf8').includes('3600.417')
    } catch {
      return false
    }
  })
  t.same(leftovers, [], 'no process of the hanging bwrap outlives the probe')
})

t.test('sandy probe --json', async (t) => {
  const res = run(cli, ['probe', '--json'])
  t.equal(res.status, 0)
  const parsed = JSON.parse(res.stdout)
  t.equal(parsed.landlockAbi, syscallAbi(), 'the ABI the kernel gives perl')
  t.equal(parsed.userNamespaces, true)
  const { warnings, package: pkg, protections, ...facts } = parsed
  t.same(facts, report, 'same report as the library')
  t.same(protections.landlock, { files: 'landlock', sockets: null, environment: 'launcher', writes: null, replaced: 'watch' }, 'and what keeps each protection, per backend')
  t.equal(pkg.version, require('../../package.json').version, 'and the package\'s version')
  t.ok(Array.isArray(warnings), 'and what a workspace-write run in the current directory leaves unprotected')
  t.equal(res.stdout, JSON.stringify(parsed, null, 2) + '\n')
})

t.test('sandy probe prints a table naming every backend', async (t) => {
  const res = run(cli, ['probe'])
  t.equal(res.status, 0)
  t.equal(res.stderr, '')
  for (const [name, v] of Object.entries(report.backends)) {
    const line = res.stdout.split('\n').find((l) => l.trim().startsWith(name + ' '))
    t.ok(line, `a row for ${name}`)
    t.match(line, new RegExp(`^\\s+${name}\\s+${v.usable ? 'yes' : 'no'}\\s+${v.enforcement || '-'}\\s+`))
    t.ok(line.includes(v.reason), `${name} row carries its reason`)
  }
  t.match(res.stdout, new RegExp(`kernel release\\s+${literal(report.kernelRelease)}\n`))
  t.match(res.stdout, new RegExp(`Landlock ABI\\s+${syscallAbi()}${report.landlockAbi > 0 ? ' \\(errata 0x' : '\n'}`))
  t.match(res.stdout, /user namespaces\s+yes/)
  t.match(res.stdout, new RegExp(`bubblewrap\\s+${report.bwrap.found ? '/' : 'not found'}`))
})

t.test('sandy usage and errors', async (t) => {
  const bad = run(cli, ['frobnicate'])
  t.equal(bad.status, 2, 'unknown command exits 2')
  t.equal(bad.stdout, '')
  t.equal(bad.stderr, 'sandy: unknown command frobnicate\nRun `sandy help` for the commands.\n')
  for (const args of [['--help'], ['-h'], ['help']]) {
    const res = run(cli, args)
    t.equal(res.status, 0, `${args.join(' ')} exits 0`)
    t.match(res.stdout, /^sandy \S+: confine the file effects of a command\n\nUsage:\n {2}sandy COMMAND \[OPTIONS\]\n/, 'help on stdout')
  }
  const extra = run(cli, ['probe', '--yaml'])
  t.equal(extra.status, 2)
  t.equal(extra.stderr, 'sandy probe: unknown option --yaml\nRun `sandy help probe` for its usage.\n')
})

t.test('cli main() in-process', async (t) => {
  const io = () => {
    const o = { out: '', err: '' }
    return { o, io: { out: (s) => { o.out += s }, err: (s) => { o.err += s } } }
  }
  let c = io()
  t.equal(await main(['probe', '--json', '--root', '/usr'], c.io), 0)
  const json = JSON.parse(c.o.out)
  t.same({ ...json, package: undefined, protections: undefined }, { ...report, package: undefined, protections: undefined, warnings: [] }, 'the probe report, and')
  t.same(Object.keys(json.protections), ['sandy', 'bwrap', 'landlock', 'seatbelt'], 'the protections of every backend')
  const binding = require('../../lib/binding.js')
  t.same(json.package, { version: require('../../package.json').version, addon: binding.addonPath, launcher: binding.launcherPath(), launcherCopy: binding.verifiedLauncherPath(), autoSelects: AUTO },
    'the package: its version, the addon and launcher it uses, what auto selects')
  c = io()
  t.equal(await main(['probe'], c.io), 0)
  t.match(c.o.out, new RegExp(`^Package\\n {2}sandy-native +${require('../../package.json').version.replace(/\./g, '\\.')}\\n {2}addon +/`))
  t.match(c.o.out, new RegExp(`\\n {2}auto selects +${AUTO ?? 'nothing'}\\b.*\\n\\nHost facts\\n {2}platform +linux\\n`))
  t.match(c.o.out, /\nBackends\n {2}BACKEND +USABLE +ENFORCEMENT +REASON\n/)
  t.match(c.o.out, /\nProtections\n {2}BACKEND +CREDENTIAL FILES +HOST SOCKETS +SECRET VARIABLES +PROTECTED WRITES +HOST REPLACES ONE\n {2}sandy +view +view +launcher +view +watch\n/)
  t.match(c.o.out, /\n {2}landlock +landlock +no +launcher +no +watch\n/, 'no where a backend cannot keep one')
  c = io()
  t.equal(await main(['probe', '--help'], c.io), 0)
  t.match(c.o.out, /^Usage:\n {2}sandy probe \[--json\] \[--root DIR\]\n/)
  c = io()
  t.equal(await main(['probe', '--root', path.join(__dirname, '..', '..')], c.io), 0)
  t.match(c.o.out, /\nwarning: sandy-native's own files \(its JavaScript and addon\) lie inside the writable workspace/, 'a root holding the package: warned')
  c = io()
  t.equal(await main(['probe', '--root', '/no/such/dir'], c.io), 2)
  t.equal(c.o.err, 'sandy probe: --root /no/such/dir: no such directory (ENOENT)\nRun `sandy help probe` for its usage.\n', 'a bad root: the path the user typed, and why')
  c = io()
  t.equal(await main(['probe', '--json', '--help'], c.io), 2, 'help is only recognised right after the command')
  t.match(c.o.err, /^sandy probe: unknown option --help\n/)
  c = io()
  t.equal(await main(['toString'], c.io), 2, 'inherited object keys are not commands')
  t.match(c.o.err, /unknown command toString/)
  c = io()
  t.equal(await main([], c.io), 2, 'no command: a usage error')
  t.match(c.o.err, /\n {2}help +show help for sandy or for one command\n/, 'with the usage on stderr')
})

t.test('table rendering of failures', async (t) => {
  const { formatProbe } = require('../../lib/cli')
  const broken = structuredClone(report)
  broken.package = { version: '9.9.9', addon: '/a/sandy.node', launcher: 'none: the launcher is missing', launcherCopy: 'none: no copy', autoSelects: null }
  Object.assign(broken, { landlockAbi: 0, userNamespaces: false, userNamespacesDetail: 'unshare: Operation not permitted' })
  broken.bwrap = { found: true, path: '/usr/bin/bwrap', version: '', works: false, detail: 'exit status 1' }
  broken.backends.sandy = { usable: false, enforcement: null, reason: 'nope' }
  broken.protections = { sandy: { files: 'view', sockets: 'view', environment: 'launcher', replaced: 'watch' }, other: { files: null, sockets: null, environment: null, replaced: 'seatbelt' } }
  let out = formatProbe(broken)
  t.match(out, /\n {2}other +no +no +no +no +seatbelt\n/, 'a protection nothing keeps reads "no"')
  t.match(out, /^Package\n {2}sandy-native +9\.9\.9\n {2}addon +\/a\/sandy\.node\n {2}launcher +none: the launcher is missing\n {2}runs as +none: no copy\n {2}auto selects +nothing: no backend is usable\n/)
  t.match(out, /Landlock ABI +0\n/)
  t.match(out, /user namespaces +no \(unshare: Operation not permitted\)\n/)
  t.match(out, /bubblewrap +\/usr\/bin\/bwrap, does not work: exit status 1\n/)
  t.match(out, /sandy +no +- +nope\n/)
  broken.bwrap = { found: false, path: '', version: '', works: false, detail: '' }
  broken.userNamespacesDetail = ''
  out = formatProbe(broken)
  t.match(out, /bubblewrap +not found\n/)
  t.match(out, /user namespaces +no\n/)
  broken.bwrap = { found: true, path: '/bin/bwrap', version: '1.0', works: false, detail: '' }
  t.match(formatProbe(broken), /bubblewrap +\/bin\/bwrap 1\.0, does not work\n/)
  t.equal(formatTable([['a', 'bbb', 'c'], ['dddd', 'e', '']]), '  a     bbb  c\n  dddd  e\n')
})
