/*
 * netmodel.h - the level-wise network cost model every tool shares.
 *
 * A network is a hierarchy of levels: level 0 groups `fanout[0]` devices
 * (a node), level 1 groups `fanout[1]` level-0 groups (a leaf switch), and
 * so on; devices are numbered so every group is a contiguous id range.
 * Each level has a per-device bandwidth for traffic that crosses it, a
 * latency paid by every message that crosses it, and an oversubscription
 * ratio r >= 1 that divides its bandwidth (the flows of all devices below
 * a switch share its r-times-thinner uplinks).
 *
 * A level may also say what share of its line rate a transfer's packet
 * headers take (protocol_overhead o_l: NCCL's kernels move 128-byte
 * payloads over NVLink, about a fifth less than the line rate), and
 * whether its switches reduce in the fabric (NVLink SHARP, nvls_efficiency
 * e_l: an all-reduce among the level's members then moves each member's
 * bytes once each way, at e_l of the payload rate).
 *
 * Point to point, a message between devices whose lowest common level is
 * L pays   alpha = sum_{l<=L} latency_l,
 *          beta  = 1 / min_{l<=L} ((1 - o_l) bandwidth_l / r_l)
 * seconds per byte.
 *
 * Collectives are hierarchical: a group is described by its shape (how
 * many members meet at each level, struct net_shape), and each level runs
 * a ring (or, for a power-of-two count, halving-doubling) over the chunk
 * left by the levels below it.  For bytes B (the full buffer each member
 * holds), with k_l members meeting at level l and m_l the members below
 * each of them (the chunk is B / m_l):
 *   all_reduce:      sum_l 2(k_l-1)/k_l * B/m_l * beta_l + 2(k_l-1) alpha_l
 *                    (a level with e_l > 0: the smaller per byte of that
 *                    ring and B/m_l / min(e_l (1-o_l) bandwidth_l / r_l,
 *                    1/beta_{l-1}) + 2 alpha_l, NCCL's choice of the
 *                    faster algorithm)
 *   all_gather,
 *   reduce_scatter:  sum_l  (k_l-1)/k_l * B/m_l * beta_l +  (k_l-1) alpha_l
 *   all_to_all:      sum_l c_l/n * B * beta_l + c_l * alpha_l
 *                    (c_l peers first met at level l, n members)
 *   p2p:             alpha_L + B * beta_L at the group's top level L
 * (halving-doubling replaces the (k_l-1) latency count by log2 k_l).
 * Every cost is linear in bytes: struct net_cost {alpha_s, beta}.
 */
#ifndef NP_NETMODEL_H
#define NP_NETMODEL_H

#include <stddef.h>

#include "base/util.h"

#define NET_MAX_LEVELS 8

enum net_algo { NET_RING, NET_HALVING_DOUBLING };

enum net_coll {
	NET_P2P,
	NET_ALL_REDUCE,
	NET_ALL_GATHER,
	NET_REDUCE_SCATTER,
	NET_ALL_TO_ALL,
	NET_NCOLL
};

struct net_level {
	char name[64];
	long fanout;			/* groups of the level below (devices at 0) */
	double bandwidth_Bps;		/* per device, bytes per second */
	double latency_s;
	double oversubscription;	/* >= 1 */
	double protocol_overhead;	/* [0, 1): the line rate's share that
					 * is not payload */
	double nvls_efficiency;		/* (0, 1]: switches reduce in the
					 * fabric at this share of the payload
					 * rate; 0: they do not */
	enum net_algo algo;
	size_t line;			/* of its element; 0: built in code */
};

struct network {
	char name[128];
	int nlevels;
	struct net_level level[NET_MAX_LEVELS];
	long span[NET_MAX_LEVELS];	/* devices in one level-l group */
	long ndevices;
	long host_devices;		/* GPUs a host (a launch's processes a
					 * node); 0: the level-0 group's */
};

