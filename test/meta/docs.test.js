'use strict'
// The documents a newcomer reads: README.md stays short (at most 300
// lines: the rest is in docs/), and every relative link of README.md,
// ARCHITECTURE.md, THREAT_MODEL.md and docs/*.md resolves, to a file that
// exists and, with a #fragment, to a heading of it (GitHub's anchors;
// the check is test/helpers/links.js, which package.test.js also runs on
// the packed tarball).
const t = require('tap')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { brokenLinks: brokenIn } = require('../helpers/links.js')

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
