/* t-netmodel.c - the cost model against closed forms worked out by hand. */
#include <stdlib.h>
#include <string.h>

#include "model/config.h"
#include "model/netmodel.h"
#include "model/routing.h"
#include "tap.h"

static void
level(struct network *n, int l, long fanout, double bw, double lat, double os,
    enum net_algo algo)
{
	n->level[l].fanout = fanout;
	n->level[l].bandwidth_Bps = bw;
	n->level[l].latency_s = lat;
	n->level[l].oversubscription = os;
	n->level[l].algo = algo;
	if (l + 1 > n->nlevels)
		n->nlevels = l + 1;
}

/* Ring all-reduce on one level: 2(n-1)/n * B / bw + 2(n-1) * latency. */
static void
ring_allreduce(void)
{
	const long sizes[] = { 2, 3, 5, 8, 16 };
	const double bw = 25e9, lat = 3e-6, B = 1 << 30;

	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		struct network n = { 0 };
		struct net_shape s;
		long k = sizes[i];
		char name[80];
		double want = 2.0 * (double)(k - 1) / (double)k * B / bw +
		    2.0 * (double)(k - 1) * lat;

		level(&n, 0, k, bw, lat, 1, NET_RING);
		network_finish(&n, NULL, NULL);
		net_shape_uniform(&n, &k, &s);
		snprintf(name, sizeof(name), "ring all-reduce n=%ld", k);
		EQ_DBL(net_time(net_collective(&n, NET_ALL_REDUCE, &s), B), want,
		    1e-12, name);
		snprintf(name, sizeof(name), "all-gather is half of it n=%ld", k);
		EQ_DBL(net_time(net_collective(&n, NET_ALL_GATHER, &s), B),
		    want / 2, 1e-12, name);
		snprintf(name, sizeof(name), "reduce-scatter likewise n=%ld", k);
		EQ_DBL(net_time(net_collective(&n, NET_REDUCE_SCATTER, &s), B),
		    want / 2, 1e-12, name);
		snprintf(name, sizeof(name), "all-to-all n=%ld", k);
		EQ_DBL(net_time(net_collective(&n, NET_ALL_TO_ALL, &s), B),
		    (double)(k - 1) / (double)k * B / bw + (double)(k - 1) * lat,
		    1e-12, name);
	}
}

/*
 * Two levels: 4 devices a node at 100 GB/s and 1 us, 3 nodes on a switch
 * at 10 GB/s and 5 us.  Hierarchical all-reduce over all 12: reduce-scatter
 * in the node (chunks B/4), all-reduce across nodes on B/4, all-gather in
 * the node:
 *   2*3/4 * B/100e9 + 2*3*1e-6  +  2*2/3 * (B/4)/10e9 + 2*2*(1e-6 + 5e-6)
 */
static void
two_level_allreduce(void)
{
	struct network n = { 0 };
	struct net_shape s;
	long k[2] = { 4, 3 };
	const double B = 4e8;
	double want = 1.5 * B / 100e9 + 6e-6 + (4.0 / 3) * (B / 4) / 10e9 + 24e-6;

	level(&n, 0, 4, 100e9, 1e-6, 1, NET_RING);
	level(&n, 1, 3, 10e9, 5e-6, 1, NET_RING);
	EQ_INT(network_finish(&n, NULL, NULL), 0, "two-level network is valid");
	EQ_INT(n.ndevices, 12, "4 x 3 = 12 devices");
	net_shape_uniform(&n, k, &s);
	EQ_INT(s.top, 1, "the group spans level 1");
	EQ_DBL(net_time(net_collective(&n, NET_ALL_REDUCE, &s), B), want, 1e-12,
	    "two-level hierarchical all-reduce");
	/* the same group given as explicit device ids */
	{
		long ids[12];
		struct net_shape e;

		for (int i = 0; i < 12; i++)
			ids[i] = 11 - i;
		EQ_INT(net_shape_of(&n, ids, 12, &e, NULL), 0, "shape of ids");
		EQ_DBL(net_time(net_collective(&n, NET_ALL_REDUCE, &e), B), want,
		    1e-12, "explicit ids give the uniform shape's cost");
	}
}

/*
 * Oversubscription: level 1 at 100 GB/s with 4:1 oversubscription gives a
 * flow 25 GB/s; level 2 at 400 GB/s (1:1) does not widen the narrowest
 * link, so a transfer crossing level 2 still moves at 25 GB/s and pays
 * all three latencies.
 */
