/*
 * form.c - the step of an alike pipeline as a function of its passes'
 * times: the orders run once over sets of chain counts (form.h).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim/form.h"

/* The counts of the chains that may be the longest up to an operation's
 * end, shared by the operations that wait for it (refs). */
struct cset {
	int refs, n;
	int c[][FORM_N];
};

/* Whether count a is at least b for every F, B >= W >= 0 and P >= 0:
 * with F = W + f', B = W + b', a - b is (aF - bF) f' + (aB - bB) b' +
 * (sum a - sum b) W + (aP - bP) P. */
static int
beats(const int *a, const int *b)
{
	return a[FORM_F] >= b[FORM_F] && a[FORM_B] >= b[FORM_B] &&
	    a[FORM_P] >= b[FORM_P] && a[FORM_F] + a[FORM_B] + a[FORM_W] >=
	    b[FORM_F] + b[FORM_B] + b[FORM_W];
}

struct scratch {
	int (*c)[FORM_N];
	unsigned char *gone;		/* [cap] */
	size_t n, cap;
	/* sampled (pipe_form_sample): keep only the longest at these */
	const int (*at)[FORM_N];
	size_t nat;
};

static void
scratch_add(struct scratch *s, const struct cset *set)
{
	if (!set)
		return;
	if (s->n + (size_t)set->n > s->cap) {
		s->cap = 2 * (s->n + (size_t)set->n);
		s->c = xrealloc(s->c, s->cap * sizeof *s->c);
		s->gone = xrealloc(s->gone, s->cap);
	}
	memcpy(s->c + s->n, set->c, (size_t)set->n * sizeof *set->c);
	s->n += (size_t)set->n;
}

static void prune_mixes(struct scratch *s, unsigned char *gone);

/* Counts compared in (F, B, W, P) order. */
static int
memcmp_counts(const int *a, const int *b)
{
	for (int k = 0; k < FORM_N; k++)
		if (a[k] != b[k])
			return a[k] < b[k] ? -1 : 1;
	return 0;
}

/* A count's time at an integer point, exactly. */
static long long
time_of(const int *c, const int *at)
{
	long long t = 0;

	for (int k = 0; k < FORM_N; k++)
		t += (long long)c[k] * at[k];
	return t;
}

/* Sampled: keep the count longest at each point, of equal ones the
 * greatest in (F, B, W, P) order (what is kept does not hang on the
 * order they came in), each once. */
static void
prune_at(struct scratch *s)
{
	size_t kept = 0;

	memset(s->gone, 1, s->n);
	for (size_t p = 0; p < s->nat; p++) {
		long long t_best = -1;
		size_t best = 0;

		for (size_t i = 0; i < s->n; i++) {
			long long t = time_of(s->c[i], s->at[p]);

			if (t > t_best || (t == t_best && memcmp_counts(s->c[i],
			    s->c[best]) > 0)) {
				t_best = t;
				best = i;
			}
		}
		s->gone[best] = 0;
	}
	/* equal counts once */
	for (size_t i = 0; i < s->n; i++)
		for (size_t j = 0; j < i && !s->gone[i]; j++)
			if (!s->gone[j] && memcmp_counts(s->c[i], s->c[j]) == 0)
				s->gone[i] = 1;
	for (size_t i = 0; i < s->n; i++)
		if (!s->gone[i])
			memmove(s->c[kept++], s->c[i], sizeof *s->c);
	s->n = kept;
}

/* Keep the counts no other one beats (of equal ones, the first), then
 * those no mix of two beats. */
static void
prune(struct scratch *s)
{
	size_t kept = 0;

	if (s->at) {
		prune_at(s);
		return;
	}
	for (size_t i = 0; i < s->n; i++) {
		int dropped = 0;

		for (size_t j = 0; j < s->n && !dropped; j++)
			if (j != i && beats(s->c[j], s->c[i]) &&
			    (j < i || !beats(s->c[i], s->c[j])))
				dropped = 1;
		if (!dropped)
			memmove(s->c[kept++], s->c[i], sizeof *s->c);
	}
	s->n = kept;
	if (s->n > 2)
		prune_mixes(s, s->gone);
}

