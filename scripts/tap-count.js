#!/usr/bin/env node
'use strict'
// A tap reporter (tap runs it with the raw TAP stream on stdin): passes the
// stream through unchanged and writes the counts of LEAF assertions (a
// subtest's own summary line is not counted again) to the file named by
// SANDY_TAP_COUNT_FILE, for scripts/test.js to sum.
const fs = require('node:fs')
const { Parser } = require('tap-parser')

const counts = { pass: 0, fail: 0, skip: 0, todo: 0 }

// Each subtest is announced as a child parser before its summary assert
// arrives on the parent. A summary is not counted again, except a failed
// one whose subtest failed no assertion of its own (a crashed file, a
// coverage shortfall): that is one failure.
function watch (parser, state) {
  const children = []
  parser.on('child', (child) => {
    const childState = { fails: 0, parent: state }
    children.push(childState)
    watch(child, childState)
  })
  parser.on('assert', (a) => {
    const summaryOf = children.length > 0 ? children.shift() : null
    if (summaryOf && (a.ok || summaryOf.fails > 0)) return
    if (a.todo) counts.todo++
    else if (a.skip) counts.skip++
    else if (a.ok) counts.pass++
    else fail(state)
  })
}

function fail (state) {
  counts.fail++
  for (let s = state; s; s = s.parent) s.fails++
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