static void
oversubscribed_transfer(void)
{
	struct network n = { 0 };
	const double B = 1e9;

	level(&n, 0, 8, 900e9, 1e-4, 1, NET_RING);
	level(&n, 1, 4, 100e9, 2e-4, 4, NET_RING);
	level(&n, 2, 2, 400e9, 3e-4, 1, NET_RING);
	network_finish(&n, NULL, NULL);
	EQ_DBL(net_time(net_p2p(&n, 0), B), 1e-4 + B / 900e9, 1e-12,
	    "p2p inside a node");
	EQ_DBL(net_time(net_p2p(&n, 1), B), 3e-4 + B / 25e9, 1e-12,
	    "p2p across the oversubscribed level");
	EQ_DBL(net_time(net_p2p(&n, 2), B), 6e-4 + B / 25e9, 1e-12,
	    "p2p across the top pays the narrowest link on the way");
	EQ_INT(net_common_level(&n, 3, 5), 0, "devices 3 and 5 share a node");
	EQ_INT(net_common_level(&n, 7, 8), 1, "devices 7 and 8 share a leaf");
	EQ_INT(net_common_level(&n, 0, 32), 2, "devices 0 and 32 meet at the top");
	EQ_INT(net_common_level(&n, 4, 4), -1, "a device and itself");
	EQ_DBL(net_time(net_p2p(&n, 1), 0), 0, 0, "no bytes, no time");
}

/*
 * A level's payload and its switches' reduction (NCCL's figures for an
 * H100's 18 NVLinks: 20.6 GB/s of each 25, src/graph/topo.h, so an
 * overhead of 1 - 20.6/25; NVLink SHARP's all-reduce at 275 of those
 * 370.8 GB/s, nccl-tests#212).  Eight devices, B bytes:
 *   p2p         1e-6 + B / 370.8e9
 *   all-gather  7/8 B / 370.8e9 + 7e-6
 *   all-reduce  the fabric's B / (370.8e9 x 275/370.8) + 2e-6, below
 *               the ring's 2 x 7/8 B / 370.8e9 + 14e-6 (at 1 GB);
 * two of them keep the ring (B / 370.8e9 < B / 275e9), and under a
 * second level of 2 nodes at 50 GB/s and 5 us the fabric serves the node
 * and the ring the nodes:
 *   B / 275e9 + 2e-6  +  2 x 1/2 x (B/8) / 50e9 + 2 x (1e-6 + 5e-6).
 */
static void
payload_and_fabric(void)
{
	struct network n = { 0 };
	struct net_shape s;
	const double B = 1e9, pay = 370.8e9, fab = 275e9;
	long k8 = 8, k2 = 2, k[2] = { 8, 2 };

	level(&n, 0, 8, 450e9, 1e-6, 1, NET_RING);
	n.level[0].protocol_overhead = 1 - 20.6 / 25;
	n.level[0].nvls_efficiency = fab / pay;
	EQ_INT(network_finish(&n, NULL, NULL), 0, "payload levels are valid");
	EQ_DBL(net_time(net_p2p(&n, 0), B), 1e-6 + B / pay, 1e-12,
	    "p2p at the payload rate");
	net_shape_uniform(&n, &k8, &s);
	EQ_DBL(net_time(net_collective(&n, NET_ALL_GATHER, &s), B),
	    7.0 / 8 * B / pay + 7e-6, 1e-12, "all-gather at the payload rate");
	EQ_DBL(net_time(net_collective(&n, NET_ALL_REDUCE, &s), B),
	    B / fab + 2e-6, 1e-12, "eight reduce in the fabric");
	net_shape_uniform(&n, &k2, &s);
	EQ_DBL(net_time(net_collective(&n, NET_ALL_REDUCE, &s), B),
	    B / pay + 2e-6, 1e-12, "two keep the ring, faster a byte");
	level(&n, 1, 2, 50e9, 5e-6, 1, NET_RING);
	EQ_INT(network_finish(&n, NULL, NULL), 0, "two levels are valid");
	net_shape_uniform(&n, k, &s);
	EQ_DBL(net_time(net_collective(&n, NET_ALL_REDUCE, &s), B),
	    B / fab + 2e-6 + (B / 8) / 50e9 + 12e-6, 1e-12,
	    "the fabric in the node, the ring across nodes");
	n.level[0].protocol_overhead = 1;
	EQ_INT(network_finish(&n, NULL, NULL) < 0, 1,
	    "an overhead of the whole line rate is refused");
	n.level[0].protocol_overhead = 0;
	n.level[0].nvls_efficiency = 1.5;
	EQ_INT(network_finish(&n, NULL, NULL) < 0, 1,
	    "a fabric faster than the payload is refused");
}

