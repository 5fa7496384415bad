'use strict'
// The files the kernel matrix (scripts/kernels.js) runs in every guest:
// the security-relevant part of the suite, where what the kernel offers
// decides the answer. The probe held against the kernel and probe =
// launcher (kernel-facts), the probe's own facts, the escape suite
// (files, programs, the host, the network, /proc, processes: the process
// boundary among them), the attacks found in review, the launcher's own
// defences, its pins and its view's root, and its denies held while the
// host replaces them (inotify and the mounts' detaching are the
// kernel's). The rest of the suite checks JavaScript, the
// package and documents, which the kernel does not change. (The guest runs
// them two at a time in this order: the slowest first.)
module.exports = Object.freeze([
  'test/confinement/escape-processes.test.js',
  'test/confinement/escape-fs.test.js',
  'test/confinement/view-root.test.js',
  'test/confinement/escape-host.test.js',
  'test/unit/probe.test.js',
  'test/confinement/kernel-facts.test.js',
  'test/confinement/escape-exec.test.js',
  'test/confinement/escape-proc.test.js',
  'test/confinement/hardening.test.js',
  'test/confinement/escape-net.test.js',
  'test/confinement/launcher-exec.test.js',
  'test/confinement/pins.test.js',
  'test/confinement/deny-durability.test.js'
])
