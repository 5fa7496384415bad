/* The target's exec, the launcher's last step: execvp as POSIX and glibc
 * define it, whatever libc the launcher is linked with. musl's execvp does
 * not run a file without a "#!" line through the shell, glibc's (and so
 * Node's own spawn) does; the confined command must see what an
 * unconfined one would.
 *
 *   - A name with a '/' is executed as it is; otherwise each directory of
 *     $PATH is tried in order (an empty element is the working directory;
 *     no $PATH: "/bin:/usr/bin", glibc's default).
 *   - A file the kernel refuses with ENOEXEC is run as
 *     /bin/sh FILE ARG..., as POSIX asks. Where the policy shows no
 *     /bin/sh, that ends the search with ENOEXEC (exit 126, "Exec format
 *     error"); glibc would take it for ENOENT and go on. Where /bin/sh is
 *     shown but not executable, the kernel's EACCES stands (a denial).
 *   - A $PATH element too long to join with the name is passed over.
 *   - EACCES from one directory is remembered and wins over a later
 *     ENOENT; ENOENT, ENOTDIR, ESTALE, ENODEV and ETIMEDOUT move on to the
 *     next directory; any other error ends the search.
 *
 * Returns only on failure, with errno set. */
#ifndef SANDY_EXEC_H
#define SANDY_EXEC_H

void sandy_execvp(char *const argv[]);

#endif
