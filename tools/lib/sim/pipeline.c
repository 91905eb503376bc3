/* pipeline.c - one step of a pipeline schedule, simulated (pipeline.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim/pipeline.h"

static void
push(struct pipe_order *o, size_t *cap, int kind, int chunk, long mb)
{
	if (o->n == *cap) {
		*cap = *cap ? 2 * *cap : 16;
		o->op = xrealloc(o->op, *cap * sizeof *o->op);
	}
	o->op[o->n++] = (struct pipe_op){ .kind = kind, .chunk = chunk,
	    .mb = mb };
}

/* A pair: micro-batch mb's forward pass of chunk c overlapped with the
 * whole backward pass of micro-batch bmb, chunk bc. */
static void
push_pair(struct pipe_order *o, size_t *cap, int c, long mb, int bc, long bmb)
{
	push(o, cap, PIPE_FB, c, mb);
	o->op[o->n - 1].bchunk = bc;
	o->op[o->n - 1].bmb = bmb;
}

/* Warm-up forward passes, then one forward and one backward pass in
 * turn (merged into an overlapped pair where `merged`: the combined
 * 1F1B), then the backward passes left: the shape of every 1F1B order,
 * over a rank's forward and backward tables of n passes each. */
static void
one_f_one_b(const struct pipe_op *fwd, const struct pipe_op *bwd, size_t n,
    size_t warm, int merged, struct pipe_order *out)
{
	size_t cap = 0;

	memset(out, 0, sizeof *out);
	if (warm > n)
		warm = n;
	for (size_t i = 0; i < warm; i++)
		push(out, &cap, PIPE_F, fwd[i].chunk, fwd[i].mb);
	for (size_t i = warm; i < n; i++) {
		const struct pipe_op *b = &bwd[i - warm];

		if (merged) {
			push_pair(out, &cap, fwd[i].chunk, fwd[i].mb,
			    b->chunk, b->mb);
			continue;
		}
		push(out, &cap, PIPE_F, fwd[i].chunk, fwd[i].mb);
		push(out, &cap, PIPE_B, b->chunk, b->mb);
	}
	for (size_t i = n - warm; i < n; i++)
		push(out, &cap, PIPE_B, bwd[i].chunk, bwd[i].mb);
}

void
pipe_order_1f1b(int S, int r, long m, struct pipe_order *out)
{
	struct pipe_op *t = xcalloc((size_t)m, sizeof *t);

	for (long i = 0; i < m; i++)
		t[i] = (struct pipe_op){ .kind = PIPE_F, .mb = i };
	one_f_one_b(t, t, (size_t)m, (size_t)(S - r - 1), 0, out);
	free(t);
}

/* Megatron's schedule table of m v passes each way: a group's
 * micro-batches through each chunk in turn, the last group whatever is
 * left (owned: *fwd, *bwd). */
static void
interleaved_tables(int v, long m, long group, struct pipe_op **fwd,
    struct pipe_op **bwd)
{
	size_t n = (size_t)m * (size_t)v, k = 0;

	*fwd = xcalloc(n, sizeof **fwd);
	*bwd = xcalloc(n, sizeof **bwd);
	if (group < 1)
		group = 1;
	for (long g0 = 0; g0 < m; g0 += group) {
		long end = g0 + group >= m ? m : g0 + group;

		for (int c = 0; c < v; c++)
			for (long mb = g0; mb < end; mb++, k++) {
				(*fwd)[k] = (struct pipe_op){ .kind = PIPE_F,
				    .chunk = c, .mb = mb };
				(*bwd)[k] = (struct pipe_op){ .kind = PIPE_B,
				    .chunk = v - 1 - c, .mb = mb };
			}
	}
}

/* Megatron's interleaved order over its tables: 2 (S - r - 1) + (v - 1)
 * group warm-up forward passes, and `combined` more with the steady
 * state's passes merged (the combined 1F1B). */
static void
interleaved_order(int S, int v, int r, long m, long group, int combined,
    struct pipe_order *out)
{
	struct pipe_op *fwd, *bwd;

	interleaved_tables(v, m, group, &fwd, &bwd);
	one_f_one_b(fwd, bwd, (size_t)m * (size_t)v, (size_t)(2 * (S - r -
	    1)) + (size_t)(v - 1) * (size_t)(group < 1 ? 1 : group) +
	    (size_t)combined, combined, out);
	free(fwd);
	free(bwd);
}

void
pipe_order_interleaved(int S, int v, int r, long m, long group,
    struct pipe_order *out)
{
	interleaved_order(S, v, r, m, group, 0, out);
}

void
pipe_order_combined(int S, int v, int r, long m, long group,
    struct pipe_order *out)
{
	interleaved_order(S, v, r, m, group, 1, out);
}

int
pipe_group_ok(int S, long m, long group)
{
	return group >= S && group <= m && (m % group == 0 || m % group >= S);
}

void
pipe_order_gpipe(int S, int v, int r, long m, struct pipe_order *out)
{
	size_t cap = 0;

	(void)S;
	(void)r;
	memset(out, 0, sizeof *out);
	for (int c = 0; c < v; c++)
		for (long mb = 0; mb < m; mb++)
			push(out, &cap, PIPE_F, c, mb);
	for (int c = v - 1; c >= 0; c--)
		for (long mb = 0; mb < m; mb++)
			push(out, &cap, PIPE_B, c, mb);
}

