/*
 * memio.h - memmodel's stage table (memory's input; the model is mem.h).
 */
#ifndef NP_MEMIO_H
#define NP_MEMIO_H

#include "base/csvio.h"
#include "model/layers.h"
#include "model/mem.h"

/*
 * memmodel's stage table: one row a stage (stage, first_layer,
 * last_layer, devices, position_from_end, microbatches; optional
 * zero_stage, zero_degree, recompute, schedule), each checked against
 * the graph.  s[r] is row r; label_col is the stage column of t.
 */
struct mem_stage_table {
	struct csvio_table t;
	int label_col;
	size_t n;
	struct mem_stage *s;
};

int mem_read_stages(struct mem_stage_table *st, const char *path,
    const struct layer_graph *g, struct pl_err *err);
void mem_release_stages(struct mem_stage_table *st);

#endif