/* Halving-doubling: log2(k) latency steps each way, same bandwidth term. */
static void
halving_doubling(void)
{
	struct network n = { 0 };
	struct net_shape s;
	long k = 8, k6 = 6;
	const double B = 1e6;

	level(&n, 0, 8, 50e9, 2e-6, 1, NET_HALVING_DOUBLING);
	network_finish(&n, NULL, NULL);
	net_shape_uniform(&n, &k, &s);
	EQ_DBL(net_time(net_collective(&n, NET_ALL_REDUCE, &s), B),
	    2 * 7.0 / 8 * B / 50e9 + 2 * 3 * 2e-6, 1e-12,
	    "halving-doubling all-reduce, 8 members");
	net_shape_uniform(&n, &k6, &s);
	EQ_DBL(net_time(net_collective(&n, NET_ALL_REDUCE, &s), B),
	    2 * 5.0 / 6 * B / 50e9 + 2 * 5 * 2e-6, 1e-12,
	    "6 members fall back to the ring");
}

/* Strided and uneven groups, as data-parallel groups are. */
static void
group_shapes(void)
{
	struct network n = { 0 };
	struct net_shape s;
	long strided[4] = { 0, 8, 16, 24 }, uneven[12];

	level(&n, 0, 8, 900e9, 1e-4, 1, NET_RING);
	level(&n, 1, 4, 100e9, 2e-4, 1, NET_RING);
	level(&n, 2, 2, 400e9, 3e-4, 1, NET_RING);
	network_finish(&n, NULL, NULL);
	net_shape_of(&n, strided, 4, &s, NULL);
	EQ_INT(s.ring[0], 1, "one member a node");
	EQ_INT(s.ring[1], 4, "four nodes meet at the leaf");
	EQ_INT(s.top, 1, "top level 1");
	for (int i = 0; i < 12; i++)
		uneven[i] = i;
	net_shape_of(&n, uneven, 12, &s, NULL);
	EQ_INT(s.ring[0], 8, "uneven: the longest ring in a node is 8");
	EQ_INT(s.ring[1], 2, "uneven: two nodes meet");
	EQ_INT(s.chunk_div[1], 4, "uneven: the 4-member node holds the big chunk");
	{
		long bad[2] = { 3, 3 };

		OK(net_shape_of(&n, bad, 2, &s, NULL) < 0, "duplicate ids refused");
		bad[1] = 64;
		OK(net_shape_of(&n, bad, 2, &s, NULL) < 0, "ids beyond the network "
		    "refused");
	}
}

/*
 * A 4x4x4 torus with 2x2x2 blocks and 10 GB/s links, 1 us a hop:
 *   level 0 (2x2x2, no wraparound): diameter 3; cut a 2-long dimension:
 *     4 links for 4 devices a side -> 10 GB/s a device;
 *   level 1 (4x4x4 with wraparound): diameter 6, adds 3 hops; cut:
 *     16 x 2 links for 32 devices -> 10 GB/s a device.
 */
static void
torus(void)
{
	struct network n;
	struct pl_err err;

	if (!OK(network_load(&n, "tests/configs/good/torus-4x4x4.xml", &err) == 0,
	    "small torus loads"))
		printf("#   %s:%zu: %s\n", err.file, err.line, err.msg);
	EQ_INT(n.nlevels, 2, "one block level and the torus");
	EQ_INT(n.level[0].fanout, 8, "2x2x2 block");
	EQ_INT(n.level[1].fanout, 8, "8 blocks");
	EQ_DBL(n.level[0].latency_s, 3e-6, 1e-12, "block diameter 3 hops");
	EQ_DBL(n.level[1].latency_s, 3e-6, 1e-12, "torus adds 3 hops");
	EQ_DBL(n.level[0].bandwidth_Bps, 10e9, 1e-12, "block bisection share");
	EQ_DBL(n.level[1].bandwidth_Bps, 10e9, 1e-12, "torus bisection share");
}

