/* dp.c - branch and bound over cells, a Pareto suffix DP in each (dp.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dp.h"

int
dp_stage_zero(const struct plan_cell *c, size_t first, size_t last, long k,
    int zero_on, long zmax, long *z, int *zs)
{
	struct mem_breakdown mem;

	*z = 1;
	*zs = 0;
	if (plan_stage_memory(c, first, last, 1, 0, k, &mem))
		return 0;
	if (!zero_on)
		return -1;
	for (*z = 2; *z <= zmax; *z *= 2)
		for (*zs = 1; *zs <= 3; (*zs)++)
			if (plan_stage_memory(c, first, last, *z, *zs, k, &mem))
				return 0;
	return -1;
}

/* A suffix: its last-placed (first) stage and the rest through parent. */
struct point {
	double L, Y;		/* max load / z, max sync */
	long y;			/* slots used */
	int parent, next;	/* pool indices; next: in the state's list */
	int j;			/* the stage's first row */
	int z, zs, dead;
};

/* A cell: 40 bytes, as large searches list tens of millions. */
struct cell_key {
	double lb, lb_sync;
	unsigned order;		/* its place in the listing: ties by it */
	unsigned short variant;
	unsigned char mode;	/* index into search.modes */
	long d, K;
};

struct search {
	const struct plan_env *env;
	const struct dp_options *o;
	struct plan_variant *v;
	int zero_on;
	double best;
	struct plan *plan;
	struct point *pool;
	size_t npool, cappool;
	int *head;		/* [k * (n+1) + j] */
	size_t nhead;
	long states;
	double *alpha_floor;	/* [n]: least all-reduce latency over n */
	struct plan_shape_cache shapes;
	struct plan_mode *modes;	/* the run modes searched */
	size_t nmodes;
};

static int
push(struct search *s, struct point p)
{
	if (s->npool == s->cappool) {
		s->cappool = s->cappool ? 2 * s->cappool : 1024;
		s->pool = xrealloc(s->pool, s->cappool * sizeof *s->pool);
	}
	s->pool[s->npool] = p;
	return (int)s->npool++;
}

/* Insert into a state's list unless a point with the same y dominates. */
static void
insert(struct search *s, int *head, struct point p)
{
	for (int i = *head; i >= 0; i = s->pool[i].next) {
		struct point *q = &s->pool[i];

		if (q->dead || q->y != p.y)
			continue;
		if (q->L <= p.L && q->Y <= p.Y)
			return;
		if (p.L <= q->L && p.Y <= q->Y)
			q->dead = 1;
	}
	p.next = *head;
	*head = push(s, p);
	s->states++;
}

static void
record(struct search *s, const struct plan_cell *c, int last_point)
{
	int S = 0;

	for (int i = last_point; s->pool[i].parent >= 0; i = s->pool[i].parent)
		S++;
	free(s->plan->stage);
	s->plan->stage = xcalloc((size_t)S, sizeof *s->plan->stage);
	s->plan->nstages = S;
	s->plan->g = c->v->g;
	s->plan->d = c->d;
	s->plan->recompute = c->mode.recompute;
	s->plan->v = c->mode.v;
	s->plan->distopt = c->mode.distopt;
	s->plan->overlap_grad = c->mode.overlap_grad;
	s->plan->overlap_param = c->mode.overlap_param;
	s->plan->ends_in_split = c->mode.ends_in_split;
	for (int i = last_point, k = 0; s->pool[i].parent >= 0;
	    i = s->pool[i].parent, k++) {
		const struct point *p = &s->pool[i];
		struct plan_stage *st = &s->plan->stage[k];

		st->first = (size_t)p->j;
		st->last = (size_t)s->pool[p->parent].j - 1;
		st->z = p->z;
		st->zero_stage = p->zs;
	}
}

/* Rows [jj, j) split into nv model chunks of equal, non-zero layers. */
static int
chunks_fit(const struct plan_variant *v, int jj, int j, long nv, int ends)
{
	long layers = layers_split_count(v->g, (size_t)jj, (size_t)j - 1, ends);

	return layers > 0 && layers % nv == 0;
}

