'use strict'
// `sandy run --mode`: the seam's modes from the command line, with each
// usable backend, as root and as an unprivileged user.
const t = require('tap')
const fs = require('node:fs')
const path = require('node:path')
const { spawn, spawnSync } = require('node:child_process')
const { users, backendsFor, withSanitizerEnv, plainNodeEnv } = require('../helpers/sandbox.js')
const { installPackage } = require('../helpers/package-copy.js')
const { runCommand } = require('../../lib/cli-run.js')
const { main } = require('../../lib/cli.js')

const SANDY = path.join(__dirname, '..', '..', 'bin', 'sandy')

const dir = fs.realpathSync(fs.mkdtempSync('/var/tmp/sandy-cli-'))
fs.chmodSync(dir, 0o755)
t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }))

// The CLI as a process; env -u NODE_OPTIONS keeps tap's hooks out of it.
function cli (user, args, cwd) {
  const argv = [...user.wrap, '/usr/bin/env', '-u', 'NODE_OPTIONS', process.execPath, SANDY, ...args]
  return new Promise((resolve) => {
    const child = spawn(argv[0], argv.slice(1), { cwd, env: withSanitizerEnv({ PATH: '/usr/bin:/bin' }), stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d) => { stdout += d })
    child.stderr.on('data', (d) => { stderr += d })
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }))
  })
}

for (const user of users()) {
  const ws = path.join(dir, `ws-${user.uid}`)
  const outdir = path.join(dir, `outside-${user.uid}`)
  const outside = path.join(outdir, 'file')
  for (const d of [ws, outdir]) {
    fs.mkdirSync(d)
    fs.chownSync(d, user.uid, user.gid)
  }
  // (a root process is not offered the Landlock-only level; the CLI run as
  // uid 65534 is, by its own probe)
  for (const backend of backendsFor(t, user, ['sandy', 'bwrap', 'landlock'])) {
    t.test(`sandy run --mode with ${backend} [${user.name}]`, async (t) => {
      const write = (target) => ['/bin/sh', '-c', `echo x > ${target}`]
      const made = path.join(ws, `made-${backend}`)
      const ok = await cli(user, ['run', '--mode', 'workspace-write', '--backend', backend, '--', ...write(made)], ws)
      t.equal(ok.code, 0, ok.stderr)
      t.ok(fs.existsSync(made), 'the workspace write landed')

      const denied = await cli(user, ['run', '--mode', 'workspace-write', '--root', ws, '--backend', backend, '--', ...write(outside)], '/')
      t.not(denied.code, 0)
      t.match(denied.stderr, /Read-only file system|Permission denied/)
      t.notOk(fs.existsSync(outside), 'nothing outside the root')

      const ro = await cli(user, ['run', '--mode', 'read-only', '--backend', backend, '--', ...write(path.join(ws, 'ro'))], ws)
      t.not(ro.code, 0)
      t.notOk(fs.existsSync(path.join(ws, 'ro')), 'read-only wrote nothing')

      // the same writes succeed unconfined
      for (const target of [outside, path.join(ws, 'ro')]) {
        const bare = await new Promise((resolve) => {
          const argv = [...user.wrap, ...write(target)]
          spawn(argv[0], argv.slice(1)).on('close', resolve)
        })
        t.equal(bare, 0, `unconfined, ${path.basename(target)} can be written`)
        fs.rmSync(target)
      }
    })
  }
}

