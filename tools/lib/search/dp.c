/* dp.c - branch and bound over cells, a Pareto suffix DP in each (dp.h). */
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "model/config.h"
#include "search/dp.h"
#include "sim/pipeline.h"

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

/*
 * Whether some ZeRO choice of dp_stage_zero (z > 1) fits, in one test
 * instead of up to eighteen: a stage's memory falls with z and with the
 * ZeRO stage (mem.c divides the optimizer states by z from stage 1, the
 * gradients from 2, the weights at 3; t-mem checks it), so some choice
 * fits only if the largest power of two at stage 3 does.
 */
static int
zero_may_fit(const struct plan_cell *c, size_t first, size_t last, long k,
    long zmax)
{
	struct mem_breakdown mem;
	long z = 1;

	while (2 * z <= zmax)
		z *= 2;
	return z > 1 && plan_stage_memory(c, first, last, z, 3, k, &mem);
}

/* Whether dp_stage_zero finds a choice (z = 1, or ZeRO when it is on). */
static int
stage_fits(const struct plan_cell *c, size_t first, size_t last, long k,
    int zero_on, long zmax)
{
	struct mem_breakdown mem;

	return plan_stage_memory(c, first, last, 1, 0, k, &mem) ||
	    (zero_on && zero_may_fit(c, first, last, k, zmax));
}

/*
 * A cache whose entries are current while their stamp, each entry's first
 * member, is the table's: made stale all at once by a new stamp (cleared
 * only when it wraps), not by clearing entries a cell, level or state.
 */
struct stamped {
	void *e;
	size_t cap, size;	/* entries, bytes an entry */
	unsigned stamp;
};

/* Room for n entries of `size` bytes, all stale. */
static void
stamped_reserve(struct stamped *t, size_t n, size_t size)
{
	if (n > t->cap || size != t->size) {
		free(t->e);
		t->e = xcalloc(n, size);
		t->cap = n;
		t->size = size;
		t->stamp = 0;
	}
}

/* Every entry stale. */
static void
stamped_renew(struct stamped *t)
{
	if (++t->stamp == 0) {
		memset(t->e, 0, t->cap * t->size);
		t->stamp = 1;
	}
}

/* The cache's entries (stamped). */
struct need_entry {
	unsigned stamp;
	int stages;
};
struct chain_head {
	unsigned stamp;
	int head;
};
/* A stage's ZeRO copies and stage, found once (choice_of). */
struct stage_choice {
	unsigned stamp;
	int fits, zs;
	long z;
};

/* A suffix: its last-placed (first) stage and the rest through parent. */
struct point {
	double L, Y;		/* max load / z, max sync */
	double f, b, w, p;	/* split schedules: max passes
				 * (plan_split_passes) */
	long y;			/* slots used */
	int parent, next;	/* pool indices; next: in the state's list */
	int same_y;		/* the next of its state's points of its y */
	int j;			/* the stage's first row */
	int z, zs, dead;
};

/* A cell: 48 bytes, as a band lists up to BAND_CELLS of them. */
struct cell_key {
	double lb, lb_sync;
	unsigned order;		/* its place in the listing: ties by it */
	unsigned stream;	/* its (variant, mode): search.streams */
	long d, K;
	unsigned char placements;	/* PLACE_*: searched in the cell */
};

/* A cell's placements of its stages (plan_mode.stage_major): a
 * replica's together, each stage's replicas side by side; one lower
 * bound holds for both, so a cell lists once and searches each. */
enum { PLACE_REPLICA = 1, PLACE_STAGE = 2 };

/* One of the best plans found: its layout (dp_layout_same), its step, the
 * plan (its stages owned here), and when it was found (ties: the first). */
struct ranked {
	struct plan plan;
	double step;
	unsigned short variant;
	long d, K, v;
	long seq;
};

struct search {
	const struct plan_env *env;
	const struct dp_options *o;
	/* the best plans of distinct layouts, best first, at most top_n;
	 * bound: the top_n-th's step once there are top_n (no cell whose
	 * bound reaches it can enter), else infinity */
	struct ranked *top;
	size_t ntop, top_n;
	long nfound;
	double bound;
	/* classic_split: the rule searched (SPLIT_*), and the layers of
	 * every stage or of those between the first and the last */
	int split;
	long mm;
	struct plan_variant *v;
	int zero_on;
	/* the drain credits the cell's stages (plan_drain_sync): 1F1B's
	 * plans without ZeRO copies */
	int credit;
	/* the cell's schedule splits W passes off (ZB-H1, ZB-V,
	 * DualPipeV): its points compared by their slowest passes, not their
	 * load */
	int zb;
	/* the cell being searched: the step it must beat (the bound, or
	 * its layout's step in top when lower) and its best plan so far */
	double best;
	struct plan *plan;
	int cell_found;
	struct point *pool;
	size_t npool, cappool;
	int *head;		/* [k * (n+1) + j] */
	size_t nhead;
	long states;
	double *alpha_floor;	/* [n]: least all-reduce latency over n */
	/* [n]: least all-reduce time a byte over n devices t apart, one
	 * array a stride t of the variants' data-parallel groups (their
	 * tensor width, and t e for the experts') */
	struct { long t; double *floor; } beta[16];
	int nbeta;
	struct plan_shape_cache shapes;
	struct plan_mode *modes;	/* the run modes searched */
	size_t nmodes;
	const struct stream *streams;	/* of the run in progress */
	/* the cell's least stage counts, need_entry [k * (rows + 1) + j]
	 * (stages_needed), renewed a cell */
	struct stamped need;
	long need_kmax, need_zcap;
	/* the next stage count's points by (first row, slots used):
	 * chain_head [j * (K + 1) + y], a chain through point.same_y,
	 * renewed a level (rows x K entries of 8 bytes: K is at most the
	 * rows without ZeRO, 16,384 for a ZeRO cell of 131,072 GPUs in
	 * slots of 8, about 17 MB at 130 rows) */
	struct stamped by_y;
	/* the ZeRO choices of the state (k, j) being extended, stage_choice
	 * by first row (choice_of), renewed a state */
	struct stamped fit;
};

#define NEED_NONE (INT_MAX / 2)

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

/*
 * Insert into a state's list unless a point with the same y dominates,
 * comparing only those: with ZeRO a state holds points of many y, and a
 * walk of the whole list made the search quadratic in them.  by_y: the
 * head of the state's chain of y.
 */
static void
insert(struct search *s, int *head, int *by_y, struct point p)
{
	for (int i = *by_y; i >= 0; i = s->pool[i].same_y) {
		struct point *q = &s->pool[i];

		if (q->dead)
			continue;
		/* the step is non-decreasing in each of them; a point's load
		 * only bounds its own extensions (the split schedules' step
		 * takes its passes, plan_split_step) */
		if (q->Y <= p.Y && (s->zb ? q->f <= p.f && q->b <= p.b &&
		    q->w <= p.w && q->p <= p.p : q->L <= p.L))
			return;
		if (p.Y <= q->Y && (s->zb ? p.f <= q->f && p.b <= q->b &&
		    p.w <= q->w && p.p <= q->p : p.L <= q->L))
			q->dead = 1;
	}
	p.next = *head;
	p.same_y = *by_y;
	*head = *by_y = push(s, p);
	s->states++;
}

/* The chain head of the next level's points of row j and y slots. */
static int *
chain_of(struct search *s, long K, int j, long y)
{
	struct chain_head *c = (struct chain_head *)s->by_y.e +
	    (size_t)j * (size_t)(K + 1) + (size_t)y;

	if (c->stamp != s->by_y.stamp) {
		c->stamp = s->by_y.stamp;
		c->head = -1;
	}
	return &c->head;
}

static void
record(struct search *s, const struct plan_cell *c, int last_point)
{
	int S = 0;

