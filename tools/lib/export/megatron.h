/*
 * megatron.h - a plan as the Megatron-LM launch that runs it.
 */
#ifndef NP_MEGATRON_H
#define NP_MEGATRON_H

#include <stdio.h>

#include "io/planio.h"
#include "model/config.h"
#include "model/plan.h"

/*
 * torchrun and pretrain_gpt.py (pretrain_bert.py for encoders) with every
 * flag of the model (when `model` is given) and the plan, node_devices
 * GPUs a node.  Megatron's constraints are checked first: a plan it cannot
 * run is written commented out after a line naming each reason.  Returns
 * the number of reasons (0: runnable).
 */
int megatron_write(FILE *fp, const struct plan_meta *m,
    const struct model_cfg *model, long node_devices, const struct plan *p,
    const struct plan_result *r);

#endif
