'use strict'
// Deny rules the view cannot express are refused (issue 9 item 4), at
// confine and again in the launcher: deny_write_exact on anything but a
// regular file or a directory (a read-only mount does not stop a write to
// a FIFO reaching a host reader), and a denied regular file with another
// hard link (the other name reaches it). Each refusal comes with the
// unconfined proof that the object really could be written that way.
const t = require('tap')
const fs = require('node:fs')
const path = require('node:path')
const { spawnSync, execFileSync } = require('node:child_process')
const { users, withSanitizerEnv } = require('../helpers/sandbox.js')
const { patience } = require('../helpers/patience.js')
const { SandboxPolicy, confinePolicy, classifyExit } = require('../..')

const SH = '/bin/sh'

function workspace (t, user) {
  const dir = fs.realpathSync(fs.mkdtempSync('/var/tmp/sandy-denyobj-'))
  fs.chmodSync(dir, 0o755)
  fs.chownSync(dir, user.uid, user.gid)
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }))
  return dir
}

function run (argv, { cwd, wrap }) {
  const full = [...wrap, ...argv]
  const r = spawnSync(full[0], full.slice(1), { cwd, encoding: 'utf8', env: withSanitizerEnv({ PATH: '/usr/bin:/bin' }), timeout: patience(10000) })
  return { code: r.status, stdout: r.stdout || '', stderr: r.stderr || '' }
}

const policyFor = (ws) => new SandboxPolicy('block_all').allowSubprocesses()
  .grant('/usr', 'read', 'subtree').allowExecute('/usr', 'subtree').grant(ws, 'read_write', 'subtree')

for (const user of users()) {
  t.test(`deny_write_exact on a FIFO is refused [${user.name}]`, async (t) => {
    const ws = workspace(t, user)
    const fifo = path.join(ws, 'pipe')
    execFileSync('mkfifo', [fifo])
    fs.chownSync(fifo, user.uid, user.gid)
    const err = t.throws(() => confinePolicy(['/usr/bin/true'], policyFor(ws).denyWriteExact(fifo), { cwd: ws }))
    t.equal(err.kind, 'InvalidPolicy')
    t.equal(err.message, 'InvalidPolicy: deny_write_exact[0]: only a regular file or a directory can be denied writing', 'names the rule, never the path')
    // control: the write reaches a reader on the host
    const r = run([SH, '-c', `cat ${fifo} > ${ws}/got & echo hello > ${fifo}; wait; cat ${ws}/got`], { cwd: ws, wrap: user.wrap })
    t.equal(r.stdout, 'hello\n', 'unconfined, a write to the FIFO reaches its reader')
  })

  for (const kind of ['denyWriteExact', 'denySubtree']) {
    t.test(`a denied file with a second hard link is refused (${kind}) [${user.name}]`, async (t) => {
      const ws = workspace(t, user)
      const file = path.join(ws, 'settings.json')
      fs.writeFileSync(file, '{}\n')
      fs.linkSync(file, path.join(ws, 'other-name'))
      for (const p of [file, path.join(ws, 'other-name')]) fs.chownSync(p, user.uid, user.gid)
      const err = t.throws(() => confinePolicy(['/usr/bin/true'], policyFor(ws)[kind](file), { cwd: ws }))
      t.match(err.message, /^InvalidPolicy: deny_(write_exact|subtrees)\[0\]: a file with more than one hard link cannot be denied \(another name reaches it\)$/)
      const r = run([SH, '-c', 'echo changed > other-name'], { cwd: ws, wrap: user.wrap })
      t.equal(r.code, 0)
      t.equal(fs.readFileSync(file, 'utf8'), 'changed\n', 'unconfined, the other name writes the denied file')
    })
  }

  t.test(`a hard link made between confine and spawn is refused by the launcher [${user.name}]`, async (t) => {
    const ws = workspace(t, user)
    const file = path.join(ws, 'settings.json')
    fs.writeFileSync(file, '{}\n')
    fs.chownSync(file, user.uid, user.gid)
    const c = confinePolicy([SH, '-c', 'echo ran'], policyFor(ws).denyWriteExact(file), { cwd: ws })
    t.equal(run(c.argv, { cwd: ws, wrap: user.wrap }).stdout, 'ran\n', 'runs while the file has one name')
    fs.linkSync(file, path.join(ws, 'other-name'))
    const r = run(c.argv, { cwd: ws, wrap: user.wrap })
    t.equal(r.code, 125, `refused (${r.stderr.trim()})`)
    t.match(r.stderr, /InvalidPolicy: deny_write_exact\[0\]: a file with more than one hard link cannot be denied/)
    t.equal(classifyExit(c, { ...r, signal: null }).kind, 'runner-failure')
  })
}

