#include "error.h"

#include <stdarg.h>
#include <stdio.h>

int sandy_fail(sandy_error *err, sandy_error_kind kind, const char *fmt, ...)
{
	va_list ap;

	if (err == NULL)
		return -1;
	err->kind = kind;
	va_start(ap, fmt);
	vsnprintf(err->message, sizeof(err->message), fmt, ap);
	va_end(ap);
	return -1;
}

const char *sandy_error_kind_name(sandy_error_kind kind)
{
	switch (kind) {
	case SANDY_ERR_UNSUPPORTED:
		return "Unsupported";
	case SANDY_ERR_INVALID_POLICY:
		return "InvalidPolicy";
	case SANDY_ERR_PREPARATION_FAILED:
		return "PreparationFailed";
	case SANDY_ERR_ENFORCEMENT_FAILED:
		return "EnforcementFailed";
	case SANDY_OK:
		break;
	}
	return "Ok";
}

const char *sandy_doc_error_kind_name(sandy_doc_error_kind kind)
{
	switch (kind) {
	case SANDY_DOC_TOO_LARGE:
		return "TooLarge";
	case SANDY_DOC_PARSE:
		return "Parse";
	case SANDY_DOC_UNSUPPORTED_VERSION:
		return "UnsupportedVersion";
	case SANDY_DOC_TOO_MANY_CAPABILITIES:
		return "TooManyCapabilities";
	case SANDY_DOC_OK:
		break;
	}
	return "Ok";
}
