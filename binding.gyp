{
  "variables": {
    "sanitize%": "0",
    "sanitize_cflags": ["<!@(make -s --no-print-directory -C csrc print-SANITIZE_CFLAGS)"],
    "sanitize_ldflags": ["<!@(make -s --no-print-directory -C csrc print-SANITIZE_LDFLAGS)"],
    "strict_cflags": ["<!@(make -s --no-print-directory -C csrc print-ADDON_CFLAGS)"],
    "cjson_cflags": ["<!@(make -s --no-print-directory -C csrc print-CJSON_CFLAGS)"],
    "cjson_dir": "<!(sh scripts/fetch-cjson.sh)"
  },
  "targets": [
    {
      "target_name": "cjson",
      "type": "static_library",
      "sources": ["<(cjson_dir)/cJSON.c"],
      "cflags_c": ["<@(cjson_cflags)"],
      "direct_dependent_settings": {"include_dirs": ["<(cjson_dir)"]},
      "conditions": [
        ["sanitize==1", {"cflags_c": ["<@(sanitize_cflags)"]}],
        ["OS=='mac'", {"xcode_settings": {"GCC_SYMBOLS_PRIVATE_EXTERN": "YES"}}]
      ]
    },
    {
      "target_name": "sandy",
      "dependencies": ["cjson"],
      "sources": ["<!@(make -s --no-print-directory -C csrc paths-ADDON_SOURCES paths-CORE_SOURCES)"],
      "cflags_c": ["<@(strict_cflags)"],
      "conditions": [
        ["sanitize==1", {"cflags_c": ["<@(sanitize_cflags)"], "ldflags": ["<@(sanitize_ldflags)"]}],
        ["OS=='linux'", {"ldflags": ["-Wl,--version-script=../csrc/addon/exports.map"]}],
        ["OS=='linux' and sanitize==0", {"configurations": {"Release": {"ldflags": ["-s"]}}}],
        ["OS=='mac'", {
          "sources": ["<!@(make -s --no-print-directory -C csrc paths-ADDON_DARWIN_SOURCES)"],
          "xcode_settings": {"OTHER_CFLAGS": ["<@(strict_cflags)"]}
        }]
      ]
    }
  ]
}
