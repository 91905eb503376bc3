/*
 * t-baselines.c - the compared planners against answers found another way:
 * Megatron's even split by hand; the Mist-like MILP against enumeration of
 * every uneven split of its own plan space (on a flat network with
 * identical layers its linear model is exact, so the optima must agree);
 * the Manual rule's minimality checked by the evaluator; MCMC seeded and
 * never better than the exact DP; Alpa's two-level view by hand.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/config.h"
#include "model/plan.h"
#include "search/baselines.h"
#include "search/dp.h"
#include "tap.h"
#include "testnet.h"

/* embedding, L identical transformer layers, head; a variant (t, sp) */
static void
chain(struct layer_graph *g, size_t L, long t, long sp)
{
	memset(g, 0, sizeof *g);
	g->file = xstrdup("chain");
	g->n = L + 2;
	g->l = xcalloc(g->n, sizeof *g->l);
	g->has_variant = 1;
	g->var_t = t;
	g->var_e = g->var_c = g->var_b = 1;
	g->var_sp = sp;
	for (size_t i = 0; i < g->n; i++) {
		struct layer *l = &g->l[i];

		l->id = (long)i - 1;
		snprintf(l->kind, sizeof l->kind, "%s", i == 0 ? "embedding" :
		    i == g->n - 1 ? "head" : "transformer");
		l->forward_s = (i == 0 ? 0.002 : i == g->n - 1 ? 0.004 : 0.01) / t;
		l->backward_s = 2 * l->forward_s;
		l->parameter_bytes = l->dense_parameter_bytes =
		    (i == 0 ? 3e6 : i == g->n - 1 ? 3e6 : 2e6) / t;
		l->activation_bytes = 4e6 / t;
		l->input_bytes = 1e6;
		l->coll_bytes[LCOLL_ALL_REDUCE] = t > 1 ? 2e6 : 0;
	}
}

static void
even_split(void)
{
	struct layer_graph g;
	struct plan_stage st[5];

	chain(&g, 10, 1, 0);
	OK(bl_uniform_split(&g, 4, st) == 0, "10 layers split 4 ways");
	/* runs 3 3 2 2; the embedding with the first, the head with the last */
	EQ_INT(st[0].first, 0, "stage 0 from the embedding");
	EQ_INT(st[0].last, 3, "stage 0: embedding + 3 layers");
	EQ_INT(st[1].last, 6, "stage 1: 3 layers");
	EQ_INT(st[2].last, 8, "stage 2: 2 layers");
	EQ_INT(st[3].first, 9, "stage 3 from row 9");
	EQ_INT(st[3].last, 11, "stage 3: 2 layers + head");
	OK(bl_uniform_split(&g, 11, st) < 0, "more stages than layers refused");
	layers_release(&g);
}

/* Every uneven split of the Mist-like space: S = 1, 2, 4, ...; d filling
 * the devices; recomputation on or off; the embedding with the first
 * stage, the head with the last.  The best step that fits. */
static double
mist_brute(const struct plan_env *env, const struct layer_graph *g,
    size_t L)
{
	double best = INFINITY;
	struct plan_stage st[16];

	for (int S = 1; S <= (int)L && S <= env->devices; S *= 2)
		for (int rc = 0; rc <= (S > 1); rc++) {
			long cnt[16];
			int k;

			/* compositions of L into S positive parts */
			for (k = 0; k < S; k++)
				cnt[k] = 1;
			cnt[S - 1] = (long)L - (S - 1);
			for (;;) {
				struct plan p = { .g = g, .d = env->devices / S,
				    .recompute = rc, .nstages = S,
				    .stage = st };
				struct plan_result r;
				struct pl_err err;
				size_t row = 1;

				for (k = 0; k < S; k++) {
					st[k] = (struct plan_stage){ k ? row : 0,
					    row + (size_t)cnt[k] - 1, 1, 0, 0 };
					row += (size_t)cnt[k];
				}
				st[S - 1].last = g->n - 1;
				if (plan_evaluate(env, &p, &r, &err) == 0) {
					if (r.fits && r.step_s < best)
						best = r.step_s;
					plan_result_release(&r);
				}
				/* next composition: move one unit left-most */
				for (k = S - 1; k > 0 && cnt[k] == 1; k--)
					;
				if (k == 0)
					break;
				cnt[k]--;
				cnt[k - 1]++;
				{
					long rest = 0;

					for (int j = k; j < S; j++)
						rest += cnt[j];
					for (int j = k; j < S - 1; j++)
						cnt[j] = 1;
					cnt[S - 1] = rest - (S - 1 - k);
				}
			}
		}
	return best;
}