/* The functionals the cone's order compares counts by (beats). */
static long long
functional(const int *a, int g)
{
	return g == 3 ? (long long)a[FORM_F] + a[FORM_B] + a[FORM_W] :
	    a[g == 0 ? FORM_F : g == 1 ? FORM_B : FORM_P];
}

/*
 * Whether some mix l a + (1 - l) b, 0 <= l <= 1, beats c: then c is never
 * longer than both a and b, and the step needs no c.  Each functional g
 * bounds l from one side, l (g(a) - g(b)) >= g(c) - g(b); the bounds are
 * kept as fractions, compared exactly.
 */
static int
mix_beats(const int *a, const int *b, const int *c)
{
	long long lo_n = 0, lo_d = 1, hi_n = 1, hi_d = 1;

	for (int g = 0; g < 4; g++) {
		long long d = functional(a, g) - functional(b, g);
		long long need = functional(c, g) - functional(b, g);

		if (d == 0) {
			if (need > 0)
				return 0;
		} else if (d > 0) {
			if (need * lo_d > lo_n * d) {	/* need/d > lo */
				lo_n = need;
				lo_d = d;
			}
		} else if (need * hi_d > hi_n * d) {	/* need/d < hi */
			hi_n = -need;
			hi_d = -d;
		}
	}
	return lo_n * hi_d <= hi_n * lo_d;
}

/* Keep what no mix of two others beats (after prune): each dropped
 * one is beaten by a mix of two still kept then, so the kept ones' longest
 * is the longest of all. */
static void
prune_mixes(struct scratch *s, unsigned char *gone)
{
	size_t kept = 0;

	memset(gone, 0, s->n);
	for (size_t i = 0; i < s->n; i++)
		for (size_t a = 0; a < s->n && !gone[i]; a++)
			for (size_t b = a + 1; b < s->n && !gone[i]; b++)
				if (a != i && b != i && !gone[a] && !gone[b] &&
				    mix_beats(s->c[a], s->c[b], s->c[i]))
					gone[i] = 1;
	for (size_t i = 0; i < s->n; i++)
		if (!gone[i])
			memmove(s->c[kept++], s->c[i], sizeof *s->c);
	s->n = kept;
}

/* The scratch's counts plus one operation of kind-counts add. */
static struct cset *
cset_of(const struct scratch *s, const int *add)
{
	struct cset *set = xmalloc(sizeof *set + s->n * sizeof *set->c);

	set->refs = 1;
	set->n = (int)s->n;
	for (size_t i = 0; i < s->n; i++)
		for (int k = 0; k < FORM_N; k++)
			set->c[i][k] = s->c[i][k] + add[k];
	return set;
}

static void
cset_put(struct cset *set)
{
	if (set && --set->refs == 0)
		free(set);
}

/* A pass's result, kept until the passes that wait for it have taken it
 * (uses of them). */
struct done {
	struct cset *set;
	int uses;
};

static void
take(struct done *d)
{
	if (--d->uses <= 0) {
		cset_put(d->set);
		d->set = NULL;
	}
}

struct part {
	int kind;
	size_t slot, at;
	int j;
};

static int
form_run(const struct pipe_order *orders, int S, int v, long m,
    const int *route, const int (*points)[FORM_N], size_t npoints,
    struct pipe_form *out, struct pl_err *err)
{
	int L = S * v, ok = 1;
	size_t cells = (size_t)L * (size_t)m;
	int *slot_at = xmalloc((size_t)L * sizeof *slot_at);
	int *pos_of = xmalloc((size_t)L * sizeof *pos_of);
	unsigned char *split = xcalloc(cells, 1);
	struct done *fdone = xcalloc(cells, sizeof *fdone);
	struct done *bdone = xcalloc(cells, sizeof *bdone);
	struct cset **rank_end = xcalloc((size_t)S, sizeof *rank_end);
	size_t *pos = xcalloc((size_t)S, sizeof *pos);
	long *held = xcalloc((size_t)S, sizeof *held);
	struct scratch s = { .at = points, .nat = npoints };

