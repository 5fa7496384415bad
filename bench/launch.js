#!/usr/bin/env node
'use strict'
// What a confined command costs to launch (issue 32), in one table from one
// run: a bare spawnSync of /bin/true; the two floors, static helpers built
// here from bench/floors/ with the compilers found (exec only; the kernel
// work the sandy backend's promises need: user, mount, IPC and PID
// namespaces, the identity maps, the fork into the PID namespace and a
// fresh /proc); every usable backend in both of the seam's modes; Sandy
// policies through confinePolicy with 1, 10, 100 and 1,000 grants; and,
// with --peers, plain bubblewrap and dsh's landlock-run (installed into a
// scratch folder, never a dependency). The variants are interleaved round
// by round, so that drift on a busy machine hits all alike; medians,
// ratios to the bare spawn and to the floors. Then confine() and
// confinePolicy() per call, the first probe() in fresh processes, and the
// launcher's peak RSS. As root it runs itself again as uid 65534 (the
// checkout must be readable by it) and prints both columns. Never fails on
// time.
//   node bench/launch.js [--rounds N] [--ballast MB] [--peers] [--against REV]
// --ballast MB: the measuring process holds MB megabytes (a Node process of
// an agent's size: every spawn forks it), and the table gains confine()
// plus the spawn it wraps, against the bare spawn. --against REV adds the
// sandy backend's argvs run by the launcher of git revision REV, built here.
const { spawn, spawnSync, execFileSync } = require('node:child_process')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')

const PACKAGE = path.join(__dirname, '..')
const sandy = require(PACKAGE)
const NOBODY = 65534
const GRANTS = [1, 10, 100, 1000]

function option (name, fallback) {
  const at = process.argv.indexOf(name)
  return at < 0 ? fallback : process.argv[at + 1]
}
const flag = (name) => process.argv.includes(name)
const rounds = Number(option('--rounds', 200))
const ballastMb = Number(option('--ballast', 0))
const peers = flag('--peers')
const against = option('--against', null)
const child = flag('--child') // the uid 65534 run: JSON on stdout
const ballast = ballastMb > 0 ? Buffer.alloc(ballastMb * 1024 * 1024, 1) : null

const quantile = (xs, q) => [...xs].sort((a, b) => a - b)[Math.floor(q * (xs.length - 1))]
const median = (xs) => quantile(xs, 0.5)
const scratch = (name) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `sandy-bench-${name}-`))
  fs.chmodSync(dir, 0o755)
  return dir
}
const say = (line) => process.stderr.write(`bench: ${line}\n`)

// The floors, static where a static toolchain is found: musl-gcc, then
// the host's cc -static, then a dynamic cc (named in the table).
function buildFloors (dir) {
  const out = {}
  for (const name of ['exec', 'namespaces']) {
    const src = path.join(__dirname, 'floors', `${name}.c`)
    for (const [cc, how] of [['musl-gcc', 'static musl'], ['cc', 'static glibc'], ['cc', 'dynamic']]) {
      const file = path.join(dir, name)
      const flags = how === 'dynamic' ? [] : ['-static']
      if (spawnSync(cc, ['-O2', '-Wall', '-Wextra', '-Werror', ...flags, '-o', file, src], { stdio: 'ignore' }).status === 0) {
        out[name] = { file, how }
        break
      }
    }
    if (!out[name]) say(`no compiler builds bench/floors/${name}.c: its floor is left out`)
  }
  return out
}