static void
mist_against_enumeration(void)
{
	static const double memory[] = { 1e9, 2e8, 1.2e8, 8e7, 6e7, 3e7 };
	int binding = 0;
	struct network net;
	struct pl_err err;

	memset(&net, 0, sizeof net);
	net.nlevels = 1;
	level(&net, 0, 8, 1e9, 2e-6);
	network_finish(&net, "flat", &err);
	for (size_t L = 3; L <= 7; L += 2)
		for (size_t k = 0; k < sizeof memory / sizeof memory[0]; k++) {
			struct layer_graph g;
			struct variants vs = { 1, &g };
			struct plan_env env = { .net = &net, .devices = 8,
			    .memory_bytes = memory[k], .optimizer = OPT_ADAM,
			    .global_batch = 64, .grad_copies = 1 };
			struct bl_result r;
			struct plan_result pr;
			double want;
			char name[128];

			chain(&g, L, 1, 0);
			want = mist_brute(&env, &g, L);
			bl_mist(&env, &vs, 60, &r);
			snprintf(name, sizeof name, "mist-like = enumeration: %zu "
			    "layers, %.3g bytes", L, memory[k]);
			if (isinf(want))
				OK(r.status == BL_OOM, name);
			else if (r.status != BL_OK ||
			    plan_evaluate(&env, &r.plan, &pr, &err) < 0)
				OK(0, name);
			else {
				EQ_DBL(pr.step_s, want, 1e-9, name);
				binding += k > 0;
				plan_result_release(&pr);
			}
			bl_result_release(&r);
			layers_release(&g);
		}
	OK(binding >= 6, "mist-like: at least 6 cases where memory binds "
	    "and a split fits");
}

/* Does any plan of the Manual rule's space fit: t within the node (2),
 * t p dividing the 4 devices, an even split, recomputation or not? */
static int
manual_space_fits(const struct plan_env *env, const struct variants *vs)
{
	struct plan_stage st[16];

	for (size_t i = 0; i < vs->n; i++)
		for (int S = 1; S <= 4; S++) {
			long w = vs->g[i].var_t;
			struct plan p = { .g = &vs->g[i], .d = 4 / (w * S),
			    .recompute = 0, .nstages = S, .stage = st };

			if (4 % (w * S) != 0 || bl_uniform_split(p.g, S, st) < 0)
				continue;
			for (p.recompute = 0; p.recompute <= 1; p.recompute++) {
				struct plan_result r;
				struct pl_err err;
				int fits;

				if (plan_evaluate(env, &p, &r, &err) < 0)
					continue;
				fits = r.fits;
				plan_result_release(&r);
				if (fits)
					return 1;
			}
		}
	return 0;
}

