'use strict'
// The suite on macOS (scripts/test.js there; the macos job of
// .github/workflows/ci.yml): the files that need neither Linux nor the
// launcher, and seatbelt.darwin.js, which runs the seatbelt backend for
// real. None of it has run on a Mac yet (docs/backends.md, "macOS").
module.exports = Object.freeze([
  'test/unit/seatbelt.test.js',
  'test/unit/classify.test.js',
  'test/unit/policy-document.test.js',
  'test/darwin/seatbelt.darwin.js'
])
