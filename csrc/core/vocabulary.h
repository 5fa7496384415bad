/* The words Sandy's policy and the seam are spoken in, each spelled once.
 *
 * Every list below is an X-macro: SANDY_..._MAP(X) calls X once per word, in
 * a fixed order. The C enums (policy.h, probe.h, error.h), the name
 * and parse functions and every table of section names are expanded from
 * these lists, and so is lib/vocabulary.js, printed by vocabulary_gen.c
 * (test/meta/vocabulary.test.js checks that the committed copy is
 * current, and holds the TypeScript unions of types/index.d.ts to the same
 * lists). Hand-written copies in C, JS and
 * the types had drifted apart; now a word added here reaches all three or a
 * test fails.
 *
 * A word here is wire format: the policy document, the launcher's argv, the
 * pin keys and the JS API all carry it. Words are added, never renamed. */
#ifndef SANDY_VOCABULARY_H
#define SANDY_VOCABULARY_H

/* The policy's sections: X(ID, document key, JS property, launcher option).
 * The document key is also how every error message, in C and JS alike,
 * names an entry ("grants[3]", never a path), and how a pin key starts
 * (policy_argv.h). The order is the document's, the builder's and the
 * launcher argv's. */
#define SANDY_SECTION_MAP(X)                                                 \
	X(GRANTS, "grants", "grants", "--grant")                              \
	X(EXECUTABLE_GRANTS, "executable_grants", "executableGrants",         \
	  "--execute")                                                        \
	X(DENY_SUBTREES, "deny_subtrees", "denySubtrees", "--deny-subtree")   \
	X(DENY_WRITE_EXACT, "deny_write_exact", "denyWriteExact",             \
	  "--deny-write-exact")

/* A grant's access and scope words, and the network's: X(ID, C enum value,
 * word, key of the JS enumeration object). The values start at 1 so that a
 * zeroed field holds no word (policy_argv.c reads network 0 as "--network
 * not given"). */
#define SANDY_ACCESS_MAP(X)                                                  \
	X(READ, 1, "read", "Read")                                            \
	X(READ_WRITE, 2, "read_write", "ReadWrite")
#define SANDY_SCOPE_MAP(X)                                                   \
	X(EXACT, 1, "exact", "Exact")                                         \
	X(SUBTREE, 2, "subtree", "Subtree")
#define SANDY_NETWORK_MAP(X)                                                 \
	X(ALLOW_ALL, 1, "allow_all", "AllowAll")                              \
	X(BLOCK_ALL, 2, "block_all", "BlockAll")

/* The backends the probe judges and the seam can run: X(ID, name). The
 * enum (sandy_backend_id, probe.h) counts from 0: it indexes the probe's
 * verdicts. The seam's provider adds two choices of its own in JS, "auto"
 * (arbitration) and "runner" (an operator's runner); neither is a backend
 * the C code knows, so neither is here. */
#define SANDY_BACKEND_MAP(X)                                                 \
	X(SANDY, "sandy")                                                     \
	X(BWRAP, "bwrap")                                                     \
	X(LANDLOCK, "landlock")                                               \
	X(SEATBELT, "seatbelt")

/* The seam's confining modes: X(ID, name) (sandy_mode, policy.h, from 1). */
#define SANDY_MODE_MAP(X)                                                    \
	X(READ_ONLY, "read-only")                                             \
	X(WORKSPACE_WRITE, "workspace-write")

/* The seam's one other mode. It confines nothing, so it never reaches C
 * (the caller spawns its argv itself) and has no sandy_mode; it is spelled
 * here because it belongs to the same list (the seam's SandboxMode, which
 * the policy service accepts and the types declare), and a list spelled
 * in two places is what this header exists to prevent. */
#define SANDY_UNCONFINED_MODE "danger-full-access"

/* How completely a backend enforces a policy's file effects: X(ID, word). */
#define SANDY_ENFORCEMENT_MAP(X)                                             \
	X(FULL, "full")                                                       \
	X(PARTIAL, "partial")

/* Kernel filesystems, whose files are kernel settings and devices rather
 * than data, by their statfs magic and mount type: X(magic, name). None is
 * a workspace or a writable root of the seam (lib/provider.js), and no
 * read_write grant names anything on one but a device node (resolve.c;
 * what counts as on one: kernel_fs.h): a confined uid 0 passes the
 * kernel's own checks on their files (sysctls, cgroup controls), which
 * look at the uid, not at capabilities. */
