'use strict'
// The seatbelt backend on a Mac, for real: every case spawns the argv the
// provider returns, checks the kernel's answer, and shows the same action
// succeeding unconfined. macOS only (test/darwin/subset.js); written on
// Linux and never run yet (docs/backends.md, "macOS"), so the first run on a Mac
// is its first test too.
const t = require('tap')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { spawnSync } = require('node:child_process')
const { createLocalSandboxProvider, classifyExit } = require('../..')

if (process.platform !== 'darwin') {
  t.fail(`seatbelt.darwin.js runs on macOS only (this is ${process.platform})`)
  process.exit(1)
}

// Seatbelt matches resolved paths: everything here is canonical
// (/private/var/folders/..., not /var/folders/...).
const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'sandy-darwin-')))
t.teardown(() => fs.rmSync(base, { recursive: true, force: true }))
const ws = path.join(base, 'ws')
const outside = path.join(base, 'outside')
fs.mkdirSync(ws)
fs.mkdirSync(outside)
fs.writeFileSync(path.join(outside, 'victim'), 'host\n')

const provider = createLocalSandboxProvider()
const sh = (script, ...args) => ['/bin/sh', '-c', script, 'sh', ...args]

function confined (mode, argv) {
  const c = provider.confine(argv, { mode, workspaceRoot: ws })
  const r = spawnSync(c.argv[0], c.argv.slice(1), { encoding: 'utf8', cwd: ws })
  return { ...r, confinedArgv: c, kind: classifyExit(c, { code: r.status, stderr: r.stderr }).kind }
}
function unconfined (argv) {
  return spawnSync(argv[0], argv.slice(1), { encoding: 'utf8', cwd: ws })
}

t.test('the probe selects seatbelt, partial', async (t) => {
  const p = provider.probe()
  const seatbelt = p.candidates.find((c) => c.name === 'seatbelt')
  t.equal(p.selected, 'seatbelt', `selected (${seatbelt.reason})`)
  t.equal(seatbelt.enforcement, 'partial')
  for (const c of p.candidates.filter((c) => c.name !== 'seatbelt')) t.equal(c.usable, false, `${c.name}: not on macOS`)
})

t.test('workspace-write: the workspace and TMPDIR are writable, nothing else', async (t) => {
  const inside = confined('workspace-write', sh('echo in > "$1/in.txt" && echo tmp > "$TMPDIR/t" && cat "$TMPDIR/t"', ws))
  t.equal(inside.status, 0, inside.stderr)
  t.equal(fs.readFileSync(path.join(ws, 'in.txt'), 'utf8'), 'in\n')
  t.equal(inside.stdout, 'tmp\n', 'a temp directory of its own')
  t.not(inside.confinedArgv.argv.find((w) => w.startsWith('TEMP_DIR=')), undefined)

  const out = confined('workspace-write', sh('echo out > "$1/out.txt"', outside))
  t.not(out.status, 0, 'a write outside fails')
  t.match(out.stderr, /Operation not permitted/)
  t.equal(out.kind, 'denied', 'classified as a denial')
  t.notOk(fs.existsSync(path.join(outside, 'out.txt')))
  t.equal(unconfined(sh('echo out > "$1/out.txt"', outside)).status, 0, 'control: it succeeds unconfined')
  fs.rmSync(path.join(outside, 'out.txt'))

  const tmp = confined('workspace-write', sh('echo x > /private/tmp/sandy-darwin-$$'))
  t.not(tmp.status, 0, 'the shared /private/tmp is not writable')
  t.equal(tmp.kind, 'denied')
})

t.test('read-only: the workspace is not writable either; /dev/null and /dev/stderr are', async (t) => {
  const r = confined('read-only', sh('echo x > "$1/ro.txt"', ws))
  t.not(r.status, 0)
  t.equal(r.kind, 'denied')
  t.notOk(fs.existsSync(path.join(ws, 'ro.txt')))
  const dev = confined('read-only', sh('echo a > /dev/null && echo b > /dev/stderr'))
  t.equal(dev.status, 0, `devices by path (${dev.stderr})`)
  t.equal(dev.stderr, 'b\n')
  t.equal(unconfined(sh('echo x > "$1/ro.txt"', ws)).status, 0, 'control: the write succeeds unconfined')
})