t.test('sandy run --mode argument errors and refusals', async (t) => {
  const lines = []
  const io = { out: (x) => lines.push(x), err: (x) => lines.push(x) }
  for (const args of [
    ['--mode', 'read-only', '--policy', '/x.json', '--', 'true'],
    ['--policy', '/x.json', '--root', dir, '--', 'true'],
    ['--policy', '/x.json', '--backend', 'bwrap', '--', 'true'],
    ['--root', dir, '--', 'true']
  ]) {
    lines.length = 0
    t.equal(await runCommand(args, io), 2, `usage error: ${JSON.stringify(args)}`)
  }
  lines.length = 0
  t.equal(await runCommand(['--mode', 'read-only', '--backend', 'seatbelt', '--', 'true'], io), 1)
  t.match(lines.join(''), /seatbelt backend is not usable[\s\S]*\n {2}seatbelt: /, 'the reasons are listed')
  lines.length = 0
  t.equal(await runCommand(['--mode', 'danger-full-access', '--', 'true'], io), 2, 'a usage error')
  t.match(lines.join(''), /^sandy run: --mode danger-full-access would run the command unconfined: run it without sandy\n/)
  lines.length = 0
  t.equal(await runCommand(['--mode', 'read-only', '--root', dir, '--cwd', dir, '--', '/bin/sh', '-c', 'exit 3'], io), 3, 'exit status passes through')
  t.equal(await main(['run', '--mode', 'read-only', '--', '/bin/true'], io), 0, 'dispatched by the CLI')
  lines.length = 0
  const pkgRoot = path.join(__dirname, '..', '..')
  t.equal(await runCommand(['--mode', 'workspace-write', '--root', pkgRoot, '--cwd', dir, '--', '/bin/true'], io), 0)
  t.match(lines.join(''), /^sandy: warning: sandy-native's own files \(its JavaScript and addon\) lie inside the writable workspace: /,
    'a workspace holding the package itself: warned on stderr, and run')
  lines.length = 0
  t.equal(await runCommand(['--mode', 'read-only', '--root', pkgRoot, '--cwd', dir, '--', '/bin/true'], io), 0)
  t.same(lines, [], 'read-only: nothing there is writable, no warning')
})

// The warning about the package inside the workspace, in one process
// (issue 31): a run says it once per workspace root, however the root is
// spelt; `sandy probe` shows it whenever asked, once, and a run after it
// does not say it again. Each process is a fresh copy of the CLI's modules
// (the binding shared), so that no other case of this file has printed it.
const INSIDE = /sandy-native's own files \(its JavaScript and addon\) lie inside the writable workspace: /g
t.test('the package-inside warning is printed once per workspace root in one process', async (t) => {
  const processOf = () => t.mockRequire('../../lib/cli.js', { '../../lib/binding.js': require('../../lib/binding.js') })
  const pkgRoot = fs.realpathSync(path.join(__dirname, '..', '..'))
  const alias = path.join(dir, 'alias-of-the-package')
  fs.symlinkSync(pkgRoot, alias)
  // how often stdout and stderr carry the warning
  const said = async (cli, args) => {
    const c = { out: '', err: '' }
    t.equal(await cli.main(args, { out: (x) => { c.out += x }, err: (x) => { c.err += x } }), 0, args.join(' '))
    return { out: (c.out.match(INSIDE) || []).length, err: (c.err.match(INSIDE) || []).length }
  }
  const run = (root) => ['run', '--mode', 'workspace-write', '--root', root, '--cwd', dir, '--', '/bin/true']
  const one = processOf()
  t.same(await said(one, run(pkgRoot)), { out: 0, err: 1 }, 'the first run warns')
  t.same(await said(one, run(pkgRoot)), { out: 0, err: 0 }, 'the second run in this process does not')
  t.same(await said(one, run(alias)), { out: 0, err: 0 }, 'nor a run with the same root spelt through a symlink')
  t.same(await said(one, ['probe', '--root', pkgRoot]), { out: 1, err: 0 }, 'sandy probe --root, asked, shows it once')
  t.same(await said(one, ['probe', '--root', pkgRoot]), { out: 1, err: 0 }, 'and again when asked again')
  const two = processOf()
  t.same(await said(two, ['probe', '--root', alias]), { out: 1, err: 0 }, 'another process: its probe shows it')
  t.same(await said(two, run(pkgRoot)), { out: 0, err: 0 }, 'and a run after that probe of its root does not say it again')
  t.same(await said(processOf(), run(alias)), { out: 0, err: 1 }, 'control: a third process\'s first run warns')
})

