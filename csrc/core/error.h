/* Errors of the core. A message never contains policy contents (paths, key
 * values): it names the phase and, at most, the section and index of the
 * offending entry, so that it can be shown, logged and sent anywhere. */
#ifndef SANDY_ERROR_H
#define SANDY_ERROR_H

#include <stddef.h>
#include <stdint.h>

#include "vocabulary.h"

/* Sandy's ErrorKind, in the seed's order (vocabulary.h). */
typedef enum sandy_error_kind {
	SANDY_OK = 0,
#define SANDY_X(id, name) SANDY_ERR_##id,
	SANDY_ERROR_KIND_MAP(SANDY_X)
#undef SANDY_X
} sandy_error_kind;

typedef struct sandy_error {
	sandy_error_kind kind;
	char message[256];
	int errnum; /* errno when sandy_fail was called: a hint for the
		     * reader (the launcher names an exhausted descriptor
		     * limit), never a decision */
} sandy_error;

/* Sets *err (when err is non-NULL) and returns -1, so callers can write
 * `return sandy_fail(err, ...)`. errno is kept (err->errnum) and left as
 * it was. */
int sandy_fail(sandy_error *err, sandy_error_kind kind, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

const char *sandy_error_kind_name(sandy_error_kind kind);

/* The errno values a file lookup gives, by the names Node's err.code uses
 * (in the manner of libuv's UV_ERRNO_MAP); strerrorname_np would raise
 * the glibc the addon needs to 2.32. */
#define SANDY_ERRNO_MAP(X)                                                   \
	X(EPERM) X(ENOENT) X(EIO) X(ENXIO) X(EACCES) X(EBUSY) X(EEXIST)      \
	X(ENODEV) X(ENOTDIR) X(EISDIR) X(EINVAL) X(ENFILE) X(EMFILE)         \
	X(ENOMEM) X(ENAMETOOLONG) X(ELOOP) X(EOVERFLOW) X(ESTALE) X(ENOSYS)
/* "ENOENT" and so on, or "errno N" (in buf) for any other. */
const char *sandy_errno_name(int e, char buf[16]);

/* PolicyDocumentError of the seed. */
typedef enum sandy_doc_error_kind {
	SANDY_DOC_OK = 0,
#define SANDY_X(id, name) SANDY_DOC_##id,
	SANDY_DOC_ERROR_KIND_MAP(SANDY_X)
#undef SANDY_X
} sandy_doc_error_kind;

typedef struct sandy_doc_error {
	sandy_doc_error_kind kind;
	size_t line;      /* 1-based, SANDY_DOC_PARSE only */
	size_t column;    /* 1-based, in bytes, SANDY_DOC_PARSE only */
	uint32_t version; /* SANDY_DOC_UNSUPPORTED_VERSION only */
	char message[160];
} sandy_doc_error;

const char *sandy_doc_error_kind_name(sandy_doc_error_kind kind);

#endif
