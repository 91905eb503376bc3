/* stages.c - fuzz memmodel's stage table on a fixed graph, and price
 * every stage it accepts. */
#include "fuzz.h"
#include "io/memio.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct layer_graph g;	/* read once: the stages only read it */
	static int ready;
	struct mem_stage_table st;
	struct pl_err err;
	int rc;

	if (!ready) {
		if (layers_read(&g, "tests/memmodel/layers.csv", &err) < 0) {
			fuzz_expect(-1, &err);
			__builtin_trap();
		}
		ready = 1;
	}
	rc = mem_read_stages(&st, fuzz_file("stages.csv", data, size), &g,
	    &err);
	fuzz_expect(rc, &err);
	for (size_t r = 0; rc == 0 && r < st.n; r++) {
		struct mem_breakdown b;

		mem_stage_breakdown(&g, &st.s[r], OPT_ADAM, &b);
	}
	if (rc == 0)
		mem_release_stages(&st);
	return 0;
}
