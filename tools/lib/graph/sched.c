/* sched.c - per-layer schedule: decomposition, bounds, list schedules. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "graph/ilp.h"
#include "graph/sched.h"

#define SAME(a, b) (fabs((a) - (b)) <= 1e-9 * fmax(fabs(a), fabs(b)))

static void
mode_needs(const struct sched_problem *p, size_t j, int intra, long *tc,
    long *vc, double *d)
{
	if (intra) {		/* all cores: nothing else runs */
		*tc = p->tc_cores;
		*vc = p->vc_cores;
		*d = p->op[j].intra;
	} else {
		sched_needs(&p->op[j], tc, vc);
		*d = p->op[j].single;
	}
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double
sched_sgs(const struct sched_problem *p, const size_t *order, const int *intra,
    double *start)
{
	size_t n = p->n, nplaced = 0;
	double *st = xmalloc(n * sizeof(double)), *en = xmalloc(n * sizeof(double));
	double *cand = xmalloc((n + 1) * sizeof(double));
	long *utc = xmalloc(n * sizeof(long)), *uvc = xmalloc(n * sizeof(long));
	size_t *placed = xmalloc(n * sizeof(size_t));
	double makespan = 0;

	for (size_t idx = 0; idx < n; idx++) {
		size_t j = order[idx], nc = 0;
		long tc, vc;
		double d, t = 0, at = 0;

		mode_needs(p, j, intra && intra[j], &tc, &vc, &d);
		for (size_t q = 0; q < nplaced; q++) {
			size_t i = placed[q];

			if (p->before[i * n + j] && en[i] > t)
				t = en[i];
		}
		/* the earliest feasible start is the earliest start or the
		 * end of a placed operator: try them in order, first fit */
		cand[nc++] = t;
		for (size_t q = 0; q < nplaced; q++)
			if (en[placed[q]] > t)
				cand[nc++] = en[placed[q]];
		qsort(cand, nc, sizeof(double), cmp_double);
		for (size_t c = 0; c < nc; c++) {
			double s = cand[c];
			int ok = 1;

			/* usage only rises at starts: check s and each start
			 * inside (s, s + d) */
			for (size_t a = 0; a <= nplaced && ok; a++) {
				double tau = a == nplaced ? s : st[placed[a]];
				long ctc = tc, cvc = vc;

				if (a < nplaced && (tau <= s || tau >= s + d))
					continue;
				for (size_t q = 0; q < nplaced; q++) {
					size_t i = placed[q];

					if (st[i] <= tau && tau < en[i]) {
						ctc += utc[i];
						cvc += uvc[i];
					}
				}
				ok = ctc <= p->tc_cores && cvc <= p->vc_cores;
			}
			if (ok) {
				at = s;
				break;
			}
		}
		st[j] = at;
		en[j] = at + d;
		utc[j] = d > 0 ? tc : 0;
		uvc[j] = d > 0 ? vc : 0;
		placed[nplaced++] = j;
		if (en[j] > makespan)
			makespan = en[j];
	}
	if (start)
		memcpy(start, st, n * sizeof(double));
	free(st);
	free(en);
	free(cand);
	free(utc);
	free(uvc);
	free(placed);
	return makespan;
}

/* ---- exhaustive search, for tests ---------------------------------- */

struct brute {
	const struct sched_problem *p;
	int *intra;
	size_t *order;
	unsigned char *used;
	double best;
};

static void
brute_orders(struct brute *b, size_t depth)
{
	size_t n = b->p->n;

	if (depth == n) {
		double m = sched_sgs(b->p, b->order, b->intra, NULL);

		if (m < b->best)
			b->best = m;
		return;
	}
	for (size_t j = 0; j < n; j++) {
		int ready = !b->used[j];

		for (size_t i = 0; i < n && ready; i++)
			if (b->p->before[i * n + j] && !b->used[i])
				ready = 0;
		if (!ready)
			continue;
		b->used[j] = 1;
		b->order[depth] = j;
		brute_orders(b, depth + 1);
		b->used[j] = 0;
	}
}

double
sched_brute_force(const struct sched_problem *p)
{
	struct brute b;
	size_t n = p->n;

	b.p = p;
	b.intra = xcalloc(n ? n : 1, sizeof(int));
	b.order = xmalloc((n ? n : 1) * sizeof(size_t));
	b.used = xcalloc(n ? n : 1, 1);
	b.best = n ? HUGE_VAL : 0;
	for (unsigned long modes = 0; n && modes < (1UL << n); modes++) {
		for (size_t j = 0; j < n; j++)
			b.intra[j] = (int)((modes >> j) & 1);
		brute_orders(&b, 0);
	}
	free(b.intra);
	free(b.order);
	free(b.used);
	return b.best;
}

/* ---- bounds and list schedules --------------------------------------- */