/* A first-in-first-out queue of W passes (the authors' WeightGradStore,
 * DeepSeek's alike). */
struct wqueue {
	struct pipe_op *op;
	size_t head, n;
};

static void
wq_push(struct wqueue *q, int chunk, long mb)
{
	q->op[q->n++] = (struct pipe_op){ .kind = PIPE_W, .chunk = chunk,
	    .mb = mb };
}

static void
wq_pop(struct wqueue *q, struct pipe_order *o, size_t *cap)
{
	const struct pipe_op *w = &q->op[q->head++];

	push(o, cap, PIPE_W, w->chunk, w->mb);
}

void
pipe_order_zbh1(int S, int r, long m, struct pipe_order *out)
{
	long warm = S - r - 1 < m ? S - r - 1 : m;
	struct wqueue q = { xcalloc((size_t)m, sizeof *q.op), 0, 0 };
	size_t cap = 0;
	long f = 0;

	memset(out, 0, sizeof *out);
	while (f < warm)
		push(out, &cap, PIPE_F, 0, f++);
	for (long b = 0; b < m; b++) {
		if (f < m)
			push(out, &cap, PIPE_F, 0, f++);
		push(out, &cap, PIPE_B, 0, b);
		wq_push(&q, 0, b);
		if (b >= r)
			wq_pop(&q, out, &cap);
	}
	while (q.head < q.n)
		wq_pop(&q, out, &cap);
	free(q.op);
}

void
pipe_route_v(int S, int *route)
{
	for (int j = 0; j < 2 * S; j++)
		route[j] = j < S ? 2 * j : 2 * (2 * S - 1 - j) + 1;
}

/* push op unless its micro-batch is one of ZB-V's padding (>= m) */
static void
push_real(struct pipe_order *o, size_t *cap, int kind, int c, long mb,
    long m)
{
	if (mb < m)
		push(o, cap, kind, c, mb);
}

void
pipe_order_zbv(int S, int r, long m, struct pipe_order *out)
{
	long n = 2L * S - 1 > m ? 2L * S - 1 : m;
	long f[2] = { 0, 0 }, b[2] = { 0, 0 }, wq[2];
	size_t cap = 0;

	memset(out, 0, sizeof *out);
	for (int i = 0; i < 2 * (S - r) - 1; i++)
		push_real(out, &cap, PIPE_F, 0, f[0]++, m);
	for (int i = 0; i < r; i++) {
		push_real(out, &cap, PIPE_F, 1, f[1]++, m);
		push_real(out, &cap, PIPE_F, 0, f[0]++, m);
	}
	for (int i = 0; i < S - r; i++) {
		push_real(out, &cap, PIPE_F, 1, f[1]++, m);
		push_real(out, &cap, PIPE_B, 1, b[1], m);
		push_real(out, &cap, PIPE_W, 1, b[1]++, m);
	}
	while (f[1] < f[0] || f[0] < n) {
		if (f[0] < n)
			push_real(out, &cap, PIPE_F, 0, f[0]++, m);
		push_real(out, &cap, PIPE_B, 0, b[0], m);
		push_real(out, &cap, PIPE_W, 0, b[0]++, m);
		push_real(out, &cap, PIPE_F, 1, f[1]++, m);
		push_real(out, &cap, PIPE_B, 1, b[1], m);
		push_real(out, &cap, PIPE_W, 1, b[1]++, m);
	}
	/* from here the W passes queue: wq[c], the oldest not yet run */
	wq[0] = b[0];
	wq[1] = b[1];
	for (int i = 0; i < r; i++) {
		push_real(out, &cap, PIPE_B, 0, b[0]++, m);
		push_real(out, &cap, PIPE_B, 1, b[1]++, m);
	}
	for (int i = 0; i < S - r; i++) {
		push_real(out, &cap, PIPE_B, 0, b[0]++, m);
		push_real(out, &cap, PIPE_W, 0, wq[0]++, m);
	}
	while (wq[1] < b[1])
		push_real(out, &cap, PIPE_W, 1, wq[1]++, m);
	while (wq[0] < b[0])
		push_real(out, &cap, PIPE_W, 0, wq[0]++, m);
}

int
pipe_dualpipe_ok(int S, long m, int dual)
{
	if (dual)
		return S % 2 == 0 && m % 2 == 0 && m >= 2L * S;
	return m >= 2L * S;
}

/* DualPipeV's order for rank r of S over m micro-batches, its chunks c[0]
 * (down) and c[1] (up) and micro-batch ids from mb0[0], mb0[1] (DualPipe
 * runs it with its two directions). */