	s->cell_found = 1;
	for (int i = last_point; s->pool[i].parent >= 0; i = s->pool[i].parent)
		S++;
	free(s->plan->stage);
	s->plan->stage = xcalloc((size_t)S, sizeof *s->plan->stage);
	s->plan->nstages = S;
	s->plan->g = c->v->g;
	s->plan->d = c->d;
	s->plan->recompute = c->mode.recompute;
	s->plan->recompute_layers = c->mode.recompute_layers;
	s->plan->v = c->mode.v;
	s->plan->distopt = c->mode.distopt;
	s->plan->overlap_grad = c->mode.overlap_grad;
	s->plan->overlap_param = c->mode.overlap_param;
	s->plan->fp8_param_gather = c->mode.fp8_param_gather;
	s->plan->schedule = c->mode.schedule;
	s->plan->fsdp = c->mode.fsdp;
	s->plan->fsdp_shard = c->mode.fsdp_shard;
	s->plan->stage_major = c->mode.stage_major;
	s->plan->ends_in_split = c->mode.ends_in_split;
	s->plan->tp_overlap = plan_records_tp_overlap(&c->mode, c->v->g);
	s->plan->ep_overlap = c->mode.ep_overlap;
	s->plan->deepep = s->env->deepep && layers_has_experts(c->v->g);
	for (int i = last_point, k = 0; s->pool[i].parent >= 0;
	    i = s->pool[i].parent, k++) {
		const struct point *p = &s->pool[i];
		struct plan_stage *st = &s->plan->stage[k];

		st->first = (size_t)p->j;
		st->last = (size_t)s->pool[p->parent].j - 1;
		st->z = p->z;
		st->zero_stage = p->zs;
	}
	/* block recomputation as deep as every stage: full, said simply */
	if (s->plan->recompute_layers > 0 && plan_block_is_full(s->plan))
		s->plan->recompute_layers = 0;
}

/* Rows [jj, j) split into nv model chunks of equal, non-zero layers. */
static int
chunks_fit(const struct plan_variant *v, int jj, int j, long nv, int ends)
{
	long layers = layers_split_count(v->g, (size_t)jj, (size_t)j - 1, ends);

	return layers > 0 && layers % nv == 0;
}

/*
 * The fewest stages that can hold rows [0, j) when the last of them is
 * k-th from the end of the pipeline (and the one before it k + 1-th, and
 * so on), each with up to need_zcap ZeRO copies; NEED_NONE when none can.
 * A stage's memory only grows with its rows and with k (the micro-batches
 * it keeps in flight under 1F1B; asked only with ZeRO, which the split
 * schedules never run), so taking into each stage, from the last, as many
 * rows as fit covers the longest prefix that any as many stages can (by
 * induction on the stages placed): the count is exact for memory alone,
 * and a lower bound on the stages of any plan, whose stages also pay
 * slots and time.  Each stage's first row by a search from the rows the
 * stage after it took (`near`: a doubling step, then bisection);
 * memoized per cell, as the search asks for the same (k, j) from many
 * states.
 */
static int
stages_needed_near(struct search *s, const struct plan_cell *c, long k,
    size_t j, size_t near)
{
	size_t rows = c->v->g->n, fail = 0, fit, step;
	struct need_entry *memo;
	int more;

	if (j == 0)
		return 0;
	if (k > s->need_kmax)
		return NEED_NONE;
	memo = (struct need_entry *)s->need.e + (size_t)k * (rows + 1) + j;
	if (memo->stamp == s->need.stamp)
		return memo->stages;
	memo->stamp = s->need.stamp;
#define FITS(first) stage_fits(c, (first), j - 1, k, s->zero_on, s->need_zcap)
	if (FITS(0)) {
		fit = 0;
	} else if (!FITS(j - 1)) {
		return memo->stages = NEED_NONE;
	} else {
		/* the first row is in (fail, fit]; a stage holds about as
		 * many rows as the one after it, so the search starts there
		 * and widens by doubling before it halves */
		fit = j - 1;
		if (near > 1 && near < j) {
			size_t guess = j - near;

			if (FITS(guess)) {
				fit = guess;
				for (step = 1; fit - fail > step; step *= 2) {
					if (!FITS(fit - step)) {
						fail = fit - step;
						break;
					}
					fit -= step;
				}
			} else {
				fail = guess;
				for (step = 1; fit - fail > step; step *= 2) {
					if (FITS(fail + step)) {
						fit = fail + step;
						break;
					}
					fail += step;
				}
			}
		}
		while (fit - fail > 1) {
			size_t mid = fail + (fit - fail) / 2;

			if (FITS(mid))
				fit = mid;
			else
				fail = mid;
		}
	}
#undef FITS
	more = stages_needed_near(s, c, k + 1, fit, j - fit);
	return memo->stages = more == NEED_NONE ? NEED_NONE : more + 1;
}

static int
stages_needed(struct search *s, const struct plan_cell *c, long k, size_t j)
{
	return stages_needed_near(s, c, k, j, 0);
}

/* The most ZeRO copies a stage of a K-slot cell may have (1: ZeRO off). */
static long
zero_cap(const struct search *s, long K)
{
	if (!s->zero_on)
		return 1;
	return s->o->zmax < K ? s->o->zmax : K;
}

/*
 * Forget the last cell's stage counts.  A cell's plans have at most
 * min(K, rows) stages, one slot each at least.
 */
static void
need_reset(struct search *s, const struct plan_cell *c)
{
	size_t rows = c->v->g->n;
	long smax = c->K < (long)rows ? c->K : (long)rows;

	stamped_reserve(&s->need, (size_t)(smax + 1) * (rows + 1),
	    sizeof(struct need_entry));
	stamped_renew(&s->need);
	s->need_kmax = smax;
	s->need_zcap = zero_cap(s, c->K);
}

/*
 * The ZeRO choice of rows [jj, j) as the stage k-th from the end (k + 1
 * in dp_stage_zero's count), or NULL when it does not fit: the same for
 * every point of the state being extended, so computed once for it.
 */
static const struct stage_choice *
choice_of(struct search *s, const struct plan_cell *c, int jj, int j, long k,
    long zcap)
{
	struct stage_choice *ch = (struct stage_choice *)s->fit.e + jj;

	if (ch->stamp != s->fit.stamp) {
		struct mem_breakdown mem;
		long z = 1;
		int zs = 0;

		ch->stamp = s->fit.stamp;
		ch->fits = plan_stage_memory(c, (size_t)jj, (size_t)j - 1, 1,
		    0, k + 1, &mem) || (s->zero_on && zero_may_fit(c,
		    (size_t)jj, (size_t)j - 1, k + 1, zcap) &&
		    dp_stage_zero(c, (size_t)jj, (size_t)j - 1, k + 1, 1,
		    zcap, &z, &zs) == 0);
		ch->z = z;
		ch->zs = zs;
	}
	return ch->fits ? ch : NULL;
}

/*
 * The mode whose loads bound a mode's from below: itself, or for block
 * recomputation, which reruns the first layers of each stage's chunks
 * (which ones depends on the split), none's.  Its windows for hiding a
 * reduction (the backward and rerun) are bounded from above by full's,
 * the mode's own recompute kind.
 */
static struct plan_mode
load_floor_mode(const struct plan_mode *md)
{
	struct plan_mode f = *md;

	if (f.recompute_layers > 0) {
		f.recompute = RC_NONE;
		f.recompute_layers = 0;
	}
	return f;
}

/* The compute and own collectives of rows [0, j), less all that the
 * combined 1F1B may hide of them (plan_ep_save): the least load the
 * stages before row j carry between them (fl: load_floor_mode). */
static double
prefix_load(const struct plan_variant *v, const struct plan_mode *fl,
    const double *coll, int j)
{
	const double *save = plan_ep_save(v, fl);

	return v->pf_fwd[j] + v->pf_bwd[j] + v->pf_rerun[fl->recompute][j] +
	    coll[j] - (save ? save[j] : 0);
}

