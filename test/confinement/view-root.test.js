'use strict'
// The view's root stands alone: nothing is stacked under it ("/.." is
// "/"), its /proc is a procfs of its own, and neither a protected read nor
// a denied subtree can be reached through "/..". In both seam modes, with
// and without a protected read, on sandy and bwrap, and under a Sandy
// policy with a denied subtree and no /proc; as root and uid 65534, with
// the reads shown to succeed unconfined. Finding 196: a first way of
// staging the view's detached sources (for kernels before 6.15) left them,
// or the host's whole root, reachable through "/..".
const t = require('tap')
const fs = require('node:fs')
const path = require('node:path')
const { users, backendsFor } = require('../helpers/sandbox.js')
const { confineAs, runAs } = require('../helpers/seam-run.js')
const { SandboxPolicy, confinePolicy } = require('../..')

function tree (t, user) {
  const dir = fs.realpathSync(fs.mkdtempSync('/var/tmp/sandy-view-root-'))
  fs.chmodSync(dir, 0o755)
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }))
  const ws = path.join(dir, 'ws')
  const home = path.join(dir, 'home')
  const secret = path.join(dir, 'secret')
  for (const d of [ws, home, secret, path.join(ws, 'creds')]) fs.mkdirSync(d)
  fs.writeFileSync(path.join(secret, 'key'), 'SECRET\n')
  fs.writeFileSync(path.join(ws, 'creds', 'key'), 'CREDS\n')
  for (const p of [ws, home, secret, path.join(secret, 'key'), path.join(ws, 'creds'), path.join(ws, 'creds', 'key')]) fs.chownSync(p, user.uid, user.gid)
  return { ws, home, secret }
}

// Prints "/ DEV:INO", "/.. DEV:INO", the type of /proc, then tries each
// file both ways; what it read is on stdout.
const probeScript = (files) => [
  'echo "/ $(stat -c %d:%i /)"; echo "/.. $(stat -c %d:%i /..)"',
  'echo "proc $(stat -f -c %T /proc 2>/dev/null || echo none)"',
  ...files.flatMap((f) => [`cat ${f} 2>/dev/null`, `cat /..${f} 2>/dev/null`]),
  'true'
].join('; ')

function checkAlone (t, out) {
  const root = /^\/ (\S+)$/m.exec(out)?.[1]
  t.ok(root, 'the command ran')
  t.equal(/^\/\.\. (\S+)$/m.exec(out)?.[1], root, '"/.." is "/": nothing is stacked under the view')
}

for (const user of users()) {
  for (const backend of ['sandy', 'bwrap']) {
    for (const mode of ['read-only', 'workspace-write']) {
      for (const withRead of [true, false]) {
        t.test(`${backend}, ${mode}, ${withRead ? 'a' : 'no'} protected read [${user.name}]`, async (t) => {
          if (backendsFor(t, user, [backend]).length === 0) return
          const { ws, home, secret } = tree(t, user)
          const key = path.join(secret, 'key')
          const argv = ['/bin/sh', '-c', probeScript([key])]
          const env = { PATH: '/usr/bin:/bin', HOME: home }
          const options = { backend, protect: [], denyRead: withRead ? [secret] : [] }
          const confined = confineAs(user, env, options, argv, { mode, workspaceRoot: ws })
          t.notOk(confined.error, `confined (${confined.error?.message})`)
          if (confined.error) return
          const r = await runAs(user, confined.argv, { cwd: ws, env: confined.env ?? env })
          checkAlone(t, r.stdout)
          t.match(r.stdout, /^proc proc$/m, '/proc is a procfs')
          if (withRead) t.notMatch(r.stdout, /SECRET/, 'the protected read is refused, through "/.." too')
          const free = await runAs(user, argv, { cwd: ws, env })
          t.equal(free.stdout.split('SECRET').length - 1, 2, 'unconfined, both spellings read it')
        })
      }
    }
  }

  t.test(`a Sandy policy with a denied subtree and no /proc [${user.name}]`, async (t) => {
    if (backendsFor(t, user, ['sandy']).length === 0) return
    const { ws } = tree(t, user)
    const creds = path.join(ws, 'creds', 'key')
    const policy = new SandboxPolicy('block_all').allowSubprocesses()
      .grant('/usr', 'read', 'subtree').allowExecute('/usr', 'subtree')
      .grant(ws, 'read_write', 'subtree').denySubtree(path.join(ws, 'creds'))
    const argv = ['/usr/bin/sh', '-c', probeScript([creds])]
    const c = confinePolicy(argv, policy, { cwd: ws })
    const r = await runAs(user, c.argv, { cwd: ws, env: { PATH: '/usr/bin:/bin' } })
    checkAlone(t, r.stdout)
    t.match(r.stdout, /^proc none$/m, 'no /proc was granted, none is there')
    t.notMatch(r.stdout, /CREDS/, 'the denied subtree is unreadable, through "/.." too')
    const free = await runAs(user, argv, { cwd: ws, env: { PATH: '/usr/bin:/bin' } })
    t.equal(free.stdout.split('CREDS').length - 1, 2, 'unconfined, both spellings read it')
  })
}

// A protected read beneath another is hidden by that one's cover: it gets
// no cover of its own, which would only show in the command's mountinfo
// that it exists (second review of issue 28).
for (const user of users()) {
  for (const backend of ['sandy', 'bwrap']) {
    t.test(`a protected read beneath another leaves no trace in mountinfo, ${backend} [${user.name}]`, async (t) => {
      if (backendsFor(t, user, [backend]).length === 0) return
      const { ws, home, secret } = tree(t, user)
      const inner = path.join(secret, 'inner')
      fs.mkdirSync(inner)
      fs.writeFileSync(path.join(inner, 'key'), 'INNER\n')
      for (const p of [inner, path.join(inner, 'key')]) fs.chownSync(p, user.uid, user.gid)
      const argv = ['/bin/sh', '-c', `grep -c ${path.join(inner, 'key')} /proc/self/mountinfo; cat ${path.join(inner, 'key')}; true`]
      const env = { PATH: '/usr/bin:/bin', HOME: home }
      const options = { backend, protect: [], denyRead: [secret, path.join(inner, 'key')] }
      const confined = confineAs(user, env, options, argv, { mode: 'workspace-write', workspaceRoot: ws })
      t.notOk(confined.error, `confined (${confined.error?.message})`)
      if (confined.error) return
      const r = await runAs(user, confined.argv, { cwd: ws, env: confined.env ?? env })
      t.match(r.stdout, /^0$/m, 'no mount names the inner read')
      t.notMatch(r.stdout, /INNER/, 'and it stays unreadable')
      const free = await runAs(user, argv, { cwd: ws, env })
      t.match(free.stdout, /INNER/, 'unconfined, it is read')
    })
  }
}
