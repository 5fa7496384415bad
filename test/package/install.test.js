'use strict'
// The package as a user gets it. The prebuild matrix is built
// (scripts/prebuild.js --arch=all), checked with the platform's own tools,
// packed by scripts/release.js, and the tarball installed into a fresh
// project: with an empty npm config, offline, with a PATH that holds node
// and sh alone (no compiler), and with libcjson's shared library hidden by
// a private mount namespace. There it is required, probed, and confines a
// workspace write (allowed) and an outside write (refused), from plain
// CommonJS and from TypeScript consumers compiled with tsc --strict as
// CommonJS and as ESM. The same tarball also installs from source, offline.
// With lifecycle scripts off it works the same (the prebuilds need no
// install script): installed by `npm install --ignore-scripts`, and by
// pnpm 10 (pinned, fetched from npm's registry) with its default of running
// no dependency's script, each into node_modules then made read-only.
// The arm64 launcher runs under qemu-user: its usage and probe report.
const t = require('tap')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const crypto = require('node:crypto')
const { spawnSync } = require('node:child_process')
const { UNCOVERED } = require('../../scripts/test-verdict.js')
const { patience } = require('../helpers/patience.js')

// Two builds, a pack and two installs (one compiling): minutes when the
// other test files run beside it.
t.setTimeout(patience(600000))

const ROOT = path.join(__dirname, '..', '..')
const NPM = path.resolve(path.dirname(process.execPath), '..', 'lib', 'node_modules', 'npm', 'bin', 'npm-cli.js')
const TSC = path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc')
const ROOT_USER = process.getuid() === 0
// Children run without the runner's hooks and coverage.
const ENV = Object.fromEntries(Object.entries(process.env).filter(([k]) => k !== 'NODE_OPTIONS' && k !== 'NODE_V8_COVERAGE'))

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'sandy-install-'))
fs.chmodSync(work, 0o755)
t.teardown(() => fs.rmSync(work, { recursive: true, force: true }))

function run (cmd, args, opts = {}) {
  return spawnSync(cmd, args, { encoding: 'utf8', env: ENV, ...opts })
}
const sha256 = (file) => crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex')

// The package's sources as a release checkout holds them, prebuilds added.
const pkg = path.join(work, 'pkg')
for (const part of ['package.json', 'README.md', 'LICENSE', 'binding.gyp', 'csrc', 'lib', 'bin', 'types', 'scripts', 'licenses']) {
  fs.cpSync(path.join(ROOT, part), path.join(pkg, part), { recursive: true })
}
run('sh', [path.join(ROOT, 'scripts', 'fetch-cjson.sh')])
fs.mkdirSync(path.join(pkg, 'deps'))
for (const f of fs.readdirSync(path.join(ROOT, 'deps')).filter((f) => f.startsWith('cjson_'))) {
  fs.copyFileSync(path.join(ROOT, 'deps', f), path.join(pkg, 'deps', f))
}
const built = run(process.execPath, [path.join(ROOT, 'scripts', 'prebuild.js'), '--arch=all', pkg])
const prebuilds = path.join(pkg, 'prebuilds')

