'use strict'
// A test file whose assertion passes and which leaves a process behind
// holding its output (which could print a failure after the file's end):
// a run without tap's runner must count that as a failure, and end it.
const t = require('tap')
const { spawn } = require('node:child_process')
spawn('/bin/sleep', ['631'], { detached: true, stdio: ['ignore', 'inherit', 'ignore'] }).unref()
t.pass('this passes')
