/* fuzz.c - the harnesses' scratch files and their contract (fuzz.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz.h"

static char scratch[512];

static void
remove_scratch(void)
{
	char cmd[600];

	/* the folder is ours alone (mkdtemp), its name has no quote */
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", scratch);
	if (system(cmd) != 0)
		fprintf(stderr, "fuzz: cannot remove %s\n", scratch);
}

const char *
fuzz_dir(void)
{
	if (scratch[0] == '\0') {
		const char *tmp = getenv("TMPDIR");

		snprintf(scratch, sizeof(scratch), "%s/nestplan-fuzz.XXXXXX",
		    tmp && *tmp && !strchr(tmp, '\'') ? tmp : "/tmp");
		if (mkdtemp(scratch) == NULL) {
			perror("fuzz: mkdtemp");
			abort();
		}
		atexit(remove_scratch);
	}
	return scratch;
}

const char *
fuzz_file(const char *name, const void *data, size_t size)
{
	static char path[8][600];
	static int next;
	char *p = path[next++ % 8];
	FILE *fp;

	snprintf(p, sizeof(path[0]), "%s/%s", fuzz_dir(), name);
	if ((fp = fopen(p, "wb")) == NULL ||
	    (size > 0 && fwrite(data, 1, size, fp) != size) || fclose(fp) != 0) {
		perror(p);
		abort();
	}
	return p;
}

void
fuzz_expect(int rc, const struct pl_err *err)
{
	if (rc == 0)
		return;
	if (rc != -1) {
		fprintf(stderr, "fuzz: a reader returned %d\n", rc);
		abort();
	}
	if (err->msg[0] == '\0' || strchr(err->msg, '\n') ||
	    strchr(err->file, '\n')) {
		fprintf(stderr, "fuzz: not a one-line error: '%s: %s'\n",
		    err->file, err->msg);
		abort();
	}
}

size_t
fuzz_split(const uint8_t *data, size_t size, size_t n, const uint8_t **part,
    size_t *len)
{
	static const char sep[] = "\n----\n";
	size_t k = 0;

	while (k + 1 < n) {
		const uint8_t *at = NULL;

		for (size_t i = 0; i + sizeof(sep) - 1 <= size && !at; i++)
			if (memcmp(data + i, sep, sizeof(sep) - 1) == 0)
				at = data + i;
		if (at == NULL)
			break;
		part[k] = data;
		len[k++] = (size_t)(at - data) + 1;
		size -= (size_t)(at - data) + sizeof(sep) - 1;
		data = at + sizeof(sep) - 1;
	}
	part[k] = data;
	len[k++] = size;
	return k;
}
