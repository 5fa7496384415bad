#!/usr/bin/env node
'use strict'
// A tap reporter (tap runs it with the raw TAP stream on stdin): passes the
// stream through unchanged and writes what scripts/test.js judges to the
// file named by SANDY_TAP_COUNT_FILE:
//   { pass, fail, skip, todo,                 counts of LEAF assertions
//     files: { name: { pass, fail, skip, todo } },  the same per test file
//     skips: [{ file, name, reason }], todos: [{ file, name, reason }],
//     fails: [{ file, name }] }   name: the subtests' names below the
//                                 file, then the assertion's, joined by ' > '
// A subtest's own summary line is not counted again, except a failed one
// whose subtest failed no assertion of its own (a crashed file, a coverage
// shortfall), which is one failure, and a skipped one (a file with no test
// at all, `1..0`, or a subtest skipped as a whole), which is one skip.
const fs = require('node:fs')
const { Parser } = require('tap-parser')

const counts = { pass: 0, fail: 0, skip: 0, todo: 0, files: {}, skips: [], todos: [], fails: [] }
const KINDS = ['pass', 'fail', 'skip', 'todo']

function fileCounts (name) {
  if (!counts.files[name]) counts.files[name] = Object.fromEntries(KINDS.map((k) => [k, 0]))
  return counts.files[name]
}

// An assertion belongs to the test file that is its top-level subtest; an
// assertion of the root stream itself (a file's summary) to that file.
function watch (parser, state) {
  const children = []
  parser.on('child', (child) => {
    const childState = { fails: 0, parent: state, file: state ? state.file : child.name, name: child.name }
    children.push(childState)
    watch(child, childState)
  })
  parser.on('assert', (a) => {
    const summaryOf = children.length > 0 ? children.shift() : null
    if (summaryOf && !a.skip && !a.todo && (a.ok || summaryOf.fails > 0)) return
    const file = state ? state.file : (summaryOf ? summaryOf.file : a.name)
    const kind = a.todo ? 'todo' : a.skip ? 'skip' : a.ok ? 'pass' : 'fail'
    count(kind, file, summaryOf || state)
    const reason = a.todo || a.skip
    if (kind === 'fail') counts.fails.push({ file, name: namePath(state, a.name) })
    if (kind === 'skip' || kind === 'todo') {
      counts[`${kind}s`].push({ file, name: a.name, reason: typeof reason === 'string' ? reason : '' })
    }
  })
}

// The subtests' names below the file, then the assertion's own.
function namePath (state, name) {
  const names = [name]
  for (let s = state; s && s.parent; s = s.parent) names.unshift(s.name)
  return names.join(' > ')
}

function count (kind, file, state) {
  counts[kind]++
  fileCounts(file)[kind]++
  if (kind === 'fail') for (let s = state; s; s = s.parent) s.fails++
}

const root = new Parser()
watch(root, null)
root.on('complete', () => {
  if (process.env.SANDY_TAP_COUNT_FILE) fs.writeFileSync(process.env.SANDY_TAP_COUNT_FILE, JSON.stringify(counts))
})
process.stdin.on('data', (chunk) => {
  process.stdout.write(chunk)
  root.write(chunk)
})
process.stdin.on('end', () => root.end())
