'use strict'
// Each enforcement layer does work of its own: the escape suite, run against
// a test launcher with one layer switched off (scripts/layer-builds.sh),
// must fail. Which cases fail is printed as the evidence.
const t = require('tap')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { spawn, execFileSync } = require('node:child_process')

// It runs the escape suite once per layer: more than the runner's default
// per-file time on a loaded 2-core machine.
t.setTimeout(600000)

const root = path.join(__dirname, '..')
const suite = fs.readdirSync(__dirname).filter((f) => /^escape-.*\.test\.js$/.test(f)).map((f) => path.join(__dirname, f))
const out = fs.mkdtempSync(path.join(os.tmpdir(), 'sandy-layers-'))
fs.chmodSync(out, 0o755)
t.teardown(() => fs.rmSync(out, { recursive: true, force: true }))
execFileSync('bash', [path.join(root, 'scripts', 'layer-builds.sh'), out], { stdio: ['ignore', 'ignore', 'inherit'] })

// The escape files run as plain node scripts (they print TAP), without the
// runner's hooks and variables of this process.
function runFile (file, launcher) {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('TAP') && k !== 'NODE_OPTIONS'))
  env.SANDY_TEST_LAUNCHER = launcher
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [file], { env, stdio: ['ignore', 'pipe', 'ignore'] })
    let stdout = ''
    child.stdout.on('data', (d) => { stdout += d })
    child.on('close', (code) => resolve({ code, failed: stdout.split('\n').filter((l) => /^not ok \d+ - /.test(l)) }))
  })
}

async function runSuite (launcher) {
  const results = []
  for (let i = 0; i < suite.length; i += 2) results.push(...await Promise.all(suite.slice(i, i + 2).map((f) => runFile(f, launcher))))
  return results
}

const expected = {
  view: /chmod|chown|utime|xattr|invisible|outside the grants|ld\.so|mmap/,
  landlock: /signal|kill|abstract|\/proc\/|network/,
  seccomp: /keyctl|TIOCSTI|ptrace|unshare|mount|io_uring|fork|socket/
}

for (const [layer, typical] of Object.entries(expected)) {
  t.test(`the suite fails with ${layer} switched off`, async (t) => {
    const results = await runSuite(path.join(out, `sandy-launcher-no-${layer}`))
    const failed = results.flatMap((r) => r.failed.map((l) => l.replace(/^not ok \d+ - /, '').replace(/ # time=.*/, '')))
    t.ok(results.some((r) => r.code !== 0), 'some escape file fails')
    t.ok(failed.length > 0, `${failed.length} cases fail`)
    t.ok(failed.some((name) => typical.test(name)), `among them what ${layer} is there for`)
    t.comment(`${layer} off, failing: ${failed.join('; ')}`)
  })
}
