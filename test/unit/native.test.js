'use strict'
// The C-level checks, counted with the rest: the Landlock and seccomp unit
// programs (each rule against an unfiltered run), a bounded libFuzzer run of
// the policy document parser, cppcheck at warning level, and a compile check
// of the macOS sources.
const t = require('tap')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { spawn } = require('node:child_process')
const { patience } = require('../helpers/patience.js')

// The C programs' builds, a 15-second fuzz run and cppcheck over every
// source take over a minute on an idle machine and more beside the suite's
// other heavy files: under load here tap's 120-second default ended it with
// three 'timeout!' failures, the count CI's failed run of 72f690b reported
// (unnamed), so it gets the bound its work needs.
t.setTimeout(patience(600000))

const root = path.join(__dirname, '..', '..')

function run (argv, extraEnv = {}) {
  return new Promise((resolve) => {
    const env = { ...Object.fromEntries(Object.entries(process.env).filter(([k]) => k !== 'NODE_OPTIONS')), ...extraEnv }
    const child = spawn(argv[0], argv.slice(1), { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] })
    let output = ''
    child.stdout.on('data', (d) => { output += d })
    child.stderr.on('data', (d) => { output += d })
    child.on('close', (code) => resolve({ code, output }))
  })
}

const make = (args) => run(['make', '-s', '--no-print-directory', '-C', 'csrc', ...args])
const NOBODY = ['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups']

// The C test programs (csrc/Makefile's C_TESTS), each run under tap: every
// one prints TAP (csrc/test/tap.h), so its checks, skips and failures are
// judged with the rest. As root, the two that restrict themselves through
// the kernel run again as an unprivileged user.
t.test('Landlock and seccomp C tests', async (t) => {
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'sandy-c-tests-'))
  fs.chmodSync(out, 0o755)
  t.teardown(() => fs.rmSync(out, { recursive: true, force: true }))
  const built = await make(['-j2', 'c-tests', `O=${out}`])
  t.equal(built.code, 0, built.output.slice(-3000))
  const programs = (await make(['print-C_TESTS'])).output.trim().split(/\s+/)
  t.ok(programs.length >= 13, `${programs.length} programs`)
  const args = { seatbelt_test: [path.join(root, 'csrc', 'test', 'golden')], paths_test: [path.join(root, 'test', 'fixtures', 'containment-cases.json')] }
  const env = { PATH: process.env.PATH }
  for (const name of programs) await t.spawn(path.join(out, name), args[name] || [], { cwd: root, env }, name)
  if (process.getuid() !== 0) return
  for (const name of ['seccomp_test', 'landlock_test']) {
    await t.spawn(NOBODY[0], [...NOBODY.slice(1), path.join(out, name)], { cwd: '/', env }, `${name} as uid 65534`)
  }
})

// The precompiled seccomp filters are what csrc/Makefile generates from the
// rules in csrc/linux/seccomp.c (lib/vocabulary.js and
// types/probe-fields.d.ts: test/meta/vocabulary.test.js).
t.test('the precompiled seccomp filters are current', async (t) => {
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'sandy-generated-'))
  t.teardown(() => fs.rmSync(out, { recursive: true, force: true }))
  const fresh = path.join(out, 'seccomp_filters.h')
  const r = await make(['seccomp-filters', `OUT=${fresh}`])
  t.equal(r.code, 0, r.output.slice(-3000))
  t.ok(fs.existsSync(fresh) && fs.readFileSync(fresh).equals(fs.readFileSync(path.join(root, 'csrc', 'linux', 'seccomp_filters.h'))),
    'csrc/linux/seccomp_filters.h is current (if not: make -C csrc seccomp-filters OUT=$PWD/csrc/linux/seccomp_filters.h)')
})

t.test('the policy document parser survives a bounded fuzz run', async (t) => {
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'sandy-fuzz-'))
  const r = await make(['fuzz', `O=${out}`, `SECONDS=${process.env.SANDY_FUZZ_SECONDS || '15'}`])
  t.equal(r.code, 0, `${r.output.slice(-3000)}\n(inputs and any crash reproducer kept in ${out})`)
  if (r.code === 0) fs.rmSync(out, { recursive: true, force: true })
})

