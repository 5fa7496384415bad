'use strict'
// The Markdown link check that test/meta/docs.test.js runs on the checkout
// and test/package/package.test.js on the unpacked tarball: a relative
// link resolves when its file (or folder) exists under the tree and, with
// a #fragment into a .md file, when that file has the heading (GitHub's
// anchors). Links inside code (fenced or inline) are not links.
const fs = require('node:fs')
const path = require('node:path')

// The text with fenced blocks blanked (no heading is in them), and with
// inline code blanked too (whose brackets are no links).
function withoutFences (text) {
  return text.replace(/^```[\s\S]*?^```/gm, (b) => b.replace(/[^\n]/g, ' '))
}
function withoutCode (text) {
  return withoutFences(text).replace(/`[^`\n]*`/g, (c) => ' '.repeat(c.length))
}

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

// Every link target of the text, relative or not, in order.
function linkTargets (text) {
  return [...withoutCode(text).matchAll(/\[[^\]\n]*\]\(([^)\s]+)\)/g)].map((m) => m[1])
}

const isAbsolute = (target) => /^[a-z]+:/i.test(target)

// Each broken relative link of the document at file (absolute), as
// "file: target (why)", file named relative to root.
function brokenLinks (file, root) {
  const broken = []
  for (const target of linkTargets(fs.readFileSync(file, 'utf8'))) {
    if (isAbsolute(target)) continue
    const [rel, fragment] = target.split('#')
    const to = rel === '' ? file : path.resolve(path.dirname(file), rel)
    const name = `${path.relative(root, file)}: ${target}`
    if (!fs.existsSync(to)) {
      broken.push(`${name} (no such file)`)
    } else if (fragment !== undefined && to.endsWith('.md') && !anchors(fs.readFileSync(to, 'utf8')).has(fragment)) {
      broken.push(`${name} (no such heading)`)
    }
  }
  return broken
}

// The .md files a reader reaches from start (absolute) by following
// relative links, start first; only files that exist.
function reachableDocuments (start) {
  const seen = [start]
  for (let i = 0; i < seen.length; i++) {
    for (const target of linkTargets(fs.readFileSync(seen[i], 'utf8'))) {
      if (isAbsolute(target)) continue
      const rel = target.split('#')[0]
      if (!rel.endsWith('.md')) continue
      const to = path.resolve(path.dirname(seen[i]), rel)
      if (!seen.includes(to) && fs.existsSync(to)) seen.push(to)
    }
  }
  return seen
}

module.exports = { anchors, linkTargets, brokenLinks, reachableDocuments, withoutFences }
