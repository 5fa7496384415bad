#!/usr/bin/env node
'use strict'
// What confinement costs per command: a bare spawn of /bin/true next to the
// same spawn through each usable backend, measured in one run with the
// variants interleaved (so drift on a busy machine hits all alike), reported
// as medians and ratios to the bare spawn. Never fails on time.
//   node bench/spawn.js [rounds] [--against REV]   (default 200 rounds)
// --against REV adds the sandy backend's argvs run by the launcher of git
// revision REV, built here from that revision's sources, beside today's:
// what a change of the launcher costs. REV "before-processes" is the last
// revision without csrc/linux/processes.c (the PID namespace, its init and
// the fresh /proc); npm run bench asks for it.
const { spawnSync, execFileSync } = require('node:child_process')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const sandy = require('..')

const args = process.argv.slice(2)
const at = args.indexOf('--against')
const against = at >= 0 ? args.splice(at, 2)[1] : null
const rounds = Number(args[0] || 200)
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'sandy-bench-'))
const argv = ['/bin/true']
const PACKAGE = path.join(__dirname, '..')

// The launcher of revision rev, built in a scratch directory from that
// revision's tree, or null (no git history here) with why on stderr.
function launcherAt (rev) {
  const git = (...a) => execFileSync('git', ['-C', PACKAGE, ...a], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim()
  try {
    if (rev === 'before-processes') rev = `${git('log', '--diff-filter=A', '--format=%H', '--', 'csrc/linux/processes.c').split('\n').pop()}^`
    rev = git('rev-parse', '--short', rev)
  } catch {
    process.stderr.write(`bench: no git revision ${rev} here: the comparison is left out\n`)
    return null
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sandy-bench-rev-'))
  execFileSync('sh', ['-c', `git -C "$0" archive "$1" | tar -x -C "$2"`, PACKAGE, rev, dir])
  // (revisions before csrc/Makefile built it with scripts/build-launcher.js)
  if (fs.existsSync(path.join(dir, 'csrc', 'Makefile'))) execFileSync('make', ['-s', '-C', path.join(dir, 'csrc'), 'launcher', `O=${path.join(dir, 'out')}`], { stdio: 'ignore' })
  else execFileSync(process.execPath, [path.join(dir, 'scripts', 'build-launcher.js'), `--out=${path.join(dir, 'out')}`], { stdio: 'ignore' })
  fs.chmodSync(dir, 0o755)
  return { rev, dir, launcher: path.join(dir, 'out', 'sandy-launcher') }
}
const old = against ? launcherAt(against) : null

const variants = [['bare', argv]]
for (const backend of ['sandy', 'landlock', 'bwrap']) {
  if (!sandy.probe().backends[backend].usable) continue
  // the Landlock-only level refuses uid 0 (docs/backends.md)
  if (backend === 'landlock' && process.getuid() === 0) continue
  const provider = sandy.createLocalSandboxProvider({ backend })
  for (const mode of ['read-only', 'workspace-write']) {
    const words = provider.confine(argv, { mode, workspaceRoot: root }).argv
    variants.push([`${backend} ${mode}`, words])
    if (old && backend === 'sandy') variants.push([`${backend} ${mode} @${old.rev}`, [old.launcher, ...words.slice(1)]])
  }
}
const launcherOnly = sandy.confinePolicy(argv, new sandy.SandboxPolicy(sandy.NetworkPolicy.AllowAll)
  .grant('/usr', sandy.AccessMode.Read, sandy.PathScope.Subtree)
  .allowExecute('/usr', sandy.PathScope.Subtree)
  .grant(root, sandy.AccessMode.ReadWrite, sandy.PathScope.Subtree), { cwd: root })
variants.push(['sandy, minimal policy', launcherOnly.argv])

const samples = new Map(variants.map(([name]) => [name, []]))
for (let i = 0; i < rounds; i++) {
  for (const [name, words] of variants) {
    const start = process.hrtime.bigint()
    const r = spawnSync(words[0], words.slice(1), { cwd: root, stdio: 'ignore' })
    const ms = Number(process.hrtime.bigint() - start) / 1e6
    if (r.status !== 0) throw new Error(`${name} exited ${r.status}`)
    samples.get(name).push(ms)
  }
}
fs.rmSync(root, { recursive: true, force: true })
if (old) fs.rmSync(old.dir, { recursive: true, force: true })

const quantile = (xs, q) => [...xs].sort((a, b) => a - b)[Math.floor(q * (xs.length - 1))]
const bare = quantile(samples.get('bare'), 0.5)
console.log(`spawnSync of /bin/true, ${rounds} rounds, medians (p90) on ${os.cpus().length} cores`)
for (const [name, xs] of samples) {
  const median = quantile(xs, 0.5)
  console.log(`${name.padEnd(36)} ${median.toFixed(2).padStart(7)} ms (p90 ${quantile(xs, 0.9).toFixed(2).padStart(6)})  x${(median / bare).toFixed(2)}  +${(median - bare).toFixed(2)} ms`)
}
if (old) {
  for (const mode of ['read-only', 'workspace-write']) {
    const now = quantile(samples.get(`sandy ${mode}`), 0.5)
    const then = quantile(samples.get(`sandy ${mode} @${old.rev}`), 0.5)
    console.log(`sandy ${mode}: today's launcher x${(now / then).toFixed(2)} the one of ${old.rev} (${(now - then).toFixed(2)} ms more)`)
  }
}
