'use strict'
// Nothing a confined command writes runs later outside the sandbox
// (docs/protected-writes.md): in workspace-write, the hooks and config of
// every git repository under the workspace (the top one, a nested one, a
// worktree's common directory) stay read-only, and .git cannot be renamed
// away, while git commit and checkout of ordinary content still work; the
// user's next git status, checkout and log outside run nothing planted. A
// workspace that is or holds the home is refused unless asked for, and
// then its start-up files stay read-only. As root and as uid 65534, on
// every Linux backend; each confined run has its unconfined control, the
// same script as the same user in a copy of the same world, whose plants
// land and run.
const t = require('tap')
const fs = require('node:fs')
const path = require('node:path')
const { spawnSync } = require('node:child_process')
const { users, backendsFor, describe } = require('../helpers/sandbox.js')
const { confineAs, runAs } = require('../helpers/seam-run.js')
const { protectedWrites } = require('../../lib/protect-writes.js')

// Outside /tmp: workspace-write gives the command a private one.
const base = fs.realpathSync(fs.mkdtempSync('/var/tmp/sandy-writes-'))
fs.chmodSync(base, 0o755)
t.teardown(() => fs.rmSync(base, { recursive: true, force: true }))

const GIT_ENV = { GIT_AUTHOR_NAME: 'a', GIT_AUTHOR_EMAIL: 'a@example.invalid', GIT_COMMITTER_NAME: 'a', GIT_COMMITTER_EMAIL: 'a@example.invalid', GIT_CONFIG_NOSYSTEM: '1' }
let serial = 0

function git (cwd, args, env = {}) {
  const r = spawnSync('git', args, { cwd, env: { PATH: '/usr/bin:/bin', HOME: '/nonexistent', ...GIT_ENV, ...env }, encoding: 'utf8' })
  if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`)
  return r.stdout
}

// A workspace owned by user holding a repository with a commit, a nested
// repository, and a worktree of the first; a directory for the marks a
// planted command leaves when it runs; a home outside the workspace.
function world (user) {
  const top = path.join(base, `w${serial++}-${user.uid}`)
  const ws = path.join(top, 'ws')
  const marks = path.join(top, 'marks')
  const home = path.join(top, 'home')
  for (const d of [ws, marks, home, path.join(ws, 'nested')]) fs.mkdirSync(d, { recursive: true })
  for (const repo of [ws, path.join(ws, 'nested')]) {
    git(repo, ['init', '-q', '-b', 'main', '.'])
    fs.writeFileSync(path.join(repo, 'f'), 'one\n')
    git(repo, ['add', 'f'])
    git(repo, ['commit', '-qm', 'one'])
  }
  fs.writeFileSync(path.join(ws, '.gitignore'), 'nested/\nwt/\n')
  git(ws, ['worktree', 'add', '-q', '-b', 'side', path.join(ws, 'wt')])
  spawnSync('chown', ['-R', `${user.uid}:${user.gid}`, top])
  fs.chmodSync(top, 0o755)
  const env = { PATH: '/usr/bin:/bin', LANG: 'C', HOME: home, ...GIT_ENV }
  return { top, ws, marks, home, env }
}

// Every plant a command could try, one line each ("NAME: ok" or "NAME:
// fail ..."), then a commit of a workspace change, which must work.
function plantScript (marks) {
  const hook = `#!/bin/sh\ntouch ${marks}/$(basename "$0")-$1\n`
  const tryIt = (name, cmd) => `if out=$( { ${cmd}; } 2>&1); then echo "${name}: ok"; else echo "${name}: fail $out" | tr '\\n' ' '; echo; fi`
  const plantHook = (dir, h) => `printf '${hook.replace(/\n/g, '\\n')}' > ${dir}/hooks/${h} && chmod +x ${dir}/hooks/${h}`
  return [
    tryIt('hook', plantHook('.git', 'post-checkout')),
    tryIt('fsmonitor', `git config core.fsmonitor 'touch ${marks}/fsmonitor; false'`),
    tryIt('pager', `git config core.pager 'touch ${marks}/pager; cat'`),
    tryIt('alias', `git config alias.lg '!touch ${marks}/alias'`),
    tryIt('config-append', `printf '[core]\\n\\tfsmonitor = touch ${marks}/appended\\n' >> .git/config`),
    tryIt('nested-hook', plantHook('nested/.git', 'post-checkout')),
    tryIt('nested-config', `git -C nested config core.fsmonitor 'touch ${marks}/nested-fsmonitor; false'`),
    tryIt('worktree-hook', `${plantHook('"$(git -C wt rev-parse --path-format=absolute --git-common-dir)"', 'post-commit')}`),
    tryIt('worktree-config', `git -C wt config core.pager 'touch ${marks}/wt-pager; cat'`),
    tryIt('worktree-file', "printf 'gitdir: /nowhere\\n' > wt/.git"),
    tryIt('commit', "echo two >> f && git commit -qam two && git log --oneline | grep -q two"),
    tryIt('checkout', 'git checkout -q -b topic && git checkout -q main'),
    tryIt('rename-git', 'mv .git .git-moved')
  ].join('\n')
}
const PLANTS = ['hook', 'fsmonitor', 'pager', 'alias', 'config-append', 'rename-git', 'nested-hook', 'nested-config', 'worktree-hook', 'worktree-config', 'worktree-file']
const lineOf = (out, name) => out.split('\n').find((l) => l.startsWith(`${name}: `)) ?? ''

