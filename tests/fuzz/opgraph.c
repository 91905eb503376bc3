/* opgraph.c - fuzz the artifact's operator-graph reader and its reduction
 * to a per-layer graph (graph-normalize).  The input holds the folder's
 * three files, ops.csv, op_edges.csv and fused_edges.csv, in that order,
 * separated by lines "----". */
#include <string.h>

#include "fuzz.h"
#include "graph/opgraph.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const names[3] = { "ops.csv", "op_edges.csv",
		"fused_edges.csv" };
	const uint8_t *part[3];
	size_t len[3], n = fuzz_split(data, size, 3, part, len);
	struct opgraph g;
	struct layer_graph lg;
	struct sched_opts so;
	struct pl_err err;
	int rc;

	for (size_t k = 0; k < 3; k++)
		fuzz_file(names[k], k < n ? part[k] : NULL, k < n ? len[k] : 0);
	rc = opgraph_read_artifact(&g, fuzz_dir(), &err);
	fuzz_expect(rc, &err);
	if (rc < 0)
		return 0;
	memset(&so, 0, sizeof(so));
	so.tc_cores = 1;
	so.vc_cores = 1;
	rc = opgraph_to_layers(&g, 4, LAYER_TIME_SEQUENTIAL, &so, &lg, &err);
	fuzz_expect(rc, &err);
	if (rc == 0)
		layers_release(&lg);
	opgraph_release(&g);
	return 0;
}
