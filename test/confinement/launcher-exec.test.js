'use strict'
// The launcher's last step, exec of the target (csrc/launcher/exec.c), as
// POSIX execvp whatever libc it is linked with: a script without "#!" runs
// through /bin/sh (musl's own execvp would refuse it with ENOEXEC), $PATH
// is searched in order with an empty element meaning the working
// directory and "/bin:/usr/bin" when unset, a permission error is kept
// over a later "not found", and what cannot run ends with the shell's
// statuses, 126 and 127. Each case runs confined (sandy backend, as root
// and as uid 65534) and unconfined through glibc's execvp (`env`), and the
// two must agree; confined both with the launcher that ships (musl) and
// with the static glibc one a from-source build without musl-tools makes.
const t = require('tap')
const fs = require('node:fs')
const path = require('node:path')
const os = require('node:os')
const { spawnSync } = require('node:child_process')
const { users, backendsFor, confineAs } = require('../helpers/sandbox.js')

// The glibc build of the same launcher, beside the shipped one: built here
// or, in the kernel matrix's guests (whose emulated compiler takes most of
// a minute), the one scripts/kernels.js built on the host from the same
// sources, named by SANDY_TEST_GLIBC_LAUNCHER.
const glibcDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sandy-exec-glibc-'))
fs.chmodSync(glibcDir, 0o755)
t.teardown(() => fs.rmSync(glibcDir, { recursive: true, force: true }))
const prebuilt = process.env.SANDY_TEST_GLIBC_LAUNCHER
const glibcBuild = prebuilt
  ? (fs.copyFileSync(prebuilt, path.join(glibcDir, 'sandy-launcher')), { status: 0, stderr: '' })
  : spawnSync('make', ['-s', '-C', path.join(__dirname, '..', '..', 'csrc'), 'launcher', 'LIBC=host', `O=${glibcDir}`], { encoding: 'utf8' })
const launchers = [['shipped', null], ['static glibc', path.join(glibcDir, 'sandy-launcher')]]

const base = fs.mkdtempSync('/var/tmp/sandy-exec-')
fs.chmodSync(base, 0o755)
t.teardown(() => fs.rmSync(base, { recursive: true, force: true }))
const file = (rel, text, mode) => {
  const p = path.join(base, rel)
  fs.mkdirSync(path.dirname(p), { recursive: true, mode: 0o755 })
  fs.writeFileSync(p, text)
  fs.chmodSync(p, mode)
  return p
}
file('ws/noshebang', 'echo "ran by sh: $0 $1"\n', 0o755)
file('ws/plain.txt', 'not a program\n', 0o644)
file('a/tool', 'echo "from a"\n', 0o644) // found first, not executable
file('b/tool', '#!/bin/sh\necho "from b"\n', 0o755)
file('c/only', 'echo "never"\n', 0o644)
fs.chmodSync(path.join(base, 'ws'), 0o777)
const ws = path.join(base, 'ws')
const at = (d) => path.join(base, d)

