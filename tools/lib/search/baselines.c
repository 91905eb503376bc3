/* baselines.c - the planners nest is compared with (baselines.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <glpk.h>

#include "search/baselines.h"
#include "search/dp.h"

void
bl_result_release(struct bl_result *r)
{
	if (r->has_plan)
		free(r->plan.stage);
	memset(r, 0, sizeof *r);
}

long
bl_node_devices(const struct network *net)
{
	return net->span[0];
}

static long
lmin(long a, long b)
{
	return a < b ? a : b;
}

static int
is_transformer(const struct layer *l)
{
	return strcmp(l->kind, "transformer") == 0;
}

int
bl_uniform_split(const struct layer_graph *g, int S, struct plan_stage *st)
{
	size_t lo = g->n, hi = 0, L, row;

	for (size_t i = 0; i < g->n; i++)
		if (is_transformer(&g->l[i])) {
			if (lo == g->n)
				lo = i;
			hi = i;
		}
	if (lo == g->n) {		/* no kinds: every row counts */
		lo = 0;
		hi = g->n - 1;
	}
	L = hi - lo + 1;
	if (S < 1 || (size_t)S > L)
		return -1;
	row = lo;
	for (int s = 0; s < S; s++) {
		size_t take = L / (size_t)S + ((size_t)s < L % (size_t)S);

		st[s].first = s == 0 ? 0 : row;
		row += take;
		st[s].last = s == S - 1 ? g->n - 1 : row - 1;
		st[s].z = 1;
		st[s].zero_stage = 0;
	}
	return 0;
}

const struct layer_graph *
bl_find_variant(const struct variants *vs, long t, long e, long c, long sp)
{
	for (size_t i = 0; i < vs->n; i++) {
		const struct layer_graph *g = &vs->g[i];
		long gt = g->has_variant ? g->var_t : 1;
		long ge = g->has_variant ? g->var_e : 1;
		long gc = g->has_variant ? g->var_c : 1;
		long gsp = g->has_variant ? g->var_sp : 0;

		/* the baselines' experts split as their dense part (et = t) */
		if (gt == t && ge == e && gc == c && gsp == sp &&
		    layers_expert_t(g) == gt && g->var_fp8 == FP8_NONE)
			return g;
	}
	return NULL;
}

/* (t, e, c, sp, b, w) of a graph. */
struct vinfo {
	long t, e, c, sp, b, w;
};

static struct vinfo
vinfo_of(const struct layer_graph *g)
{
	struct vinfo v = { 1, 1, 1, 0, 1, 1 };

	if (g->has_variant) {
		v.t = g->var_t;
		v.e = g->var_e;
		v.c = g->var_c;
		v.sp = g->var_sp;
		v.b = g->var_b;
	}
	v.w = v.t * v.e * v.c;
	return v;
}

/* The step of a plan, INFINITY when it is not a valid plan; *fits. */
/* How a baseline's plan runs: the runtime's settings (the distributed
 * optimizer and overlap as plan_env says), recomputation as it chose,
 * no interleaving. */
static struct plan_mode
bl_mode(const struct plan_env *env, int recompute)
{
	struct plan_mode m = { recompute, 1, env->distopt, env->overlap,
		env->overlap && env->distopt, 0, env->tp_overlap, 0, 0, PLAN_1F1B,
		PLAN_FSDP_OFF, 0, 0, 0 };

	return m;
}

/* Stamp a baseline's plan with the runtime's settings, then price it. */
static double
score(const struct plan_env *env, struct plan *p, int *fits)
{
	struct plan_mode m = bl_mode(env, p->recompute);
	struct plan_result res;
	struct pl_err err;
	double step;

	p->v = m.v;
	p->distopt = m.distopt;
	p->overlap_grad = m.overlap_grad;
	p->overlap_param = m.overlap_param;
	p->tp_overlap = plan_records_tp_overlap(&m, p->g);
	*fits = 0;
	if (plan_evaluate(env, p, &res, &err) < 0)
		return INFINITY;
	step = res.step_s;
	*fits = res.fits;
	plan_result_release(&res);
	return step;
}

static void
keep_plan(struct bl_result *r, const struct plan *p)
{
	if (r->has_plan)
		free(r->plan.stage);
	r->plan = *p;
	r->plan.stage = xcalloc((size_t)p->nstages, sizeof *p->stage);
	memcpy(r->plan.stage, p->stage, (size_t)p->nstages * sizeof *p->stage);
	r->has_plan = 1;
}