static void
dualpipev(int S, int r, long m, const int c[2], const long mb0[2],
    struct pipe_order *out)
{
	long f[2] = { 0, 0 }, b[2] = { 0, 0 };
	struct wqueue q = { xcalloc((size_t)(2 * S), sizeof *q.op), 0, 0 };
	size_t cap = 0;
	int half = (r + 1) / 2;
#define F(k) push(out, &cap, PIPE_F, c[k], mb0[k] + f[k]++)
#define BW(k) push(out, &cap, PIPE_B, c[k], mb0[k] + b[k]++)
#define BSPLIT(k) (wq_push(&q, c[k], mb0[k] + b[k]), BW(k))
#define PAIR(k) (push_pair(out, &cap, c[k], mb0[k] + f[k], c[1 - k], \
	mb0[1 - k] + b[1 - k]), f[k]++, b[1 - k]++)

	memset(out, 0, sizeof *out);
	for (int i = 0; i < 2 * (S - 1 - r); i++)
		F(0);
	for (int i = 0; i < r + 1; i++) {
		F(0);
		F(1);
	}
	for (int i = 0; i < S - 1 - r; i++) {
		BSPLIT(1);
		wq_pop(&q, out, &cap);
		F(1);
	}
	for (long i = 0; i < m - 2L * S + r + 1; i++) {
		if (i == 0 && r == S - 1) {	/* not overlapped */
			F(0);
			BW(1);
		} else {
			PAIR(0);
		}
		PAIR(1);
	}
	for (int i = 0; i < S - 1 - r; i++) {
		BW(1);
		PAIR(1);
	}
	/* whole until the middle, split after: from iteration half's B.1
	 * when r is odd, its B.0 when even */
	for (int i = 0; i < r + 1; i++) {
		if (i > half || (i == half && r % 2))
			BSPLIT(1);
		else
			BW(1);
		if (i >= half)
			BSPLIT(0);
		else
			BW(0);
	}
	for (int i = 0; i < S - 1 - r; i++) {
		wq_pop(&q, out, &cap);
		BSPLIT(0);
	}
	while (q.head < q.n)
		wq_pop(&q, out, &cap);
	free(q.op);
#undef F
#undef BW
#undef BSPLIT
#undef PAIR
}

void
pipe_order_dualpipev(int S, int r, long m, struct pipe_order *out)
{
	static const int c[2] = { 0, 1 };
	static const long mb0[2] = { 0, 0 };

	dualpipev(S, r, m, c, mb0, out);
}

void
pipe_route_dual(int S, long m, int *route, int *mb_route)
{
	for (int j = 0; j < S; j++) {
		route[j] = 2 * j;			/* rank j, chunk 0 */
		route[S + j] = 2 * (S - 1 - j) + 1;	/* rank S-1-j, chunk 1 */
	}
	for (long mb = 0; mb < m; mb++)
		mb_route[mb] = mb >= m / 2;
}

void
pipe_order_dualpipe(int S, int r, long m, struct pipe_order *out)
{
	int own = r >= S / 2;
	int c[2] = { own, 1 - own };
	long mb0[2] = { own ? m / 2 : 0, own ? 0 : m / 2 };

	dualpipev(S / 2, r < S - 1 - r ? r : S - 1 - r, m / 2, c, mb0, out);
}

void
pipe_order_release(struct pipe_order *o)
{
	free(o->op);
	memset(o, 0, sizeof *o);
}

/* A step's routes, read once: the default (Megatron-LM's interleaving)
 * spelt out, and where each slot sits on its route. */
struct routes {
	int n, L;
	int *slot;			/* [k L + j] */
	int *pos;			/* [k S v + slot]: j, or -1 */
};

static void
routes_of(const struct pipe_costs *c, struct routes *rt)
{
	size_t V = (size_t)c->S * (size_t)c->v;

	rt->n = c->route ? c->nroute : 1;
	rt->L = c->route ? c->route_len : (int)V;
	rt->slot = xmalloc((size_t)rt->n * (size_t)rt->L * sizeof *rt->slot);
	rt->pos = xmalloc((size_t)rt->n * V * sizeof *rt->pos);
	for (size_t i = 0; i < (size_t)rt->n * V; i++)
		rt->pos[i] = -1;
	for (int k = 0; k < rt->n; k++)
		for (int j = 0; j < rt->L; j++) {
			int s = c->route ? c->route[k * rt->L + j] :
			    (j % c->S) * c->v + j / c->S;

			rt->slot[k * rt->L + j] = s;
			if (s >= 0 && (size_t)s < V)
				rt->pos[(size_t)k * V + (size_t)s] = j;
		}
}

static void
routes_release(struct routes *rt)
{
	free(rt->slot);
	free(rt->pos);
}

static int
route_of(const struct pipe_costs *c, long mb)
{
	return c->mb_route ? c->mb_route[mb] : 0;
}

static const char *const pass_word[] = { "forward", "backward", "W",
	"overlapped" };

/* The routes well formed; every (micro-batch, position on its route) on
 * its rank once forward and once backward, at most once a W pass; the
 * durations finite and not negative.  seen[slot m + mb] gets bit 1 << kind
 * of each pass. */
static int
check(const struct pipe_costs *c, const struct routes *rt,
    const struct pipe_order *orders, unsigned char **seen_out,
    struct pl_err *err)
{
	size_t V = (size_t)c->S * (size_t)c->v, cells = V * (size_t)c->m;
	size_t nt = (size_t)rt->n * (size_t)(rt->L - 1);
	unsigned char *seen, *used;