t.test('the prebuild matrix: an addon and a static launcher for x64 and arm64', async (t) => {
  t.equal(built.status, 0, `prebuild.js --arch=all (${built.stderr.slice(-400)})`)
  const want = { x64: { file: 'x86-64', objdump: 'objdump' }, arm64: { file: 'ARM aarch64', objdump: 'aarch64-linux-gnu-objdump' } }
  for (const [arch, w] of Object.entries(want)) {
    const dir = path.join(prebuilds, `linux-${arch}`)
    t.same(fs.readdirSync(dir).sort(), ['sandy-launcher', 'sandy-launcher.sha256', 'sandy.napi.glibc.node'], `linux-${arch} holds the addon and the launcher`)
    const launcher = run('file', ['-b', path.join(dir, 'sandy-launcher')]).stdout
    t.match(launcher, new RegExp(`^ELF 64-bit LSB executable, ${w.file},.* statically linked.* stripped`), `${arch} launcher: ${launcher.trim()}`)
    const addon = run('file', ['-b', path.join(dir, 'sandy.napi.glibc.node')]).stdout
    t.match(addon, new RegExp(`^ELF 64-bit LSB shared object, ${w.file},.* stripped`), `${arch} addon: ${addon.trim()}`)
    const dyn = run(w.objdump, ['-T', path.join(dir, 'sandy.napi.glibc.node')])
    t.equal(dyn.status, 0, `${w.objdump} -T reads it`)
    const versions = [...dyn.stdout.matchAll(/\(GLIBC_(\d+)\.(\d+)[.\d]*\)/g)].map((m) => [+m[1], +m[2]])
    t.ok(versions.length > 0, `${arch}: it needs versioned glibc symbols (the check sees them)`)
    const newest = versions.reduce((a, b) => (b[0] > a[0] || (b[0] === a[0] && b[1] > a[1]) ? b : a))
    t.ok(newest[0] === 2 && newest[1] <= 28, `${arch}: newest glibc symbol GLIBC_${newest.join('.')}, at most GLIBC_2.28`)
    const exported = [...dyn.stdout.matchAll(/^\S+\s+g\s+\w*\s*\S+\s+\S+\s+\S+\s+(\S+)$/gm)].map((m) => m[1]).sort()
    t.same(exported, ['napi_register_module_v1', 'node_api_module_get_api_version_v1'], `${arch}: only the N-API entry points are exported`)
    t.equal(fs.readFileSync(path.join(dir, 'sandy-launcher.sha256'), 'latin1').trim(), sha256(path.join(dir, 'sandy-launcher')), `${arch}: the recorded digest is the launcher's`)
  }
  const ldd = run('ldd', [path.join(prebuilds, 'linux-x64', 'sandy.napi.glibc.node')]).stdout
  const libs = ldd.split('\n').map((l) => l.trim().split(/\s/)[0]).filter(Boolean)
  t.same(libs.filter((l) => !/^(linux-vdso\.so\.1|libc\.so\.6|\/lib64\/ld-linux-x86-64\.so\.2)$/.test(l)), [], `ldd: libc and the loader only (${libs.join(', ')})`)
  // The launcher the rest of the suite confined with is the one that ships.
  const { launcherPath } = require('../../lib/binding.js')
  t.equal(sha256(path.join(prebuilds, 'linux-x64', 'sandy-launcher')), sha256(launcherPath()), 'the x64 prebuild\'s launcher is byte for byte the one this suite runs')
})

t.test('prebuild-check refuses what must not ship', async (t) => {
  const { check } = require('../../scripts/prebuild-check')
  const good = path.join(prebuilds, 'linux-x64')
  t.same(check(good, 'x64'), [], 'control: the real prebuild passes')
  const bad = path.join(work, 'bad')
  const variant = (name, change) => {
    fs.rmSync(bad, { recursive: true, force: true })
    fs.cpSync(good, bad, { recursive: true })
    change()
    return check(bad, 'x64')
  }
  t.match(check(good, 'arm64'), [/the addon is for Advanced Micro Devices X86-64, not AArch64/], 'the wrong architecture')
  const dynamic = variant('dynamic', () => {
    fs.copyFileSync('/bin/true', path.join(bad, 'sandy-launcher'))
    fs.writeFileSync(path.join(bad, 'sandy-launcher.sha256'), sha256('/bin/true') + '\n')
  })
  t.ok(dynamic.includes('the launcher is dynamically linked'), `a dynamically linked launcher: ${dynamic.join('; ')}`)
  t.match(variant('digest', () => fs.writeFileSync(path.join(bad, 'sandy-launcher.sha256'), '0'.repeat(64) + '\n')),
    [/digest is not the launcher's/], 'a digest that is not the launcher\'s')
  const lib = ['/usr/lib/x86_64-linux-gnu/libseccomp.so.2', '/lib/x86_64-linux-gnu/libz.so.1'].find((f) => fs.existsSync(f))
  t.ok(lib, 'a shared library to pass off as the addon')
  const wrong = variant('library', () => fs.copyFileSync(lib, path.join(bad, 'sandy.napi.glibc.node')))
  t.ok(wrong.some((p) => /the addon exports /.test(p)), `a foreign library: ${wrong.join('; ')}`)
  t.match(variant('extra', () => fs.writeFileSync(path.join(bad, 'notes.txt'), 'x')), [/holds .*notes\.txt/], 'a stray file')
})

t.test('the arm64 launcher starts under qemu-user: usage and probe report', async (t) => {
  const launcher = path.join(prebuilds, 'linux-arm64', 'sandy-launcher')
  const bare = run('qemu-aarch64-static', [launcher])
  t.equal(bare.status, 125, 'no arguments: its runner-failure status')
  t.match(bare.stderr, /^sandy-launcher: fatal: PreparationFailed: usage: sandy-launcher --sandy-policy-v1 /, 'and its usage line')
  const probe = run('qemu-aarch64-static', [launcher, '--sandy-probe-v1'])
  t.equal(probe.status, 0, 'the probe mode answers')
  t.match(probe.stdout, /^sandy-probe-v1\n[\s\S]*\nend\n$/, 'with a whole report')
  const fields = Object.fromEntries(probe.stdout.split('\n').filter((l) => l.includes('=')).map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]))
  // qemu-user emulates no Landlock and no seccomp, and cannot enter
  // namespaces: the report says so, and claims nothing it did not measure.
  t.equal(fields.landlock_abi, '0', 'no Landlock under qemu-user')
  t.equal(fields.seccomp_filter, '0', 'no seccomp under qemu-user')
  t.equal(fields.user_namespaces, '0', 'no namespaces under qemu-user')
})

