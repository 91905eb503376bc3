/* netmodel.c - level-wise point-to-point and collective costs. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/netmodel.h"

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
			return pl_errf(err, file, lv->line, "level %d: fanout must be "
			    "positive", l);
		if (!(lv->bandwidth_Bps > 0) || !isfinite(lv->bandwidth_Bps))
			return pl_errf(err, file, lv->line, "level %d: bandwidth must be "
			    "positive", l);
		if (!(lv->latency_s >= 0) || !isfinite(lv->latency_s))
			return pl_errf(err, file, lv->line, "level %d: latency must not "
			    "be negative", l);
		if (!(lv->oversubscription >= 1))
			return pl_errf(err, file, lv->line, "level %d: oversubscription "
			    "must be at least 1", l);
		if (!(lv->protocol_overhead >= 0 && lv->protocol_overhead < 1))
			return pl_errf(err, file, lv->line, "level %d: "
			    "protocol_overhead must be in [0, 1)", l);
		if (!(lv->nvls_efficiency >= 0 && lv->nvls_efficiency <= 1))
			return pl_errf(err, file, lv->line, "level %d: "
			    "nvls_efficiency must be in (0, 1]", l);
		if (span > (1L << 30) / lv->fanout)
			return pl_errf(err, file, lv->line, "level '%s': more than 2^30 devices", lv->name);
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

/* What a flow through level l moves a second: the line rate less its
 * packets' headers, shared by the oversubscribed uplinks. */
static double
payload_Bps(const struct net_level *lv)
{
	return lv->bandwidth_Bps * (1 - lv->protocol_overhead) /
	    lv->oversubscription;
}

double
net_effective_bandwidth(const struct network *net, int level)
{
	double bw = HUGE_VAL;

	for (int l = 0; l <= level && l < net->nlevels; l++) {
		double b = payload_Bps(&net->level[l]);

		if (b < bw)
			bw = b;
	}
	return bw;
}

/*
 * Where level l's switches reduce in the fabric (NVLink SHARP), an
 * all-reduce among its members moves each byte once each way, at
 * nvls_efficiency of the level's own payload rate (the path below no
 * narrower): its cost a byte of the chunk; INFINITY where they do not.
 */
static double
fabric_beta(const struct network *net, int l)
{
	const struct net_level *lv = &net->level[l];
	double bw, below;

	if (lv->nvls_efficiency <= 0)
		return INFINITY;
	bw = payload_Bps(lv) * lv->nvls_efficiency;
	below = l > 0 ? net_effective_bandwidth(net, l - 1) : HUGE_VAL;
	return 1 / (bw < below ? bw : below);
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

/*
 * An all-reduce at level l among k members: its cost a byte of the chunk,
 * the ring's 2 (k - 1) / k bytes at the path's rate `beta` or the
 * fabric's `fabric`, whichever is less (NCCL's tuner picks the faster
 * algorithm), and in *hops its latency steps each way: the ring's (or
 * halving-doubling's), or in the fabric one up and one down.  The price
 * (net_collective) and the search's floors make the same choice.
 */
static double
allreduce_level(const struct net_level *lv, double beta, double fabric,
    long k, double *hops)
{
	double ring = 2 * (double)(k - 1) / (double)k * beta;

	if (k > 1 && fabric < ring) {
		*hops = 1;
		return fabric;
	}
	*hops = steps(lv, k);
	return ring;
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
		case NET_ALL_REDUCE: {
			double hops, b = allreduce_level(&net->level[l],
			    p.beta_s_per_byte, fabric_beta(net, l), k, &hops);

			out.alpha_s += 2 * hops * p.alpha_s;
			out.beta_s_per_byte += b / (double)s->chunk_div[l];
			break;
		}
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
		struct net_cost p = net_p2p(net, l);
		double fabric = fabric_beta(net, l);

		for (long n = 0; n <= nmax; n++) {
			g[n] = f[n];
			for (long k = 2; k <= lv->fanout && k <= n; k++) {
				double hops, c;

				allreduce_level(lv, p.beta_s_per_byte, fabric,
				    k, &hops);
				c = 2 * hops * p.alpha_s + f[(n + k - 1) / k];

				if (c < g[n])
					g[n] = c;
			}
		}
		memcpy(f, g, (size_t)(nmax + 1) * sizeof *f);
	}
	free(g);
	return f;
}

