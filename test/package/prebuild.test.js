'use strict'
// A package with a prebuild and no build/ directory: the addon loads from
// prebuilds/<platform>-<arch>/, the launcher is found beside it, install
// does not try to build, and a confined command runs.
const t = require('tap')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const crypto = require('node:crypto')
const { spawnSync } = require('node:child_process')
const { patience } = require('../helpers/patience.js')

// Two fresh builds of the addon and launcher (one cross-compiled): over a
// minute beside the suite's other heavy files, so more than tap's default.
t.setTimeout(patience(600000))

const root = path.join(__dirname, '..', '..')
const pkg = fs.mkdtempSync(path.join(os.tmpdir(), 'sandy-prebuild-'))
t.teardown(() => fs.rmSync(pkg, { recursive: true, force: true }))
for (const part of ['lib', 'scripts']) fs.cpSync(path.join(root, part), path.join(pkg, part), { recursive: true })
fs.copyFileSync(path.join(root, 'package.json'), path.join(pkg, 'package.json'))
fs.symlinkSync(path.join(root, 'node_modules'), path.join(pkg, 'node_modules'))
// Without the runner's hooks and coverage: scripts/ is not lib/.
const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => k !== 'NODE_OPTIONS' && k !== 'NODE_V8_COVERAGE'))

t.test('the prebuild layout loads and confines', async (t) => {
  const pack = spawnSync(process.execPath, [path.join(root, 'scripts', 'prebuild.js'), pkg], { encoding: 'utf8', env })
  t.equal(pack.status, 0, pack.stderr)
  t.notOk(fs.existsSync(path.join(pkg, 'build')), 'no build directory')
  const install = spawnSync(process.execPath, [path.join(pkg, 'scripts', 'build.js')], { encoding: 'utf8', env, cwd: pkg })
  t.equal(install.status, 0, 'install sees the prebuild and builds nothing')
  t.notOk(fs.existsSync(path.join(pkg, 'build')), 'still no build directory')
  const script = `
    const s = require(${JSON.stringify(pkg)})
    const b = require(${JSON.stringify(path.join(pkg, 'lib', 'binding.js'))})
    const c = s.createLocalSandboxProvider({ backend: 'sandy' }).confine(['/bin/sh', '-c', 'echo confined'], { mode: 'read-only', workspaceRoot: '/var/tmp' })
    const r = require('child_process').spawnSync(c.argv[0], c.argv.slice(1), { cwd: '/var/tmp', encoding: 'utf8' })
    console.log(JSON.stringify({ addon: b.addonPath, launcher: c.argv[0], out: r.stdout }))`
  const r = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', env })
  t.equal(r.status, 0, r.stderr)
  const got = JSON.parse(r.stdout)
  const dir = fs.realpathSync(path.join(pkg, 'prebuilds', `${process.platform}-${process.arch}`))
  t.equal(path.dirname(got.addon), dir, 'the addon came from the prebuild folder')
  const digest = fs.readFileSync(path.join(dir, 'sandy-launcher.sha256'), 'latin1').trim()
  t.match(digest, /^[0-9a-f]{64}$/, 'the launcher beside it, with its recorded digest')
  t.equal(crypto.createHash('sha256').update(fs.readFileSync(got.launcher)).digest('hex'), digest, 'the argv runs a verified copy of it')
  t.equal(got.out, 'confined\n')
})