	memset(out, 0, sizeof *out);
	out->S = S;
	out->v = v;
	out->m = m;
	out->peak_chunks = xcalloc((size_t)S, sizeof *out->peak_chunks);
	for (int j = 0; j < L; j++) {
		slot_at[j] = route ? route[j] : (j % S) * v + j / S;
		pos_of[slot_at[j]] = j;
	}
	for (int r = 0; r < S; r++) {
		/* a rank starts free at 0: the empty chain */
		rank_end[r] = xcalloc(1, sizeof *rank_end[r] +
		    sizeof *rank_end[r]->c);
		rank_end[r]->refs = rank_end[r]->n = 1;
		for (size_t i = 0; i < orders[r].n; i++)
			if (orders[r].op[i].kind == PIPE_W)
				split[((size_t)r * (size_t)v +
				    (size_t)orders[r].op[i].chunk) * (size_t)m +
				    (size_t)orders[r].op[i].mb] = 1;
	}
	/* who waits for each pass: a forward pass's output the next
	 * position's forward pass and its own backward pass; a backward
	 * pass's the previous position's and its W pass */
	for (size_t at = 0; at < cells; at++) {
		int j = pos_of[at / (size_t)m];

		fdone[at].uses = 1 + (j + 1 < L);
		bdone[at].uses = (j > 0) + split[at];
	}
	/* ranks in turn, each as far as its inputs allow, until none moves
	 * (the orders' own cycles then leave one short) */
	for (int moved = 1; moved;) {
		moved = 0;
		for (int r = 0; r < S; r++)
			while (pos[r] < orders[r].n) {
				const struct pipe_op *op = &orders[r].op[pos[r]];
				int pair = op->kind == PIPE_FB, np = pair ? 2 : 1;
				int add[FORM_N] = { 0 };
				struct done *in[4];
				int nin = 0, ready = 1;
				struct part p[2];
				struct cset *end;

				for (int h = 0; h < np; h++) {
					int c = h ? op->bchunk : op->chunk;
					long mb = h ? op->bmb : op->mb;

					p[h].kind = pair ? (h ? PIPE_B : PIPE_F) :
					    op->kind;
					p[h].slot = (size_t)r * (size_t)v +
					    (size_t)c;
					p[h].at = p[h].slot * (size_t)m +
					    (size_t)mb;
					p[h].j = pos_of[p[h].slot];
					if (p[h].kind == PIPE_F) {
						if (p[h].j > 0)
							in[nin++] = &fdone[(size_t)
							    slot_at[p[h].j - 1] *
							    (size_t)m + (size_t)mb];
					} else if (p[h].kind == PIPE_B) {
						in[nin++] = &fdone[p[h].at];
						if (p[h].j + 1 < L)
							in[nin++] = &bdone[(size_t)
							    slot_at[p[h].j + 1] *
							    (size_t)m + (size_t)mb];
					} else
						in[nin++] = &bdone[p[h].at];
				}
				for (int i = 0; i < nin; i++)
					ready &= in[i]->set != NULL;
				if (!ready)
					break;
				s.n = 0;
				scratch_add(&s, rank_end[r]);
				for (int i = 0; i < nin; i++) {
					scratch_add(&s, in[i]->set);
					take(in[i]);
				}
				prune(&s);
				if (pair)
					add[FORM_P] = 1;
				else if (op->kind == PIPE_F)
					add[FORM_F] = 1;
				else if (op->kind == PIPE_W)
					add[FORM_W] = 1;
				else {
					add[FORM_B] = 1;
					add[FORM_W] = !split[p[0].at];
				}
				end = cset_of(&s, add);
				for (int h = 0; h < np; h++) {
					struct done *d = p[h].kind == PIPE_F ?
					    &fdone[p[h].at] : p[h].kind == PIPE_B ?
					    &bdone[p[h].at] : NULL;

					if (p[h].kind == PIPE_F &&
					    ++held[r] > out->peak_chunks[r])
						out->peak_chunks[r] = held[r];
					if (p[h].kind == PIPE_W ||
					    (p[h].kind == PIPE_B &&
					    !split[p[h].at]))
						held[r]--;
					if (d && d->uses > 0) {
						end->refs++;
						d->set = end;
					}
				}
				cset_put(rank_end[r]);
				rank_end[r] = end;
				pos[r]++;
				moved = 1;
			}
	}
	for (int r = 0; r < S && ok; r++)
		if (pos[r] < orders[r].n) {
			pl_errf(err, NULL, 0, "pipeline form: rank %d waits for "
			    "the input to its operation %zu, which the orders "
			    "never let come (a deadlock)", r, pos[r]);
			ok = 0;
		}
	if (ok) {
		s.n = 0;
		for (int r = 0; r < S; r++)
			scratch_add(&s, rank_end[r]);
		prune(&s);
		out->n = s.n;
		out->count = xmalloc((s.n ? s.n : 1) * sizeof *out->count);
		memcpy(out->count, s.c, s.n * sizeof *s.c);
	}
	for (size_t at = 0; at < cells; at++) {
		cset_put(fdone[at].set);
		cset_put(bdone[at].set);
	}
	for (int r = 0; r < S; r++)
		cset_put(rank_end[r]);
	free(s.c);
	free(s.gone);
	free(slot_at);
	free(pos_of);
	free(split);
	free(fdone);
	free(bdone);
	free(rank_end);
	free(pos);
	free(held);
	if (!ok) {
		pipe_form_release(out);
		return -1;
	}
	return 0;
}

