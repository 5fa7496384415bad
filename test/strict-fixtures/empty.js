// A test file with no test in it (test/strict.test.js runs it).
