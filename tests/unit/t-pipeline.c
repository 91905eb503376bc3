/*
 * t-pipeline.c - pipesim's engine (sim/pipeline.h) on timelines worked
 * out by hand and on the bubbles the schedules' papers derive.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/plan.h"
#include "sim/form.h"
#include "sim/pipeline.h"
#include "tap.h"

enum { ONE_F_ONE_B, INTERLEAVED, GPIPE };

/* whether run()'s transfers hold their senders (pipe_costs.hold_sender) */
static int hold;

/* Simulate S ranks of v chunks, m micro-batches, under a schedule
 * (group: the interleaved schedule's micro-batch group), every chunk
 * of rank r taking fwd[r] / v and bwd[r] / v, each boundary `x` s. */
static int
run(int sched, int S, int v, long m, long group, const double *fwd,
    const double *bwd, double x, struct pipe_result *res)
{
	struct pipe_order *o = calloc((size_t)S, sizeof *o);
	double *f = calloc((size_t)(S * v), sizeof *f);
	double *b = calloc((size_t)(S * v), sizeof *b);
	double *t = calloc((size_t)(S * v), sizeof *t);
	struct pipe_costs c = { .S = S, .v = v, .m = m, .fwd_s = f, .bwd_s = b,
	    .transfer_s = t, .hold_sender = hold };
	struct pl_err err;
	int rc;

	for (int r = 0; r < S; r++) {
		for (int k = 0; k < v; k++) {
			f[r * v + k] = fwd[r] / v;
			b[r * v + k] = bwd[r] / v;
		}
		if (sched == ONE_F_ONE_B)
			pipe_order_1f1b(S, r, m, &o[r]);
		else if (sched == INTERLEAVED)
			pipe_order_interleaved(S, v, r, m, group, &o[r]);
		else
			pipe_order_gpipe(S, v, r, m, &o[r]);
	}
	for (int j = 0; j + 1 < S * v; j++)
		t[j] = x;
	rc = pipe_simulate(&c, o, res, &err);
	if (rc < 0)
		printf("# %s\n", err.msg);
	for (int r = 0; r < S; r++)
		pipe_order_release(&o[r]);
	free(o);
	free(f);
	free(b);
	free(t);
	return rc;
}

/* The start of rank r's backward pass of micro-batch mb, chunk 0. */
static double
b_start(const struct pipe_result *res, int r, long mb)
{
	for (size_t i = 0; i < res->nev; i++)
		if (res->ev[i].rank == r && res->ev[i].kind == PIPE_B &&
		    res->ev[i].mb == mb && res->ev[i].chunk == 0)
			return res->ev[i].start_s;
	return -1;
}

/*
 * 1F1B, 4 ranks, 4 micro-batches, forward 1 s and backward 2 s a rank,
 * no transfer time, worked out on paper:
 *   rank 0  F0 0-1 F1 1-2 F2 2-3 F3 3-4 B0 10-12 B1 13-15 B2 16-18 B3 19-21
 *   rank 1  F0 1-2 F1 2-3 F2 3-4 B0 8-10 F3 10-11 B1 11-13 B2 14-16 B3 17-19
 *   rank 2  F0 2-3 F1 3-4 B0 6-8 F2 8-9 B1 9-11 F3 11-12 B2 12-14 B3 15-17
 *   rank 3  F0 3-4 B0 4-6 F1 6-7 B1 7-9 F2 9-10 B2 10-12 F3 12-13 B3 13-15
 * The step is 21 s = (m + S - 1)(F + B) (Narayanan et al., SC'21, the
 * bubble (S - 1)(F + B)); rank 0 idles 9 s of it; rank r holds at most
 * S - r micro-batches (its warm-up and one more).
 */
static void
one_f_one_b_by_hand(void)
{
	const double f[4] = { 1, 1, 1, 1 }, b[4] = { 2, 2, 2, 2 };
	struct pipe_result res;

	if (!OK(run(ONE_F_ONE_B, 4, 1, 4, 0, f, b, 0, &res) == 0,
	    "1F1B 4 x 4 simulates"))
		return;
	EQ_DBL(res.step_s, 21, 1e-12, "1F1B 4 x 4: 21 s");
	EQ_DBL(b_start(&res, 0, 0), 10, 1e-12, "1F1B: rank 0's first "
	    "backward pass starts at 10 s");
	EQ_DBL(b_start(&res, 1, 3), 17, 1e-12, "1F1B: rank 1's last "
	    "backward pass starts at 17 s");
	EQ_DBL(b_start(&res, 2, 1), 9, 1e-12, "1F1B: rank 2's B1 at 9 s");
	EQ_DBL(res.step_s - res.busy_s[0], 9, 1e-12, "1F1B: rank 0 idles "
	    "(S - 1)(F + B) = 9 s");
	OK(res.peak_chunks[0] == 4 && res.peak_chunks[1] == 3 &&
	    res.peak_chunks[2] == 2 && res.peak_chunks[3] == 1,
	    "1F1B: rank r holds S - r micro-batches at most");
	EQ_INT((long)res.nev, 32L, "1F1B: 32 passes");
	pipe_result_release(&res);
}

/*
 * Two ranks, the second twice as slow (forward 1 and 2 s, backward 2 and
 * 4 s), two micro-batches, by hand: rank 1 runs F0 1-3 B0 3-7 F1 7-9
 * B1 9-13, rank 0 F0 0-1 F1 1-2 B0 7-9 B1 13-15.  The step is 15 s:
 * every rank's passes of one micro-batch, 9 s, and (m - 1) of the slowest
 * rank's, 6 s.  The closed form's (m + S - 1) x the slowest rank's 6 s
 * = 18 s is the bound the evaluator prices (docs/model.md).
 */
static void
uneven_by_hand(void)
{
	const double f[2] = { 1, 2 }, b[2] = { 2, 4 };
	struct pipe_result res;

	if (!OK(run(ONE_F_ONE_B, 2, 1, 2, 0, f, b, 0, &res) == 0,
	    "uneven ranks simulate"))
		return;
	EQ_DBL(res.step_s, 15, 1e-12, "uneven ranks: 15 s, under the "
	    "closed form's 18");
	EQ_DBL(b_start(&res, 0, 0), 7, 1e-12, "uneven: rank 0's B0 at 7 s");
	EQ_DBL(b_start(&res, 0, 1), 13, 1e-12, "uneven: rank 0's B1 at 13 s");
	pipe_result_release(&res);
}

/*
 * One micro-batch over two ranks, 0.5 s a boundary each way: 1 + 0.5 +
 * 1 forward, 1 + 0.5 + 1 backward = 5 s, whether the transfers hold
 * their senders or not.  Two micro-batches (1 s a pass) tell them apart,
 * by hand.  Beside compute: rank 0 F0 0-1 F1 1-2 B0 4-5 B1 6-7, rank 1
 * F0 1.5-2.5 B0 2.5-3.5 F1 3.5-4.5 B1 4.5-5.5: 7 s.  Holding the sender:
 * rank 0 F0 0-1.5 F1 1.5-3 B0 4-5 B1 6.5-7.5, rank 1 F0 1.5-2.5 B0
 * 2.5-4 F1 4-5 B1 5-6.5: 7.5 s, rank 0 busy 5 s of it, rank 1 5.  The
 * closed form charges each stage both ways: (2 + 1) x 3 = 9 s.
 */
static void
transfers(void)
{
	const double f[2] = { 1, 1 }, b[2] = { 1, 1 };
	struct pipe_result res;

	for (hold = 0; hold <= 1; hold++)
		if (OK(run(ONE_F_ONE_B, 2, 1, 1, 0, f, b, 0.5, &res) == 0,
		    "transfers simulate")) {
			EQ_DBL(res.step_s, 5, 1e-12, "a boundary's transfer "
			    "both ways: 5 s");
			pipe_result_release(&res);
		}
	hold = 0;
	if (OK(run(ONE_F_ONE_B, 2, 1, 2, 0, f, b, 0.5, &res) == 0,
	    "two micro-batches, transfers beside compute")) {
		EQ_DBL(res.step_s, 7, 1e-12, "transfers beside compute: 7 s");
		EQ_DBL(b_start(&res, 0, 1), 6, 1e-12, "beside compute: rank "
		    "0's B1 at 6 s");
		pipe_result_release(&res);
	}
	hold = 1;
	if (OK(run(ONE_F_ONE_B, 2, 1, 2, 0, f, b, 0.5, &res) == 0,
	    "two micro-batches, transfers holding their senders")) {
		EQ_DBL(res.step_s, 7.5, 1e-12, "transfers holding their "
		    "senders: 7.5 s");
		EQ_DBL(b_start(&res, 0, 1), 6.5, 1e-12, "holding: rank 0's B1 "
		    "at 6.5 s");
		EQ_DBL(res.busy_s[0] + res.busy_s[1], 10, 1e-12, "holding: "
		    "the passes and the sends, 5 s a rank");
		pipe_result_release(&res);
	}
	hold = 0;
}

