'use strict'
// The smoke test an arm64 guest of the kernel matrix runs (scripts/kernels.js
// builds its root; test/kernels/smoke-init starts it), once as root and
// once as uid 65534: node smoke.js WHO. It loads the
// package from SANDY_PKG (default /opt/sandy-native, installed without a
// build/, so the prebuild is what loads), runs `sandy probe` (table and
// --json) and confined `sandy run`s, each with its unconfined control, and
// prints TAP: "ok N - [WHO] name", with "#" lines for what it saw. The
// last line is "# end WHO plan-ok" when every check ran.
const fs = require('node:fs')
const net = require('node:net')
const os = require('node:os')
const path = require('node:path')
const { spawn } = require('node:child_process')

const who = process.argv[2] || String(process.getuid())
const pkgDir = process.env.SANDY_PKG || '/opt/sandy-native'
const sandy = path.join(pkgDir, 'bin', 'sandy')
const DENIED = /Read-only file system|Permission denied|Operation not permitted/
const FATAL = /sandy-launcher: fatal|bwrap:/

let count = 0
function note (text) {
  for (const line of String(text).replace(/\n$/, '').split('\n')) console.log(`#   ${line}`)
}
function check (ok, name, detail) {
  count++
  console.log(`${ok ? 'ok' : 'not ok'} ${count} - [${who}] ${name}`)
  if (!ok && detail !== undefined) note(typeof detail === 'string' ? detail : JSON.stringify(detail, null, 1))
  return ok
}

// Runs argv and resolves with its status, output and time; never rejects.
function run (argv, opts = {}) {
  const t0 = process.hrtime.bigint()
  return new Promise((resolve) => {
    const child = spawn(argv[0], argv.slice(1), { stdio: ['ignore', 'pipe', 'pipe'], ...opts })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d) => { stdout += d })
    child.stderr.on('data', (d) => { stderr += d })
    child.on('error', (err) => resolve({ code: null, signal: null, stdout, stderr: String(err), ms: 0 }))
    child.on('close', (code, signal) => {
      const ms = Number(process.hrtime.bigint() - t0) / 1e6
      resolve({ code, signal, stdout, stderr, ms: Math.round(ms) })
    })
  })
}
const sandyRun = (args, cmd) => run([process.execPath, sandy, 'run', ...args, '--', ...cmd])
const read = (file) => { try { return fs.readFileSync(file, 'utf8') } catch { return null } }
const brief = (r) => ({ code: r.code, signal: r.signal, stdout: r.stdout.slice(0, 400), stderr: r.stderr.slice(0, 800), ms: r.ms })
const timing = (name, r) => console.log(`# time ${who} ${name}: ${r.ms} ms`)

// A run that must have started the command and had its write refused.
function refused (r, file) {
  return r.code !== 0 && r.code !== 125 && r.stdout.includes('started') &&
    DENIED.test(r.stderr) && !FATAL.test(r.stderr) && read(file) === null
}

async function denyReadChecks (ws, bk, tag, control) {
  const secretDir = path.join(ws, 'secret-dir')
  fs.mkdirSync(secretDir)
  fs.writeFileSync(path.join(secretDir, 'inner.txt'), 'inner\n')
  fs.writeFileSync(path.join(ws, 'secret.txt'), 'secret\n')
  const reads = 'echo started; cat secret.txt; cat secret-dir/inner.txt; ls secret-dir; true'
  const r = await sandyRun(['--mode', 'workspace-write', ...bk, '--cwd', ws, '--deny-read', path.join(ws, 'secret.txt'), '--deny-read', secretDir], ['sh', '-c', reads])
  timing(`run workspace-write${tag} --deny-read`, r)
  check(r.code === 0 && r.stdout.includes('started') && !r.stdout.includes('secret') && !r.stdout.includes('inner') &&
    (r.stderr.match(/Permission denied/g) || []).length >= 3 && !FATAL.test(r.stderr),
  `workspace-write${tag} --deny-read: a denied file and directory cannot be read`, brief(r))
  if (control) {
    const c = await run(['sh', '-c', reads], { cwd: ws })
    check(c.code === 0 && c.stdout.includes('secret') && c.stdout.includes('inner'), 'control: the same reads, unconfined, succeed', brief(c))
  }
}

