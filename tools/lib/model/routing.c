/*
 * routing.c - a mixture's token routing and the hierarchical dispatch it
 * bounds (routing.h; docs/model.md, "Hierarchical dispatch").
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/config.h"
#include "model/routing.h"

int
routing_from_config_line(const char *line, struct routing *r)
{
	static const char *const keys[] = { "experts", "top_k",
		"router_groups", "router_group_topk" };
	long *dst[] = { &r->experts, &r->top_k, &r->groups,
		&r->group_topk };
	char buf[32], *end;

	if (line == NULL)
		return -1;
	for (int k = 0; k < 4; k++) {
		if (config_line_field(line, keys[k], buf, sizeof buf) < 0)
			return -1;
		*dst[k] = strtol(buf, &end, 10);
		if (*end != '\0' || *dst[k] < 0)
			return -1;
	}
	return r->experts > 1 && r->top_k >= 1 ? 0 : -1;
}

/* C(a, k) / C(b, k), a <= b: the chance that k distinct picks out of b
 * all fall among a given a of them. */
static double
all_among(double a, double b, long k)
{
	double p = 1;

	for (long i = 0; i < k; i++) {
		if (a - (double)i <= 0)
			return 0;
		p *= (a - (double)i) / (b - (double)i);
	}
	return p;
}

/* C(n, k) as a double (n up to a few thousand: groups). */
static double
choose(long n, long k)
{
	double c = 1;

	if (k < 0 || k > n)
		return 0;
	for (long i = 1; i <= k; i++)
		c = c * (double)(n - k + i) / (double)i;
	return c;
}

double
routing_miss(const struct routing *r, long block)
{
	long E = r->experts, k = r->top_k;
	long G = r->groups > 1 ? r->groups : 1;
	long M = r->groups > 1 && r->group_topk > 0 ? r->group_topk : 1;
	long size = E / G;		/* experts a group */
	double pool = (double)(M * size);

	if (block >= E)
		return 0;
	/* groups that do not nest with the block: left out (a bound) */
	if (G > 1 && (E % G || (block % size && size % block)))
		G = M = 1, size = E, pool = (double)E;
	if (G == 1 || block < size) {
		/* the block inside one group: that group picked, then none
		 * of the k among the block's experts */
		double picked = G == 1 ? 1 : (double)M / (double)G;

		return (1 - picked) + picked * all_among(pool - (double)block,
		    pool, k);
	}
	/* whole groups, q of them, in the block: x of them picked
	 * (hypergeometric), then none of the k among their experts */
	{
		long q = block / size;
		double miss = 0, all = choose(G, M);

		for (long x = 0; x <= q && x <= M; x++)
			miss += choose(q, x) * choose(G - q, M - x) / all *
			    all_among(pool - (double)(x * size), pool, k);
		return miss;
	}
}

struct net_cost
routing_dispatch_hierarchical(const struct network *net,
    const struct net_shape *s, const struct routing *r)
{
	struct net_cost rdma = { 0, 0 }, nvl = { 0, 0 }, out;
	long n = s->n, node = s->within[0];
	double k = (double)r->top_k, nodes, rank_hit, node_hit;

	if (n <= 1)
		return rdma;
	if (node < 1 || n % node || r->experts % n)
		return net_collective(net, NET_ALL_TO_ALL, s);
	nodes = (double)(n / node);
	rank_hit = 1 - routing_miss(r, r->experts / n);
	node_hit = 1 - routing_miss(r, r->experts / n * node);
	/* over NVLink: every GPU a token reaches but its node's entry GPU
	 * (the source at home, the receiver elsewhere), (n - nodes) of
	 * them each with the chance rank_hit, over the node's peers */
	if (node > 1) {
		struct net_cost p = net_p2p(net, 0);

		nvl.alpha_s = (double)(node - 1) * p.alpha_s;
		nvl.beta_s_per_byte = ((double)n - nodes) * rank_hit / k *
		    p.beta_s_per_byte;
	}
	/* over the scale-out levels: one copy a node reached, the other
	 * nodes met at each level in proportion */
	for (int l = 1, prev = 0; n > node && l <= s->top; l++) {
		long peers = s->within[l] - s->within[prev];
		struct net_cost p = net_p2p(net, l);

		if (peers <= 0)
			continue;
		rdma.alpha_s += (double)peers / (double)node * p.alpha_s;
		rdma.beta_s_per_byte += (nodes - 1) * node_hit / k *
		    (double)peers / (double)(n - node) * p.beta_s_per_byte;
		prev = l;
	}
	out.alpha_s = fmax(rdma.alpha_s, nvl.alpha_s);
	out.beta_s_per_byte = fmax(rdma.beta_s_per_byte, nvl.beta_s_per_byte);
	return out;
}
