'use strict'
// The documents a newcomer reads: README.md stays short (at most 300
// lines: the rest is in docs/), and every relative link of README.md,
// ARCHITECTURE.md, THREAT_MODEL.md and docs/*.md resolves, to a file that
// exists and, with a #fragment, to a heading of it (GitHub's anchors;
// the check is test/helpers/links.js, which package.test.js also runs on
// the packed tarball). Every (FILE.md, "Section") the code points a reader
// to is there, and README.md's Install section gives what a user needs.
const t = require('tap')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { brokenLinks: brokenIn, withoutFences } = require('../helpers/links.js')

const ROOT = path.join(__dirname, '..', '..')
const brokenLinks = (file) => brokenIn(file, ROOT)

function documents () {
  const docs = fs.readdirSync(path.join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => path.join(ROOT, 'docs', f))
  return [...['README.md', 'ARCHITECTURE.md', 'THREAT_MODEL.md'].map((f) => path.join(ROOT, f)), ...docs]
}

t.test('README.md is at most 300 lines', async (t) => {
  const lines = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8').split('\n').length
  t.ok(lines <= 300, `${lines} lines`)
})

t.test('every relative link of the documents resolves', async (t) => {
  const docs = documents()
  t.ok(docs.length >= 8, `${docs.length} documents`)
  for (const d of docs) t.same(brokenLinks(d), [], `${path.relative(ROOT, d)}: every link resolves`)
})

t.test('the link check finds a missing file and a missing heading, and none in code', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sandy-docs-'))
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }))
  fs.writeFileSync(path.join(dir, 'other.md'), '# Other\n\n## A `code` heading: yes\n\n## Twice\n\n## Twice\n')
  fs.writeFileSync(path.join(dir, 'doc.md'), [
    '# Doc', '',
    '[ok](other.md) [ok](other.md#a-code-heading-yes) [ok](other.md#twice-1) [ok](#doc) [ok](https://example.com/x)',
    '[gone](missing.md) [gone](other.md#nothing) [gone](#nowhere)',
    '`[not a link](missing.md)`', '```', '[not a link](missing.md)', '```', ''
  ].join('\n'))
  const rel = (x) => x.replace(`${path.relative(ROOT, dir)}/`, '')
  t.same(brokenLinks(path.join(dir, 'doc.md')).map(rel), [
    'doc.md: missing.md (no such file)',
    'doc.md: other.md#nothing (no such heading)',
    'doc.md: #nowhere (no such heading)'
  ])
})

// A message or comment that sends the reader to a section, written
// (FILE.md, "Section"), e.g. release.js's refusal: the section is there,
// as a heading, or as a list item's bold lead, that starts with those
// words.
const POINTER = /\b((?:docs\/)?[\w.-]+\.md), "([^"\n]+)"/g
function deadPointers (text, where) {
  const dead = []
  for (const m of text.matchAll(POINTER)) {
    const file = path.join(ROOT, m[1])
    const doc = fs.existsSync(file) ? withoutFences(fs.readFileSync(file, 'utf8')) : ''
    const want = m[2].toLowerCase()
    const sections = [...doc.matchAll(/^#{1,6} (.*)$|^\s*- \*\*(.*?)\*\*/gm)].map((s) => (s[1] || s[2]).replace(/`/g, '').toLowerCase())
    if (!sections.some((s) => s.startsWith(want))) dead.push(`${where}: ${m[1]}, "${m[2]}"`)
  }
  return dead
}

function walk (dir) {
  return fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? walk(path.join(dir, e.name)) : [path.join(dir, e.name)])
}

t.test('every section the code points to by name is there', async (t) => {
  const files = [...walk('scripts'), ...walk('lib'), ...walk('bin'), ...walk('csrc')].filter((f) => /\.(js|mjs|c|h)$|^bin\/sandy$/.test(f))
  const pointers = files.flatMap((f) => [...fs.readFileSync(path.join(ROOT, f), 'utf8').matchAll(POINTER)].map(() => f))
  t.ok(pointers.includes('scripts/release.js'), `${pointers.length} pointers, release.js's refusal among them`)
  t.same(files.flatMap((f) => deadPointers(fs.readFileSync(path.join(ROOT, f), 'utf8'), f)), [], 'each names a section of its document')
  t.same(deadPointers('see (docs/development.md, "Releasing"), (docs/development.md, "Shipping") and (docs/gone.md, "Tests")', 'x'),
    ['x: docs/development.md, "Shipping"', 'x: docs/gone.md, "Tests"'], 'control: a section or a document that is not there is reported')
})

// README.md's Install section (issue 31): the three routes, each with what
// it needs, and what the install script does; the release URL it gives is
// the repository's (package.json) in the form the workflow's release job
// attaches (a v* tag, sandy-native-VERSION.tgz).
function installProblems (readme) {
  const start = readme.indexOf('\n## Install\n')
  if (start < 0) return ['README.md has no "## Install" section']
  const end = readme.indexOf('\n## ', start + 1)
  const section = readme.slice(start, end < 0 ? undefined : end)
  const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'))
  const repository = pkg.repository.url.replace(/^git\+/, '').replace(/\.git$/, '')
  const script = /^node (scripts\/[\w.-]+\.js)$/.exec(pkg.scripts.install)
  const wants = [
    ['the registry route', 'npm install sandy-native`'],
    ['that it is not published yet', 'not published yet'],
    ['the tarball route', 'npm install ./sandy-native-X.Y.Z.tgz'],
    ['the release URL', `${repository}/releases/download/vX.Y.Z/sandy-native-X.Y.Z.tgz`],
    ['what the prebuilds need', 'nothing else'],
    ['what musl and macOS need', 'a compiler'],
    ['the checkout route', 'scripts/setup.sh'],
    ['the install script package.json runs', script ? script[1] : pkg.scripts.install],
    ['npm with scripts off', '--ignore-scripts'],
    ['pnpm\'s default', 'pnpm 10']
  ]
  return wants.filter(([, text]) => !section.includes(text)).map(([what, text]) => `README.md's Install section does not give ${what} (${text})`)
}

t.test('README.md\'s Install section gives the three routes and the install script', async (t) => {
  const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8')
  t.same(installProblems(readme), [], 'all of it')
  const workflow = fs.readFileSync(path.join(ROOT, '.github', 'workflows', 'ci.yml'), 'utf8')
  t.ok(workflow.includes("tags: ['v*']") && workflow.includes('tarball="dist/sandy-native-${TAG#v}.tgz"'),
    'the release job attaches sandy-native-VERSION.tgz to a vVERSION tag, as the URL says')
  t.same(installProblems(readme.replace('\n## Install\n', '\n## Installing\n')), ['README.md has no "## Install" section'], 'control: without the section')
  t.match(installProblems(readme.replace(/--ignore-scripts/g, '--no-scripts').replace('/releases/download/', '/releases/')),
    [/the release URL/, /npm with scripts off/], 'control: a wrong URL and a missing point are named')
})
