'use strict'
// A test file whose assertion passes and which then blocks in a
// synchronous call, where no signal Node could handle reaches it: a run
// without tap's runner must end it at its bound and count a failure.
const t = require('tap')
const { spawnSync } = require('node:child_process')
t.pass('this passes')
spawnSync('/bin/sleep', ['600'])
