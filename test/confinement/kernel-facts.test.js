'use strict'
// The probe held against the kernel it runs on, as root and as uid 65534:
// the Landlock ABI it reports is the one an independent system call finds
// (test/unit/probe.test.js holds that against the kernel's release); its
// verdicts follow from
// that ABI; and probe = launcher: every backend it reports usable confines
// for real through the seam in both modes (a workspace write lands, a
// write outside it is refused and lands unconfined), every one it reports
// unusable refuses with SANDBOX_UNAVAILABLE and the same reason, and
// `sandy run` does one or the other, never an unconfined run. The kernel
// matrix (scripts/kernels.js) runs this file on every kernel it boots.
const t = require('tap')
const fs = require('node:fs')
const path = require('node:path')
const { spawnSync } = require('node:child_process')
const { users, plainNodeEnv } = require('../helpers/sandbox.js')
const { confineAs, runAs, nodeAs, PACKAGE } = require('../helpers/seam-run.js')
const { release, syscallAbi } = require('../helpers/kernel.js')

const SANDY = path.join(PACKAGE, 'bin', 'sandy')
const LINUX_BACKENDS = ['sandy', 'bwrap', 'landlock']
const MIN_ABI = 6 // what the sandy and landlock backends need (csrc/core/probe.c)

function probeAs (user) {
  const full = nodeAs(user, [SANDY, 'probe', '--json'])
  const r = spawnSync(full[0], full.slice(1), { cwd: '/', encoding: 'utf8', env: plainNodeEnv({ PATH: '/usr/local/bin:/usr/bin:/bin' }) })
  return JSON.parse(r.stdout)
}

function base (t, user) {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join('/var/tmp', 'sandy-kernel-facts-')))
  fs.chmodSync(dir, 0o755)
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }))
  const ws = path.join(dir, 'ws')
  const outside = path.join(dir, 'outside')
  const home = path.join(dir, 'home')
  for (const d of [ws, outside, home]) {
    fs.mkdirSync(d)
    fs.chownSync(d, user.uid, user.gid)
  }
  return { ws, outside, home }
}

const kernel = release()
const found = syscallAbi()

for (const user of users()) {
  t.test(`probe = launcher on this kernel, as ${user.name}`, async (t) => {
    const report = probeAs(user)
    t.equal(report.kernelRelease, kernel, 'the probe names this kernel')
    t.equal(report.landlockAbi, found, `the probe reports the ABI the system call gives (${found})`)
    for (const b of ['sandy', 'landlock']) {
      const v = report.backends[b]
      if (found < MIN_ABI) {
        t.notOk(v.usable, `${b} is unusable below Landlock ABI ${MIN_ABI}`)
        t.match(v.reason, `Landlock ABI ${found} found, ${MIN_ABI} needed`, `${b}'s reason names the ABI found and needed`)
      } else if (b === 'sandy' || user.uid !== 0) {
        t.ok(v.usable, `${b} is usable at Landlock ABI ${found} (${v.reason})`)
      }
    }

    for (const backend of LINUX_BACKENDS) {
      const verdict = report.backends[backend]
      for (const mode of ['read-only', 'workspace-write']) {
        t.test(`${backend}, ${mode}: ${verdict.usable ? 'confines' : 'refuses'}`, async (t) => {
          const { ws, outside, home } = base(t, user)
          const argv = ['/bin/sh', '-c', `echo in > ${ws}/in; echo out > ${outside}/out`]
          const env = { PATH: '/usr/bin:/bin', HOME: home }
          const confined = confineAs(user, env, { backend }, argv, { mode, workspaceRoot: ws })
          if (!verdict.usable) {
            t.equal(confined.error?.code, 'SANDBOX_UNAVAILABLE', 'confine refuses')
            t.ok((confined.error?.reasons ?? []).some((r) => r.includes(verdict.reason)), `with the probe's reason (${confined.error?.reasons})`)
            return
          }
          t.notOk(confined.error, `confine gives an argv (${confined.error?.message})`)
          if (confined.error) return
          const r = await runAs(user, confined.argv, { cwd: ws, env: confined.env ?? env })
          t.equal(fs.existsSync(path.join(ws, 'in')), mode === 'workspace-write', `the workspace write ${mode === 'workspace-write' ? 'lands' : 'is refused'}`)
          t.notOk(fs.existsSync(path.join(outside, 'out')), 'the write outside the workspace is refused')
          t.not(r.code, 0, 'the command reports the refusal')
          const free = await runAs(user, argv, { cwd: ws, env })
          t.equal(free.code, 0, 'unconfined, the same command succeeds')
          t.ok(fs.existsSync(path.join(outside, 'out')), 'and its write outside lands')
        })
      }
    }

    t.test(`sandy run (auto selects ${report.package.autoSelects || 'nothing'})`, async (t) => {
      const { ws, outside, home } = base(t, user)
      const r = await runAs(user, [process.execPath, SANDY, 'run', '--mode', 'workspace-write', '--cwd', ws, '--',
        '/bin/sh', '-c', `echo hi > here.txt; echo x > ${outside}/x`], { cwd: ws, env: plainNodeEnv({ PATH: '/usr/bin:/bin', HOME: home }) })
      t.notOk(fs.existsSync(path.join(outside, 'x')), 'the write outside the workspace never lands')
      if (report.package.autoSelects) {
        t.ok(fs.existsSync(path.join(ws, 'here.txt')), 'the workspace write lands')
        t.not(r.code, 0, 'and the run reports the refused one')
      } else {
        t.notOk(fs.existsSync(path.join(ws, 'here.txt')), 'nothing ran')
        t.match(r.stderr, /SANDBOX_UNAVAILABLE|no usable backend/i, 'sandy run says no backend is usable')
      }
    })
  })
}
