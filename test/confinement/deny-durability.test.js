'use strict'
// A deny holds for the command's whole life, even while the host edits
// the denied path (issue 30, docs/deny-durability.md). Each case runs a
// confined loop that tries the denied names once a round and then waits
// for a line on its stdin (no sleeps): after its first round the host
// replaces a denied name the way editors, git and npm do (a temporary file
// renamed over it; a directory removed and made again; a directory above
// it moved aside and made again). Where the view holds the deny with a
// mount (the sandy backend's full level, the bubblewrap guard), the outer
// process sees the change and ends the run with its fatal line, naming the
// deny by its index; the test then finds that the loop never ran another
// round and that the host's new objects hold only what the host wrote. At
// the Landlock-only level the new object at the name has no rule: the run
// goes on, and the next round is still denied. Each case has its
// unconfined control, the same loop and the same replacement, whose next
// round reads the new secret or writes the host's file. As root and as
// uid 65534.
const t = require('tap')
const fs = require('node:fs')
const path = require('node:path')
const { spawn, spawnSync, execFileSync } = require('node:child_process')
const { users, backendsFor, withSanitizerEnv, describe, confine } = require('../helpers/sandbox.js')
const { confineAs } = require('../helpers/seam-run.js')
const { patience } = require('../helpers/patience.js')
const { SandboxPolicy, classifyExit } = require('../..')

// Outside /tmp: workspace-write gives the command a private one.
const base = fs.realpathSync(fs.mkdtempSync('/var/tmp/sandy-durable-'))
fs.chmodSync(base, 0o755)
t.teardown(() => fs.rmSync(base, { recursive: true, force: true }))
// (the coverage build's streams, when the suite runs against it,
// test/meta/c-coverage.test.js)
const ENV = { PATH: '/usr/bin:/bin', LANG: 'C', LC_ALL: 'C', ...(process.env.SANDY_COVERAGE_DIR ? { SANDY_COVERAGE_DIR: process.env.SANDY_COVERAGE_DIR } : {}) }
let serial = 0

// What the workspace holds before each run.
const FILES = {
  'secret.txt': 'old-secret\n',
  'settings.json': '{}\n',
  'creds/token': 'old-token\n',
  'vendor/lib.js': 'old-lib\n',
  'deep/er/key': 'old-key\n',
  'notes.txt': 'notes\n'
}

function chown (p, user) {
  spawnSync('chown', ['-R', `${user.uid}:${user.gid}`, p])
}

function world (user) {
  const ws = path.join(base, `w${serial++}-${user.uid}`)
  for (const [f, text] of Object.entries(FILES)) {
    fs.mkdirSync(path.dirname(path.join(ws, f)), { recursive: true })
    fs.writeFileSync(path.join(ws, f), text)
  }
  chown(ws, user)
  return ws
}

// The host's save of a file: a temporary file of the user's, renamed over
// the name.
function save (ws, user, name, text) {
  const tmp = path.join(ws, `.${path.basename(name)}.saving`)
  fs.writeFileSync(tmp, text)
  chown(tmp, user)
  fs.renameSync(tmp, path.join(ws, name))
}

// The host's rm -r + mkdir of a directory, with one file in it.
function remake (ws, user, dir, file, text) {
  fs.rmSync(path.join(ws, dir), { recursive: true })
  fs.mkdirSync(path.join(ws, dir))
  fs.writeFileSync(path.join(ws, dir, file), text)
  chown(path.join(ws, dir), user)
}

// One round's tries: each read prints what it got or "denied", each write
// "ok" or "denied".
const tryRead = (f) => `if v=$(cat ${f} 2>&1); then echo "read ${f}: $v"; else echo "read ${f}: denied, $v"; fi`
const tryWrite = (f) => `if e=$( (echo "pwn-$i" > ${f}) 2>&1); then echo "write ${f}: ok"; else echo "write ${f}: denied, $e"; fi`
// A try the sandbox refused, not one that failed for another reason.
const REFUSED = /denied, .*(Permission denied|Read-only file system|Device or resource busy)/
// Rounds until stdin says stop (or ends).
const loop = (tries) => ['/bin/sh', '-c', `i=0; while :; do i=$((i+1)); ${tries.join('; ')}; echo "round $i"; read x || exit 0; [ "$x" = stop ] && exit 0; done`]