// The ordinary layout: a project with the package in its own node_modules,
// and one Node process (the copy's main(), as a program that embeds the
// CLI runs it) confining there again and again: each root that holds the
// package is warned about once, another root again.
t.test('on the ordinary layout each root that holds the package is warned about once per process', async (t) => {
  const project = path.join(dir, 'project')
  fs.mkdirSync(project)
  const pkg = installPackage(project, { uid: process.getuid(), gid: process.getgid() })
  const modules = path.join(project, 'node_modules')
  const steps = [[project], [project], [modules], [project], [modules], [project, 'probe']]
  const script = `const { main } = require(${JSON.stringify(path.join(pkg, 'lib', 'cli.js'))})
    const pattern = ${INSIDE}
    ;(async () => {
      const counts = []
      for (const [root, probe] of ${JSON.stringify(steps)}) {
        let text = ''
        const io = { out: (x) => { text += x }, err: (x) => { text += x } }
        const args = probe ? ['probe', '--root', root] : ['run', '--mode', 'workspace-write', '--root', root, '--cwd', root, '--', '/bin/true']
        counts.push([await main(args, io), (text.match(pattern) || []).length])
      }
      process.stdout.write(JSON.stringify(counts))
    })()`
  const r = spawnSync('/usr/bin/env', ['-u', 'NODE_OPTIONS', process.execPath, '-e', script], { cwd: project, env: plainNodeEnv(withSanitizerEnv({})), encoding: 'utf8' })
  t.equal(r.status, 0, r.stderr)
  t.same(JSON.parse(r.stdout || 'null'), [[0, 1], [0, 0], [0, 1], [0, 0], [0, 0], [0, 1]],
    'the project: warned once; its node_modules, another root: once; sandy probe --root, asked: shown once')
})

// The shield flags reach the provider: the named file is unreadable inside
// (exit 3 if it is read), the kept variable is there (exit 4 if not).
t.test('sandy run --mode passes --deny-read, --protect, --no-protect and --keep-env on', async (t) => {
  const secret = path.join(dir, 'named-secret')
  fs.writeFileSync(secret, 'x')
  process.env.SANDY_EDGE_TOKEN = 'v'
  t.teardown(() => { delete process.env.SANDY_EDGE_TOKEN })
  const probe = ['/bin/sh', '-c', `if cat '${secret}' >/dev/null 2>&1; then exit 3; fi; [ "$SANDY_EDGE_TOKEN" = v ] || exit 4`]
  const io = { out: () => {}, err: () => {} }
  t.equal(require('node:child_process').spawnSync(probe[0], probe.slice(1)).status, 3, 'unconfined: the file is read')
  const base = ['--mode', 'read-only', '--backend', 'sandy', '--root', dir, '--cwd', dir, '--deny-read', secret]
  t.equal(await runCommand([...base, '--protect', 'credentials', '--keep-env', 'SANDY_EDGE_TOKEN', '--', ...probe], io), 0, '--protect: unreadable, the kept variable there')
  t.equal(await runCommand([...base, '--no-protect', '--keep-env', 'SANDY_EDGE_TOKEN', '--', ...probe], io), 0, '--no-protect: the named file is still unreadable')
  t.equal(await runCommand([...base, '--', ...probe], io), 4, 'without --keep-env the token is removed')
})

// The protected writes' flags (docs/protected-writes.md), in this process:
// a hook written into a repository of the workspace is refused by default
// and with --protect-write git, written with --no-protect-writes (unconfined
// control: it is written); --allow-home lets a workspace that is the home
// run, which is refused without it.
t.test('sandy run --mode passes --protect-write, --no-protect-writes and --allow-home on', async (t) => {
  const repo = fs.mkdtempSync(path.join(dir, 'repo-'))
  require('node:child_process').spawnSync('git', ['init', '-q', repo])
  const hook = path.join(repo, '.git', 'hooks', 'post-checkout')
  const plant = ['/bin/sh', '-c', `echo x > '${hook}' 2>/dev/null || exit 5`]
  const io = { out: () => {}, err: () => {} }
  t.equal(require('node:child_process').spawnSync(plant[0], plant.slice(1)).status, 0, 'unconfined: the hook is written')
  fs.rmSync(hook)
  const base = ['--mode', 'workspace-write', '--backend', 'sandy', '--root', repo, '--cwd', repo]
  t.equal(await runCommand([...base, '--', ...plant], io), 5, 'by default: refused')
  t.equal(await runCommand([...base, '--protect-write', 'git', '--', ...plant], io), 5, '--protect-write git: refused')
  t.equal(await runCommand([...base, '--no-protect-writes', '--', ...plant], io), 0, '--no-protect-writes: written')
  const saved = process.env.HOME
  process.env.HOME = repo
  t.teardown(() => { process.env.HOME = saved })
  const lines = []
  t.equal(await runCommand([...base, '--', 'true'], { out: () => {}, err: (s) => lines.push(s) }), 1, 'a workspace that is the home: refused, as a policy is')
  t.match(lines.join(''), /is or holds the home directory/)
  t.equal(await runCommand([...base, '--allow-home', '--', 'true'], io), 0, '--allow-home: it runs')
})