let tarball = null
t.test('release.js packs only the whole matrix', async (t) => {
  const aside = path.join(work, 'arm64-aside')
  fs.renameSync(path.join(prebuilds, 'linux-arm64'), aside)
  const refused = run(process.execPath, [path.join(pkg, 'scripts', 'release.js'), `--pack-destination=${work}`])
  fs.renameSync(aside, path.join(prebuilds, 'linux-arm64'))
  t.equal(refused.status, 1, 'without linux-arm64: refused')
  t.match(refused.stderr, /linux-arm64: linux-arm64 is missing/, 'naming what is missing')
  // rules changed after the programs were generated: the launchers were
  // built from programs that are not the rules any more
  const rules = path.join(pkg, 'csrc', 'linux', 'seccomp.c')
  const text = fs.readFileSync(rules, 'utf8')
  fs.writeFileSync(rules, text.replace('{"uselib", 0},', '{"uselib", 0}, {"kexec_load", 0},'))
  const stale = run(process.execPath, [path.join(pkg, 'scripts', 'release.js'), `--pack-destination=${work}`])
  fs.writeFileSync(rules, text)
  t.not(text.indexOf('{"uselib", 0},'), -1, '(the rule list this edits)')
  t.equal(stale.status, 1, 'with rules newer than the programs: refused')
  t.match(stale.stderr, /seccomp_filters\.h is not what its rules generate/, 'naming the stale file')
  t.same(fs.readdirSync(work).filter((f) => f.startsWith('sandy-native-')), [], 'and no tarball left')
  const packed = run(process.execPath, [path.join(pkg, 'scripts', 'release.js'), `--pack-destination=${work}`])
  t.equal(packed.status, 0, packed.stderr)
  tarball = packed.stdout.trim().split('\n').pop()
  t.ok(fs.existsSync(tarball), `the tarball: ${path.basename(tarball)}`)
  const listing = run('tar', ['-tzf', tarball]).stdout.split('\n')
  for (const f of ['package/prebuilds/linux-x64/sandy-launcher', 'package/prebuilds/linux-arm64/sandy.napi.glibc.node', 'package/licenses/cJSON.txt', 'package/LICENSE']) {
    t.ok(listing.includes(f), `it holds ${f}`)
  }
  t.notOk(listing.some((f) => f.startsWith('package/csrc/test/') || f.startsWith('package/test/')), 'and no tests')
})

// node-gyp-build, the one dependency, as a tarball too: the install below
// is offline.
const ngb = run(process.execPath, [NPM, 'pack', '--silent', `--pack-destination=${work}`, path.join(ROOT, 'node_modules', 'node-gyp-build')], { cwd: work })
const npmrc = path.join(work, 'empty-npmrc')
const globalrc = path.join(work, 'empty-global-npmrc')
fs.writeFileSync(npmrc, '')
fs.writeFileSync(globalrc, '')
const bin = path.join(work, 'bin')
fs.mkdirSync(bin)
fs.symlinkSync(process.execPath, path.join(bin, 'node'))
fs.symlinkSync('/bin/sh', path.join(bin, 'sh'))
const npmEnv = (extra) => ({
  HOME: path.join(work, 'home'),
  npm_config_userconfig: npmrc,
  npm_config_globalconfig: globalrc,
  npm_config_cache: path.join(work, 'npm-cache'),
  npm_config_update_notifier: 'false',
  ...extra
})