	*seen_out = NULL;
	if (c->S < 1 || c->v < 1 || c->m < 1)
		return pl_errf(err, NULL, 0, "pipeline: S %d, v %d, m %ld: "
		    "each must be at least 1", c->S, c->v, c->m);
	if (rt->n < 1 || rt->L < 1 || (size_t)rt->L > V)
		return pl_errf(err, NULL, 0, "pipeline: %d routes of %d "
		    "positions over %zu slots", rt->n, rt->L, V);
	used = xcalloc(V, 1);
	for (int i = 0; i < rt->n * rt->L; i++) {
		int s = rt->slot[i];

		if (s < 0 || (size_t)s >= V || used[s]) {
			free(used);
			return pl_errf(err, NULL, 0, "pipeline: route %d "
			    "position %d: slot %d is not one of %zu or is on "
			    "a route already", i / rt->L, i % rt->L, s, V);
		}
		used[s] = 1;
	}
	free(used);
	for (long mb = 0; mb < c->m; mb++)
		if (route_of(c, mb) < 0 || route_of(c, mb) >= rt->n)
			return pl_errf(err, NULL, 0, "pipeline: micro-batch %ld "
			    "on route %d of %d", mb, route_of(c, mb), rt->n);
	for (size_t i = 0; i < V; i++)
		if (!(c->fwd_s[i] >= 0 && c->bwd_s[i] >= 0 &&
		    isfinite(c->fwd_s[i]) && isfinite(c->bwd_s[i])) ||
		    (c->wgrad_s && !(c->wgrad_s[i] >= 0 &&
		    c->wgrad_s[i] <= c->bwd_s[i])) ||
		    (c->fwd_comm_s && !(c->fwd_comm_s[i] >= 0 &&
		    isfinite(c->fwd_comm_s[i]))) ||
		    (c->bwd_comm_s && !(c->bwd_comm_s[i] >= 0 &&
		    isfinite(c->bwd_comm_s[i]))))
			return pl_errf(err, NULL, 0, "pipeline: rank %zu chunk "
			    "%zu: a pass of %g s forward, %g s backward (%g s "
			    "of it the weights'), communication %g s and %g s",
			    i / (size_t)c->v, i % (size_t)c->v, c->fwd_s[i],
			    c->bwd_s[i], c->wgrad_s ? c->wgrad_s[i] : 0.0,
			    c->fwd_comm_s ? c->fwd_comm_s[i] : 0.0,
			    c->bwd_comm_s ? c->bwd_comm_s[i] : 0.0);
	for (size_t i = 0; c->pair_save_s && i < V; i++)
		if (!(c->pair_save_s[i] >= 0 && c->pair_save_s[i] <=
		    c->fwd_s[i] + c->bwd_s[i]))
			return pl_errf(err, NULL, 0, "pipeline: rank %zu chunk "
			    "%zu: a pair saving %g s of passes of %g s", i /
			    (size_t)c->v, i % (size_t)c->v, c->pair_save_s[i],
			    c->fwd_s[i] + c->bwd_s[i]);
	for (size_t i = 0; c->gather && i < V; i++) {
		const struct pipe_gather *g = &c->gather[i];
		int bad = g->dispatch < PIPE_GATHER_CHAIN ||
		    g->dispatch > PIPE_GATHER_AT ||
		    (g->n > 0 && !(g->share_before && g->gather_s && g->kind));

		for (size_t b = 0; !bad && b < g->n; b++)
			bad = !(g->share_before[b] >= (b ? g->share_before[b -
			    1] : 0) && g->share_before[b] <= 1 &&
			    g->gather_s[b] >= 0 && isfinite(g->gather_s[b]) &&
			    (!g->after_s || (g->after_s[b] >= 0 &&
			    isfinite(g->after_s[b]))) &&
			    (g->kind[b] == 0 || g->kind[b] == 1));
		if (bad)
			return pl_errf(err, NULL, 0, "pipeline: rank %zu chunk "
			    "%zu: a weight gather of %zu buckets that is not "
			    "one (shares before them in order within [0, 1], "
			    "times finite and not negative, kinds 0 or 1)",
			    i / (size_t)c->v, i % (size_t)c->v, g->n);
	}
	for (size_t j = 0; c->transfer_s && j < nt; j++)
		if (!(c->transfer_s[j] >= 0 && isfinite(c->transfer_s[j])))
			return pl_errf(err, NULL, 0, "pipeline: a transfer of "
			    "%g s after route position %zu", c->transfer_s[j],
			    j);
	seen = xcalloc(cells, 1);
	for (int r = 0; r < c->S; r++)
		for (size_t i = 0; i < orders[r].n; i++) {
			const struct pipe_op *o = &orders[r].op[i];
			/* a pair registers its forward and its backward */
			struct pipe_op part[2] = {
				{ .kind = o->kind == PIPE_FB ? PIPE_F : o->kind,
				  .chunk = o->chunk, .mb = o->mb },
				{ .kind = PIPE_B },
			};

			if (o->kind == PIPE_FB) {
				part[1].chunk = o->bchunk;
				part[1].mb = o->bmb;
			}

			for (int h = 0; h < (o->kind == PIPE_FB ? 2 : 1); h++) {
				const struct pipe_op *op = &part[h];
				size_t slot = (size_t)r * (size_t)c->v +
				    (size_t)op->chunk, at;

				if (op->chunk < 0 || op->chunk >= c->v ||
				    op->mb < 0 || op->mb >= c->m ||
				    op->kind < PIPE_F || op->kind > PIPE_W ||
				    (op->kind == PIPE_W && !c->wgrad_s) ||
				    rt->pos[(size_t)route_of(c, op->mb) * V +
				    slot] < 0) {
					free(seen);
					return pl_errf(err, NULL, 0, "pipeline: "
					    "rank %d operation %zu: %s pass of "
					    "chunk %d micro-batch %ld is not one "
					    "of the step's", r, i, op->kind >=
					    PIPE_F && op->kind <= PIPE_W ?
					    pass_word[op->kind] : "a",
					    op->chunk, op->mb);
				}
				at = slot * (size_t)c->m + (size_t)op->mb;
				if (seen[at] & (1 << op->kind)) {
					free(seen);
					return pl_errf(err, NULL, 0, "pipeline: "
					    "rank %d runs micro-batch %ld's %s "
					    "pass of chunk %d twice", r, op->mb,
					    pass_word[op->kind], op->chunk);
				}
				seen[at] |= (unsigned char)(1 << op->kind);
			}
		}
	for (size_t at = 0; at < cells; at++) {
		size_t slot = at / (size_t)c->m;
		long mb = (long)(at % (size_t)c->m);

		if (rt->pos[(size_t)route_of(c, mb) * V + slot] < 0)
			continue;
		if ((seen[at] & 3) != 3) {
			int missing_backward = seen[at] & 1;

			free(seen);
			return pl_errf(err, NULL, 0, "pipeline: rank %zu never "
			    "runs micro-batch %ld's %s pass of chunk %zu",
			    slot / (size_t)c->v, mb, missing_backward ?
			    "backward" : "forward", slot % (size_t)c->v);
		}
	}
	*seen_out = seen;
	return 0;
}