/*
 * Megatron's interleaved schedule with equal chunks, m a multiple of S:
 * the bubble shrinks v times, the step (m + (S - 1) / v)(F + B)
 * (Narayanan et al., SC'21, Section 2.2.2): S 2, v 2, m 4: 13.5 s; S 4,
 * v 2, m 8: 28.5 s; S 4, v 4, m 8: 26.25 s.  Rank r holds at most its
 * warm-up and one more chunk's activations: 2 (S - r - 1) + (v - 1) S +
 * 1 (Megatron-LM core_v0.15.0, get_pp_rank_microbatches), at most m v.
 */
static void
interleaved(void)
{
	static const struct { int S, v; long m; double step; } k[] = {
		{ 2, 2, 4, 13.5 }, { 4, 2, 8, 28.5 }, { 4, 4, 8, 26.25 },
	};
	const double f[4] = { 1, 1, 1, 1 }, b[4] = { 2, 2, 2, 2 };
	char name[96];

	for (size_t i = 0; i < sizeof k / sizeof k[0]; i++) {
		struct pipe_result res;
		int peaks = 1;

		snprintf(name, sizeof name, "interleaved S %d v %d m %ld "
		    "simulates", k[i].S, k[i].v, k[i].m);
		if (!OK(run(INTERLEAVED, k[i].S, k[i].v, k[i].m, k[i].S, f, b,
		    0, &res) == 0, name))
			continue;
		snprintf(name, sizeof name, "interleaved S %d v %d m %ld: "
		    "(m + (S - 1)/v)(F + B)", k[i].S, k[i].v, k[i].m);
		EQ_DBL(res.step_s, k[i].step, 1e-12, name);
		for (int r = 0; r < k[i].S; r++) {
			long want = 2 * (k[i].S - r - 1) + (k[i].v - 1) *
			    k[i].S + 1;

			if (want > k[i].m * k[i].v)
				want = k[i].m * k[i].v;
			peaks &= res.peak_chunks[r] == want;
		}
		snprintf(name, sizeof name, "interleaved S %d v %d m %ld: the "
		    "warm-up's chunks held", k[i].S, k[i].v, k[i].m);
		OK(peaks, name);
		pipe_result_release(&res);
	}
}

/*
 * Megatron-Core's micro-batch groups (--microbatch-group-size-per-
 * virtual-pipeline-stage g): the warm-up is 2 (S - r - 1) + (v - 1) g
 * passes, so one group of all m micro-batches keeps more in flight: S 2,
 * v 2, m 4, g 4: rank 0 holds 2 + 4 + 1 = 7 chunks, rank 1 5; g = S = 2:
 * 5 and 3.
 */
static void
groups(void)
{
	const double f[2] = { 1, 1 }, b[2] = { 2, 2 };
	struct pipe_result res;

	if (OK(run(INTERLEAVED, 2, 2, 4, 4, f, b, 0, &res) == 0,
	    "one group of 4 simulates")) {
		OK(res.peak_chunks[0] == 7 && res.peak_chunks[1] == 5,
		    "one group of 4: 7 and 5 chunks held");
		pipe_result_release(&res);
	}
	if (OK(run(INTERLEAVED, 2, 2, 4, 2, f, b, 0, &res) == 0,
	    "groups of 2 simulate")) {
		OK(res.peak_chunks[0] == 5 && res.peak_chunks[1] == 3,
		    "groups of S = 2: 5 and 3 chunks held");
		pipe_result_release(&res);
	}
}

/*
 * Megatron-LM's own example (core_v0.15.0 schedules.py,
 * convert_schedule_table_to_order): PP 2, VP 2, 5 micro-batches in groups
 * of 3 (the last group 2), rank 0 warming up with 5 passes, runs its
 * chunks as "1 1 1 2 2 2 -2 1 -2 1 -2 2 -1 2 -1 -1 -2 -2 -1 -1" (k: the
 * forward pass of chunk k - 1; -k: the backward pass of chunk k - 1).
 * And the warm-up's cap at m v: S 4, v 2, m 4, one group of 4: rank 0
 * would warm up with 2 x 3 + 4 = 10 passes of the 8 there are, so it
 * holds all 8.  Megatron's groups: S <= g <= m, m mod g 0 or >= S.
 */
static void
megatron_example(void)
{
	static const int want[20] = { 1, 1, 1, 2, 2, 2, -2, 1, -2, 1, -2, 2,
		-1, 2, -1, -1, -2, -2, -1, -1 };
	const double f[4] = { 1, 1, 1, 1 }, b[4] = { 2, 2, 2, 2 };
	struct pipe_order o;
	struct pipe_result res;
	int same;

	pipe_order_interleaved(2, 2, 0, 5, 3, &o);
	same = o.n == 20;
	for (size_t i = 0; same && i < o.n; i++)
		same = (o.op[i].kind == PIPE_F ? o.op[i].chunk + 1 :
		    -(o.op[i].chunk + 1)) == want[i];
	OK(same, "Megatron's example order: PP 2, VP 2, m 5, groups of 3");
	pipe_order_release(&o);
	if (OK(run(INTERLEAVED, 4, 2, 4, 4, f, b, 0, &res) == 0, "S 4, v 2, "
	    "m 4, one group simulates")) {
		EQ_INT(res.peak_chunks[0], 8L, "the warm-up capped at m v: "
		    "rank 0 holds all 8 chunks");
		pipe_result_release(&res);
	}
	OK(pipe_group_ok(2, 5, 3) && pipe_group_ok(4, 8, 4) &&
	    pipe_group_ok(4, 12, 8) && !pipe_group_ok(4, 8, 5) &&
	    !pipe_group_ok(4, 8, 2) && !pipe_group_ok(4, 8, 9),
	    "Megatron's group rules: 3 of 5 at S 2, 4 and 8 of 8 and 12 at "
	    "S 4 run; 5, 2 and 9 of 8 at S 4 do not");
}

static unsigned long rng_state = 20261126;

static double
uniform(void)
{
	rng_state = rng_state * 6364136223846793005UL + 1442695040888963407UL;
	return (double)((rng_state >> 11) & ((1UL << 53) - 1)) /
	    9007199254740992.0;
}

/*
 * The closed form where it claims to be exact, against the simulation
 * (issue 35, item 3): 300 seeded random pipelines (1-8 ranks, 1-4 chunks
 * where there are two ranks or more, m a multiple of S when
 * interleaved, up to 32 micro-batches a chunk) with every chunk alike and
 * no transfer time: the simulated step is the evaluator's plan_step, (m +
 * (S - 1)/v) x the load, to 1e-12, and with a random exposed reduction
 * a rank after its own last pass, the step plus the drain's credited
 * sync (plan_drain_sync) too.  And 300 more under 1F1B with every rank
 * its own passes (and transfers): the closed form over the slowest load
 * bounds what the schedule runs, with the reductions too.
 */
static void
closed_forms(void)
{
	int exact = 0, bounded = 0, n = 300;

	for (int it = 0; it < 2 * n; it++) {
		int S = 1 + (int)(uniform() * 8), uneven = it >= n;
		int v = S > 1 && !uneven ? 1 + (int)(uniform() * 4) : 1;
		long m = (1 + (long)(uniform() * 32)) * (v > 1 ? S : 1);
		double f[8], b[8], x = uneven ? 0.01 * uniform() : 0, load = 0;
		double fc = 0.1 + uniform(), bc = 0.1 + 2 * uniform();
		double sim = 0, sync = 0;
		struct stage_cost sc[8];
		struct pipe_result res;

		for (int r = 0; r < S; r++) {
			f[r] = uneven ? 0.1 + uniform() : fc;
			b[r] = uneven ? 0.1 + 2 * uniform() : bc;
			/* the evaluator's load: the passes and a transfer
			 * each way on either side */
			load = fmax(load, f[r] + b[r] + 2 * x * ((r > 0) +
			    (r + 1 < S)));
			/* each rank's exposed reduction, after its last
			 * pass */
			memset(&sc[r], 0, sizeof sc[r]);
			sc[r].sync_s = 3 * uniform();
			sc[r].backward_s = b[r];
		}
		if (run(v > 1 ? INTERLEAVED : ONE_F_ONE_B, S, v, m, S, f, b, x,
		    &res) < 0)
			continue;
		for (int r = S - 1; r >= 0; r--) {
			sim = fmax(sim, res.end_s[r] + sc[r].sync_s);
			sync = plan_drain_sync(sync, &sc[r], v);
		}
		if (!uneven)
			exact += fabs(res.step_s - plan_step(m, S, v, load, 0)) <=
			    1e-12 * res.step_s && fabs(sim - plan_step(m, S, v,
			    load, sync)) <= 1e-12 * sim;
		else
			bounded += res.step_s <= plan_step(m, S, 1, load, 0) *
			    (1 + 1e-12) && sim <= plan_step(m, S, 1, load,
			    sync) * (1 + 1e-12);
		pipe_result_release(&res);
	}
	EQ_INT((long)exact, (long)n, "alike chunks, no transfer: the "
	    "simulated step is the closed form's, with each rank's reduction "
	    "after its last pass the drain's credit, 300 of 300");
	EQ_INT((long)bounded, (long)n, "1F1B, every rank its own passes and "
	    "transfers: the closed form bounds the simulated step, and with "
	    "the reductions the drain's credit does, 300 of 300");
}

