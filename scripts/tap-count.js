#!/usr/bin/env node
'use strict'
// A tap reporter (tap runs it with the raw TAP stream on stdin): passes the
// stream through unchanged and writes the real counts of leaf assertions to
// the file named by SANDY_TAP_COUNT_FILE, for scripts/test.js to sum.
const fs = require('node:fs')
const { Parser } = require('tap-parser')

const parser = new Parser({ flat: true }, (results) => {
  const counts = {
    pass: results.pass,
    fail: results.fail,
    skip: results.skip,
    todo: results.todo,
    ok: results.ok
  }
  if (process.env.SANDY_TAP_COUNT_FILE) fs.writeFileSync(process.env.SANDY_TAP_COUNT_FILE, JSON.stringify(counts))
})
process.stdin.on('data', (chunk) => {
  process.stdout.write(chunk)
  parser.write(chunk)
})
process.stdin.on('end', () => parser.end())