double *
net_allreduce_beta_floor(const struct network *net, long nmax, long stride)
{
	double *h = xmalloc((size_t)(nmax + 1) * sizeof *h);
	double *g = xmalloc((size_t)(nmax + 1) * sizeof *g);

	/* h[P]: the least cost a byte of the levels so far, their rings
	 * multiplying to P (nmax: at least nmax) */
	for (long n = 0; n <= nmax; n++)
		h[n] = n == 1 ? 0 : INFINITY;
	for (int l = 0; l < net->nlevels; l++) {
		double beta = net_p2p(net, l).beta_s_per_byte;
		double fabric = fabric_beta(net, l);
		/* members in one block of the level below, at most, and in
		 * one of this level: a ring meets no more */
		long cap = l > 0 ? (net->span[l - 1] + stride - 1) / stride : 1;
		long kmax = (net->span[l] + stride - 1) / stride;

		if (kmax > net->level[l].fanout)
			kmax = net->level[l].fanout;

		memcpy(g, h, (size_t)(nmax + 1) * sizeof *g);
		for (long P = 1; P <= nmax; P++) {
			/* a chunk is the bytes over the smallest subgroup
			 * below: at most P members, at most cap */
			double div = (double)(P < nmax && P < cap ? P : cap);

			if (isinf(h[P]))
				continue;
			for (long k = 2; k <= kmax; k++) {
				long Q = P > nmax / k ? nmax : P * k;
				double hops, c = h[P] + allreduce_level(
				    &net->level[l], beta, fabric, k, &hops) /
				    div;

				if (c < g[Q])
					g[Q] = c;
				if (Q == nmax)
					break;	/* larger k only costs more */
			}
		}
		memcpy(h, g, (size_t)(nmax + 1) * sizeof *h);
	}
	/* a group of n: rings multiplying to n or more */
	for (long n = nmax - 1; n >= 0; n--)
		if (h[n + 1] < h[n])
			h[n] = h[n + 1];
	free(g);
	return h;
}

double
net_time(struct net_cost c, double bytes)
{
	if (bytes <= 0)
		return 0;
	return c.alpha_s + c.beta_s_per_byte * bytes;
}

/* floor(a / b) and ceil(a / b) for b > 0, any sign of a. */
static long
floor_div(long a, long b)
{
	return a >= 0 ? a / b : -((-a + b - 1) / b);
}

static long
ceil_div(long a, long b)
{
	return -floor_div(-a, b);
}

/* A group {x0 + i s1 + r s2 : i < n1, r < n2}, the inner run shorter than
 * s2 (struct net_ap in netmodel.h, here with its span). */
struct ap {
	long x0, s1, n1, s2, n2, span1;
};

/* |{i < n1 : y <= i s1 < y + len}| */
static long
run_count(const struct ap *g, long y, long len)
{
	long lo = y <= 0 ? 0 : ceil_div(y, g->s1);
	long hi = y + len - 1 < 0 ? -1 : floor_div(y + len - 1, g->s1);

	if (hi > g->n1 - 1)
		hi = g->n1 - 1;
	return hi >= lo ? hi - lo + 1 : 0;
}

/* Members in the block [a, a + len): whole runs, and the runs cut at
 * either end (O(1)). */
static long
block_count(const struct ap *g, long a, long len)
{
	long rlo = ceil_div(a - g->x0 - g->span1, g->s2);
	long rhi = floor_div(a + len - 1 - g->x0, g->s2);
	long flo = ceil_div(a - g->x0, g->s2);
	long fhi = floor_div(a + len - 1 - g->x0 - g->span1, g->s2);
	long n = 0;

	if (rlo < 0)
		rlo = 0;
	if (rhi > g->n2 - 1)
		rhi = g->n2 - 1;
	if (flo < rlo)
		flo = rlo;
	if (fhi > rhi)
		fhi = rhi;
	if (flo > fhi) {	/* no whole run: at most a few cut ones */
		for (long r = rlo; r <= rhi; r++)
			n += run_count(g, a - g->x0 - r * g->s2, len);
		return n;
	}
	n = g->n1 * (fhi - flo + 1);
	for (long r = rlo; r < flo; r++)
		n += run_count(g, a - g->x0 - r * g->s2, len);
	for (long r = fhi + 1; r <= rhi; r++)
		n += run_count(g, a - g->x0 - r * g->s2, len);
	return n;
}

/*
 * The blocks of size len to look at so that every value a block's count
 * (and its children's) takes is seen: a block [a, a + len) with
 * x0 <= a and a + len <= x0 + n2 s2 sees the group as if it were
 * infinite, so its counts depend on (a - x0) mod s2 only, which repeats
 * every s2 / gcd(len, s2) blocks; the first and the last block, which may
 * be cut, are looked at on their own.  g0..g1 are the blocks the group
 * touches; g0 + 1 .. g0 + period are enough inside.
 */
