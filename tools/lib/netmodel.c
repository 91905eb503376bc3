/* netmodel.c - level-wise point-to-point and collective costs. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "netmodel.h"

static const char *const coll_names[NET_NCOLL] = {
	"p2p", "all_reduce", "all_gather", "reduce_scatter", "all_to_all"
};

const char *
net_coll_name(enum net_coll c)
{
	return c < NET_NCOLL ? coll_names[c] : "?";
}

int
network_finish(struct network *net, const char *file, struct pl_err *err)
{
	long span = 1;

	if (net->nlevels < 1 || net->nlevels > NET_MAX_LEVELS)
		return pl_errf(err, file, 0, "a network has 1 to %d levels, not %d",
		    NET_MAX_LEVELS, net->nlevels);
	for (int l = 0; l < net->nlevels; l++) {
		struct net_level *lv = &net->level[l];

		if (lv->fanout < 1)
			return pl_errf(err, file, 0, "level %d: fanout must be "
			    "positive", l);
		if (!(lv->bandwidth_Bps > 0) || !isfinite(lv->bandwidth_Bps))
			return pl_errf(err, file, 0, "level %d: bandwidth must be "
			    "positive", l);
		if (!(lv->latency_s >= 0) || !isfinite(lv->latency_s))
			return pl_errf(err, file, 0, "level %d: latency must not "
			    "be negative", l);
		if (!(lv->oversubscription >= 1))
			return pl_errf(err, file, 0, "level %d: oversubscription "
			    "must be at least 1", l);
		if (span > (1L << 30) / lv->fanout)
			return pl_errf(err, file, 0, "more than 2^30 devices");
		span *= lv->fanout;
		net->span[l] = span;
	}
	net->ndevices = span;
	return 0;
}

int
net_common_level(const struct network *net, long a, long b)
{
	if (a == b)
		return -1;
	for (int l = 0; l < net->nlevels; l++)
		if (a / net->span[l] == b / net->span[l])
			return l;
	return net->nlevels - 1;	/* out of range ids: the top */
}

double
net_effective_bandwidth(const struct network *net, int level)
{
	double bw = HUGE_VAL;

	for (int l = 0; l <= level && l < net->nlevels; l++) {
		double b = net->level[l].bandwidth_Bps /
		    net->level[l].oversubscription;

		if (b < bw)
			bw = b;
	}
	return bw;
}

struct net_cost
net_p2p(const struct network *net, int level)
{
	struct net_cost c = { 0, 0 };

	if (level < 0)
		return c;
	for (int l = 0; l <= level && l < net->nlevels; l++)
		c.alpha_s += net->level[l].latency_s;
	c.beta_s_per_byte = 1 / net_effective_bandwidth(net, level);
	return c;
}

static void
shape_top(const struct network *net, struct net_shape *s)
{
	s->top = -1;
	for (int l = 0; l < net->nlevels; l++)
		if (s->ring[l] > 1)
			s->top = l;
}

void
net_shape_uniform(const struct network *net, const long *k, struct net_shape *s)
{
	long below = 1;

	memset(s, 0, sizeof(*s));
	for (int l = 0; l < net->nlevels; l++) {
		s->ring[l] = k[l];
		s->chunk_div[l] = below;
		below *= k[l];
		s->within[l] = below;
	}
	s->n = below;
	shape_top(net, s);
}

static int
cmp_long(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;

	return (x > y) - (x < y);
}

/*
 * For an uneven group, each level takes its longest ring (ring[l], the
 * most members meeting in one group) and the largest chunk (the fewest
 * members below one of them): the slowest member sets the pace.
 */
int
net_shape_of(const struct network *net, const long *devs, size_t n,
    struct net_shape *s, struct pl_err *err)
{
	long *d = xmalloc(n * sizeof(long));