/* Boundary j of route k's transfer as the receiver waits for it beyond
 * the sender's pass (arriving: 1), or as it holds the sender after the
 * pass (0). */
static double
transfer(const struct pipe_costs *c, const struct routes *rt, int k, int j,
    int arriving)
{
	if (!c->transfer_s || j < 0 || j + 1 >= rt->L)
		return 0;
	return (c->hold_sender != 0) != arriving ?
	    c->transfer_s[(size_t)k * (size_t)(rt->L - 1) + (size_t)j] : 0;
}

/* Queue rank r to be tried again (once). */
static void
wake(int r, int *stack, size_t *nstack, unsigned char *queued)
{
	if (!queued[r]) {
		stack[(*nstack)++] = r;
		queued[r] = 1;
	}
}

/* A step's state as the ranks run their orders. */
struct sim {
	const struct pipe_costs *c;
	struct routes rt;
	unsigned char *seen;
	double *fdone, *bdone;
	long *held;
	int *stack;
	size_t nstack;
	unsigned char *queued;
	/* the weight gathers (pipe_costs.gather): each rank's stream free
	 * from, forward passes started, each chunk's buckets' ends (-1: not
	 * launched) and whether its first forward pass has run */
	double *comm_free;
	long *nfwd;
	double **gdone;
	unsigned char *gathered;
};

/* One pass of an operation (a pair: its forward or its backward) as rank
 * r would run it: its cell, route and position, and whether a W follows. */
struct part {
	int kind, k, j, split;
	size_t slot, at;
	long mb;
	int chunk;
};

static void
part_of(const struct sim *s, int r, int kind, int chunk, long mb,
    struct part *p)
{
	const struct pipe_costs *c = s->c;

	p->kind = kind;
	p->chunk = chunk;
	p->mb = mb;
	p->slot = (size_t)r * (size_t)c->v + (size_t)chunk;
	p->at = p->slot * (size_t)c->m + (size_t)mb;
	p->k = route_of(c, mb);
	p->j = s->rt.pos[(size_t)p->k * (size_t)c->S * (size_t)c->v + p->slot];
	p->split = (s->seen[p->at] >> PIPE_W) & 1;
}

/* A pass's own time (a backward pass followed by a W pass, less the
 * W's); *comm_s the communication in it (what an overlapped pair hides),
 * *hold_s its output's transfer where the sender waits for it (a forward
 * pass's to the next position, a backward pass's to the previous one). */
static double
pass_s(const struct pipe_costs *c, const struct routes *rt,
    const struct part *p, double *comm_s, double *hold_s)
{
	double own;

	switch (p->kind) {
	case PIPE_F:
		own = c->fwd_s[p->slot];
		*comm_s = c->fwd_comm_s ? fmin(c->fwd_comm_s[p->slot], own) :
		    0;
		*hold_s = transfer(c, rt, p->k, p->j, 0);
		return own;
	case PIPE_B:
		own = c->bwd_s[p->slot] - (p->split ? c->wgrad_s[p->slot] : 0);
		*comm_s = c->bwd_comm_s ? fmin(c->bwd_comm_s[p->slot], own) :
		    0;
		*hold_s = transfer(c, rt, p->k, p->j - 1, 0);
		return own;
	default:
		*comm_s = *hold_s = 0;
		return c->wgrad_s[p->slot];
	}
}

/*
 * When a pass's input is there (-1: not yet): a forward pass's from the
 * previous position of its route, a backward pass's from the next one
 * (the last position's: its own forward pass), after the transfer; a
 * backward pass also after its own forward pass, a W pass after its
 * backward pass.
 */