// The launcher of revision rev, built from that revision's tree, or null.
function launcherAt (rev, dir) {
  const git = (...a) => execFileSync('git', ['-C', PACKAGE, ...a], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim()
  try {
    rev = git('rev-parse', '--short', rev)
  } catch {
    say(`no git revision ${rev} here: the comparison is left out`)
    return null
  }
  execFileSync('sh', ['-c', 'git -C "$0" archive "$1" | tar -x -C "$2"', PACKAGE, rev, dir])
  execFileSync('make', ['-s', '-C', path.join(dir, 'csrc'), 'launcher', `O=${path.join(dir, 'out')}`], { stdio: 'ignore' })
  return { rev, launcher: path.join(dir, 'out', 'sandy-launcher') }
}

// dsh's Landlock-only launcher, from npm into dir, or null.
function landlockRun (dir) {
  const r = spawnSync('npm', ['install', '--prefix', dir, '--no-save', '--no-audit', '--no-fund', '--no-package-lock', '@deepseek-ai/node-addon-landlock-run@0.1.1'], { stdio: 'ignore' })
  const file = path.join(dir, 'node_modules', '@deepseek-ai', `node-addon-landlock-run-linux-${process.arch}`, 'bin', 'landlock-run')
  if (r.status !== 0 || !fs.existsSync(file)) {
    say('@deepseek-ai/node-addon-landlock-run could not be installed: its row is left out')
    return null
  }
  fs.chmodSync(dir, 0o755)
  return file
}

const bwrapPath = () => ['/usr/bin/bwrap', '/bin/bwrap'].find((f) => fs.existsSync(f))

// The rows: [name, () => argv] (a function, for the rows that confine per
// call), for this user.
function variants (ws, grants, floors, extra) {
  const argv = ['/bin/true']
  const rows = [['bare /bin/true', () => argv]]
  if (floors.exec) rows.push([`floor: exec only (${floors.exec.how})`, () => [floors.exec.file, ...argv]])
  if (floors.namespaces) rows.push([`floor: namespaces, maps, pid 1, /proc (${floors.namespaces.how})`, () => [floors.namespaces.file, ...argv]])
  const probe = sandy.probe()
  for (const backend of ['sandy', 'landlock', 'bwrap']) {
    if (!probe.backends[backend].usable) continue
    // (the Landlock-only level refuses uid 0, docs/backends.md)
    if (backend === 'landlock' && process.getuid() === 0) continue
    const provider = sandy.createLocalSandboxProvider({ backend })
    for (const mode of ['read-only', 'workspace-write']) {
      const words = provider.confine(argv, { mode, workspaceRoot: ws }).argv
      rows.push([`${backend} ${mode}`, () => words])
      if (extra.old && backend === 'sandy') rows.push([`${backend} ${mode} @${extra.old.rev}`, () => [extra.old.launcher, ...words.slice(1)]])
    }
    if (ballast && backend === 'sandy') {
      rows.push(['sandy workspace-write, confine() + spawn', () => provider.confine(argv, { mode: 'workspace-write', workspaceRoot: ws }).argv])
    }
  }
  if (probe.backends.sandy.usable) {
    for (const n of GRANTS) {
      const words = sandy.confinePolicy(argv, grantsPolicy(grants, n), { cwd: grants }).argv
      rows.push([`sandy, Sandy policy of ${n} grant${n > 1 ? 's' : ''}`, () => words])
    }
  }
  const bwrap = bwrapPath()
  if (peers && bwrap) {
    const words = [bwrap, '--unshare-user', '--unshare-ipc', '--unshare-pid', '--die-with-parent', '--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp', '--bind', ws, ws, ...argv]
    if (spawnSync(words[0], words.slice(1), { stdio: 'ignore' }).status === 0) rows.push(['peer: plain bwrap, workspace-write', () => words])
    else say('plain bwrap does not run here: its row is left out')
  }
  if (peers && extra.landlockRun) {
    const words = [extra.landlockRun, '--ro', '/', '--rw', ws, '--rw', '/dev/null', '--', ...argv]
    if (spawnSync(words[0], words.slice(1), { stdio: 'ignore' }).status === 0) rows.push(['peer: dsh landlock-run, workspace-write', () => words])
    else say('landlock-run does not run here: its row is left out')
  }
  return rows
}

// /usr to read and run, the grants' tree to write, and n - 1 of its
// directories to read beside it.
function grantsPolicy (ws, n) {
  let p = new sandy.SandboxPolicy(sandy.NetworkPolicy.AllowAll)
    .grant('/usr', sandy.AccessMode.Read, sandy.PathScope.Subtree)
    .allowExecute('/usr', sandy.PathScope.Subtree)
    .grant(ws, sandy.AccessMode.ReadWrite, sandy.PathScope.Subtree)
  for (let i = 0; i < n - 1; i++) p = p.grant(path.join(ws, 'g', String(i)), sandy.AccessMode.Read, sandy.PathScope.Subtree)
  return p
}

function timeSpawns (rows, ws) {
  const samples = rows.map(() => [])
  for (let i = 0; i < rounds; i++) {
    rows.forEach(([name, words], k) => {
      const start = process.hrtime.bigint()
      const w = words()
      const r = spawnSync(w[0], w.slice(1), { cwd: ws, stdio: 'ignore' })
      samples[k].push(Number(process.hrtime.bigint() - start) / 1e6)
      if (r.status !== 0) throw new Error(`${name} exited ${r.status} ${r.signal || ''}`)
    })
  }
  return rows.map(([name], k) => [name, median(samples[k]), quantile(samples[k], 0.9)])
}

const usPer = (calls, f) => {
  const xs = []
  for (let i = 0; i < calls; i++) {
    const t0 = process.hrtime.bigint()
    f()
    xs.push(Number(process.hrtime.bigint() - t0) / 1e3)
  }
  return median(xs)
}

function callCosts (ws, grants) {
  const out = {}
  if (!sandy.probe().backends.sandy.usable) return out
  const provider = sandy.createLocalSandboxProvider({ backend: 'sandy' })
  for (const mode of ['read-only', 'workspace-write']) {
    provider.confine(['true'], { mode, workspaceRoot: ws })
    out[`confine() ${mode}`] = usPer(300, () => provider.confine(['true'], { mode, workspaceRoot: ws }))
  }
  for (const n of GRANTS) {
    const policy = grantsPolicy(grants, n)
    sandy.confinePolicy(['true'], policy, { cwd: grants })
    out[`confinePolicy() ${n}`] = usPer(n >= 1000 ? 30 : 100, () => sandy.confinePolicy(['true'], policy, { cwd: grants }))
  }
  return out
}

// The first probe() of a fresh Node process (its cache is per process).
function probeCost () {
  const script = `const s = require(${JSON.stringify(PACKAGE)}); const t0 = process.hrtime.bigint(); s.probe(); process.stdout.write(String(Number(process.hrtime.bigint() - t0) / 1e6))`
  const env = { ...process.env }
  delete env.NODE_OPTIONS
  const xs = []
  for (let i = 0; i < 9; i++) {
    const r = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', env })
    if (r.status === 0) xs.push(Number(r.stdout))
  }
  return xs.length ? median(xs) : null
}

// The launcher's processes' peak RSS (VmHWM: the outer process, the init,
// the watch's keeper), read while the command they started waits.
function launcherRss (ws) {
  if (!sandy.probe().backends.sandy.usable) return Promise.resolve(null)
  const words = sandy.createLocalSandboxProvider({ backend: 'sandy' })
    .confine(['/bin/sh', '-c', 'echo ready; read x'], { mode: 'workspace-write', workspaceRoot: ws }).argv
  const hwm = (pid) => {
    try {
      return Number(/^VmHWM:\s+(\d+) kB/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))[1])
    } catch { return 0 }
  }
  const kids = (pid) => fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d)).filter((d) => {
    try {
      const stat = fs.readFileSync(`/proc/${d}/stat`, 'utf8')
      return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid
    } catch { return false }
  }).map(Number)
  return new Promise((resolve) => {
    const c = spawn(words[0], words.slice(1), { cwd: ws, stdio: ['pipe', 'pipe', 'ignore'] })
    let seen = ''
    c.stdout.on('data', (d) => {
      seen += d
      if (!seen.includes('ready')) return
      // the init's children are the command (not the launcher any more)
      const mine = [c.pid, ...kids(c.pid)]
      const kb = Math.max(...mine.map(hwm))
      c.stdin.end('\n')
      c.on('close', () => resolve(kb))
    })
  })
}