	memset(s, 0, sizeof(*s));
	memcpy(d, devs, n * sizeof(long));
	for (size_t i = 1; i < n; i++)
		if (d[i] < d[i - 1]) {	/* groups built in order need no sort */
			qsort(d, n, sizeof(long), cmp_long);
			break;
		}
	for (size_t i = 0; i < n; i++) {
		long id = d[i];

		if (id < 0 || id >= net->ndevices || (i > 0 && id == d[i - 1])) {
			free(d);
			if (id < 0 || id >= net->ndevices)
				return pl_errf(err, NULL, 0, "device %ld is not in "
				    "network '%s' (0..%ld)", id, net->name,
				    net->ndevices - 1);
			return pl_errf(err, NULL, 0, "device %ld twice in a group",
			    id);
		}
	}
	s->n = (long)n;
	for (int l = 0; l < net->nlevels; l++) {
		long sub = l > 0 ? net->span[l - 1] : 1;
		long minsub = -1;

		s->ring[l] = 0;
		s->within[l] = 0;
		/* sorted ids: groups and subgroups are runs */
		for (size_t i = 0; i < n;) {
			long g = d[i] / net->span[l], members = 0, subs = 0;

			while (i < n && d[i] / net->span[l] == g) {
				long sg = d[i] / sub, cnt = 0;

				while (i < n && d[i] / sub == sg &&
				    d[i] / net->span[l] == g) {
					cnt++;
					i++;
				}
				subs++;
				members += cnt;
				if (minsub < 0 || cnt < minsub)
					minsub = cnt;
			}
			if (subs > s->ring[l])
				s->ring[l] = subs;
			if (members > s->within[l])
				s->within[l] = members;
		}
		s->chunk_div[l] = minsub > 0 ? minsub : 1;
	}
	if (n == 0)
		for (int l = 0; l < net->nlevels; l++)
			s->ring[l] = s->chunk_div[l] = 1;
	shape_top(net, s);
	free(d);
	return 0;
}

static int
is_pow2(long k)
{
	return k > 0 && (k & (k - 1)) == 0;
}

/* Latency steps of one ring or halving-doubling pass over k members. */
static double
steps(const struct net_level *lv, long k)
{
	if (lv->algo == NET_HALVING_DOUBLING && is_pow2(k))
		return log2((double)k);
	return (double)(k - 1);
}

struct net_cost
net_collective(const struct network *net, enum net_coll c,
    const struct net_shape *s)
{
	struct net_cost out = { 0, 0 };
	long prev_within = 1;

	if (s->n <= 1 || s->top < 0)
		return out;
	if (c == NET_P2P)
		return net_p2p(net, s->top);
	for (int l = 0; l <= s->top; l++) {
		struct net_cost p = net_p2p(net, l);
		long k = s->ring[l];
		double frac = (double)(k - 1) / (double)k;

		switch (c) {
		case NET_ALL_REDUCE:
			out.alpha_s += 2 * steps(&net->level[l], k) * p.alpha_s;
			out.beta_s_per_byte += 2 * frac * p.beta_s_per_byte /
			    (double)s->chunk_div[l];
			break;
		case NET_ALL_GATHER:
		case NET_REDUCE_SCATTER:
			out.alpha_s += steps(&net->level[l], k) * p.alpha_s;
			out.beta_s_per_byte += frac * p.beta_s_per_byte /
			    (double)s->chunk_div[l];
			break;
		case NET_ALL_TO_ALL: {
			long peers = s->within[l] - prev_within;

			out.alpha_s += (double)peers * p.alpha_s;
			out.beta_s_per_byte += (double)peers / (double)s->n *
			    p.beta_s_per_byte;
			prev_within = s->within[l];
			break;
		}
		default:
			break;
		}
	}
	return out;
}

double *
net_allreduce_alpha_floor(const struct network *net, long nmax)
{
	double *f = xmalloc((size_t)(nmax + 1) * sizeof *f);
	double *g = xmalloc((size_t)(nmax + 1) * sizeof *g);

	/* above the top level: only a group already complete */
	for (long n = 0; n <= nmax; n++)
		f[n] = n <= 1 ? 0 : INFINITY;
	for (int l = net->nlevels - 1; l >= 0; l--) {
		const struct net_level *lv = &net->level[l];
		double alpha = net_p2p(net, l).alpha_s;

		for (long n = 0; n <= nmax; n++) {
			g[n] = f[n];
			for (long k = 2; k <= lv->fanout && k <= n; k++) {
				double c = 2 * steps(lv, k) * alpha +
				    f[(n + k - 1) / k];

				if (c < g[n])
					g[n] = c;
			}
		}
		memcpy(f, g, (size_t)(nmax + 1) * sizeof *f);
	}
	free(g);
	return f;
}

double
net_time(struct net_cost c, double bytes)
{
	if (bytes <= 0)
		return 0;
	return c.alpha_s + c.beta_s_per_byte * bytes;
}