double
pipe_form_step(const struct pipe_form *f, double F, double B, double W,
    double P)
{
	double x[FORM_N], step = 0;

	x[FORM_F] = F > W ? F : W;
	x[FORM_B] = B > W ? B : W;
	x[FORM_W] = W;
	x[FORM_P] = P;
	for (size_t i = 0; i < f->n; i++) {
		double t = 0;

		for (int k = 0; k < FORM_N; k++)
			t += f->count[i][k] * x[k];
		if (t > step)
			step = t;
	}
	return step;
}

int
pipe_form_build(const struct pipe_order *orders, int S, int v, long m,
    const int *route, struct pipe_form *out, struct pl_err *err)
{
	return form_run(orders, S, v, m, route, NULL, 0, out, err);
}

int
pipe_form_sample(const struct pipe_order *orders, int S, int v, long m,
    const int *route, const int (*at)[FORM_N], size_t nat,
    struct pipe_form *out, struct pl_err *err)
{
	return form_run(orders, S, v, m, route, at, nat, out, err);
}

int
pipe_form_is_shift(const struct pipe_form *a, const struct pipe_form *b,
    const int *round)
{
	if (a->S != b->S || a->v != b->v || a->n != b->n ||
	    memcmp(a->peak_chunks, b->peak_chunks, (size_t)a->S *
	    sizeof *a->peak_chunks) != 0)
		return 0;
	/* both sets' counts distinct (prune keeps one of equal ones) */
	for (size_t i = 0; i < b->n; i++) {
		int found = 0;

		for (size_t j = 0; j < a->n && !found; j++) {
			found = 1;
			for (int k = 0; k < FORM_N; k++)
				found &= b->count[i][k] == a->count[j][k] +
				    round[k];
		}
		if (!found)
			return 0;
	}
	return 1;
}

