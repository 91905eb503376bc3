/*
 * analytic.h - the embedded default: operator graphs from a model config.
 *
 * analytic_build() writes down, for one intra-layer variant, the operators
 * of every layer of the model (embedding, transformer layers, output head)
 * as one device of the variant runs them on one micro-batch: FLOPs and
 * bytes moved forward and backward, parameters, the activations kept for
 * the backward pass, and the collectives the split needs, in the order
 * they run.  Times come from a roofline on the accelerator.
 *
 * The variant follows Megatron-LM: t splits attention heads and the MLP
 * (column-parallel in, row-parallel out), sequence parallelism (sp)
 * shards the norms, dropouts and residuals over t as well; c splits the
 * sequence (context parallel); e splits the experts, and the e devices of
 * an expert-parallel group share the micro-batch's tokens for the dense
 * part as a context-parallel group (Megatron-Core's MoE parallel folding),
 * or, with ep_batch, split its samples (Megatron-LM's expert parallelism
 * inside the data-parallel group: each expert rank its own b/e samples,
 * no key/value exchange; only with c = 1), or both: with ep_batch and
 * ep_fold f, f of the e ranks share each sequence as context ranks and
 * e/f split the samples (Megatron-Core lays its expert ranks over the
 * context ranks first, then the data-parallel ones: EP 4 over CP 2 and
 * DP 4 takes both context ranks and two data ranks), so a device of the
 * variant holds b*s/(c*e) tokens every way.  The experts have a tensor
 * split of their own, et, a divisor of t (below t with sp: each of the t
 * ranks dispatches its own s/t share of the tokens to t*e/et expert
 * ranks, groups of et adjacent ranks that gather what they receive over
 * their own group; at et 1 they hold E/(t e) whole experts).  The
 * formulas, and where each comes from, are in docs/model.md.
 */
#ifndef NP_ANALYTIC_H
#define NP_ANALYTIC_H

#include <stdio.h>

#include "base/util.h"
#include "model/config.h"
#include "model/layers.h"

struct variant {
	long t, e, c;		/* tensor, expert, context parallel */
	int sp;			/* sequence parallel (needs t > 1) */
	long b;			/* micro-batch size (samples) of the t*e*c devices */
	int ep_batch;		/* the e devices split b's samples, not its
				 * sequences (needs e > 1, c = 1, e | b) */
	long et;		/* the experts' tensor split: t (0 reads t),
				 * or 1 with sp, each expert whole on one
				 * device and the t ranks expert ranks too:
				 * t e / et experts' ranks (MoE Parallel
				 * Folding's expert tensor parallelism) */
	int fp8;		/* FP8_* (config.h): Transformer Engine's
				 * linear layers in FP8 under that recipe;
				 * FP8_NONE (0): bf16 */
	long ep_fold;		/* with ep_batch: of the e ranks, how many
				 * share a sequence (0 or 1: none; fewer
				 * than e, dividing it), the other e/ep_fold
				 * splitting the samples */
	int attn;		/* the fused attention kernel priced: ATTN_*
				 * (config.h), ATTN_FUSED (0) the device's
				 * own */
};

/* A variant's expert ranks that share a sequence (the fold: e without
 * ep_batch) and those that split the samples (e / the fold). */
long variant_ep_fold(const struct variant *v);
long variant_ep_samples(const struct variant *v);

/* Which expert-parallel splits analytic_variants lists (a bit set). */
enum { EP_FOLD = 1, EP_BATCH = 2 };

enum aop_kind { AOP_MATMUL, AOP_ATTENTION, AOP_VECTOR, AOP_NORM,
	AOP_EMBEDDING, AOP_COLLECTIVE };

/* How a parameter is shared among the devices of the variant: whole on
 * each, split over t, over t and e (experts), over e only (expert biases). */
enum aop_split { SPLIT_NONE, SPLIT_T, SPLIT_TE, SPLIT_E };

