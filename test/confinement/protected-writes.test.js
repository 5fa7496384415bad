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

// Outside /tmp: workspace-write gives the command a private one.
const base = fs.realpathSync(fs.mkdtempSync('/var/tmp/sandy-writes-'))
fs.chmodSync(base, 0o755)
t.teardown(() => fs.rmSync(base, { recursive: true, force: true }))

const GIT_ENV = { GIT_AUTHOR_NAME: 'a', GIT_AUTHOR_EMAIL: 'a@example.invalid', GIT_COMMITTER_NAME: 'a', GIT_COMMITTER_EMAIL: 'a@example.invalid', GIT_CONFIG_NOSYSTEM: '1' }
let serial = 0

function git (cwd, args, env = {}) {
  const r = spawnSync('git', ['-c', 'safe.directory=*', ...args], { cwd, env: { PATH: '/usr/bin:/bin', HOME: '/nonexistent', ...GIT_ENV, ...env }, encoding: 'utf8' })
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
    tryIt('commit', "echo two >> f && echo new > g && git add g && git commit -qam two && git log --oneline | grep -q two"),
    tryIt('checkout', 'git checkout -q -b topic && git checkout -q main'),
    tryIt('fetch', 'git clone -q --bare . /tmp/remote-$$.git && git fetch -q /tmp/remote-$$.git main && rm -rf /tmp/remote-$$.git'),
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
      t.match(lineOf(confined.stdout, 'commit'), /: ok$/, `confined: git add and git commit -am of a workspace change work (${describe(confined)})`)
      t.match(lineOf(confined.stdout, 'checkout'), /: ok$/, 'confined: git checkout works')
      t.match(lineOf(confined.stdout, 'fetch'), /: ok$/, 'confined: git fetch works')
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
      const homeWorld = () => {
        const w = world(user)
        fs.writeFileSync(path.join(w.home, '.bashrc'), '# rc\n')
        fs.mkdirSync(path.join(w.home, '.config', 'autostart'), { recursive: true })
        spawnSync('chown', ['-R', `${user.uid}:${user.gid}`, w.home])
        return w
      }
      const w = homeWorld()
      const control = homeWorld()
      const env = { ...w.env, HOME: w.home }
      const argv = ['/bin/sh', '-c', "echo 'touch /tmp/x' >> .bashrc && echo rc; echo x > .config/autostart/a.desktop && echo autostart; mv .config .config-old && echo moved; echo data > notes && echo data"]
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
      const unconfined = await runAs(user, argv, { cwd: control.home, env: { ...control.env, HOME: control.home } })
      t.equal(unconfined.stdout, 'rc\nautostart\nmoved\ndata\n', 'unconfined: both start-up files are written, .config moved away')
      if (backend === 'landlock') {
        t.equal(r.stdout, 'rc\nautostart\nmoved\ndata\n', 'the Landlock-only level keeps none (its verdict says so)')
      } else {
        t.equal(r.stdout, 'data\n', `confined: .bashrc and autostart are refused, .config stays, the rest of the home is written (${describe(r)})`)
        const ssh = confineAs(user, env, { backend, allowHomeWorkspace: true }, ['/bin/sh', '-c', 'mkdir -p .ssh && echo key > .ssh/authorized_keys'], { mode: 'workspace-write', workspaceRoot: w.home })
        const made = await runAs(user, ssh.argv, { cwd: w.home, env })
        t.equal(made.code, 125, `a missing ~/.ssh made ends the run (${describe(made)})`)
        t.notOk(fs.existsSync(path.join(w.home, '.ssh')), 'and it is removed with what was put in it')
      }
    })
  }
}