void
pipe_form_shifted(const struct pipe_form *a, long k, const int *round,
    struct pipe_form *out)
{
	*out = *a;
	out->m = a->m + k;
	out->count = xmalloc((a->n ? a->n : 1) * sizeof *out->count);
	for (size_t i = 0; i < a->n; i++)
		for (int x = 0; x < FORM_N; x++)
			out->count[i][x] = a->count[i][x] + (int)(k * round[x]);
	out->peak_chunks = xmalloc((size_t)a->S * sizeof *out->peak_chunks);
	memcpy(out->peak_chunks, a->peak_chunks, (size_t)a->S *
	    sizeof *out->peak_chunks);
}

/* Count i's time at the triangle's point (a, b): a of (1, 0, 0), b of
 * (0, 1, 0), the rest of (1/3, 1/3, 1/3). */
static double
time_at(const struct pipe_form *f, size_t i, double a, double b, double pair)
{
	const int *c = f->count[i];
	double rest = (1 - a - b) / 3;

	return c[FORM_F] * (a + rest) + c[FORM_B] * (b + rest) +
	    c[FORM_W] * rest + c[FORM_P] * pair;
}

static double
longest_at(const struct pipe_form *f, double a, double b, double pair)
{
	double t = 0;

	for (size_t i = 0; i < f->n; i++)
		t = fmax(t, time_at(f, i, a, b, pair));
	return t;
}

/* A count's time as g0 + ga a + gb b over the triangle. */
static void
plane_of(const struct pipe_form *f, size_t i, double pair, double *g)
{
	g[0] = time_at(f, i, 0, 0, pair);
	g[1] = time_at(f, i, 1, 0, pair) - g[0];
	g[2] = time_at(f, i, 0, 1, pair) - g[0];
}

double
pipe_form_floor(const struct pipe_form *f, double pair)
{
	/* the triangle's edges as (point, direction) in (a, b) */
	static const double edge[3][4] = { { 0, 0, 1, 0 }, { 0, 0, 0, 1 },
	    { 1, 0, -1, 1 } };
	double best = fmin(longest_at(f, 1, 0, pair), fmin(longest_at(f, 0,
	    1, pair), longest_at(f, 0, 0, pair)));

	for (size_t i = 0; i < f->n; i++)
		for (size_t j = i + 1; j < f->n; j++) {
			double gi[3], gj[3], d[3];

			plane_of(f, i, pair, gi);
			plane_of(f, j, pair, gj);
			for (int k = 0; k < 3; k++)
				d[k] = gi[k] - gj[k];
			/* where the two meet on each edge */
			for (int e = 0; e < 3; e++) {
				double den = d[1] * edge[e][2] + d[2] * edge[e][3];
				double t;

				if (den == 0)
					continue;
				t = -(d[0] + d[1] * edge[e][0] + d[2] *
				    edge[e][1]) / den;
				if (t >= 0 && t <= 1)
					best = fmin(best, longest_at(f,
					    edge[e][0] + t * edge[e][2],
					    edge[e][1] + t * edge[e][3], pair));
			}
			/* and where a third meets them inside */
			for (size_t k = j + 1; k < f->n; k++) {
				double gk[3], e2[3], det, a, b;

				plane_of(f, k, pair, gk);
				for (int x = 0; x < 3; x++)
					e2[x] = gi[x] - gk[x];
				det = d[1] * e2[2] - d[2] * e2[1];
				if (det == 0)
					continue;
				a = (-d[0] * e2[2] + d[2] * e2[0]) / det;
				b = (-d[1] * e2[0] + d[0] * e2[1]) / det;
				if (a >= 0 && b >= 0 && a + b <= 1)
					best = fmin(best, longest_at(f, a, b,
					    pair));
			}
		}
	/* the points are found in floating point: a hair below, as a
	 * lower bound must be */
	return best * (1 - 1e-9);
}

void
pipe_form_release(struct pipe_form *f)
{
	free(f->count);
	free(f->peak_chunks);
	memset(f, 0, sizeof *f);
}