/* GPipe: every forward pass, then every backward pass: the same (m + S
 * - 1)(F + B) as 1F1B, every micro-batch held at once. */
static void
gpipe(void)
{
	const double f[4] = { 1, 1, 1, 1 }, b[4] = { 2, 2, 2, 2 };
	struct pipe_result res;

	if (!OK(run(GPIPE, 4, 1, 4, 0, f, b, 0, &res) == 0, "GPipe "
	    "simulates"))
		return;
	EQ_DBL(res.step_s, 21, 1e-12, "GPipe 4 x 4: 21 s");
	OK(res.peak_chunks[0] == 4 && res.peak_chunks[3] == 4, "GPipe: every "
	    "micro-batch held");
	pipe_result_release(&res);
}

/* an operation of an order */
#define OP(k, c, b) { .kind = (k), .chunk = (c), .mb = (b) }

/* Orders that cannot run: a pass missing, a pass twice, and two ranks
 * waiting on each other (rank 1 takes micro-batch 1 before 0, which
 * rank 0 sends only after its backward pass of 0). */
static void
refused(void)
{
	double f[2] = { 1, 1 }, b[2] = { 1, 1 };
	struct pipe_costs c = { .S = 2, .v = 1, .m = 2, .fwd_s = f, .bwd_s = b };
	struct pipe_op r0[4] = { OP(PIPE_F, 0, 0), OP(PIPE_B, 0, 0),
		OP(PIPE_F, 0, 1), OP(PIPE_B, 0, 1) };
	struct pipe_op r1[4] = { OP(PIPE_F, 0, 1), OP(PIPE_B, 0, 1),
		OP(PIPE_F, 0, 0), OP(PIPE_B, 0, 0) };
	struct pipe_op twice[4] = { OP(PIPE_F, 0, 0), OP(PIPE_F, 0, 0),
		OP(PIPE_B, 0, 0), OP(PIPE_B, 0, 1) };
	struct pipe_order o[2] = { { r0, 4 }, { r1, 4 } };
	struct pipe_result res;
	struct pl_err err;

	OK(pipe_simulate(&c, o, &res, &err) < 0 &&
	    strstr(err.msg, "deadlock") != NULL, "a cycle of waits: refused "
	    "as a deadlock");
	o[1].n = 3;
	OK(pipe_simulate(&c, o, &res, &err) < 0 &&
	    strstr(err.msg, "never runs micro-batch 0's backward") != NULL,
	    "a pass missing: refused");
	o[1] = (struct pipe_order){ twice, 4 };
	OK(pipe_simulate(&c, o, &res, &err) < 0 &&
	    strstr(err.msg, "twice") != NULL, "a pass twice: refused");
	f[1] = -1;
	o[1] = (struct pipe_order){ r0, 4 };
	OK(pipe_simulate(&c, o, &res, &err) < 0 &&
	    strstr(err.msg, "rank 1 chunk 0") != NULL, "a negative pass: "
	    "refused");
}

/* The split schedules: ZB-H1, ZB-V, DualPipeV, DualPipe. */
enum { ZBH1, ZBV, DUALPIPEV, DUALPIPE };

/*
 * Simulate a split schedule on S ranks, m micro-batches, no transfer:
 * each chunk's forward pass F s (comm_f of it communication), its input
 * gradient B s and its weights' gradient W s (the whole backward pass
 * B + W, comm_b of it communication).  V schedules hold two chunks a
 * rank; DualPipe's two are two stages.
 */
static int
run_split(int sched, int S, long m, double F, double B, double W,
    double comm_f, double comm_b, struct pipe_result *res)
{
	int v = sched == ZBH1 ? 1 : 2;
	size_t n = (size_t)(S * v);
	struct pipe_order *o = calloc((size_t)S, sizeof *o);
	double *f = calloc(n, sizeof *f), *b = calloc(n, sizeof *b);
	double *w = calloc(n, sizeof *w), *cf = calloc(n, sizeof *cf);
	double *cb = calloc(n, sizeof *cb);
	int *route = calloc(n, sizeof *route);
	int *mb_route = calloc((size_t)m, sizeof *mb_route);
	struct pipe_costs c = { .S = S, .v = v, .m = m, .fwd_s = f, .bwd_s = b,
	    .wgrad_s = w, .fwd_comm_s = cf, .bwd_comm_s = cb };
	struct pl_err err;
	int rc;

	for (size_t i = 0; i < n; i++) {
		f[i] = F;
		b[i] = B + W;
		w[i] = W;
		cf[i] = comm_f;
		cb[i] = comm_b;
	}
	if (sched == ZBV || sched == DUALPIPEV) {
		pipe_route_v(S, route);
		c.route = route;
		c.nroute = 1;
		c.route_len = 2 * S;
	} else if (sched == DUALPIPE) {
		pipe_route_dual(S, m, route, mb_route);
		c.route = route;
		c.mb_route = mb_route;
		c.nroute = 2;
		c.route_len = S;
	}
	for (int r = 0; r < S; r++)
		if (sched == ZBH1)
			pipe_order_zbh1(S, r, m, &o[r]);
		else if (sched == ZBV)
			pipe_order_zbv(S, r, m, &o[r]);
		else if (sched == DUALPIPEV)
			pipe_order_dualpipev(S, r, m, &o[r]);
		else
			pipe_order_dualpipe(S, r, m, &o[r]);
	rc = pipe_simulate(&c, o, res, &err);
	if (rc < 0)
		printf("# %s\n", err.msg);
	for (int r = 0; r < S; r++)
		pipe_order_release(&o[r]);
	free(o);
	free(f);
	free(b);
	free(w);
	free(cf);
	free(cb);
	free(route);
	free(mb_route);
	return rc;
}

/*
 * The fixed orders' forms (sim/form.h) against the simulation: seeded
 * random pipelines under ZB-H1, ZB-V and DualPipeV (2-8 ranks, 1 to 4S
 * micro-batches, DualPipeV's at least 2S), transfers beside compute.
 * Alike (every chunk the same passes, DualPipeV's pairs the same
 * communication, no transfer time): the form's step is the simulated one
 * to 1e-9, and ZB-H1's is its closed form.  Uneven (each chunk its own
 * passes and communication, each boundary its own transfer): the form
 * at the slowest passes, each with half the transfers in and out of its
 * position (a pair: its two passes' halves past the pair's time), bounds
 * the simulated step.  The peaks the form counts from the orders are
 * the simulated ones.
 */