/* Data-parallel degree that fills the devices, within the batch. */
static long
fill_d(const struct plan_env *env, long w, long S, long b)
{
	return lmin(env->devices / (w * S), env->global_batch / b);
}

/* ---- manual: Megatron-LM practice ------------------------------------ */

int
bl_manual(const struct plan_env *env, const struct variants *vs,
    struct bl_result *r)
{
	long node = bl_node_devices(env->net), best_mp = 0;
	struct vinfo bv = { 0 };

	memset(r, 0, sizeof *r);
	for (size_t i = 0; i < vs->n; i++) {
		const struct layer_graph *g = &vs->g[i];
		struct vinfo v = vinfo_of(g);
		struct plan_stage *st = xcalloc(g->n, sizeof *st);

		/* Megatron: t (with sequence parallelism) and e inside a node,
		 * no context parallelism */
		if (v.c != 1 || v.sp != (v.t > 1) || v.w > node) {
			free(st);
			continue;
		}
		for (int S = 1; S * v.w <= env->devices; S++) {
			struct plan p = { .g = g, .d = fill_d(env, v.w, S, v.b),
			    .recompute = 0, .nstages = S, .stage = st };
			int fits = 0;

			if (p.d < 1 || bl_uniform_split(g, S, st) < 0)
				break;
			/* Megatron: t * p divides the world size */
			if (env->devices % (v.w * S) != 0)
				continue;
			for (p.recompute = RC_NONE; p.recompute <= RC_FULL;
			    p.recompute++) {
				if (isfinite(score(env, &p, &fits)) && fits)
					break;
			}
			if (!fits)
				continue;
			/* the smallest model-parallel group; then small t, e */
			if (!r->has_plan || v.w * S < best_mp ||
			    (v.w * S == best_mp && (v.t < bv.t ||
			    (v.t == bv.t && v.e < bv.e)))) {
				keep_plan(r, &p);
				best_mp = v.w * S;
				bv = v;
			}
			break;
		}
		free(st);
	}
	if (!r->has_plan) {
		r->status = BL_OOM;
		snprintf(r->note, sizeof r->note, "no tensor width within a "
		    "node and even pipeline split fits in memory");
	}
	return 0;
}

/* ---- a published fixed plan ----------------------------------------- */

int
bl_published(const struct plan_env *env, const struct variants *vs,
    long p, long d, long t, long e, int recompute, struct bl_result *r)
{
	const struct layer_graph *g = bl_find_variant(vs, t, e, 1, 0);
	struct plan pl;
	int fits;

	memset(r, 0, sizeof *r);
	r->status = BL_INFEASIBLE;
	if (g == NULL) {
		snprintf(r->note, sizeof r->note, "no graph for t = %ld, e = %ld",
		    t, e);
		return 0;
	}
	if (p * d * t * e > env->devices) {
		snprintf(r->note, sizeof r->note, "p d t e = %ld x %ld x %ld x "
		    "%ld needs more than the %ld devices", p, d, t, e,
		    env->devices);
		return 0;
	}
	if (d * vinfo_of(g).b > env->global_batch) {
		snprintf(r->note, sizeof r->note, "d = %ld exceeds the batch", d);
		return 0;
	}
	pl = (struct plan){ .g = g, .d = d,
	    .recompute = recompute, .nstages = (int)p,
	    .stage = xcalloc((size_t)p, sizeof(struct plan_stage)) };
	if (bl_uniform_split(g, (int)p, pl.stage) < 0) {
		free(pl.stage);
		snprintf(r->note, sizeof r->note, "p = %ld stages exceed the "
		    "layers", p);
		return 0;
	}
	score(env, &pl, &fits);
	keep_plan(r, &pl);
	free(pl.stage);
	r->status = fits ? BL_OK : BL_OOM;
	if (!fits)
		snprintf(r->note, sizeof r->note, "the published plan does "
		    "not fit in memory");
	return 0;
}

/* ---- mcmc: Metropolis search over the same plan space --------------- */

