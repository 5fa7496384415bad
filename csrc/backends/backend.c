/* The backends' dialects by id (backend.h). */
#include "backend.h"

static const sandy_dialect *const dialects[SANDY_BACKEND_COUNT] = {
	[SANDY_BACKEND_SANDY] = &sandy_launcher_dialect,
	[SANDY_BACKEND_BWRAP] = &sandy_bwrap_dialect,
	[SANDY_BACKEND_LANDLOCK] = &sandy_landlock_dialect,
	[SANDY_BACKEND_SEATBELT] = &sandy_seatbelt_dialect,
};

const sandy_dialect *sandy_backend_dialect(sandy_backend_id id)
{
	return id < SANDY_BACKEND_COUNT ? dialects[id] : NULL;
}
