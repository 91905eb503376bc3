/* edges.c - fuzz the layer edges reader (memmodel -e) on a fixed graph. */
#include "fuzz.h"
#include "model/layers.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct layer_graph g;
	struct pl_err err;
	int rc;

	if (layers_read(&g, "tests/memmodel/layers.csv", &err) < 0) {
		fuzz_expect(-1, &err);
		__builtin_trap();	/* the fixture must load */
	}
	rc = layers_read_edges(&g, fuzz_file("edges.csv", data, size), &err);
	fuzz_expect(rc, &err);
	if (rc == 0)
		(void)layers_boundary_input(&g, 0, g.n - 1);
	layers_release(&g);
	return 0;
}
