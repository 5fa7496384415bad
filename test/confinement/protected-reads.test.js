'use strict'
// Secrets and host services out of reach (docs/protected-reads.md): in
// the seam's modes the credential files of the running user's home stay
// unreadable, the host's sockets unconnectable and the secret variables
// absent, on every Linux backend, as root and as uid 65534. Each confined
// run has its unconfined control, the same command as the same user,
// which reads the same file, connects to the same socket or sees the same
// variable. The provider confines in a node process of the user, with a
// fake home and runtime directory as its $HOME and $XDG_RUNTIME_DIR.
const t = require('tap')
const fs = require('node:fs')
const net = require('node:net')
const path = require('node:path')
const { spawnSync } = require('node:child_process')
const { users, setup, backendsFor, plainNodeEnv, describe } = require('../helpers/sandbox.js')
const { confineAs, runAs } = require('../helpers/seam-run.js')
const { PRESETS, protectedPaths, socketPaths, starMatch } = require('../../lib/protect.js')
const { SECRET_ENV } = require('../../lib/vocabulary.js')

const PACKAGE = path.join(__dirname, '..', '..')
const fx = setup(t)
// Outside /tmp: workspace-write gives the command a private one.
const base = fs.realpathSync(fs.mkdtempSync('/var/tmp/sandy-secrets-'))
fs.chmodSync(base, 0o755)
t.teardown(() => fs.rmSync(base, { recursive: true, force: true }))
// (the fixture's own copy beside them, out of the private /tmp's way)
const OP = path.join(base, 'op')
fs.copyFileSync(fx.op, OP)
fs.chmodSync(OP, 0o755)

// What each preset protects in the fake home, and the neighbours that
// must stay readable.
const DENIED = ['.ssh/id_ed25519', '.ssh/github_deploy', '.ssh/keys/work', '.aws/credentials', '.config/gh/hosts.yml', '.kube/config', '.docker/config.json',
  '.netrc', '.git-credentials', '.npmrc', '.pypirc', '.cargo/credentials.toml', '.gnupg/private-keys-v1.d/k.key',
  '.pgpass', '.vault-token', '.config/containers/auth.json', 'moved/kubeconfig']
const READABLE = ['.ssh/known_hosts', '.ssh/config', '.ssh/id_ed25519.pub', '.config/gh/config.yml']
const SECRETS = { GITHUB_TOKEN: 'gh-secret', AWS_SECRET_ACCESS_KEY: 'aws-secret', npm_config__authToken: 'npm-secret', MY_API_KEY: 'api-secret', PGPASSWORD: 'pg', TOKEN: 'bare', KEEP_TOKEN: 'kept' }

let serial = 0
function chownAll (p, user) {
  spawnSync('chown', ['-R', `${user.uid}:${user.gid}`, p])
}

// A fresh fake home, runtime directory and workspace owned by user, with
// every file above and a listening socket at each socket place; the
// servers stop at teardown.
async function world (t, user) {
  const top = path.join(base, `w${serial++}-${user.uid}`)
  const home = path.join(top, 'home')
  const runtime = path.join(top, 'run')
  const ws = path.join(top, 'ws')
  for (const f of [...DENIED, ...READABLE]) {
    fs.mkdirSync(path.dirname(path.join(home, f)), { recursive: true })
    fs.writeFileSync(path.join(home, f), `content of ${f}\n`)
  }
  fs.writeFileSync(path.join(home, '.ssh/config'), '# content of .ssh/config\nHost sandy-test-host\n  HostName example.invalid\n  Port 2222\n')
  fs.writeFileSync(path.join(home, '.ssh/known_hosts'), '[127.0.0.1]:2222 ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGsCqSOWyjf5yUGi/Hp4zx0Ac+2/fh3XJ63ddg4SUQHF\n')
  fs.mkdirSync(path.join(runtime, 'gnupg'), { recursive: true })
  fs.mkdirSync(path.join(runtime, `tmux-${user.uid}`), { recursive: true })
  fs.mkdirSync(ws, { recursive: true })
  fs.symlinkSync(path.join(home, '.ssh/id_ed25519'), path.join(ws, 'key-link'))
  chownAll(top, user)
  fs.chmodSync(top, 0o755)
  const sockets = {
    bus: path.join(runtime, 'bus'),
    gpg: path.join(runtime, 'gnupg', 'S.gpg-agent'),
    agent: path.join(home, 'agent.sock'),
    docker: path.join(top, 'docker.sock'),
    // (no preset names these two: every socket of the runtime directory,
    // and SSH's multiplexing sockets, are protected)
    tmux: path.join(runtime, `tmux-${user.uid}`, 'default'),
    master: path.join(home, '.ssh', 'cm-git@example'),
    other: path.join(runtime, 'some-agent')
  }
  const servers = await Promise.all(Object.values(sockets).map((p) => new Promise((resolve) => {
    const s = net.createServer((c) => { c.on('error', () => {}); c.resume(); c.on('end', () => c.end()) }).listen(p, () => { fs.chmodSync(p, 0o777); fs.chownSync(p, user.uid, user.gid); resolve(s) })
  })))
  // (no client of theirs is left: every run was waited for)
  t.teardown(() => { for (const s of servers) s.close() })
  const env = {
    HOME: home,
    XDG_RUNTIME_DIR: runtime,
    SSH_AUTH_SOCK: sockets.agent,
    DBUS_SESSION_BUS_ADDRESS: `unix:path=${sockets.bus},guid=0123`,
    DOCKER_HOST: `unix://${sockets.docker}`,
    KUBECONFIG: `/nowhere:${path.join(home, 'moved/kubeconfig')}`
  }
  return { top, home, runtime, ws, sockets, env }
}

