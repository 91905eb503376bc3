/*
 * replay.c - make check's side of make fuzz: runs a harness over every
 * file of its saved corpus (tests/fuzz/corpus/NAME, or the files and
 * folders given) with the system compiler, and prints TAP.  A crash, a
 * sanitizer report or a broken contract fails the case.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

static long
replay_file(const char *path)
{
	char *buf;
	size_t len;
	struct pl_err err;

	if (read_file(path, &buf, &len, &err) < 0) {
		fprintf(stderr, "replay: %s\n", err.msg);
		return -1;
	}
	LLVMFuzzerTestOneInput((const uint8_t *)buf, len);
	free(buf);
	return 1;
}

static int
by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every regular file of a folder, in name order (same run, same order). */
static long
replay_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **names = NULL;
	size_t n = 0, cap = 0;
	long done = 0;

	if (d == NULL)
		return replay_file(dir);
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		if (n == cap)
			names = xrealloc(names, (cap = cap ? 2 * cap : 64) *
			    sizeof(*names));
		names[n] = xmalloc(strlen(dir) + strlen(e->d_name) + 2);
		sprintf(names[n++], "%s/%s", dir, e->d_name);
	}
	closedir(d);
	qsort(names, n, sizeof(*names), by_name);
	for (size_t i = 0; i < n; i++) {
		long r = replay_file(names[i]);

		done = done < 0 || r < 0 ? -1 : done + r;
		free(names[i]);
	}
	free(names);
	return done;
}

int
main(int argc, char *argv[])
{
	const char *dflt = "tests/fuzz/corpus/" FUZZ_NAME;
	long n = 0;

	if (argc < 2)
		n = replay_dir(dflt);
	for (int i = 1; i < argc && n >= 0; i++) {
		long r = replay_dir(argv[i]);

		n = r < 0 ? -1 : n + r;
	}
	if (n <= 0) {
		printf("not ok 1 - %s corpus: %s\n", FUZZ_NAME, n < 0 ?
		    "unreadable" : "empty");
		printf("1..1\n");
		return 1;
	}
	printf("ok 1 - %s corpus: %ld inputs replayed\n1..1\n", FUZZ_NAME, n);
	return 0;
}