// Install's decision (scripts/build.js --explain): it skips the build only
// for a prebuild node-gyp-build will load on this host's libc, and always
// builds when asked to build from source.
t.test('install builds where no prebuild fits: another libc, or asked to', async (t) => {
  const explain = (extra, args = []) => spawnSync(process.execPath, [path.join(pkg, 'scripts', 'build.js'), '--explain', ...args],
    { encoding: 'utf8', env: { ...env, ...extra }, cwd: pkg }).stdout.trim()
  const where = `${process.platform}-${process.arch}`
  t.equal(explain({ LIBC: 'glibc' }), 'skip: a prebuild this host loads is present', 'glibc: the glibc prebuild')
  t.equal(explain({ LIBC: 'musl' }), `build: no prebuild for ${where} with musl`, 'musl: the glibc prebuild would not load, so build')
  t.equal(explain({ LIBC: 'glibc', npm_config_build_from_source: 'true' }), 'build: asked to build from source', 'npm install --build-from-source')
  t.equal(explain({ LIBC: 'glibc' }, ['--build-from-source']), 'build: asked to build from source')
  // control: the same node-gyp-build refuses the glibc prebuild on musl
  const load = (libc) => spawnSync(process.execPath, ['-e', `try { require('node-gyp-build').resolve(${JSON.stringify(pkg)}); console.log('found') } catch { console.log('none') }`],
    { encoding: 'utf8', env: { ...env, LIBC: libc }, cwd: pkg }).stdout.trim()
  t.equal(load('glibc'), 'found')
  t.equal(load('musl'), 'none', 'node-gyp-build agrees: nothing loadable on musl')
})

t.test('a build that cannot start names what to install', async (t) => {
  // (a PATH with node alone: no compiler, no make; node's own directory
  // may hold them, /usr/bin does)
  const bin = fs.mkdtempSync(path.join(os.tmpdir(), 'sandy-path-'))
  t.teardown(() => fs.rmSync(bin, { recursive: true, force: true }))
  fs.symlinkSync(process.execPath, path.join(bin, 'node'))
  const r = spawnSync(process.execPath, [path.join(pkg, 'scripts', 'build.js'), '--build-from-source'],
    { encoding: 'utf8', env: { ...env, PATH: bin }, cwd: pkg })
  t.equal(r.status, 1)
  t.match(r.stderr, /needs cc, make.* on PATH: install build-essential and python3 \(Debian, Ubuntu\), build-base, python3 and linux-headers \(Alpine\)/)
  t.notOk(fs.existsSync(path.join(pkg, 'build')), 'nothing was built')
})

t.test('a launcher build that fails names what to install, and leaves nothing', async (t) => {
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'sandy-launcher-out-'))
  t.teardown(() => fs.rmSync(out, { recursive: true, force: true }))
  const build = (args) => spawnSync('make', ['-s', '--no-print-directory', '-C', path.join(root, 'csrc'), 'launcher', `O=${out}`, ...args],
    { encoding: 'utf8', env })
  // a compiler that fails, as one would without a static libc
  const r = build(['LIBC=host', 'CC=/bin/false'])
  t.equal(r.status, 2)
  t.match(r.stderr, /links statically: install musl-tools \(Debian, Ubuntu\), or your libc's static archive/)
  t.same(fs.readdirSync(out), [], 'no launcher and no digest written')
  t.match(build(['ARCH=s390x']).stderr, /no launcher build for s390x/, 'an architecture it does not build')
  t.match(build(['VARIANT=sanitize', 'LIBC=musl']).stderr, /the sanitizer build uses the host toolchain/)
  t.match(build(['VARIANT=bogus']).stderr, /VARIANT is release, debug or sanitize, not bogus/)
  t.same(fs.readdirSync(out), [], 'still nothing written')
  // control: the same target builds the launcher
  const ok = build([])
  t.equal(ok.status, 0, ok.stderr)
  t.same(fs.readdirSync(out).sort(), ['sandy-launcher', 'sandy-launcher.sha256'])
  // the parameters come from the command line only: node-gyp-build's LIBC
  // tag, an ARCH or a test-only switch in the environment choose nothing
  const digest = fs.readFileSync(path.join(out, 'sandy-launcher.sha256'), 'utf8')
  const hostile = spawnSync('make', ['-s', '--no-print-directory', '-C', path.join(root, 'csrc'), 'launcher', `O=${out}`],
    { encoding: 'utf8', env: { ...env, LIBC: 'glibc', ARCH: 'x86_64', VARIANT: 'sanitize', EXTRA_CFLAGS: '-DSANDY_TEST_SKIP_SECCOMP' } })
  t.equal(hostile.status, 0, hostile.stderr)
  t.equal(fs.readFileSync(path.join(out, 'sandy-launcher.sha256'), 'utf8'), digest, 'the same launcher, byte for byte')
})