t.test('cppcheck finds no warnings in the C sources', async (t) => {
  const r = await run(['cppcheck', '--quiet', '--error-exitcode=1', '--enable=warning,portability,performance',
    '--std=c11', '-D__linux__', '-D__x86_64__', '-D_GNU_SOURCE', '--suppress=missingIncludeSystem',
    'csrc/', 'fuzz/'])
  t.equal(r.code, 0, r.output)
})

// The files a Mac builds into the addon (its own, the core, darwin/), with
// __linux__ undefined, against csrc/test/darwin_sdk.h alone: each of its
// sections becomes the header it names, holding only that section and
// the base types (sys/types.h), and nothing else of the system is on the
// include path (-nostdinc; the compiler's freestanding headers and
// Node-API's stay). A Linux-only header, function or struct member in a
// macOS branch fails here, and so does a function whose header is not
// included.
const DARWIN_SDK = path.join(root, 'csrc', 'test', 'darwin_sdk.h')
const NODE_INCLUDE = [path.resolve(process.execPath, '..', '..', 'include', 'node'), '/usr/include/node']
  .find((d) => fs.existsSync(path.join(d, 'node_api.h')))

// { name: text } of the stub's headers
function darwinHeaders () {
  const text = fs.readFileSync(DARWIN_SDK, 'utf8')
  const body = text.slice(text.indexOf('/* ---- '), text.lastIndexOf('#endif'))
  const parts = body.split(/^\/\* ---- (\S+) ---- \*\/$/m).slice(1)
  const headers = {}
  for (let i = 0; i < parts.length; i += 2) {
    const guard = `SANDY_STUB_${parts[i].replace(/\W/g, '_').toUpperCase()}`
    const base = parts[i] === 'sys/types.h' ? '#include <stdarg.h>\n#include <stddef.h>\n#include <stdint.h>\n' : '#include <sys/types.h>\n'
    headers[parts[i]] = `#ifndef ${guard}\n#define ${guard}\n${base}${parts[i + 1]}\n#endif\n`
  }
  return headers
}

// (file: a source, or a copy elsewhere whose quoted includes resolve as
// they do from csrc/darwin/)
async function darwinCompile (t, file) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sandy-darwin-sdk-'))
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }))
  const headers = darwinHeaders()
  for (const [name, text] of Object.entries(headers)) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true })
    fs.writeFileSync(path.join(dir, name), text)
  }
  const gccInclude = (await run(['gcc', '-print-file-name=include'])).output.trim()
  const flags = (await make(['print-ADDON_CFLAGS'])).output.trim().split(/\s+/)
  return { names: Object.keys(headers), ...await run(['gcc', ...flags, '-ffreestanding', '-nostdinc',
    '-isystem', gccInclude, '-isystem', dir, '-iquote', path.join(root, 'csrc', 'darwin'), `-I${NODE_INCLUDE}`, `-I${path.join(root, 'deps', 'cjson')}`,
    '-U__linux__', '-U__linux', '-Ulinux', '-U__gnu_linux__', '-D__APPLE__', '-D__MACH__', '-fsyntax-only', file]) }
}

