/*
 * routing.h - where a mixture's tokens go: how many of a token's top-k
 * experts fall on a device or a node, and what a hierarchical dispatch
 * (DeepEP's normal kernels, Megatron-Core's flex dispatcher) sends.
 *
 * A token picks `group_topk` of the `groups` expert groups (Megatron-
 * Core's --moe-router-num-groups / --moe-router-group-topk, DeepSeek-V3's
 * node-limited routing: contiguous groups of experts/groups experts),
 * then top_k distinct experts among the experts of the groups it picked;
 * without groups (0), among all experts.  Balanced routing is read as
 * uniform among the admissible choices: every choice of groups equally
 * likely, then every k experts of them.  Experts are laid out in order
 * over the expert ranks (rank i holds experts [i E/n, (i+1) E/n)), so a
 * rank, or the ranks of one node, hold an aligned block of experts.
 */
#ifndef NP_ROUTING_H
#define NP_ROUTING_H

#include "model/netmodel.h"

struct routing {
	long experts, top_k;
	long groups, group_topk;	/* 0: no groups (one of one) */
};

/* The routing a layer graph's model record gives (its model_config
 * line: experts, top_k, router_groups, router_group_topk): 0, or -1 when
 * the line does not say (an artifact's graph, or no mixture). */
int routing_from_config_line(const char *line, struct routing *r);

/*
 * The probability that a token's k experts all miss an aligned block of
 * `block` experts (a divisor of the experts).  Where the block and the
 * groups do not nest (neither size divides the other), the groups are
 * left out: a bound, as groups only narrow where a token goes.
 */
double routing_miss(const struct routing *r, long block);

/*
 * The hierarchical dispatch (or combine) of a token's copies over an
 * expert-parallel group of shape s, its members adjacent in expert
 * order, within[0] of them a node: a token crosses the scale-out
 * network once for each other node it reaches, to the GPU of its own
 * local rank there, which forwards it over NVLink to each GPU there it
 * reaches (other than itself), as the source GPU does in its own node.
 * The two run at once, so the dispatch costs the larger of the two (its
 * latency and bandwidth terms each: a bound).  The cost is per byte of
 * the flat exchange's buffer, k copies of each token (the layer graph's
 * all-to-all bytes), to compare with net_collective(NET_ALL_TO_ALL).
 * Members that do not fill whole nodes (within[0] not dividing n) get
 * the flat exchange's cost.
 */
struct net_cost routing_dispatch_hierarchical(const struct network *net,
    const struct net_shape *s, const struct routing *r);

#endif