static void
fixed_order_forms(void)
{
	int exact = 0, bound = 0, peaks = 0, closed = 0, n = 150, tried = 0;
	double loosest = 0;

	for (int it = 0; it < 6 * n; it++) {
		int sched = it % 3, uneven = it >= 3 * n;
		int S = 2 + (int)(uniform() * 7), v = sched == ZBH1 ? 1 : 2;
		int L = S * v;
		long m = sched == DUALPIPEV ? 2L * S + (long)(uniform() * 2 * S) :
		    1 + (long)(uniform() * 4 * S);
		double f[16], b[16], w[16], cf[16], cb[16], x[16] = { 0 };
		double F = 0.2 + uniform(), B = 0.2 + uniform();
		double W = uniform() * fmin(F, B), Fm = 0, Bm = 0, Wm = 0, Pm = 0;
		double step;
		int route[16], pos[16];
		struct pipe_order o[8];
		struct pipe_costs c = { .S = S, .v = v, .m = m, .fwd_s = f,
		    .bwd_s = b, .wgrad_s = w, .fwd_comm_s = cf, .bwd_comm_s = cb,
		    .transfer_s = x };
		struct pipe_result res;
		struct pipe_form form;
		struct pl_err err;

		for (int i = 0; i < L; i++) {
			double u = uneven ? 0.6 + 0.8 * uniform() : 1;

			f[i] = F * (uneven ? 0.6 + 0.8 * uniform() : 1);
			w[i] = W * (uneven ? 0.6 + 0.8 * uniform() : 1);
			b[i] = B * u + w[i];
			cf[i] = sched == DUALPIPEV ? 0.5 * f[i] * (uneven ?
			    uniform() : 0.5) : 0;
			cb[i] = sched == DUALPIPEV ? 0.5 * b[i] * (uneven ?
			    uniform() : 0.5) : 0;
		}
		if (v == 2) {
			pipe_route_v(S, route);
			c.route = route;
			c.nroute = 1;
			c.route_len = L;
		} else
			for (int j = 0; j < L; j++)
				route[j] = j;
		for (int j = 0; j < L; j++)
			pos[route[j]] = j;
		for (int j = 0; j + 1 < L; j++)
			x[j] = uneven && !(v == 2 && j == S - 1) ? 0.05 *
			    uniform() : 0;
		for (int i = 0; i < L; i++) {
			int j = pos[i];
			double half = ((j > 0 ? x[j - 1] : 0) +
			    (j + 1 < L ? x[j] : 0)) / 2;

			Fm = fmax(Fm, f[i] + half);
			Bm = fmax(Bm, b[i] - w[i] + half);
			Wm = fmax(Wm, w[i]);
		}
		/* a pair: one chunk's forward pass beside another's (or the
		 * same's) whole backward pass on the rank */
		for (int r = 0; r < S && sched == DUALPIPEV; r++)
			for (int i = r * v; i < r * v + v; i++)
				for (int k = r * v; k < r * v + v; k++) {
					double own = f[i] + b[k];
					double comm = fmin(cf[i], f[i]) +
					    fmin(cb[k], b[k]);
					int ji = pos[i], jk = pos[k];
					double sends = ((ji > 0 ? x[ji - 1] : 0) +
					    (ji + 1 < L ? x[ji] : 0) +
					    (jk > 0 ? x[jk - 1] : 0) +
					    (jk + 1 < L ? x[jk] : 0)) / 2;

					Pm = fmax(Pm, fmax(own - comm, comm) +
					    sends);
				}
		for (int r = 0; r < S; r++)
			if (sched == ZBH1)
				pipe_order_zbh1(S, r, m, &o[r]);
			else if (sched == ZBV)
				pipe_order_zbv(S, r, m, &o[r]);
			else
				pipe_order_dualpipev(S, r, m, &o[r]);
		tried++;
		if (pipe_simulate(&c, o, &res, &err) < 0 ||
		    pipe_form_build(o, S, v, m, v == 2 ? route : NULL, &form,
		    &err) < 0) {
			printf("# %s\n", err.msg);
			for (int r = 0; r < S; r++)
				pipe_order_release(&o[r]);
			continue;
		}
		step = pipe_form_step(&form, Fm, Bm, Wm, Pm);
		if (!uneven && fabs(res.step_s - step) <= 1e-9 * step)
			exact++;
		else if (!uneven)
			printf("# schedule %d S %d m %ld: step %.9g, form %.9g\n",
			    sched, S, m, res.step_s, step);
		if (!uneven && sched == ZBH1)
			closed += fabs(plan_step_zbh1(m, S, Fm, Bm, Wm) - step) <=
			    1e-9 * step;
		if (uneven) {
			bound += res.step_s <= step * (1 + 1e-12);
			loosest = fmax(loosest, step / res.step_s - 1);
		}
		peaks += !memcmp(res.peak_chunks, form.peak_chunks,
		    (size_t)S * sizeof *res.peak_chunks);
		pipe_form_release(&form);
		pipe_result_release(&res);
		for (int r = 0; r < S; r++)
			pipe_order_release(&o[r]);
	}
	EQ_INT(exact, 3 * n, "the fixed orders' forms (ZB-H1, ZB-V, DualPipeV) "
	    "are the step of 450 alike pipelines");
	EQ_INT(closed, n, "ZB-H1's form is its closed form (plan_step_zbh1)");
	EQ_INT(bound, 3 * n, "at the slowest passes they bound 450 uneven "
	    "pipelines with transfers");
	EQ_INT(peaks, tried, "the peaks counted from the orders are the "
	    "simulated ones");
	printf("# uneven: at most %.1f%% above the simulated step\n",
	    100 * loosest);
}

/* Schedule sched's form for S ranks and m micro-batches (ZBV or
 * DUALPIPEV; sampled at the points plan.c samples, or whole). */
static int
v_form(int sched, int S, long m, int sampled, struct pipe_form *f)
{
	static const int at[][FORM_N] = {
		{ 2, 2, 2, 3 }, { 2, 2, 2, 6 }, { 1, 1, 0, 1 }, { 2, 0, 0, 1 },
		{ 0, 2, 0, 1 }, { 2, 2, 1, 4 },
	};
	struct pipe_order o[64];
	int route[128], rc;
	struct pl_err err;

	pipe_route_v(S, route);
	for (int r = 0; r < S; r++)
		if (sched == ZBV)
			pipe_order_zbv(S, r, m, &o[r]);
		else
			pipe_order_dualpipev(S, r, m, &o[r]);
	rc = sampled ? pipe_form_sample(o, S, 2, m, route, at, 6, f, &err) :
	    pipe_form_build(o, S, 2, m, route, f, &err);
	for (int r = 0; r < S; r++)
		pipe_order_release(&o[r]);
	return rc;
}

/*
 * What the search takes from the forms (plan.c): their floor, the least
 * step over F + B + W = 1 (F, B >= W) with pairs at least half that,
 * against 2,000 random points of that triangle a form (never above any,
 * and within 1% of the least found); the sampled form, the chains
 * longest at six points, exact there and a floor no higher; and the
 * steady round: ZB-V's form past 2S micro-batches, DualPipeV's past 2S
 * + 1, is the first one's with (2, 2, 2, 0) or (0, 0, 0, 2) a micro-
 * batch more, run whole for S 2-12, 32 and 64.
 */
static void
form_floors(void)
{
	int under = 0, tight = 0, sample_exact = 0, sample_floor = 0, n = 0;
	int shifts = 0, tried = 0;
	static const int round[2][FORM_N] = { { 2, 2, 2, 0 }, { 0, 0, 0, 2 } };

	for (int it = 0; it < 40; it++) {
		int sched = it % 2 ? DUALPIPEV : ZBV, S = 2 + (int)(uniform() * 11);
		long m = sched == DUALPIPEV ? 2L * S + (long)(uniform() * 2 * S) :
		    1 + (long)(uniform() * 4 * S);
		double pair = sched == DUALPIPEV ? 0.5 : 0, floor, least = INFINITY;
		struct pipe_form f, g;
		int ok = 1;

		if (v_form(sched, S, m, 0, &f) < 0 || v_form(sched, S, m, 1,
		    &g) < 0)
			continue;
		n++;
		floor = pipe_form_floor(&f, pair);
		for (int k = 0; k < 2000; k++) {
			double a = uniform(), b = uniform(), F, B, W, t;

			if (a + b > 1) {
				a = 1 - a;
				b = 1 - b;
			}
			W = (1 - a - b) / 3;
			F = a + W;
			B = b + W;
			/* pairs at their least and above */
			t = pipe_form_step(&f, F, B, W, pair);
			ok &= t >= floor && pipe_form_step(&f, F, B, W, pair *
			    (1 + uniform())) >= floor;
			least = fmin(least, t);
		}
		under += ok;
		tight += least <= floor * 1.01;
		sample_exact += fabs(pipe_form_step(&g, 1, 1, 1, 1.5) -
		    pipe_form_step(&f, 1, 1, 1, 1.5)) <= 1e-9 * pipe_form_step(&f,
		    1, 1, 1, 1.5) && fabs(pipe_form_step(&g, 2, 0, 0, 1) -
		    pipe_form_step(&f, 2, 0, 0, 1)) <= 1e-9 * pipe_form_step(&f,
		    2, 0, 0, 1);
		sample_floor += pipe_form_floor(&g, pair) <= floor * (1 + 1e-12);
		pipe_form_release(&f);
		pipe_form_release(&g);
	}
	for (int sched = ZBV; sched <= DUALPIPEV; sched++)
		for (int S = 2; S <= 64; S = S < 12 ? S + 1 : S == 12 ? 32 :
		    64 + 2 * (S == 64)) {
			long m0 = 2L * S + (sched == DUALPIPEV);
			struct pipe_form a, f, g;

			if (v_form(sched, S, m0, 0, &a) < 0)
				continue;
			for (long k = 2; k <= (S > 12 ? 2 : 5); k++) {
				tried++;
				if (v_form(sched, S, m0 + k, 0, &f) < 0)
					continue;
				pipe_form_shifted(&a, k, round[sched == DUALPIPEV],
				    &g);
				shifts += pipe_form_is_shift(&g, &f, (const int[
				    FORM_N]){ 0 });
				pipe_form_release(&f);
				pipe_form_release(&g);
			}
			pipe_form_release(&a);
		}
	EQ_INT(under, n, "a form's floor is never above it on 2,000 points "
	    "of the triangle (40 forms of ZB-V and DualPipeV)");
	EQ_INT(tight, n, "and within 1% of the least of them");
	EQ_INT(sample_exact, n, "a sampled form is the form at its points");
	EQ_INT(sample_floor, n, "and its floor no higher");
	EQ_INT(shifts, tried, "past 2S (+1) micro-batches a form is the "
	    "first one's with a steady round a micro-batch more (S 2-12, "
	    "32, 64)");
}

