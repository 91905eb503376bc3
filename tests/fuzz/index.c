/* index.c - fuzz a variant index (planio_read_variants): the index is the
 * input, the graphs it may name are two fixed files beside it. */
#include <stdlib.h>

#include "fuzz.h"
#include "io/planio.h"

static char *
slurp(const char *path, size_t *len)
{
	struct pl_err err;
	char *buf;

	if (read_file(path, &buf, len, &err) < 0) {
		fuzz_expect(-1, &err);
		__builtin_trap();
	}
	return buf;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int ready;
	struct variants vs;
	struct pl_err err;
	char *paths[1];
	int rc;

	if (!ready) {
		/* a: a t=1 variant from the tests; b: its t=2 twin */
		static const char twin[] = "layer_id,kind,forward_s,"
		    "backward_s,parameter_bytes,activation_bytes,input_bytes,"
		    "t,e,c,sp,micro_batch_samples\n"
		    "0,transformer,0.005,0.01,500000,5000000,0,2,1,1,0,1\n"
		    "1,transformer,0.01,0.02,1000000,5000000,500000,2,1,1,0,1\n";
		size_t len;
		char *buf = slurp("tests/dpsolve/tiny-v.csv", &len);

		fuzz_file("a.csv", buf, len);
		free(buf);
		fuzz_file("b.csv", twin, sizeof(twin) - 1);
		ready = 1;
	}
	paths[0] = (char *)fuzz_file("index.csv", data, size);
	rc = planio_read_variants(&vs, paths, 1, &err);
	fuzz_expect(rc, &err);
	if (rc == 0)
		planio_release_variants(&vs);
	return 0;
}