/* Longest chain with each operator in its faster mode. */
static double
critical_path(const struct sched_problem *p)
{
	size_t n = p->n, *npred = xcalloc(n ? n : 1, sizeof(size_t));
	double *finish = xcalloc(n ? n : 1, sizeof(double)), cp = 0;
	unsigned char *done = xcalloc(n ? n : 1, 1);

	/* the relation is transitively closed: fewer predecessors first is
	 * a topological order */
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < n; j++)
			npred[j] += p->before[i * n + j];
	for (size_t k = 0; k < n; k++) {
		size_t j = n;

		for (size_t c = 0; c < n; c++)
			if (!done[c] && (j == n || npred[c] < npred[j]))
				j = c;
		done[j] = 1;
		for (size_t i = 0; i < n; i++)
			if (p->before[i * n + j] && finish[i] > finish[j])
				finish[j] = finish[i];
		finish[j] += fmin(p->op[j].single, p->op[j].intra);
		if (finish[j] > cp)
			cp = finish[j];
	}
	free(npred);
	free(finish);
	free(done);
	return cp;
}

/* Core-time per kind: every operator occupies at least min(single time
 * on one core, intra time on all of them) of each kind it needs. */
static double
core_time_bound(const struct sched_problem *p)
{
	double tc = 0, vc = 0;

	for (size_t j = 0; j < p->n; j++) {
		const struct sched_op *o = &p->op[j];
		long ntc, nvc;

		sched_needs(o, &ntc, &nvc);
		if (ntc)
			tc += fmin(o->single, (double)p->tc_cores * o->intra);
		if (nvc)
			vc += fmin(o->single, (double)p->vc_cores * o->intra);
	}
	return fmax(tc / (double)p->tc_cores, vc / (double)p->vc_cores);
}

/* A precedence-feasible order: always the ready operator with the
 * longest remaining chain (tail) first. */
static void
tail_order(const struct sched_problem *p, const int *intra, size_t *order)
{
	size_t n = p->n;
	double *tail = xcalloc(n, sizeof(double));
	unsigned char *done = xcalloc(n, 1);

	for (size_t j = 0; j < n; j++) {
		double d = intra && intra[j] ? p->op[j].intra : p->op[j].single;

		tail[j] = d;
		for (size_t k = 0; k < n; k++)
			if (p->before[j * n + k]) {
				double dk = intra && intra[k] ? p->op[k].intra :
				    p->op[k].single;

				tail[j] += dk;	/* a crude but monotone tail */
			}
	}
	for (size_t idx = 0; idx < n; idx++) {
		size_t best = n;

		for (size_t j = 0; j < n; j++) {
			int ready = !done[j];

			for (size_t i = 0; i < n && ready; i++)
				if (p->before[i * n + j] && !done[i])
					ready = 0;
			if (ready && (best == n || tail[j] > tail[best]))
				best = j;
		}
		order[idx] = best;
		done[best] = 1;
	}
	free(tail);
	free(done);
}

/* A fixed-seed generator (xorshift64*): the heuristic, and so every
 * output, is the same on every run. */
static unsigned long long
next_random(unsigned long long *state)
{
	*state ^= *state >> 12;
	*state ^= *state << 25;
	*state ^= *state >> 27;
	return *state * 2685821657736338717ULL;
}

/* A random precedence-feasible order, biased towards long tails. */
static void
random_order(const struct sched_problem *p, unsigned long long *rng,
    size_t *order)
{
	size_t n = p->n, *ready = xmalloc(n * sizeof(size_t));
	unsigned char *done = xcalloc(n, 1);

	for (size_t idx = 0; idx < n; idx++) {
		size_t nr = 0;

		for (size_t j = 0; j < n; j++) {
			int ok = !done[j];

			for (size_t i = 0; i < n && ok; i++)
				if (p->before[i * n + j] && !done[i])
					ok = 0;
			if (ok)
				ready[nr++] = j;
		}
		order[idx] = ready[next_random(rng) % nr];
		done[order[idx]] = 1;
	}
	free(ready);
	free(done);
}

#define ORDERS_PER_MODE 16
#define SEARCH_ROUNDS 4
#define PAIR_FLIPS_UP_TO 20	/* ops; pairs of flips beyond that cost too much */

/* The best of the tail order and a fixed number of random orders, for
 * one vector of modes. */
static double
best_order(const struct sched_problem *p, const int *modes,
    unsigned long long *rng, size_t *order, double *st, double *best_st)
{
	double best = HUGE_VAL;

	for (int k = 0; k <= ORDERS_PER_MODE; k++) {
		double m;

		if (k == 0)
			tail_order(p, modes, order);
		else
			random_order(p, rng, order);
		m = sched_sgs(p, order, modes, st);
		if (m < best) {
			best = m;
			memcpy(best_st, st, p->n * sizeof(double));
		}
	}
	return best;
}

/*
 * An upper bound: list schedules from three starting mode vectors (all
 * single, intra wherever faster, intra where more than twice as fast),
 * then a local search that flips one operator's mode at a time (and in
 * small blocks two) and keeps every improvement.  Orders come from a fixed-seed generator, so the
 * result is the same on every run.  The best modes and starts are kept.
 */
