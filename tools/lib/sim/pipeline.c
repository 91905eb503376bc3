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
	o->op[o->n++] = (struct pipe_op){ kind, chunk, mb };
}

/* Warm-up forward passes, then one forward and one backward pass in
 * turn, then the backward passes left: the shape of every 1F1B order,
 * over a rank's forward and backward tables of n passes each. */
static void
one_f_one_b(const struct pipe_op *fwd, const struct pipe_op *bwd, size_t n,
    size_t warm, struct pipe_order *out)
{
	size_t cap = 0;

	memset(out, 0, sizeof *out);
	if (warm > n)
		warm = n;
	for (size_t i = 0; i < warm; i++)
		push(out, &cap, PIPE_F, fwd[i].chunk, fwd[i].mb);
	for (size_t i = warm; i < n; i++) {
		push(out, &cap, PIPE_F, fwd[i].chunk, fwd[i].mb);
		push(out, &cap, PIPE_B, bwd[i - warm].chunk, bwd[i - warm].mb);
	}
	for (size_t i = n - warm; i < n; i++)
		push(out, &cap, PIPE_B, bwd[i].chunk, bwd[i].mb);
}

void
pipe_order_1f1b(int S, int r, long m, struct pipe_order *out)
{
	struct pipe_op *t = xcalloc((size_t)m, sizeof *t);

	for (long i = 0; i < m; i++)
		t[i] = (struct pipe_op){ PIPE_F, 0, i };
	one_f_one_b(t, t, (size_t)m, (size_t)(S - r - 1), out);
	free(t);
}

void
pipe_order_interleaved(int S, int v, int r, long m, long group,
    struct pipe_order *out)
{
	size_t n = (size_t)m * (size_t)v, k = 0;
	struct pipe_op *fwd = xcalloc(n, sizeof *fwd);
	struct pipe_op *bwd = xcalloc(n, sizeof *bwd);

	/* Megatron's schedule table: a group's micro-batches through each
	 * chunk in turn, the last group whatever is left */
	if (group < 1)
		group = 1;
	for (long g0 = 0; g0 < m; g0 += group) {
		long end = g0 + group >= m ? m : g0 + group;

		for (int c = 0; c < v; c++)
			for (long mb = g0; mb < end; mb++, k++) {
				fwd[k] = (struct pipe_op){ PIPE_F, c, mb };
				bwd[k] = (struct pipe_op){ PIPE_B, v - 1 - c,
				    mb };
			}
	}
	one_f_one_b(fwd, bwd, n, (size_t)(2 * (S - r - 1)) +
	    (size_t)(v - 1) * (size_t)group, out);
	free(fwd);
	free(bwd);
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

void
pipe_order_release(struct pipe_order *o)
{
	free(o->op);
	memset(o, 0, sizeof *o);
}

/* Every (micro-batch, chunk) of each rank once forward and once
 * backward, the durations finite and not negative. */
static int
check(const struct pipe_costs *c, const struct pipe_order *orders,
    struct pl_err *err)
{
	size_t V = (size_t)c->S * (size_t)c->v, cells = V * (size_t)c->m;
	unsigned char *seen;