#define SANDY_KERNEL_FS_MAP(X)                                               \
	X(0x9fa0, "proc")                                                     \
	X(0x62656572, "sysfs")                                                \
	X(0x27e0eb, "cgroup")                                                 \
	X(0x63677270, "cgroup2")                                              \
	X(0x64626720, "debugfs")                                              \
	X(0x74726163, "tracefs")                                              \
	X(0x73636673, "securityfs")                                           \
	X(0xcafe4a11, "bpf")                                                  \
	X(0x1cd1, "devpts")                                                   \
	X(0x6165676c, "pstore")                                               \
	X(0xde5e81e4, "efivarfs")                                             \
	X(0x42494e4d, "binfmt_misc")                                          \
	X(0x62656570, "configfs")                                             \
	X(0x65735543, "fusectl")                                              \
	X(0x19800202, "mqueue")                                               \
	X(0xf97cff8c, "selinuxfs")                                            \
	X(0x43415d53, "smackfs")                                              \
	X(0x7655821, "resctrl")                                               \
	X(0xabba1974, "xenfs")                                                \
	X(0x6e667364, "nfsd")                                                 \
	X(0x67596969, "rpc_pipefs")

/* Kernel filesystems whose statfs magic is another's, known by their
 * mount's type only: X(magic, name) with magic 0. devtmpfs shows tmpfs's
 * magic and holds the host's device nodes. */
#define SANDY_KERNEL_FS_NAMED_MAP(X)                                         \
	X(0, "devtmpfs")

/* The kernel's own trees, by canonical path: X(path, programs). What lies
 * within one, or on the device of a tmpfs mounted there (a bind mount of
 * it elsewhere), counts as on a kernel filesystem whatever its magic,
 * since a tmpfs there (/sys/fs/cgroup, /dev/shm) shows tmpfs's magic and
 * holds control points or the host's shared memory (kernel_fs.h).
 * programs: it can hold a file a loader maps (a tmpfs in /dev), so a
 * grant there counts for exec restriction (resolve.c). */
#define SANDY_KERNEL_TREE_MAP(X)                                             \
	X("/proc", 0)                                                         \
	X("/sys", 0)                                                          \
	X("/dev", 1)

/* The environment variables that name secrets: X(MATCH, name, why).
 * EXACT is the whole name, as written; PREFIX the name's start, as
 * written; SUFFIX the name's end, in either case (npm reads
 * npm_config__authToken as well as NPM_CONFIG__AUTHTOKEN), or the whole
 * name without the suffix's leading '_' (TOKEN, API_KEY). In the seam's
 * modes the launcher removes every variable that matches before the
 * command starts, except those the caller keeps by name (keepEnv,
 * policy_argv.h's --keep-env): no environment the caller gives the spawn
 * later brings them back (core/secret_env.h). README.md's list of them is
 * this one. */
#define SANDY_SECRET_ENV_MAP(X)                                              \
	X(EXACT, "SSH_AUTH_SOCK", "the SSH agent signs with the user's keys") \
	X(EXACT, "GPG_AGENT_INFO", "the GPG agent decrypts and signs")        \
	X(EXACT, "DBUS_SESSION_BUS_ADDRESS",                                  \
	  "the session bus starts programs outside the sandbox")              \
	X(EXACT, "AWS_ACCESS_KEY_ID", "one half of an AWS key pair")          \
	X(EXACT, "AWS_SECRET_ACCESS_KEY", "the other half")                   \
	X(EXACT, "DOCKER_AUTH_CONFIG", "container registries' credentials")   \
	X(EXACT, "PGPASSWORD", "PostgreSQL's password")                       \
	X(EXACT, "MYSQL_PWD", "MySQL's password")                             \
	X(EXACT, "BW_SESSION", "an unlocked Bitwarden vault")                 \
	X(EXACT, "TMUX", "the tmux server: runs commands outside the sandbox") \
	X(PREFIX, "TF_TOKEN_", "Terraform's tokens per host")                  \
	X(SUFFIX, "_TOKEN", "GITHUB_TOKEN, GH_TOKEN, NPM_TOKEN, ..._TOKEN")    \
	X(SUFFIX, "_AUTHTOKEN", "npm's _authToken")                           \
	X(SUFFIX, "_ACCESSTOKEN", "CI systems' access tokens")                \
	X(SUFFIX, "_AUTH", "npm's _auth, basic-auth pairs")                   \
	X(SUFFIX, "_PAT", "personal access tokens")                           \
	X(SUFFIX, "_JWT", "CI systems' identity tokens")                      \
	X(SUFFIX, "_SECRET", "client and signing secrets")                    \
	X(SUFFIX, "_SECRET_KEY", "secret keys")                               \
	X(SUFFIX, "_PRIVATE_KEY", "private keys")                             \
	X(SUFFIX, "_ACCESS_KEY", "access keys")                               \
	X(SUFFIX, "_API_KEY", "API keys")                                     \
	X(SUFFIX, "_APIKEY", "API keys")                                      \
	X(SUFFIX, "_PASSWORD", "passwords")                                   \
	X(SUFFIX, "_PASSWD", "passwords")                                     \
	X(SUFFIX, "_PASSPHRASE", "passphrases")                               \
	X(SUFFIX, "_CREDENTIALS", "credentials")                              \
	X(SUFFIX, "_CONNECTION_STRING", "connection strings with their keys")

