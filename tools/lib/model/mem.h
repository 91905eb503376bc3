/*
 * mem.h - peak memory of one pipeline stage (paper Eq. 1, as Megatron-LM
 * runs it; docs/model.md, "Memory").
 *
 *   total = weights + gradients + optimizer      (ZeRO / the distributed
 *                                                 optimizer divide them)
 *         + inflight * kept + working            (activations)
 *
 * Per parameter: weights 2 bytes (bf16; an FP8 graph's linear layers 2
 * more, their FP8 copy and its transpose), gradients 2 or 4 (fp32 main
 * gradients, Megatron's default with --bf16), Adam's states 12 (fp32
 * master copy, momentum, variance; 0 for SGD).  parameter_bytes counts 2
 * bytes a parameter, so gradients are P * grad_bytes / 2 and Adam 6P.
 * ZeRO (Rajbhandari et al. 2020) over z copies divides the optimizer
 * states (stage 1), also the gradients (stage 2), also the weights (stage
 * 3); Megatron's distributed optimizer divides the optimizer states over
 * the whole data-parallel group (ZeRO-1 over d, not only z).
 *
 * Activations: `kept` bytes a micro-batch in flight (everything, or what
 * a recomputation kind keeps: each layer's input under full, all but the
 * attention core under selective), plus `working`, the largest layer's
 * recomputed activations while its backward runs.  In flight at the stage
 * k-th from the pipeline end: 1F1B min(k, m); GPipe m; interleaved 1F1B
 * with v virtual stages in a pipeline of S, Megatron's warm-up of
 * 2(k - 1) + (v - 1) S + 1 model chunks of 1/v of the stage each (at most
 * m v), i.e. S (1 + (S - 1)/(S v)) micro-batches on the first stage.
 */
#ifndef NP_MEM_H
#define NP_MEM_H

#include "base/csvio.h"
#include "model/config.h"
#include "model/layers.h"

/* Recomputation kinds: what a stage keeps for its backward pass.
 * RC_SELECTIVE is Megatron's (the attention core rerun), RC_OP
 * torchtitan's per-operator selective checkpointing (docs/model.md,
 * "Per-operator checkpointing"). */
enum { RC_NONE = 0, RC_FULL = 1, RC_SELECTIVE = 2, RC_OP = 3, RC_N };

struct mem_stage {
	size_t first, last;		/* row range in the layer graph */
	long devices;
	int zero_stage;			/* 0..3 */
	long zero_degree;		/* z >= 1 */
	int recompute;			/* RC_* */
	int schedule;			/* SCHED_1F1B or SCHED_GPIPE */
	long position_from_end;		/* k >= 1 */
	long microbatches;		/* m >= 1 */
	long virtual_stages;		/* v (interleaved 1F1B); 0 or 1: none */
	long pipeline_stages;		/* S, read when v > 1 */
	/* chunk-micro-batches held at the peak where a fixed order counts
	 * them (pipe_form.peak_chunks: ZB-V, DualPipeV), v chunks a stage
	 * alike; 0: the schedule's rule (mem_inflight) */
	long held_chunks;
	double grad_bytes_per_param;	/* 2 or 4; 0 reads as 2 */
	/* gradient-sized buffers: 1 (0 reads 1), Megatron's DDP accumulating
	 * into one contiguous buffer; 2, PyTorch's DDP, whose buckets are a
	 * copy of the gradients (gradient_as_bucket_view=False, its default) */
	double grad_copies;
	/* the distributed optimizer: optimizer states sharded over the
	 * data-parallel group of the dense parameters and of the experts'
	 * (0 or 1: not sharded beyond ZeRO) */
	double optimizer_shards_dense, optimizer_shards_expert;
	/* FSDP2 (plan_mode.fsdp, 0: off): the fp32 weights and Adam's two
	 * moments, 12 bytes a parameter, sharded over fsdp_shards devices
	 * (an expert's over fsdp_shards_expert; 0 reads as fsdp_shards);
	 * beside them the bf16 units gathered at the peak, and the
	 * gradients there (sharded, unsharded or both: plan.c) */
	int fsdp;
	double fsdp_shards, fsdp_shards_expert;
	double fsdp_gathered_bytes, fsdp_grad_bytes;
	/* held beside the micro-batches' chunks (0: none): Megatron-Core's
	 * combined 1F1B merges a pair's passes layer by layer, one pass's
	 * layer keeping its activations as the other's frees its own, so a
	 * pair holds its stage's largest layer's more (plan.c) */
	double pair_layer_bytes;
};

/* A stage's sums over its rows, for one recomputation kind. */
struct mem_totals {
	double params;			/* parameter bytes (2 a parameter) */
	double dense_params;		/* of them, not an expert's */
	double kept;			/* activations kept a micro-batch */
	double working;			/* extra while one layer recomputes */
	double fp8_weights;		/* FP8 weight copies (weights' memory) */
};

struct mem_breakdown {
	double weights, gradients, optimizer;
	double activations, stash;	/* one micro-batch + working; the rest
					 * (and pair_layer) */
	double pair_layer;		/* mem_stage.pair_layer_bytes */
	double kept;			/* what one micro-batch keeps */
	double total;
	double inflight;		/* micro-batches (fractional when v > 1) */
};

/* What rows [first, last] keep under recomputation kind rc. */
void mem_totals_of(const struct layer_graph *g, size_t first, size_t last,
    int rc, struct mem_totals *t);

/* Micro-batches in flight at the stage s describes. */
double mem_inflight(const struct mem_stage *s);

void mem_stage_breakdown(const struct layer_graph *g,
    const struct mem_stage *s, int optimizer, struct mem_breakdown *out);

/* The same from the stage's totals (first/last of s are not read). */
void mem_breakdown_of(const struct mem_totals *t, const struct mem_stage *s,
    int optimizer, struct mem_breakdown *out);

/* Of a stage's parameter bytes (dense_params of them not an expert's),
 * those whose optimizer states one device holds and updates: ZeRO's z
 * copies or the distributed optimizer's data-parallel group divide them,
 * or FSDP2's shards all of them (the experts' over their own group). */
double mem_sharded_params(const struct mem_stage *s, double params,
    double dense_params);

/* What one row keeps, and the forward time it runs again, under rc. */
double mem_row_kept(const struct layer *L, int rc);
double mem_row_rerun_s(const struct layer *L, int rc);

#endif