t.test('the macOS sources compile on Linux against the stub SDK', async (t) => {
  const files = (await make(['paths-ADDON_SOURCES', 'paths-CORE_SOURCES', 'paths-ADDON_DARWIN_SOURCES'])).output.trim().split(/\s+/)
  for (const f of files) {
    const r = await darwinCompile(t, f)
    t.equal(r.code, 0, `${f}: ${r.output}`)
  }
  const { names } = await darwinCompile(t, files[0])
  t.ok(names.includes('spawn.h') && names.includes('sys/wait.h'), `the stub names its headers (${names.length})`)
  // controls: what macOS lacks fails, in a copy of the darwin probe
  const probe = fs.readFileSync(path.join(root, 'csrc', 'darwin', 'probe.c'), 'utf8')
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'sandy-darwin-src-'))
  t.teardown(() => fs.rmSync(scratch, { recursive: true, force: true }))
  const variants = {
    'a Linux-only header': probe.replace('#include <errno.h>', '#include <errno.h>\n#include <sys/sysmacros.h>'),
    'a Linux-only function': probe.replace('void sandy_probe_run(sandy_probe_report *r)\n{', 'void sandy_probe_run(sandy_probe_report *r)\n{\n\tint p[2];\n\t(void)pipe2(p, O_CLOEXEC);'),
    "glibc's name for a stat time": probe.replace('void sandy_probe_run(sandy_probe_report *r)\n{', 'void sandy_probe_run(sandy_probe_report *r)\n{\n\tstruct stat st = {0};\n\t(void)st.st_mtim;'),
    'a function whose header is missing': probe.replace('#include <sys/wait.h>\n', '')
  }
  t.equal(probe.includes('void sandy_probe_run(sandy_probe_report *r)\n{'), true, '(the function the controls edit)')
  for (const [what, text] of Object.entries(variants)) {
    t.not(text, probe, `${what}: the copy differs`)
    const copy = path.join(scratch, 'probe.c')
    fs.writeFileSync(copy, text)
    const r = await darwinCompile(t, copy)
    t.not(r.code, 0, `${what} fails to compile (${r.output.split('\n').find((l) => /error/.test(l)) || ''})`)
  }
})

// glibc 2.33 made stat, lstat and fstat versioned symbols of their own:
// one direct call raised the glibc the addon needs from 2.17 to 2.33. The
// C code asks through sandy_stat (csrc/core/stat.h, statx by number), so
// the newest symbol version the addon needs stays GLIBC_2.17 (clock_gettime),
// cJSON's static copy included. (Node 20's own floor is 2.28.)
const GLIBC_MAX = [2, 17]

t.test('the addon needs no glibc symbol newer than GLIBC_2.17', async (t) => {
  const { addonPath } = require('../../lib/binding.js')
  const r = await run(['objdump', '-T', addonPath])
  t.equal(r.code, 0, r.output.slice(-1000))
  const newer = []
  let versions = 0
  for (const m of r.output.matchAll(/\(GLIBC_(\d+)\.(\d+)(?:\.(\d+))?\)\s+(\S+)/g)) {
    versions++
    const [major, minor] = [Number(m[1]), Number(m[2])]
    if (major > GLIBC_MAX[0] || (major === GLIBC_MAX[0] && minor > GLIBC_MAX[1])) newer.push(`${m[4]}@GLIBC_${m[1]}.${m[2]}`)
  }
  t.ok(versions > 10, `${versions} versioned glibc symbols read`)
  t.same(newer, [], 'no symbol needs a newer glibc')
})

t.test('the launcher depends on no shared library; the addon only on libc', async (t) => {
  const { addonPath, launcherPath } = require('../../lib/binding.js')
  const launcher = await run(['ldd', launcherPath()])
  t.match(launcher.output, /not a dynamic executable/, launcher.output)
  const addon = await run(['ldd', addonPath])
  t.equal(addon.code, 0)
  // cJSON is linked in statically (scripts/fetch-cjson.sh); libseccomp is
  // only in the launcher. What is left: the vDSO, libc, the loader, and at
  // most libm, libpthread or libdl.
  const libs = addon.output.split('\n').map((l) => l.trim().split(/\s+/)[0]).filter(Boolean)
  t.ok(libs.some((l) => /^libc\.so\.\d+$/.test(l)), `libc is linked: ${libs.join(' ')}`)
  const others = libs.filter((l) => !/^(linux-vdso|linux-gate)\.so\.\d+$|^(libc|libm|libpthread|libdl)\.so\.\d+$|^\/\S*\/ld-linux[-\w.]*\.so\.\d+$/.test(l))
  t.same(others, [], 'nothing but libc, the loader and libm/libpthread/libdl')
})

