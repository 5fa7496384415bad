#include "../apply.h"

/* Enforcement is not implemented yet: refuse, so nothing ever runs
 * unconfined. */
int sandy_apply(const sandy_resolved *r, sandy_apply_level level,
		sandy_error *err)
{
	(void)r;
	(void)level;
	return sandy_fail(err, SANDY_ERR_UNSUPPORTED,
			  "enforcement is not implemented in this build");
}
