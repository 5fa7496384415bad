{
  "variables": {
    "sanitize%": "0",
    "sanitize_cflags": ["-fsanitize=address,undefined", "-fno-sanitize-recover=undefined", "-fno-omit-frame-pointer", "-O1", "-g"],
    "strict_cflags": ["-std=c11", "-Wall", "-Wextra", "-Werror", "-D_GNU_SOURCE", "-fvisibility=hidden"]
  },
  "targets": [
    {
      "target_name": "sandy",
      "sources": ["<!@(node scripts/sources.js addon core)"],
      "cflags_c": ["<@(strict_cflags)"],
      "libraries": ["-lcjson"],
      "conditions": [
        ["sanitize==1", {"cflags_c": ["<@(sanitize_cflags)"], "ldflags": ["-fsanitize=address,undefined"]}],
        ["OS=='mac'", {
          "sources": ["<!@(node scripts/sources.js addon-darwin)"],
          "xcode_settings": {"OTHER_CFLAGS": ["<@(strict_cflags)"]}
        }]
      ]
    }
  ],
  "conditions": [
    ["OS=='linux'", {
      "targets": [
        {
          "target_name": "sandy-launcher",
          "type": "executable",
          "sources": ["<!@(node scripts/sources.js launcher core)"],
          "cflags_c": ["<@(strict_cflags)"],
          "libraries": ["-l:libseccomp.a"],
          "conditions": [
            ["sanitize==0", {"ldflags": ["-static"]}],
            ["sanitize==1", {"cflags_c": ["<@(sanitize_cflags)"], "ldflags": ["-fsanitize=address,undefined"]}]
          ]
        },
        {
          "target_name": "sandy-launcher-digest",
          "type": "none",
          "dependencies": ["sandy-launcher"],
          "actions": [
            {
              "action_name": "record_launcher_digest",
              "inputs": ["<(module_root_dir)/build/<(CONFIGURATION_NAME)/sandy-launcher"],
              "outputs": ["<(module_root_dir)/build/<(CONFIGURATION_NAME)/sandy-launcher.sha256"],
              "action": ["sh", "scripts/launcher-digest.sh", "<@(_inputs)", "<@(_outputs)"]
            }
          ]
        }
      ]
    }]
  ]
}
