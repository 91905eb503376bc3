/* t-mem.c - the stage memory model (Eq. 1) on hand-worked stages. */
#include <math.h>
#include <string.h>

#include "model/mem.h"
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
	struct layer_graph g = graph(0);
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
	EQ_DBL(b.inflight, 3, 0, "never more in flight than micro-batches");
	s.schedule = SCHED_GPIPE;
	s.position_from_end = 1;
	mem_stage_breakdown(&g, &s, OPT_ADAM, &b);
	EQ_DBL(b.inflight, 3, 0, "GPipe keeps all m micro-batches");
	EQ_DBL(b.stash, 2 * 30e6, 0, "GPipe stash");

}

/*
 * Recomputation, per layer as Megatron runs it: full keeps each layer's
 * input (with edges: every byte entering it) for every micro-batch in
 * flight, and rebuilds one layer's activations at a time; selective keeps
 * what the row says and rebuilds the rest of one layer.
 */
static void
recompute(void)
{
	struct layer_graph g = graph(0), ge = graph(1);
	struct mem_breakdown b;
	struct mem_stage s;

	for (int i = 0; i < 4; i++) {
		L[i].checkpoint_bytes = 0.5e6;
		L[i].selective_bytes = 0.6 * L[i].activation_bytes;
	}
	s = stage(2, 3, 0, 1, 3, 8);
	s.recompute = RC_FULL;
	mem_stage_breakdown(&g, &s, OPT_ADAM, &b);
	EQ_DBL(b.stash, 2 * 1e6, 0, "full: two more micro-batches of two "
	    "layer inputs");
	EQ_DBL(b.activations, 1e6 + 39.5e6, 0, "full: the inputs, and "
	    "layer 3 rebuilt (40 MB less the input it keeps)");
	s = stage(0, 1, 0, 1, 3, 8);
	s.recompute = RC_FULL;
	mem_stage_breakdown(&g, &s, OPT_ADAM, &b);
	EQ_DBL(b.stash, 2 * 1e6, 0, "the first stage keeps its layers' "
	    "inputs too");
	L[2].checkpoint_bytes = 0.5e6;		/* edge 1->2 */
	L[3].checkpoint_bytes = 0.75e6;		/* 2->3 and the 0->3 skip */
	s = stage(2, 3, 0, 1, 3, 8);
	s.recompute = RC_FULL;
	mem_stage_breakdown(&ge, &s, OPT_ADAM, &b);
	EQ_DBL(b.stash, 2 * 1.25e6, 0, "with edges: every byte entering "
	    "each layer");
	s.recompute = RC_SELECTIVE;
	mem_stage_breakdown(&g, &s, OPT_ADAM, &b);
	EQ_DBL(b.stash, 2 * 0.6 * 70e6, 1e-15, "selective: what it keeps");
	EQ_DBL(b.activations, 0.6 * 70e6 + 0.4 * 40e6, 1e-15,
	    "selective: and the largest layer's rebuilt part");
	s.recompute = RC_NONE;
	mem_stage_breakdown(&g, &s, OPT_ADAM, &b);
	EQ_DBL(b.activations, 70e6, 0, "none: all of one micro-batch");
	EQ_DBL(b.stash, 2 * 70e6, 0, "none: all of two more");
}

/* Interleaved 1F1B, S = 4 stages of v = 2 chunks, m = 8: Megatron's
 * warm-up keeps 2(k - 1) + (v - 1)S + 1 chunks at the stage k-th from
 * the end; the first stage S(1 + (S - 1)/(S v)) micro-batches
 * (Korthikanti et al. 2022, Section 4.2.3). */
static void
interleaved(void)
{
	struct mem_stage s = stage(0, 0, 0, 1, 4, 8);

	s.virtual_stages = 2;
	s.pipeline_stages = 4;
	EQ_DBL(mem_inflight(&s), 4 * (1 + 3.0 / 8), 1e-15,
	    "first stage: S (1 + (S - 1)/(S v))");
	s.position_from_end = 1;
	EQ_DBL(mem_inflight(&s), 5.0 / 2, 1e-15, "last stage: (vS - S + 1)/v");
	s.microbatches = 2;
	s.position_from_end = 4;
	EQ_DBL(mem_inflight(&s), 2, 1e-15, "never more than the m v chunks");
}

/*
 * Rajbhandari et al. 2020, Section 1 and Figure 1: a 7.5B-parameter model
 * with mixed-precision Adam (2 + 2 + 12 bytes a parameter) on 64-way data
 * parallelism needs 120 GB a device, 31.4 GB with the optimizer states
 * partitioned (Megatron's distributed optimizer), 16.6 GB with the
 * gradients too, 1.9 GB with the parameters too.  Megatron's fp32 main
 * gradients add 2 bytes a parameter.
 */
