{
  "variables": {
    "sanitize%": "0",
    "sanitize_cflags": ["-fsanitize=address,undefined", "-fno-sanitize-recover=undefined", "-fno-omit-frame-pointer", "-O1", "-g"],
    "strict_cflags": ["-std=c11", "-Wall", "-Wextra", "-Werror", "-D_GNU_SOURCE", "-fvisibility=hidden"],
    "cjson_dir": "<!(sh scripts/fetch-cjson.sh)"
  },
  "targets": [
    {
      "target_name": "cjson",
      "type": "static_library",
      "sources": ["<(cjson_dir)/cJSON.c"],
      "cflags_c": ["-std=c89", "-fvisibility=hidden"],
      "direct_dependent_settings": {"include_dirs": ["<(cjson_dir)"]},
      "conditions": [
        ["sanitize==1", {"cflags_c": ["<@(sanitize_cflags)"]}],
        ["OS=='mac'", {"xcode_settings": {"GCC_SYMBOLS_PRIVATE_EXTERN": "YES"}}]
      ]
    },
    {
      "target_name": "sandy",
      "dependencies": ["cjson"],
      "sources": ["<!@(node scripts/sources.js addon core)"],
      "cflags_c": ["<@(strict_cflags)"],
      "conditions": [
        ["sanitize==1", {"cflags_c": ["<@(sanitize_cflags)"], "ldflags": ["-fsanitize=address,undefined"]}],
        ["OS=='linux'", {"ldflags": ["-Wl,--version-script=<(module_root_dir)/csrc/addon/exports.map"]}],
        ["OS=='linux' and sanitize==0", {"configurations": {"Release": {"ldflags": ["-s"]}}}],
        ["OS=='mac'", {
          "sources": ["<!@(node scripts/sources.js addon-darwin)"],
          "xcode_settings": {"OTHER_CFLAGS": ["<@(strict_cflags)"]}
        }]
      ]
    }
  ]
}