// csrc/addon/exports.map and -fvisibility=hidden (cJSON's static library
// included): the dynamic symbol table holds the N-API entry points only.
t.test('the addon exports only the N-API entry points', async (t) => {
  const { addonPath } = require('../../lib/binding.js')
  const r = await run(['nm', '-D', '--defined-only', addonPath])
  t.equal(r.code, 0, r.output)
  const names = r.output.split('\n').map((l) => l.trim().split(/\s+/)[2]).filter(Boolean).sort()
  t.ok(names.includes('napi_register_module_v1'), 'napi_register_module_v1 is exported')
  t.same(names.filter((n) => n !== 'napi_register_module_v1' && n !== 'node_api_module_get_api_version_v1'), [],
    `nothing else: ${names.join(' ')}`)
})

t.test('the Release addon is stripped', async (t) => {
  const { addonPath } = require('../../lib/binding.js')
  const r = await run(['file', '-L', addonPath])
  t.equal(r.code, 0, r.output)
  t.match(r.output, /shared object/, r.output)
  t.match(r.output, /, stripped$/m, r.output)
})

// The addon must not need libcjson at run time, even where it is installed
// (a host without it is the point): in a private mount namespace, every
// libcjson shared object is covered by an empty file, then the package
// loads and parses a policy document (cJSON's code, inside the addon).
t.test('the addon loads and parses JSON with libcjson hidden', async (t) => {
  const hide = new Set()
  for (const top of ['/usr/lib', '/lib', '/usr/lib64', '/lib64', '/usr/local/lib']) {
    let dirs = []
    try { dirs = [top, ...fs.readdirSync(top, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => path.join(top, e.name))] } catch {}
    for (const d of dirs) {
      for (const f of fs.readdirSync(d)) if (/^libcjson\.so/.test(f)) hide.add(fs.realpathSync(path.join(d, f)))
    }
  }
  const script = `
    const s = require('.')
    const p = s.SandboxPolicy.fromJson('{"schema_version":1,"network":"block_all","grants":[{"path":"/usr","access":"read","scope":"subtree"}]}')
    console.log(JSON.stringify(p.toJSON().grants))`
  const shell = 'set -e; for f in "$@"; do mount --bind /dev/null "$f"; test ! -s "$f"; done; echo hidden "$#"; exec "$0" -e "$SANDY_SCRIPT"'
  const unshare = process.getuid() === 0 ? ['unshare', '--mount', '--propagation', 'private'] : ['unshare', '--user', '--map-root-user', '--mount']
  const r = await run([...unshare, 'sh', '-c', shell, process.execPath, ...hide], { SANDY_SCRIPT: script })
  t.equal(r.code, 0, r.output)
  t.match(r.output, new RegExp(`^hidden ${hide.size}$`, 'm'), `${hide.size} libcjson file(s) hidden: ${[...hide].join(' ') || 'none installed'}`)
  t.match(r.output, /^\[\{"path":"\/usr","access":"read","scope":"subtree"\}\]$/m, 'the document was parsed')
})

// cJSON's notice ships in licenses/ (package.json files): the file is the
// LICENSE of the source the addon was built from, and the packaging note
// (docs/development.md) names the version and checksum
// scripts/fetch-cjson.sh pins.
t.test('cJSON\'s notice and the packaging note match the pinned source', async (t) => {
  const fetch = fs.readFileSync(path.join(root, 'scripts', 'fetch-cjson.sh'), 'utf8')
  const version = /^version=(\S+)$/m.exec(fetch)[1]
  const dsc = /^dsc_sha256=([0-9a-f]{64})$/m.exec(fetch)[1]
  const r = await run(['sh', 'scripts/fetch-cjson.sh'])
  t.equal(r.code, 0, r.output)
  t.equal(fs.readFileSync(path.join(root, 'licenses', 'cJSON.txt'), 'utf8'),
    fs.readFileSync(path.join(root, 'deps', 'cjson', 'LICENSE'), 'utf8'), 'licenses/cJSON.txt is the source\'s LICENSE')
  t.ok(require('../../package.json').files.includes('licenses/'), 'licenses/ is in the package')
  t.ok(require('../../package.json').files.includes('scripts/fetch-cjson.sh'), 'so is the fetch script (builds from source)')
  const note = fs.readFileSync(path.join(root, 'docs', 'development.md'), 'utf8')
  t.ok(note.includes(version), `the packaging note names cJSON's Debian version ${version}`)
  t.ok(note.includes(dsc), 'and the .dsc SHA-256')
})
