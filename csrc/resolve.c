#include "resolve.h"

#include <string.h>

/* Placeholder until resolution lands: refuses every policy. */
int sandy_resolve(const sandy_policy *p, const char *cwd, sandy_resolved *out,
		  sandy_error *err)
{
	(void)p;
	(void)cwd;
	memset(out, 0, sizeof(*out));
	return sandy_fail(err, SANDY_ERR_INVALID_POLICY, "not implemented");
}

void sandy_resolved_free(sandy_resolved *r)
{
	memset(r, 0, sizeof(*r));
}

bool sandy_resolved_covers_cwd(const sandy_resolved *r)
{
	(void)r;
	return false;
}