// libcjson's files, wherever the loader would find them.
const cjsonLibs = ['/usr/lib/x86_64-linux-gnu', '/lib/x86_64-linux-gnu', '/usr/lib', '/usr/local/lib'].flatMap((d) => {
  try {
    return fs.readdirSync(d).filter((f) => f.startsWith('libcjson')).map((f) => path.join(d, f))
  } catch {
    return []
  }
}).filter((f, i, all) => all.indexOf(f) === i && !fs.lstatSync(f).isSymbolicLink())

// Runs argv in private mount and network namespaces (as root; in a user
// namespace of its own otherwise): every libcjson file reads as empty,
// and there is no network.
// (Not as root, libcjson stays visible: a user namespace that maps only
// this user loses its capabilities at the next exec, and one that maps it
// to root would run the consumer as root, whose launcher copies need a
// directory only the real root owns. The root run, CI's, hides it.)
const BIND = 'import ctypes, json, os, sys\n' +
  'libc = ctypes.CDLL(None, use_errno=True)\n' +
  'for f in json.loads(sys.argv[1]):\n' +
  '    if libc.mount(b"/dev/null", f.encode(), None, 4096, None) != 0: sys.exit(90)\n' +
  'os.execv(sys.argv[2], sys.argv[2:])\n'
const HIDES_LIBCJSON = ROOT_USER
function hidden (argv, opts) {
  if (!ROOT_USER) return run('/usr/bin/unshare', ['--user', '--map-current-user', '--net', ...argv], opts)
  return run('/usr/bin/unshare', ['--mount', '--propagation', 'private', '--net', '/usr/bin/python3', '-c', BIND, JSON.stringify(cjsonLibs), ...argv], opts)
}

function writeConsumerProject (dir) {
  fs.mkdirSync(dir, { recursive: true })
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'consumer', version: '1.0.0', private: true }))
}

// A consumer's confined runs: the addon it loaded, and the argv of a
// workspace write and of an outside write.
const CONSUMER_JS = `
const sandy = require('sandy-native')
const [ws, outside] = process.argv.slice(2)
const report = sandy.probe()
const provider = sandy.createLocalSandboxProvider({ backend: 'sandy' })
const policy = { mode: 'workspace-write', workspaceRoot: ws }
console.log(JSON.stringify({
  sandy: report.backends.sandy,
  inside: provider.confine(['/bin/sh', '-c', 'echo in > ' + ws + '/in.txt'], policy).argv,
  outside: provider.confine(['/bin/sh', '-c', 'echo out > ' + outside + '/out.txt'], policy).argv
}))`

const CONSUMER_TS = `import { createLocalSandboxProvider, probe, type ConfinedArgv, type ProbeReport, type SeamSandboxPolicy } from 'sandy-native'
declare const process: { argv: string[] }
declare const console: { log (line: string): void }
const [ws, outside] = process.argv.slice(2)
const report: ProbeReport = probe()
const provider = createLocalSandboxProvider({ backend: 'sandy' })
const policy: SeamSandboxPolicy = { mode: 'workspace-write', workspaceRoot: ws }
const inside: ConfinedArgv = provider.confine(['/bin/sh', '-c', 'echo in > ' + ws + '/in.txt'], policy)
const out: ConfinedArgv = provider.confine(['/bin/sh', '-c', 'echo out > ' + outside + '/out.txt'], policy)
console.log(JSON.stringify({ sandy: report.backends.sandy, inside: inside.argv, outside: out.argv }))
`