const sh = (script) => ['/bin/sh', '-c', script]
// One line per probe: "NAME: ok CONTENT" or "NAME: fail".
const readScript = (files) => files.map((f) => `if v=$(cat '${f}' 2>&1); then echo "${f}: ok $v"; else echo "${f}: fail $v"; fi`).join('\n')
const lineOf = (out, name) => out.split('\n').find((l) => l.startsWith(`${name}: `)) ?? ''

// The same command confined and unconfined, as user, in w's world.
async function both (t, user, backend, w, argv, { mode = 'workspace-write', options = {}, env = {} } = {}) {
  const c = confineAs(user, w.env, { backend, ...options }, argv, { mode, workspaceRoot: w.ws })
  t.notOk(c.error, `confined as ${user.name} under ${backend} (${c.error && c.error.message})`)
  const runEnv = { PATH: '/usr/bin:/bin', LANG: 'C', ...w.env, ...env }
  const confined = await runAs(user, c.argv, { cwd: w.ws, env: runEnv })
  const unconfined = await runAs(user, argv, { cwd: w.ws, env: runEnv })
  t.equal(confined.code, 0, `confined: the script runs (${describe(confined)})`)
  t.equal(unconfined.code, 0, `unconfined: the script runs (${describe(unconfined)})`)
  return { confined, unconfined, argv: c.argv }
}

const BACKENDS = ['sandy', 'bwrap', 'landlock']
const MODES = ['workspace-write', 'read-only']

