/*
 * megatron.h - a plan as the Megatron-LM launch that runs it.
 */
#ifndef NP_MEGATRON_H
#define NP_MEGATRON_H

#include <stdio.h>

#include "export/summary.h"
#include "io/planio.h"
#include "model/config.h"
#include "model/plan.h"

/*
 * Why Megatron-LM (core_v0.15.0, the launch megatron_write prints) cannot
 * run a plan as dpsolve priced it: no ZeRO copies of a stage; a global
 * batch that is a multiple of the micro-batch times Megatron's
 * data-parallel size; a pipeline split it can express (a decoder's any
 * contiguous split, by --pipeline-model-parallel-layout where the even
 * and first/last-stage flags cannot; an encoder's only by those flags),
 * each stage's layers a multiple of v; and with the model, its rules for
 * context and expert parallelism and its MLP.  The one predicate of
 * `-f megatron`'s check and of the Megatron target of the search.  The
 * architecture is the model's, else the graph's record of it, else a
 * decoder's.  Returns the number of reasons (0: it runs), each in why.
 */
#define MEGATRON_MAX_WHY 8
struct megatron_why {
	int n;
	char why[MEGATRON_MAX_WHY][200];
};
int megatron_check(const struct plan *p, long global_batch,
    const struct model_cfg *model, struct megatron_why *w);

/* Add a reason to w (the first MEGATRON_MAX_WHY are kept): the list of
 * megatron_check, and of torchtitan_check (torchtitan.h). */
void megatron_why_add(struct megatron_why *w, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/*
 * The variant rules of megatron_check, for the search to leave out the
 * variants Megatron cannot run (context parallelism over cp ranks needs
 * the sequence, the model's or the graph's record of it, a multiple of
 * 2 cp; experts with tensor parallelism need sequence parallelism), and
 * its model rules (an MLP it has): megatron_model_ok dies
 * naming the reason, -X none being the way round it.
 */
int megatron_variant_ok(const struct layer_graph *g,
    const struct model_cfg *model);
void megatron_model_ok(const struct model_cfg *model, const char *file);

/* Is the graph's model an encoder (its config, else the graph's record;
 * unknown: no)? */
int megatron_encoder(const struct layer_graph *g,
    const struct model_cfg *model);

/*
 * torchrun and pretrain_gpt.py (pretrain_bert.py for encoders) with every
 * flag of the model (when si->model is given) and the plan, node_devices
 * GPUs a node, after the plan's summary (summary.h) as comments.  Megatron's constraints are checked first: a plan it cannot
 * run is written commented out after a line naming each reason.  Returns
 * the number of reasons (0: runnable).
 */
int megatron_write(FILE *fp, const struct plan_meta *m,
    const struct summary_info *si, long node_devices, const struct plan *p,
    const struct plan_result *r);

#endif