async function modeChecks (base, backend) {
  const tag = backend ? ` --backend ${backend}` : ''
  const bk = backend ? ['--backend', backend] : []
  const ws = fs.mkdtempSync(path.join(os.tmpdir(), `ws-${backend || 'auto'}-`))
  const outside = path.join(base, `outside-${backend || 'auto'}`)
  fs.mkdirSync(outside, { recursive: true })

  // workspace-write: a write inside the workspace lands
  let r = await sandyRun(['--mode', 'workspace-write', ...bk, '--cwd', ws], ['sh', '-c', 'echo started; echo in > in.txt'])
  timing(`run workspace-write${tag} inside`, r)
  check(r.code === 0 && read(path.join(ws, 'in.txt')) === 'in\n', `workspace-write${tag}: a write inside the workspace lands`, brief(r))

  // workspace-write: a write outside it is refused; unconfined it lands
  const out = path.join(outside, 'ww.txt')
  r = await sandyRun(['--mode', 'workspace-write', ...bk, '--cwd', ws], ['sh', '-c', `echo started; echo out > ${out}`])
  timing(`run workspace-write${tag} outside`, r)
  check(refused(r, out), `workspace-write${tag}: a write outside the workspace is refused`, brief(r))
  if (!backend) {
    const c = await run(['sh', '-c', `echo out > ${out}`], { cwd: ws })
    check(c.code === 0 && read(out) === 'out\n', 'control: the same write outside, unconfined, lands', brief(c))
    fs.rmSync(out, { force: true })
  }

  // --deny-read: a file and a directory covered by the deny objects of the
  // view or of bubblewrap's guard, read unconfined (not under landlock,
  // which refuses a --deny-read while the host-sockets preset is on)
  if (backend !== 'landlock') await denyReadChecks(ws, bk, tag, !backend)

  // read-only: /dev/null takes writes, the workspace does not
  const ro = path.join(ws, 'ro.txt')
  r = await sandyRun(['--mode', 'read-only', ...bk, '--cwd', ws], ['sh', '-c', 'echo x > /dev/null && echo started; echo in > ro.txt'])
  timing(`run read-only${tag}`, r)
  check(refused(r, ro), `read-only${tag}: a write inside the workspace is refused (/dev/null is not)`, brief(r))
  if (!backend) {
    const c = await run(['sh', '-c', 'echo in > ro.txt'], { cwd: ws })
    check(c.code === 0 && read(ro) === 'in\n', 'control: the same write, unconfined, lands', brief(c))
  }
}

async function networkChecks (base) {
  let accepted = 0
  const server = net.createServer((s) => { accepted++; s.end() })
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = server.address().port
  const client = `const s = require('net').connect(${port}, '127.0.0.1');` +
    "s.on('connect', () => { console.log('connected'); s.end() });" +
    "s.on('error', (e) => { console.log('error ' + e.code); process.exit(3) })"
  const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'ws-net-'))
  // node's own tree (/usr here) is readable and executable, /etc readable
  const nodeTree = path.dirname(path.dirname(fs.realpathSync(process.execPath)))
  const trees = [...new Set(['/usr', '/etc', nodeTree])]
  const policy = (network) => {
    const file = path.join(base, `policy-${network}.json`)
    fs.writeFileSync(file, JSON.stringify({
      schema_version: 1,
      network,
      allow_subprocesses: true,
      grants: [...trees.map((t) => ({ path: t, access: 'read', scope: 'subtree' })), { path: ws, access: 'read_write', scope: 'subtree' }],
      executable_grants: trees.filter((t) => t !== '/etc').map((t) => ({ path: t, scope: 'subtree' })),
      deny_subtrees: [],
      deny_write_exact: []
    }))
    return file
  }
  const nodeClient = [process.execPath, '-e', client]

  let before = accepted
  let r = await sandyRun(['--policy', policy('block_all'), '--cwd', ws], nodeClient)
  timing('run policy network block_all', r)
  check(r.code === 3 && /^error E/.test(r.stdout) && accepted === before && !FATAL.test(r.stderr),
    `policy network block_all: a TCP connect to 127.0.0.1:${port} is refused (${r.stdout.trim()})`, brief(r))

  before = accepted
  r = await sandyRun(['--policy', policy('allow_all'), '--cwd', ws], nodeClient)
  timing('run policy network allow_all', r)
  check(r.code === 0 && r.stdout.trim() === 'connected' && accepted === before + 1,
    'control: policy network allow_all, the same connect succeeds', brief(r))

  before = accepted
  r = await run(nodeClient)
  check(r.code === 0 && r.stdout.trim() === 'connected' && accepted === before + 1,
    'control: unconfined, the same connect succeeds', brief(r))
  server.close()
}