static void
search_cell(struct search *s, struct plan_cell *c)
{
	const struct plan_variant *v = c->v;
	int n = (int)v->g->n;
	long K = c->K, m = c->m, nv = c->mode.v;
	long smax = K < n ? K : n;
	long zcap = s->zero_on ? (s->o->zmax < K ? s->o->zmax : K) : 1;
	/* without ZeRO every stage has one slot, so S = K: the multiplier
	 * of the slowest stage is known from the start */
	double mult_fixed = (double)m + (double)(K - 1) / (double)nv;

	s->npool = 0;
	memset(s->head, -1, (size_t)(smax + 1) * (size_t)(n + 1) *
	    sizeof *s->head);
	s->head[n] = push(s, (struct point){ 0, 0, 0, -1, -1, n, 1, 0, 0 });
	for (long k = 0; k < smax; k++) {
		for (int j = n; j >= 1; j--) {
			for (int pi = s->head[k * (n + 1) + j]; pi >= 0;
			    pi = s->pool[pi].next) {
				struct point p = s->pool[pi];

				if (p.dead)
					continue;
				for (int jj = j - 1; jj >= 0; jj--) {
					long stages_left = jj > 0;
					double comp, cmin;
					long z;
					int zs;
					struct stage_cost sc;
					struct point q;

					/* exactly K stages of one slot each
					 * without ZeRO: leave a row for each */
					if (!s->zero_on && (jj < K - k - 1 ||
					    (jj > 0 && k + 1 == K)))
						continue;
					comp = v->pf_fwd[j] - v->pf_fwd[jj] +
					    v->pf_bwd[j] - v->pf_bwd[jj];
					comp += v->pf_rerun[c->mode.recompute][j] -
					    v->pf_rerun[c->mode.recompute][jj];
					cmin = s->zero_on ? (double)(m + k) :
					    mult_fixed;
					if (cmin * comp / (double)zcap + p.Y >=
					    s->best)
						break;	/* longer only costs more */
					/* interleaved: v model chunks of equal
					 * layers a stage */
					if (nv > 1 && !chunks_fit(v, jj, j, nv,
					    c->mode.ends_in_split))
						continue;
					if (dp_stage_zero(c, (size_t)jj,
					    (size_t)j - 1, k + 1, s->zero_on,
					    zcap, &z, &zs) < 0)
						continue;
					if (p.y + z + stages_left > K)
						continue;
					plan_stage_price(c, (size_t)jj,
					    (size_t)j - 1, K - p.y - z, z, zs,
					    k + 1, &sc);
					q = p;
					q.L = fmax(p.L, sc.load_s / (double)z);
					q.Y = fmax(p.Y, sc.sync_s);
					q.y = p.y + z;
					q.parent = pi;
					q.j = jj;
					q.z = (int)z;
					q.zs = zs;
					q.dead = 0;
					if (jj == 0) {
						double T;

						if (q.y != K)
							continue;
						T = plan_step(m, (int)k + 1, nv,
						    q.L, q.Y);
						if (T < s->best) {
							s->best = T;
							record(s, c, push(s, q));
						}
						continue;
					}
					if ((s->zero_on ? (double)(m + k + 1) :
					    mult_fixed) * q.L + q.Y >= s->best)
						continue;
					insert(s, &s->head[(k + 1) * (n + 1) +
					    jj], q);
				}
			}
		}
	}
}