/*
 * The evaluator's V passes (plan_split_passes from a stage's costs, its
 * two chunks alike, its sends 2 v transfers over each of its boundaries,
 * none at the V's turn) at the slowest stage's: the form there bounds
 * the simulated step of 300 V pipelines (ZB-V, DualPipeV) with transfers
 * beside compute, half of them uneven, half with alike compute, large
 * transfers and few micro-batches.  (Each pass carries the whole of its
 * chunk's transfer in and out, twice what the bound needs, so a fold too
 * small by half would pass too: this checks the bound, not the fold.)
 */
static void
split_passes_bound(void)
{
	int bound = 0, n = 300;
	double loosest = 0;

	for (int it = 0; it < n; it++) {
		int sched = it % 2 ? DUALPIPEV : ZBV, S = 2 + (int)(uniform() * 7);
		long m = sched == DUALPIPEV ? 2L * S + (long)(uniform() * 2 * S) :
		    1 + (long)(uniform() * 4 * S);
		double f[16], b[16], w[16], cf[16], cb[16], x[16], T[8];
		double F = 0, B = 0, W = 0, P = 0, step;
		int route[16];
		struct pipe_order o[8];
		struct pipe_costs c = { .S = S, .v = 2, .m = m, .fwd_s = f,
		    .bwd_s = b, .wgrad_s = w, .fwd_comm_s = cf, .bwd_comm_s = cb,
		    .transfer_s = x, .route = route, .nroute = 1,
		    .route_len = 2 * S };
		struct pipe_result res;
		struct pipe_form form;
		struct pl_err err;

		/* every other one: the stages' compute alike, the
		 * transfers large, where the bound is tight */
		int alike = it % 4 >= 2;
		double fa = 0.2 + uniform(), wa = 0.1 + 0.4 * uniform();
		double ba = 0.2 + uniform() + wa;

		for (int r = 0; r + 1 < S; r++)
			T[r] = (alike ? 0.5 : 0.1) * uniform();
		/* and few micro-batches, the transfers on the longest
		 * chain */
		if (alike)
			m = sched == DUALPIPEV ? 2L * S : 1 + it % 3;
		c.m = m;
		pipe_route_v(S, route);
		for (int j = 0; j + 1 < 2 * S; j++)
			x[j] = j < S - 1 ? T[j] : j == S - 1 ? 0 : T[2 * S - 2 - j];
		for (int r = 0; r < S; r++) {
			double fr = alike ? fa : 0.2 + uniform();
			double wr = alike ? wa : 0.1 + 0.4 * uniform();
			double br = alike ? ba : 0.2 + uniform() + wr;
			double in = r > 0 ? T[r - 1] : 0, out = r + 1 < S ? T[r] : 0;
			struct stage_cost sc = { .forward_s = 2 * fr,
			    .backward_s = 2 * br, .weight_gradient_s = 2 * wr,
			    .forward_comm_s = sched == DUALPIPEV ? fr *
			    uniform() : 0, .p2p_in_s = 4 * in, .p2p_out_s =
			    4 * out };
			double pf, pb, pw, pp;

			sc.backward_comm_s = sched == DUALPIPEV ? br * uniform() : 0;
			sc.load_s = sc.forward_s + sc.backward_s + sc.p2p_in_s +
			    sc.p2p_out_s;
			for (int k = 0; k < 2; k++) {
				f[2 * r + k] = fr;
				b[2 * r + k] = br;
				w[2 * r + k] = wr;
				cf[2 * r + k] = sc.forward_comm_s / 2;
				cb[2 * r + k] = sc.backward_comm_s / 2;
			}
			plan_split_passes(&sc, 2, &pf, &pb, &pw, &pp);
			F = fmax(F, pf);
			B = fmax(B, pb);
			W = fmax(W, pw);
			P = fmax(P, pp);
			if (sched == ZBV)
				pipe_order_zbv(S, r, m, &o[r]);
			else
				pipe_order_dualpipev(S, r, m, &o[r]);
		}
		if (pipe_simulate(&c, o, &res, &err) == 0 &&
		    pipe_form_build(o, S, 2, m, route, &form, &err) == 0) {
			step = pipe_form_step(&form, F, B, W, P);
			bound += res.step_s <= step * (1 + 1e-12);
			loosest = fmax(loosest, step / res.step_s - 1);
			pipe_form_release(&form);
			pipe_result_release(&res);
		} else
			printf("# %s\n", err.msg);
		for (int r = 0; r < S; r++)
			pipe_order_release(&o[r]);
	}
	EQ_INT(bound, n, "the evaluator's V passes (plan_split_passes) at "
	    "the slowest stage's bound 300 ZB-V and DualPipeV pipelines with "
	    "transfers");
	printf("# at most %.1f%% above the simulated step\n", 100 * loosest);
}

/* The most any rank idles in the step. */
static double
most_idle(const struct pipe_result *res, int S)
{
	double most = 0;

	for (int r = 0; r < S; r++)
		most = fmax(most, res->step_s - res->busy_s[r]);
	return most;
}

/* Whether every rank peaks at `want` chunk-micro-batches held. */
static int
peaks_all(const struct pipe_result *res, int S, long want)
{
	for (int r = 0; r < S; r++)
		if (res->peak_chunks[r] != want)
			return 0;
	return 1;
}

/*
 * ZB-H1 (Qi et al., ICLR 2024, Section 2.1): the bubble is
 * (p - 1)(T_F + T_B - T_W), against 1F1B's (p - 1)(T_F + T_B + T_W), a
 * third of it when the three are equal; every rank holds at most p
 * micro-batches' activations until their W pass (1F1B's first rank's).
 * At three cost shapes, 2 to 8 ranks, m from p to 3p.
 */
static void
zbh1(void)
{
	static const double cost[][3] = { { 1, 1, 1 }, { 1, 2, 1 },
		{ 2, 2, 1 } };
	int bad = 0, tried = 0;

	for (size_t k = 0; k < sizeof cost / sizeof cost[0]; k++)
		for (int S = 2; S <= 8; S *= 2)
			for (long m = S; m <= 3L * S; m += S) {
				double F = cost[k][0], B = cost[k][1];
				double W = cost[k][2];
				struct pipe_result res;

				tried++;
				if (run_split(ZBH1, S, m, F, B, W, 0, 0,
				    &res) < 0) {
					bad++;
					continue;
				}
				if (fabs(res.step_s - m * (F + B + W) -
				    (S - 1) * (F + B - W)) > 1e-9 ||
				    fabs(most_idle(&res, S) - (S - 1) *
				    (F + B - W)) > 1e-9 ||
				    !peaks_all(&res, S, S)) {
					printf("# F %g B %g W %g S %d m %ld: "
					    "step %g\n", F, B, W, S, m,
					    res.step_s);
					bad++;
				}
				pipe_result_release(&res);
			}
	printf("# %d pipelines\n", tried);
	OK(bad == 0, "ZB-H1: the bubble (p - 1)(F + B - W) and p micro-"
	    "batches held on every rank");
}

/*
 * The search's ZB-H1 closed form (plan_step_zbh1, through
 * plan_split_passes as the evaluator takes a stage's costs) against the
 * simulation, the transfers holding their senders: on 200 seeded random
 * pipelines of alike stages without transfers (2-8 ranks, 1 to 4S
 * micro-batches, W at most F and B) it is the step; on 400 of uneven
 * stages (each pass 0.6-1.4 times its own, W up to twice F or B) with
 * transfers it bounds it.
 */