static double
ready_at(const struct sim *s, const struct part *p)
{
	const struct pipe_costs *c = s->c;
	const struct routes *rt = &s->rt;
	size_t m = (size_t)c->m, mb = (size_t)p->mb;
	double own, in;

	if (p->kind == PIPE_W)
		return s->bdone[p->at];
	if (p->kind == PIPE_F) {
		if (p->j == 0)
			return 0;
		in = s->fdone[(size_t)rt->slot[p->k * rt->L + p->j - 1] * m +
		    mb];
		return in < 0 ? -1 : in + transfer(c, rt, p->k, p->j - 1, 1);
	}
	own = s->fdone[p->at];
	if (own < 0)
		return -1;
	if (p->j + 1 == rt->L)
		return own;
	in = s->bdone[(size_t)rt->slot[p->k * rt->L + p->j + 1] * m + mb];
	return in < 0 ? -1 : fmax(own, in + transfer(c, rt, p->k, p->j, 1));
}


/* Queue bucket b of chunk slot on rank r's stream at t. */
static void
gather_one(struct sim *s, int r, size_t slot, size_t b, double t)
{
	s->comm_free[r] = fmax(s->comm_free[r], t) +
	    s->c->gather[slot].gather_s[b];
	s->gdone[slot][b] = s->comm_free[r];
}

/* Launch chunk slot's gathers on rank r at t (PIPE_GATHER_START, _AT):
 * the last bucket first, the experts' after the dense. */
static void
gather_launch(struct sim *s, int r, size_t slot, double t)
{
	const struct pipe_gather *g = &s->c->gather[slot];

	for (int kind = 0; kind < 2; kind++)
		for (size_t b = g->n; b-- > 0;)
			if (g->kind[b] == kind)
				gather_one(s, r, slot, b, t);
}

/*
 * How long chunk slot's first forward pass, own s of its own, started
 * at t0, waits for its gathers: the pass runs to each bucket and waits
 * there until the bucket's gather is done; chained, a bucket is
 * launched when the pass has waited for the one before it of its kind
 * (its kind's first when the pass reaches it), the kinds' chains beside
 * each other (each kind's process group its own).  An aligned chunk
 * whose launch the rank's forward passes never reached launches at t0.
 */
static double
gather_wait(struct sim *s, int r, size_t slot, double t0, double own)
{
	const struct pipe_gather *g = &s->c->gather[slot];
	double t = t0, done_to = 0, waited[2] = { -1, -1 };

	if (g->dispatch != PIPE_GATHER_CHAIN && s->gdone[slot][0] < 0)
		gather_launch(s, r, slot, t0);
	for (size_t b = 0; b < g->n; b++) {
		int k = g->kind[b];

		t += (g->share_before[b] - done_to) * own;
		done_to = g->share_before[b];
		if (g->dispatch == PIPE_GATHER_CHAIN)
			s->gdone[slot][b] = (waited[k] < 0 ? t : waited[k]) +
			    g->gather_s[b];
		t = fmax(t, s->gdone[slot][b]);
		waited[k] = t;
		if (g->after_s)
			t += g->after_s[b];
	}
	return t + (1 - done_to) * own - t0 - own;
}

/* A pass done at end_s: its output there, its activations held or let
 * go, its route's neighbour tried again. */
static void
finish(struct sim *s, int r, const struct part *p, double end_s,
    struct pipe_result *out)
{
	const struct pipe_costs *c = s->c;
	int L = s->rt.L;

	if (p->kind == PIPE_F) {
		s->fdone[p->at] = end_s;
	} else if (p->kind == PIPE_B) {
		s->bdone[p->at] = end_s;
	}
	if (p->kind == PIPE_W || (p->kind == PIPE_B && !p->split))
		s->held[r]--;
	if (p->kind == PIPE_F && p->j + 1 < L)
		wake(s->rt.slot[p->k * L + p->j + 1] / c->v, s->stack,
		    &s->nstack, s->queued);
	if (p->kind == PIPE_B && p->j > 0)
		wake(s->rt.slot[p->k * L + p->j - 1] / c->v, s->stack,
		    &s->nstack, s->queued);
	out->step_s = fmax(out->step_s, end_s);
}

int
pipe_simulate(const struct pipe_costs *c, const struct pipe_order *orders,
    struct pipe_result *out, struct pl_err *err)
{
	size_t cells, nev = 0;
	size_t *pos;
	struct sim s = { .c = c };

