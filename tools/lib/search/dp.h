/*
 * dp.h - the exact network- and memory-aware dynamic program (dpsolve).
 *
 * The plan space (docs/model.md, "The plan space"): one variant from the
 * list (t, e, c, sp and micro-batch b each come with their graph), any d
 * with d * b <= B, the recomputation kinds, interleavings and optimizer
 * modes asked for (one of each a plan, as Megatron runs it), S contiguous
 * stages, replicas packed one after another (plan.h).  A stage has w devices when it fits;
 * only when no plan at all fits that way does ZeRO come in, and then every
 * stage that does not fit takes the smallest z = 2, 4, ... and the lowest
 * ZeRO stage that make it fit.
 *
 * The search: for each (variant, recomputation, d, K = R / w) a cell, a
 * dynamic program over suffixes of the layer chain whose state is (stages
 * placed k, first row j, slots used y).  Every stage cost depends on that
 * state alone (its slot offset K - y - z fixes where all its replicas'
 * devices are), so the level the paper's Eq. 3 keeps in the state is here
 * known exactly.  A state keeps the Pareto front of (max load / z, max
 * sync) over its suffixes, because a step is (m + S - 1) * max load + max
 * sync.  Cells are visited by a lower bound on their step and the search
 * stops when the bound reaches the best step found: branch and bound, so
 * the result is the optimum of the whole space.
 */
#ifndef NP_DP_H
#define NP_DP_H

#include <stddef.h>

#include "model/plan.h"

enum { DP_ZERO_AUTO, DP_ZERO_OFF };

struct dp_options {
	int recompute_min, recompute_max;	/* RC_NONE..RC_OP */
	int zero;				/* DP_ZERO_AUTO or _OFF */
	long zmax;				/* largest ZeRO degree */
	long vmax;		/* largest interleaving tried; 0 or 1: none */
	int distopt_min, distopt_max;		/* 0..1 */
	int overlap;		/* overlap the gradient reduction (and, with
				 * the distributed optimizer, the parameter
				 * gather) with compute */
	int tp_overlap;		/* --tp-comm-overlap on sp variants */
	/* block recomputation (Megatron's --recompute-method block
	 * --recompute-num-layers N: the first N layers of each model chunk
	 * recomputed, the rest not) searched for N = 1..block_max as well
	 * when full is in the range; 0: not */
	long block_max;
	/* Megatron-LM's space (export/megatron.h, megatron_check): only
	 * cells whose global batch is a multiple of b d; with classic_split
	 * (an encoder, whose launch has no layout flag) only splits that
	 * Megatron's even and first/last-stage flags express.  The caller
	 * turns ZeRO off and leaves out the variants Megatron cannot run. */
	int megatron_batch, classic_split;
	/* --fp8-param-gather on the distributed optimizer's plans of FP8
	 * graphs: 0..0 never, 1..1 always, 0..1 searched */
	int fp8_gather_min, fp8_gather_max;
	/* the pipeline schedules searched, a range of PLAN_1F1B..
	 * PLAN_DUALPIPEV (0..0: 1F1B alone): the split ones without ZeRO
	 * copies on graphs with weight_gradient_s, ZB-H1 where a plan has
	 * one chunk a stage, ZB-V and DualPipeV two (DualPipeV 2S micro-
	 * batches or more); other interleavings are 1F1B's */
	int sched_min, sched_max;
	/* FSDP2 (plan_mode.fsdp) beside Megatron's data parallelism: 0..0
	 * never, 0..1 searched as well, 1..1 alone; its modes without ZeRO
	 * copies, interleaving, the distributed optimizer or a split
	 * schedule, resharding after forward only on one stage */
	int fsdp_min, fsdp_max;
	/* the stages' placements searched (plan_mode.stage_major): 0..0 a
	 * replica's stages one after another, 1..1 each
	 * stage's replicas side by side, 0..1 both (stage-major without
	 * ZeRO copies, and only where it differs: two stages or more and
	 * two replicas or more) */
	int stage_major_min, stage_major_max;
	/* the framework runs stage-major alone (torchtitan's mesh puts the
	 * pipeline outermost): a replica's stages one after another only
	 * where the placements coincide (one stage or one replica) */
	int stage_major_only;
	/* the framework's pipelines need a micro-batch a stage or more
	 * (PyTorch's PipelineScheduleSingle raises when n_microbatches <
	 * num_stages: torchtitan's 1F1B), without ZeRO copies (a cell's K
	 * is then its stages; torchtitan has none) */
	int micro_per_stage;
	/* the most stages a plan may have (0: any; torchtitan pipelines
	 * some models not at all), with zero DP_ZERO_OFF only (a cell's K
	 * is then its stages) */
	long stages_max;
	/* Megatron-LM's placements: a replica's stages together only where
	 * it runs them (plan_megatron_order_refused) */
	int megatron_order;
	/* Megatron-Core's combined 1F1B (plan_mode.ep_overlap) on the
	 * Megatron modes where it runs (plan_ep_overlap_refused), without
	 * ZeRO copies: 0..0 never, 0..1 searched as well, 1..1 alone */
	int ep_overlap_min, ep_overlap_max;
};

struct dp_stats {
	long cells, cells_searched, states;
	int zero_used;
};

/*
 * The fastest plan over the variants g[0..ng-1] (the same layers, one
 * graph each).  Returns 0 with *best filled (best->stage malloc'ed, free
 * it) and its step in *step_s; 1 when no plan fits; -1 on bad input.
 */
int dp_solve(const struct plan_env *env, const struct layer_graph *const *g,
    size_t ng, const struct dp_options *o, struct plan *best, double *step_s,
    struct dp_stats *st, struct pl_err *err);

/*
 * The top_n fastest plans of distinct layouts (variant, d, stages' slots
 * K and interleaving: a layout is one whatever its recomputation,
 * optimizer, split and schedule, which are its best plan's), fastest first, ties
 * in the order found: the search is the same branch and bound, bounded
 * by the top_n-th step instead of the first, so each is exact.  Fills
 * plans[0..*nfound-1] (stages malloc'ed) and steps_s; returns 0 when one
 * or more fit (*nfound may be below top_n: fewer layouts fit), 1 when none
 * does, -1 on bad input.  dp_solve is top_n = 1.
 */
int dp_solve_top(const struct plan_env *env, const struct layer_graph *const *g,
    size_t ng, const struct dp_options *o, size_t top_n, struct plan *plans,
    double *steps_s, size_t *nfound, struct dp_stats *st, struct pl_err *err);

/*
 * The ZeRO choice of the plan space for rows [first, last] k-th from the
 * end: z = 1 when it fits (or when zero is off); else the smallest z up
 * to zmax and the lowest ZeRO stage that fit.  Returns 0, or -1 when
 * nothing fits.
 */
int dp_stage_zero(const struct plan_cell *c, size_t first, size_t last,
    long k, int zero_on, long zmax, long *z, int *zs);

#endif