t.test('a hard link to a host file is refused (it would write that file)', async (t) => {
  const victim = path.join(outside, 'victim')
  const r = confined('workspace-write', sh('ln "$1" "$2/link" && echo pwned >> "$2/link"', victim, ws))
  t.not(r.status, 0)
  t.equal(fs.readFileSync(victim, 'utf8'), 'host\n', 'the host file is unchanged')
  t.notOk(fs.existsSync(path.join(ws, 'link')))
  const control = unconfined(sh('ln "$1" "$2/link"', victim, ws))
  t.equal(control.status, 0, 'control: the link is made unconfined')
  fs.rmSync(path.join(ws, 'link'))
})

t.test('a clone of a workspace file outside it is refused', async (t) => {
  fs.writeFileSync(path.join(ws, 'src'), 'x')
  const r = confined('workspace-write', ['/bin/cp', '-c', path.join(ws, 'src'), path.join(outside, 'clone')])
  t.not(r.status, 0)
  t.notOk(fs.existsSync(path.join(outside, 'clone')))
  t.equal(unconfined(['/bin/cp', '-c', path.join(ws, 'src'), path.join(outside, 'clone')]).status, 0, 'control: cp -c works unconfined (APFS)')
})

t.test('the workspace root itself cannot be removed or replaced', async (t) => {
  const empty = path.join(base, 'empty-ws')
  fs.mkdirSync(empty)
  const c = provider.confine(sh('rmdir "$1"', empty), { mode: 'workspace-write', workspaceRoot: empty })
  const r = spawnSync(c.argv[0], c.argv.slice(1), { encoding: 'utf8' })
  t.not(r.status, 0)
  t.ok(fs.existsSync(empty), 'still there')
  t.equal(unconfined(sh('rmdir "$1"', empty)).status, 0, 'control: removed unconfined')
})

t.test('the temp directory itself cannot be moved', async (t) => {
  const r = confined('workspace-write', sh('mv "$TMPDIR" "$1/moved" && echo moved', ws))
  t.not(r.status, 0, r.stdout)
  t.notOk(fs.existsSync(path.join(ws, 'moved')))
  const other = fs.mkdtempSync(path.join(base, 'movable-'))
  t.equal(unconfined(sh('mv "$1" "$2/moved"', other, ws)).status, 0, 'control: a directory moves unconfined')
  fs.rmSync(path.join(ws, 'moved'), { recursive: true, force: true })
})

// TIOCSTI, 0x80017472 on macOS (_IOW('t', 114, char)), through perl so no
// compiler or python is needed; script(1) gives the command a terminal of
// its own as its controlling one.
const PUSH = 'open(my $t, "<", "/dev/tty") or die "no tty: $!\n"; print ioctl($t, 0x80017472, "#") ? "pushed\n" : "refused " . ($! + 0) . "\n"'
t.test('no input pushed into the controlling terminal (TIOCSTI)', async (t) => {
  const c = provider.confine(['/usr/bin/perl', '-e', PUSH], { mode: 'workspace-write', workspaceRoot: ws })
  const r = spawnSync('/usr/bin/script', ['-q', '/dev/null', ...c.argv], { encoding: 'utf8', input: '' })
  t.match(r.stdout, /refused 1\b/, `EPERM (${r.stdout.trim()} ${r.stderr.trim()})`)
  const control = spawnSync('/usr/bin/script', ['-q', '/dev/null', '/usr/bin/perl', '-e', PUSH], { encoding: 'utf8', input: '' })
  t.match(control.stdout, /pushed/, `control: unconfined it is pushed (${control.stdout.trim()})`)
})

t.test('no preference written through cfprefsd', async (t) => {
  const domain = `com.sandy-native.test.${process.pid}`
  t.teardown(() => spawnSync('/usr/bin/defaults', ['delete', domain]))
  confined('workspace-write', ['/usr/bin/defaults', 'write', domain, 'k', 'confined'])
  const read = spawnSync('/usr/bin/defaults', ['read', domain, 'k'], { encoding: 'utf8' })
  t.not(read.stdout.trim(), 'confined', 'the confined write did not land')
  t.equal(unconfined(['/usr/bin/defaults', 'write', domain, 'k', 'free']).status, 0, 'control: written unconfined')
  t.equal(spawnSync('/usr/bin/defaults', ['read', domain, 'k'], { encoding: 'utf8' }).stdout.trim(), 'free', 'and read back')
})