	memset(out, 0, sizeof *out);
	routes_of(c, &s.rt);
	if (check(c, &s.rt, orders, &s.seen, err) < 0) {
		routes_release(&s.rt);
		return -1;
	}
	cells = (size_t)c->S * (size_t)c->v * (size_t)c->m;
	s.fdone = xmalloc(cells * sizeof *s.fdone);
	s.bdone = xmalloc(cells * sizeof *s.bdone);
	for (size_t i = 0; i < cells; i++)
		s.fdone[i] = s.bdone[i] = -1;
	pos = xcalloc((size_t)c->S, sizeof *pos);
	s.held = xcalloc((size_t)c->S, sizeof *s.held);
	s.stack = xcalloc((size_t)c->S, sizeof *s.stack);
	s.queued = xcalloc((size_t)c->S, 1);
	out->busy_s = xcalloc((size_t)c->S, sizeof *out->busy_s);
	out->end_s = xcalloc((size_t)c->S, sizeof *out->end_s);
	out->peak_chunks = xcalloc((size_t)c->S, sizeof *out->peak_chunks);
	if (c->gather) {
		size_t V = (size_t)c->S * (size_t)c->v;

		s.comm_free = xcalloc((size_t)c->S, sizeof *s.comm_free);
		s.nfwd = xcalloc((size_t)c->S, sizeof *s.nfwd);
		s.gathered = xcalloc(V, 1);
		s.gdone = xcalloc(V, sizeof *s.gdone);
		for (size_t i = 0; i < V; i++) {
			s.gdone[i] = xmalloc((c->gather[i].n + 1) *
			    sizeof **s.gdone);
			for (size_t b = 0; b < c->gather[i].n; b++)
				s.gdone[i][b] = -1;
		}
		/* the first chunks' gathers, launched with the step */
		for (size_t i = 0; i < V; i++)
			if (c->gather[i].n > 0 && c->gather[i].dispatch ==
			    PIPE_GATHER_START)
				gather_launch(&s, (int)(i / (size_t)c->v), i,
				    0);
	}
	for (int r = c->S - 1; r >= 0; r--) {
		wake(r, s.stack, &s.nstack, s.queued);
		for (size_t i = 0; i < orders[r].n; i++)
			nev += 1 + (orders[r].op[i].kind == PIPE_FB);
	}
	out->ev = xcalloc(nev ? nev : 1, sizeof *out->ev);
	/* each rank runs its order as far as its inputs allow; a finished
	 * pass may let a neighbour on its route go on, which is then tried
	 * again */
	while (s.nstack > 0) {
		int r = s.stack[--s.nstack];

		s.queued[r] = 0;
		while (pos[r] < orders[r].n) {
			const struct pipe_op *op = &orders[r].op[pos[r]];
			int pair = op->kind == PIPE_FB, np = pair ? 2 : 1;
			struct part p[2];
			double ready = 0, dur = 0, comm = 0, own = 0, xfer = 0;
			double own_f = 0, wait = 0;
			int merged;

			part_of(&s, r, pair ? PIPE_F : op->kind, op->chunk,
			    op->mb, &p[0]);
			if (pair)
				part_of(&s, r, PIPE_B, op->bchunk, op->bmb,
				    &p[1]);
			for (int h = 0; h < np && ready >= 0; h++) {
				double at = ready_at(&s, &p[h]), cm, hold;

				double ps;

				ready = at < 0 ? -1 : fmax(ready, at);
				ps = pass_s(c, &s.rt, &p[h], &cm, &hold);
				own += ps;
				if (h == 0)
					own_f = ps;
				comm += cm;
				xfer += hold;
			}
			if (ready < 0)
				break;
			/* a pair: each pass's communication beside the
			 * other's compute, as far as it reaches, or its
			 * layers' merged passes' saving (the combined
			 * 1F1B's) */
			if (pair && c->pair_save_s)
				dur = fmax(0, own - (c->pair_save_s[p[0].slot] +
				    c->pair_save_s[p[1].slot]) / 2) + xfer;
			else
				dur = (pair ? fmax(own - comm, comm) : own) +
				    xfer;
			ready = fmax(out->end_s[r], ready);
			/* a forward pass: the aligned gathers it launches, and
			 * on the chunk's first, the waits for its own */
			if (c->gather && p[0].kind == PIPE_F) {
				for (int k = 0; k < c->v; k++) {
					size_t sl = (size_t)r * (size_t)c->v +
					    (size_t)k;
					const struct pipe_gather *g =
					    &c->gather[sl];

					if (g->n > 0 && g->dispatch ==
					    PIPE_GATHER_AT && g->at_forward ==
					    s.nfwd[r] && s.gdone[sl][0] < 0)
						gather_launch(&s, r, sl, ready);
				}
				s.nfwd[r]++;
				if (!s.gathered[p[0].slot] &&
				    c->gather[p[0].slot].n > 0)
					wait = gather_wait(&s, r, p[0].slot,
					    ready, own_f);
				s.gathered[p[0].slot] = 1;
			}
			dur += wait;
			/* a merged pair (the combined 1F1B's, layer by layer)
			 * takes its forward pass's chunk as its backward pass
			 * frees its own: counted after it */
			merged = pair && c->pair_save_s;
			if (p[0].kind == PIPE_F && !merged && ++s.held[r] >
			    out->peak_chunks[r])
				out->peak_chunks[r] = s.held[r];
			for (int h = 0; h < np; h++) {
				out->ev[out->nev++] = (struct pipe_event){
				    .rank = r, .kind = p[h].kind,
				    .chunk = p[h].chunk, .mb = p[h].mb,
				    .start_s = ready, .end_s = ready + dur,
				    .paired = pair };
				finish(&s, r, &p[h], ready + dur, out);
			}
			if (merged && ++s.held[r] > out->peak_chunks[r])
				out->peak_chunks[r] = s.held[r];
			out->end_s[r] = ready + dur;
			/* a wait for a gather is idle time */
			out->busy_s[r] += dur - wait;
			pos[r]++;
		}
	}
	for (int r = 0; r < c->S; r++)
		if (pos[r] < orders[r].n) {
			const struct pipe_op *op = &orders[r].op[pos[r]];

			if (op->kind == PIPE_FB)
				pl_errf(err, NULL, 0, "pipeline: rank %d waits "
				    "for the inputs to its overlapped pair, "
				    "micro-batch %ld's forward pass of chunk %d "
				    "and %ld's backward pass of chunk %d, which "
				    "the orders never let come (a deadlock)", r,
				    op->mb, op->chunk, op->bmb, op->bchunk);
			else
				pl_errf(err, NULL, 0, "pipeline: rank %d waits "
				    "for micro-batch %ld's input to its %s pass "
				    "of chunk %d, which the orders never let come "
				    "(a deadlock)", r, op->mb,
				    pass_word[op->kind], op->chunk);
			break;
		}
	free(s.fdone);
	free(s.bdone);
	free(pos);
	free(s.held);
	free(s.stack);
	free(s.queued);
	free(s.seen);
	if (c->gather)
		for (size_t i = 0; i < (size_t)c->S * (size_t)c->v; i++)
			free(s.gdone[i]);
	free(s.gdone);
	free(s.comm_free);
	free(s.nfwd);
	free(s.gathered);
	routes_release(&s.rt);
	if (out->nev != nev) {
		pipe_result_release(out);
		return -1;
	}
	return 0;
}