/* Two nodes of two devices; variants t = 1 and t = 2 (with sp). */
static void
manual_and_mcmc(void)
{
	struct network net;
	struct layer_graph g[2];
	const struct layer_graph *gp[2] = { &g[0], &g[1] };
	struct variants vs = { 2, g };
	struct pl_err err;
	struct dp_options o = { .recompute_max = 1, .zero = DP_ZERO_OFF,
	    .zmax = 1, .vmax = 1 };

	memset(&net, 0, sizeof net);
	net.nlevels = 2;
	level(&net, 0, 2, 1e9, 1e-6);
	level(&net, 1, 2, 1e8, 1e-5);
	network_finish(&net, "two", &err);
	chain(&g[0], 8, 1, 0);
	chain(&g[1], 8, 2, 1);
	for (double mem = 2e8; mem >= 2.5e7; mem *= 0.8) {
		struct plan_env env = { .net = &net, .devices = 4,
		    .memory_bytes = mem, .optimizer = OPT_ADAM,
		    .global_batch = 16, .grad_copies = 1 };
		struct bl_result r, r2;
		struct plan dp;
		struct plan_result pr;
		struct dp_stats st;
		double step, mstep;
		char name[128];

		bl_manual(&env, &vs, &r);
		snprintf(name, sizeof name, "manual at %.3g bytes: a plan that "
		    "fits, t within the node, t p dividing 4", mem);
		if (r.status != BL_OK) {
			OK(!manual_space_fits(&env, &vs), name);
			bl_result_release(&r);
			continue;
		}
		OK(plan_evaluate(&env, &r.plan, &pr, &err) == 0 && pr.fits &&
		    r.plan.g->var_t <= 2 && 4 % (r.plan.g->var_t *
		    r.plan.nstages) == 0 && r.plan.d == 4 / (r.plan.g->var_t *
		    r.plan.nstages), name);
		mstep = pr.step_s;
		plan_result_release(&pr);
		/* minimal: one stage fewer with the same t does not fit */
		if (r.plan.nstages > 1) {
			struct plan fewer = r.plan;
			struct plan_stage sst[16];
			int fits = 0;

			fewer.nstages--;
			fewer.stage = sst;
			fewer.d = 4 / (r.plan.g->var_t * fewer.nstages);
			if (4 % (r.plan.g->var_t * fewer.nstages) == 0 &&
			    bl_uniform_split(r.plan.g, fewer.nstages, sst) == 0)
				for (fewer.recompute = 0; fewer.recompute <= 1;
				    fewer.recompute++)
					if (plan_evaluate(&env, &fewer, &pr,
					    &err) == 0) {
						fits |= pr.fits;
						plan_result_release(&pr);
					}
			snprintf(name, sizeof name, "manual at %.3g bytes: %d "
			    "stages are the fewest that fit", mem,
			    r.plan.nstages);
			OK(!fits, name);
		}
		/* mcmc: the same seed, the same plan; never better than exact */
		bl_mcmc(&env, &vs, 7, 4, 300, &r2);
		if (dp_solve(&env, gp, 2, &o, &dp, &step, &st, &err) == 0) {
			struct bl_result r3;

			snprintf(name, sizeof name, "mcmc at %.3g bytes: not "
			    "better than the DP, not worse than needed", mem);
			if (r2.status == BL_OK && plan_evaluate(&env, &r2.plan,
			    &pr, &err) == 0) {
				OK(pr.step_s >= step * (1 - 1e-12), name);
				plan_result_release(&pr);
			} else
				OK(0, name);
			OK(mstep >= step * (1 - 1e-12), "manual not better "
			    "than the DP");
			bl_mcmc(&env, &vs, 7, 4, 300, &r3);
			OK(r3.has_plan && r3.plan.nstages == r2.plan.nstages &&
			    r3.plan.d == r2.plan.d && r3.plan.g == r2.plan.g &&
			    r3.plan.stage[0].last == r2.plan.stage[0].last,
			    "mcmc: the same seed gives the same plan");
			bl_result_release(&r3);
			free(dp.stage);
		}
		bl_result_release(&r2);
		bl_result_release(&r);
	}
	layers_release(&g[0]);
	layers_release(&g[1]);
}

static void
two_level(void)
{
	struct network net, two;
	struct pl_err err;

	memset(&net, 0, sizeof net);
	net.nlevels = 3;
	level(&net, 0, 8, 900e9, 1e-4);
	level(&net, 1, 4, 100e9, 2e-4);
	level(&net, 2, 32, 400e9, 3e-4);
	net.level[1].oversubscription = 2;
	network_finish(&net, "fat", &err);
	network_two_level(&net, &two);
	EQ_INT(two.nlevels, 2, "alpa: two levels");
	EQ_INT(two.span[0], 8, "alpa: the node kept");
	EQ_INT(two.level[1].fanout, 128, "alpa: every node under one level");
	EQ_INT(two.span[1], 1024, "alpa: spanning all 1024 devices");
	EQ_DBL(two.level[1].bandwidth_Bps, 100e9, 0, "alpa: the first "
	    "switch's bandwidth");
	EQ_DBL(two.level[1].oversubscription, 1, 0, "alpa: no "
	    "oversubscription");
}

int
main(void)
{
	even_split();
	two_level();
	mist_against_enumeration();
	manual_and_mcmc();
	return tap_done();
}