/* splitmix64: a small, well-mixed generator; the seed is the state. */
static unsigned long long
rng_next(unsigned long long *s)
{
	unsigned long long z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static long
rng_below(unsigned long long *s, long n)
{
	return n <= 1 ? 0 : (long)(rng_next(s) % (unsigned long long)n);
}

static double
rng_unit(unsigned long long *s)
{
	return (double)(rng_next(s) >> 11) * (1.0 / 9007199254740992.0);
}

/* A state of the chain: variant, d, recomputation, stage starts. */
struct mc_state {
	size_t vi;
	long d;
	int rc, S;
	size_t *start;		/* S + 1 entries, start[S] = rows */
};

static void
mc_copy(struct mc_state *to, const struct mc_state *from, size_t cap)
{
	size_t *buf = to->start;

	*to = *from;
	to->start = buf;
	memcpy(to->start, from->start, cap * sizeof *buf);
}

/* Price a state (penalised when it does not fit); fills *p's stages. */
static double
mc_cost(const struct plan_env *env, const struct variants *vs,
    const struct mc_state *x, struct plan *p, int *fits)
{
	double step;

	*p = (struct plan){ .g = &vs->g[x->vi], .d = x->d,
	    .recompute = x->rc, .nstages = x->S, .stage = p->stage };
	for (int s = 0; s < x->S; s++)
		p->stage[s] = (struct plan_stage){ x->start[s],
		    x->start[s + 1] - 1, 1, 0, 0 };
	step = score(env, p, fits);
	return *fits ? step : 8 * step;	/* lets a chain walk out of OOM */
}

/* One random move; returns 0 when it leaves the plan space. */
static int
mc_propose(const struct plan_env *env, const struct variants *vs,
    struct mc_state *x, unsigned long long *rs)
{
	long maxd;

	switch (rng_below(rs, 6)) {
	case 0:		/* another variant */
		x->vi = (size_t)rng_below(rs, (long)vs->n);
		break;
	case 1: {	/* d */
		long k = rng_below(rs, 3);

		x->d = k == 0 ? x->d * 2 : k == 1 ? x->d / 2 :
		    1 + rng_below(rs, fill_d(env, vinfo_of(&vs->g[x->vi]).w,
		    x->S, vinfo_of(&vs->g[x->vi]).b));
		break;
	}
	case 2: {	/* move a stage boundary */
		int k;
		long shift, to;

		if (x->S < 2)
			return 0;
		k = 1 + (int)rng_below(rs, x->S - 1);
		shift = 1 + rng_below(rs, 3);
		to = (long)x->start[k] + (rng_below(rs, 2) ? shift : -shift);
		if (to <= (long)x->start[k - 1] || to >= (long)x->start[k + 1])
			return 0;
		x->start[k] = (size_t)to;
		break;
	}
	case 3: {	/* split a stage */
		int k = (int)rng_below(rs, x->S);
		size_t len = x->start[k + 1] - x->start[k];

		if (len < 2)
			return 0;
		memmove(&x->start[k + 2], &x->start[k + 1],
		    (size_t)(x->S - k) * sizeof *x->start);
		x->start[k + 1] = x->start[k] + 1 +
		    (size_t)rng_below(rs, (long)len - 1);
		x->S++;
		break;
	}
	case 4: {	/* merge two stages */
		int k;

		if (x->S < 2)
			return 0;
		k = 1 + (int)rng_below(rs, x->S - 1);
		memmove(&x->start[k], &x->start[k + 1],
		    (size_t)(x->S - k) * sizeof *x->start);
		x->S--;
		break;
	}
	default:
		x->rc = !x->rc;
	}
	maxd = fill_d(env, vinfo_of(&vs->g[x->vi]).w, x->S,
	    vinfo_of(&vs->g[x->vi]).b);
	if (maxd < 1)
		return 0;
	if (x->d > maxd)
		x->d = maxd;
	if (x->d < 1)
		x->d = 1;
	return 1;
}

/* A random starting plan: even rows over S stages, d filling the rest. */
static void
mc_start(const struct plan_env *env, const struct variants *vs,
    struct mc_state *x, unsigned long long *rs)
{
	for (int tries = 0; tries < 64; tries++) {
		struct vinfo v;
		size_t rows;
		long maxS;

		x->vi = (size_t)rng_below(rs, (long)vs->n);
		v = vinfo_of(&vs->g[x->vi]);
		rows = vs->g[x->vi].n;
		maxS = lmin((long)rows, env->devices / v.w);
		if (maxS < 1)
			continue;
		x->S = 1 + (int)rng_below(rs, maxS);
		for (int s = 0; s <= x->S; s++)
			x->start[s] = rows * (size_t)s / (size_t)x->S;
		x->d = fill_d(env, v.w, x->S, v.b);
		x->rc = (int)rng_below(rs, 2);
		if (x->d >= 1)
			return;
	}
	x->S = 0;
}

int
bl_mcmc(const struct plan_env *env, const struct variants *vs,
    unsigned long seed, int chains, int steps, struct bl_result *r)
{
	size_t cap = vs->g[0].n + 2;
	struct mc_state cur, next;
	struct plan p = { 0 };
	double best = INFINITY;

	memset(r, 0, sizeof *r);
	cur.start = xcalloc(cap, sizeof *cur.start);
	next.start = xcalloc(cap, sizeof *next.start);
	p.stage = xcalloc(cap, sizeof *p.stage);
	for (int ch = 0; ch < chains; ch++) {
		unsigned long long rs = (unsigned long long)seed * 1000003ULL +
		    (unsigned long long)ch;
		double c;
		int fits;

		mc_start(env, vs, &cur, &rs);
		if (cur.S == 0)
			continue;
		c = mc_cost(env, vs, &cur, &p, &fits);
		for (int it = 0; it < steps; it++) {
			/* temperature 0.1 -> 0.001 of the current step */
			double temp = 0.1 * pow(0.01, (double)it / steps), cn;

			mc_copy(&next, &cur, cap);
			if (!mc_propose(env, vs, &next, &rs))
				continue;
			cn = mc_cost(env, vs, &next, &p, &fits);
			if (fits && cn < best) {
				best = cn;
				keep_plan(r, &p);
			}
			if (cn <= c || (isfinite(cn) &&
			    rng_unit(&rs) < exp(-(cn - c) / (temp * c)))) {
				mc_copy(&cur, &next, cap);
				c = cn;
			}
		}
	}
	free(cur.start);
	free(next.start);
	free(p.stage);
	if (!r->has_plan) {
		r->status = BL_OOM;
		snprintf(r->note, sizeof r->note, "no chain found a plan that "
		    "fits in memory");
	}
	return 0;
}

/* ---- nest, and phaze: the exact DP on a flat network ---------------- */

int
bl_nest(const struct plan_env *env, const struct variants *vs, int zero,
    struct bl_result *r, struct pl_err *err)
{
	const struct layer_graph **gp = xcalloc(vs->n, sizeof *gp);
	struct dp_options o = { .recompute_min = RC_NONE,
	    .recompute_max = RC_SELECTIVE, .zero = zero, .zmax = 64,
	    .vmax = NEST_VMAX, .distopt_max = 1, .overlap = env->overlap,
	    .tp_overlap = env->tp_overlap, .sched_min = PLAN_1F1B,
	    .sched_max = PLAN_1F1B };
	struct dp_stats st;
	double step;
	int rc;

	memset(r, 0, sizeof *r);
	for (size_t i = 0; i < vs->n; i++)
		gp[i] = &vs->g[i];
	rc = dp_solve(env, gp, vs->n, &o, &r->plan, &step, &st, err);
	free(gp);
	if (rc < 0)
		return -1;
	r->has_plan = rc == 0;
	if (rc == 1) {
		r->status = BL_OOM;
		snprintf(r->note, sizeof r->note, "no plan fits%s",
		    zero == DP_ZERO_OFF ? " without ZeRO" : ", ZeRO included");
	}
	return 0;
}

int
bl_phaze(const struct plan_env *env, const struct variants *vs,
    struct bl_result *r, struct pl_err *err)
{
	struct network flat;
	struct plan_env fenv = *env;

	network_flatten(env->net, &flat);
	fenv.net = &flat;
	return bl_nest(&fenv, vs, DP_ZERO_AUTO, r, err);
}

/* ---- alpa: equal submeshes, minimax stages, memory afterwards -------- */

void
network_two_level(const struct network *net, struct network *out)
{
	*out = *net;
	if (net->nlevels <= 2)
		return;
	out->nlevels = 2;
	out->level[1].fanout = net->ndevices / net->span[0];
	out->level[1].oversubscription = 1;
	out->span[1] = net->ndevices;
}

/* Greedy packing of rows into exactly S stages of load <= T. */
static int
alpa_pack(struct plan_cell *c, size_t rows, int S, double T,
    struct plan_stage *st)
{
	size_t i = 0;

	for (int u = 0; u < S; u++) {
		size_t j = u == S - 1 ? rows - 1 : i;
		struct stage_cost sc;

		if (i + (size_t)(S - u) > rows)
			return 0;
		/* the longest run from i under T that leaves a row for
		 * each later stage */
		if (u < S - 1)
			while (j + 1 < rows - (size_t)(S - 1 - u)) {
				plan_stage_price(c, i, j + 1, u, 1, 0, S - u,
				    &sc);
				if (sc.load_s > T)
					break;
				j++;
			}
		plan_stage_price(c, i, j, u, 1, 0, S - u, &sc);
		if (sc.load_s > T)
			return 0;
		st[u] = (struct plan_stage){ i, j, 1, 0, 0 };
		i = j + 1;
	}
	return 1;
}

/* Alpa's latency of a partition: sum of stages + (m - 1) max + sync. */
static double
alpa_latency(struct plan_cell *c, int S, const struct plan_stage *st)
{
	double sum = 0, max = 0, sync = 0;

	for (int u = 0; u < S; u++) {
		struct stage_cost sc;

		plan_stage_price(c, st[u].first, st[u].last, u, 1, 0, S - u,
		    &sc);
		sum += sc.load_s;
		max = fmax(max, sc.load_s);
		sync = fmax(sync, sc.sync_s);
	}
	return sum + (double)(c->m - 1) * max + sync;
}

/* The minimax partition of one (variant, S, d) under the two-level
 * view; returns Alpa's latency, INFINITY when S stages do not fit. */
static double
alpa_partition(const struct plan_env *env2, const struct layer_graph *g,
    long d, int S, struct plan_stage *st)
{
	struct plan_variant v;
	struct plan_cell c;
	struct plan_mode mode = bl_mode(env2, S > 1);
	struct stage_cost sc;
	double lo = 0, hi, lat = INFINITY;

	if ((size_t)S > g->n || plan_variant_init(&v, env2, g, NULL) < 0)
		return INFINITY;
	plan_cell_init(&c, env2, &v, d, S, &mode);
	plan_stage_price(&c, 0, g->n - 1, 0, 1, 0, 1, &sc);
	hi = 4 * sc.load_s + 1;
	if (alpa_pack(&c, g->n, S, hi, st)) {
		for (int it = 0; it < 60 && hi - lo > 1e-9 * hi; it++) {
			double mid = 0.5 * (lo + hi);

			if (alpa_pack(&c, g->n, S, mid, st))
				hi = mid;
			else
				lo = mid;
		}
		alpa_pack(&c, g->n, S, hi, st);
		lat = alpa_latency(&c, S, st);
	}
	plan_cell_release(&c);
	plan_variant_release(&v);
	return lat;
}

/* Alpa's submesh shapes: a power of two inside a node, or whole nodes. */
static int
alpa_submesh(long n, long node)
{
	return n < node ? (n & (n - 1)) == 0 : n % node == 0;
}

int
bl_alpa(const struct plan_env *env, const struct variants *vs,
    struct bl_result *r)
{
	struct network two;
	struct plan_env env2 = *env;
	size_t cap = vs->g[0].n;
	struct plan_stage *st = xcalloc(cap, sizeof *st);
	struct plan best = { 0 };
	double best_lat = INFINITY;
	long node = bl_node_devices(env->net);
	int fits = 0;

	memset(r, 0, sizeof *r);
	network_two_level(env->net, &two);
	env2.net = &two;
	best.stage = xcalloc(cap, sizeof *best.stage);
	for (size_t i = 0; i < vs->n; i++) {
		const struct layer_graph *g = &vs->g[i];
		struct vinfo v = vinfo_of(g);

		/* intra-operator sharding: tensor and expert, no sp/cp */
		if (v.c != 1 || v.sp != 0)
			continue;
		for (int S = 1; (size_t)S <= g->n && S * v.w <= env->devices;
		    S *= 2) {
			long sub = env->devices / S, d = sub / v.w;
			double lat;

			if (env->devices % S || sub % v.w || !alpa_submesh(sub,
			    node) || d * v.b > env->global_batch)
				continue;
			lat = alpa_partition(&env2, g, d, S, st);
			if (lat < best_lat) {
				best_lat = lat;
				best = (struct plan){ .g = g, .d = d,
				    .recompute = S > 1, .nstages = S,
				    .stage = best.stage };
				memcpy(best.stage, st, (size_t)S * sizeof *st);
			}
		}
	}
	/* memory only now: shard further until the plan fits - a wider
	 * tensor-parallel variant, else twice the stages (half the d) */
	while (best.g != NULL) {
		struct vinfo v = vinfo_of(best.g);
		const struct layer_graph *g2 = bl_find_variant(vs, 2 * v.t, v.e,
		    v.c, v.sp);
		int S = best.nstages;

		score(env, &best, &fits);
		if (fits)
			break;
		if (g2 != NULL && best.d % 2 == 0)
			best.g = g2;
		else if ((size_t)(2 * S) <= best.g->n && best.d % 2 == 0)
			S *= 2;
		else
			break;
		best.d /= 2;
		best.nstages = S;
		best.recompute = S > 1;
		if (isinf(alpa_partition(&env2, best.g, best.d, S, best.stage)))
			break;
	}
	if (best.g != NULL)
		keep_plan(r, &best);
	if (!r->has_plan) {
		r->status = BL_INFEASIBLE;
		snprintf(r->note, sizeof r->note, "no submesh layout");
	} else if (!fits) {
		r->status = BL_OOM;
		snprintf(r->note, sizeof r->note, "does not fit in memory, "
		    "even sharded further");
	}
	free(st);
	free(best.stage);
	return 0;
}

/* ---- mist: a MILP for uneven stages, memory-aware, flat network ----- */

/*
 * Mist's view of the model: L identical transformer layers between a
 * prologue (rows before them: embedding) that stays with the first stage
 * and an epilogue (rows after them: the head) that stays with the last.
 * Its MILP chooses how many layers n_s each stage gets.  Costs are those
 * of the flat network, per micro-batch, for one (variant, d, S, rc).
 */
struct mist_in {
	int S;
	long L, m;
	size_t lo, hi;		/* the transformer rows [lo, hi] */
	/* per layer (the mean over the transformer rows), prologue, epilogue */
	double cost[3], param[3], act[3], sync[3];
	double sync_alpha;	/* the all-reduce's latency, once a stage */
	double p2p;		/* a boundary between two layers, both ways */
	double cut_layer;	/* bytes entering a stage */
	double working;		/* the largest layer being recomputed */
	struct mem_stage ms;	/* Eq. 1 of a stage; its position varies */
	const struct plan_env *env;
	int rc;
};

enum { MI_LAYER, MI_PRO, MI_EPI };

/* Branch and bound stops after a fixed number of subproblems, not after a
 * time: the same input gives the same plan on any machine. */
#define MIST_NODE_LIMIT 2000

static void
mist_callback(glp_tree *tree, void *info)
{
	long *nodes = info;

	if (glp_ios_reason(tree) == GLP_ISELECT && ++*nodes > MIST_NODE_LIMIT)
		glp_ios_terminate(tree);
}

/* A row: coef * n_s + coefT * T (or Y) <= / >= rhs. */
static void
mist_row(glp_prob *lp, int type, double rhs, int ns, double coef, int other,
    double coef_other)
{
	int r = glp_add_rows(lp, 1), ind[3] = { 0, ns, other };
	double val[3] = { 0, coef, coef_other };

	glp_set_row_bnds(lp, r, type, rhs, rhs);
	glp_set_mat_row(lp, r, other ? 2 : 1, ind, val);
}

/*
 * Solve the MILP over (n_1..n_S); the stage sizes in st, the objective
 * returned (INFINITY when no split fits in memory).
 */
static double
mist_milp(const struct mist_in *in, double seconds, const struct layer_graph *g,
    struct plan_stage *st)
{
	int S = in->S, T = S + 1, Y = S + 2, rc;
	glp_prob *lp = glp_create_prob();
	double obj = INFINITY;
	glp_iocp iocp;
	long nodes = 0;

	glp_set_obj_dir(lp, GLP_MIN);
	glp_add_cols(lp, S + 2);
	for (int s = 1; s <= S; s++) {
		glp_set_col_kind(lp, s, GLP_IV);
		glp_set_col_bnds(lp, s, GLP_DB, 1, (double)(in->L - S + 1));
	}
	glp_set_col_bnds(lp, T, GLP_LO, 0, 0);
	glp_set_col_bnds(lp, Y, GLP_LO, 0, 0);
	glp_set_obj_coef(lp, T, (double)(in->m + S - 1));
	glp_set_obj_coef(lp, Y, 1);
	{	/* sum n_s = L */
		int r = glp_add_rows(lp, 1), *ind = xcalloc((size_t)S + 1,
		    sizeof *ind);
		double *val = xcalloc((size_t)S + 1, sizeof *val);

		for (int s = 1; s <= S; s++)
			ind[s] = s, val[s] = 1;
		glp_set_row_bnds(lp, r, GLP_FX, (double)in->L, (double)in->L);
		glp_set_mat_row(lp, r, S, ind, val);
		free(ind);
		free(val);
	}
	for (int s = 0; s < S; s++) {
		struct mem_stage ms = in->ms;
		struct mem_breakdown mb;
		struct mem_totals unit_params = { 1, 1, 0, 0, 0 };
		double fix_cost = 0, fix_param = 0, fix_act = 0, fix_sync = 0;
		double coefP, inflight;

		if (s == 0) {
			fix_cost += in->cost[MI_PRO];
			fix_param += in->param[MI_PRO];
			fix_act += in->act[MI_PRO];
			fix_sync += in->sync[MI_PRO];
		}
		if (s == S - 1) {
			fix_cost += in->cost[MI_EPI];
			fix_param += in->param[MI_EPI];
			fix_act += in->act[MI_EPI];
			fix_sync += in->sync[MI_EPI];
		}
		fix_cost += (s > 0 ? in->p2p : 0) + (s < S - 1 ? in->p2p : 0);

		/* load: cost n_s + fixed <= T */
		mist_row(lp, GLP_UP, -fix_cost, s + 1, in->cost[MI_LAYER], T, -1);

		/* memory: Eq. 1 is linear in the parameters and in the
		 * activations kept a micro-batch (in flight times over), plus
		 * the one layer being recomputed; the coefficients depend on
		 * the position from the end */
		ms.position_from_end = S - s;
		mem_breakdown_of(&unit_params, &ms, in->env->optimizer, &mb);
		coefP = mb.total;
		inflight = mem_inflight(&ms);
		mist_row(lp, GLP_UP, in->env->memory_bytes - coefP * fix_param -
		    inflight * fix_act - in->working, s + 1,
		    coefP * in->param[MI_LAYER] + inflight * in->act[MI_LAYER],
		    0, 0);

		/* sync: alpha + per layer n_s + fixed <= Y */
		mist_row(lp, GLP_UP, -in->sync_alpha - fix_sync, s + 1,
		    in->sync[MI_LAYER], Y, -1);
	}
	glp_term_out(GLP_OFF);
	glp_init_iocp(&iocp);
	iocp.presolve = GLP_ON;
	iocp.tm_lim = (int)(seconds * 1000);	/* a safety net only */
	iocp.cb_func = mist_callback;
	iocp.cb_info = &nodes;
	rc = glp_intopt(lp, &iocp);
	if ((rc == 0 || rc == GLP_ETMLIM || rc == GLP_ESTOP) &&
	    (glp_mip_status(lp) == GLP_OPT || glp_mip_status(lp) == GLP_FEAS)) {
		size_t row = in->lo;

		obj = glp_mip_obj_val(lp);
		for (int s = 0; s < S; s++) {
			long ns = lround(glp_mip_col_val(lp, s + 1));

			st[s].first = s == 0 ? 0 : row;
			row += (size_t)ns;
			st[s].last = s == S - 1 ? g->n - 1 : row - 1;
			st[s].z = 1;
			st[s].zero_stage = 0;
		}
	}
	glp_delete_prob(lp);
	return obj;
}

/* The costs Mist sees for one (variant, d, S, rc) on the flat network;
 * returns -1 when the graph has no transformer rows. */
static int
mist_prepare(struct mist_in *in, const struct plan_env *fenv,
    const struct plan_variant *v, struct plan_cell *c, int S)
{
	const struct layer_graph *g = v->g;
	size_t lo = g->n, hi = 0;
	double all;

	for (size_t i = 0; i < g->n; i++)
		if (is_transformer(&g->l[i])) {
			lo = lo == g->n ? i : lo;
			hi = i;
		}
	if (lo == g->n)
		return -1;
	memset(in->cost, 0, sizeof in->cost);
	memset(in->param, 0, sizeof in->param);
	memset(in->act, 0, sizeof in->act);
	memset(in->sync, 0, sizeof in->sync);
	in->lo = lo;
	in->hi = hi;
	in->L = (long)(hi - lo + 1);
	in->S = S;
	in->m = c->m;
	in->env = fenv;
	all = plan_stage_sync(c, 0, g->n - 1, 0);
	in->sync_alpha = 0;
	for (size_t i = 0; i < g->n; i++) {
		int k = i < lo ? MI_PRO : i > hi ? MI_EPI : MI_LAYER;
		double w = k == MI_LAYER ? 1.0 / (double)in->L : 1;
		double sync = plan_stage_sync(c, i, i, 0);
		struct stage_cost sc;

		plan_stage_price(c, i, i, 0, 1, 0, 1, &sc);
		in->cost[k] += w * (sc.compute_s + sc.collective_s);
		in->param[k] += w * g->l[i].parameter_bytes;
		in->act[k] += w * mem_row_kept(&g->l[i], in->rc);
		in->working = fmax(in->working, g->l[i].activation_bytes -
		    mem_row_kept(&g->l[i], in->rc));
		in->sync[k] += w * sync;
		in->sync_alpha += sync;
	}
	/* a sync is alpha + beta * bytes: alpha from the sum of the rows'
	 * syncs against the whole model's */
	in->sync_alpha = g->n > 1 ? fmax(0, (in->sync_alpha - all) /
	    (double)(g->n - 1)) : 0;
	for (int k = 0; k < 3; k++)
		in->sync[k] = fmax(0, in->sync[k] - (k == MI_LAYER ?
		    in->sync_alpha / (double)in->L : in->sync_alpha));
	in->cut_layer = v->cut[lo + (hi > lo)];
	in->p2p = 2 * net_time(net_p2p(fenv->net, 0), in->cut_layer);
	/* the position from the end is set per stage */
	in->ms = plan_mem_stage(c, lo, hi, 1, 0, 1);
	return 0;
}

int
bl_mist(const struct plan_env *env, const struct variants *vs,
    double milp_seconds, struct bl_result *r)
{
	struct network flat;
	struct plan_env fenv = *env;
	size_t n = vs->g[0].n;
	struct plan_stage *st = xcalloc(n, sizeof *st);
	struct plan best = { 0 };
	double best_obj = INFINITY;
	int fits = 0;

	memset(r, 0, sizeof *r);
	network_flatten(env->net, &flat);
	fenv.net = &flat;
	best.stage = xcalloc(n, sizeof *best.stage);
	for (size_t gi = 0; gi < vs->n; gi++) {
		const struct layer_graph *g = &vs->g[gi];
		struct vinfo vi = vinfo_of(g);
		struct plan_variant v;

		/* Megatron tensor parallelism; no experts, no context */
		if (vi.c != 1 || vi.e != 1 || plan_variant_init(&v, &fenv, g,
		    NULL) < 0)
			continue;
		for (int rc = 0; rc <= 1; rc++)
			for (int S = 1; (size_t)S <= n && S * vi.w <=
			    env->devices; S *= 2) {
				long d = fill_d(env, vi.w, S, vi.b);
				struct mist_in in = { .rc = rc };
				struct plan_cell c;
				double obj;

				struct plan_mode mode = bl_mode(env, rc);

				if (d < 1)
					continue;
				plan_cell_init(&c, &fenv, &v, d, S, &mode);
				if (mist_prepare(&in, &fenv, &v, &c, S) == 0 &&
				    in.L >= S) {
					obj = mist_milp(&in, milp_seconds, g, st);
					if (obj < best_obj) {
						best_obj = obj;
						best = (struct plan){ .g = g, .d = d,
						    .recompute = rc, .nstages = S,
						    .stage = best.stage };
						memcpy(best.stage, st,
						    (size_t)S * sizeof *st);
					}
				}
				plan_cell_release(&c);
			}
		plan_variant_release(&v);
	}
	if (best.g != NULL) {
		score(env, &best, &fits);
		keep_plan(r, &best);
		if (!fits) {
			r->status = BL_OOM;
			snprintf(r->note, sizeof r->note, "the MILP's plan does "
			    "not fit under the full memory model");
		}
	} else {
		r->status = BL_OOM;
		snprintf(r->note, sizeof r->note, "no split fits in memory");
	}
	free(st);
	free(best.stage);
	return 0;
}