void
pipe_result_release(struct pipe_result *r)
{
	free(r->busy_s);
	free(r->end_s);
	free(r->peak_chunks);
	free(r->ev);
	memset(r, 0, sizeof *r);
}

/* A bucket: when it is ready, how long it reduces, and its place in the
 * listing (ties go by it). */
struct bucket {
	double ready_s, dur_s;
	size_t order;
};

static int
by_ready(const void *a, const void *b)
{
	const struct bucket *x = a, *y = b;

	if (x->ready_s != y->ready_s)
		return x->ready_s > y->ready_s ? 1 : -1;
	return (x->order > y->order) - (x->order < y->order);
}

static void
add_bucket(struct bucket **b, size_t *nb, size_t *cap, double ready_s,
    double dur_s)
{
	if (*nb == *cap) {
		*cap = *cap ? 2 * *cap : 16;
		*b = xrealloc(*b, *cap * sizeof **b);
	}
	(*b)[*nb] = (struct bucket){ ready_s, dur_s, *nb };
	(*nb)++;
}

/* One of a chunk's buckets as split_buckets finds it: the row it begins
 * in and the share of that row's parameters before it (the rest bucket,
 * rest 1: the chunk's first row with parameters), and its parameters. */
struct split {
	size_t row;
	double frac, size;
	int rest;
};

/*
 * Megatron-LM's buckets of a chunk's rows' parameters (pipe_reduce_
 * buckets), in the order they close: from the last row back, each
 * bucket_params, a row split where one fills, the rest a last bucket.
 * Returns their count; *out malloc'ed.
 */
static size_t
split_buckets(const double *params, size_t nrows, double bucket_params,
    struct split **out)
{
	size_t nb = 0, cap = 8;
	double held = 0;

	*out = xmalloc(cap * sizeof **out);
	for (size_t i = nrows; i-- > 0;) {
		double P = params[i], left = P;

		/* each bucket the row fills begins where the row's
		 * parameters left before it end */
		while (bucket_params > 0 && P > 0 && left >= bucket_params -
		    held) {
			left -= bucket_params - held;
			if (nb == cap) {
				cap *= 2;
				*out = xrealloc(*out, cap * sizeof **out);
			}
			(*out)[nb++] = (struct split){ i, left / P,
			    bucket_params, 0 };
			held = 0;
		}
		held += left;
	}
	if (held > 0) {
		size_t j = 0;

		while (j < nrows && !(params[j] > 0))
			j++;
		if (nb == cap)
			*out = xrealloc(*out, ++cap * sizeof **out);
		(*out)[nb++] = (struct split){ j, 0, held, 1 };
	}
	return nb;
}

double
pipe_reduce_buckets(const struct pipe_grads *g, size_t n, double bucket_params,
    double free_s)
{
	struct bucket *b = NULL;
	size_t nb = 0, cap = 0;

	for (size_t k = 0; k < n; k++) {
		const struct pipe_grads *c = &g[k];
		struct split *sp;
		size_t ns = split_buckets(c->params, c->nrows, bucket_params,
		    &sp), q = 0;
		double done = 0;	/* of the pass */

		for (size_t i = c->nrows; i-- > 0;) {
			/* the pass finishes row i after the rows after it;
			 * each bucket closed in the row is ready then */
			double at;

			done += c->share[i];
			at = c->start_s + fmin(done, 1) * (c->end_s -
			    c->start_s);
			for (; q < ns && !sp[q].rest && sp[q].row == i; q++)
				add_bucket(&b, &nb, &cap, at, c->alpha_s +
				    c->per_param_s * sp[q].size);
		}
		/* the rest, when the pass is done */
		if (q < ns)
			add_bucket(&b, &nb, &cap, c->end_s, c->alpha_s +
			    c->per_param_s * sp[q].size);
		free(sp);
	}
	if (nb > 1)
		qsort(b, nb, sizeof *b, by_ready);
	for (size_t i = 0; i < nb; i++)
		free_s = fmax(free_s, b[i].ready_s) + b[i].dur_s;
	free(b);
	return free_s;
}

size_t
pipe_bucket_starts(const double *params, size_t nrows, double bucket_params,
    double **start, double **size)
{
	struct split *sp;
	size_t nb = split_buckets(params, nrows, bucket_params, &sp);

	*start = xmalloc((nb + 1) * sizeof **start);
	*size = xmalloc((nb + 1) * sizeof **size);
	/* found from the last row back: forward order reversed */
	for (size_t q = 0; q < nb; q++) {
		(*start)[nb - 1 - q] = (double)sp[q].row + sp[q].frac;
		(*size)[nb - 1 - q] = sp[q].size;
	}
	free(sp);
	return nb;
}
