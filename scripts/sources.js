'use strict'
// The C sources of each program, listed once. binding.gyp reads them
// (<!@(node scripts/sources.js addon)), and so do the scripts that build the
// launcher another way (sanitizers, coverage, per-layer builds, C tests).
//
//   node scripts/sources.js GROUP...   prints the files, one per line
//
// core:     what both programs build from source (never one shared object:
//           the launcher may be built by another toolchain than the addon)
// addon:    the Node-API glue, the JSON document parser and each backend's
//           words (plain C, the seatbelt backend's too: tested everywhere)
// launcher: the launcher's main and the Linux steps it runs
const backends = ['backend', 'sandy', 'bwrap', 'seatbelt']
const linuxLauncher = ['apply', 'self', 'pins', 'guard', 'guard_view', 'loader_env', 'descriptors',
  'namespaces', 'processes', 'plan', 'mount_view', 'landlock', 'seccomp', 'probe', 'watch']

const groups = {
  core: ['core/error.c', 'core/policy.c', 'core/resolve.c', 'core/policy_argv.c', 'core/copy_dirs.c',
    'core/paths.c', 'core/stat.c', 'core/kernel_fs.c', 'core/probe.c', 'core/run.c', 'core/guard_argv.c', 'core/end.c',
    'core/secret_env.c'],
  addon: ['addon/addon.c', 'addon/confine.c', 'addon/probe.c', 'addon/policy_json.c',
    ...backends.map((f) => `backends/${f}.c`)],
  'addon-darwin': ['darwin/probe.c'],
  launcher: ['launcher/launcher.c', 'launcher/exec.c', ...linuxLauncher.map((f) => `linux/${f}.c`)]
}

function sources (group) {
  if (!Object.hasOwn(groups, group)) throw new Error(`unknown source group: ${group}`)
  return groups[group].map((f) => `csrc/${f}`)
}

module.exports = { groups, sources }

if (require.main === module) {
  const names = process.argv.slice(2)
  if (names.length === 0 || !names.every((n) => Object.hasOwn(groups, n))) {
    process.stderr.write(`usage: sources.js GROUP... (${Object.keys(groups).join(', ')})\n`)
    process.exit(2)
  }
  process.stdout.write(names.flatMap(sources).join('\n') + '\n')
}
