'use strict'
// A passing test file with one skip that no allowlist entry covers
// (test/meta/strict.test.js runs it).
const t = require('tap')
const { UNCOVERED } = require('../../scripts/test-verdict.js')
t.pass('the covered part works')
t.skip(`${UNCOVERED} bwrap backend: bubblewrap is not installed`)