async function main () {
  console.log(`# ${who}: uid ${process.getuid()}, node ${process.version}, ${process.arch}, kernel ${os.release()}`)
  const base = fs.mkdtempSync(path.join(process.env.HOME || os.tmpdir(), '.smoke-'))

  // the package loads, with the prebuild's addon
  let binding
  try {
    require(pkgDir)
    binding = require(path.join(pkgDir, 'lib', 'binding.js'))
    const want = path.join(pkgDir, 'prebuilds', `linux-${process.arch}`, 'sandy.napi.glibc.node')
    check(binding.addonPath === want, `require: the addon is the prebuild (${binding.addonPath})`)
  } catch (err) {
    check(false, 'require: the package loads', String(err && err.stack))
  }

  // sandy probe, table and JSON
  let r = await run([process.execPath, sandy, 'probe', '--root', base])
  timing('probe', r)
  check(r.code === 0 && /Backends/.test(r.stdout), 'sandy probe exits 0 with its table', brief(r))
  note(r.stdout)
  r = await run([process.execPath, sandy, 'probe', '--json', '--root', base])
  timing('probe --json', r)
  let report = null
  try { report = JSON.parse(r.stdout) } catch {}
  check(r.code === 0 && report !== null, 'sandy probe --json exits 0 with a JSON report', brief(r))
  if (report === null) report = { backends: {} }
  for (const [name, v] of Object.entries(report.backends)) {
    console.log(`# verdict ${who} ${name} usable=${v.usable} enforcement=${v.enforcement} reason=${v.reason}`)
  }
  console.log(`# facts ${who} kernel=${report.kernelRelease} landlockAbi=${report.landlockAbi} userNamespaces=${report.userNamespaces} ` +
    `pidNamespace=${report.pidNamespace} mountApi=${report.mountApi} openat2=${report.openat2} seccomp=${report.seccompFilter} ` +
    `bwrap=${report.bwrap && report.bwrap.works} auto=${report.package && report.package.autoSelects}`)
  // Landlock ABI 6 and user namespaces are what the sandy backend needs
  // (docs/ci.md): with them it must be usable.
  if (report.landlockAbi >= 6 && report.userNamespaces) {
    check(report.backends.sandy && report.backends.sandy.usable === true, 'probe: the sandy backend is usable (Landlock ABI >= 6, user namespaces)', report.backends.sandy)
  }

  const usable = Object.entries(report.backends).filter(([, v]) => v.usable).map(([k]) => k)
  if (usable.length === 0) {
    check(false, 'probe: some backend is usable, so the runs can confine')
  } else {
    await modeChecks(base, null)
    // each other usable backend, by name (auto's choice ran just above)
    for (const b of usable.filter((b) => b !== report.package.autoSelects)) await modeChecks(base, b)
    // a policy document runs on the sandy backend only
    if (usable.includes('sandy')) await networkChecks(base)
    else console.log(`# skip ${who} network checks: a policy document needs the sandy backend`)
  }
  console.log(`1..${count}`)
  console.log(`# end ${who} plan-ok`)
}

main().catch((err) => {
  check(false, 'the smoke test itself', String(err && err.stack))
  console.log(`1..${count}`)
})