/*
 * Megatron's split flags (classic_split), each a rule of its own: an even
 * split, every stage mm layers (SPLIT_EVEN; counting the embedding and the
 * head as layers where the mode does); by --account-for-embedding- and
 * --account-for-loss-in-pipeline-split, an even split counting them
 * without interleaving (SPLIT_EVEN_ENDS); or, by
 * --decoder-first/last-pipeline-num-layers, the stages between the first
 * and the last mm layers each and those two any number but none
 * (SPLIT_FIRST_LAST).  The new stage is rows [jj, j), k stages after it.
 */
enum { SPLIT_EVEN, SPLIT_EVEN_ENDS, SPLIT_FIRST_LAST, SPLIT_NRULES };

static int
classic_split_ok(const struct search *s, const struct plan_cell *c, int jj,
    int j, long k)
{
	long n = layers_split_count(c->v->g, (size_t)jj, (size_t)j - 1,
	    c->mode.ends_in_split || s->split == SPLIT_EVEN_ENDS);

	if (s->split != SPLIT_FIRST_LAST || (k > 0 && jj > 0))
		return n == s->mm;
	return n > 0;
}

/*
 * The least exposed sync a plan can end with, its later stages' folded
 * to Y (plan_drain_sync) and `left` stages still to place before them,
 * each carrying at most the plan's slowest load, at least `load`: their
 * last backward passes credit the later stages at most left load / v
 * between them, and stage 0's own sync is not negative.  With ZeRO
 * copies or under the split schedules (no credit), Y.  The step's bound mult L + this is non-
 * decreasing in L (mult >= left / v, as m >= 1), so the least load bounds
 * it.
 */
static double
sync_left(const struct search *s, double Y, long left, long v, double load)
{
	if (!s->credit)
		return Y;
	return fmax(0, Y - (double)left * load / (double)v);
}

/*
 * The multiplier of the slowest stage's load in a lower bound on the step
 * of K one-slot stages: 1F1B's m + (K - 1)/v (plan_step); ZB-H1's
 * m + (K - 1)/3, as plan_step_zbh1 is at least m (F + B + W) + (K - 1)
 * (F + B - W), F + B + W at least the slowest load and F + B - W at least
 * a third of it (W at most F and B there); ZB-V's and DualPipeV's their
 * forms' floor (plan_split_mult), the forms kept in shapes.
 */
static double
step_mult(struct plan_shape_cache *shapes, long m, long K,
    const struct plan_mode *md)
{
	if (md->schedule != PLAN_1F1B)
		return plan_split_mult(shapes, md->schedule, K, m);
	return (double)m + (double)(K - 1) / (double)(md->v > 1 ? md->v : 1);
}

static void
search_cell_split(struct search *s, struct plan_cell *c)
{
	const struct plan_variant *v = c->v;
	int n = (int)v->g->n;
	long K = c->K, m = c->m, nv = c->mode.v;
	long smax = K < n ? K : n;
	long zcap = zero_cap(s, K);
	const struct plan_mode fl = load_floor_mode(&c->mode);
	const double *coll = plan_coll(v, &fl);
	int zb = c->mode.schedule != PLAN_1F1B;
	/* without ZeRO every stage has one slot, so S = K: the multiplier
	 * of the slowest stage is known from the start (step_mult) */
	double mult_fixed = step_mult(&s->shapes, m, K, &c->mode);

	s->credit = !s->zero_on && !zb;
	s->zb = zb;
	s->npool = 0;
	memset(s->head, -1, (size_t)(smax + 1) * (size_t)(n + 1) *
	    sizeof *s->head);
	stamped_reserve(&s->by_y, (size_t)(n + 1) * (size_t)(K + 1),
	    sizeof(struct chain_head));
	stamped_reserve(&s->fit, (size_t)n + 1, sizeof(struct stage_choice));
	s->head[n] = push(s, (struct point){ .parent = -1, .next = -1,
	    .same_y = -1, .j = n, .z = 1 });
	for (long k = 0; k < smax; k++) {
		stamped_renew(&s->by_y);
		for (int j = n; j >= 1; j--) {
			stamped_renew(&s->fit);
			for (int pi = s->head[k * (n + 1) + j]; pi >= 0;
			    pi = s->pool[pi].next) {
				struct point p = s->pool[pi];

				if (p.dead)
					continue;
				for (int jj = j - 1; jj >= 0; jj--) {
					int more;	/* stages before it */
					double comp, cmin, rest, rest_slot;
					const struct stage_choice *ch;
					long z;
					struct stage_cost sc;
					struct point q;

					/* exactly K stages of one slot each
					 * without ZeRO: leave a row for each */
					if (!s->zero_on && (jj < K - k - 1 ||
					    (jj > 0 && k + 1 == K)))
						continue;
					comp = prefix_load(v, &fl, coll, j) -
					    prefix_load(v, &fl, coll, jj);
					cmin = s->zero_on ? (double)(m + k) :
					    mult_fixed;
					if (cmin * comp / (double)zcap +
					    sync_left(s, p.Y, K - p.y, nv,
					    comp / (double)zcap) >= s->best)
						break;	/* longer only costs more */
					/* interleaved: v model chunks of equal
					 * layers a stage */
					if (nv > 1 && !chunks_fit(v, jj, j, nv,
					    c->mode.ends_in_split))
						continue;
					if (s->o->classic_split &&
					    !classic_split_ok(s, c, jj, j, k))
						continue;
					/* the rows before it need stages of a
					 * slot each at least, and the bound
					 * below holds before the stage is
					 * priced, with its load at least its
					 * compute over zcap and a slot */
					more = s->zero_on ? stages_needed(s, c,
					    k + 2, (size_t)jj) : jj > 0;
					if (more == NEED_NONE ||
					    p.y + 1 + more > K)
						continue;
					rest = prefix_load(v, &fl, coll, jj);
					rest_slot = jj > 0 ? rest / (double)(K -
					    p.y - 1) : 0;
					if (s->zero_on && (double)(m + k +
					    more) * fmax(fmax(p.L, comp /
					    (double)zcap), rest_slot) + p.Y >=
					    s->best)
						continue;
					/* memory only grows with the rows */
					if (!(ch = choice_of(s, c, jj, j, k,
					    zcap)))
						break;
					z = ch->z;
					if (p.y + z + more > K)
						continue;
					/* its memory: dp_stage_zero above */
					plan_stage_cost(c, (size_t)jj,
					    (size_t)j - 1, K - p.y - z, z,
					    ch->zs, &sc);
					q = p;
					q.L = fmax(p.L, sc.load_s / (double)z);
					q.Y = s->credit ? plan_drain_sync(p.Y,
					    &sc, nv) : fmax(p.Y, sc.sync_s);
					if (zb) {
						double f, b, w, pp;

						plan_split_passes(&sc, nv, &f, &b,
						    &w, &pp);
						q.f = fmax(p.f, f);
						q.b = fmax(p.b, b);
						q.w = fmax(p.w, w);
						/* only DualPipeV's forms count
						 * pairs */
						q.p = c->mode.schedule ==
						    PLAN_DUALPIPEV ? fmax(p.p, pp) :
						    0;
					}
					q.y = p.y + z;
					q.parent = pi;
					q.j = jj;
					q.z = (int)z;
					q.zs = ch->zs;
					q.dead = 0;
					if (jj == 0) {
						double T;

						if (q.y != K)
							continue;
						T = zb ? plan_split_step(c, q.f,
						    q.b, q.w, q.p) + q.Y :
						    plan_step(m, (int)k + 1, nv,
						    q.L, q.Y);
						if (T < s->best) {
							s->best = T;
							record(s, c, push(s, q));
						}
						continue;
					}
					/* S >= k + 1 + more stages, and the
					 * rows before share at most K - y
					 * slots: their slowest stage carries
					 * at least the mean compute a slot */
					if ((s->zero_on ? (double)(m + k + more) :
					    mult_fixed) * fmax(q.L, rest /
					    (double)(K - q.y)) + sync_left(s, q.Y,
					    K - q.y, nv, fmax(q.L, rest /
					    (double)(K - q.y))) >= s->best)
						continue;
					/* split schedules: the stages before it
					 * only raise the slowest passes and the
					 * sync */
					if (zb && plan_split_step(c, q.f, q.b,
					    q.w, q.p) + q.Y >= s->best)
						continue;
					insert(s, &s->head[(k + 1) * (n + 1) +
					    jj], chain_of(s, K, jj, q.y), q);
				}
			}
		}
	}
}