// [name, argv, PATH (undefined: unset)]
const cases = [
  ['a script without #! runs through /bin/sh', ['./noshebang', 'arg'], '/usr/bin:/bin'],
  ['the same, by absolute path', [path.join(ws, 'noshebang'), 'arg'], '/usr/bin:/bin'],
  ['a name found on PATH', ['true'], '/usr/bin:/bin'],
  ['PATH unset: /bin:/usr/bin', ['true'], undefined],
  ['an empty PATH element is the working directory', ['noshebang'], `/nonexistent::${at('b')}`],
  ['a non-executable file on PATH is passed over for a later one', ['tool'], `${at('a')}:${at('b')}`],
  ['only a non-executable match: permission denied (126)', ['only'], `${at('c')}:/nonexistent`],
  ['no match at all: not found (127)', ['no-such-command-here'], '/usr/bin:/bin'],
  ['a non-executable file by path (126)', ['./plain.txt'], '/usr/bin:/bin'],
  ['a missing file by path (127)', ['./missing'], '/usr/bin:/bin'],
  // the shell fallback forwards any number of arguments (the kernel
  // bounds their bytes, not their count)
  ['a script without #! and 5,000 arguments', ['./noshebang', ...Array.from({ length: 5000 }, (_, i) => `a${i}`)], '/usr/bin:/bin'],
  // an element too long to join with the name is passed over
  ['a PATH element longer than PATH_MAX', ['true'], `/${'x'.repeat(4100)}:/usr/bin:/bin`]
]
// PATH unset means glibc's "/bin:/usr/bin", not musl's, which puts
// /usr/local/bin first: a program only there must not be found (as root:
// it takes a file in /usr/local/bin, removed after).
if (process.getuid() === 0 && fs.existsSync('/usr/local/bin')) {
  const name = `sandy-exec-${process.pid}`
  const local = path.join('/usr/local/bin', name)
  fs.writeFileSync(local, '#!/bin/sh\necho "found in /usr/local/bin"\n', { mode: 0o755 })
  t.teardown(() => fs.rmSync(local, { force: true }))
  cases.push(['PATH unset: /usr/local/bin is not searched', [name], undefined])
}

const outcome = (r) => ({ code: r.status, stdout: r.stdout })
// The variables of the test's own builds that must reach the launcher
// whatever environment a case gives it (the coverage build's stream, the
// sanitizer stage's options); none is read by the shell or the programs.
const BUILD_VARS = ['SANDY_COVERAGE_DIR', 'ASAN_OPTIONS', 'UBSAN_OPTIONS']
const withBuildVars = (env) => ({ ...Object.fromEntries(BUILD_VARS.filter((k) => process.env[k] !== undefined).map((k) => [k, process.env[k]])), ...env })
// argv as the user, optionally with its stderr closed (through sh)
const spawnAs = (user, argv, env, closeStderr = false) => {
  const full = [...user.wrap, ...(closeStderr ? ['/bin/sh', '-c', 'exec 2>&- "$@"', 'sh'] : []), ...argv]
  return spawnSync(full[0], full.slice(1), { cwd: ws, env: withBuildVars(env), encoding: 'utf8' })
}

t.test('the static glibc launcher builds', async (t) => t.equal(glibcBuild.status, 0, glibcBuild.stderr))

for (const user of users()) {
  for (const [which, build] of launchers) {
    t.test(`exec as execvp [${user.name}, ${which} launcher]`, async (t) => {
      const [backend] = backendsFor(t, user, ['sandy'])
      if (!backend) return
      const confine = (argv) => {
        const c = confineAs(user, backend, argv, { mode: 'workspace-write', workspaceRoot: ws }).argv
        return build ? [build, ...c.slice(1)] : c
      }
      for (const [name, argv, PATH] of cases) {
        const env = PATH === undefined ? {} : { PATH }
        const confined = spawnAs(user, confine(argv), env)
        // unconfined: glibc's execvp, through env(1)
        const bare = spawnAs(user, ['/usr/bin/env', ...argv], env)
        t.notMatch(confined.stderr, /sandy-launcher: fatal:/, `${name}: not a runner failure (${confined.stderr.trim()})`)
        t.same(outcome(confined), outcome(bare), `${name}: confined ${confined.status}, unconfined ${bare.status} (${confined.stdout.trim() || confined.stderr.trim()})`)
      }
      const r = spawnAs(user, confine(['./noshebang', 'arg']), {})
      t.equal(r.stdout, 'ran by sh: ./noshebang arg\n', 'the shell gets the script as $0 and the arguments after it')
      // the status is decided before the error line is written, which
      // fails when stderr is closed
      const closed = spawnAs(user, confine(['no-such-command-here']), { PATH: '/usr/bin:/bin' }, true)
      t.equal(closed.status, 127, 'not found with stderr closed: still 127')
    })
  }
}
