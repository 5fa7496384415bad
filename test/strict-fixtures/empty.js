// A test file with no test in it (test/meta/strict.test.js runs it).