// Runs argv as user; after round k the host does steps[k - 1](). A run
// that ends at the last step is waited for; one that does not (its deny
// was not watched) gets its next line once patience says it would have
// ended by now (the bound only decides how soon a failing case fails),
// runs one more round, and is stopped. wait: false sends every line at
// once (a run expected to go on); stopAfter: k sends stop after step k
// (the command ends there).
function rounds (user, argv, cwd, steps, { wait = true, stopAfter = 0 } = {}) {
  const full = [...user.wrap, ...argv]
  return new Promise((resolve, reject) => {
    const child = spawn(full[0], full.slice(1), { cwd, env: withSanitizerEnv(ENV), stdio: ['pipe', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    let done = 0
    let timer = null
    child.stdin.on('error', () => {})
    child.stdout.on('data', (d) => {
      stdout += d
      while (stdout.includes(`round ${done + 1}\n`)) {
        done++
        if (done > steps.length) {
          child.stdin.end('stop\n')
          break
        }
        steps[done - 1]()
        if (done === stopAfter) child.stdin.end('stop\n')
        else if (wait && done === steps.length) timer = setTimeout(() => child.stdin.write('go\n'), patience(30000))
        else child.stdin.write('go\n')
      }
    })
    child.stderr.on('data', (d) => { stderr += d })
    child.on('error', reject)
    child.on('close', (code, signal) => {
      clearTimeout(timer)
      resolve({ code, signal, stdout, stderr })
    })
  })
}
const race = (user, argv, cwd, replace, options) => rounds(user, argv, cwd, [replace], options)

// The fatal line of a run the outer process ended for deny section[index].
const ENDED = (section, index) => new RegExp(`fatal: EnforcementFailed: a denied name was replaced during the run, ${section}\\[${index}\\]: the run was ended \\[run [0-9a-f]+\\]`)

// The replacements, each with the loop's tries, which the host's change
// lifts for the unconfined control's round 2, and what the host's new
// objects must hold afterwards.
const CASES = [
  {
    name: 'a write-denied file saved by a rename over it',
    deny: ['deny_write_exact', 0],
    tries: [tryWrite('settings.json')],
    replace: (ws, user) => save(ws, user, 'settings.json', '{"host":1}\n'),
    leaked: /write settings\.json: ok[\s\S]*round 2/,
    host: { 'settings.json': '{"host":1}\n' }
  },
  {
    // (in a directory the command may write, the name's going is enough:
    // the command could make its own file there, for the host to read)
    name: 'a write-denied file removed from a writable directory',
    deny: ['deny_write_exact', 0],
    tries: [tryWrite('settings.json')],
    replace: (ws) => fs.rmSync(path.join(ws, 'settings.json')),
    leaked: /write settings\.json: ok[\s\S]*round 2/,
    host: { 'settings.json': null }
  },
  {
    name: 'an all-denied file saved by a rename over it',
    deny: ['deny_subtrees', 0],
    tries: [tryRead('secret.txt'), tryWrite('secret.txt')],
    replace: (ws, user) => save(ws, user, 'secret.txt', 'NEW-SECRET\n'),
    leaked: /read secret\.txt: NEW-SECRET/,
    host: { 'secret.txt': 'NEW-SECRET\n' }
  },
  {
    name: 'an all-denied directory removed and made again',
    deny: ['deny_subtrees', 1],
    tries: [tryRead('creds/token'), tryWrite('creds/token')],
    replace: (ws, user) => remake(ws, user, 'creds', 'token', 'NEW-TOKEN\n'),
    leaked: /read creds\/token: NEW-TOKEN/,
    host: { 'creds/token': 'NEW-TOKEN\n' }
  },
  {
    name: 'a write-denied directory removed and made again',
    deny: ['deny_write_exact', 1],
    tries: [tryWrite('vendor/lib.js'), tryWrite('vendor/planted.js')],
    replace: (ws, user) => remake(ws, user, 'vendor', 'lib.js', 'host-lib\n'),
    leaked: /write vendor\/lib\.js: ok[\s\S]*round 2/,
    host: { 'vendor/lib.js': 'host-lib\n', 'vendor/planted.js': null }
  },
  {
    name: 'a directory above a denied file moved aside and made again',
    deny: ['deny_subtrees', 2],
    tries: [tryRead('deep/er/key')],
    replace: (ws, user) => {
      fs.renameSync(path.join(ws, 'deep'), path.join(ws, 'deep-old'))
      fs.mkdirSync(path.join(ws, 'deep/er'), { recursive: true })
      fs.writeFileSync(path.join(ws, 'deep/er/key'), 'NEW-KEY\n')
      chown(path.join(ws, 'deep'), user)
    },
    leaked: /read deep\/er\/key: NEW-KEY/,
    host: { 'deep/er/key': 'NEW-KEY\n' }
  }
]

const policyFor = (ws) => new SandboxPolicy('block_all').allowSubprocesses()
  .grant('/usr', 'read', 'subtree').allowExecute('/usr', 'subtree')
  .grant('/dev/null', 'read_write', 'exact').grant(ws, 'read_write', 'subtree')
  .denySubtree(path.join(ws, 'secret.txt')).denySubtree(path.join(ws, 'creds')).denySubtree(path.join(ws, 'deep/er/key'))
  .denyWriteExact(path.join(ws, 'settings.json')).denyWriteExact(path.join(ws, 'vendor'))

function checkHost (t, ws, host) {
  for (const [f, text] of Object.entries(host)) {
    if (text === null) t.notOk(fs.existsSync(path.join(ws, f)), `the host has no ${f}`)
    else t.equal(fs.readFileSync(path.join(ws, f), 'utf8'), text, `the host's ${f} holds only what the host wrote`)
  }
}

for (const user of users()) {
  // (a Sandy policy runs under the sandy backend alone)
  if (backendsFor(t, user, ['sandy']).length === 0) continue
  for (const c of CASES) {
    t.test(`${c.name}: the run ends [${user.name}]`, async (t) => {
      const ws = world(user)
      const confined = confine(loop(c.tries), policyFor(ws), ws)
      const r = await race(user, confined.argv, ws, () => c.replace(ws, user))
      t.match(r.stdout, /round 1\n/, `round 1 ran (${describe(r)})`)
      t.notMatch(r.stdout, /round 2/, 'no round ran after the replacement')
      t.notMatch(r.stdout, c.leaked, 'nothing of the new object was reached')
      for (const line of r.stdout.split('\n').filter((l) => /^(read|write) /.test(l))) t.match(line, REFUSED, `round 1 was refused by the sandbox: ${line}`)
      t.equal(r.code, 125, 'the launcher ended the run with its fatal status')
      t.match(r.stderr, ENDED(...c.deny), 'its fatal line names the deny by index, never by path')
      t.notMatch(r.stderr, new RegExp(ws), 'and no path')
      t.equal(classifyExit(confined, r).kind, 'runner-failure', 'the seam calls it a runner failure')
      checkHost(t, ws, c.host)

      const control = world(user)
      const u = await race(user, loop(c.tries), control, () => c.replace(control, user), { wait: false })
      t.match(u.stdout, c.leaked, `unconfined, round 2 reaches the new object (${describe(u)})`)
      t.equal(u.code, 0)
    })
  }

  t.test(`the host's edits beside the denied names leave the run alone [${user.name}]`, async (t) => {
    const ws = world(user)
    const tries = [tryRead('secret.txt'), tryRead('creds/token'), tryWrite('settings.json'), tryWrite('vendor/lib.js'), tryRead('deep/er/key'), tryRead('notes.txt')]
    const confined = confine(loop(tries), policyFor(ws), ws)
    const edits = () => {
      save(ws, user, 'notes.txt', 'new notes\n')
      fs.writeFileSync(path.join(ws, 'secret.txt'), 'edited in place\n')
      fs.writeFileSync(path.join(ws, 'creds', 'more'), 'x\n')
      fs.mkdirSync(path.join(ws, 'deep', 'other'))
      fs.rmSync(path.join(ws, 'deep', 'other'), { recursive: true })
      fs.writeFileSync(path.join(ws, 'vendor', 'added.js'), 'x\n')
    }
    const r = await race(user, confined.argv, ws, edits, { wait: false })
    t.equal(r.code, 0, `the run went on to its end (${describe(r)})`)
    t.match(r.stdout, /round 2\n/)
    const second = r.stdout.slice(r.stdout.indexOf('round 1\n'))
    for (const f of ['secret.txt', 'creds/token', 'deep/er/key']) t.match(second, new RegExp(`read ${f}: denied, .*Permission denied`), `round 2: ${f} still denied`)
    for (const f of ['settings.json', 'vendor/lib.js']) t.match(second, new RegExp(`write ${f}: denied, .*Read-only file system`), `round 2: ${f} still read-only`)
    t.match(second, /read notes\.txt: new notes/, 'round 2 reads the host\'s new notes')
    t.equal(fs.readFileSync(path.join(ws, 'settings.json'), 'utf8'), '{}\n')
  })
}

// A command that floods the watched directories with events (renames, as
// fast as perl makes them, in every directory on the way to a deny) must
// not keep the outer process from acting on the host's replacement: the
// run ends, with the fatal line (the replacement, or events lost, which
// the flood alone may bring about before the replacement).
const FLOODED = 'abcdefghijklmnopqrstuvwx'.split('')
const floodPolicy = (ws) => FLOODED.reduce((p, d) => p.denySubtree(path.join(ws, d, 'secret')), new SandboxPolicy('block_all').allowSubprocesses()
  .grant('/usr', 'read', 'subtree').allowExecute('/usr', 'subtree')
  .grant('/dev/null', 'read_write', 'exact').grant(ws, 'read_write', 'subtree'))
const FLOOD = FLOODED.map((d) => `/usr/bin/perl -e 'open(my $f, ">", "${d}/x"); while (1) { rename("${d}/x", "${d}/y"); rename("${d}/y", "${d}/x") }' &`).join(' ')

for (const user of users()) {
  if (backendsFor(t, user, ['sandy']).length === 0) continue
  t.test(`a command flooding the watched directories with events cannot hold the watch off [${user.name}]`, async (t) => {
    const ws = world(user)
    for (const d of FLOODED) {
      fs.mkdirSync(path.join(ws, d))
      fs.writeFileSync(path.join(ws, d, 'secret'), 'old-secret\n')
    }
    chown(ws, user)
    // (round 1 once every flooder has made its file)
    const started = FLOODED.map((d) => `{ [ -e ${d}/x ] || [ -e ${d}/y ]; }`).join(' && ')
    const argv = ['/bin/sh', '-c', `${FLOOD} until ${started}; do :; done; ${loop([tryRead('a/secret')])[2]}`]
    const r = await race(user, confine(argv, floodPolicy(ws), ws).argv, ws, () => save(ws, user, 'a/secret', 'NEW-SECRET\n'))
    // (the flood alone may end it first: more events than are read)
    t.notMatch(r.stdout, /round 2|NEW-SECRET/, `no round ran after the replacement (${describe(r)})`)
    t.equal(r.code, 125)
    t.match(r.stderr, /fatal: EnforcementFailed: (a denied name was replaced during the run, deny_subtrees\[0\]|a watched directory was moved, or its events were lost): the run was ended/)
  })
}

// Outside what the command may write, a denied name the host only
// removes is no way in (the command cannot make its own there): the run
// goes on, and ends when an object comes to the name again.
function roWorld (user) {
  const top = world(user)
  fs.mkdirSync(path.join(top, 'ro'))
  fs.writeFileSync(path.join(top, 'ro', 'secret'), 'old-secret\n')
  chown(top, user)
  return top
}
const roPolicy = (top) => new SandboxPolicy('block_all').allowSubprocesses()
  .grant('/usr', 'read', 'subtree').allowExecute('/usr', 'subtree')
  .grant('/dev/null', 'read_write', 'exact').grant(path.join(top, 'ro'), 'read', 'subtree')
  .grant(top, 'read', 'exact').denySubtree(path.join(top, 'ro', 'secret'))

for (const user of users()) {
  if (backendsFor(t, user, ['sandy']).length === 0) continue
  t.test(`in a read-only grant, a denied file removed leaves the run alone, one made again ends it [${user.name}]`, async (t) => {
    const top = roWorld(user)
    const tries = [tryRead('ro/secret')]
    const remove = (dir) => () => fs.rmSync(path.join(dir, 'ro', 'secret'))
    const remake = (dir) => () => { fs.writeFileSync(path.join(dir, 'ro', 'secret'), 'NEW-SECRET\n') }
    const r = await rounds(user, confine(loop(tries), roPolicy(top), top).argv, top, [remove(top), remake(top)])
    t.match(r.stdout, /round 2\n/, `the removal left the run going (${describe(r)})`)
    t.match(r.stdout, /read ro\/secret: denied, .*No such file or directory\nround 2/, 'round 2 found no file')
    t.notMatch(r.stdout, /round 3|NEW-SECRET/, 'the file made again ended the run before round 3')
    t.equal(r.code, 125)
    t.match(r.stderr, ENDED('deny_subtrees', 0))

    const control = roWorld(user)
    const u = await rounds(user, loop(tries), control, [remove(control), remake(control)], { wait: false })
    t.match(u.stdout, /read ro\/secret: NEW-SECRET/, `unconfined, round 3 reads the new file (${describe(u)})`)
  })
}

// What the inner supervisor's look at the mounts does alone, with the
// watch switched off (csrc/Makefile's unwatched build): a replacement no
// event reports (a file system that revalidates names, or the moment
// between the host's change and its event) still ends the run at the next
// look, and a command that ends right after it still fails the run.
let unwatched = null
function unwatchedBuild () {
  if (unwatched === null) {
    const out = fs.mkdtempSync('/var/tmp/sandy-unwatched-')
    fs.chmodSync(out, 0o755)
    t.teardown(() => fs.rmSync(out, { recursive: true, force: true }))
    execFileSync('make', ['-s', '--no-print-directory', '-C', path.join(__dirname, '..', '..', 'csrc'), 'unwatched', `O=${out}`], { stdio: ['ignore', 'ignore', 'inherit'] })
    unwatched = path.join(out, 'sandy-launcher-unwatched')
  }
  return unwatched
}
// (the build in the launcher's place, as test/helpers/launcher-override.js
// puts one)
const onBuild = (argv, build) => path.basename(argv[0]).startsWith('sandy-launcher') ? [build, ...argv.slice(1)] : argv

for (const user of users()) {
  for (const backend of backendsFor(t, user, ['sandy', 'bwrap'])) {
    t.test(`without the watch, the init's look at the mounts ends the run, under ${backend} [${user.name}]`, async (t) => {
      const build = unwatchedBuild()
      // (the third keeps signalling the init, which passes each signal on:
      // its looks must come all the same)
      const storm = ['/bin/sh', '-c', `trap '' USR1; while :; do kill -USR1 1; done & ${loop([tryRead('secret.txt')])[2]}`]
      const cases = [['a replacement', true, loop([tryRead('secret.txt')])], ['a command that ends right after one', false, loop([tryRead('secret.txt')])],
        ['a replacement while the command keeps signalling the init', true, storm]]
      for (const [what, goesOn, argv] of cases) {
        const ws = seamWorld(user)
        const c = confineAs(user, { HOME: '/nonexistent' }, { backend, protect: [], denyRead: [path.join(ws, 'secret.txt')] }, argv, { mode: 'workspace-write', workspaceRoot: ws })
        t.notOk(c.error, `confined (${c.error && c.error.message})`)
        const replace = () => save(ws, user, 'secret.txt', 'NEW-SECRET\n')
        // (ended at once: the stop line follows the replacement)
        const r = goesOn
          ? await race(user, onBuild(c.argv, build), ws, replace)
          : await rounds(user, onBuild(c.argv, build), ws, [() => { replace(); }], { wait: false, stopAfter: 1 })
        t.match(r.stdout, /round 1\n/, `${what}: round 1 ran (${describe(r)})`)
        t.notMatch(r.stdout, /NEW-SECRET/, `${what}: the new secret was not read`)
        t.equal(r.code, 125, `${what}: the run failed`)
        t.match(r.stderr, /fatal: EnforcementFailed: a denied name was replaced during the run, deny_(subtrees|reads)\[\d+\]: the run was ended/, `${what}: naming the deny`)
      }
    })
  }
}

// A command that makes a directory on the way unsearchable (its own, in
// the workspace), working from beneath it, does not blind the look: what
// the look can no longer search counts as gone, so the run ends, at the
// host's replacement or at the first look after the chmod, whichever
// comes first (round 1 may not even print).
for (const user of users()) {
  if (backendsFor(t, user, ['sandy']).length === 0) continue
  t.test(`a directory on the way made unsearchable does not blind the init's look [${user.name}]`, async (t) => {
    const ws = world(user)
    const argv = ['/bin/sh', '-c', `cd deep/er && chmod 000 .. && ${loop([tryRead('key')])[2]}`]
    const r = await race(user, onBuild(confine(argv, policyFor(ws), ws).argv, unwatchedBuild()), ws, () => {
      fs.writeFileSync(path.join(ws, 'deep/er/.key.saving'), 'NEW-KEY\n')
      fs.renameSync(path.join(ws, 'deep/er/.key.saving'), path.join(ws, 'deep/er/key'))
    })
    fs.chmodSync(path.join(ws, 'deep'), 0o755)
    t.notMatch(r.stdout, /NEW-KEY|round 2|read key: (?!denied)/, `the new key was not read (${describe(r)})`)
    t.equal(r.code, 125)
    t.match(r.stderr, ENDED('deny_subtrees', 2))

    const control = world(user)
    const u = await race(user, argv, control, () => save(control, user, 'deep/er/key', 'NEW-KEY\n'), { wait: false })
    fs.chmodSync(path.join(control, 'deep'), 0o755)
    t.match(u.stdout, /read key: NEW-KEY/, `unconfined, round 2 reads the new key from beneath the directory (${describe(u)})`)
  })
}

// A directory on the way that another uid owns and this one cannot read
// (a colleague's shared tree at 0711) takes no watch; the directory below
// it then answers for its own move. Its owner (here root) moves the
// command's project aside and makes another with a new secret.
for (const user of users()) {
  if (user.uid === 0 || backendsFor(t, user, ['sandy']).length === 0) continue
  t.test(`a project moved aside in another uid's unreadable directory ends the run [${user.name}]`, async (t) => {
    const make = () => {
      const top = path.join(base, `shared${serial++}`)
      fs.mkdirSync(path.join(top, 'shared', 'proj'), { recursive: true })
      fs.writeFileSync(path.join(top, 'shared', 'proj', '.env'), 'old-secret\n')
      chown(path.join(top, 'shared', 'proj'), user)
      fs.chmodSync(top, 0o755)
      fs.chownSync(path.join(top, 'shared'), 4242, 4242)
      fs.chmodSync(path.join(top, 'shared'), 0o711)
      return top
    }
    const move = (top) => () => {
      fs.renameSync(path.join(top, 'shared', 'proj'), path.join(top, 'shared', 'proj.old'))
      fs.mkdirSync(path.join(top, 'shared', 'proj'))
      fs.writeFileSync(path.join(top, 'shared', 'proj', '.env'), 'NEW-SECRET\n')
      chown(path.join(top, 'shared', 'proj'), user)
    }
    const top = make()
    const proj = path.join(top, 'shared', 'proj')
    const policy = new SandboxPolicy('block_all').allowSubprocesses()
      .grant('/usr', 'read', 'subtree').allowExecute('/usr', 'subtree')
      .grant('/dev/null', 'read_write', 'exact').grant(top, 'read', 'subtree')
      .grant(proj, 'read_write', 'subtree').denySubtree(path.join(proj, '.env'))
    const argv = loop([tryRead(path.join(proj, '.env'))])
    const r = await race(user, confine(argv, policy, proj).argv, proj, move(top))
    t.match(r.stdout, /round 1\n/, `round 1 ran (${describe(r)})`)
    t.notMatch(r.stdout, /NEW-SECRET|round 2/, 'the new secret was not read')
    t.equal(r.code, 125)
    t.match(r.stderr, ENDED('deny_subtrees', 0))

    const control = make()
    const u = await race(user, loop([tryRead(path.join(control, 'shared', 'proj', '.env'))]), path.join(control, 'shared'), move(control), { wait: false })
    t.match(u.stdout, /NEW-SECRET/, `unconfined, round 2 reads the new secret (${describe(u)})`)
  })
}

// The seam's protections: a protected read (denyRead) and, in
// workspace-write, git's config (a protected write), on each Linux
// backend (the Landlock-only level too: a new object at a denied name
// has no rule there, but one that existed at launch keeps its own).
function seamWorld (user) {
  const ws = world(user)
  const r = spawnSync('git', ['init', '-q', ws], { env: ENV })
  if (r.status !== 0) throw new Error(`git init: ${r.stderr}`)
  chown(ws, user)
  return ws
}

const SEAM = [
  {
    name: 'a protected read saved by a rename over it',
    tries: [tryRead('secret.txt')],
    replace: (ws, user) => save(ws, user, 'secret.txt', 'NEW-SECRET\n'),
    leaked: /read secret\.txt: NEW-SECRET/,
    deny: { sandy: ['deny_subtrees', '\\d+'], bwrap: ['deny_reads', 0], landlock: ['deny_subtrees', '\\d+'] },
    host: { 'secret.txt': 'NEW-SECRET\n' }
  },
  {
    // (at the Landlock-only level the file moved there keeps the rules it
    // had at launch: a new object at the name would have none)
    name: 'a file present at launch moved onto a protected read',
    tries: [tryRead('secret.txt')],
    replace: (ws, user) => {
      fs.renameSync(path.join(ws, 'notes.txt'), path.join(ws, 'secret.txt'))
      fs.writeFileSync(path.join(ws, 'secret.txt'), 'NEW-SECRET\n')
    },
    leaked: /read secret\.txt: NEW-SECRET/,
    deny: { sandy: ['deny_subtrees', '\\d+'], bwrap: ['deny_reads', 0], landlock: ['deny_subtrees', '\\d+'] },
    host: { 'secret.txt': 'NEW-SECRET\n' }
  },
  {
    name: "git's config saved by a rename over it",
    tries: [tryWrite('.git/config')],
    replace: (ws, user) => save(ws, user, '.git/config', '[core]\n\tbare = false\n'),
    leaked: /write \.git\/config: ok[\s\S]*round 2/,
    deny: { sandy: ['deny_write_exact', '\\d+'], bwrap: ['protect', '\\d+'] },
    host: { '.git/config': '[core]\n\tbare = false\n' },
    // (the Landlock-only level does not keep protected writes: its
    // verdict says so, docs/protected-writes.md)
    backends: ['sandy', 'bwrap']
  }
]

for (const user of users()) {
  for (const backend of backendsFor(t, user, ['sandy', 'bwrap', 'landlock'])) {
    for (const c of SEAM) {
      if (c.backends && !c.backends.includes(backend)) continue
      t.test(`${c.name}: the run ends, under ${backend} [${user.name}]`, async (t) => {
        const ws = seamWorld(user)
        const confined = confineAs(user, { HOME: '/nonexistent' }, { backend, protect: [], denyRead: [path.join(ws, 'secret.txt')] }, loop(c.tries), { mode: 'workspace-write', workspaceRoot: ws })
        t.notOk(confined.error, `confined (${confined.error && confined.error.message})`)
        const r = await race(user, confined.argv, ws, () => c.replace(ws, user))
        t.match(r.stdout, /round 1\n/, `round 1 ran (${describe(r)})`)
        t.notMatch(r.stdout, c.leaked, 'nothing of the new object was reached')
        t.notMatch(r.stdout, /round 2/, 'no round ran after the replacement')
        t.equal(r.code, 125)
        t.match(r.stderr, ENDED(...c.deny[backend]), 'the fatal line names the deny by index')
        checkHost(t, ws, c.host)

        const control = seamWorld(user)
        const u = await race(user, loop(c.tries), control, () => c.replace(control, user), { wait: false })
        t.match(u.stdout, c.leaked, `unconfined, round 2 reaches the new object (${describe(u)})`)
        t.match(r.stdout.slice(r.stdout.indexOf('round 1\n')), /round 1\n$/, 'while the confined run ended after round 1')
      })
    }
  }
}

// The last close of the watch's inotify instance waits for the kernel to
// free its watches (an SRCU grace period: up to 20 ms when launches follow
// each other), and the caller waits for the launcher's exit. The launcher
// registers the instance as the one file of an io_uring that it closes at
// once, so that the ring's teardown in a kernel worker makes the last
// close (watch.c, step 5), and no process of ours outlives the launcher
// (escape-processes.test.js holds every one of them to that). strace
// shows the process that made the instance hand it over.
// (at 1 only a process with CAP_SYS_ADMIN in the host's user namespace,
// or of io_uring_group, may: the outer process of sandy and bwrap is in a
// user namespace of its own, and landlock never runs as root)
const ioUringRefused = () => {
  let disabled = 0
  try { disabled = Number(fs.readFileSync('/proc/sys/kernel/io_uring_disabled', 'utf8')) } catch {}
  return disabled !== 0
}

for (const user of users()) {
  for (const backend of backendsFor(t, user, ['sandy', 'bwrap', 'landlock'])) {
    t.test(`the watch's last close is left to the kernel [${backend}, ${user.name}]`, async (t) => {
      const ws = seamWorld(user)
      const c = confineAs(user, { HOME: '/nonexistent' }, { backend, protect: [], denyRead: [path.join(ws, 'secret.txt')] }, ['/bin/true'], { mode: 'workspace-write', workspaceRoot: ws })
      t.notOk(c.error, `confined (${c.error && c.error.message})`)
      const log = path.join(base, `strace-${serial++}`)
      fs.writeFileSync(log, '')
      chown(log, user)
      const r = spawnSync(user.wrap[0] || 'strace', [...user.wrap.slice(1), ...(user.wrap.length ? ['strace'] : []), '-f', '-qq', '-e', 'trace=inotify_init1,io_uring_register', '-o', log, ...c.argv], { cwd: ws, env: withSanitizerEnv(ENV), encoding: 'utf8', timeout: patience(30000) })
      t.equal(r.status, 0, `the run went on to its end (${describe(r)})`)
      const lines = fs.readFileSync(log, 'utf8').split('\n')
      const made = lines.map((l) => /^(\d+)\s+inotify_init1\(.*\) = (\d+)$/.exec(l)).filter(Boolean)
      t.equal(made.length, 1, 'one process made an inotify instance')
      if (made.length !== 1) return
      const [, pid, fd] = made[0]
      // (a kernel that refuses io_uring leaves the close to the launcher)
      if (ioUringRefused()) return t.notOk(lines.some((l) => / io_uring_register\(.* = 0$/.test(l)), 'io_uring is refused here: no ring holds it')
      t.ok(lines.some((l) => new RegExp(`^${pid}\\s+io_uring_register\\(\\d+, IORING_REGISTER_FILES, \\[${fd}\\], 1\\) = 0$`).test(l)), `that process registered it with an io_uring (${lines.filter((l) => l.includes('io_uring')).join('; ')})`)
    })
  }
}
