'use strict'
// THREAT_MODEL.md maps every promise to tests, and docs/findings.md logs
// every outside finding: each cited test must exist (its file, and the
// fragment of its name as written there), every promise must cite one, and
// every finding must be a test, a documented limit, or open in a named issue.
const t = require('tap')
const fs = require('node:fs')
const path = require('node:path')

const root = path.join(__dirname, '..', '..')
const doc = fs.readFileSync(path.join(root, 'THREAT_MODEL.md'), 'utf8')
const findings = fs.readFileSync(path.join(root, 'docs', 'findings.md'), 'utf8')
const CITATION = /`(test\/[\w./-]+\.(?:test|darwin)\.js)` › "([^"]+)"/g

function citations (text) {
  // (a citation may wrap across lines of the document)
  return [...text.matchAll(CITATION)].map((m) => ({ file: m[1], fragment: m[2].replace(/\s+/g, ' ') }))
}

// The rows of the markdown tables under a heading of text that starts
// with `title`.
function tableRows (title, text = doc) {
  const start = text.split('\n').findIndex((l) => /^#{1,2} /.test(l) && l.replace(/^#+ /, '').startsWith(title))
  const rows = []
  for (const line of text.split('\n').slice(start + 1)) {
    if (line.startsWith('## ')) break
    if (line.startsWith('| ') && !line.startsWith('| ---') && !/^\| (promise|#) \|/.test(line)) rows.push(line)
  }
  return rows
}

t.test('every cited test exists', async (t) => {
  const all = [...citations(doc), ...citations(findings)]
  t.ok(all.length > 40, `${all.length} citations`)
  for (const { file, fragment } of all) {
    const p = path.join(root, file)
    t.ok(fs.existsSync(p), `${file} exists`)
    // (names are quoted in the sources: compare them unescaped)
    if (fs.existsSync(p)) t.ok(fs.readFileSync(p, 'utf8').replace(/\\(['"`])/g, '$1').includes(fragment), `${file} has a test "${fragment}"`)
  }
})

t.test('every promise cites a test', async (t) => {
  const sections = ['Promises of every Linux backend', '`sandy` backend', '`bwrap` backend', '`landlock` backend', '`seatbelt` backend']
  for (const title of sections) {
    const rows = tableRows(title)
    t.ok(rows.length > 0, `${title}: has promises`)
    for (const row of rows) t.ok(citations(row).length > 0, `${title}: "${row.split('|')[1].trim()}" cites a test`)
  }
})

t.test('every finding is a test, a limit, or open in an issue', async (t) => {
  const rows = tableRows('Findings log', findings)
  t.ok(rows.length >= 14, `${rows.length} findings`)
  for (const row of rows) {
    const status = row.split('|').at(-2).trim()
    const finding = row.split('|')[3].trim()
    if (status.startsWith('test:')) t.ok(citations(status).length > 0, `${finding}: a cited test`)
    else if (status.startsWith('open:')) t.match(status, /issue \d+/, `${finding}: names its issue`)
    else t.match(status, /^limit: /, `${finding}: a documented limit`)
  }
})

t.test('the checker itself: a wrong citation is caught', async (t) => {
  const bad = citations('`test/confinement/provider.test.js` › "no such test at all"')[0]
  t.notOk(fs.readFileSync(path.join(root, bad.file), 'utf8').includes(bad.fragment))
})
