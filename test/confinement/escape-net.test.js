'use strict'
// Escape suite, the network: with network block_all nothing leaves the
// sandbox (TCP, UDP, raw, netlink, IPv6, io_uring), abstract UNIX sockets
// of the host are out of reach whatever the network policy, and
// socketpair(AF_UNIX) keeps working. Listeners are started by the test on
// the host, which counts what actually reached them.
const t = require('tap')
const net = require('node:net')
const dgram = require('node:dgram')
const path = require('node:path')
const crypto = require('node:crypto')
const {
  AccessMode, PathScope, NetworkPolicy, setup, tree, basePolicy, escapeCase, allowedCase, withoutSandy
} = require('../helpers/sandbox.js')

// (every case here confines a Sandy policy)
if (withoutSandy(t)) return
const fx = setup(t)

function make (user, network = NetworkPolicy.BlockAll) {
  const root = tree(fx, user, { 'ws/file': 'ws\n' })
  const at = (rel) => path.join(root, rel)
  const policy = basePolicy(fx, { network }).grant(at('ws'), AccessMode.ReadWrite, PathScope.Subtree)
  return { root, at, policy, cwd: at('ws') }
}

const op = (...args) => [fx.op, ...args]
const BLOCKED = ['EPERM', 'EACCES', 'EAFNOSUPPORT', 'ENETUNREACH', 'ECONNREFUSED', 'ENOSYS']

// A listener that counts connections (or datagrams). barrier() resolves
// once the listener has seen a marker of the test's own, sent after the
// run ended: what the run's process delivered before it exited (a
// connection in the accept queue, a datagram in the receive queue) is
// taken first, so the count is then complete. The marker is no hit.
const MARK = 'sandy-barrier'
function listen (kind, address) {
  return new Promise((resolve, reject) => {
    const counter = { hits: 0 }
    let passed = null
    const marked = () => {
      counter.hits--
      passed()
    }
    if (kind === 'udp') {
      const s = dgram.createSocket('udp4')
      s.on('message', (m) => {
        counter.hits++
        if (m.toString() === MARK) marked()
      })
      s.on('error', reject)
      const barrier = () => new Promise((resolve, reject) => {
        passed = resolve
        s.send(MARK, s.address().port, '127.0.0.1', (err) => { if (err) reject(err) })
      })
      s.bind(0, '127.0.0.1', () => resolve({ counter, barrier, port: s.address().port, close: () => s.close() }))
      return
    }
    const s = net.createServer((c) => {
      counter.hits++
      c.on('error', () => {})
      c.on('data', (d) => { if (d.toString() === MARK) marked() })
    })
    s.on('error', reject)
    const barrier = () => new Promise((resolve, reject) => {
      passed = resolve
      const c = net.connect(kind === 'abstract' ? address : { port: s.address().port, host: '127.0.0.1' }, () => c.end(MARK))
      c.on('error', reject)
    })
    const done = () => resolve({ counter, barrier, port: s.address().port, close: () => s.close() })
    if (kind === 'abstract') s.listen(address, done)
    else s.listen(0, '127.0.0.1', done)
  })
}

function counted (server, build, { allowed = false } = {}) {
  return async (user) => {
    const c = build(user)
    const start = server.counter.hits
    return {
      ...c,
      after: async (t, which) => {
        await server.barrier()
        const got = server.counter.hits - start
        if (which === 'confined' && !allowed) t.equal(got, 0, 'nothing reached the host listener')
        else t.ok(got > 0, `the ${which} run reached the host listener`)
      }
    }
  }
}

t.test('network', async (t) => {
  const tcp = await listen('tcp')
  const udp = await listen('udp')
  const abstractName = `sandy-escape-${crypto.randomBytes(6).toString('hex')}`
  const abs = await listen('abstract', `\0${abstractName}`)
  t.teardown(() => { tcp.close(); udp.close(); abs.close() })

  escapeCase(t, fx, 'TCP connect to a host listener on 127.0.0.1', counted(tcp, (user) =>
    ({ ...make(user), argv: op('tcp', String(tcp.port)), errnos: BLOCKED })))
  escapeCase(t, fx, 'UDP send to a host listener on 127.0.0.1', counted(udp, (user) =>
    ({ ...make(user), argv: op('udp', String(udp.port)), errnos: BLOCKED })))
  for (const kind of ['raw', 'netlink', 'inet6']) {
    escapeCase(t, fx, `${kind} socket`, (user) => ({ ...make(user), argv: op(kind), errnos: BLOCKED }))
  }
  for (const network of [NetworkPolicy.BlockAll, NetworkPolicy.AllowAll]) {
    escapeCase(t, fx, `io_uring_setup (network ${network})`, (user) =>
      ({ ...make(user, network), argv: op('io_uring'), errnos: ['EPERM', 'ENOSYS', 'EACCES'] }))
    // With allow_all there is no network namespace: only the launcher's
    // scoping keeps the host's abstract sockets out of reach.
    escapeCase(t, fx, `connect to a host abstract UNIX socket (network ${network})`, counted(abs, (user) =>
      ({ ...make(user, network), argv: op('abstract', abstractName), errnos: ['EPERM', 'ECONNREFUSED', 'EACCES'] })))
  }
  allowedCase(t, fx, 'socketpair(AF_UNIX) works with network block_all', (user) =>
    ({ ...make(user), argv: op('socketpair') }))
  allowedCase(t, fx, 'TCP connect works with network allow_all', counted(tcp, (user) =>
    ({ ...make(user, NetworkPolicy.AllowAll), argv: op('tcp', String(tcp.port)) }), { allowed: true }))
})