// The seam's workspace: a git repository of 20 directories (the protected
// writes' search looks at each directory at every confine(): a larger tree
// costs more, bench/confine.js shows how much); the Sandy policies' grants
// in a tree of their own.
async function measure (floors, extra) {
  const top = scratch('launch')
  const ws = path.join(top, 'ws')
  const grants = path.join(top, 'grants')
  try {
    spawnSync('git', ['init', '-q', ws])
    for (let i = 0; i < 20; i++) fs.mkdirSync(path.join(ws, `src${i % 4}`, `d${i}`), { recursive: true })
    for (let i = 0; i < Math.max(...GRANTS) - 1; i++) fs.mkdirSync(path.join(grants, 'g', String(i)), { recursive: true })
    const rows = variants(ws, grants, floors, extra)
    return {
      uid: process.getuid(),
      spawns: timeSpawns(rows, ws),
      calls: callCosts(ws, grants),
      probe: probeCost(),
      rssKb: await launcherRss(ws)
    }
  } finally {
    fs.rmSync(top, { recursive: true, force: true })
  }
}

function asNobody (floors, extra) {
  const setpriv = ['/usr/bin/setpriv', '/bin/setpriv'].find((f) => fs.existsSync(f))
  if (!setpriv) {
    say('no setpriv: the uid 65534 column is left out')
    return null
  }
  const args = [`--reuid=${NOBODY}`, `--regid=${NOBODY}`, '--clear-groups', process.execPath, __filename, '--child', '--rounds', String(rounds), '--floors', JSON.stringify(floors)]
  if (ballastMb) args.push('--ballast', String(ballastMb))
  if (peers) args.push('--peers', '--landlock-run', extra.landlockRun || '')
  if (extra.old) args.push('--old', JSON.stringify(extra.old))
  const r = spawnSync(setpriv, args, { encoding: 'utf8', env: { ...process.env, HOME: '/nonexistent' }, stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 1 << 24 })
  if (r.status !== 0) {
    say(`the uid 65534 run failed (is the checkout readable by it?): its column is left out`)
    return null
  }
  return JSON.parse(r.stdout)
}