struct blocks {
	long g0, g1, period, n;		/* n: blocks looked at */
};

static struct blocks
blocks_of(const struct ap *g, long len)
{
	struct blocks b;

	b.g0 = g->x0 / len;
	b.g1 = (g->x0 + (g->n2 - 1) * g->s2 + g->span1) / len;
	b.period = g->s2 / gcd_long(len, g->s2);
	b.n = b.g1 - b.g0 + 1 <= b.period + 4 ? b.g1 - b.g0 + 1 :
	    b.period + 2;
	return b;
}

/* The k-th block looked at: all in order, or the two ends and a period. */
static long
visited_block(const struct blocks *b, long k)
{
	if (b->n == b->g1 - b->g0 + 1)
		return b->g0 + k;
	return k == 0 ? b->g0 : k == 1 ? b->g1 : b->g0 + k - 1;
}

int
net_shape_ap(const struct network *net, const struct net_ap *p,
    struct net_shape *s, struct pl_err *err)
{
	struct ap g = { p->x0, p->s1, p->n1, p->s2, p->n2,
		(p->n1 - 1) * p->s1 };
	long direct = p->n1 * p->n2 * (net->nlevels + 1), periodic = 0;
	long minc[NET_MAX_LEVELS];
	struct blocks lv[NET_MAX_LEVELS];

	if (p->n1 < 1 || p->n2 < 1 || p->s1 < 1 || p->x0 < 0 ||
	    (p->n2 > 1 && g.span1 >= p->s2) ||
	    g.x0 + (p->n2 - 1) * (p->n2 > 1 ? p->s2 : 0) + g.span1 >=
	    net->ndevices)
		return pl_errf(err, NULL, 0, "group {%ld + %ld i + %ld r} is "
		    "not a set of devices of network '%s'", p->x0, p->s1,
		    p->s2, net->name);
	if (p->n2 == 1)
		g.s2 = g.span1 + 1;
	for (int l = 0; l < net->nlevels; l++) {
		lv[l] = blocks_of(&g, net->span[l]);
		periodic += lv[l].n * (net->level[l].fanout + 1);
	}
	if (direct <= periodic) {	/* small groups: list the members */
		long *devs = xmalloc((size_t)direct * sizeof *devs), n = 0;
		int rc;

		for (long r = 0; r < p->n2; r++)
			for (long i = 0; i < p->n1; i++)
				devs[n++] = p->x0 + r * p->s2 + i * p->s1;
		rc = net_shape_of(net, devs, (size_t)n, s, err);
		free(devs);
		return rc;
	}
	memset(s, 0, sizeof(*s));
	s->n = p->n1 * p->n2;
	for (int l = 0; l < net->nlevels; l++) {
		long len = net->span[l], sub = l > 0 ? net->span[l - 1] : 1;

		minc[l] = -1;
		for (long k = 0; k < lv[l].n; k++) {
			long a = visited_block(&lv[l], k) * len;
			long h = block_count(&g, a, len), kids = 0;

			if (h == 0)
				continue;
			if (h > s->within[l])
				s->within[l] = h;
			if (minc[l] < 0 || h < minc[l])
				minc[l] = h;
			if (l == 0)
				kids = h;	/* devices: one member each */
			else
				for (long c = 0; c < net->level[l].fanout; c++)
					kids += block_count(&g, a + c * sub,
					    sub) > 0;
			if (kids > s->ring[l])
				s->ring[l] = kids;
		}
		s->chunk_div[l] = l > 0 && minc[l - 1] > 0 ? minc[l - 1] : 1;
	}
	shape_top(net, s);
	return 0;
}

int
net_range_top(const struct network *net, long x, long y, long stride,
    long count, long *first)
{
	long len = y - x;

	if (first)
		*first = 0;
	if (len <= 0 || count < 1)
		return -1;
	/* the range of copy r crosses a level-l boundary when (x + r
	 * stride) mod span_l + len reaches span_l; the residues repeat
	 * every span_l / gcd(span_l, stride) copies.  The lowest level no
	 * copy crosses is the highest any copy reaches. */
	for (int l = 0; l < net->nlevels - 1; l++) {
		long span = net->span[l];
		long period = span / gcd_long(span, stride % span ? stride %
		    span : span), n = count < period ? count : period;
		long res = x % span, step = stride % span, r;

		for (r = 0; r < n; r++) {
			if (res + len >= span)
				break;
			res = (res + step) % span;
		}
		if (r == n)
			return l;
		if (first)
			*first = r;
	}
	return net->nlevels - 1;
}