struct aop {
	long layer;
	char name[24];
	int kind;			/* enum aop_kind */
	double fwd_flops, bwd_flops, fwd_bytes, bwd_bytes;
	double parameter_bytes;		/* on one device */
	int param_split;		/* enum aop_split */
	double activation_bytes;	/* kept for backward */
	/* selective recomputation (Korthikanti et al.): the attention core
	 * runs its forward again in the backward pass, and drops what it
	 * kept of size s x s (the scores' softmax, its dropout) */
	int selective_rerun, selective_drop;
	/* torchtitan's per-operator checkpointing (docs/model.md): the
	 * bytes of the outputs its policy saves, and the share of the
	 * forward pass it runs again (1 unless a saved output spares it) */
	double sac_saved_bytes, sac_rerun;
	/* a matrix product's shape: batch products of (m x k) by (k x n);
	 * flash attention: m queries, batch sequences x heads (0: none) */
	double gemm_m, gemm_n, gemm_k, gemm_batch;
	int fwd_coll, bwd_coll;		/* LCOLL_* or -1 */
	double coll_bytes;		/* each direction's buffer */
	/* a tensor-parallel collective's product beside it: TP_* (layers.h)
	 * and the product's op index, or -1 */
	int tp_role;
	long tp_gemm;
	int fp8;			/* a product run in FP8 under this
					 * recipe (FP8_*; 0: bf16) */
	int fused_dropout;		/* fused attention: -1 none; 0, 1:
					 * without or with dropout (its own
					 * efficiencies by pass) */
	int attn;			/* and its kernel (ATTN_*) */
	double fwd_s, bwd_s;		/* roofline, all cores of the kind */
	double wgrad_s;			/* the weights' gradient's share of
					 * bwd_s (a weight product's) */
	/* one of a mixture layer's experts' ops, routed or shared: what
	 * Megatron-Core's combined 1F1B runs as the layer's mlp node,
	 * between the dispatch and the combine (1); or the compute of its
	 * combine node, the copies' sum and the residual, which it runs on
	 * the communication stream after the exchange (2) */
	int expert_node;
};

struct aop_graph {
	struct variant v;
	long nlayers;			/* rows: embedding, layers, head */
	double boundary_bytes;		/* a layer's output on one device */
	int op_sac;			/* per-operator checkpointing priced */
	size_t n, cap;
	struct aop *op;
};

/*
 * Checks the variant against the model (t divides the heads, the key/value
 * heads and the MLP width; e divides the experts; c*e divides the
 * sequence, or with ep_batch c = 1, the fold divides e and the sequence
 * and e over it divides b; sp only with t > 1;
 * e > 1 only with experts; et divides t, below t only with experts and
 * sp, and t e / et divides the experts) and builds the
 * graph.  `what` names the variant in messages.
 */
int analytic_build(const struct model_cfg *m, const struct accel_cfg *a,
    const struct variant *v, struct aop_graph *g, struct pl_err *err);
void analytic_release(struct aop_graph *g);

/* The useful share of the work a product of batch x (m x k)(k x n) runs
 * on the accelerator's GEMM tiles and units (tile and wave quantization);
 * n = 0: a grid of batch x ceil(m / tile_m) blocks.  1 without <gemm>. */
double analytic_gemm_utilisation(const struct accel_cfg *a, double m,
    double n, double batch);

/*
 * The variants a planner considers for micro-batch b: t and c powers of
 * two up to max_t and max_c, sp on or off for t > 1, e a power of two
 * dividing the experts, each e > 1 in the splits of `ep` (EP_FOLD,
 * EP_BATCH; a batch split at c = 1 with b samples an expert rank, so a
 * micro-batch of b*e; with both, also the batch splits that fold 2, 4,
 * ... e/2 of their ranks over a sequence, at most max_c, b samples each
 * sample rank),
 * the experts' tensor split et = t and, where the model admits them, t/2,
 * ... 1; those the model admits, in that nesting order.
 * Returns how many there are (only the first `cap` are stored).
 */
size_t analytic_variants(const struct model_cfg *m, long b, long max_t,
    long max_c, int ep, struct variant *out, size_t cap);

/* The per-layer graph: rows -1 (embedding), 0..L-1, L (head), chained. */
void analytic_layers(const struct aop_graph *g, struct layer_graph *out);

/* Write the operator CSV (docs/formats.md). */
int analytic_write_ops(FILE *fp, const struct aop_graph *g);

#endif