static void
zbh1_closed_form(void)
{
	int exact = 0, bound = 0, n = 200;
	double loosest = 0;

	for (int it = 0; it < 3 * n; it++) {
		int S = 2 + (int)(uniform() * 7), uneven = it >= n;
		long m = 1 + (long)(uniform() * 4 * S);
		double F = 0.2 + uniform(), B = 0.2 + uniform();
		double W = uneven ? 0.1 + 2 * uniform() * fmin(F, B) :
		    uniform() * fmin(F, B);
		double f[8], b[8], w[8], x[8] = { 0 };
		double fmax_ = 0, bmax = 0, wmax = 0, closed;
		struct pipe_order o[8];
		struct pipe_costs c = { .S = S, .v = 1, .m = m, .fwd_s = f,
		    .bwd_s = b, .wgrad_s = w, .transfer_s = x,
		    .hold_sender = 1 };
		struct pipe_result res;
		struct pl_err err;

		for (int r = 0; r < S; r++) {
			f[r] = F * (uneven ? 0.6 + 0.8 * uniform() : 1);
			w[r] = W * (uneven ? 0.6 + 0.8 * uniform() : 1);
			b[r] = B * (uneven ? 0.6 + 0.8 * uniform() : 1) + w[r];
			x[r] = uneven && r + 1 < S ? 0.05 * uniform() : 0;
		}
		for (int r = 0; r < S; r++) {
			double in = r > 0 ? x[r - 1] : 0;
			struct stage_cost sc = { .forward_s = f[r],
			    .backward_s = b[r], .weight_gradient_s = w[r],
			    .p2p_in_s = 2 * in, .p2p_out_s = 2 * x[r],
			    .load_s = f[r] + b[r] + 2 * in + 2 * x[r] };
			double pf, pb, pw, pp;

			plan_split_passes(&sc, 1, &pf, &pb, &pw, &pp);
			fmax_ = fmax(fmax_, pf);
			bmax = fmax(bmax, pb);
			wmax = fmax(wmax, pw);
			pipe_order_zbh1(S, r, m, &o[r]);
		}
		closed = plan_step_zbh1(m, S, fmax_, bmax, wmax);
		if (pipe_simulate(&c, o, &res, &err) < 0) {
			printf("# %s\n", err.msg);
			for (int r = 0; r < S; r++)
				pipe_order_release(&o[r]);
			continue;
		}
		if (!uneven && fabs(res.step_s - closed) <= 1e-9 * closed)
			exact++;
		else if (!uneven)
			printf("# S %d m %ld F %g B %g W %g: step %.9g, closed "
			    "form %.9g\n", S, m, F, B, W, res.step_s, closed);
		if (uneven) {
			bound += res.step_s <= closed * (1 + 1e-12);
			loosest = fmax(loosest, closed / res.step_s - 1);
		}
		pipe_result_release(&res);
		for (int r = 0; r < S; r++)
			pipe_order_release(&o[r]);
	}
	EQ_INT(exact, n, "ZB-H1's closed form (plan_step_zbh1) is the step "
	    "of 200 alike pipelines, 1 to 4S micro-batches");
	EQ_INT(bound, 2 * n, "and bounds it on 400 uneven ones with "
	    "transfers");
	printf("# uneven: at most %.1f%% above the simulated step\n",
	    100 * loosest);
}

/*
 * ZB-V (ibid.; the authors' README: zero bubble and 1F1B's activation
 * memory when T_F = T_B = T_W): with m >= 2p - 1 every rank runs
 * without a gap from its first pass to its last, the ranks staggered by
 * one chunk's forward pass each (step 6m + p - 1), and each holds 2p
 * chunk-micro-batches, p stages' worth, at its peak.
 */
static void
zbv(void)
{
	int bad = 0, tried = 0;

	for (int S = 2; S <= 8; S *= 2)
		for (long m = 2L * S - 1; m <= 3L * S; m += S / 2 + 1) {
			struct pipe_result res;

			tried++;
			if (run_split(ZBV, S, m, 1, 1, 1, 0, 0, &res) < 0) {
				bad++;
				continue;
			}
			for (int r = 0; r < S; r++) {
				double first = -1;

				for (size_t i = 0; i < res.nev; i++)
					if (res.ev[i].rank == r && (first < 0 ||
					    res.ev[i].start_s < first))
						first = res.ev[i].start_s;
				if (fabs(res.end_s[r] - first - res.busy_s[r]) >
				    1e-9 || fabs(first - r) > 1e-9)
					bad++;
			}
			if (fabs(res.step_s - 6 * m - (S - 1)) > 1e-9 ||
			    !peaks_all(&res, S, 2L * S)) {
				printf("# S %d m %ld: step %g\n", S, m,
				    res.step_s);
				bad++;
			}
			pipe_result_release(&res);
		}
	printf("# %d pipelines\n", tried);
	OK(bad == 0, "ZB-V: no gap on any rank, step 6m + p - 1 and 2p "
	    "chunks held at equal passes");
}

/*
 * DualPipe (DeepSeek-V3 technical report, Table 2, F&B an overlapped
 * pair and B a whole backward pass): the bubble (PP/2 - 1)(F&B + B - 3W)
 * and PP + 1 activations a rank whatever m, PP the stages (DualPipeV: 2p
 * chunks on p ranks; DualPipe: p stages on p ranks), at T_F = T_B as
 * the table's closed form assumes.  Forward 1 s, input gradient 1 s, W
 * 1 s, half a second of communication in each pass: a pair takes 2 s;
 * then 2, 2, 1 with a second of each: 3 s.  Figure 5's 8 ranks and 20
 * micro-batches among them.
 */
static void
dualpipe(void)
{
	static const double cost[][5] = { { 1, 1, 1, 0.5, 0.5 },
		{ 2, 2, 1, 1, 1 } };
	int bad = 0, tried = 0;

	for (size_t k = 0; k < 2; k++)
		for (int dual = 0; dual < 2; dual++)
			for (int S = 2; S <= 8; S *= 2)
				for (long m = 2L * S; m <= 4L * S; m += S / 2 *
				    2 + 2) {
					const double *x = cost[k];
					double pair = fmax(x[0] + x[1] + x[2] -
					    x[3] - x[4], x[3] + x[4]);
					double PP = dual ? S : 2 * S;
					double want = (PP / 2 - 1) * (pair + x[1] +
					    x[2] - 3 * x[2]);
					struct pipe_result res;

					tried++;
					if (run_split(dual ? DUALPIPE :
					    DUALPIPEV, S, m, x[0], x[1], x[2],
					    x[3], x[4], &res) < 0) {
						bad++;
						continue;
					}
					if (fabs(most_idle(&res, S) - want) >
					    1e-9 || !peaks_all(&res, S,
					    (long)PP + 1)) {
						printf("# %s S %d m %ld: idle "
						    "%g, not %g; peak %ld\n",
						    dual ? "DualPipe" :
						    "DualPipeV", S, m,
						    most_idle(&res, S), want,
						    res.peak_chunks[0]);
						bad++;
					}
					pipe_result_release(&res);
				}
	printf("# %d pipelines\n", tried);
	OK(bad == 0, "DualPipe and DualPipeV: the bubble (PP/2 - 1)(F&B + "
	    "B - 3W) and PP + 1 activations");
	{
		struct pipe_result res;

		OK(run_split(DUALPIPE, 8, 20, 1, 1, 1, 0.5, 0.5, &res) == 0 &&
		    fabs(most_idle(&res, 8) - 3) < 1e-9 &&
		    peaks_all(&res, 8, 9), "DualPipe: Figure 5's 8 ranks, "
		    "20 micro-batches: bubble 3 (PP/2 - 1 = 3 times 2 + 2 - "
		    "3), 9 activations a rank");
		if (res.ev)
			pipe_result_release(&res);
	}
}

/* An order's text: F3 B3 W3 for micro-batch 3 (F3.1 on chunk 1 of a
 * V), [F7.0+BW3.1] for an overlapped pair. */
static void
order_text(const struct pipe_order *o, int v, char *buf, size_t len)
{
	static const char kind[] = "FBW";
	size_t at = 0;

	buf[0] = 0;
	for (size_t i = 0; i < o->n && at < len; i++) {
		const struct pipe_op *op = &o->op[i];
		char chunk[8] = "", bchunk[8] = "";

		if (v > 1) {
			snprintf(chunk, sizeof chunk, ".%d", op->chunk);
			snprintf(bchunk, sizeof bchunk, ".%d", op->bchunk);
		}
		if (op->kind == PIPE_FB)
			at += (size_t)snprintf(buf + at, len - at,
			    "%s[F%ld%s+BW%ld%s]", i ? " " : "", op->mb, chunk,
			    op->bmb, bchunk);
		else
			at += (size_t)snprintf(buf + at, len - at, "%s%c%ld%s",
			    i ? " " : "", kind[op->kind], op->mb, chunk);
	}
}

/*
 * Orders as their sources draw them: DualPipeV's 4 ranks and 10
 * micro-batches (the DualPipe repository's README figure, ranks 0, 1
 * and 3, transcribed; B a backward pass, whole or, where its W follows
 * later, split), and ZB-V's p = 4, m = 8 (the authors'
 * handcrafted schedule's own example), rank 1.
 */