/* A small deterministic generator (the tests draw their own instances). */
static unsigned long ap_seed = 12345;

static long
draw(long lo, long hi)
{
	ap_seed = ap_seed * 6364136223846793005UL + 1442695040888963407UL;
	return lo + (long)((ap_seed >> 33) % (unsigned long)(hi - lo + 1));
}

static int
same_shape(const struct network *n, const struct net_shape *a,
    const struct net_shape *b)
{
	if (a->n != b->n || a->top != b->top)
		return 0;
	for (int l = 0; l < n->nlevels; l++)
		if (a->ring[l] != b->ring[l] || a->within[l] != b->within[l] ||
		    a->chunk_div[l] != b->chunk_div[l])
			return 0;
	return 1;
}

/*
 * net_shape_ap against net_shape_of on the listed members, and
 * net_range_top against the lowest common level of every copy, on random
 * networks and groups (the brute force is the definition).  Half the
 * groups have hundreds of copies, so the periodic path is taken.
 */
static void
periodic_groups(void)
{
	int bad_shape = 0, bad_range = 0, periodic = 0;

	for (int trial = 0; trial < 3000; trial++) {
		struct network n = { 0 };
		struct net_shape got, want;
		struct net_ap g;
		int levels = (int)draw(1, 4);
		long *devs, k = 0;

		for (int l = 0; l < levels; l++)
			level(&n, l, draw(1, 9), 1e9, 1e-6, 1, NET_RING);
		network_finish(&n, NULL, NULL);
		g.s1 = draw(1, 6);
		g.n1 = draw(1, 6);
		g.s2 = (g.n1 - 1) * g.s1 + draw(1, 40);
		g.n2 = draw(1, trial % 2 ? 8 : 600);
		g.x0 = draw(0, g.s2);
		if (g.x0 + (g.n2 - 1) * g.s2 + (g.n1 - 1) * g.s1 >= n.ndevices) {
			/* grow the top level until the group fits */
			long need = g.x0 + (g.n2 - 1) * g.s2 +
			    (g.n1 - 1) * g.s1 + 1;
			long below = n.ndevices / n.level[levels - 1].fanout;

			n.level[levels - 1].fanout = (need + below - 1) / below;
			network_finish(&n, NULL, NULL);
		}
		devs = malloc((size_t)(g.n1 * g.n2) * sizeof *devs);
		for (long r = 0; r < g.n2; r++)
			for (long i = 0; i < g.n1; i++)
				devs[k++] = g.x0 + r * g.s2 + i * g.s1;
		if (net_shape_ap(&n, &g, &got, NULL) < 0 ||
		    net_shape_of(&n, devs, (size_t)k, &want, NULL) < 0 ||
		    !same_shape(&n, &got, &want)) {
			if (bad_shape++ == 0)
				printf("# shape differs: x0 %ld s1 %ld n1 %ld "
				    "s2 %ld n2 %ld\n", g.x0, g.s1, g.n1, g.s2,
				    g.n2);
		}
		periodic += g.n1 * g.n2 > 1000;
		/* the ranges [x + r s2, y + r s2] of the copies */
		{
			long x = draw(0, g.s2 - 1), y = x + draw(0, g.s2 - 1);
			long first = -7, wfirst = 0;
			int top = -1, t;

			if (y + (g.n2 - 1) * g.s2 >= n.ndevices)
				y = x;
			for (long r = 0; r < g.n2; r++) {
				int l = net_common_level(&n, x + r * g.s2,
				    y + r * g.s2);

				if (l > top) {
					top = l;
					wfirst = r;
				}
			}
			t = net_range_top(&n, x, y, g.s2, g.n2, &first);
			if (t != top || (top >= 0 && first != wfirst)) {
				if (bad_range++ == 0)
					printf("# range top %d (copy %ld), want "
					    "%d (copy %ld)\n", t, first, top,
					    wfirst);
			}
		}
		free(devs);
	}
	EQ_INT(bad_shape, 0, "two-stride group shapes equal the listed members'");
	EQ_INT(bad_range, 0, "range tops equal every copy's common level");
	OK(periodic > 500, "large groups among them");
}

/* The chance that a token misses experts [0, block), by enumeration:
 * every choice of M of the G groups, then every k experts of those. */
