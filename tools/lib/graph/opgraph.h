/*
 * opgraph.h - operator graphs, and their reduction to per-layer graphs.
 *
 * An operator graph is the artifact's export (../shared/nest-artifact, see
 * its README): ops.csv, op_edges.csv and fused_edges.csv in one directory.
 * opgraph_read_artifact() reads all three strictly: every op id an edge
 * names must exist, layers must agree, times and sizes must not be
 * negative, and both the operator DAG and each layer's fused DAG must be
 * acyclic (the error names the file and line of an edge on the cycle).
 *
 * opgraph_to_layers() reduces it to the per-layer graph the planner uses
 * (layers.h): per layer the parameter and activation bytes (2 bytes an fp16
 * element, summed over the layer's operators), the forward and backward
 * time from the layer's fused operators, the collective bytes by kind, and
 * the layer edges.  A graph traced with one transformer layer (ids -1 and
 * 0) is expanded to `nlayers` copies of layer 0, each taking layer 0's
 * incoming edges from its predecessor.  A traced layer whose operators were
 * not evaluated (layer_evaluated = 0: the export has no estimates for
 * them) is likewise a copy of layer 0, as the artifact's own layers.csv
 * has it; for BERT this drops the MLM head from the last layer.
 */
#ifndef NP_OPGRAPH_H
#define NP_OPGRAPH_H

#include <stddef.h>

#include "base/util.h"
#include "graph/sched.h"
#include "model/layers.h"

/* The most operators and edges an operator graph may have: the
 * artifact's have up to 3,220 a graph (one layer of each kind, profiled);
 * a table past these is refused at its first row past the cap. */
#define OPGRAPH_MAX_OPS ((size_t)100000)
#define OPGRAPH_MAX_EDGES ((size_t)1000000)
#define OPGRAPH_WHY_MAX "an operator graph has thousands of operators"

enum op_core {
	CORE_NOP,		/* free */
	CORE_TC,		/* tensor cores */
	CORE_VC,		/* vector cores */
	CORE_TCVC,		/* a matmul fused with its successor: one of each */
	CORE_COLL,		/* a collective, on a vector core */
	CORE_ABSORBED,		/* fused into another op */
	CORE_UNSCHEDULED	/* isolated or not_evaluated */
};

struct op {
	long id, layer, fused_into;
	int core;			/* enum op_core */
	int coll;			/* LCOLL_* or -1 */
	int evaluated;			/* layer_evaluated: has estimates */
	double fwd_single_ms, bwd_single_ms, fwd_intra_ms, bwd_intra_ms;
	double param_elems, act_elems;
	size_t line;
};

struct op_edge {
	long src, dst;			/* op ids */
	double elems;			/* size of the source's output */
	size_t line;
};

struct fused_edge {
	long layer, src, dst;		/* fused op ids */
	size_t line;
};

struct opgraph {
	char *dir;
	size_t nops;
	struct op *ops;
	long maxid;
	long *index;			/* op id -> position in ops, or -1 */
	size_t nedges;
	struct op_edge *edges;
	size_t nfused;
	struct fused_edge *fused;
	char *ops_file, *edges_file, *fused_file;
};

int opgraph_read_artifact(struct opgraph *g, const char *dir,
    struct pl_err *err);
void opgraph_release(struct opgraph *g);

/* The op with id `id`, or NULL. */
const struct op *opgraph_op(const struct opgraph *g, long id);

/* Is this op a node the per-layer schedule runs (a non-Nop fused op)? */
int opgraph_scheduled(const struct op *o);

enum { LAYER_TIME_SEQUENTIAL, LAYER_TIME_ILP };

/*
 * Per-layer times: `sequential` is the plain sum of the intra-operator
 * times of the layer's scheduled ops; `ilp` is the optimal schedule of
 * sched.h on so->tc_cores and so->vc_cores, with its proven bound and
 * status kept in the layer.
 * `nlayers` is the model's transformer layer count (for the expansion of
 * one-layer traces; 0: no expansion).  `out` receives rows in pipeline
 * order (-1 first) and the layer edges.
 */
int opgraph_to_layers(const struct opgraph *g, long nlayers, int timing,
    const struct sched_opts *so, struct layer_graph *out, struct pl_err *err);

#endif
