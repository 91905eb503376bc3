/*
 * torchtitan.h - a plan as the torchtitan job that runs it (dpsolve -f
 * torchtitan; issue 36, item 2).  Pinned at torchtitan v0.2.2 (commit
 * 73a0e6979dd10b6b1904098eb3c8f62c18ab87ce): its job keys are those of
 * torchtitan/config/job_config.py there, its rules those of
 * torchtitan/distributed/parallel_dims.py and the Llama 3 model's
 * infra/parallelize.py.
 */
#ifndef NP_TORCHTITAN_H
#define NP_TORCHTITAN_H

#include <stdio.h>

#include "export/megatron.h"
#include "export/summary.h"
#include "io/planio.h"
#include "model/config.h"
#include "model/plan.h"

/*
 * torchtitan's model name and flavor for a model of this shape (its
 * registered Llama 3 flavors, Qwen3's mixtures and DeepSeek-V3 671B
 * without its prediction module: width, layers, heads, key/value heads,
 * head and FFN widths, experts, latent attention), or NULL.
 */
const char *torchtitan_flavor(const struct model_cfg *model,
    const char **name);

/* Whether torchtitan pipelines the model (a flavor's model with a
 * pipelining_fn; 1 for a model of no flavor, refused otherwise). */
int torchtitan_pipelines(const struct model_cfg *model);

/* Whether torchtitan dispatches the model's tokens by DeepEP where asked
 * (expert_parallel_comm_backend "deepep": its DeepSeek-V3, not Qwen3). */
int torchtitan_deepep(const struct model_cfg *model);

/*
 * Why torchtitan v0.2.2 cannot run a plan as dpsolve priced it, each
 * reason in w (struct megatron_why, the same list): FSDP2 (its other ways
 * train in fp32 or on fp32 weights, not priced), never Megatron's
 * distributed optimizer or ZeRO copies; tensor parallelism with sequence
 * parallelism; 1F1B, interleaved or not (PyTorch's Interleaved1F1B), no
 * split schedule as priced;
 * recomputation none or full (torchtitan's selective is per operator or
 * per layer, not Megatron's); experts whole or split over all the tensor
 * ranks, by DeepEP only for DeepSeek-V3 (and then over no tensor ranks,
 * nor its latent attention); no FP8 recipe (not mapped
 * yet); the sequence a multiple of 2 t c (c the context ranks with a
 * fold's expert ranks); the global batch a multiple of b d;
 * pipelining only where the model's has it, with a micro-batch a stage
 * or more;
 * Adam (optimizer, OPT_*); and the model's config, of a flavor torchtitan
 * has, its rows torchtitan's modules.  Returns the number of reasons (0:
 * it runs).
 */
int torchtitan_check(const struct plan *p, long global_batch, int optimizer,
    const struct model_cfg *model, struct megatron_why *w);

/* The variant rules of torchtitan_check, for the search to leave out the
 * variants torchtitan cannot run. */
int torchtitan_variant_ok(const struct layer_graph *g,
    const struct model_cfg *model);

/*
 * The job's TOML, after the plan's summary as comments and the torchrun
 * line that starts it (node_devices GPUs a node); a plan torchtitan
 * cannot run is written commented out after a line naming each reason.
 * Returns the number of reasons.
 */
int torchtitan_write(FILE *fp, const struct plan_meta *m,
    const struct summary_info *si, long node_devices, int optimizer,
    const struct plan *p, const struct plan_result *r);

#endif