	if (c->S < 1 || c->v < 1 || c->m < 1)
		return pl_errf(err, NULL, 0, "pipeline: S %d, v %d, m %ld: "
		    "each must be at least 1", c->S, c->v, c->m);
	for (size_t i = 0; i < V; i++)
		if (!(c->fwd_s[i] >= 0 && c->bwd_s[i] >= 0 &&
		    isfinite(c->fwd_s[i]) && isfinite(c->bwd_s[i])))
			return pl_errf(err, NULL, 0, "pipeline: rank %zu chunk "
			    "%zu: a pass of %g s forward, %g s backward",
			    i / (size_t)c->v, i % (size_t)c->v, c->fwd_s[i],
			    c->bwd_s[i]);
	for (size_t j = 0; c->transfer_s && j + 1 < V; j++)
		if (!(c->transfer_s[j] >= 0 && isfinite(c->transfer_s[j])))
			return pl_errf(err, NULL, 0, "pipeline: a transfer of "
			    "%g s after virtual stage %zu", c->transfer_s[j],
			    j);
	seen = xcalloc(cells, 1);
	for (int r = 0; r < c->S; r++)
		for (size_t i = 0; i < orders[r].n; i++) {
			const struct pipe_op *op = &orders[r].op[i];
			size_t at;

			if (op->chunk < 0 || op->chunk >= c->v || op->mb < 0 ||
			    op->mb >= c->m || (op->kind != PIPE_F &&
			    op->kind != PIPE_B)) {
				free(seen);
				return pl_errf(err, NULL, 0, "pipeline: rank %d "
				    "operation %zu: chunk %d micro-batch %ld is "
				    "not one of %d x %ld", r, i, op->chunk,
				    op->mb, c->v, c->m);
			}
			at = ((size_t)op->chunk * (size_t)c->S + (size_t)r) *
			    (size_t)c->m + (size_t)op->mb;
			if (seen[at] & (1 << op->kind)) {
				free(seen);
				return pl_errf(err, NULL, 0, "pipeline: rank %d "
				    "runs micro-batch %ld's %s pass of chunk %d "
				    "twice", r, op->mb, op->kind == PIPE_F ?
				    "forward" : "backward", op->chunk);
			}
			seen[at] |= (unsigned char)(1 << op->kind);
		}
	for (size_t at = 0; at < cells; at++)
		if (seen[at] != 3) {
			size_t vs = at / (size_t)c->m;
			int missing_backward = seen[at] & 1;

			free(seen);
			return pl_errf(err, NULL, 0, "pipeline: rank %zu never "
			    "runs micro-batch %zu's %s pass of chunk %zu",
			    vs % (size_t)c->S, at % (size_t)c->m,
			    missing_backward ? "backward" : "forward",
			    vs / (size_t)c->S);
		}
	free(seen);
	return 0;
}

/* Boundary j's transfer as the receiver waits for it beyond the sender's
 * pass (arriving: 1), or as it holds the sender after the pass (0). */
static double
transfer(const struct pipe_costs *c, size_t j, int arriving)
{
	if (!c->transfer_s || j + 1 >= (size_t)c->S * (size_t)c->v)
		return 0;
	return (c->hold_sender != 0) != arriving ? c->transfer_s[j] : 0;
}

/* How long a pass holds its rank: its own time and, where the sender
 * waits for them, its output's transfer (a forward pass's to the next
 * virtual stage, a backward pass's to the previous one). */
static double
pass_s(const struct pipe_costs *c, int r, const struct pipe_op *op)
{
	size_t k = (size_t)r * (size_t)c->v + (size_t)op->chunk;
	size_t vs = (size_t)op->chunk * (size_t)c->S + (size_t)r;

	if (op->kind == PIPE_F)
		return c->fwd_s[k] + transfer(c, vs, 0);
	return c->bwd_s[k] + (vs > 0 ? transfer(c, vs - 1, 0) : 0);
}

/*
 * When op's input is there (-1: not yet): a forward pass's from the
 * previous virtual stage, a backward pass's from the next one (the last
 * virtual stage's: its own forward pass), after the transfer; a backward
 * pass also after its own forward pass.
 */
static double
ready_at(const struct pipe_costs *c, const double *fdone, const double *bdone,
    int r, const struct pipe_op *op)
{
	size_t V = (size_t)c->S * (size_t)c->v, m = (size_t)c->m;
	size_t vs = (size_t)op->chunk * (size_t)c->S + (size_t)r;
	size_t mb = (size_t)op->mb;
	double own, in;

	if (op->kind == PIPE_F) {
		if (vs == 0)
			return 0;
		in = fdone[(vs - 1) * m + mb];
		return in < 0 ? -1 : in + transfer(c, vs - 1, 1);
	}
	own = fdone[vs * m + mb];
	if (own < 0)
		return -1;
	if (vs + 1 == V)
		return own;
	in = bdone[(vs + 1) * m + mb];
	return in < 0 ? -1 : fmax(own, in + transfer(c, vs, 1));
}

int
pipe_simulate(const struct pipe_costs *c, const struct pipe_order *orders,
    struct pipe_result *out, struct pl_err *err)
{
	size_t V, cells, total = 0, nstack = 0;
	double *fdone, *bdone;
	size_t *pos;
	long *held;
	int *stack;
	unsigned char *queued;