// What the user does next, outside any sandbox; afterwards, the marks the
// planted commands left.
async function userRunsGit (user, w) {
  const script = [
    'git status >/dev/null 2>&1', 'git -c core.pager= log -1 >/dev/null 2>&1', 'git checkout -q -b after 2>/dev/null; git checkout -q main 2>/dev/null',
    'git -P log -1 >/dev/null 2>&1; git --paginate log -1 >/dev/null 2>&1 </dev/null', 'git lg >/dev/null 2>&1',
    'cd nested && git status >/dev/null 2>&1; git checkout -q -b after 2>/dev/null; cd ..',
    'cd wt && git status >/dev/null 2>&1; git --paginate log -1 >/dev/null 2>&1; git commit -q --allow-empty -m wt 2>/dev/null; cd ..'
  ].join('\n')
  await runAs(user, ['/bin/sh', '-c', script], { cwd: w.ws, env: { ...w.env, PAGER: 'cat' } })
  return fs.readdirSync(w.marks).sort()
}

const BACKENDS = ['sandy', 'bwrap', 'landlock']

for (const user of users()) {
  for (const backend of backendsFor(t, user, BACKENDS)) {
    if (backend === 'landlock') continue
    t.test(`git's hooks and config stay read-only, commits work, nothing planted runs later, under ${backend} [${user.name}]`, async (t) => {
      const w = world(user)
      const control = world(user)
      const argv = ['/bin/sh', '-c', plantScript(w.marks)]
      const c = confineAs(user, w.env, { backend }, argv, { mode: 'workspace-write', workspaceRoot: w.ws })
      t.notOk(c.error, `confined as ${user.name} (${c.error && c.error.message})`)
      const confined = await runAs(user, c.argv, { cwd: w.ws, env: w.env })
      const unconfined = await runAs(user, ['/bin/sh', '-c', plantScript(control.marks)], { cwd: control.ws, env: control.env })
      for (const name of PLANTS) {
        t.match(lineOf(unconfined.stdout, name), /: ok$/, `unconfined: ${name} lands`)
        t.match(lineOf(confined.stdout, name), /: fail .*(Read-only file system|Device or resource busy|Permission denied)/, `confined: ${name} is refused (${describe(confined)})`)
      }
      t.match(lineOf(confined.stdout, 'commit'), /: ok$/, `confined: git commit -am of a workspace change works (${describe(confined)})`)
      t.match(lineOf(confined.stdout, 'checkout'), /: ok$/, 'confined: git checkout works')
      // (the control's rename took its .git away: its plants after that
      // ran in a repository git no longer finds, so restore it first)
      fs.renameSync(path.join(control.ws, '.git-moved'), path.join(control.ws, '.git'))
      const ran = (await userRunsGit(user, control)).map((m) => m.replace(/-[0-9a-f]{40}$/, ''))
      // (core.fsmonitor is the appended one, which comes later; a pager
      // runs only on a terminal)
      for (const mark of ['alias', 'appended', 'nested-fsmonitor', 'post-checkout', 'post-commit']) {
        t.ok(ran.some((m) => m.startsWith(mark)), `unconfined: the user's next git commands ran the planted ${mark} (${ran.join(', ')})`)
      }
      t.same(await userRunsGit(user, w), [], "confined: the user's next git status, checkout, log and commit run nothing planted")
    })
  }

  for (const backend of backendsFor(t, user, BACKENDS)) {
    t.test(`protectWrites: [] lets the command write a hook, under ${backend} [${user.name}]`, async (t) => {
      const w = world(user)
      const argv = ['/bin/sh', '-c', `echo x > .git/hooks/post-checkout && echo planted`]
      const c = confineAs(user, w.env, { backend, protectWrites: [] }, argv, { mode: 'workspace-write', workspaceRoot: w.ws })
      t.notOk(c.error, `confined (${c.error && c.error.message})`)
      const r = await runAs(user, c.argv, { cwd: w.ws, env: w.env })
      t.equal(r.stdout, 'planted\n', `the hook is written: the protection is off (${describe(r)})`)
    })
  }

  for (const backend of backendsFor(t, user, ['landlock'])) {
    t.test(`the Landlock-only level says it does not keep protected writes, and refuses them asked for [${user.name}]`, async (t) => {
      const w = world(user)
      const asked = confineAs(user, w.env, { backend, protectWrites: ['git'] }, ['/bin/true'], { mode: 'workspace-write', workspaceRoot: w.ws })
      t.match(asked.error, { name: 'SandboxUnavailableError', message: /cannot keep protected writes/ }, 'asked for: refused')
      const script = `const p = require(process.argv[1]).createLocalSandboxProvider({ backend: 'landlock' }); process.stdout.write(JSON.stringify(p.probe()))`
      const r = spawnSync(user.wrap[0], [...user.wrap.slice(1), process.execPath, '-e', script, path.join(__dirname, '..', '..')], { cwd: '/', encoding: 'utf8' })
      const landlock = JSON.parse(r.stdout).candidates.find((x) => x.name === 'landlock')
      t.match(landlock.reason, /does not keep git's hooks and config/, 'its verdict names what it does not keep')
      t.equal(landlock.protections.writes, null, 'its protections say so')
    })
  }

  for (const backend of backendsFor(t, user, BACKENDS)) {
    t.test(`a workspace that is or holds the home is refused unless asked for, then its start-up files are kept, under ${backend} [${user.name}]`, async (t) => {
      const w = world(user)
      fs.writeFileSync(path.join(w.home, '.bashrc'), '# rc\n')
      fs.mkdirSync(path.join(w.home, '.config', 'autostart'), { recursive: true })
      spawnSync('chown', ['-R', `${user.uid}:${user.gid}`, w.home])
      const env = { ...w.env, HOME: w.home }
      const argv = ['/bin/sh', '-c', "echo 'touch /tmp/x' >> .bashrc && echo rc; echo x > .config/autostart/a.desktop && echo autostart; echo data > notes && echo data"]
      for (const root of [w.home, w.top]) {
        const refused = confineAs(user, env, { backend }, argv, { mode: 'workspace-write', workspaceRoot: root })
        t.match(refused.error, { name: 'RangeError', message: /policy\.workspaceRoot is or holds the home directory.*allowHomeWorkspace/ }, `${root === w.home ? 'the home' : 'a directory holding it'}: refused`)
        t.notMatch(refused.error.message, root, 'the message names no path')
      }
      const inRoots = confineAs(user, env, { backend, writableRoots: [w.top] }, argv, { mode: 'workspace-write', workspaceRoot: w.ws })
      t.match(inRoots.error, { name: 'RangeError', message: /options\.writableRoots\[0\] is or holds the home directory/ }, 'a writable root holding it: refused')
      const ro = confineAs(user, env, { backend }, ['/bin/true'], { mode: 'read-only', workspaceRoot: w.home })
      t.notOk(ro.error, 'read-only there is fine: nothing is written')
      const c = confineAs(user, env, { backend, allowHomeWorkspace: true }, argv, { mode: 'workspace-write', workspaceRoot: w.home })
      t.notOk(c.error, `asked for: confined (${c.error && c.error.message})`)
      const r = await runAs(user, c.argv, { cwd: w.home, env })
      const unconfined = await runAs(user, argv, { cwd: w.home, env })
      t.equal(unconfined.stdout, 'rc\nautostart\ndata\n', 'unconfined: both start-up files are written')
      if (backend === 'landlock') {
        t.equal(r.stdout, 'rc\nautostart\ndata\n', 'the Landlock-only level keeps none (its verdict says so)')
      } else {
        t.equal(r.stdout, 'data\n', `confined: .bashrc and autostart are refused, the rest of the home is written (${describe(r)})`)
      }
    })
  }
}

t.test('what the search finds, makes and refuses', async (t) => {
  const ws = fs.mkdtempSync(path.join(base, 'find-'))
  const st = fs.statSync(ws)
  const roots = [{ root: ws, rootId: `${st.dev}:${st.ino}` }]
  fs.mkdirSync(path.join(ws, 'a/b/.git/objects'), { recursive: true })
  fs.mkdirSync(path.join(ws, 'a/b/.git/refs'))
  fs.writeFileSync(path.join(ws, 'a/b/.git/HEAD'), 'ref: refs/heads/main\n')
  fs.writeFileSync(path.join(ws, 'a/b/.git/config'), '')
  fs.mkdirSync(path.join(ws, 'bare.git/objects'), { recursive: true })
  fs.mkdirSync(path.join(ws, 'bare.git/refs'))
  fs.mkdirSync(path.join(ws, 'bare.git/hooks'))
  fs.writeFileSync(path.join(ws, 'bare.git/HEAD'), 'ref: refs/heads/main\n')
  const found = protectedWrites(['git'], roots).map((o) => path.relative(ws, o.path)).sort()
  t.same(found, ['a/b/.git/config', 'a/b/.git/hooks', 'a/b/.git/info', 'bare.git/hooks'], 'a nested repository and a bare one')
  t.ok(fs.statSync(path.join(ws, 'a/b/.git/hooks')).isDirectory(), 'a missing hooks directory is made, to be held')
  // (an earlier run can make any directory look like a bare repository:
  // what lies beneath it is still searched)
  fs.writeFileSync(path.join(ws, 'HEAD'), 'ref: refs/heads/main\n')
  fs.mkdirSync(path.join(ws, 'objects'))
  fs.mkdirSync(path.join(ws, 'refs'))
  t.ok(protectedWrites(['git'], roots).some((o) => o.path === path.join(ws, 'a/b/.git/config')), 'a workspace made to look bare still has its repositories found')
  t.same(protectedWrites([], roots), [], 'no protection, nothing looked for')
  fs.symlinkSync(path.join(ws, 'a/b/.git'), path.join(ws, 'link-repo.git'))
  fs.mkdirSync(path.join(ws, 'c'))
  fs.symlinkSync(path.join(ws, 'a/b/.git'), path.join(ws, 'c/.git'))
  t.throws(() => protectedWrites(['git'], roots), { name: 'Error', message: /\.git is a symbolic link/ }, 'a .git that is a symbolic link is refused: a mount cannot hold it')
  fs.unlinkSync(path.join(ws, 'c/.git'))
  fs.linkSync(path.join(ws, 'a/b/.git/config'), path.join(ws, 'config-link'))
  t.throws(() => protectedWrites(['git'], roots), { message: /another hard link/ }, 'a config with a second name is refused')
})