t.test('no job handed to launchd', async (t) => {
  const label = `com.sandy-native.test.${process.pid}`
  const marker = path.join(outside, 'launchd-ran')
  t.teardown(() => spawnSync('/bin/launchctl', ['remove', label]))
  confined('workspace-write', ['/bin/launchctl', 'submit', '-l', label, '--', '/usr/bin/touch', marker])
  await new Promise((resolve) => setTimeout(resolve, 2000))
  t.notOk(fs.existsSync(marker), 'the job did not run outside the sandbox')
  spawnSync('/bin/launchctl', ['remove', label])
  t.equal(unconfined(['/bin/launchctl', 'submit', '-l', label, '--', '/usr/bin/touch', marker]).status, 0, 'control: submitted unconfined')
  for (let i = 0; i < 50 && !fs.existsSync(marker); i++) await new Promise((resolve) => setTimeout(resolve, 100))
  t.ok(fs.existsSync(marker), 'and launchd ran it')
})

// The devices hdiutil attached from image, by `hdiutil info`.
function devicesOf (image) {
  const info = spawnSync('/usr/bin/hdiutil', ['info'], { encoding: 'utf8' }).stdout || ''
  return info.split(/^=+$/m).filter((block) => block.includes(`image-path      : ${image}`))
    .flatMap((block) => [...block.matchAll(/^(\/dev\/disk\d+)\s/gm)].map((m) => m[1]))
}

t.test('no disk image mounted over a host directory', async (t) => {
  const image = path.join(base, 'x.dmg')
  // (hdiutil create fails now and then on hosted runners: "Resource busy")
  let made
  for (let i = 0; i < 3 && !(made && made.status === 0); i++) {
    made = spawnSync('/usr/bin/hdiutil', ['create', '-size', '1m', '-fs', 'HFS+', '-volname', 'sandy', '-ov', image], { encoding: 'utf8' })
  }
  t.equal(made.status, 0, `(the image: ${made.stderr})`)
  const mnt = path.join(outside, 'mnt')
  fs.mkdirSync(mnt)
  const mounted = () => fs.statSync(mnt).dev !== fs.statSync(outside).dev
  const detach = () => devicesOf(image).forEach((d) => spawnSync('/usr/bin/hdiutil', ['detach', '-force', d]))
  t.teardown(detach)
  const r = confined('workspace-write', ['/usr/bin/hdiutil', 'attach', '-nobrowse', '-mountpoint', mnt, image])
  t.not(r.status, 0)
  t.notOk(mounted(), 'nothing mounted there')
  detach()
  const control = unconfined(['/usr/bin/hdiutil', 'attach', '-nobrowse', '-mountpoint', mnt, image])
  t.equal(control.status, 0, `control: attached unconfined (${control.stderr})`)
  t.ok(mounted(), 'over the directory')
  detach()
})

t.test('no launchd environment set for later programs', async (t) => {
  const name = `SANDY_NATIVE_TEST_${process.pid}`
  const get = () => spawnSync('/bin/launchctl', ['getenv', name], { encoding: 'utf8' }).stdout.trim()
  t.teardown(() => spawnSync('/bin/launchctl', ['unsetenv', name]))
  confined('workspace-write', ['/bin/launchctl', 'setenv', name, 'confined'])
  t.not(get(), 'confined', 'the confined setenv did not land')
  t.equal(unconfined(['/bin/launchctl', 'setenv', name, 'free']).status, 0, 'control: set unconfined')
  t.equal(get(), 'free', 'and read back')
})

t.test('no program opened through Launch Services', async (t) => {
  const running = () => spawnSync('/usr/bin/pgrep', ['-x', 'Calculator']).status === 0
  const quit = () => spawnSync('/usr/bin/pkill', ['-x', 'Calculator'])
  quit()
  t.teardown(quit)
  const r = confined('workspace-write', ['/usr/bin/open', '-g', '-a', 'Calculator'])
  await new Promise((resolve) => setTimeout(resolve, 2000))
  t.not(r.status, 0, r.stderr)
  t.notOk(running(), 'Calculator did not start')
  t.equal(unconfined(['/usr/bin/open', '-g', '-a', 'Calculator']).status, 0, 'control: opened unconfined')
  for (let i = 0; i < 50 && !running(); i++) await new Promise((resolve) => setTimeout(resolve, 100))
  t.ok(running(), 'and running')
})