function print (runs) {
  const cols = runs.filter(Boolean)
  const label = (run) => run.uid === 0 ? 'root' : `uid ${run.uid}`
  const names = [...new Set(cols.flatMap((run) => run.spawns.map(([name]) => name)))]
  const of = (run, name) => { const s = run.spawns.find(([n]) => n === name); return s ? s[1] : null }
  const cell = (run, name) => {
    const m = of(run, name)
    return m === null ? '—' : `${m.toFixed(2)} ms, ${(m / of(run, 'bare /bin/true')).toFixed(2)} ×`
  }
  console.log(`\nlaunch cost: spawnSync of /bin/true, ${rounds} interleaved rounds, medians, × the bare spawn; ${os.cpus().length} cores, Linux ${os.release()}${ballastMb ? `, the measuring process holding ${ballastMb} MB` : ''}\n`)
  console.log(`| variant | ${cols.map(label).join(' | ')} |`)
  console.log(`| --- |${cols.map(() => ' --- |').join('')}`)
  for (const name of names) console.log(`| ${name} | ${cols.map((run) => cell(run, name)).join(' | ')} |`)
  console.log('')
  for (const run of cols) {
    const floor = (prefix) => { const n = run.spawns.find(([x]) => x.startsWith(prefix)); return n ? n[1] : null }
    const ns = floor('floor: namespaces')
    const ex = floor('floor: exec')
    const parts = []
    for (const mode of ['read-only', 'workspace-write']) {
      if (ns && of(run, `sandy ${mode}`)) parts.push(`sandy ${mode} ${(of(run, `sandy ${mode}`) / ns).toFixed(2)} × the namespace floor`)
      if (ex && of(run, `landlock ${mode}`)) parts.push(`landlock ${mode} ${(of(run, `landlock ${mode}`) / ex).toFixed(2)} × the exec floor`)
    }
    if (run.calls['confine() workspace-write'] !== undefined) {
      parts.push(`confine() ${run.calls['confine() read-only'].toFixed(1)} / ${run.calls['confine() workspace-write'].toFixed(1)} µs (read-only / workspace-write)`)
      parts.push(`confinePolicy() ${GRANTS.map((n) => `${n}: ${run.calls[`confinePolicy() ${n}`].toFixed(0)} µs`).join(', ')}`)
    }
    if (run.probe !== null) parts.push(`first probe() ${run.probe.toFixed(1)} ms`)
    if (run.rssKb) parts.push(`launcher peak RSS ${(run.rssKb / 1024).toFixed(2)} MiB`)
    console.log(`${label(run)}: ${parts.join('; ')}`)
  }
}

async function main () {
  if (child) {
    const floors = JSON.parse(option('--floors', '{}'))
    const extra = { landlockRun: option('--landlock-run', '') || null, old: option('--old', null) ? JSON.parse(option('--old')) : null }
    process.stdout.write(JSON.stringify(await measure(floors, extra)))
    return
  }
  const dir = scratch('floors')
  try {
    const floors = buildFloors(dir)
    const extra = {
      landlockRun: peers ? landlockRun(path.join(dir, 'peers')) : null,
      old: against ? launcherAt(against, fs.mkdtempSync(path.join(dir, 'rev-'))) : null
    }
    if (extra.old) fs.chmodSync(path.dirname(path.dirname(extra.old.launcher)), 0o755)
    const runs = [await measure(floors, extra)]
    if (process.getuid() === 0) runs.push(asNobody(floors, extra))
    print(runs)
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

main().catch((e) => { console.error(e); process.exitCode = 1 })
