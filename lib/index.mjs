// The ESM entry: the CommonJS module's own values, so a class imported here
// is the class require() gives (instanceof holds across both). Node finds
// the names in index.js's `module.exports = { ... }` (test/package/
// package.test.js holds the two entries to the same names).
export * from './index.js'
export { default } from './index.js'
