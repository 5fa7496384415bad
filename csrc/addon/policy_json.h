/* The strict, bounded, version 1 policy document (seed: "JSON policy
 * documents"). Parsing performs no filesystem access. */
#ifndef SANDY_POLICY_JSON_H
#define SANDY_POLICY_JSON_H

#include <stddef.h>
#include <stdint.h>

#include "../core/error.h"
#include "../core/policy.h"

#define SANDY_DOC_SCHEMA_VERSION 1u

/* Parses src[0..len). On success fills *out (initialised by this call) and
 * returns 0. On failure returns -1, leaves *out empty, and fills *err. */
int sandy_policy_from_json(const uint8_t *src, size_t len, sandy_policy *out,
			   sandy_doc_error *err);

#endif