static double
miss_enumerated(long E, long k, long G, long M, long block)
{
	long size = E / G, pool = M * size, hit_none = 0, total = 0;

	for (unsigned gs = 0; gs < 1u << G; gs++) {
		long experts[64], np = 0;

		if (__builtin_popcount(gs) != M)
			continue;
		for (long g = 0; g < G; g++)
			for (long x = 0; gs >> g & 1 && x < size; x++)
				experts[np++] = g * size + x;
		for (unsigned ks = 0; ks < 1u << pool; ks++) {
			int miss = 1;

			if (__builtin_popcount(ks) != k)
				continue;
			for (long i = 0; i < pool; i++)
				if (ks >> i & 1 && experts[i] < block)
					miss = 0;
			hit_none += miss;
			total++;
		}
	}
	return (double)hit_none / (double)total;
}

/*
 * Routing: 16 experts in 4 groups of 4, a token in 2 groups, top-3
 * there; the chance it misses a block of 1, 2, 4 or 8 experts against
 * the enumeration of every choice.  Without groups, C(12,3)/C(16,3) for
 * a block of 4.  Groups that do not nest with the block (12 experts in
 * 3 groups of 4, a block of 6) are left out: C(6,3)/C(12,3), at most
 * the enumeration's (groups only narrow where a token goes).
 *
 * The hierarchical dispatch over 16 GPUs, 4 a node at 400 GB/s, the
 * nodes at 50 GB/s, one expert a GPU, a node a group, top-4 in 2 of the
 * 4 groups: a token reaches another node with the chance that node's
 * group is picked (1/2) and not all 4 experts fall in the other picked
 * group (1 - 1/70), so it sends 3 (1/2 - 1/140) copies across a node
 * where the flat exchange sends 4 x 12/16; the NVLink forwarding (12 of
 * the 16 GPUs, each reached with chance 1/4) is the lighter part.
 */
static void
routing(void)
{
	struct routing r = { 16, 3, 4, 2 }, flat = { 16, 3, 0, 0 };
	struct routing odd = { 12, 3, 3, 2 };
	const long blocks[] = { 1, 2, 4, 8 };
	struct network n = { 0 };
	struct net_shape s;
	struct net_cost hier, all;
	long devs[16];

	for (size_t i = 0; i < sizeof blocks / sizeof *blocks; i++) {
		char name[80];

		snprintf(name, sizeof name, "a block of %ld of 16 experts, 2 "
		    "of 4 groups, top-3: missed as enumerated", blocks[i]);
		EQ_DBL(routing_miss(&r, blocks[i]), miss_enumerated(16, 3, 4,
		    2, blocks[i]), 1e-12, name);
	}
	EQ_DBL(routing_miss(&flat, 4), 220.0 / 560.0, 1e-12, "no groups: "
	    "C(12,3)/C(16,3)");
	EQ_DBL(routing_miss(&odd, 6), 20.0 / 220.0, 1e-12, "groups not "
	    "nesting with the block left out: C(6,3)/C(12,3)");
	OK(routing_miss(&odd, 6) <= miss_enumerated(12, 3, 3, 2, 6), "a bound "
	    "of the enumeration's");
	level(&n, 0, 4, 400e9, 0, 1, NET_RING);
	level(&n, 1, 4, 50e9, 0, 1, NET_RING);
	network_finish(&n, NULL, NULL);
	for (long i = 0; i < 16; i++)
		devs[i] = i;
	net_shape_of(&n, devs, 16, &s, NULL);
	r = (struct routing){ 16, 4, 4, 2 };
	hier = routing_dispatch_hierarchical(&n, &s, &r);
	all = net_collective(&n, NET_ALL_TO_ALL, &s);
	EQ_DBL(hier.beta_s_per_byte, 3 * (0.5 - 1.0 / 140) / 4 / 50e9, 1e-12,
	    "hierarchical: 3 (1/2 - 1/140) copies of 4 cross a node");
	EQ_DBL(all.beta_s_per_byte, 12.0 / 16 / 50e9 + 3.0 / 16 / 400e9,
	    1e-12, "flat: 12 of 16 peers across, 3 in the node");
	OK(12 * 0.25 / 4 / 400e9 < hier.beta_s_per_byte, "the NVLink "
	    "forwarding the lighter part");
}

int
main(void)
{
	ring_allreduce();
	two_level_allreduce();
	oversubscribed_transfer();
	payload_and_fabric();
	halving_doubling();
	group_shapes();
	torus();
	periodic_groups();
	routing();
	return tap_done();
}