static void
zero_paper(void)
{
	const double psi = 7.5e9;
	struct mem_totals t = { 2 * psi, 2 * psi, 0, 0, 0 };
	struct mem_stage s = stage(0, 0, 0, 1, 1, 1);
	struct mem_breakdown b;

	mem_breakdown_of(&t, &s, OPT_ADAM, &b);
	EQ_DBL(b.total, 120e9, 0, "ZeRO paper: 120 GB without partitioning");
	s.optimizer_shards_dense = 64;
	mem_breakdown_of(&t, &s, OPT_ADAM, &b);
	OK(fabs(b.total - 31.4e9) < 0.05e9, "ZeRO paper: 31.4 GB with the "
	    "distributed optimizer over 64");
	s = stage(0, 0, 2, 64, 1, 1);
	mem_breakdown_of(&t, &s, OPT_ADAM, &b);
	OK(fabs(b.total - 16.6e9) < 0.05e9, "ZeRO paper: 16.6 GB at stage 2");
	s = stage(0, 0, 3, 64, 1, 1);
	mem_breakdown_of(&t, &s, OPT_ADAM, &b);
	OK(fabs(b.total - 1.9e9) < 0.05e9, "ZeRO paper: 1.9 GB at stage 3");
	s = stage(0, 0, 0, 1, 1, 1);
	s.grad_bytes_per_param = 4;
	mem_breakdown_of(&t, &s, OPT_ADAM, &b);
	EQ_DBL(b.total, 18 * psi, 0, "fp32 main gradients: 18 bytes a "
	    "parameter");
	/* PyTorch DDP's buckets copy the gradients: fp16 weights 2, .grad 2,
	 * buckets 2, Adam 12 */
	s = stage(0, 0, 0, 1, 1, 1);
	s.grad_copies = 2;
	mem_breakdown_of(&t, &s, OPT_ADAM, &b);
	EQ_DBL(b.total, 18 * psi, 0, "PyTorch DDP, fp16 gradients: 18 bytes "
	    "a parameter");
	s.grad_bytes_per_param = 4;
	mem_breakdown_of(&t, &s, OPT_ADAM, &b);
	EQ_DBL(b.total, 22 * psi, 0, "PyTorch DDP, fp32 gradients: 22 bytes "
	    "a parameter");
	/* experts shard over their own, smaller group */
	t.dense_params = psi;
	s = stage(0, 0, 0, 1, 1, 1);
	s.optimizer_shards_dense = 8;
	s.optimizer_shards_expert = 2;
	mem_breakdown_of(&t, &s, OPT_ADAM, &b);
	EQ_DBL(b.optimizer, 6 * psi / 8 + 6 * psi / 2, 0,
	    "dense and expert states, each over its group");
}

/*
 * What dpsolve's fit test relies on (dp.c, zero_may_fit): at every stage
 * range, position, precision, gradient copies, optimizer and distributed
 * optimizer (its shards d z), a stage's memory never rises with z (2..64)
 * at a ZeRO stage, nor with the ZeRO stage (1..3) at a z, and every ZeRO
 * choice holds no more than none.
 */
static void
zero_monotone(void)
{
	struct layer_graph g = graph(0);
	int checked = 0, rises = 0;

	for (size_t first = 0; first < 4; first++)
	for (size_t last = first; last < 4; last++)
	for (long k = 1; k <= 4; k++)
	for (int gb = 2; gb <= 4; gb += 2)
	for (int copies = 1; copies <= 2; copies++)
	for (int opt = 0; opt < 2; opt++)
	for (long d = 0; d <= 4; d += 4) {
		/* total[i][zs]: z = 2^i copies (i = 0: no ZeRO, stage 0) */
		double total[7][4];

		for (int i = 0; i < 7; i++)
			for (int zs = i > 0; zs <= (i > 0 ? 3 : 0); zs++) {
				long z = 1L << i;
				struct mem_stage s = stage(first, last, zs, z,
				    k, 4);
				struct mem_breakdown b;

				s.grad_bytes_per_param = gb;
				s.grad_copies = copies;
				s.optimizer_shards_dense = s.optimizer_shards_expert =
				    (double)(d * z);
				mem_stage_breakdown(&g, &s, opt ? OPT_SGD : OPT_ADAM,
				    &b);
				total[i][zs] = b.total;
			}
		for (int i = 1; i < 7; i++)
			for (int zs = 1; zs <= 3; zs++) {
				rises += total[i][zs] > total[0][0];
				rises += i > 1 && total[i][zs] > total[i - 1][zs];
				rises += zs > 1 && total[i][zs] > total[i][zs - 1];
				checked++;
			}
	}
	EQ_INT(rises, 0, "memory never rises with z, nor with the ZeRO stage, "
	    "nor above no ZeRO");
	OK(checked > 10000, "over every range, position and setting");
}

int
main(void)
{
	zero_stages();
	zero_monotone();
	stash();
	recompute();
	interleaved();
	zero_paper();
	return tap_done();
}
