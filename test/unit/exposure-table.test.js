'use strict'
// The shared exposure table (test/fixtures/exposure-cases.json): each row's
// tree made on disk, with its owners and modes, and the same question put
// to lib/launcher-copy.js (combined as lib/provider.js combines it) and to
// csrc/linux/self.c (through csrc/test/self_verdict.c, built here): may this
// writable grant stand beside this protected directory? Each side gets a
// tree of its own, since each makes a missing copy directory as it looks.
const t = require('tap')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { execFileSync } = require('node:child_process')
const { protectedDirs, copyParentIds, exposure, chainProblem } = require('../../lib/launcher-copy.js')
const { UNCOVERED } = require('../../scripts/test-verdict.js')
const { cases } = require('../fixtures/exposure-cases.json')

const ROOT_ONLY = process.getuid() !== 0 && `${UNCOVERED} the exposure table's owners and modes: this run is not root`
const OWNERS = { root: 0, user: 65534, other: 1234 }
const LEVELS = ['full', 'landlock']
const VERDICTS = ['allowed', 'refused']
const ROOT = path.join(__dirname, '..', '..')

function scratch (t) {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'sandy-exposure-')))
  fs.chmodSync(dir, 0o755)
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }))
  return dir
}

function buildDriver (dir) {
  const out = path.join(dir, 'self_verdict')
  execFileSync('make', ['-s', '--no-print-directory', '-C', path.join(ROOT, 'csrc'), 'c-drivers', `O=${dir}`], { stdio: ['ignore', 'ignore', 'inherit'] })
  return out
}

// The row's tree under a fresh directory of base; returns that directory.
function makeTree (base, tree) {
  const top = fs.mkdtempSync(path.join(base, 't-'))
  fs.chmodSync(top, 0o755)
  for (const [rel, spec] of Object.entries(tree)) {
    const p = path.join(top, rel)
    const [type, owner, mode] = spec.split(' ')
    if (type === 'link') {
      fs.symlinkSync(path.join(top, owner), p)
      continue
    }
    if (type === 'dir') fs.mkdirSync(p)
    else fs.writeFileSync(p, '')
    fs.chownSync(p, OWNERS[owner], OWNERS[owner])
    fs.chmodSync(p, parseInt(mode, 8))
  }
  return top
}

const idOf = (p) => { const st = fs.statSync(p, { bigint: true }); return `${st.dev}:${st.ino}` }

// lib/provider.js's order: the protected directories (a missing copy
// directory made first), the copy directories' parents, then the grant.
function jsVerdict (c, top, level) {
  const uid = OWNERS[c.uid || 'user']
  const dir = path.join(top, c.dir)
  const candidates = c.kind === 'copy' ? [dir] : []
  const launcher = path.join(c.kind === 'launcher' ? dir : path.join(top, 'no-launcher'), 'sandy-launcher')
  const protect = protectedDirs(launcher, candidates, uid)
  const parents = copyParentIds(candidates)
  const root = path.resolve(top, c.grant)
  const rootId = idOf(root)
  const why = exposure({ root, rootId }, protect, level === 'landlock') ??
    (parents.has(rootId) ? 'the grant holds the parent of a launcher copy directory' : null)
  return why === null ? { verdict: 'allowed', said: 'allowed' } : { verdict: 'refused', said: why }
}

function cVerdict (driver, c, top, level) {
  const said = execFileSync(driver, [String(OWNERS[c.uid || 'user']), level, c.kind, path.join(top, c.dir), path.resolve(top, c.grant)],
    { encoding: 'utf8' }).trim()
  return { verdict: said.split(':')[0], said }
}

const wanted = (c, level, side) => typeof c[level] === 'string' ? c[level] : c[level][side]

t.test('every row of the exposure table is well formed', async (t) => {
  t.ok(cases.length > 20, `${cases.length} rows`)
  for (const c of cases) {
    t.ok(['copy', 'launcher'].includes(c.kind) && typeof c.dir === 'string' && typeof c.grant === 'string' && typeof c.tree === 'object', `${c.name}: its fields`)
    t.ok(c.uid === undefined || c.uid === 'root', `${c.name}: its uid`)
    for (const level of LEVELS) {
      const split = typeof c[level] === 'object'
      t.ok(split ? VERDICTS.includes(c[level].js) && VERDICTS.includes(c[level].c) && c[level].js !== c[level].c : VERDICTS.includes(c[level]), `${c.name}: its ${level} verdict`)
      if (split) t.ok(typeof c.why === 'string' && c.why.length > 5, `${c.name}: a difference says why it stands`)
    }
  }
})

t.test('lib/launcher-copy.js and csrc/linux/self.c give each row its verdicts', { skip: ROOT_ONLY }, async (t) => {
  const base = scratch(t)
  t.equal(chainProblem(base, 0), null, `the rows' trees stand where only root can change anything above them (${base})`)
  const driver = buildDriver(base)
  for (const c of cases) {
    for (const level of LEVELS) {
      const js = jsVerdict(c, makeTree(base, c.tree), level)
      const C = cVerdict(driver, c, makeTree(base, c.tree), level)
      t.equal(js.verdict, wanted(c, level, 'js'), `${c.name} [${level}]: JS ${js.said}`)
      t.equal(C.verdict, wanted(c, level, 'c'), `${c.name} [${level}]: C ${C.said}`)
    }
  }
})
