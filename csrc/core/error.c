#include "error.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>

int sandy_fail(sandy_error *err, sandy_error_kind kind, const char *fmt, ...)
{
	va_list ap;
	int saved = errno;

	if (err == NULL)
		return -1;
	err->kind = kind;
	err->errnum = saved;
	va_start(ap, fmt);
	vsnprintf(err->message, sizeof(err->message), fmt, ap);
	va_end(ap);
	errno = saved;
	return -1;
}

const char *sandy_error_kind_name(sandy_error_kind kind)
{
	switch (kind) {
#define SANDY_X(id, name)                                                    \
	case SANDY_ERR_##id:                                                  \
		return name;
	SANDY_ERROR_KIND_MAP(SANDY_X)
#undef SANDY_X
	case SANDY_OK:
		break;
	}
	return "Ok";
}

const char *sandy_doc_error_kind_name(sandy_doc_error_kind kind)
{
	switch (kind) {
#define SANDY_X(id, name)                                                    \
	case SANDY_DOC_##id:                                                  \
		return name;
	SANDY_DOC_ERROR_KIND_MAP(SANDY_X)
#undef SANDY_X
	case SANDY_DOC_OK:
		break;
	}
	return "Ok";
}

const char *sandy_errno_name(int e, char buf[16])
{
	switch (e) {
#define SANDY_X(name)                                                        \
	case name:                                                            \
		return #name;
	SANDY_ERRNO_MAP(SANDY_X)
#undef SANDY_X
	default:
		snprintf(buf, 16, "errno %d", e);
		return buf;
	}
}