/* SandboxError's kinds, in the seed's order (sandy_error_kind, error.h,
 * after SANDY_OK): X(ID, name). The launcher's fatal line carries the
 * name, and lib/ throws SandboxError with these names of its own. */
#define SANDY_ERROR_KIND_MAP(X)                                              \
	X(UNSUPPORTED, "Unsupported")                                         \
	X(INVALID_POLICY, "InvalidPolicy")                                    \
	X(PREPARATION_FAILED, "PreparationFailed")                            \
	X(ENFORCEMENT_FAILED, "EnforcementFailed")

/* PolicyDocumentError's kinds (sandy_doc_error_kind, error.h, after
 * SANDY_DOC_OK): X(ID, name). */
#define SANDY_DOC_ERROR_KIND_MAP(X)                                          \
	X(TOO_LARGE, "TooLarge")                                              \
	X(PARSE, "Parse")                                                     \
	X(UNSUPPORTED_VERSION, "UnsupportedVersion")                          \
	X(TOO_MANY_CAPABILITIES, "TooManyCapabilities")

/* ---- sections ----------------------------------------------------------- */

typedef enum sandy_section {
#define SANDY_X(id, key, property, option) SANDY_SECTION_##id,
	SANDY_SECTION_MAP(SANDY_X)
#undef SANDY_X
	SANDY_SECTION_COUNT
} sandy_section;

/* A section's names, as data indexed by its id (an unknown id: ""). */
typedef struct sandy_section_names {
	const char *key;      /* the document's; also the name in messages */
	const char *property; /* the JS shape's (lib/policy.js, the addon) */
	const char *option;   /* the launcher argv's, one entry each */
} sandy_section_names;

static inline const sandy_section_names *sandy_section_names_of(
	sandy_section s)
{
	static const sandy_section_names names[SANDY_SECTION_COUNT + 1] = {
#define SANDY_X(id, key, property, option)                                   \
	[SANDY_SECTION_##id] = {key, property, option},
		SANDY_SECTION_MAP(SANDY_X)
#undef SANDY_X
		[SANDY_SECTION_COUNT] = {"", "", ""},
	};

	return &names[(unsigned)s < SANDY_SECTION_COUNT ? s
							: SANDY_SECTION_COUNT];
}

static inline const char *sandy_section_key(sandy_section s)
{
	return sandy_section_names_of(s)->key;
}

static inline const char *sandy_section_property(sandy_section s)
{
	return sandy_section_names_of(s)->property;
}

static inline const char *sandy_section_option(sandy_section s)
{
	return sandy_section_names_of(s)->option;
}

/* SANDY_SECTION_KEY(GRANTS) is "grants": where a message names a section. */
#define SANDY_SECTION_KEY(id) sandy_section_key(SANDY_SECTION_##id)

/* ---- enforcement -------------------------------------------------------- */

typedef enum sandy_enforcement {
#define SANDY_X(id, word) SANDY_ENFORCEMENT_##id,
	SANDY_ENFORCEMENT_MAP(SANDY_X)
#undef SANDY_X
} sandy_enforcement;

static inline const char *sandy_enforcement_name(sandy_enforcement e)
{
	switch (e) {
#define SANDY_X(id, word)                                                    \
	case SANDY_ENFORCEMENT_##id:                                          \
		return word;
	SANDY_ENFORCEMENT_MAP(SANDY_X)
#undef SANDY_X
	}
	return "";
}

#endif
