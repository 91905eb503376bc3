/*
 * baselines.h - the planners nest is compared with (compare-baselines;
 * docs/baselines.md says, for each, how it follows the original system and
 * where it departs).  Every planner returns a plan of the one plan model
 * (plan.h); compare-baselines scores them all with plan_evaluate on the
 * real network, so they differ only in how they search.
 *
 *   manual     Megatron-LM practice: tensor (and expert) parallel inside a
 *              node, the fewest uniform pipeline stages that fit, data
 *              parallel over the rest.
 *   published  a fixed {p, d, t} (the artifact's baseline_configs.csv),
 *              transformer layers split evenly.
 *   mcmc       TopoOpt-style Metropolis search over nest's plan space,
 *              seeded, the best of several chains.
 *   nest       the exact dynamic program (dp.h) itself.
 *   phaze      nest's dynamic program on a flat network (every link at
 *              the node's bandwidth), re-scored on the real one.
 *   alpa       Alpa's inter-operator pass: the whole cluster cut into
 *              equal submeshes, stage boundaries by a minimax partition
 *              under a two-level (node / rest) network, memory checked
 *              only afterwards and fixed by sharding further (larger t).
 *   mist       Mist's memory-aware partitioning: per (variant, d, S,
 *              recomputation) a GLPK MILP for uneven stages on a flat
 *              network, memory as linear constraints.
 */
#ifndef NP_BASELINES_H
#define NP_BASELINES_H

#include <stddef.h>

#include "io/planio.h"
#include "model/plan.h"

/*
 * How the runtime runs every baseline's plan (compare-baselines): Megatron-
 * LM with the distributed optimizer and overlapped gradient reduction and
 * parameter gather, as today's large runs use it; recomputation as each
 * planner chooses, no interleaving.  nest searches these too (both
 * optimizers, v up to NEST_VMAX, every recomputation kind), so a
 * baseline's plan always lies in nest's space.
 */
#define BASELINE_DISTOPT 1
#define BASELINE_OVERLAP 1
#define NEST_VMAX 4

/* What a planner reports: a plan (ok, or oom when the plan it settles on
 * does not fit), or none (infeasible, or oom when nothing fits). */
enum { BL_OK, BL_OOM, BL_INFEASIBLE };

struct bl_result {
	int status;
	int has_plan;
	struct plan plan;		/* plan.stage malloc'ed when has_plan */
	char note[256];			/* why, when not ok */
};

void bl_result_release(struct bl_result *r);

/* Devices in one node (the network's level-0 group). */
long bl_node_devices(const struct network *net);

/*
 * Layers split evenly over S stages the way Megatron-LM does: the rows
 * of kind "transformer" in S runs differing by at most one (the longer
 * runs first), rows before the first transformer row in the first stage,
 * rows after the last in the last.  Returns -1 when S is larger than the
 * transformer layer count.  st has room for S stages.
 */
int bl_uniform_split(const struct layer_graph *g, int S, struct plan_stage *st);

/* The variant with these (t, e, c, sp), or NULL. */
const struct layer_graph *bl_find_variant(const struct variants *vs, long t,
    long e, long c, long sp);

int bl_manual(const struct plan_env *env, const struct variants *vs,
    struct bl_result *r);

int bl_published(const struct plan_env *env, const struct variants *vs,
    long p, long d, long t, long e, int recompute, struct bl_result *r);

int bl_mcmc(const struct plan_env *env, const struct variants *vs,
    unsigned long seed, int chains, int steps, struct bl_result *r);

/* dp_solve over every variant, every recomputation kind, v up to
 * NEST_VMAX, the distributed optimizer on and off, overlap as the
 * runtime has it, ZeRO as `zero` says (DP_ZERO_AUTO or DP_ZERO_OFF):
 * nest itself. */
int bl_nest(const struct plan_env *env, const struct variants *vs, int zero,
    struct bl_result *r, struct pl_err *err);

int bl_phaze(const struct plan_env *env, const struct variants *vs,
    struct bl_result *r, struct pl_err *err);

int bl_alpa(const struct plan_env *env, const struct variants *vs,
    struct bl_result *r);

int bl_mist(const struct plan_env *env, const struct variants *vs,
    double milp_seconds, struct bl_result *r);

/* The same network seen as two levels: the node, and one level above it
 * at the first switch's bandwidth and latency, not oversubscribed. */
void network_two_level(const struct network *net, struct network *out);

#endif