// Spawns a consumer's two argvs (in the same hidden namespace) and checks
// the kernel's answers: the workspace write lands, the outside one is
// refused, and the same outside write succeeds unconfined.
function checkConfines (t, label, consumerArgv, cwd, wrap = []) {
  const ws = fs.mkdtempSync(path.join(work, 'ws-'))
  // (not under /tmp, which the sandbox replaces with a private one)
  const outside = fs.mkdtempSync('/var/tmp/sandy-install-outside-')
  t.teardown(() => fs.rmSync(outside, { recursive: true, force: true }))
  fs.chmodSync(ws, 0o777)
  fs.chmodSync(outside, 0o777)
  const driver = `
    const { spawnSync } = require('child_process')
    const c = spawnSync(process.argv[1], process.argv.slice(2, 4).concat(${JSON.stringify([ws, outside])}), { encoding: 'utf8', cwd: ${JSON.stringify(cwd)} })
    if (c.status !== 0) { console.log(JSON.stringify({ consumerFailed: c.stderr })); process.exit(0) }
    const got = JSON.parse(c.stdout)
    const go = (argv) => { const r = spawnSync(argv[0], argv.slice(1), { encoding: 'utf8', cwd: ${JSON.stringify(ws)} }); return { code: r.status, stderr: r.stderr } }
    got.insideRun = go(got.inside)
    got.outsideRun = go(got.outside)
    console.log(JSON.stringify(got))`
  const r = hidden([...wrap, process.execPath, '-e', driver, process.execPath, ...consumerArgv], { env: { ...ENV, PATH: bin } })
  t.equal(r.status, 0, `${label}: the consumer ran (${(r.stderr || String(r.error)).slice(-300)})`)
  let got
  try {
    got = JSON.parse(r.stdout)
  } catch {
    t.fail(`${label}: no report (${r.stdout.slice(-300)})`)
    return
  }
  t.notOk(got.consumerFailed, `${label}: require, probe and confine worked (${got.consumerFailed || ''})`)
  if (got.consumerFailed) return
  t.equal(got.sandy.usable, true, `${label}: the sandy backend is usable (${got.sandy.reason})`)
  t.equal(got.insideRun.code, 0, `${label}: the workspace write ran (${got.insideRun.stderr})`)
  t.equal(fs.readFileSync(path.join(ws, 'in.txt'), 'utf8'), 'in\n', `${label}: and landed`)
  t.not(got.outsideRun.code, 0, `${label}: the outside write failed`)
  t.match(got.outsideRun.stderr, /Read-only file system|Permission denied/, `${label}: refused by the kernel (${got.outsideRun.stderr.trim()})`)
  t.notOk(fs.existsSync(path.join(outside, 'out.txt')), `${label}: nothing written outside`)
  const control = run('/bin/sh', ['-c', `echo out > ${outside}/out.txt`])
  t.equal(control.status, 0, `${label}: control: the same outside write succeeds unconfined`)
}

