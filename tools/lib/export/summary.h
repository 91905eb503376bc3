/*
 * summary.h - a plan in a person's terms (dpsolve -f summary, the default
 * on a terminal, and the header of -f megatron): the layout in
 * Megatron-LM's names, the step and its throughput, MFU and HFU with
 * the FLOP count named, the peak memory a GPU and the headroom to the
 * cap, the bottleneck and where the step goes.
 */
#ifndef NP_SUMMARY_H
#define NP_SUMMARY_H

#include <stdio.h>

#include "io/planio.h"
#include "model/config.h"
#include "model/plan.h"

/* What the summary reads beyond the plan: the model (NULL: no FLOP count,
 * the sequence from the graph's record), the accelerator, and the cap's
 * reserve (0: the cap was set outright). */
struct summary_info {
	const struct model_cfg *model;
	const struct accel_cfg *accel;
	double reserve_bytes;
};

/* The sequence length: the model's, else the graph's record, else 0. */
long summary_seq_len(const struct layer_graph *g,
    const struct model_cfg *model);

/* The plan in Megatron-LM's names: "TP 4 (sequence parallel), PP 2, ..." */
void summary_layout(char *buf, size_t len, const struct plan *p,
    long global_batch);

/* The summary, each line after `prefix` ("" or "# "). */
void summary_write(FILE *fp, const char *prefix, const struct plan_meta *m,
    const struct summary_info *si, const struct plan *p,
    const struct plan_result *r);

/* dpsolve -k: a table of the n fastest layouts (nothing when n < 2),
 * each line after `prefix`: rank, step, how much slower than the first,
 * samples/s, peak memory, bottleneck stage, the layout in short. */
void summary_ranked(FILE *fp, const char *prefix, const struct plan *plans,
    const struct plan_result *results, size_t n);

#endif
