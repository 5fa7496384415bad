/* libFuzzer target for the launcher's argument parser (policy_argv.h):
 * the input is a list of words separated by NUL bytes.
 *
 * Beyond "no crash, no leak, no undefined behaviour" (the sanitizers), it
 * checks the parser's contract on every input:
 *  - failure leaves the launch empty and reports PreparationFailed with a
 *    bounded message that never quotes a path;
 *  - success names a network, and its target index follows the "--";
 *  - an accepted launch, written back with the encoder and parsed again,
 *    encodes to the very same words (encoder and decoder agree).
 * csrc/Makefile (fuzz) builds and runs it. */
#include "../csrc/core/policy_argv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(cond)                                                           \
	do {                                                                  \
		if (!(cond)) {                                                \
			fprintf(stderr, "launch_argv_fuzz: %s:%d: %s\n",      \
				__FILE__, __LINE__, #cond);                   \
			abort();                                              \
		}                                                             \
	} while (0)

#define MAX_WORDS 4096

static int is_empty(const sandy_launch *l)
{
	static const sandy_launch zero;

	return memcmp(l, &zero, sizeof(zero)) == 0;
}

/* The words of data, split at NUL bytes (the last need not end in one). */
static int split(char *data, size_t size, char **words)
{
	int n = 0;
	size_t start = 0;

	for (size_t i = 0; i <= size && n < MAX_WORDS; i++) {
		if (i == size && start == size)
			break;
		if (i == size || data[i] == '\0') {
			data[i] = '\0';
			words[n++] = data + start;
			start = i + 1;
		}
	}
	words[n] = NULL;
	return n;
}

static void check_round_trip(const sandy_launch *l)
{
	size_t n1 = 0, n2 = 0;
	char **w1 = sandy_launch_to_argv(l, &n1), **w2;
	char **with_end;
	sandy_launch again;
	sandy_error err = {0};

	CHECK(w1 != NULL);
	with_end = calloc(n1 + 2, sizeof(*with_end));
	CHECK(with_end != NULL);
	memcpy(with_end, w1, n1 * sizeof(*w1));
	with_end[n1] = "--";
	CHECK(sandy_launch_from_argv((int)n1 + 1, with_end, &again, &err) == 0);
	CHECK(again.target == (int)n1 + 1);
	w2 = sandy_launch_to_argv(&again, &n2);
	CHECK(w2 != NULL && n2 == n1);
	for (size_t i = 0; i < n1; i++)
		CHECK(strcmp(w1[i], w2[i]) == 0);
	sandy_launch_free(&again);
	sandy_argv_free(w1);
	sandy_argv_free(w2);
	free(with_end);
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	static char *words[MAX_WORDS + 1];
	char *copy = malloc(size + 1);
	sandy_launch l;
	sandy_error err = {0};
	int n;

	CHECK(copy != NULL);
	memcpy(copy, data, size);
	copy[size] = '\0';
	n = split(copy, size, words);
	if (sandy_launch_from_argv(n, words, &l, &err) != 0) {
		CHECK(is_empty(&l));
		CHECK(err.kind == SANDY_ERR_PREPARATION_FAILED);
		CHECK(strlen(err.message) < sizeof(err.message));
		for (int i = 0; i < n; i++)
			if (strchr(words[i], '/') != NULL)
				CHECK(strstr(err.message, words[i]) == NULL);
	} else {
		CHECK(l.policy.network != 0);
		CHECK(l.target >= 2 && l.target <= n);
		CHECK(strcmp(words[l.target - 1], "--") == 0);
		CHECK(l.n_tmpfs <= SANDY_TMPFS_MAX);
		CHECK(l.n_pins <= SANDY_PINS_MAX);
		check_round_trip(&l);
		sandy_launch_free(&l);
	}
	free(copy);
	return 0;
}