t.test('installed from the tarball: no compiler, no libcjson, empty npm config, offline', async (t) => {
  t.ok(tarball, 'the release tarball')
  t.equal(ngb.status, 0, `node-gyp-build packed (${ngb.stderr})`)
  if (!tarball || ngb.status !== 0) return
  const proj = path.join(work, 'proj')
  writeConsumerProject(proj)
  const ngbTarball = path.join(work, ngb.stdout.trim().split('\n').pop())
  // what the namespace hides: checked inside it
  const look = hidden(['/bin/sh', '-c', `for f in ${cjsonLibs.map((f) => `'${f}'`).join(' ')}; do [ -s "$f" ] && echo "visible $f"; done; for c in cc gcc make; do command -v $c; done; exit 0`],
    { env: { ...ENV, PATH: bin } })
  t.equal(look.status, 0, look.stderr)
  if (HIDES_LIBCJSON) {
    t.equal(look.stdout, '', `inside: every libcjson file empty (${cjsonLibs.length} hidden) and no cc, gcc or make on PATH`)
    // the loader's own answer: libcjson cannot be loaded inside (and,
    // where the host has it, can outside)
    const dlopen = ['/usr/bin/python3', '-c', 'import ctypes; ctypes.CDLL("libcjson.so.1")']
    t.not(hidden(dlopen, {}).status, 0, 'inside: libcjson.so.1 does not load')
    if (cjsonLibs.length > 0) t.equal(run(dlopen[0], dlopen.slice(1)).status, 0, 'control: outside it loads')
  } else {
    t.notMatch(look.stdout, /^\//m, 'inside: no cc, gcc or make on PATH')
    t.skip(`${UNCOVERED} libcjson hidden as uid ${process.getuid()}: only root can hide a file from an install it does not also run as root`)
  }
  const links = hidden(['/usr/bin/cat', '/proc/net/dev'], {}).stdout.split('\n').slice(2).map((l) => l.split(':')[0].trim()).filter(Boolean)
  t.same(links, ['lo'], 'inside: no network device but loopback')
  const install = hidden([process.execPath, NPM, 'install', '--offline', '--no-audit', '--no-fund', tarball, ngbTarball],
    { cwd: proj, env: { ...npmEnv({ PATH: bin }) } })
  t.equal(install.status, 0, `npm install (${install.stdout.slice(-300)}${install.stderr.slice(-600)})`)
  const installed = path.join(proj, 'node_modules', 'sandy-native')
  t.notOk(fs.existsSync(path.join(installed, 'build')), 'nothing was built')
  fs.writeFileSync(path.join(proj, 'consumer.js'), CONSUMER_JS)
  checkConfines(t, 'CommonJS consumer', [path.join(proj, 'consumer.js')], proj)
  if (ROOT_USER) {
    checkConfines(t, 'CommonJS consumer as uid 65534', [path.join(proj, 'consumer.js')], proj,
      ['/usr/bin/setpriv', '--reuid=65534', '--regid=65534', '--clear-groups'])
  }
  const loaded = run(process.execPath, ['-e', `console.log(require(${JSON.stringify(path.join(installed, 'lib', 'binding.js'))}).addonPath)`], { cwd: proj })
  t.equal(path.dirname(loaded.stdout.trim()), path.join(installed, 'prebuilds', `linux-${process.arch}`), 'the addon came from the prebuild')

  // TypeScript consumers, --strict, without @types/node.
  const tsconfig = (module, outDir, include) => JSON.stringify({
    compilerOptions: { strict: true, module, moduleResolution: module === 'commonjs' ? 'node10' : 'nodenext', target: 'es2022', outDir, types: [], lib: ['es2022'], skipLibCheck: false },
    include
  })
  fs.mkdirSync(path.join(proj, 'src-cjs'))
  fs.mkdirSync(path.join(proj, 'src-esm'))
  fs.writeFileSync(path.join(proj, 'src-cjs', 'consumer.ts'), CONSUMER_TS)
  fs.writeFileSync(path.join(proj, 'src-esm', 'consumer.mts'), CONSUMER_TS)
  fs.writeFileSync(path.join(proj, 'tsconfig.cjs.json'), tsconfig('commonjs', 'out-cjs', ['src-cjs']))
  fs.writeFileSync(path.join(proj, 'tsconfig.esm.json'), tsconfig('nodenext', 'out-esm', ['src-esm']))
  for (const [name, config, out] of [['CommonJS', 'tsconfig.cjs.json', 'out-cjs/consumer.js'], ['ESM', 'tsconfig.esm.json', 'out-esm/consumer.mjs']]) {
    const tsc = run(process.execPath, [TSC, '-p', config], { cwd: proj })
    t.equal(tsc.status, 0, `tsc --strict, ${name}: ${tsc.stdout}`)
    if (tsc.status === 0) checkConfines(t, `TypeScript ${name} consumer`, [path.join(proj, out)], proj)
  }
  // control: the same compiler rejects a misuse, so the types are in force
  fs.writeFileSync(path.join(proj, 'src-esm', 'misuse.mts'), "import { createLocalSandboxProvider } from 'sandy-native'\ncreateLocalSandboxProvider().confine(['x'], { mode: 'everything', workspaceRoot: '/' })\n")
  const misuse = run(process.execPath, [TSC, '-p', 'tsconfig.esm.json'], { cwd: proj })
  t.not(misuse.status, 0, 'control: tsc rejects a mode the types do not have')
  t.match(misuse.stdout, /misuse\.mts.*'"everything"' is not assignable/, 'for that reason')
  // ESM and CommonJS give the same classes
  const same = run(process.execPath, ['--input-type=module', '-e', "import { SandboxError } from 'sandy-native'; import { createRequire } from 'node:module'; console.log(createRequire(process.cwd() + '/x.js')('sandy-native').SandboxError === SandboxError)"], { cwd: proj })
  t.equal(same.stdout.trim(), 'true', 'import and require give the same SandboxError class')
})

// node_modules read-only from here on, as an install owned by another user
// or baked into a read-only image is: nothing may need to write into the
// package (the mode bits, since root's writes would pass them).
function makeReadOnly (t, dir) {
  const r = run('chmod', ['-R', 'a-w', dir])
  t.equal(r.status, 0, `chmod -R a-w node_modules (${r.stderr})`)
  t.teardown(() => run('chmod', ['-R', 'u+w', dir]))
  t.equal(fs.statSync(path.join(dir, 'sandy-native', 'lib')).mode & 0o222, 0, 'the installed package is read-only')
}

// The addon a project loads, and from where.
function loadedAddon (proj) {
  return run(process.execPath, ['-e', "console.log(require(require.resolve('sandy-native').replace(/index\\.js$/, 'binding.js')).addonPath)"], { cwd: proj }).stdout.trim()
}

// Installs from the tarball with lifecycle scripts off, then what a user
// does: require, probe, confine and spawn, as root and as uid 65534.
function checkInstalledWithoutScripts (t, label, proj) {
  const installed = path.join(proj, 'node_modules', 'sandy-native')
  const manifest = JSON.parse(fs.readFileSync(path.join(installed, 'package.json'), 'utf8'))
  t.equal(manifest.scripts.install, 'node scripts/build.js', `${label}: the package has an install script, which did not run`)
  t.notOk(fs.existsSync(path.join(installed, 'build')), `${label}: nothing was built`)
  makeReadOnly(t, path.join(proj, 'node_modules'))
  t.equal(path.dirname(loadedAddon(proj)), path.join(fs.realpathSync(installed), 'prebuilds', `linux-${process.arch}`), `${label}: the addon comes from the prebuild`)
  fs.writeFileSync(path.join(proj, 'consumer.js'), CONSUMER_JS)
  checkConfines(t, label, [path.join(proj, 'consumer.js')], proj)
  if (ROOT_USER) {
    checkConfines(t, `${label}, as uid 65534`, [path.join(proj, 'consumer.js')], proj,
      ['/usr/bin/setpriv', '--reuid=65534', '--regid=65534', '--clear-groups'])
  }
}

t.test('installed with npm install --ignore-scripts: no compiler, no libcjson, offline, read-only', async (t) => {
  if (!tarball || ngb.status !== 0) return t.fail('no tarball')
  const proj = path.join(work, 'proj-ignore-scripts')
  writeConsumerProject(proj)
  const ngbTarball = path.join(work, ngb.stdout.trim().split('\n').pop())
  const install = hidden([process.execPath, NPM, 'install', '--offline', '--ignore-scripts', '--no-audit', '--no-fund', tarball, ngbTarball],
    { cwd: proj, env: npmEnv({ PATH: bin, HOME: path.join(work, 'home-ignore-scripts'), npm_config_cache: path.join(work, 'npm-cache-ignore-scripts') }) })
  t.equal(install.status, 0, `npm install --ignore-scripts (${install.stdout.slice(-300)}${install.stderr.slice(-600)})`)
  if (install.status === 0) checkInstalledWithoutScripts(t, 'npm --ignore-scripts', proj)
})

// pnpm 10, pinned by version and by the integrity of its tarball on npm's
// registry. Its package has no dependency and no install script: it is
// unpacked into a scratch folder and run with node.
// What reaching the registry may need from this environment.
const NET_ENV = Object.fromEntries(Object.entries(ENV).filter(([k]) => /^(https?_proxy|no_proxy|node_extra_ca_certs)$/i.test(k)))
const PNPM = {
  version: '10.34.9',
  integrity: 'sha512-9JtajqD97bRLs8DB1ldQkqU8KVDZW3rRXfEfF5dId6LeOgHAfpNOmyjOcW5RwJqUlixzBtCb4uHksYqMh2L9Mg=='
}

t.test('installed with pnpm 10 and its defaults (no dependency\'s script runs): offline from a primed store, read-only', async (t) => {
  if (!tarball) return t.fail('no tarball')
  // The network steps, outside the namespace: pnpm itself, then the
  // package's one dependency (node-gyp-build, at the range package.json
  // asks for) into a fresh pnpm store, as a user's pnpm would fetch it.
  const fetchEnv = { ...ENV, npm_config_cache: path.join(work, 'npm-cache-pnpm-fetch'), npm_config_update_notifier: 'false' }
  const fetched = run(process.execPath, [NPM, 'pack', '--silent', `pnpm@${PNPM.version}`, `--pack-destination=${work}`], { cwd: work, env: fetchEnv })
  const pnpmTarball = path.join(work, `pnpm-${PNPM.version}.tgz`)
  t.equal(fetched.status, 0, `pnpm ${PNPM.version} fetched from npm's registry (${fetched.stderr.slice(-400)})`)
  if (fetched.status !== 0) return
  const integrity = 'sha512-' + crypto.createHash('sha512').update(fs.readFileSync(pnpmTarball)).digest('base64')
  t.equal(integrity, PNPM.integrity, 'its tarball is the pinned one')
  if (integrity !== PNPM.integrity) return
  const tool = path.join(work, 'pnpm-tool')
  fs.mkdirSync(tool)
  t.equal(run('tar', ['-xzf', pnpmTarball, '-C', tool]).status, 0, 'unpacked into a scratch folder')
  const pnpmCli = path.join(tool, 'package', 'bin', 'pnpm.cjs')
  const pnpmEnv = (extra) => npmEnv({ HOME: path.join(work, 'home-pnpm'), ...extra })
  const store = ['--store-dir', path.join(work, 'pnpm-store'), '--cache-dir', path.join(work, 'pnpm-cache'), '--config.update-notifier=false']
  const version = run(process.execPath, [pnpmCli, '--version'], { env: pnpmEnv({ PATH: bin }) })
  t.equal(version.stdout.trim(), PNPM.version, `pnpm --version: ${version.stdout.trim()}`)
  const range = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).dependencies['node-gyp-build']
  const prime = path.join(work, 'pnpm-prime')
  writeConsumerProject(prime)
  const primed = run(process.execPath, [pnpmCli, 'add', ...store, `node-gyp-build@${range}`], { cwd: prime, env: pnpmEnv({ PATH: bin, ...NET_ENV }) })
  t.equal(primed.status, 0, `node-gyp-build@${range} into the store, from npm's registry (${primed.stdout.slice(-300)}${primed.stderr.slice(-300)})`)
  if (primed.status !== 0) return

  // sandy-native from the tarball: offline (no network device), no
  // compiler on PATH, libcjson hidden, a fresh project and pnpm's
  // defaults (no config file anywhere but the empty ones).
  const proj = path.join(work, 'proj-pnpm')
  writeConsumerProject(proj)
  const install = hidden([process.execPath, pnpmCli, 'add', '--offline', ...store, tarball], { cwd: proj, env: pnpmEnv({ PATH: bin }) })
  t.equal(install.status, 0, `pnpm add --offline (${install.stdout.slice(-600)}${install.stderr.slice(-600)})`)
  if (install.status !== 0) return
  // pnpm 10 says which install scripts its default skipped
  t.match(install.stdout, /Ignored build scripts: sandy-native@file:/, 'pnpm ignored sandy-native\'s install script')
  t.ok(fs.lstatSync(path.join(proj, 'node_modules', 'sandy-native')).isSymbolicLink(), 'pnpm\'s layout: node_modules/sandy-native links into node_modules/.pnpm')
  checkInstalledWithoutScripts(t, 'pnpm 10', proj)
})

