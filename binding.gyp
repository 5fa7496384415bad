{
  "variables": {
    "sanitize%": "0",
    "sanitize_cflags": ["-fsanitize=address,undefined", "-fno-sanitize-recover=undefined", "-fno-omit-frame-pointer", "-O1", "-g"],
    "core_sources": [
      "csrc/error.c",
      "csrc/policy.c",
      "csrc/resolve.c",
      "csrc/policy_argv.c",
      "csrc/copy_dirs.c"
    ],
    "strict_cflags": ["-std=c11", "-Wall", "-Wextra", "-Werror", "-D_GNU_SOURCE", "-fvisibility=hidden"]
  },
  "targets": [
    {
      "target_name": "sandy",
      "sources": [
        "csrc/addon.c",
        "csrc/policy_json.c",
        "csrc/probe.c",
        "csrc/seam.c",
        "<@(core_sources)"
      ],
      "cflags_c": ["<@(strict_cflags)"],
      "libraries": ["-lcjson"],
      "conditions": [
        ["sanitize==1", {"cflags_c": ["<@(sanitize_cflags)"], "ldflags": ["-fsanitize=address,undefined"]}],
        ["OS=='linux'", {"sources": ["csrc/linux/probe.c"]}],
        ["OS=='mac'", {
          "sources": ["csrc/darwin/probe.c"],
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
          "sources": [
            "csrc/launcher.c",
            "<@(core_sources)",
            "csrc/linux/apply.c",
            "csrc/linux/self.c",
            "csrc/linux/pins.c",
            "csrc/linux/guard.c",
            "csrc/linux/guard_view.c",
            "csrc/linux/loader_env.c",
            "csrc/linux/descriptors.c",
            "csrc/linux/namespaces.c",
            "csrc/linux/mount_view.c",
            "csrc/linux/landlock.c",
            "csrc/linux/seccomp.c"
          ],
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