// What the profile closes beyond files, asked by a small program of the
// fixtures (test/fixtures/darwin-peek.c), built here with the system's cc.
const peekBin = path.join(base, 'darwin-peek')
const built = spawnSync('/usr/bin/cc', ['-o', peekBin, path.join(__dirname, '..', 'fixtures', 'darwin-peek.c')], { encoding: 'utf8' })
const peek = (confine, ...args) => (confine ? confined('workspace-write', [peekBin, ...args]) : unconfined([peekBin, ...args])).stdout.trim()

t.test('another process\'s environment and information stay its own', async (t) => {
  t.equal(built.status, 0, `the probe program builds (${built.stderr})`)
  const host = require('node:child_process').spawn('/bin/sleep', ['30'], { env: { SANDY_PEEK_SECRET: 'token' }, stdio: 'ignore' })
  t.teardown(() => host.kill())
  const pid = String(host.pid)
  t.equal(peek(true, 'env', pid, 'SANDY_PEEK_SECRET'), 'refused 1', 'its environment is refused (KERN_PROCARGS2)')
  t.equal(peek(false, 'env', pid, 'SANDY_PEEK_SECRET'), 'yes', 'control: read unconfined')
  t.match(peek(true, 'info', pid), /^refused /, 'proc_pidinfo of it is refused')
  t.equal(peek(false, 'info', pid), 'yes', 'control: answered unconfined')
})

t.test('kernel state by listed sysctl names only; no shared memory segment', async (t) => {
  t.equal(peek(true, 'sysctl', 'hw.ncpu'), 'yes', 'a listed name is read')
  t.match(peek(true, 'sysctl', 'kern.maxvnodes'), /^refused /, 'an unlisted one is refused')
  t.equal(peek(false, 'sysctl', 'kern.maxvnodes'), 'yes', 'control: read unconfined')
  const name = `/sandy-${process.pid}`
  t.match(peek(true, 'shm', name), /^refused /, 'POSIX shared memory is refused')
  t.equal(peek(false, 'shm', name), 'yes', 'control: created (and removed) unconfined')
})

t.test('ioctls only on the listed devices and the terminal the command was given', async (t) => {
  const file = path.join(ws, 'plain')
  fs.writeFileSync(file, 'x')
  t.match(peek(true, 'ioctl', file), /^refused /, 'FIONREAD on a file is refused')
  t.equal(peek(false, 'ioctl', file), 'yes', 'control: answered unconfined')
  t.equal(peek(true, 'ioctl', '/dev/null'), 'yes', 'on /dev/null it is answered')
  // its own terminal, as script(1) gives one: tcsetattr works
  const c = provider.confine(['/bin/stty', 'raw', '-echo'], { mode: 'workspace-write', workspaceRoot: ws })
  const r = spawnSync('/usr/bin/script', ['-q', '/dev/null', ...c.argv], { encoding: 'utf8', input: '' })
  t.equal(r.status, 0, `stty on its own terminal (${r.stdout.trim()} ${r.stderr.trim()})`)
})

t.test('no other terminal opened by its name', async (t) => {
  // a terminal of this user's that the command was not given: script(1)
  // holds one while its child sleeps
  const holder = require('node:child_process').spawn('/usr/bin/script', ['-q', '/dev/null', '/bin/sh', '-c', 'tty; sleep 30'], { stdio: ['pipe', 'pipe', 'ignore'] })
  t.teardown(() => holder.kill())
  const name = await new Promise((resolve) => holder.stdout.once('data', (d) => resolve(d.toString().trim().split(/\s+/).pop())))
  t.match(name, /^\/dev\/ttys\d+$/, `(the other terminal: ${name})`)
  t.match(peek(true, 'open', name), /^refused /, 'not opened confined')
  t.equal(peek(false, 'open', name), 'yes', 'control: opened unconfined')
})

t.test('the clipboard is out of reach', async (t) => {
  const saved = spawnSync('/usr/bin/pbpaste', [], { encoding: 'utf8' }).stdout
  t.teardown(() => spawnSync('/usr/bin/pbcopy', [], { input: saved }))
  const r = confined('workspace-write', sh('printf planted | /usr/bin/pbcopy'))
  t.not(spawnSync('/usr/bin/pbpaste', [], { encoding: 'utf8' }).stdout, 'planted', `nothing planted (${r.stderr.trim()})`)
  t.equal(spawnSync('/usr/bin/pbcopy', [], { input: 'free' }).status, 0, 'control: copied unconfined')
  t.equal(spawnSync('/usr/bin/pbpaste', [], { encoding: 'utf8' }).stdout, 'free', 'and pasted back')
})

