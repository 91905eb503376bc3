/* layers.c - fuzz the per-layer graph reader (layers_read) and what the
 * planner asks of a graph it accepted. */
#include "fuzz.h"
#include "model/layers.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct layer_graph g;
	struct pl_err err;
	int rc = layers_read(&g, fuzz_file("layers.csv", data, size), &err);

	fuzz_expect(rc, &err);
	if (rc < 0)
		return 0;
	for (size_t r = 0; r < g.n; r++)
		if (layers_index(&g, g.l[r].id) != (long)r)
			__builtin_trap();	/* ids are unique once read */
	(void)layers_boundary_input(&g, 0, g.n - 1);
	layers_release(&g);
	return 0;
}