/* How a group of devices meets the hierarchy. */
struct net_shape {
	long n;				/* members */
	int top;			/* highest level with ring[l] > 1; -1 if n<=1 */
	long ring[NET_MAX_LEVELS];	/* k_l: members meeting at level l */
	long chunk_div[NET_MAX_LEVELS];	/* m_l: bytes at level l are B / m_l */
	long within[NET_MAX_LEVELS];	/* members inside one level-l group */
};

struct net_cost {
	double alpha_s;
	double beta_s_per_byte;
};

/* Name of a collective as it appears in the cost CSV ("all_reduce"). */
const char *net_coll_name(enum net_coll c);

/* Check the levels and compute span[] and ndevices. */
int network_finish(struct network *net, const char *file, struct pl_err *err);

/* Lowest level containing devices a and b (-1 when a == b). */
int net_common_level(const struct network *net, long a, long b);

/* min_{l<=level} (1 - o_l) bandwidth_l / r_l, in bytes per second. */
double net_effective_bandwidth(const struct network *net, int level);

/* The point-to-point cost of a message crossing `level`. */
struct net_cost net_p2p(const struct network *net, int level);

/* Shape of a uniform group: k[l] members meet at level l (k has nlevels). */
void net_shape_uniform(const struct network *net, const long *k,
    struct net_shape *s);

/* Shape of an explicit set of device ids (any order, no duplicates). */
int net_shape_of(const struct network *net, const long *devs, size_t n,
    struct net_shape *s, struct pl_err *err);

/*
 * A group of devices in two strides: {x0 + i s1 + r s2 : i < n1, r < n2},
 * the inner run shorter than s2 (with n2 > 1) - the data-parallel group of
 * a stage: its devices in one replica, then the same in every replica.
 */
struct net_ap {
	long x0, s1, n1, s2, n2;
};

/*
 * Shape of such a group, equal to net_shape_of() on its listed members,
 * in time growing with the period of the group against each level rather
 * than with its members (how many blocks of a level the group's pattern
 * takes to repeat); small groups are listed.
 */
int net_shape_ap(const struct network *net, const struct net_ap *g,
    struct net_shape *s, struct pl_err *err);

/*
 * The highest level that any of the ranges [x + r stride, y + r stride],
 * r < count, reaches (its lowest common level; -1 when x == y), and in
 * *first (if not NULL) the first r that reaches it.  Time grows with the
 * period of the copies against each level, not with count.
 */
int net_range_top(const struct network *net, long x, long y, long stride,
    long count, long *first);

/* Cost of collective `c` over a group of shape `s`. */
struct net_cost net_collective(const struct network *net, enum net_coll c,
    const struct net_shape *s);

/*
 * floor[n], n = 0..nmax: the least latency term an all-reduce over any n
 * devices can have: a group meets k_l members at level l with k_l at most
 * the fanout and prod k_l >= n, so the minimum over such k of
 * sum 2 steps(k_l) alpha_l (one step where level l reduces k_l members
 * in the fabric, as net_collective chooses) bounds every shape from below
 * (malloc'ed).
 */
double *net_allreduce_alpha_floor(const struct network *net, long nmax);

/*
 * floor[n], n = 0..nmax: the least cost per byte an all-reduce over any n
 * devices at least `stride` apart (a data-parallel group of tensor width
 * t: t apart or more) can have.  Its rings k_l (at most the fanout,
 * prod k_l >= n) pay 2 (k_l - 1) / k_l beta_l a byte of the chunk level l
 * moves, the bytes over the smallest subgroup below, which has at most
 * prod_{j<l} k_j members and at most ceil(span_{l-1} / stride), and a
 * level-l ring meets at most ceil(span_l / stride) members; the minimum
 * over such rings bounds every shape from below (malloc'ed).
 */
double *net_allreduce_beta_floor(const struct network *net, long nmax,
    long stride);

/* alpha + beta * bytes; no transfer (bytes == 0) costs nothing. */
double net_time(struct net_cost c, double bytes);

#endif