t.test('a directory above a protected file in the workspace cannot be renamed to read it', async (t) => {
  const cfg = path.join(ws, 'cfg')
  fs.mkdirSync(cfg, { recursive: true })
  fs.writeFileSync(path.join(cfg, 'secret'), 'token\n')
  t.teardown(() => fs.rmSync(path.join(ws, 'cfg'), { recursive: true, force: true }))
  const guarded = createLocalSandboxProvider({ denyRead: [path.join(cfg, 'secret')] })
  const c = guarded.confine(sh('mv "$1/cfg" "$1/moved" && cat "$1/moved/secret"; mv "$1/moved" "$1/cfg" 2>/dev/null; exit 0', ws), { mode: 'workspace-write', workspaceRoot: ws })
  const r = spawnSync(c.argv[0], c.argv.slice(1), { encoding: 'utf8', cwd: ws })
  t.notMatch(r.stdout, /token/, `the secret was not read (${r.stderr.trim()})`)
  t.ok(fs.existsSync(path.join(cfg, 'secret')), 'and the directory was not moved')
  const control = unconfined(sh('mv "$1/cfg" "$1/moved" && cat "$1/moved/secret"; mv "$1/moved" "$1/cfg"', ws))
  t.match(control.stdout, /token/, 'control: unconfined the rename reads it')
})

t.test('a missing protected name cannot be made in another letter case', async (t) => {
  const repoDir = path.join(ws, 'caserepo')
  t.teardown(() => fs.rmSync(repoDir, { recursive: true, force: true }))
  t.equal(spawnSync('/usr/bin/git', ['init', '-q', repoDir]).status, 0, '(a repository whose commondir is missing)')
  fs.writeFileSync(path.join(repoDir, 'probe'), '')
  const ignoresCase = fs.existsSync(path.join(repoDir, 'PROBE'))
  fs.rmSync(path.join(repoDir, 'probe'))
  const made = confined('workspace-write', sh('echo x > "$1/.git/COMMONDIR"', repoDir))
  const there = fs.readdirSync(path.join(repoDir, '.git')).some((n) => n.toLowerCase() === 'commondir')
  if (ignoresCase) t.notOk(there, `refused on this volume, which ignores case (${made.stderr.trim()})`)
  else t.pass('this volume tells case apart: COMMONDIR is another name')
  fs.rmSync(path.join(repoDir, '.git', 'COMMONDIR'), { force: true })
  t.equal(unconfined(sh('echo x > "$1/.git/COMMONDIR"', repoDir)).status, 0, 'control: made unconfined')
})

t.test('the probe\'s check inside this workspace held', async (t) => {
  t.notOk(provider.probe({ workspaceRoot: ws }).warnings.some((w) => /seatbelt/.test(w)), 'no warning for the workspace')
})

t.test('signals reach only the sandbox', async (t) => {
  const r = confined('workspace-write', sh('kill -0 "$1"', String(process.pid)))
  t.not(r.status, 0, 'the caller cannot be signalled from inside')
  t.equal(unconfined(sh('kill -0 "$1"', String(process.pid))).status, 0, 'control: it can unconfined')
  const own = confined('workspace-write', sh('sleep 5 & kill $!'))
  t.equal(own.status, 0, `its own children can (${own.stderr})`)
})

t.test('a missing command is the shell\'s 127, ordinary; sandbox-exec\'s own refusal is a runner failure', async (t) => {
  const m = confined('read-only', ['sandy-no-such-command'])
  t.equal(m.status, 127)
  t.equal(m.kind, 'ordinary')
  // nested: sandbox_apply is refused inside a sandbox. The same line and
  // status from a command that runs sandbox-exec itself: THREAT_MODEL.md,
  // the Seatbelt runner rule (a documented limit).
  const nested = confined('read-only', ['/usr/bin/sandbox-exec', '-p', '(version 1)(allow default)', '/usr/bin/true'])
  t.equal(nested.status, 71, nested.stderr)
  t.match(nested.stderr, /^sandbox-exec: /m)
  t.equal(nested.kind, 'runner-failure')
})