/* A cell: one search, or under classic_split one for each split rule
 * and stage size (their plans are the splits Megatron's flags express:
 * with the ends counted by the mode, the even one alone). */
static void
search_cell(struct search *s, struct plan_cell *c)
{
	const struct layer_graph *g = c->v->g;

	if (!s->o->classic_split) {
		search_cell_split(s, c);
		return;
	}
	for (s->split = 0; s->split < SPLIT_NRULES; s->split++) {
		int ends = c->mode.ends_in_split || s->split == SPLIT_EVEN_ENDS;
		long layers = layers_split_count(g, 0, g->n - 1, ends);

		if (s->split != SPLIT_EVEN && (c->mode.ends_in_split ||
		    (s->split == SPLIT_EVEN_ENDS && c->mode.v > 1)))
			continue;
		for (s->mm = 0; s->mm <= layers; s->mm++)
			search_cell_split(s, c);
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

/* The block recomputation depths a search tries (dp_options). */
static long
block_depths(const struct dp_options *o)
{
	return o->block_max > 0 && o->recompute_min <= RC_FULL &&
	    o->recompute_max >= RC_FULL ? o->block_max : 0;
}

/* The modes a search tries: recomputation kinds (and then block
 * recomputation's depths, after the kinds so that a tie keeps the
 * simpler plan) x optimizers (plain, distributed, and distributed with
 * the FP8 parameter gather where it may be on, without ZeRO: list_streams
 * keeps that one for FP8 graphs alone) x interleavings (v > 1 only
 * without ZeRO, where S = K is known; the embedding and head counted as
 * layers of the split or not) x schedules (ZB-H1 at v = 1 without ZeRO,
 * where asked; mode_runs_on: graphs with weight_gradient_s). */
static size_t
list_modes(const struct search *s, struct plan_mode *out)
{
	const struct dp_options *o = s->o;
	long vmax = s->zero_on || o->vmax < 1 ? 1 : o->vmax;
	long nk = (long)(o->recompute_max - o->recompute_min + 1);
	int f8max = s->zero_on ? 0 : o->fp8_gather_max;
	/* ZB-H1 without ZeRO copies only, and never in Megatron-LM's
	 * space (it has no zero-bubble schedule) */
	int smax = s->zero_on || o->megatron_batch ? PLAN_1F1B : o->sched_max;
	/* FSDP2 kept under ZB-V and DualPipeV too, torchtitan's
	 * (plan_fsdp_schedule_refused) */
	int fsmax = s->zero_on ? PLAN_1F1B : o->sched_max;
	size_t n = 0;

	for (long k = 0; k < nk + block_depths(o); k++) {
		int rc = k < nk ? o->recompute_min + (int)k : RC_FULL;
		long layers = k < nk ? 0 : k - nk + 1;

		/* FSDP2 under 1F1B, nothing of Megatron's data
		 * parallelism (its own replaces it); kept (pipelined)
		 * interleaved too, torchtitan's Interleaved1F1B */
		for (int f = PLAN_FSDP_RESHARD; f <= PLAN_FSDP_KEPT &&
		    o->fsdp_max > 0 && !s->zero_on && layers == 0 &&
		    o->ep_overlap_min == 0; f++)
		for (long nv = 1; nv <= (f == PLAN_FSDP_KEPT ? vmax : 1); nv++)
		for (int ends = 0; ends <= (nv > 1); ends++)
		for (int sc = o->sched_min; sc <= fsmax; sc++) {
			if (plan_fsdp_schedule_refused(f, sc) != NULL ||
			    (sc != PLAN_1F1B && nv != plan_schedule_chunks(sc)))
				continue;
			/* torchao's float8 all-gather (float8 graphs
			 * alone, mode_runs_on) */
			for (int f8 = 0; f8 <= f8max; f8++)
			/* over all d replicas, and HSDP's shard groups
			 * (of one replica: its context and expert ranks) */
			for (long hs = 0; hs <= PLAN_HSDP_MAX; hs = hs ?
			    2 * hs : 1)
				out[n++] = (struct plan_mode){ rc, nv, 0, 0,
				    0, ends, 0, 0, f8, sc, f, hs, 0, 0 };
		}
		/* torchtitan's per-operator checkpointing: FSDP2's alone */
		if (o->fsdp_min > 0 || rc == RC_OP)
			continue;
		for (int dopt = o->distopt_min; dopt <= o->distopt_max; dopt++)
		for (int f8 = 0; f8 <= (dopt ? f8max : 0); f8++)
		for (long nv = 1; nv <= vmax; nv++)
		for (int ends = 0; ends <= (nv > 1); ends++)
		for (int sc = o->sched_min; sc <= smax; sc++)
		/* the combined 1F1B: 1F1B's, without ZeRO copies */
		for (int ep = o->ep_overlap_min; ep <= (s->zero_on ||
		    sc != PLAN_1F1B ? 0 : o->ep_overlap_max); ep++)
			/* ZB-H1: one chunk a stage; ZB-V, DualPipeV: two */
			if (sc == PLAN_1F1B || nv == plan_schedule_chunks(sc))
				out[n++] = (struct plan_mode){ rc, nv, dopt,
				    o->overlap, o->overlap && dopt, ends,
				    o->tp_overlap, layers, f8, sc,
				    PLAN_FSDP_OFF, 0, 0, ep };
	}
	/* stage-major alone (without ZeRO copies); both placements are a
	 * cell's (next_cell), not modes */
	if (o->stage_major_min > 0 && s->zero_on)
		return 0;
	for (size_t i = 0; o->stage_major_min > 0 && i < n; i++)
		out[i].stage_major = 1;
	return n;
}

/* Whether a mode of list_modes runs on graph g: its FP8 parameter gather
 * on an FP8 graph only, and there, where the options make it always on
 * (and ZeRO is off, list_modes), every distributed-optimizer mode with
 * it; torchao's float8 beside FSDP2 only (its all-gather likewise), and
 * Transformer Engine's recipes without it. */
static int
mode_runs_on(const struct search *s, const struct plan_mode *md,
    const struct layer_graph *g)
{
	/* the split schedules need the weights' gradient's share (their W
	 * passes) */
	if (md->schedule != PLAN_1F1B && !g->has_wgrad)
		return 0;
	if (md->fsdp && plan_fsdp_refused(g) != NULL)
		return 0;
	if (plan_fp8_refused(g, md->fsdp, md->distopt,
	    md->fp8_param_gather) != NULL)
		return 0;
	if (plan_recompute_refused(md->recompute, md->fsdp, g) != NULL)
		return 0;
	/* the combined 1F1B's graph, ranks and recomputation (its
	 * pipeline's interleaving a cell's: next_cell) */
	if (plan_ep_overlap_refused(md, g, 1, 0) != NULL)
		return 0;
	if (g->var_fp8 == FP8_NONE)
		return !md->fp8_param_gather;
	if (md->fsdp)
		return md->fp8_param_gather >= s->o->fp8_gather_min;
	return !md->distopt || s->zero_on ||
	    md->fp8_param_gather >= s->o->fp8_gather_min;
}

/*
 * What the cell lower bound needs of one (variant, mode), computed once:
 * the compute of the whole chain and of its largest row, the share of a
 * gradient reduction's latency every step pays, the largest d, and the
 * layers an interleaved split counts.
 */
struct stream {
	double total, maxrow, sync_floor_frac, param_floor_frac;
	/* ZB-H1: the weights' gradients of the chain, and the largest
	 * row's load less its own */
	double wtotal, maxrow_nw;
	/* the bytes the whole chain's gradient reduction and parameter
	 * gather move (at all-reduce cost: halved for a reduce-scatter or
	 * gather), a device of one replica, dense and expert parameters
	 * apart (their groups differ); 0 with ZeRO */
	double grad_bytes, param_bytes;
	double expert_grad_bytes, expert_param_bytes;
	const double *beta_floor;	/* stride t: the dense group's */
	const double *beta_expert;	/* stride t e: the experts' group's */
	double fwd, bwd_rerun;		/* the whole chain's, a micro-batch */
	/* row 0 has dense parameters: stage 0, which the drain credits
	 * nothing, pays the sync floor itself */
	int head_sync_floor;
	double p2p_cut, p2p_chunk;	/* least send of a cut, of a chunk */
	double cut_bytes;		/* the least cut's bytes */
	long dmax, layers;
	unsigned short variant;
	unsigned mode;		/* index into search.modes (list_modes:
				 * dpsolve's -R 128 -v 64 make at most
				 * (4 + 128) 3 (2 64 + 4) + 4 (1 + 127 + 4)
				 * 12 2 = 64,944) */
};

/*
 * The least time a stage boundary's activations take one way: two
 * neighbouring stages span 2 w contiguous devices, which no level below
 * the first one spanning 2 w holds, and the smallest cut moves (or, for
 * interleaved chunks, the chunk's bytes).
 */
/* The first level whose blocks span `span` devices (the top's at most). */
static int
level_spanning(const struct network *net, long span)
{
	int l = 0;

	while (l < net->nlevels - 1 && net->span[l] < span)
		l++;
	return l;
}

static void
p2p_floors(const struct network *net, const struct plan_variant *v,
    double *cut, double *chunk, double *cut_bytes)
{
	double least = HUGE_VAL;
	int l = level_spanning(net, 2 * v->w);

	for (size_t i = 1; i < v->g->n; i++)
		least = fmin(least, v->cut[i]);
	*cut = v->g->n > 1 ? plan_boundary_s(v, net, l, least) : 0;
	*chunk = plan_boundary_s(v, net, l, v->chunk_bytes);
	*cut_bytes = v->g->n > 1 ? least : 0;
}

/* The beta floor of tensor width t, made on first use (NULL when the
 * variants have more widths than kept: no bound from it then). */
static const double *
beta_floor_of(struct search *s, long t)
{
	int n = (int)(sizeof s->beta / sizeof s->beta[0]);

	for (int i = 0; i < s->nbeta; i++)
		if (s->beta[i].t == t)
			return s->beta[i].floor;
	if (s->nbeta == n)
		return NULL;
	s->beta[s->nbeta].t = t;
	s->beta[s->nbeta].floor = net_allreduce_beta_floor(s->env->net,
	    s->env->devices, t);
	return s->beta[s->nbeta++].floor;
}

static size_t
list_streams(struct search *s, size_t ng, struct stream **out)
{
	struct stream *st;
	size_t n = 0, nmodes, layouts = 1, shards = 1;
	struct plan_mode *modes;

	free(s->modes);
	/* a kind's modes: v = 1 under 1F1B and ZB-H1; each v > 1 with the
	 * ends counted or not, and at v = 2 so under ZB-V and DualPipeV;
	 * FSDP2's resharded at v = 1 and kept at each v (and its ends, and
	 * at v = 2 under ZB-V and DualPipeV too: 4 more), with its float8
	 * all-gather or not, over all replicas or HSDP's groups of 1, 2,
	 * ... PLAN_HSDP_MAX */
	if (s->o->vmax > 1)
		layouts += 2 * (size_t)(s->o->vmax - 1) + 4;
	for (long hs = 1; hs <= PLAN_HSDP_MAX; hs *= 2)
		shards++;
	/* (Megatron's modes twice: the combined 1F1B's) */
	s->modes = modes = xcalloc((size_t)(RC_N + block_depths(s->o)) * 3 *
	    2 * (size_t)(s->o->vmax > 1 ? 2 * s->o->vmax + 4 : 2) + RC_N *
	    (1 + layouts) * shards * 2, sizeof *modes);
	s->nmodes = nmodes = list_modes(s, modes);
	st = xcalloc(ng * nmodes, sizeof *st);
	for (size_t vi = 0; vi < ng; vi++) {
		const struct plan_variant *v = &s->v[vi];
		size_t rows = v->g->n;
		double p2p_cut, p2p_chunk, cut_bytes;

		if (v->w > s->env->devices)
			continue;
		p2p_floors(s->env->net, v, &p2p_cut, &p2p_chunk, &cut_bytes);
		for (size_t mi = 0; mi < nmodes; mi++) {
			const struct plan_mode *md = &modes[mi];
			const struct plan_mode fl = load_floor_mode(md);
			const double *coll = plan_coll(v, &fl);
			const double *save = plan_ep_save(v, &fl);
			struct stream *x;

			if (!mode_runs_on(s, md, v->g))
				continue;
			x = &st[n++];

			x->variant = (unsigned short)vi;
			x->mode = (unsigned)mi;
			/* a stage's load is at least its compute and its
			 * layers' own collectives */
			x->total = prefix_load(v, &fl, coll, (int)rows);
			/* every step pays at least one stage's gradient
			 * reduction latency over d*c*e devices (halved when
			 * it is a reduce-scatter: the distributed optimizer,
			 * ZeRO-3), and with the distributed optimizer the
			 * weights' gather, less what that stage's backward
			 * and forward pass can hide when they overlap */
			x->head_sync_floor = v->pf_dense[1] > 0;
			/* FSDP2's floors: its optimizer step alone (the
			 * reductions may hide behind the passes) */
			if (v->pf_dense[rows] > 0 && !md->fsdp) {
				x->sync_floor_frac = s->zero_on ||
				    md->distopt ? 0.5 : 1;
				x->param_floor_frac = md->distopt &&
				    !s->zero_on ? 0.5 : 0;
			}
			if (!s->zero_on && !md->fsdp) {
				double gb = s->env->grad_bytes_per_param > 0 ?
				    s->env->grad_bytes_per_param : 2;

				double expert = v->pf_param[rows] -
				    v->pf_dense[rows];
				double f8, f8e;	/* the whole chain's */

				plan_fp8_gather_saved(v, md, 0, rows - 1, &f8,
				    &f8e);
				x->grad_bytes = v->pf_dense[rows] * gb / 2 *
				    (md->distopt ? 0.5 : 1);
				x->param_bytes = md->distopt ?
				    (v->pf_dense[rows] - f8) / 2 : 0;
				x->expert_grad_bytes = expert * gb / 2 *
				    (md->distopt ? 0.5 : 1);
				x->expert_param_bytes = md->distopt ?
				    (expert - f8e) / 2 : 0;
			}
			x->beta_floor = beta_floor_of(s, v->t);
			x->beta_expert = v->pf_param[rows] > v->pf_dense[rows] ?
			    beta_floor_of(s, v->t * v->e) : NULL;
			x->p2p_cut = p2p_cut;
			x->p2p_chunk = p2p_chunk;
			x->cut_bytes = cut_bytes;
			x->fwd = v->pf_fwd[rows];
			/* a window: full's rerun for block recomputation
			 * (load_floor_mode) */
			x->bwd_rerun = v->pf_bwd[rows] +
			    v->pf_rerun[md->recompute][rows];
			for (size_t i = 0; i < rows; i++) {
				double row = coll[i + 1] - coll[i] +
				    v->g->l[i].forward_s +
				    v->g->l[i].backward_s + mem_row_rerun_s(
				    &v->g->l[i], fl.recompute) - (save ?
				    save[i + 1] - save[i] : 0);
				double w = v->pf_wgrad[i + 1] - v->pf_wgrad[i];

				x->maxrow = fmax(x->maxrow, row);
				x->maxrow_nw = fmax(x->maxrow_nw, row - w);
			}
			x->wtotal = v->pf_wgrad[rows];
			x->dmax = s->env->devices / v->w;
			if (x->dmax > s->env->global_batch / v->b)
				x->dmax = s->env->global_batch / v->b;
			x->layers = layers_split_count(v->g, 0, rows - 1,
			    md->ends_in_split);
		}
	}
	*out = st;
	return n;
}

/*
 * The cells of the streams in their fixed order, each with its lower
 * bound: step_mult * max(load / K + the sends a stage cannot avoid,
 * the largest row) + the sync floor (with ZeRO, m * max(load / K,
 * largest row / min(zmax, K))), load being compute and the layers' own
 * collectives.  A cell of K one-slot stages runs v chunks a stage only
 * when every stage can get v layers (and, under Megatron's interleaving,
 * m is a multiple of K; under DualPipeV, at least 2K).
 */
struct cell_iter {
	struct search *s;		/* its forms' cache grows */
	const struct stream *st;
	size_t nst, si;
	long d, K, m, kmax;
	double lbs;
};

/* The least exposed sync a step of the stream has, alpha the least
 * all-reduce latency over its data-parallel group (see list_streams). */
static double
sync_floor(const struct stream *x, const struct plan_mode *md, double alpha)
{
	double grad = x->sync_floor_frac * alpha;
	double param = x->param_floor_frac * alpha;

	if (md->overlap_grad)
		grad = fmax(0, grad - x->bwd_rerun);
	if (md->overlap_param)
		param = fmax(0, param - x->fwd);
	return grad + param;
}

/*
 * The exposed sync of the slowest stage is at least the mean of the K
 * stages' (ZeRO-free cells): their reductions move the whole chain's
 * gradients between them, each kind at its group's beta (the least cost
 * a byte over d c e devices t apart, the dense; over d c devices t e
 * apart, the experts') or more, and with overlap hide at most the whole
 * chain's backward (the gather: forward) pass of a micro-batch.  The
 * mean of the parts left exposed is at least the part the means leave.
 * Without the experts' floor their bytes are left out: a lower bound
 * still.
 */
static double
sync_mean_floor(const struct stream *x, const struct plan_mode *md,
    double beta, double beta_expert, double K)
{
	double grad = beta * x->grad_bytes + beta_expert *
	    x->expert_grad_bytes;
	double param = beta * x->param_bytes + beta_expert *
	    x->expert_param_bytes;

	if (md->overlap_grad)
		grad -= x->bwd_rerun;
	if (md->overlap_param)
		param -= x->fwd;
	return (fmax(0, grad) + fmax(0, param)) / K;
}

/*
 * A cell's bound on its sync (the stream's floors; with the drain's
 * credit the step pays max_i (sync_i - credit_i), each credit at most
 * (K - 1) slowest loads' backward over v, their mean half that, the load
 * at least lb's: the latency floor in full where stage 0, which takes no
 * credit, pays it (row 0 has dense parameters), else less the most
 * credit; the mean floor less the mean credit).
 */
static double
cell_sync_bound(const struct cell_iter *it, const struct stream *x,
    const struct plan_mode *md, const struct plan_variant *v, double lb)
{
	double mean = x->beta_floor ? sync_mean_floor(x, md,
	    x->beta_floor[it->d * v->c * v->e], x->beta_expert ?
	    x->beta_expert[it->d * v->c] : 0, (double)it->K) : 0;

	if (!it->s->zero_on && md->schedule == PLAN_1F1B) {
		double K = (double)it->K, nv = (double)md->v;
		double load = lb / step_mult(&it->s->shapes, it->m, it->K, md);

		return fmax(0, fmax(x->head_sync_floor ? it->lbs : it->lbs -
		    (K - 1) * load / nv, mean - (K - 1) / 2 * load / nv));
	}
	return x->beta_floor ? fmax(it->lbs, mean) : it->lbs;
}

/*
 * A cell's bound without ZeRO, its boundaries' least sends one way
 * taking at least `cut` (one chunk's: `chunk`): the slowest stage
 * carries at least the mean load, sends included: each of the K - 1
 * boundaries sends activations one way, gradients the other (2 x 2
 * transfers); an interleaved stage sends 2 (2v - 1) chunks; on the V
 * (ZB-V, DualPipeV) each boundary carries both chunks, 8 (K - 1) over K
 * stages.  ZB-H1 (plan_step_zbh1 = (m + S - 1)(F + B) + (m - min(m, S) +
 * 1) W, the second term not negative): F + B is at least every stage's
 * load less its W (at most its rows'), so their mean and the largest
 * row's.
 */
static void
cell_bound(const struct cell_iter *it, const struct stream *x,
    const struct plan_mode *md, const struct plan_variant *v, double cut,
    double chunk, double *lb, double *lb_sync)
{
	double K = (double)it->K, mean = x->total / K;
	double sends = plan_schedule_chunks(md->schedule) == 2 ?
	    4 * (double)md->v * (K - 1) * chunk / K : md->v > 1 ?
	    2 * (2 * (double)md->v - 1) * chunk : 4 * (K - 1) * cut / K;

	mean += sends;
	*lb = step_mult(&it->s->shapes, it->m, it->K, md) * fmax(mean,
	    x->maxrow);
	if (md->schedule == PLAN_ZBH1)
		*lb = fmax(*lb, ((double)it->m + K - 1) * fmax((x->total -
		    x->wtotal) / K + sends, x->maxrow_nw));
	*lb_sync = cell_sync_bound(it, x, md, v, *lb);
}

static int
next_cell(struct cell_iter *it, struct cell_key *out)
{
	struct search *s = it->s;

	for (;;) {
		const struct stream *x;
		const struct plan_variant *v;
		const struct plan_mode *md;

		if (it->si >= it->nst)
			return 0;
		x = &it->st[it->si];
		v = &s->v[x->variant];
		md = &s->modes[x->mode];
		if (++it->K > it->kmax) {	/* the next d, or stream */
			if (++it->d > x->dmax) {
				it->si++;
				it->d = 0;
				it->K = it->kmax = 0;
				continue;
			}
			/* Megatron: B = b d times whole accumulation steps
			 * (no K of this d) */
			if (s->o->megatron_batch && s->env->global_batch %
			    (v->b * it->d)) {
				it->K = it->kmax = 0;
				continue;
			}
			it->m = plan_microbatches(s->env->global_batch, v->b,
			    it->d);
			it->kmax = s->env->devices / (it->d * v->w);
			if (!s->zero_on && it->kmax > (long)v->g->n)
				it->kmax = (long)v->g->n;
			/* interleaved: v chunks of a layer or more a stage */
			if (md->v > 1 && it->kmax > x->layers / md->v)
				it->kmax = x->layers / md->v;
			/* the framework's pipelines (K = S without ZeRO
			 * copies): a micro-batch a stage or more (PyTorch's),
			 * and where it pipelines the model at all */
			if (!s->zero_on && s->o->micro_per_stage &&
			    it->kmax > it->m)
				it->kmax = it->m;
			if (!s->zero_on && s->o->stages_max > 0 &&
			    it->kmax > s->o->stages_max)
				it->kmax = s->o->stages_max;
			it->lbs = sync_floor(x, md,
			    s->alpha_floor[it->d * v->c * v->e]);
			it->K = 0;
			continue;
		}
		/* Megatron's interleaving needs S to divide m; the V-shaped
		 * schedules run any m, DualPipeV 2S or more */
		if (md->v > 1 && (it->K < 2 || (md->schedule == PLAN_1F1B &&
		    it->m % it->K)))
			continue;
		if (md->schedule == PLAN_DUALPIPEV && !pipe_dualpipe_ok((int)it->K,
		    it->m, 0))
			continue;
		/* one stage has no drain to fill: 1F1B's plan */
		if (md->schedule != PLAN_1F1B && it->K < 2)
			continue;
		/* the combined 1F1B where Megatron-Core runs it */
		if (plan_ep_overlap_refused(md, v->g, (int)it->K, 0) != NULL)
			continue;
		/* FSDP2 as torchtitan runs it: resharded after forward on
		 * one stage, kept when pipelined, over two devices or more,
		 * its float8 all-gather over two data-parallel ranks or more
		 * (plan_fsdp_plan_refused) */
		if (md->fsdp && plan_fsdp_plan_refused(md->fsdp,
		    md->fsdp_shard, it->K, it->d, v->c * v->e,
		    md->fp8_param_gather) != NULL)
			continue;
		/* the placements, which differ only with two stages and
		 * two replicas or more, without ZeRO copies: a replica's
		 * stages together unless the framework runs stage-major
		 * alone there (torchtitan) or Megatron's
		 * --use-tp-pp-dp-mapping does not run (the layouts of the
		 * experts and the context ranks); each stage's replicas side
		 * by side where asked */
		if (md->stage_major)
			out->placements = PLACE_STAGE;
		else {
			int differ = !s->zero_on && it->K > 1 && it->d > 1;

			out->placements = 0;
			if (!(s->o->stage_major_only && differ) &&
			    !(s->o->megatron_order &&
			    plan_megatron_order_refused_by(v->order_differs,
			    it->K, it->d, 0) != NULL))
				out->placements |= PLACE_REPLICA;
			if (s->o->stage_major_max > 0 && differ)
				out->placements |= PLACE_STAGE;
		}
		if (out->placements == 0)
			continue;
		if (s->zero_on) {
			out->lb = (double)it->m * fmax(x->total /
			    (double)it->K, x->maxrow / (double)(s->o->zmax <
			    it->K ? s->o->zmax : it->K));
			out->lb_sync = cell_sync_bound(it, x, md, v, 0);
		} else {
			cell_bound(it, x, md, v, x->p2p_cut, x->p2p_chunk,
			    &out->lb, &out->lb_sync);
		}
		out->lb += out->lb_sync;
		out->stream = (unsigned)it->si;
		out->d = it->d;
		out->K = it->K;
		return 1;
	}
}

static struct cell_iter
cells_of(struct search *s, const struct stream *st, size_t nst)
{
	return (struct cell_iter){ .s = s, .st = st, .nst = nst };
}

/*
 * Bins of the lower bounds, monotone in the value: the bits of a
 * non-negative double order as the double does, so the exponent and the
 * top mantissa bits give 2^LB_BIN_BITS bins an octave (about 3% wide).
 */
#define LB_BIN_BITS 5
#define LB_NBINS (1L << (11 + LB_BIN_BITS))
/* The cells of the first band, and the most sorted at once (48 bytes
 * each): bands grow fourfold, as most searches end in the first. */
#define BAND_FIRST (1L << 12)
#define BAND_CELLS (1L << 20)

static long
lb_bin(double lb)
{
	uint64_t bits;

	if (!(lb > 0))
		return 0;
	memcpy(&bits, &lb, sizeof bits);
	return (long)(bits >> (52 - LB_BIN_BITS)) & (LB_NBINS - 1);
}

/*
 * Whether a ZeRO-free cell's step, load part `load_lb`, cannot beat
 * `best` by the exposed sync of its two ends: the first stage holds row 0
 * at slot 0 and the last the last row at slot K - 1 (plan_row_sync_floor).
 * What their overlap can hide is at most their passes over the most rows
 * they can hold: all but one a stage for each of the other K - 1 (v = 1),
 * the whole chain when interleaved (a stage's chunks lie anywhere in it).
 * Without the overlap this is their whole sync: a cell whose step is set
 * by the reduction of its embedding or head is priced no further.  The
 * last stage first, as the search prices it first anyway (its network
 * groups are then cached for it).
 */
static int
ends_cannot_win(struct plan_cell *c, double load_lb, double best)
{
	const struct plan_variant *v = c->v;
	const double *rerun = v->pf_rerun[c->mode.recompute];
	size_t n = v->g->n;
	size_t head_end = c->mode.v > 1 ? n : n - (size_t)c->K + 1;
	size_t tail_start = c->mode.v > 1 ? 0 : (size_t)c->K - 1;
	/* the last stage's sync less the drain's credit, the backward
	 * passes of the K - 1 stages before it, each at most the slowest
	 * load, at least the bound's (the step, mult L + the sync left, is
	 * non-decreasing in L) */
	double credit = c->mode.schedule != PLAN_1F1B ? 0 : (double)(c->K -
	    1) * load_lb / step_mult(NULL, c->m, c->K, &c->mode) /
	    (double)c->mode.v;

	return load_lb + fmax(0, plan_row_sync_floor(c, n - 1, c->K - 1,
	    v->pf_bwd[n] - v->pf_bwd[tail_start] + rerun[n] -
	    rerun[tail_start], v->pf_fwd[n] - v->pf_fwd[tail_start]) -
	    credit) >= best ||
	    load_lb + plan_row_sync_floor(c, 0, 0, v->pf_bwd[head_end] +
	    rerun[head_end], v->pf_fwd[head_end]) >= best;
}

/*
 * The ranked plan of the cell's layout (variant, d, K and interleaving:
 * what Megatron-LM's flags and the micro-batch name; the recomputation,
 * optimizer and split are its runs' settings), or NULL.
 */
static struct ranked *
ranked_of(struct search *s, const struct cell_key *k)
{
	const struct stream *x = &s->streams[k->stream];

	for (size_t i = 0; i < s->ntop; i++)
		if (s->top[i].variant == x->variant && s->top[i].d == k->d &&
		    s->top[i].K == k->K && s->top[i].v == s->modes[x->mode].v)
			return &s->top[i];
	return NULL;
}

static int
cmp_ranked(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;

	if (x->step != y->step)
		return x->step < y->step ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/*
 * The cell's best plan (s->plan, step s->best) among the ranked: in its
 * layout's place if it has one (the search let it through only if
 * faster), else in the last place when all are taken (likewise), else
 * added; then the bound is the last one's step once there are top_n.
 */
static void
rank_cell(struct search *s, const struct cell_key *k)
{
	struct ranked *r = ranked_of(s, k);
	const struct stream *x = &s->streams[k->stream];

	if (r == NULL && s->ntop < s->top_n)
		r = &s->top[s->ntop++];
	else if (r == NULL)
		r = &s->top[s->ntop - 1];
	free(r->plan.stage);
	r->plan = *s->plan;
	s->plan->stage = NULL;
	r->step = s->best;
	r->variant = x->variant;
	r->d = k->d;
	r->K = k->K;
	r->v = s->modes[x->mode].v;
	r->seq = s->nfound++;
	qsort(s->top, s->ntop, sizeof *s->top, cmp_ranked);
	if (s->ntop == s->top_n)
		s->bound = s->top[s->ntop - 1].step;
}

/*
 * A cell's bound placed stage-major: a replica's neighbouring stages d w
 * apart, their boundary at the first level spanning (d + 1) w (the
 * cell's own bound takes 2 w); found only for the cells that reach that
 * placement's search.
 */
static double
stage_bound(struct search *s, const struct cell_key *k)
{
	const struct stream *x = &s->streams[k->stream];
	const struct plan_variant *v = &s->v[x->variant];
	const struct plan_mode *md = &s->modes[x->mode];
	const struct network *net = s->env->net;
	struct cell_iter it = { .s = s, .d = k->d, .K = k->K,
		.m = plan_microbatches(s->env->global_batch, v->b, k->d) };
	int l = level_spanning(net, (k->d + 1) * v->w);
	double lb, lbs;

	it.lbs = sync_floor(x, md, s->alpha_floor[k->d * v->c * v->e]);
	cell_bound(&it, x, md, v, plan_boundary_s(v, net, l, x->cut_bytes),
	    plan_boundary_s(v, net, l, v->chunk_bytes), &lb, &lbs);
	return lb + lbs;
}

/* The step a cell's search must beat: a layout among the ranked is
 * bettered or it is no news. */
static double
cell_target(struct search *s, const struct cell_key *k)
{
	const struct ranked *same = ranked_of(s, k);

	return same && same->step < s->bound ? same->step : s->bound;
}

static void
search_listed(struct search *s, struct cell_key *cells, size_t n,
    struct dp_stats *st)
{
	for (size_t i = 0; i < n && cells[i].lb < s->bound; i++) {
		const struct stream *x = &s->streams[cells[i].stream];
		const struct plan_variant *v = &s->v[x->variant];
		struct plan_cell c;
		int fewest;

		s->best = cell_target(s, &cells[i]);
		if (!(cells[i].lb < s->best))
			continue;
		fewest = -1;
		/* each placement of the cell, a replica's stages together
		 * first (a tie keeps it) */
		for (int place = PLACE_REPLICA; place <= PLACE_STAGE;
		    place <<= 1) {
			struct plan_mode md = s->modes[x->mode];

			if (!(cells[i].placements & place))
				continue;
			if (!((place == PLACE_STAGE ? stage_bound(s,
			    &cells[i]) : cells[i].lb) < s->best))
				continue;
			md.stage_major = place == PLACE_STAGE;
			s->cell_found = 0;
			plan_cell_init(&c, s->env, v, cells[i].d, cells[i].K,
			    &md);
			c.shared = &s->shapes;
			/* a cell whose rows no K stages hold has no plan
			 * (without the test a search with ZeRO, which
			 * nothing bounds until a plan is found, walks the
			 * whole space of every such cell); with ZeRO, whose
			 * bound took one stage, the step's multiplier is at
			 * least m + S - 1 for the fewest stages S.  What fits
			 * is the placements' alike: found once a cell */
			if (fewest < 0) {
				need_reset(s, &c);
				fewest = stages_needed(s, &c, 1, v->g->n);
			}
			if (fewest > c.K || (s->zero_on && (cells[i].lb -
			    cells[i].lb_sync) * ((double)(c.m + fewest - 1) /
			    (double)c.m) + cells[i].lb_sync >= s->best)) {
				plan_cell_release(&c);
				continue;
			}
			if (!s->zero_on && ends_cannot_win(&c, cells[i].lb -
			    cells[i].lb_sync, s->best)) {
				plan_cell_release(&c);
				continue;
			}
			search_cell(s, &c);
			plan_cell_release(&c);
			st->cells_searched++;
			if (s->cell_found) {
				rank_cell(s, &cells[i]);
				/* the other placement must beat this one */
				s->best = cell_target(s, &cells[i]);
			}
		}
	}
}

/*
 * Every cell in order of its lower bound, searched until the bound
 * reaches the best step found.  Tens of millions of cells at 100k
 * devices would not all fit sorted in memory, and most lie above the
 * optimum: a first pass counts the cells of each bound bin, then bands of
 * whole bins (BAND_FIRST cells, growing to BAND_CELLS, or one bin) are
 * listed, sorted and searched in turn, until the next band starts at or
 * above the best step.  The order is the one of a single sorted list: by bound,
 * then by place in the enumeration.
 */
static void
run(struct search *s, size_t ng, struct dp_stats *st)
{
	struct stream *streams;
	size_t nst = list_streams(s, ng, &streams);
	long *count = xcalloc((size_t)LB_NBINS, sizeof *count);
	double *minlb = xcalloc((size_t)LB_NBINS, sizeof *minlb);
	struct cell_key *cells = NULL, c;
	struct cell_iter it = cells_of(s, streams, nst);

	s->streams = streams;
	size_t cap = 0;
	long total = 0, band_cap = BAND_FIRST;

	while (next_cell(&it, &c)) {
		long b = lb_bin(c.lb);

		if (count[b] == 0 || c.lb < minlb[b])
			minlb[b] = c.lb;
		count[b]++;
		total++;
	}
	st->cells += total;
	for (long lo = 0; lo < LB_NBINS;) {
		long hi = lo, band = 0;
		unsigned order = 0;
		size_t n = 0;

		while (lo < LB_NBINS && count[lo] == 0)
			lo++;
		if (lo == LB_NBINS || !(minlb[lo] < s->bound))
			break;
		for (hi = lo; hi < LB_NBINS && (band == 0 ||
		    band + count[hi] <= band_cap); hi++)
			band += count[hi];
		if (band_cap < BAND_CELLS)
			band_cap *= 4;
		if ((size_t)band > cap) {
			cap = (size_t)band;
			cells = xrealloc(cells, cap * sizeof *cells);
		}
		it = cells_of(s, streams, nst);
		while (next_cell(&it, &c)) {
			long b = lb_bin(c.lb);

			c.order = order++;
			if (b >= lo && b < hi)
				cells[n++] = c;
		}
		qsort(cells, n, sizeof *cells, cmp_cell);
		search_listed(s, cells, n, st);
		lo = hi;
	}
	free(cells);
	free(count);
	free(minlb);
	free(streams);
}

int
dp_solve_top(const struct plan_env *env, const struct layer_graph *const *g,
    size_t ng, const struct dp_options *o, size_t top_n, struct plan *plans,
    double *steps_s, size_t *nfound, struct dp_stats *st, struct pl_err *err)
{
	struct plan scratch = { 0 };
	struct search s = { .env = env, .o = o, .best = INFINITY,
	    .bound = INFINITY, .plan = &scratch, .top_n = top_n };
	size_t n = 0;
	int rc = 1;

	memset(st, 0, sizeof *st);
	*nfound = 0;
	if (top_n == 0)
		return pl_errf(err, NULL, 0, "no plan asked for");
	if (ng == 0)
		return pl_errf(err, NULL, 0, "no variant to search");
	if (ng > 65535)
		return pl_errf(err, NULL, 0, "%zu variants: at most 65535", ng);
	/* a cell knows its stages only without ZeRO copies (K = S) */
	if (o->stages_max > 0 && o->zero != DP_ZERO_OFF)
		return pl_errf(err, NULL, 0, "a limit on the stages needs ZeRO "
		    "off");
	s.top = xcalloc(top_n, sizeof *s.top);
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
	if (s.ntop == 0 && o->zero == DP_ZERO_AUTO) {
		s.zero_on = 1;
		st->zero_used = 1;
		run(&s, ng, st);
	}
	for (size_t i = 0; i < s.ntop; i++) {
		plans[i] = s.top[i].plan;
		steps_s[i] = s.top[i].step;
	}
	*nfound = s.ntop;
	rc = s.ntop > 0 ? 0 : 1;
out:
	st->states = s.states;
	for (size_t i = 0; i < ng; i++)
		plan_variant_release(&s.v[i]);
	free(scratch.stage);
	free(s.top);
	free(s.v);
	free(s.head);
	free(s.pool);
	free(s.alpha_floor);
	for (int i = 0; i < s.nbeta; i++)
		free(s.beta[i].floor);
	free(s.modes);
	free(s.need.e);
	free(s.by_y.e);
	free(s.fit.e);
	plan_shape_cache_release(&s.shapes);
	return rc;
}

int
dp_solve(const struct plan_env *env, const struct layer_graph *const *g,
    size_t ng, const struct dp_options *o, struct plan *best, double *step_s,
    struct dp_stats *st, struct pl_err *err)
{
	size_t found;

	memset(best, 0, sizeof *best);
	return dp_solve_top(env, g, ng, o, 1, best, step_s, &found, st, err);
}