static double
upper_bound(const struct sched_problem *p, int *intra, double *start)
{
	size_t n = p->n, *order = xmalloc(n * sizeof(size_t));
	int *modes = xmalloc(n * sizeof(int));
	double *st = xmalloc(n * sizeof(double));
	double *cur_st = xmalloc(n * sizeof(double)), best = HUGE_VAL;
	unsigned long long rng = 0x9E3779B97F4A7C15ULL;

	for (int variant = 0; variant < 3; variant++) {
		double m;

		for (size_t j = 0; j < n; j++) {
			const struct sched_op *o = &p->op[j];

			modes[j] = variant == 1 ? o->intra < o->single :
			    variant == 2 ? o->intra * 2 < o->single : 0;
		}
		m = best_order(p, modes, &rng, order, st, cur_st);
		if (m < best) {
			best = m;
			memcpy(intra, modes, n * sizeof(int));
			memcpy(start, cur_st, n * sizeof(double));
		}
	}
	for (int round = 0; round < SEARCH_ROUNDS; round++) {
		int improved = 0;

		/* one flip at a time; then, for small blocks, two at once (two
		 * ops sharing the vector cores in single mode beat both on
		 * all cores only together) */
		for (size_t j = 0; j < n; j++)
			for (size_t k = j; k < n; k++) {
				double m;

				if (k > j && (improved || n > PAIR_FLIPS_UP_TO))
					break;
				memcpy(modes, intra, n * sizeof(int));
				modes[j] = !modes[j];
				if (k > j)
					modes[k] = !modes[k];
				m = best_order(p, modes, &rng, order, st, cur_st);
				if (m < best - 1e-12 * best) {
					best = m;
					memcpy(intra, modes, n * sizeof(int));
					memcpy(start, cur_st, n * sizeof(double));
					improved = 1;
				}
			}
		if (!improved)
			break;
	}
	free(order);
	free(modes);
	free(st);
	free(cur_st);
	return best;
}

/* ---- decomposition ---------------------------------------------------- */

static void
sub_problem(const struct sched_problem *p, const size_t *ids, size_t m,
    struct sched_problem *b)
{
	b->n = m;
	b->tc_cores = p->tc_cores;
	b->vc_cores = p->vc_cores;
	b->op = xmalloc((m ? m : 1) * sizeof(struct sched_op));
	b->before = xcalloc(m * m + 1, 1);
	for (size_t i = 0; i < m; i++) {
		b->op[i] = p->op[ids[i]];
		for (size_t j = 0; j < m; j++)
			b->before[i * m + j] = p->before[ids[i] * p->n + ids[j]];
	}
}

int
sched_solve(const struct sched_problem *p, const struct sched_opts *o,
    struct sched_result *r, struct pl_err *err)
{
	size_t n = p->n, *block = xcalloc(n ? n : 1, sizeof(size_t));
	size_t *ids = xmalloc((n ? n : 1) * sizeof(size_t)), ncuts = 0;
	unsigned char *cut = xcalloc(n ? n : 1, 1);
	size_t off = 0;
	int ret = 0;

	memset(r, 0, sizeof(*r));
	r->optimal = 1;
	for (size_t j = 0; j < n; j++) {
		cut[j] = 1;
		for (size_t k = 0; k < n && cut[j]; k++)
			if (k != j && !p->before[j * n + k] && !p->before[k * n + j])
				cut[j] = 0;
		if (cut[j]) {
			ncuts++;
			r->makespan += fmin(p->op[j].single, p->op[j].intra);
		}
	}
	/* a block is the operators after the same number of cuts */
	for (size_t k = 0; k < n; k++)
		for (size_t j = 0; j < n; j++)
			if (cut[j] && p->before[j * n + k])
				block[k]++;
	r->bound = r->makespan;
	r->cuts = (int)ncuts;
	off = (size_t)snprintf(r->status, sizeof(r->status), "cuts=%zu,blocks=",
	    ncuts);
	for (size_t b = 0; b <= ncuts && ret == 0; b++) {
		struct sched_problem sub;
		size_t m = 0;
		double lb, ub, best, bound;
		int *intra, optimal = 1;
		double *start;
		const char *how = "bounds";

		for (size_t k = 0; k < n; k++)
			if (!cut[k] && block[k] == b)
				ids[m++] = k;
		if (m == 0)
			continue;
		sub_problem(p, ids, m, &sub);
		intra = xcalloc(m, sizeof(int));
		start = xcalloc(m, sizeof(double));
		lb = fmax(critical_path(&sub), core_time_bound(&sub));
		ub = upper_bound(&sub, intra, start);
		best = ub;
		bound = lb;
		if (!SAME(lb, ub)) {
			how = "ilp";
			r->ilp_blocks++;
			ret = ilp_schedule(&sub, lb, ub, intra, start, o, &best,
			    &bound, &optimal, err);
		} else {
			bound = ub;
		}
		r->makespan += best;
		r->bound += optimal ? best : bound;
		r->optimal &= optimal;
		r->blocks++;
		if (off < sizeof(r->status))
			off += (size_t)snprintf(r->status + off,
			    sizeof(r->status) - off, "%s%zu:%s%s", r->blocks > 1 ?
			    "," : "", m, how, optimal ? "" : "(gap)");
		free(intra);
		free(start);
		free(sub.op);
		free(sub.before);
	}
	free(block);
	free(ids);
	free(cut);
	return ret;
}