static int
cmp_cell(const void *a, const void *b)
{
	const struct cell_key *x = a, *y = b;

	if (x->lb != y->lb)
		return x->lb < y->lb ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* The modes a search tries: recomputation kinds x optimizers x
 * interleavings (v > 1 only without ZeRO, where S = K is known; the
 * embedding and head counted as layers of the split or not). */
static size_t
list_modes(const struct search *s, struct plan_mode *out)
{
	const struct dp_options *o = s->o;
	long vmax = s->zero_on || o->vmax < 1 ? 1 : o->vmax;
	size_t n = 0;

	for (int rc = o->recompute_min; rc <= o->recompute_max; rc++)
		for (int dopt = o->distopt_min; dopt <= o->distopt_max; dopt++)
			for (long nv = 1; nv <= vmax; nv++)
				for (int ends = 0; ends <= (nv > 1); ends++)
					out[n++] = (struct plan_mode){ rc, nv,
					    dopt, o->overlap, o->overlap &&
					    dopt, ends };
	return n;
}

/* Could a cell of K one-slot stages run v chunks a stage at all? */
static int
interleave_possible(const struct plan_variant *v, long K, long m,
    const struct plan_mode *md)
{
	long layers = layers_split_count(v->g, 0, v->g->n - 1,
	    md->ends_in_split);

	return md->v == 1 || (K > 1 && m % K == 0 && layers >= md->v * K);
}

/* Enumerate the cells of every variant with their lower bounds. */
static struct cell_key *
list_cells(struct search *s, size_t ng, size_t *ncells)
{
	struct cell_key *cells = NULL;
	size_t n = 0, cap = 0, nmodes;
	struct plan_mode *modes;

	free(s->modes);
	s->modes = modes = xcalloc((size_t)RC_N * 2 *
	    (size_t)(s->o->vmax > 1 ? 2 * s->o->vmax : 1), sizeof *modes);
	s->nmodes = nmodes = list_modes(s, modes);
	for (size_t vi = 0; vi < ng; vi++) {
		const struct plan_variant *v = &s->v[vi];
		size_t rows = v->g->n;
		long w = v->w;
		double fwd = v->pf_fwd[rows], bwd = v->pf_bwd[rows];

		if (w > s->env->devices)
			continue;
		for (size_t mi = 0; mi < nmodes; mi++) {
			const struct plan_mode *md = &modes[mi];
			long dmax = s->env->devices / w;
			double maxrow = 0, sync_floor_frac = 0;
			double total = fwd + bwd +
			    v->pf_rerun[md->recompute][rows];

			/* every step pays at least one stage's gradient
			 * reduction latency over d*c*e devices (halved for
			 * ZeRO-3), unless compute may hide it */
			if (v->pf_dense[rows] > 0 && !md->overlap_grad)
				sync_floor_frac = s->zero_on ? 0.5 : 1;
			for (size_t i = 0; i < rows; i++)
				maxrow = fmax(maxrow, v->g->l[i].forward_s +
				    v->g->l[i].backward_s + mem_row_rerun_s(
				    &v->g->l[i], md->recompute));
			if (dmax > s->env->global_batch / v->b)
				dmax = s->env->global_batch / v->b;
			for (long d = 1; d <= dmax; d++) {
				long m = plan_microbatches(
				    s->env->global_batch, v->b, d);
				long kmax = s->env->devices / (d * w);
				double lbs = sync_floor_frac *
				    s->alpha_floor[d * v->c * v->e];

				if (!s->zero_on && kmax > (long)rows)
					kmax = (long)rows;
				for (long K = 1; K <= kmax; K++) {
					double lb;

					if (!interleave_possible(v, K, m, md))
						continue;
					if (s->zero_on)
						lb = (double)m * fmax(total /
						    (double)K, maxrow /
						    (double)(s->o->zmax < K ?
						    s->o->zmax : K));
					else
						lb = plan_step(m, (int)K, md->v,
						    fmax(total / (double)K,
						    maxrow), 0);
					lb += lbs;
					if (n == cap) {
						cap = cap ? 2 * cap : 4096;
						cells = xrealloc(cells,
						    cap * sizeof *cells);
					}
					cells[n] = (struct cell_key){ lb, lbs,
					    (unsigned)n, (unsigned short)vi,
					    (unsigned char)mi, d, K };
					n++;
				}
			}
		}
	}
	qsort(cells, n, sizeof *cells, cmp_cell);
	*ncells = n;
	return cells;
}

static void
run(struct search *s, size_t ng, struct dp_stats *st)
{
	size_t ncells;
	struct cell_key *cells = list_cells(s, ng, &ncells);

	st->cells += (long)ncells;
	for (size_t i = 0; i < ncells && cells[i].lb < s->best; i++) {
		const struct plan_variant *v = &s->v[cells[i].variant];
		size_t last = v->g->n - 1;
		struct plan_cell c;

		plan_cell_init(&c, s->env, v, cells[i].d, cells[i].K,
		    &s->modes[cells[i].mode]);
		c.shared = &s->shapes;
		/* the first stage holds row 0 at slot 0 and the last the last
		 * row at slot K - 1: their syncs bound the step from below
		 * (ZeRO-free cells: with ZeRO the slots are not known; and
		 * only when no computation hides the syncs) */
		if (!s->zero_on && !c.mode.overlap_grad &&
		    cells[i].lb - cells[i].lb_sync +
		    fmax(plan_stage_sync(&c, 0, 0, 0), plan_stage_sync(&c,
		    last, last, c.K - 1)) >= s->best) {
			plan_cell_release(&c);
			continue;
		}
		search_cell(s, &c);
		plan_cell_release(&c);
		st->cells_searched++;
	}
	free(cells);
}

int
dp_solve(const struct plan_env *env, const struct layer_graph *const *g,
    size_t ng, const struct dp_options *o, struct plan *best, double *step_s,
    struct dp_stats *st, struct pl_err *err)
{
	struct search s = { .env = env, .o = o, .best = INFINITY,
	    .plan = best };
	size_t n = 0;
	int rc = 1;

	memset(st, 0, sizeof *st);
	memset(best, 0, sizeof *best);
	if (ng == 0)
		return pl_errf(err, NULL, 0, "no variant to search");
	if (ng > 65535)
		return pl_errf(err, NULL, 0, "%zu variants: at most 65535", ng);
	s.v = xcalloc(ng, sizeof *s.v);
	for (size_t i = 0; i < ng; i++) {
		if (plan_variant_init(&s.v[i], env, g[i], err) < 0) {
			ng = i;
			rc = -1;
			goto out;
		}
		if (g[i]->n > n)
			n = g[i]->n;
	}
	s.nhead = (n + 1) * (n + 1);
	s.head = xcalloc(s.nhead, sizeof *s.head);
	s.alpha_floor = net_allreduce_alpha_floor(env->net, env->devices);
	run(&s, ng, st);
	if (isinf(s.best) && o->zero == DP_ZERO_AUTO) {
		s.zero_on = 1;
		st->zero_used = 1;
		run(&s, ng, st);
	}
	if (!isinf(s.best)) {
		*step_s = s.best;
		rc = 0;
	}
out:
	st->states = s.states;
	for (size_t i = 0; i < ng; i++)
		plan_variant_release(&s.v[i]);
	free(s.v);
	free(s.head);
	free(s.pool);
	free(s.alpha_floor);
	free(s.modes);
	plan_shape_cache_release(&s.shapes);
	return rc;
}
