#include "../core/probe.h"

#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

void sandy_probe_run(sandy_probe_report *r)
{
	struct utsname u;

	memset(r, 0, sizeof(*r));
	strcpy(r->platform, "darwin");
	if (uname(&u) == 0)
		strncpy(r->kernel_release, u.release,
			sizeof(r->kernel_release) - 1);
	r->sandbox_exec = access("/usr/bin/sandbox-exec", X_OK) == 0;
	sandy_probe_judge(r);
}