// A deny spelled through a symlink that a command could re-point (one on
// the way, inside a writable grant) would deny whatever the link names at
// the next resolution: refused (second review of issue 9). A symlink as
// the deny's last component stays allowed (its own spelling is protected).
for (const user of users()) {
  t.test(`a deny spelled through a re-pointable symlink is refused [${user.name}]`, async (t) => {
    const ws = workspace(t, user)
    fs.mkdirSync(path.join(ws, 'packages', 'pkg'), { recursive: true })
    fs.writeFileSync(path.join(ws, 'packages', 'pkg', '.env'), 'SECRET\n')
    fs.mkdirSync(path.join(ws, 'node_modules'))
    fs.symlinkSync('../packages/pkg', path.join(ws, 'node_modules', 'pkg'))
    spawnSync('chown', ['-hR', `${user.uid}:${user.gid}`, ws])
    const err = t.throws(() => confinePolicy(['/usr/bin/true'], policyFor(ws).denySubtree(path.join(ws, 'node_modules', 'pkg', '.env')), { cwd: ws }))
    t.equal(err.message, 'InvalidPolicy: deny_subtrees[0]: spelled through a symlink inside a writable grant, which a command could re-point')
    t.ok(confinePolicy(['/usr/bin/true'], policyFor(ws).denySubtree(path.join(ws, 'packages', 'pkg', '.env')), { cwd: ws }), 'the canonical spelling is fine')
    t.ok(confinePolicy(['/usr/bin/true'], policyFor(ws).denySubtree(path.join(ws, 'node_modules', 'pkg')), { cwd: ws }), 'so is the link itself as the last component')
    // control: the command can re-point that link
    const r = run([SH, '-c', 'ln -sfn /tmp node_modules/pkg.new && mv -T node_modules/pkg.new node_modules/pkg && readlink node_modules/pkg'], { cwd: ws, wrap: user.wrap })
    t.equal(r.stdout, '/tmp\n', 'unconfined, the link is re-pointed')
  })
}

// ... also when the re-pointable link is met while resolving (through
// another link, or as the target of the deny's own last component), and a
// trailing slash or dot changes nothing (third review of issue 9).
for (const user of users()) {
  t.test(`a deny whose resolution meets a re-pointable symlink is refused [${user.name}]`, async (t) => {
    const root = workspace(t, user)
    const ws = path.join(root, 'ws')
    for (const d of ['ws/packages/app', 'ws/cfg', 'secrets', 'conf']) fs.mkdirSync(path.join(root, d), { recursive: true })
    fs.writeFileSync(path.join(ws, 'packages', 'app', '.env'), 'A\n')
    fs.writeFileSync(path.join(root, 'secrets', 'prod.env'), 'P\n')
    fs.symlinkSync('packages/app', path.join(ws, 'current'))
    fs.symlinkSync('../ws/current', path.join(root, 'conf', 'app'))
    fs.symlinkSync('../../secrets/prod.env', path.join(ws, 'cfg', 'current.env'))
    fs.symlinkSync('cfg/current.env', path.join(ws, '.env'))
    fs.symlinkSync('packages/app', path.join(ws, 'link'))
    spawnSync('chown', ['-hR', `${user.uid}:${user.gid}`, root])
    const policy = policyFor(ws).grant(root, 'read', 'subtree')
    const refused = /^InvalidPolicy: deny_subtrees\[0\]: spelled through a symlink inside a writable grant, which a command could re-point$/
    t.throws(() => confinePolicy(['/usr/bin/true'], policy.denySubtree(path.join(root, 'conf', 'app', '.env')), { cwd: ws }), { message: refused },
      'a link outside the grant leading to one inside it')
    t.throws(() => confinePolicy(['/usr/bin/true'], policy.denySubtree(path.join(ws, '.env')), { cwd: ws }), { message: refused },
      'the deny\'s own last link leading through another one inside the grant')
    for (const spelling of ['link', 'link/', 'link//']) {
      t.ok(confinePolicy(['/usr/bin/true'], policy.denySubtree(path.join(ws, spelling)), { cwd: ws }), `"${spelling}": the last component itself is fine`)
    }
    // "link/." keeps no symlink spelling, so nothing would protect the link
    // (third review of issue 9): refused like any link on the way
    t.throws(() => confinePolicy(['/usr/bin/true'], policy.denySubtree(path.join(ws, 'link') + '/.'), { cwd: ws }), { message: refused }, '"link/.": refused')
    const r = run([SH, '-c', 'ln -sfn /tmp current.new && mv -T current.new current && readlink current'], { cwd: ws, wrap: user.wrap })
    t.equal(r.stdout, '/tmp\n', 'control: unconfined, the link in the workspace is re-pointed')
  })
}
