/* t-mem.c - the stage memory model (Eq. 1) on hand-worked stages. */
#include <string.h>

#include "mem.h"
#include "tap.h"

/* Four layers: parameters 1, 2, 3, 4 MB; activations 10..40 MB; inputs
 * 0.5 MB each.  Edges 0->1, 1->2, 2->3 of 0.5 MB and a 0.25 MB skip 0->3. */
static struct layer L[4];
static struct layer_edge E[4] = {
	{ 0, 1, 0.5e6 }, { 1, 2, 0.5e6 }, { 2, 3, 0.5e6 }, { 0, 3, 0.25e6 }
};

static struct layer_graph
graph(int with_edges)
{
	struct layer_graph g = { 0 };

	for (int i = 0; i < 4; i++) {
		L[i].id = i;
		L[i].parameter_bytes = (i + 1) * 1e6;
		L[i].activation_bytes = (i + 1) * 10e6;
		L[i].input_bytes = 0.5e6;
	}
	g.n = 4;
	g.l = L;
	if (with_edges) {
		g.nedges = 4;
		g.e = E;
	}
	return g;
}

static struct mem_stage
stage(size_t first, size_t last, int zs, long z, long k, long m)
{
	struct mem_stage s;

	memset(&s, 0, sizeof(s));
	s.first = first;
	s.last = last;
	s.devices = z;
	s.zero_stage = zs;
	s.zero_degree = z;
	s.schedule = SCHED_1F1B;
	s.position_from_end = k;
	s.microbatches = m;
	return s;
}

/* ZeRO-1 shards optimizer states, ZeRO-2 also gradients, ZeRO-3 also the
 * weights (Rajbhandari et al. 2020, Figure 1). */
static void
zero_stages(void)
{
	struct layer_graph g = graph(0);
	struct mem_breakdown b;
	struct mem_stage s;
	const double P = 5e6;	/* layers 1..2: 2 + 3 MB */

	s = stage(1, 2, 0, 1, 1, 8);
	mem_stage_breakdown(&g, &s, OPT_ADAM, &b);
	EQ_DBL(b.weights, P, 0, "fp16 weights, 2 bytes a parameter");
	EQ_DBL(b.gradients, P, 0, "fp16 gradients");
	EQ_DBL(b.optimizer, 6 * P, 0, "Adam: 12 bytes a parameter");
	EQ_DBL(b.total, 8 * P + 50e6, 0, "total without ZeRO");
	s = stage(1, 2, 1, 4, 1, 8);
	mem_stage_breakdown(&g, &s, OPT_ADAM, &b);
	EQ_DBL(b.optimizer, 6 * P / 4, 0, "ZeRO-1 divides optimizer states");
	EQ_DBL(b.gradients, P, 0, "ZeRO-1 keeps gradients");
	EQ_DBL(b.weights, P, 0, "ZeRO-1 keeps weights");
	s = stage(1, 2, 2, 4, 1, 8);
	mem_stage_breakdown(&g, &s, OPT_ADAM, &b);
	EQ_DBL(b.gradients, P / 4, 0, "ZeRO-2 divides gradients");
	EQ_DBL(b.weights, P, 0, "ZeRO-2 keeps weights");
	s = stage(1, 2, 3, 4, 1, 8);
	mem_stage_breakdown(&g, &s, OPT_ADAM, &b);
	EQ_DBL(b.weights, P / 4, 0, "ZeRO-3 divides weights");
	EQ_DBL(b.total, 8 * P / 4 + 50e6, 0, "ZeRO-3 total");
	EQ_DBL(b.activations, 50e6, 0, "ZeRO leaves activations alone");
	s = stage(1, 2, 0, 1, 1, 8);
	mem_stage_breakdown(&g, &s, OPT_SGD, &b);
	EQ_DBL(b.optimizer, 0, 0, "SGD keeps no optimizer state");
}

/* 1F1B: the stage k-th from the end holds min(k, m) micro-batches. */
static void
stash(void)
{
	struct layer_graph g = graph(0), ge = graph(1);
	struct mem_breakdown b;
	struct mem_stage s;
	double prev = -1;

	for (long k = 1; k <= 4; k++) {
		char name[64];

		s = stage(0, 1, 0, 1, k, 8);
		mem_stage_breakdown(&g, &s, OPT_ADAM, &b);
		snprintf(name, sizeof(name), "1F1B stash at k=%ld", k);
		EQ_DBL(b.stash, (double)(k - 1) * 30e6, 0, name);
		snprintf(name, sizeof(name), "memory grows with k=%ld", k);
		OK(b.total > prev, name);
		prev = b.total;
	}
	s = stage(0, 1, 0, 1, 6, 3);
	mem_stage_breakdown(&g, &s, OPT_ADAM, &b);
	EQ_INT(b.inflight, 3, "never more in flight than micro-batches");
	s.schedule = SCHED_GPIPE;
	s.position_from_end = 1;
	mem_stage_breakdown(&g, &s, OPT_ADAM, &b);
	EQ_INT(b.inflight, 3, "GPipe keeps all m micro-batches");
	EQ_DBL(b.stash, 2 * 30e6, 0, "GPipe stash");

	s = stage(2, 3, 0, 1, 3, 8);
	s.recompute = 1;
	mem_stage_breakdown(&g, &s, OPT_ADAM, &b);
	EQ_DBL(b.stash, 2 * 0.5e6, 0, "recomputation stashes the first "
	    "layer's input only");
	EQ_DBL(b.activations, 70e6, 0, "one micro-batch still needs all");
	mem_stage_breakdown(&ge, &s, OPT_ADAM, &b);
	EQ_DBL(b.stash, 2 * (0.5e6 + 0.25e6), 0, "with edges: every byte "
	    "entering the stage (1->2 and the 0->3 skip)");
}

int
main(void)
{
	zero_stages();
	stash();
	return tap_done();
}
