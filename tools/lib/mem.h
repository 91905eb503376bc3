/*
 * mem.h - peak memory of one pipeline stage (paper Eq. 1).
 *
 *   total = weights + gradients + optimizer      (each / z per ZeRO stage)
 *         + activations                          (one micro-batch, all)
 *         + (inflight - 1) * stash               (the other micro-batches)
 *
 * With parameter_bytes P (fp16, 2 bytes a parameter): weights = P,
 * gradients = P, optimizer = 6P for mixed-precision Adam (fp32 master
 * copy, momentum and variance: 12 bytes a parameter), 0 for SGD.
 * ZeRO (Rajbhandari et al. 2020) over z copies divides the optimizer
 * states (stage 1), also the gradients (stage 2), also the weights
 * (stage 3).  In flight: 1F1B keeps min(k, m) micro-batches at the stage
 * k-th from the pipeline end (k = 1 is the last stage); GPipe keeps all m.
 * The stash of one micro-batch is all its activations, or with
 * recomputation only the bytes entering the stage.
 */
#ifndef NP_MEM_H
#define NP_MEM_H

#include "config.h"
#include "layers.h"

struct mem_stage {
	size_t first, last;		/* row range in the layer graph */
	long devices;
	int zero_stage;			/* 0..3 */
	long zero_degree;		/* z >= 1 */
	int recompute;
	int schedule;			/* SCHED_1F1B or SCHED_GPIPE */
	long position_from_end;		/* k >= 1 */
	long microbatches;		/* m >= 1 */
};

struct mem_breakdown {
	double weights, gradients, optimizer;
	double activations, stash;	/* stash: all stashed micro-batches */
	double total;
	long inflight;
};

void mem_stage_breakdown(const struct layer_graph *g,
    const struct mem_stage *s, int optimizer, struct mem_breakdown *out);

/* The same from the stage's totals: parameter bytes, one micro-batch's
 * activations, and the stash unit (activations, or with recomputation the
 * bytes entering the stage).  first/last of s are not read. */
void mem_breakdown_of(double params, double acts, double stash_unit,
    const struct mem_stage *s, int optimizer, struct mem_breakdown *out);

#endif
