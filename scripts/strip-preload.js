'use strict'
// Loaded with --require into every node process of the sanitizer run: node
// itself is not instrumented, so the ASan/UBSan runtimes are preloaded for
// the addon's sake only. Dropping LD_PRELOAD here keeps them out of every
// program the tests spawn (confined commands cannot even read
// /proc/self/maps, which the runtimes need).
delete process.env.LD_PRELOAD
