#include "policy_json.h"

#include <stdio.h>
#include <string.h>

/* Placeholder until the parser lands: refuses every document. */
int sandy_policy_from_json(const uint8_t *src, size_t len, sandy_policy *out,
			   sandy_doc_error *err)
{
	(void)src;
	(void)len;
	sandy_policy_init(out, SANDY_NETWORK_BLOCK_ALL);
	memset(err, 0, sizeof(*err));
	err->kind = SANDY_DOC_PARSE;
	err->line = 1;
	err->column = 1;
	snprintf(err->message, sizeof(err->message), "not implemented");
	return -1;
}
