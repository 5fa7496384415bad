'use strict'
// Abstract UNIX sockets in the seam's modes (issue 9: record what
// happens). The modes leave the network as the host has it, so a confined
// command shares the host's abstract socket namespace: it can bind a name
// first (squatting it: the host's own bind then fails) and a host client
// that connects to that name reaches the confined listener. Landlock's
// scoping only stops connections from inside to listeners outside (tested
// in test/confinement/escape-net.test.js). THREAT_MODEL.md lists this as a limit.
const t = require('tap')
const crypto = require('node:crypto')
const fs = require('node:fs')
const { spawn, spawnSync } = require('node:child_process')
const { withSanitizerEnv } = require('../helpers/sandbox.js')
const { patience } = require('../helpers/patience.js')
const { createLocalSandboxProvider } = require('../..')

const LISTEN = 'import socket, sys\ns = socket.socket(socket.AF_UNIX)\ns.bind("\\0" + sys.argv[1])\ns.listen(1)\nprint("LISTENING", flush=True)\nc, _ = s.accept()\nprint("ACCEPTED", flush=True)'
const HOST = 'import socket, sys\ns = socket.socket(socket.AF_UNIX)\ntry:\n  s.bind("\\0" + sys.argv[1])\n  print("BOUND")\nexcept OSError as e:\n  print("BIND", e.errno)\nc = socket.socket(socket.AF_UNIX)\nc.connect("\\0" + sys.argv[1])\nprint("CONNECTED")'

for (const backend of ['sandy', 'bwrap']) {
  t.test(`a confined listener can squat an abstract name the host uses [${backend}]`, async (t) => {
    const name = `sandy-squat-${crypto.randomBytes(6).toString('hex')}`
    // (a workspace of its own: all of /var/tmp would be searched for the
    // repositories other test files make there meanwhile)
    const ws = fs.mkdtempSync('/var/tmp/sandy-abstract-')
    t.teardown(() => fs.rmSync(ws, { recursive: true, force: true }))
    const c = createLocalSandboxProvider({ backend }).confine(['python3', '-c', LISTEN, name], { mode: 'workspace-write', workspaceRoot: ws })
    const child = spawn(c.argv[0], c.argv.slice(1), { cwd: ws, env: withSanitizerEnv({ PATH: '/usr/bin:/bin' }) })
    let out = ''
    let listening
    const bound = new Promise((resolve) => { listening = resolve })
    child.stdout.on('data', (d) => {
      out += d
      if (out.includes('LISTENING\n')) listening()
    })
    const done = new Promise((resolve) => child.on('close', resolve))
    // (it says so once it listens, or it ends)
    await Promise.race([bound, done])
    t.match(out, /LISTENING/, 'the confined command listens on the name')
    const host = spawnSync('python3', ['-c', HOST, name], { encoding: 'utf8', timeout: patience(10000) })
    t.match(host.stdout, /^BIND 98\n/, 'recorded: the host\'s own bind of that name fails (EADDRINUSE)')
    t.match(host.stdout, /CONNECTED/, 'recorded: a host client reaches the confined listener')
    await done
    t.match(out, /ACCEPTED/)
  })
}