	memset(out, 0, sizeof *out);
	if (check(c, orders, err) < 0)
		return -1;
	V = (size_t)c->S * (size_t)c->v;
	cells = V * (size_t)c->m;
	fdone = xmalloc(cells * sizeof *fdone);
	bdone = xmalloc(cells * sizeof *bdone);
	for (size_t i = 0; i < cells; i++)
		fdone[i] = bdone[i] = -1;
	pos = xcalloc((size_t)c->S, sizeof *pos);
	held = xcalloc((size_t)c->S, sizeof *held);
	stack = xcalloc((size_t)c->S, sizeof *stack);
	queued = xcalloc((size_t)c->S, 1);
	out->busy_s = xcalloc((size_t)c->S, sizeof *out->busy_s);
	out->end_s = xcalloc((size_t)c->S, sizeof *out->end_s);
	out->peak_chunks = xcalloc((size_t)c->S, sizeof *out->peak_chunks);
	out->ev = xcalloc(2 * cells, sizeof *out->ev);
	for (int r = c->S - 1; r >= 0; r--) {
		stack[nstack++] = r;
		queued[r] = 1;
		total += orders[r].n;
	}
	/* each rank runs its order as far as its inputs allow; a finished
	 * pass may let a neighbour go on, which is then tried again */
	while (nstack > 0) {
		int r = stack[--nstack];

		queued[r] = 0;
		while (pos[r] < orders[r].n) {
			const struct pipe_op *op = &orders[r].op[pos[r]];
			size_t at = ((size_t)op->chunk * (size_t)c->S +
			    (size_t)r) * (size_t)c->m + (size_t)op->mb;
			double ready = ready_at(c, fdone, bdone, r, op);
			double dur = pass_s(c, r, op);
			int next[2] = { (r + 1) % c->S, (r + c->S - 1) % c->S };
			struct pipe_event *e;

			if (ready < 0)
				break;
			e = &out->ev[out->nev++];
			*e = (struct pipe_event){ r, op->kind, op->chunk,
			    op->mb, fmax(out->end_s[r], ready), 0 };
			e->end_s = e->start_s + dur;
			out->end_s[r] = e->end_s;
			out->busy_s[r] += dur;
			if (op->kind == PIPE_F) {
				fdone[at] = e->end_s;
				if (++held[r] > out->peak_chunks[r])
					out->peak_chunks[r] = held[r];
			} else {
				bdone[at] = e->end_s;
				held[r]--;
			}
			out->step_s = fmax(out->step_s, e->end_s);
			pos[r]++;
			for (int j = 0; j < 2; j++)
				if (next[j] != r && !queued[next[j]]) {
					stack[nstack++] = next[j];
					queued[next[j]] = 1;
				}
		}
	}
	if (out->nev != total) {
		int r = 0;

		while (pos[r] == orders[r].n)
			r++;
		pl_errf(err, NULL, 0, "pipeline: rank %d waits for micro-batch "
		    "%ld's input to its %s pass of chunk %d, which the orders "
		    "never let come (a deadlock)", r, orders[r].op[pos[r]].mb,
		    orders[r].op[pos[r]].kind == PIPE_F ? "forward" :
		    "backward", orders[r].op[pos[r]].chunk);
	}
	free(fdone);
	free(bdone);
	free(pos);
	free(held);
	free(stack);
	free(queued);
	if (out->nev != total) {
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