static void
figures(void)
{
	static const char *const dualv[3] = {
		"F0.0 F1.0 F2.0 F3.0 F4.0 F5.0 F6.0 F0.1 B0.1 W0.1 F1.1 B1.1 "
		"W1.1 F2.1 B2.1 W2.1 F3.1 [F7.0+BW3.1] [F4.1+BW0.0] "
		"[F8.0+BW4.1] [F5.1+BW1.0] [F9.0+BW5.1] [F6.1+BW2.0] B6.1 "
		"[F7.1+BW3.0] B7.1 [F8.1+BW4.0] B8.1 [F9.1+BW5.0] B9.1 B6.0 "
		"W6.0 B7.0 W7.0 B8.0 W8.0 B9.0 W9.0",
		"F0.0 F1.0 F2.0 F3.0 F4.0 F0.1 F5.0 F1.1 B0.1 W0.1 F2.1 B1.1 "
		"W1.1 F3.1 [F6.0+BW2.1] [F4.1+BW0.0] [F7.0+BW3.1] "
		"[F5.1+BW1.0] [F8.0+BW4.1] [F6.1+BW2.0] [F9.0+BW5.1] "
		"[F7.1+BW3.0] B6.1 [F8.1+BW4.0] B7.1 [F9.1+BW5.0] B8.1 B6.0 "
		"B9.1 B7.0 W9.1 B8.0 W7.0 B9.0 W8.0 W9.0",
		"F0.0 F0.1 F1.0 F1.1 F2.0 F2.1 F3.0 F3.1 F4.0 B0.1 "
		"[F4.1+BW0.0] [F5.0+BW1.1] [F5.1+BW1.0] [F6.0+BW2.1] "
		"[F6.1+BW2.0] [F7.0+BW3.1] [F7.1+BW3.0] [F8.0+BW4.1] "
		"[F8.1+BW4.0] [F9.0+BW5.1] [F9.1+BW5.0] B6.1 B6.0 B7.1 B7.0 "
		"B8.1 B8.0 B9.1 B9.0 W8.1 W8.0 W9.1 W9.0",
	};
	static const char *const zbv1 =
	    "F0.0 F1.0 F2.0 F3.0 F4.0 F0.1 F5.0 F1.1 B0.1 W0.1 F2.1 B1.1 "
	    "W1.1 F3.1 B2.1 W2.1 F6.0 B0.0 W0.0 F4.1 B3.1 W3.1 F7.0 B1.0 "
	    "W1.0 F5.1 B4.1 W4.1 B2.0 W2.0 F6.1 B5.1 W5.1 B3.0 W3.0 F7.1 "
	    "B6.1 W6.1 B4.0 B7.1 B5.0 W4.0 B6.0 W5.0 B7.0 W6.0 W7.1 W7.0";
	char buf[2048];
	struct pipe_order o;

	for (int k = 0; k < 3; k++) {
		static const char *const name[3] = { "DualPipeV, 4 ranks, 10 "
			"micro-batches: rank 0 as the README draws it",
			"DualPipeV: rank 1 as drawn", "DualPipeV: rank 3 as "
			"drawn (its first pair not overlapped)" };
		int r = k < 2 ? k : 3;

		pipe_order_dualpipev(4, r, 10, &o);
		order_text(&o, 2, buf, sizeof buf);
		OK(strcmp(buf, dualv[k]) == 0, name[k]);
		if (strcmp(buf, dualv[k]) != 0)
			printf("# %s\n", buf);
		pipe_order_release(&o);
	}
	pipe_order_zbv(4, 1, 8, &o);
	order_text(&o, 2, buf, sizeof buf);
	OK(strcmp(buf, zbv1) == 0, "ZB-V, p 4, m 8: rank 1 as the authors' "
	    "example");
	if (strcmp(buf, zbv1) != 0)
		printf("# %s\n", buf);
	pipe_order_release(&o);
}

/*
 * Megatron's gradient buckets (pipe_reduce_buckets), by hand.  A chunk of
 * rows of 30, 50 and 40 parameters, 40 a bucket, the pass 10-20 s
 * spending 0.2, 0.3 and 0.5 of it on them, a bucket 1 s + 0.1 s a
 * parameter: the pass finishes row 2 at 15 s (bucket A, its 40), row 1
 * at 18 (bucket B: 40 of its 50), row 0 at 20 (bucket C: B's other 10 and
 * row 0's 30); each 5 s, one after the other: 20, 25, 30.  Two chunks of
 * one row: 100 parameters at 3 s (buckets of 40, 40 and the last 20) and
 * 10 at 4 s, 0.5 s + 0.1 s a parameter, the stream free from 1 s: 3 +
 * 4.5 + 4.5 + 2.5 = 14.5, then 1.5: 16.  Without a bucket size, each
 * chunk one bucket at its pass's end.
 */
static void
buckets(void)
{
	double p3[3] = { 30, 50, 40 }, s3[3] = { 0.2, 0.3, 0.5 };
	double p1[1] = { 100 }, p2[1] = { 10 }, one[1] = { 1 };
	struct pipe_grads a = { 3, p3, s3, 10, 20, 1, 0.1 };
	struct pipe_grads two[2] = { { 1, p2, one, 0, 4, 0.5, 0.1 },
		{ 1, p1, one, 2, 3, 0.5, 0.1 } };

	EQ_DBL(pipe_reduce_buckets(&a, 1, 40, 0), 30, 1e-12, "buckets: "
	    "three of 40 parameters, ready as the pass reaches their rows");
	EQ_DBL(pipe_reduce_buckets(two, 2, 40, 1), 16, 1e-12, "buckets: two "
	    "chunks' reduced in the order they are ready, a last partial "
	    "bucket at the pass's end");
	EQ_DBL(pipe_reduce_buckets(&a, 1, 0, 0), 20 + 1 + 0.1 * 120, 1e-12,
	    "no bucket size: the chunk's one bucket at its pass's end");
	EQ_DBL(pipe_reduce_buckets(&a, 0, 40, 7), 7, 0, "no chunk: the "
	    "stream as it was");
}

/*
 * The weight gather's prefetch (pipe_gather), by hand, one rank of
 * forward passes of 10 s and backward passes of 20 s a chunk.
 * Chained (Megatron without interleaving): dense buckets reached at 0,
 * 0.3 and 0.6 of the pass, gathering 2, 5 and 1 s, and an experts'
 * bucket at 0.5 gathering 4 s.  The pass waits 2 s for the first (0-2),
 * computes to 5 s, where the second, launched at 2, ends at 7; computes
 * to 9 s, where the experts' first, launched on arrival, ends at 13;
 * computes to 14 s, the third (launched at 7) long done; ends at 18,
 * busy 10 s of it.
 * Aligned (two chunks on one rank; Megatron launches the first two with
 * the step and later ones a few forward passes ahead: here chunk 1 as
 * the second, to check both launches): chunk 0's buckets (at 0 and
 * 0.5, 3 and 4 s) launched with the step, the last first: 0-4 and 4-7;
 * chunk 1's (at 0, 5 s) as the rank starts its forward pass 1.  F.0
 * waits to 7, computes to 12 (its second bucket done at 4) and ends at
 * 17; F.1 starts at 17, launches its gather then (17-22), waits, ends at
 * 32; the backward passes to 72.  The bucket split, by hand: rows of 30,
 * 50 and 20 parameters in buckets of 40 from the last back: 20 at row 0,
 * 40 from two thirds into row 0, 40 from 0.6 into row 1.
 * Chained with the compute stream's work after each wait (FSDP2's
 * copy-outs, after_s 1, 0.5, 0.5 s), units at 0, 0.3 and 0.6 gathering
 * 2, 5 and 1 s: wait to 2, copy to 3, compute to 6, wait for the second
 * (launched at 2) to 7, copy to 7.5, compute to 10.5 (the third, launched
 * at 7, done at 8), copy to 11, compute to 15: the closed form's g0 +
 * max(f0 + c0, g1) + max(f1 + c1, g2) + f2 + c2.
 */
