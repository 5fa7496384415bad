'use strict'
// The documents a newcomer reads: README.md stays short (at most 300
// lines: the rest is in docs/), and every relative link of README.md,
// ARCHITECTURE.md, THREAT_MODEL.md and docs/*.md resolves, to a file that
// exists and, with a #fragment, to a heading of it (GitHub's anchors).
const t = require('tap')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')

const ROOT = path.join(__dirname, '..', '..')

// GitHub's anchor for a heading: lower case, punctuation dropped, each
// space a hyphen; a repeated one gets -1, -2, ...
function anchors (text) {
  const seen = new Map()
  const out = new Set()
  for (const line of withoutFences(text).split('\n')) {
    const m = /^#{1,6} (.*)$/.exec(line)
    if (!m) continue
    const base = m[1].trim().toLowerCase().replace(/[^\p{L}\p{N} _-]/gu, '').replace(/ /g, '-')
    const n = seen.get(base) || 0
    seen.set(base, n + 1)
    out.add(n === 0 ? base : `${base}-${n}`)
  }
  return out
}

// The text with fenced blocks blanked (no heading is in them), and with
// inline code blanked too (whose brackets are no links).
function withoutFences (text) {
  return text.replace(/^```[\s\S]*?^```/gm, (b) => b.replace(/[^\n]/g, ' '))
}
function withoutCode (text) {
  return withoutFences(text).replace(/`[^`\n]*`/g, (c) => ' '.repeat(c.length))
}

// Each broken relative link of the document at file (absolute), as
// "file: target (why)".
function brokenLinks (file) {
  const text = fs.readFileSync(file, 'utf8')
  const broken = []
  for (const m of withoutCode(text).matchAll(/\[[^\]\n]*\]\(([^)\s]+)\)/g)) {
    const target = m[1]
    if (/^[a-z]+:/i.test(target)) continue
    const [rel, fragment] = target.split('#')
    const to = rel === '' ? file : path.resolve(path.dirname(file), rel)
    const name = `${path.relative(ROOT, file)}: ${target}`
    if (!fs.existsSync(to)) {
      broken.push(`${name} (no such file)`)
    } else if (fragment !== undefined && to.endsWith('.md') && !anchors(fs.readFileSync(to, 'utf8')).has(fragment)) {
      broken.push(`${name} (no such heading)`)
    }
  }
  return broken
}

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
