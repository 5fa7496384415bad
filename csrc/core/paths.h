/* Two facts about path text the core, the launcher's Linux steps and the
 * addon all need, answered once so that no two places can disagree: is
 * one path at or beneath another, and is a byte string UTF-8. Pure
 * functions on bytes, no file system (the C tests cover them directly). */
#ifndef SANDY_PATHS_H
#define SANDY_PATHS_H

#include <stdbool.h>
#include <stddef.h>

/* True when path is dir itself or lies beneath it, compared component by
 * component ("/a" holds "/a/b" but not "/ab"). Both are canonical absolute
 * paths: no trailing slash except "/" itself, which holds every absolute
 * path; no ".", "..", or doubled slashes (the caller canonicalized them,
 * this function does not look at the file system). */
bool sandy_path_within(const char *dir, const char *path);

/* True when path is canonical absolute text, the form sandy_path_within
 * takes: it starts with "/", and no component is empty (a doubled or
 * trailing slash; "/" alone is canonical), "." or "..". Text that crossed
 * a process boundary is held to it before any containment is asked of it. */
bool sandy_path_canonical(const char *path);

/* The length of the well-formed UTF-8 sequence at s (n >= 1 bytes
 * readable there), or 0 when it is not one: RFC 3629, so overlong forms,
 * surrogates (U+D800..U+DFFF) and code points past U+10FFFF are refused,
 * as they would let two byte strings spell one character. When bad is not
 * NULL and the answer is 0, *bad is the offset of the first byte that
 * makes the sequence invalid (0: the lead byte; n: the sequence is cut
 * short), so a parser can point at it. */
size_t sandy_utf8_sequence(const char *s, size_t n, size_t *bad);

/* The n bytes at s are all UTF-8 (any NUL among them included). */
bool sandy_utf8_valid(const char *s, size_t n);

#endif