static void
gathers(void)
{
	static const double sh1[] = { 0, 0.3, 0.5, 0.6 };
	static const double gs1[] = { 2, 5, 4, 1 };
	static const int kd1[] = { 0, 0, 1, 0 };
	static const double sh2[] = { 0, 0.5 }, gs2[] = { 3, 4 };
	static const double sh3[] = { 0 }, gs3[] = { 5 };
	static const int kd2[] = { 0, 0 };
	static const double f[] = { 10, 10 }, b[] = { 20, 20 };
	static const double prm[] = { 30, 50, 20 };
	struct pipe_op o1[] = { { PIPE_F, 0, 0, 0, 0 }, { PIPE_B, 0, 0, 0, 0 },
		{ PIPE_F, 0, 1, 0, 0 }, { PIPE_B, 0, 1, 0, 0 } };
	struct pipe_op o2[] = { { PIPE_F, 0, 0, 0, 0 }, { PIPE_F, 1, 0, 0, 0 },
		{ PIPE_B, 1, 0, 0, 0 }, { PIPE_B, 0, 0, 0, 0 } };
	struct pipe_order ord1 = { o1, 4 }, ord2 = { o2, 4 };
	static const double sh4[] = { 0, 0.3, 0.6 }, gs4[] = { 2, 5, 1 };
	static const double co4[] = { 1, 0.5, 0.5 };
	static const int kd4[] = { 0, 0, 0 };
	struct pipe_gather g1 = { .n = 4, .share_before = sh1, .gather_s = gs1,
	    .kind = kd1, .dispatch = PIPE_GATHER_CHAIN };
	struct pipe_gather g2[2] = {
		{ .n = 2, .share_before = sh2, .gather_s = gs2, .kind = kd2,
		    .dispatch = PIPE_GATHER_START },
		{ .n = 1, .share_before = sh3, .gather_s = gs3, .kind = kd2,
		    .dispatch = PIPE_GATHER_AT, .at_forward = 1 } };
	struct pipe_gather g4 = { .n = 3, .share_before = sh4, .gather_s = gs4,
	    .kind = kd4, .after_s = co4, .dispatch = PIPE_GATHER_CHAIN };
	struct pipe_costs c1 = { .S = 1, .v = 1, .m = 2, .fwd_s = f,
	    .bwd_s = b, .gather = &g1 };
	struct pipe_costs c4 = { .S = 1, .v = 1, .m = 2, .fwd_s = f,
	    .bwd_s = b, .gather = &g4 };
	struct pipe_costs c2 = { .S = 1, .v = 2, .m = 1, .fwd_s = f,
	    .bwd_s = b, .gather = g2 };
	struct pipe_result res;
	double *start, *size;
	size_t nb;

	if (pipe_simulate(&c1, &ord1, &res, NULL) == 0) {
		EQ_DBL(res.ev[0].end_s, 18, 1e-12, "gather, chained: the first "
		    "forward pass waits at its buckets and ends at 18 s");
		EQ_DBL(res.step_s, 18 + 20 + 10 + 20, 1e-12, "and the second "
		    "finds the weights there");
		EQ_DBL(res.busy_s[0], 60, 1e-12, "the 8 s of waits idle");
		pipe_result_release(&res);
	} else
		OK(0, "gather, chained: simulated");
	if (pipe_simulate(&c2, &ord2, &res, NULL) == 0) {
		EQ_DBL(res.ev[0].end_s, 17, 1e-12, "gather, aligned: chunk 0's "
		    "buckets launched with the step, the last first (17 s)");
		EQ_DBL(res.ev[1].end_s, 32, 1e-12, "chunk 1's as the rank starts "
		    "its forward pass 1 (32 s)");
		EQ_DBL(res.step_s, 72, 1e-12, "the step 72 s");
		pipe_result_release(&res);
	} else
		OK(0, "gather, aligned: simulated");
	if (pipe_simulate(&c4, &ord1, &res, NULL) == 0) {
		EQ_DBL(res.ev[0].end_s, 15, 1e-12, "gather, chained with "
		    "copy-outs: 2 + max(3 + 1, 5) + max(3 + 0.5, 1) + 4 + 0.5 = "
		    "15 s, FSDP2's recurrence");
		pipe_result_release(&res);
	} else
		OK(0, "gather, chained with copy-outs: simulated");
	nb = pipe_bucket_starts(prm, 3, 40, &start, &size);
	OK(nb == 3 && start[0] == 0 && size[0] == 20 &&
	    fabs(start[1] - 2.0 / 3) < 1e-12 && size[1] == 40 &&
	    fabs(start[2] - 1.6) < 1e-12 && size[2] == 40, "bucket starts: "
	    "20 at row 0, 40 from 2/3 into it, 40 from 0.6 into row 1");
	free(start);
	free(size);
}

/*
 * Megatron-Core's combined 1F1B (pipe_order_combined): without a
 * pipeline, by hand, F + (m - 1) pairs + B; on random alike pipelines
 * (S 2-6, v 2-4, m a multiple of S, no transfer time) the simulated step
 * against the closed form dpsolve prices, (m + (S - 1)/v) (F + B) less
 * the last rank's pairs' saving, (m v - W) s with W = (v - 1) S + 1 its
 * warm-up's chunks, s a pair's saving: equal where a pair takes no less
 * than either of its passes alone (s at most the shorter pass: the first
 * 200), below it otherwise (the next 200: the closed form never prices
 * such a pipeline slower than it runs); and every rank's peak, its
 * pairs merged layer by layer, interleaved 1F1B's, 2 (S - r - 1) + (v -
 * 1) S + 1 chunks (the extra warm-up's, where 1F1B's steady state holds
 * one after its forward pass).
 */
static void
combined(void)
{
	int exact = 0, below = 0, peaks = 0, n = 400;
	double worst = -INFINITY;

	{
		double f[1] = { 0.3 }, b[1] = { 0.5 }, save[1] = { 0.2 };
		struct pipe_costs c = { .S = 1, .v = 1, .m = 5, .fwd_s = f,
		    .bwd_s = b, .pair_save_s = save };
		struct pipe_order o;
		struct pipe_result res;

		pipe_order_combined(1, 1, 0, 5, 1, &o);
		EQ_INT((long)o.n, 6, "combined 1F1B, one stage: F, 4 pairs, B");
		if (pipe_simulate(&c, &o, &res, NULL) == 0) {
			EQ_DBL(res.step_s, 0.8 + 4 * 0.6, 1e-12, "combined "
			    "1F1B, one stage: 0.3 + 4 (0.8 - 0.2) + 0.5 s");
			EQ_INT(res.peak_chunks[0], 1, "combined 1F1B, one "
			    "stage: a micro-batch held (its pairs merged layer "
			    "by layer)");
			pipe_result_release(&res);
		} else
			OK(0, "combined 1F1B, one stage: simulated");
		pipe_order_release(&o);
	}
	for (int it = 0; it < n; it++) {
		int S = 2 + (int)(uniform() * 5), v = 2 + (int)(uniform() * 3);
		long m = S * (1 + (long)(uniform() * 6));
		size_t V = (size_t)(S * v);
		double F = 0.1 + uniform(), B = 0.1 + 2 * uniform();
		double sv = it < n / 2 ? fmin(F, B) * uniform() : fmin(F, B) +
		    (F + B - fmin(F, B)) * 0.8 * uniform();
		double *f = calloc(V, sizeof *f), *b = calloc(V, sizeof *b);
		double *x = calloc(V, sizeof *x), *save = calloc(V, sizeof *save);
		struct pipe_costs c = { .S = S, .v = v, .m = m, .fwd_s = f,
		    .bwd_s = b, .transfer_s = x, .pair_save_s = save };
		struct pipe_order *o = calloc((size_t)S, sizeof *o);
		struct pipe_result res;
		long W0 = (long)(v - 1) * S + 1;
		int ok = 1;

		for (size_t k = 0; k < V; k++)
			f[k] = F, b[k] = B, save[k] = sv;
		for (int r = 0; r < S; r++)
			pipe_order_combined(S, v, r, m, S, &o[r]);
		if (pipe_simulate(&c, o, &res, NULL) == 0) {
			double want = ((double)m * v + S - 1) * (F + B) -
			    (double)(m * v > W0 ? m * v - W0 : 0) * sv;

			if (it < n / 2)
				exact += fabs(res.step_s - want) <= 1e-9 * want;
			else {
				below += res.step_s >= want * (1 - 1e-12);
				worst = fmax(worst, (res.step_s - want) / want);
			}
			for (int r = 0; r < S; r++) {
				long w = 2 * (S - r - 1) + (long)(v - 1) * S + 1;

				ok &= res.peak_chunks[r] == (w < m * v ? w :
				    m * v);
			}
			peaks += ok;
			pipe_result_release(&res);
		}
		for (int r = 0; r < S; r++)
			pipe_order_release(&o[r]);
		free(o);
		free(f);
		free(b);
		free(x);
		free(save);
	}
	printf("# combined 1F1B, pairs shorter than a pass: simulated above "
	    "the closed form by %.3g at most (relative)\n", worst);
	EQ_INT(exact, n / 2, "combined 1F1B: the simulated step is the "
	    "closed form's on 200 random alike pipelines");
	EQ_INT(below, n / 2, "combined 1F1B: with pairs shorter than a pass "
	    "the closed form is no slower than the simulation (200 more)");
	EQ_INT(peaks, n, "combined 1F1B: every rank holds interleaved "
	    "1F1B's chunks at its peak");
}

int
main(void)
{
	one_f_one_b_by_hand();
	uneven_by_hand();
	transfers();
	interleaved();
	groups();
	megatron_example();
	closed_forms();
	gpipe();
	refused();
	zbh1();
	zbh1_closed_form();
	fixed_order_forms();
	form_floors();
	split_passes_bound();
	zbv();
	dualpipe();
	figures();
	buckets();
	gathers();
	/* last: its draws leave the instances above as they were */
	combined();
	return tap_done();
}