for (const user of users()) {
  for (const backend of backendsFor(t, user, BACKENDS)) {
    for (const mode of MODES) {
      t.test(`credential files are unreadable, their neighbours readable, under ${backend} ${mode} [${user.name}]`, async (t) => {
        const w = await world(t, user)
        const files = [...DENIED, ...READABLE].map((f) => path.join(w.home, f))
        const r = await both(t, user, backend, w, sh(readScript(files)), { mode })
        for (const f of DENIED) {
          const p = path.join(w.home, f)
          t.match(lineOf(r.unconfined.stdout, p), /: ok content of/, `unconfined: ${f} is readable`)
          t.match(lineOf(r.confined.stdout, p), /: fail .*Permission denied/, `confined: ${f} is not`)
        }
        for (const f of READABLE) {
          const p = path.join(w.home, f)
          t.match(lineOf(r.confined.stdout, p), /: ok \S/, `confined: ${f} stays readable`)
        }
      })
    }

    t.test(`other ways to a credential file fail too, under ${backend} [${user.name}]`, async (t) => {
      const w = await world(t, user)
      const key = path.join(w.home, '.ssh/id_ed25519')
      const ldso = fs.realpathSync('/lib64/ld-linux-x86-64.so.2')
      const script = [
        `if v=$(cat ${w.ws}/key-link 2>&1); then echo "link: ok $v"; else echo "link: fail $v"; fi`,
        `if v=$(cat /proc/self/root${key} 2>&1); then echo "root: ok $v"; else echo "root: fail $v"; fi`,
        `if v=$(cd ${w.home}/.ssh && cat /proc/self/cwd/id_ed25519 2>&1); then echo "cwd: ok $v"; else echo "cwd: fail $v"; fi`,
        `if v=$(exec 3<${key} && cat <&3 2>&1); then echo "fd: ok $v"; else echo "fd: fail $v"; fi`,
        `if v=$(exec 3<${w.home}/.ssh && cat /proc/self/fd/3/id_ed25519 2>&1); then echo "procfd: ok $v"; else echo "procfd: fail $v"; fi`,
        `echo "ldso: $(${ldso} ${key} 2>&1)"`
      ].join('\n')
      const r = await both(t, user, backend, w, sh(script))
      for (const way of ['link', 'root', 'cwd', 'fd', 'procfd']) {
        t.match(lineOf(r.unconfined.stdout, way), /: ok content of/, `unconfined: by ${way}, the key is read`)
        t.match(lineOf(r.confined.stdout, way), /: fail/, `confined: by ${way}, it is not`)
        t.notMatch(lineOf(r.confined.stdout, way), /content of/)
      }
      t.match(lineOf(r.unconfined.stdout, 'ldso'), /invalid ELF header|file too short/, 'unconfined: the loader reads the key')
      t.match(lineOf(r.confined.stdout, 'ldso'), /Permission denied|cannot open/, 'confined: the loader cannot open it')
    })

    t.test(`host sockets refuse a connect, under ${backend} [${user.name}]`, async (t) => {
      const w = await world(t, user)
      const script = Object.entries(w.sockets).map(([name, p]) => `echo "${name}: $(${OP} unix ${p})"`).join('\n')
      const r = await both(t, user, backend, w, sh(script))
      for (const name of Object.keys(w.sockets)) {
        t.match(lineOf(r.unconfined.stdout, name), /: ok$/, `unconfined: ${name} answers`)
        if (backend === 'landlock') {
          // Landlock does not govern a connect to a path-named socket:
          // the default leaves them, and the verdict says so (below)
          t.match(lineOf(r.confined.stdout, name), /: ok$/, `confined at the Landlock-only level: ${name} still answers, as its note says`)
        } else {
          t.match(lineOf(r.confined.stdout, name), /: fail connect E(ACCES|CONNREFUSED)$/, `confined: ${name} does not`)
        }
      }
      if (backend === 'landlock') {
        const asked = confineAs(user, w.env, { backend, protect: ['host-sockets'] }, ['true'], { mode: 'workspace-write', workspaceRoot: w.ws })
        t.equal(asked.error && asked.error.name, 'SandboxUnavailableError', 'asked for by name, host-sockets is refused there')
        t.match(asked.error.message, /cannot keep the host-sockets preset out of reach/)
        const denied = confineAs(user, w.env, { backend, protect: [], denyRead: [w.sockets.docker] }, ['true'], { mode: 'workspace-write', workspaceRoot: w.ws })
        t.match(denied.error && denied.error.message, /cannot keep a socket options.denyRead names out of reach/, 'and so is a socket named in denyRead')
      }
    })

    t.test(`secret variables are gone inside, kept ones stay, under ${backend} [${user.name}]`, async (t) => {
      const w = await world(t, user)
      const script = [...Object.keys(SECRETS), 'SSH_AUTH_SOCK', 'DBUS_SESSION_BUS_ADDRESS', 'PLAIN'].map((n) => `echo "${n}: [$${n}]"`).join('\n')
      const env = { ...SECRETS, PLAIN: 'plain' }
      const c = confineAs(user, w.env, { backend, keepEnv: ['KEEP_TOKEN'] }, sh(script), { mode: 'workspace-write', workspaceRoot: w.ws })
      const runEnv = { PATH: '/usr/bin:/bin', ...w.env, ...env }
      const confined = await runAs(user, c.argv, { cwd: w.ws, env: runEnv })
      const unconfined = await runAs(user, sh(script), { cwd: w.ws, env: runEnv })
      for (const n of ['GITHUB_TOKEN', 'AWS_SECRET_ACCESS_KEY', 'npm_config__authToken', 'MY_API_KEY', 'PGPASSWORD', 'TOKEN', 'SSH_AUTH_SOCK', 'DBUS_SESSION_BUS_ADDRESS']) {
        t.notMatch(lineOf(unconfined.stdout, n), /\[\]$/, `unconfined: ${n} is set`)
        t.match(lineOf(confined.stdout, n), /\[\]$/, `confined: ${n} is not`)
      }
      t.equal(lineOf(confined.stdout, 'KEEP_TOKEN'), 'KEEP_TOKEN: [kept]', 'keepEnv keeps a named one')
      t.equal(lineOf(confined.stdout, 'PLAIN'), 'PLAIN: [plain]', 'other variables pass')
    })

    t.test(`ssh still reads known_hosts and its config, under ${backend} [${user.name}]`, async (t) => {
      const w = await world(t, user)
      const script = [
        `echo "known: $(ssh-keygen -F '[127.0.0.1]:2222' -f ${w.home}/.ssh/known_hosts 2>&1 | head -1)"`,
        `echo "config: $(ssh -G -F ${w.home}/.ssh/config sandy-test-host 2>&1 | grep '^hostname ')"`,
        `echo "key: $(ssh-keygen -y -f ${w.home}/.ssh/id_ed25519 2>&1 | head -1)"`
      ].join('\n')
      const r = await both(t, user, backend, w, sh(script))
      for (const out of [r.confined.stdout, r.unconfined.stdout]) {
        t.match(lineOf(out, 'known'), /Host \[127\.0\.0\.1\]:2222 found/, 'ssh-keygen finds the host in known_hosts')
        t.equal(lineOf(out, 'config'), 'config: hostname example.invalid', 'ssh reads its config')
      }
      t.notMatch(lineOf(r.unconfined.stdout, 'key'), /Permission denied/, 'unconfined: ssh-keygen opens the private key')
      t.match(lineOf(r.confined.stdout, 'key'), /Permission denied/, 'confined: it cannot')
    })

    t.test(`a hard link to a protected file is refused at confine, under ${backend} [${user.name}]`, async (t) => {
      const w = await world(t, user)
      const link = path.join(w.ws, 'npmrc-link')
      fs.linkSync(path.join(w.home, '.npmrc'), link)
      const c = confineAs(user, w.env, { backend }, sh(`cat ${link}`), { mode: 'workspace-write', workspaceRoot: w.ws })
      t.equal(c.error && c.error.name, 'SandboxUnavailableError', 'refused: no cover over one name reaches the other')
      t.match(c.error.message, /a protected file \(credentials: npm's registry tokens\) has another hard link/)
      t.notOk(c.error.message.includes(w.home), 'the message names the entry, not the path')
      const bare = await runAs(user, sh(`cat ${link}`), { cwd: w.ws, env: { PATH: '/usr/bin:/bin' } })
      t.equal(bare.stdout, 'content of .npmrc\n', 'unconfined: the link reads the secret')
      const off = confineAs(user, w.env, { backend, protect: [] }, ['true'], { mode: 'workspace-write', workspaceRoot: w.ws })
      t.notOk(off.error, 'with no preset there is nothing to refuse')
    })

    t.test(`a protected directory made unsearchable by an earlier run is covered whole, under ${backend} [${user.name}]`, async (t) => {
      const w = await world(t, user)
      // what a command of this uid can do at the Landlock-only level, or
      // where its workspace holds the home: chmod its own directories
      const ssh = path.join(w.home, '.ssh')
      const aws = path.join(w.home, '.aws')
      const script = `chmod 700 ${ssh} ${aws} 2>/dev/null; ${readScript([path.join(ssh, 'id_ed25519'), path.join(aws, 'credentials')])}`
      const r0 = await runAs(user, sh(`chmod 0100 ${ssh} && chmod 000 ${aws}`), { cwd: w.ws, env: { PATH: '/usr/bin:/bin' } })
      t.equal(r0.code, 0, 'the user makes both unsearchable')
      const c = confineAs(user, w.env, { backend }, sh(script), { mode: 'workspace-write', workspaceRoot: w.ws })
      t.notOk(c.error, c.error && c.error.message)
      const confined = await runAs(user, c.argv, { cwd: w.ws, env: { PATH: '/usr/bin:/bin' } })
      await runAs(user, sh(`chmod 0100 ${ssh} && chmod 000 ${aws}`), { cwd: w.ws, env: { PATH: '/usr/bin:/bin' } })
      const unconfined = await runAs(user, sh(script), { cwd: w.ws, env: { PATH: '/usr/bin:/bin' } })
      for (const f of [path.join(ssh, 'id_ed25519'), path.join(aws, 'credentials')]) {
        t.match(lineOf(unconfined.stdout, f), /: ok content of/, `unconfined: the mode put back, ${path.basename(f)} is read`)
        t.match(lineOf(confined.stdout, f), /: fail .*Permission denied/, `confined: ${path.basename(f)} is not`)
      }
    })

    t.test(`a home of dotfile links under a linked, unlistable parent: covered, even made unsearchable, under ${backend} [${user.name}]`, async (t) => {
      // /var/tmp/.../homes -> data (0711, root's: searchable, not listable),
      // ~/.ssh -> dot/ssh, ~/.aws -> dot/aws, an SSH multiplexing socket
      const top = path.join(base, `links${serial++}-${user.uid}`)
      const data = path.join(top, 'data')
      const real = path.join(data, 'u')
      for (const d of ['dot/ssh', 'dot/aws', 'proj']) fs.mkdirSync(path.join(real, d), { recursive: true })
      fs.writeFileSync(path.join(real, 'dot/ssh/id_ed25519'), 'content of the key\n')
      fs.writeFileSync(path.join(real, 'dot/ssh/known_hosts'), 'hosts\n')
      fs.writeFileSync(path.join(real, 'dot/aws/credentials'), 'content of aws\n')
      fs.symlinkSync('dot/ssh', path.join(real, '.ssh'))
      fs.symlinkSync('dot/aws', path.join(real, '.aws'))
      fs.symlinkSync('data', path.join(top, 'homes'))
      chownAll(real, user)
      fs.chmodSync(top, 0o755)
      fs.chmodSync(data, 0o711)
      const master = path.join(real, 'dot/ssh/cm-host')
      const server = await new Promise((resolve) => { const s = net.createServer((c) => { c.on('error', () => {}); c.resume(); c.on('end', () => c.end()) }).listen(master, () => { fs.chownSync(master, user.uid, user.gid); resolve(s) }) })
      t.teardown(() => server.close())
      const home = path.join(top, 'homes', 'u')
      const ws = path.join(home, 'proj')
      const env = { HOME: home, XDG_RUNTIME_DIR: path.join(top, 'no-runtime') }
      const lock = `chmod 0100 ${home}/.ssh/ && chmod 000 ${home}/dot/aws`
      const script = `chmod 700 ${home}/.ssh/ ${home}/dot/aws 2>/dev/null; ${readScript([`${home}/.ssh/id_ed25519`, `${home}/.aws/credentials`])}\necho "master: $(${OP} unix ${home}/.ssh/cm-host)"`
      for (const locked of [false, true]) {
        if (locked) t.equal((await runAs(user, sh(lock), { cwd: '/', env: { PATH: '/usr/bin:/bin' } })).code, 0, 'the user makes both unsearchable, through their links')
        const c = confineAs(user, env, { backend }, sh(script), { mode: 'workspace-write', workspaceRoot: ws })
        t.notOk(c.error, c.error && c.error.message)
        const confined = await runAs(user, c.argv, { cwd: ws, env: { PATH: '/usr/bin:/bin' } })
        if (locked) await runAs(user, sh(lock), { cwd: '/', env: { PATH: '/usr/bin:/bin' } })
        const unconfined = await runAs(user, sh(script), { cwd: ws, env: { PATH: '/usr/bin:/bin' } })
        const what = locked ? 'made unsearchable' : 'as they are'
        for (const f of [`${home}/.ssh/id_ed25519`, `${home}/.aws/credentials`]) {
          t.match(lineOf(unconfined.stdout, f), /: ok content of/, `unconfined, ${what}: ${path.basename(f)} is read`)
          t.match(lineOf(confined.stdout, f), /: fail .*Permission denied/, `confined, ${what}: it is not`)
        }
        t.match(lineOf(unconfined.stdout, 'master'), /: ok$/, `unconfined, ${what}: the multiplexing socket answers`)
        t.match(lineOf(confined.stdout, 'master'), backend === 'landlock' ? /: ok$/ : /: fail connect EACCES$/, `confined, ${what}: ${backend === 'landlock' ? 'it does at the Landlock-only level, as its note says' : 'it does not'}`)
      }
    })

    t.test(`the directories above a protected file in a writable workspace cannot be renamed, under ${backend} [${user.name}]`, async (t) => {
      const w = await world(t, user)
      const script = `cd ${w.home} && mv .ssh .moved 2>&1; if [ -d .moved ]; then mv .moved .ssh; echo moved; fi`
      // (a home as the workspace: asked for, docs/protected-writes.md)
      const c = confineAs(user, w.env, { backend, allowHomeWorkspace: true }, sh(script), { mode: 'workspace-write', workspaceRoot: w.home })
      t.notOk(c.error, c.error && c.error.message)
      const confined = await runAs(user, c.argv, { cwd: w.home, env: { PATH: '/usr/bin:/bin' } })
      const unconfined = await runAs(user, sh(script), { cwd: w.home, env: { PATH: '/usr/bin:/bin' } })
      t.match(unconfined.stdout, /^moved$/m, 'unconfined: ~/.ssh is renamed (and put back)')
      t.notMatch(confined.stdout, /^moved$/m, 'confined: it is not')
      t.match(confined.stdout, /Device or resource busy|Permission denied|Operation not permitted/)
      t.ok(fs.existsSync(path.join(w.home, '.ssh', 'id_ed25519')))
    })

    t.test(`a hard link to one of the user's sockets is refused at confine, under ${backend} [${user.name}]`, async (t) => {
      const w = await world(t, user)
      const link = path.join(w.ws, 'bus-link')
      fs.linkSync(w.sockets.bus, link)
      const c = confineAs(user, w.env, { backend, protect: ['host-sockets'] }, ['true'], { mode: 'workspace-write', workspaceRoot: w.ws })
      if (backend === 'landlock') {
        t.match(c.error && c.error.message, /cannot keep the host-sockets preset/, 'the Landlock-only level refuses host-sockets first')
      } else {
        t.match(c.error && c.error.message, /a protected socket \(host-sockets: .*\) has another hard link/, 'refused')
      }
      const bare = await runAs(user, sh(`${OP} unix ${link}`), { cwd: w.ws, env: { PATH: '/usr/bin:/bin' } })
      t.equal(bare.stdout, 'ok\n', 'unconfined: the link reaches the socket')
    })

    t.test(`denyRead covers a path the caller names, and --no-protect opens the presets, under ${backend} [${user.name}]`, async (t) => {
      const w = await world(t, user)
      const own = path.join(w.top, 'project-secret')
      fs.writeFileSync(own, 'content of project-secret\n')
      chownAll(own, user)
      const files = [own, path.join(w.home, '.npmrc')]
      const r = await both(t, user, backend, w, sh(readScript(files)), { options: { protect: [], denyRead: [own] } })
      t.match(lineOf(r.unconfined.stdout, own), /: ok content/, 'unconfined: the named file is readable')
      t.match(lineOf(r.confined.stdout, own), /: fail .*Permission denied/, 'confined: denyRead covers it')
      t.match(lineOf(r.confined.stdout, files[1]), /: ok content/, 'protect: [] leaves the credentials readable')
    })
  }
}

// Every absolute place of host-sockets, with a listener the test makes:
// /run's in a mount namespace of the test's own with a tmpfs there (the
// host's /run is left alone), /tmp's under names of this run's, removed
// after. read-only, so the host's /tmp is what the command sees.
const RUN_PLACES = ['/run/docker.sock', '/var/run/docker.sock', '/run/podman/podman.sock', '/run/containerd/containerd.sock',
  '/run/buildkit/buildkitd.sock', '/run/dbus/system_bus_socket', '/run/systemd/private', '/run/screen/S-sandy/1.pts']
const placesScript = `
  const net = require('node:net'); const fs = require('node:fs'); const path = require('node:path')
  const { spawnSync } = require('node:child_process')
  const [pkg, op, backend, ws, places] = process.argv.slice(1)
  const list = JSON.parse(places)
  const servers = []
  const listen = (p) => new Promise((resolve) => { const s = net.createServer((c) => { c.on('error', () => {}); c.resume(); c.on('end', () => c.end()) }).listen(p, () => { servers.push(s); resolve() }) })
  ;(async () => {
    for (const p of list) { if (!fs.existsSync(p)) { fs.mkdirSync(path.dirname(p), { recursive: true, mode: 0o700 }); await listen(p) } }
    const script = list.map((p, i) => 'echo "' + i + ': $(' + op + ' unix ' + p + ')"').join('\\n')
    const c = require(pkg).createLocalSandboxProvider({ backend }).confine(['/bin/sh', '-c', script], { mode: 'read-only', workspaceRoot: ws })
    const confined = spawnSync(c.argv[0], c.argv.slice(1), { cwd: ws, encoding: 'utf8' })
    const unconfined = spawnSync('/bin/sh', ['-c', script], { cwd: ws, encoding: 'utf8' })
    for (const s of servers) s.close()
    process.stdout.write(JSON.stringify({ confined: confined.stdout, unconfined: unconfined.stdout, stderr: confined.stderr }))
  })()`

for (const user of users()) {
  if (process.geteuid() !== 0) break
  for (const backend of backendsFor(t, user, ['sandy', 'bwrap'])) {
    t.test(`every absolute place of host-sockets refuses a connect, under ${backend} read-only [${user.name}]`, async (t) => {
      const tag = `sandy${process.pid}x${serial++}`
      const tmp = [`/tmp/.X11-unix/X${70000 + serial}`, `/tmp/ssh-${tag}/agent.1`, `/tmp/tmux-${user.uid}/${tag}`, `/tmp/emacs${user.uid}/${tag}`]
      const made = []
      for (const p of tmp) {
        const d = path.dirname(p)
        if (!fs.existsSync(d)) {
          fs.mkdirSync(d, { mode: d === '/tmp/.X11-unix' ? 0o1777 : 0o700 })
          if (d !== '/tmp/.X11-unix') fs.chownSync(d, user.uid, user.gid)
          else fs.chmodSync(d, 0o1777)
          made.push(d)
        }
      }
      t.teardown(() => {
        for (const p of tmp) fs.rmSync(p, { force: true })
        for (const d of made.reverse()) fs.rmSync(d, { recursive: true, force: true })
      })
      const ws = path.join(base, `places-${serial}-${user.uid}`)
      fs.mkdirSync(ws)
      chownAll(ws, user)
      // root prepares the namespace's /run, each place's directory the user's
      const dirs = [...new Set(RUN_PLACES.filter((p) => !p.startsWith('/var/')).map((p) => path.dirname(p)))]
      const prep = ['mount -t tmpfs -o mode=755 tmpfs /run', ...dirs.map((d) => `mkdir -p ${d} && chown ${user.uid}:${user.gid} ${d}`)].join(' && ')
      const node = [...user.wrap, process.execPath, '-e', placesScript, PACKAGE, OP, backend, ws, JSON.stringify([...RUN_PLACES, ...tmp])]
      const r = spawnSync('/usr/bin/unshare', ['-m', '--propagation', 'private', '/bin/sh', '-c', `${prep} && exec "$@"`, 'sh', ...node],
        { cwd: '/', env: plainNodeEnv({}), encoding: 'utf8' })
      t.equal(r.status, 0, r.stderr)
      const out = JSON.parse(r.stdout || '{}')
      ;[...RUN_PLACES, ...tmp].forEach((p, i) => {
        t.match(lineOf(out.unconfined ?? '', String(i)), /: ok$/, `unconfined: ${p} answers`)
        t.match(lineOf(out.confined ?? '', String(i)), /: fail connect E(ACCES|CONNREFUSED)$/, `confined: ${p} does not (${out.stderr})`)
      })
    })
  }
}

// ---- the provider's side, in this process ----------------------------------

t.test('presets expand per home and runtime directory, with each entry\'s reason', async (t) => {
  const w = path.join(base, 'expand')
  const home = path.join(w, 'home')
  fs.mkdirSync(path.join(home, '.ssh'), { recursive: true })
  for (const f of ['id_rsa', 'id_rsa.pub', 'deploy.pem', 'known_hosts', 'config', 'authorized_keys']) fs.writeFileSync(path.join(home, '.ssh', f), f)
  fs.mkdirSync(path.join(w, 'run', 'gnupg'), { recursive: true })
  const socks = ['gnupg/S.gpg-agent.ssh', 'wayland-0']
  const servers = await Promise.all(socks.map((n) => new Promise((resolve) => { const s = net.createServer().listen(path.join(w, 'run', n), () => resolve(s)) })))
  t.teardown(() => { for (const s of servers) s.close() })
  fs.writeFileSync(path.join(w, 'run', 'wayland-0.lock'), '')
  const found = protectedPaths({ presets: ['credentials', 'host-sockets'], denyRead: [] }, { HOME: home, XDG_RUNTIME_DIR: path.join(w, 'run') })
  const names = found.map((f) => path.relative(w, f.path))
  t.ok(names.includes('home/.ssh/id_rsa') && names.includes('home/.ssh/deploy.pem'), 'every private key of ~/.ssh, whatever its name')
  t.notOk(['known_hosts', 'config', 'authorized_keys', 'id_rsa.pub'].some((f) => names.includes(`home/.ssh/${f}`)), 'its neighbours and the public keys are not protected')
  t.ok(names.includes('run/gnupg/S.gpg-agent.ssh') && names.includes('run/wayland-0'), 'the runtime directory\'s sockets')
  t.notOk(names.includes('run/wayland-0.lock'), 'and only its sockets')
  t.ok(found.every((f) => typeof f.why === 'string' && f.why.length > 0 && /^\d+:\d+$/.test(f.id)), 'each with its reason and object')
  t.same(protectedPaths({ presets: [], denyRead: [] }, { HOME: home }), [], 'no preset, nothing')
  t.throws(() => protectedPaths({ presets: [], denyRead: [path.join(w, 'missing')] }, {}), /options.denyRead\[0\] cannot be resolved/)
  const BASES = ['home', 'config', 'data', 'cache', 'runtime', 'root', 'env']
  for (const [name, entries] of Object.entries(PRESETS)) {
    t.ok(entries.every(([b, p, why]) => (BASES.includes(b) || /^\$[A-Z_]+$/.test(b)) && typeof p === 'string' && why), `${name}: every entry has a base, a pattern and a reason`)
  }
  t.same(socketPaths('unix:path=/run/user/1/bus,guid=1;unix:abstract=x'), ['/run/user/1/bus'], 'a D-Bus address\'s path')
  t.same(socketPaths('unix:///var/run/docker.sock'), ['/var/run/docker.sock'], 'a Docker host\'s')
  t.ok(socketPaths('/tmp/tmux-1/default,123,0').includes('/tmp/tmux-1/default'), 'tmux\'s')
  t.same(socketPaths('tcp://1.2.3.4:2375'), [], 'no socket path')
  t.ok(starMatch('S.gpg-agent*', 'S.gpg-agent.extra') && !starMatch('id_*', 'known_hosts') && starMatch('X*', 'X0') && starMatch('bus', 'bus') && !starMatch('bus', 'bus2'))
})

t.test('in a directory every user can write, what another uid planted is passed over', async (t) => {
  const shared = path.join(base, 'shared')
  const dir = path.join(shared, `tmux-${process.geteuid()}`)
  fs.mkdirSync(dir, { recursive: true, mode: 0o1777 })
  const servers = await Promise.all(['own', 'foreign'].map((n) => new Promise((resolve) => {
    const s = net.createServer().listen(path.join(dir, n), () => resolve(s))
  })))
  t.teardown(() => { for (const s of servers) s.close() })
  // (another uid's socket, with a second name, is what only root can make here)
  if (process.geteuid() === 0) {
    spawnSync('chown', ['12345', path.join(dir, 'foreign')])
    fs.linkSync(path.join(dir, 'foreign'), path.join(dir, 'foreign-link'))
  } else {
    fs.unlinkSync(path.join(dir, 'foreign'))
  }
  fs.symlinkSync(fs.realpathSync('/usr/bin/env'), path.join(dir, 'symlink'))
  fs.writeFileSync(path.join(dir, 'plain'), 'x')
  const found = protectedPaths({ presets: ['host-sockets'], denyRead: [] }, { TMUX_TMPDIR: shared })
    .filter((f) => f.path.startsWith(dir)).map((f) => path.basename(f.path))
  t.same(found, ['own'], 'only this uid\'s own socket: no foreign one, no link, no symlink\'s target, no file')
})

// The same rules in this process (which coverage measures), as uid 65534
// when this process is root: only another uid meets EACCES.
t.test('blocked directories, links and variable places, in this process', async (t) => {
  const nobody = process.geteuid() === 0 ? 65534 : process.geteuid()
  const as = (f) => {
    if (process.geteuid() !== 0) return f()
    process.setegid(nobody)
    process.seteuid(nobody)
    try {
      return f()
    } finally {
      process.seteuid(0)
      process.setegid(0)
    }
  }
  const top = path.join(base, 'inproc')
  const home = path.join(top, 'home')
  const mk = (rel, body) => { fs.mkdirSync(path.dirname(path.join(home, rel)), { recursive: true }); fs.writeFileSync(path.join(home, rel), body) }
  mk('dot/ssh/id_rsa', 'k'); mk('dot/ssh/known_hosts', 'h'); mk('.aws/credentials', 'a'); mk('kube/conf', 'c')
  mk('gnupg/private-keys-v1.d/one.key', 'g')
  fs.symlinkSync(path.join(home, 'dot/ssh'), path.join(home, '.ssh'))
  fs.symlinkSync('loop', path.join(home, 'loop'))
  spawnSync('chown', ['-R', `${nobody}:${nobody}`, top])
  // (a runtime directory under a file: a place that cannot be listed, nothing more)
  const env = { HOME: home, KUBECONFIG: `relative:${path.join(home, 'kube/conf')}`, GNUPGHOME: path.join(home, 'gnupg'), XDG_RUNTIME_DIR: path.join(home, 'kube/conf', 'run') }
  const names = (found) => found.map((f) => path.relative(home, f.path)).sort()
  const all = () => protectedPaths({ presets: ['credentials', 'host-sockets'], denyRead: [] }, env)
  t.same(as(() => names(all())), ['.aws/credentials', 'dot/ssh/id_rsa', 'gnupg/private-keys-v1.d', 'kube/conf'],
    'the keys through a link, $KUBECONFIG\'s absolute entries, $GNUPGHOME\'s keys')
  // a run of this uid makes them unsearchable: each is protected whole
  fs.chmodSync(path.join(home, 'dot/ssh'), 0o100)
  fs.chmodSync(path.join(home, '.aws'), 0o000)
  t.same(as(() => names(all())), ['.aws', 'dot/ssh', 'gnupg/private-keys-v1.d', 'kube/conf'], 'made unsearchable, each directory is protected whole, at its real place')
  fs.chmodSync(path.join(home, 'dot'), 0o000)
  t.same(as(() => names(all())), ['.aws', 'dot', 'gnupg/private-keys-v1.d', 'kube/conf'], 'and so is the directory above, found through the link')
  if (process.geteuid() === 0) {
    // another uid's directory in the way: the kernel keeps the command out
    spawnSync('chown', ['0:0', path.join(home, 'dot')])
    t.same(as(() => names(all())), ['.aws', 'gnupg/private-keys-v1.d', 'kube/conf'], 'another uid\'s unsearchable directory is left alone')
  }
  for (const d of ['dot', 'dot/ssh', '.aws']) fs.chmodSync(path.join(home, d), 0o700)
  spawnSync('chown', ['-R', `${nobody}:${nobody}`, top])
  // a second name of a protected file, or of a file in a protected directory
  fs.linkSync(path.join(home, 'gnupg/private-keys-v1.d/one.key'), path.join(home, 'one-link'))
  t.throws(() => as(all), /a protected directory \(credentials: GnuPG's private keys \(where \$GNUPGHOME puts them\)\) has another hard link/)
  fs.unlinkSync(path.join(home, 'one-link'))
  fs.linkSync(path.join(home, '.aws/credentials'), path.join(home, 'aws-link'))
  t.throws(() => as(all), /a protected file \(credentials: the AWS CLI's access keys\) has another hard link/)
  t.throws(() => protectedPaths({ presets: [], denyRead: [path.join(home, 'aws-link')] }, {}), /a protected file \(options.denyRead\[0\]\) has another hard link/)
  fs.unlinkSync(path.join(home, 'aws-link'))
  t.throws(() => protectedPaths({ presets: [], denyRead: [path.join(home, 'loop')] }, {}), /options.denyRead\[0\] cannot be resolved/, 'a loop of links')
  // more than the launcher takes
  const many = Array.from({ length: 130 }, (_, i) => { const f = path.join(top, `m${i}`); fs.writeFileSync(f, ''); return f })
  t.throws(() => protectedPaths({ presets: [], denyRead: many }, {}), /more than 128 protected paths/)
})

t.test('the provider checks its protection options', async (t) => {
  const { createLocalSandboxProvider } = require('../..')
  t.throws(() => createLocalSandboxProvider({ protect: ['passwords'] }), /options.protect\[0\] must be a preset name \(credentials, host-sockets\)/)
  t.throws(() => createLocalSandboxProvider({ protect: 'credentials' }), /options.protect must be an array/)
  t.throws(() => createLocalSandboxProvider({ denyRead: ['relative'] }), /options.denyRead\[0\] must be an absolute path string/)
  t.throws(() => createLocalSandboxProvider({ keepEnv: ['A=B'] }), /options.keepEnv\[0\] must be a variable name/)
  t.throws(() => createLocalSandboxProvider({ keepEnv: Array(33).fill('A') }), /at most 32/)
  t.throws(() => createLocalSandboxProvider({ runner: { argv: ['/usr/bin/env'], runnerFailureSignatures: ['runner: fatal'], enforcement: 'partial' }, protect: [] }), /cannot go with options.runner/)
  const missing = createLocalSandboxProvider({ denyRead: [path.join(base, 'no-such-file')] })
  t.throws(() => missing.confine(['true'], { mode: 'read-only', workspaceRoot: base }), { name: 'RangeError', message: /options.denyRead\[0\] cannot be resolved/ })
})

t.test('probe says which protections each backend keeps, and by what', async (t) => {
  const { createLocalSandboxProvider } = require('../..')
  const report = createLocalSandboxProvider().probe()
  const by = Object.fromEntries(report.candidates.map((c) => [c.name, c.protections]))
  t.same(by.sandy, { files: 'view', sockets: 'view', environment: 'launcher', writes: 'view', replaced: 'watch' })
  t.same(by.bwrap, { files: 'guard', sockets: 'guard', environment: 'guard', writes: 'guard', replaced: 'watch' })
  t.same(by.landlock, { files: 'landlock', sockets: null, environment: 'launcher', writes: null, replaced: 'watch' })
  t.same(by.seatbelt, { files: 'seatbelt', sockets: 'seatbelt', environment: 'shim', writes: 'seatbelt', replaced: 'seatbelt' })
  for (const c of report.candidates.filter((x) => x.usable && x.protections.sockets === null)) {
    t.match(c.reason, /does not keep host-sockets out of reach/, `${c.name}'s note names what it does not keep`)
  }
})

t.test('the secret-variable list is the launcher\'s: every entry matched, others not', async (t) => {
  const exact = SECRET_ENV.filter((e) => e.match === 'exact').map((e) => e.name)
  const suffixes = SECRET_ENV.filter((e) => e.match === 'suffix').map((e) => e.name)
  t.ok(exact.includes('SSH_AUTH_SOCK') && suffixes.includes('_TOKEN') && suffixes.includes('_API_KEY'))
  t.ok(SECRET_ENV.every((e) => e.why.length > 0), 'each with its reason')
})