// A name that did not exist at confine: the run ends the moment the
// command makes it, with the launcher's fatal line, and the name is gone,
// so the user's next git status reads nothing planted. (The command then
// sleeps for an hour: only the watch ends it within the runner's timeout.)
const COMMONDIR = (marks) => `mkdir -p .evil && cp -r .git/objects .git/refs .git/HEAD .evil/ && printf '[core]\\n\\tfsmonitor = "touch ${marks}/commondir; false"\\n' > .evil/config && echo ../.evil > .git/commondir && echo planted && sleep 3600; echo still-running`
for (const user of users()) {
  for (const backend of backendsFor(t, user, ['sandy', 'bwrap'])) {
    t.test(`a commondir made in .git ends the run and is removed, under ${backend} [${user.name}]`, async (t) => {
      const w = world(user)
      const control = world(user)
      const c = confineAs(user, w.env, { backend }, ['/bin/sh', '-c', COMMONDIR(w.marks)], { mode: 'workspace-write', workspaceRoot: w.ws })
      t.notOk(c.error, `confined (${c.error && c.error.message})`)
      const r = await runAs(user, c.argv, { cwd: w.ws, env: w.env })
      t.equal(r.code, 125, `the run ends as a runner failure (${describe(r)})`)
      t.match(r.stderr, /sandy-launcher: fatal: EnforcementFailed: the command made a protected name, watch\[\d+\]: the run was ended, the name removed \[run [0-9a-f]+\]/, 'its fatal line says which watch, never a path')
      t.ok(c.runnerFailureRules.some((rule) => rule.fatalSignatures.some((s) => r.stderr.includes(s))), "the call's runner-failure rule matches it")
      t.notMatch(r.stdout, /still-running/, 'the command did not go on')
      t.notOk(fs.existsSync(path.join(w.ws, '.git/commondir')), 'the name is gone')
      const unconfined = await runAs(user, ['/bin/sh', '-c', COMMONDIR(control.marks).replace('sleep 3600', 'true')], { cwd: control.ws, env: control.env })
      t.match(unconfined.stdout, /planted/, 'unconfined: the commondir is made')
      t.ok((await userRunsGit(user, control)).includes('commondir'), "unconfined: the user's next git status ran the config it points to")
      t.same(await userRunsGit(user, w), [], 'confined: nothing planted runs')
    })

    // (made as the command ends, and as a directory with content: the run
    // still fails, and the whole of it is removed)
    t.test(`a protected name made as the command ends is found and removed, under ${backend} [${user.name}]`, async (t) => {
      const w = world(user)
      for (const script of ['echo ../.evil > .git/commondir; exit 0', 'mkdir -p .git/config.worktree/a/b && touch .git/config.worktree/a/b/c']) {
        const c = confineAs(user, w.env, { backend }, ['/bin/sh', '-c', script], { mode: 'workspace-write', workspaceRoot: w.ws })
        const r = await runAs(user, c.argv, { cwd: w.ws, env: w.env })
        t.equal(r.code, 125, `${script}: a runner failure (${describe(r)})`)
        t.match(r.stderr, /the command made a protected name, watch\[\d+\]: the run was ended, the name removed/)
      }
      t.notOk(fs.existsSync(path.join(w.ws, '.git/commondir')) || fs.existsSync(path.join(w.ws, '.git/config.worktree')), 'both are gone')
      const control = world(user)
      await runAs(user, ['/bin/sh', '-c', 'echo ../.evil > .git/commondir'], { cwd: control.ws, env: control.env })
      t.ok(fs.existsSync(path.join(control.ws, '.git/commondir')), 'unconfined: the name is made and stays')
      t.same(await userRunsGit(user, w), [], 'and git works: nothing planted, nothing broken')
      const plain = confineAs(user, w.env, { backend }, ['/bin/sh', '-c', 'exit 7'], { mode: 'workspace-write', workspaceRoot: w.ws })
      t.equal((await runAs(user, plain.argv, { cwd: w.ws, env: w.env })).code, 7, 'control: a run that makes none ends as its command did')
    })

    // (a tree too deep to remove, with a hook beside fifty decoys, moved
    // onto the watched name in one step)
    t.test(`a planted hooks directory too deep to remove is moved out of git's way, under ${backend} [${user.name}]`, async (t) => {
      const w = world(user)
      git(w.ws, ['config', 'core.hooksPath', '.githooks'])
      const deep = 'd/'.repeat(70)
      const script = `mkdir -p stage/.githooks && printf '#!/bin/sh\\ntouch ${w.marks}/deep-hook\\n' > stage/.githooks/post-checkout && chmod +x stage/.githooks/post-checkout && ` +
        `for n in $(seq 1 50); do mkdir -p stage/.githooks/z$n/${deep}; done && mv stage/.githooks .githooks && sleep 3600`
      const c = confineAs(user, w.env, { backend }, ['/bin/sh', '-c', script], { mode: 'workspace-write', workspaceRoot: w.ws })
      t.notOk(c.error, `confined (${c.error && c.error.message})`)
      const r = await runAs(user, c.argv, { cwd: w.ws, env: w.env })
      t.equal(r.code, 125, `a runner failure (${describe(r)})`)
      t.notOk(fs.existsSync(path.join(w.ws, '.githooks')), 'the hooks directory is out of the way')
      const control = world(user)
      git(control.ws, ['config', 'core.hooksPath', '.githooks'])
      await runAs(user, ['/bin/sh', '-c', script.replaceAll(w.marks, control.marks).replace(' && sleep 3600', '')], { cwd: control.ws, env: control.env })
      t.ok((await userRunsGit(user, control)).some((m) => m.startsWith('deep-hook')), "unconfined: the planted hook runs at the user's next checkout")
      t.same(await userRunsGit(user, w), [], "the user's next git commands run nothing planted")
      const next = confineAs(user, w.env, { backend }, ['/bin/true'], { mode: 'workspace-write', workspaceRoot: w.ws })
      t.notOk(next.error, 'the next call confines')
    })

    t.test(`core.hooksPath and included config files stay read-only, under ${backend} [${user.name}]`, async (t) => {
      const script = (marks) => [
        `if printf '#!/bin/sh\\ntouch ${marks}/husky-$1\\n' > .husky/post-checkout && chmod +x .husky/post-checkout; then echo "husky: ok"; else echo "husky: fail"; fi`,
        `if printf '[core]\\n\\tfsmonitor = "touch ${marks}/included; false"\\n' >> shared.gitconfig; then echo "include: ok"; else echo "include: fail"; fi`
      ].join('\n')
      const make = () => {
        const w = world(user)
        fs.mkdirSync(path.join(w.ws, '.husky'))
        fs.writeFileSync(path.join(w.ws, 'shared.gitconfig'), '')
        git(w.ws, ['config', 'core.hooksPath', '.husky'])
        git(w.ws, ['config', 'include.path', '../shared.gitconfig'])
        spawnSync('chown', ['-R', `${user.uid}:${user.gid}`, w.ws])
        return w
      }
      const w = make()
      const control = make()
      const c = confineAs(user, w.env, { backend }, ['/bin/sh', '-c', script(w.marks)], { mode: 'workspace-write', workspaceRoot: w.ws })
      t.notOk(c.error, `confined (${c.error && c.error.message})`)
      const r = await runAs(user, c.argv, { cwd: w.ws, env: w.env })
      const u = await runAs(user, ['/bin/sh', '-c', script(control.marks)], { cwd: control.ws, env: control.env })
      t.equal(u.stdout, 'husky: ok\ninclude: ok\n', 'unconfined: both land')
      t.equal(r.stdout, 'husky: fail\ninclude: fail\n', `confined: both are refused (${describe(r)})`)
      const ran = await userRunsGit(user, control)
      t.ok(ran.some((m) => m.startsWith('husky-')) && ran.includes('included'), `unconfined: the user's next git commands ran them (${ran.join(', ')})`)
      t.same(await userRunsGit(user, w), [], 'confined: nothing planted runs')
    })
  }
}

// What an earlier run of the same uid can do to hide a repository from
// the next run's search: a directory made unlistable refuses the call
// (as root no directory refuses a listing: uid 65534's case).
for (const user of users().filter((u) => u.uid !== 0)) {
  t.test(`a directory of its own made unlistable refuses the call [${user.name}]`, async (t) => {
    const w = world(user)
    fs.chmodSync(path.join(w.ws, 'nested'), 0o000)
    const c = confineAs(user, w.env, { backend: 'sandy' }, ['/bin/true'], { mode: 'workspace-write', workspaceRoot: w.ws })
    t.match(c.error, { name: 'SandboxUnavailableError', message: /a directory under the writable roots cannot be searched for repositories \(EACCES\)/ })
    fs.chmodSync(path.join(w.ws, 'nested'), 0o755)
    const ok = confineAs(user, w.env, { backend: 'sandy' }, ['/bin/true'], { mode: 'workspace-write', workspaceRoot: w.ws })
    t.notOk(ok.error, 'control: listable again, confined')
  })
}