t.test('installed from source, offline, with the build tools', async (t) => {
  if (!tarball || ngb.status !== 0) return t.fail('no tarball')
  const proj = path.join(work, 'proj-src')
  writeConsumerProject(proj)
  const ngbTarball = path.join(work, ngb.stdout.trim().split('\n').pop())
  // no network at all: a network namespace of its own
  const ns = ROOT_USER ? ['/usr/bin/unshare', '--net'] : ['/usr/bin/unshare', '--user', '--map-current-user', '--net']
  const install = run(ns[0], [...ns.slice(1), process.execPath, NPM, 'install', '--offline', '--no-audit', '--no-fund', '--build-from-source', tarball, ngbTarball],
    { cwd: proj, env: npmEnv({ PATH: ENV.PATH }) })
  t.equal(install.status, 0, `npm install --build-from-source (${install.stderr.slice(-800)})`)
  const installed = path.join(proj, 'node_modules', 'sandy-native')
  t.ok(fs.existsSync(path.join(installed, 'build', 'Release', 'sandy.node')), 'the addon was built')
  t.ok(fs.existsSync(path.join(installed, 'build', 'Release', 'sandy-launcher')), 'and the launcher')
  fs.writeFileSync(path.join(proj, 'consumer.js'), CONSUMER_JS)
  const loaded = run(process.execPath, ['-e', `console.log(require(${JSON.stringify(path.join(installed, 'lib', 'binding.js'))}).addonPath)`], { cwd: proj })
  t.equal(loaded.stdout.trim(), path.join(installed, 'build', 'Release', 'sandy.node'), 'the built addon is the one loaded')
  checkConfines(t, 'from-source install', [path.join(proj, 'consumer.js')], proj)
})
