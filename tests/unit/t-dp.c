/*
 * t-dp.c - the default evaluator against a step worked out by hand, and
 * the dynamic program against exhaustive enumeration of the same plan
 * space (block recomputation in three quarters of the transformer-like
 * ones, whose embedding and head full recomputation reruns and block
 * does not) on 550 seeded random instances (chains of 2-8 layers, 2-32 devices
 * on 2-3 levels, binding memory, some infeasible, some needing ZeRO, 150
 * with memory so short that only ZeRO pipelines fit): the
 * optimum is the same, and the returned plan re-evaluates to exactly the
 * step reported; the 2-6 best distinct layouts (dp_solve_top, dpsolve -k)
 * are the enumeration's best a layout, ranked.  Also: network awareness (a 50x slower upper level keeps
 * pipeline cuts inside nodes; a flat-network plan is never better), ZeRO
 * only when nothing else fits, and "nothing fits" reported.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export/megatron.h"
#include "model/config.h"
#include "model/plan.h"
#include "search/dp.h"
#include "tap.h"
#include "testnet.h"

static void
graph_alloc(struct layer_graph *g, size_t n)
{
	memset(g, 0, sizeof *g);
	g->file = xstrdup("test");
	g->n = n;
	g->l = xcalloc(n, sizeof *g->l);
	for (size_t i = 0; i < n; i++)
		g->l[i].id = (long)i;
}

static void
set_row(struct layer_graph *g, size_t i, double fwd, double bwd,
    double params, double acts, double in)
{
	struct layer *l = &g->l[i];

	l->forward_s = fwd;
	l->backward_s = bwd;
	l->parameter_bytes = l->dense_parameter_bytes = params;
	l->activation_bytes = acts;
	l->input_bytes = in;
}

/* The plan of the worked example: rows 0 | 1, d = 2, on 2 x 2 devices. */
static void
hand_example(void)
{
	struct network net;
	struct layer_graph g;
	struct plan_env env;
	struct plan_stage st[2] = { { 0, 0, 1, 0, 0 }, { 1, 1, 1, 0, 0 } };
	struct plan p = { .g = &g, .d = 2,
	    .recompute = 0, .nstages = 2, .stage = st };
	struct plan_result r;
	struct pl_err err;

	memset(&net, 0, sizeof net);
	net.nlevels = 2;
	level(&net, 0, 2, 1e9, 1e-6);
	level(&net, 1, 2, 1e8, 1e-5);
	network_finish(&net, "net", &err);
	graph_alloc(&g, 2);
	set_row(&g, 0, 0.01, 0.02, 1e6, 1e7, 0);
	set_row(&g, 1, 0.02, 0.04, 2e6, 1e7, 1e6);
	env = (struct plan_env){ .net = &net, .devices = 4,
	    .memory_bytes = 2.7e7, .optimizer = OPT_ADAM, .global_batch = 8,
	    .grad_copies = 1 };

	OK(plan_evaluate(&env, &p, &r, &err) == 0, "the example evaluates");
	/* m = 8 / 2 = 4; the cut joins devices 0-1 (2-3 in replica 1):
	 * level 0, 2 (1e-6 + 1e6 / 1e9) each way */
	EQ_INT(r.m, 4, "m = ceil(B / bd)");
	EQ_INT(r.stage[0].level_out, 0, "the cut stays in the node");
	EQ_DBL(r.stage[0].p2p_out_s, 0.002002, 1e-12, "p2p out");
	EQ_DBL(r.stage[1].load_s, 0.06 + 0.002002, 1e-12, "stage 1 load");
	/* replicas sit in different nodes: a 2-ring at level 1,
	 * 2 (1e-6 + 1e-5) + 2 (1/2) bytes / 1e8 */
	EQ_DBL(r.stage[0].sync_s, 2.2e-5 + 1e6 / 1e8, 1e-12, "sync stage 0");
	EQ_DBL(r.stage[1].sync_s, 2.2e-5 + 2e6 / 1e8, 1e-12, "sync stage 1");
	/* stage 1 reduces after its own last backward pass, stage 0's
	 * (0.02 s) before stage 0's: 0.020022 - 0.02 exposed past the
	 * pipeline, less than stage 0's own 0.010022 (plan_drain_sync) */
	EQ_DBL(r.step_s, 5 * 0.062002 + 0.010022, 1e-12,
	    "step = (m + S - 1) max load + the sync past the drain");
	EQ_INT(r.sync_stage, 0, "stage 0's sync, which the drain cannot "
	    "credit, is the one exposed");
	EQ_INT(r.bottleneck, 1, "bottleneck named");
	/* Adam: 16 bytes a parameter; stage 0 holds 2 micro-batches */
	EQ_DBL(r.stage[0].mem.total, 8e6 + 2e7, 1e-12, "stage 0 memory");
	EQ_DBL(r.stage[1].mem.total, 1.6e7 + 1e7, 1e-12, "stage 1 memory");
	OK(!r.stage[0].fits && r.stage[1].fits && !r.fits,
	    "2.8e7 bytes do not fit in 2.7e7, 2.6e7 do");
	plan_result_release(&r);
	layers_release(&g);
}

static unsigned long rng_state = 20261121;
static long brute_plans;

/* What brute_mode saw of each layout (variant, d, slots K, interleaving:
 * dp_solve_top's distinct layouts): its best step. */
static struct layout_best {
	size_t variant;
	long d, K, v;
	double step;
} layouts[100000];
static size_t nlayouts;

static void
layout_seen(size_t vi, long d, long K, long v, double step)
{
	for (size_t i = 0; i < nlayouts; i++)
		if (layouts[i].variant == vi && layouts[i].d == d &&
		    layouts[i].K == K && layouts[i].v == v) {
			if (step < layouts[i].step)
				layouts[i].step = step;
			return;
		}
	if (nlayouts < sizeof layouts / sizeof *layouts)
		layouts[nlayouts++] = (struct layout_best){ vi, d, K, v, step };
}

/* A plan's slots: its stages' ZeRO copies, summed (S without ZeRO). */
static long
plan_slots(const struct plan *p)
{
	long K = 0;

	for (int i = 0; i < p->nstages; i++)
		K += p->stage[i].z;
	return K;
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double
uniform(void)
{
	rng_state = rng_state * 6364136223846793005UL + 1442695040888963407UL;
	return (double)((rng_state >> 11) & ((1UL << 53) - 1)) / 9007199254740992.0;
}

static long
pick(long lo, long hi)
{
	return lo + (long)(uniform() * (double)(hi - lo + 1));
}

/*
 * Every plan of the space (dp.h) for one zero mode: the best step.  Modes:
 * each recomputation kind, optimizer and interleaving the options allow
 * (v > 1 without ZeRO only); whether Megatron's interleaved schedule can
 * run a plan is the evaluator's to say (it refuses the plan).
 */
/*
 * The best step of every plan of the space (ZeRO copies where zero_on),
 * by enumeration; with `megatron`, only the plans megatron_check accepts
 * (with `model` for its model rules and the encoder's split, NULL: a
 * decoder's).
 */
static double
brute_mode(const struct plan_env *env, struct layer_graph *const *g,
    size_t ng, int zero_on, const struct dp_options *o, int megatron,
    const struct model_cfg *model)
{
	double best = INFINITY;
	long zmax = o->zmax, vmax = zero_on || o->vmax < 1 ? 1 : o->vmax;

	for (size_t vi = 0; vi < ng; vi++) {
		struct plan_variant v;
		size_t n = g[vi]->n;

		plan_variant_init(&v, env, g[vi], NULL);
		/* each kind, then block recomputation of 1..block_max
		 * layers a chunk (full's rows split) */
		for (long k = o->recompute_min; k <= o->recompute_max +
		    (o->recompute_min <= RC_FULL && o->recompute_max >=
		    RC_FULL ? o->block_max : 0); k++)
		for (int fsdp = 0; fsdp <= (o->fsdp_max && !zero_on ?
		    PLAN_FSDP_KEPT : 0); fsdp++)
		for (long hs = 0; hs <= (fsdp ? PLAN_HSDP_MAX : 0); hs = hs ?
		    2 * hs : 1)
		for (int dopt = o->distopt_min; dopt <= o->distopt_max; dopt++)
		for (int f8 = 0; f8 <= ((dopt || fsdp) && !zero_on ?
		    o->fp8_gather_max : 0); f8++)
		for (long nv = 1; nv <= vmax; nv++)
		for (int ends = 0; ends <= (nv > 1); ends++)
		for (int sc = o->sched_min; sc <= (zero_on ? PLAN_1F1B :
		    o->sched_max); sc++)
		/* the combined 1F1B: 1F1B's without ZeRO copies or FSDP2
		 * (and where Megatron-Core runs it: the evaluator refuses
		 * the rest) */
		for (int ep = o->ep_overlap_min; ep <= (zero_on || fsdp ||
		    sc != PLAN_1F1B ? 0 : o->ep_overlap_max); ep++)
		/* the placements (stage-major without ZeRO copies) */
		for (int sm = o->stage_major_min; sm <= (zero_on ? 0 :
		    o->stage_major_max); sm++)
		for (unsigned long mask = 0; mask < (1UL << (n - 1)); mask++) {
			struct plan_stage st[8];
			int S = 0;
			size_t start = 0;

			/* FSDP2: without Megatron's data parallelism, 1F1B
			 * (interleaved only kept) or kept under ZB-V and
			 * DualPipeV (torchtitan's), no block recomputation,
			 * on graphs it prices; resharding on one stage
			 * (below) */
			if (fsdp ? dopt != o->distopt_min ||
			    (nv > 1 && fsdp != PLAN_FSDP_KEPT) ||
			    (sc != PLAN_1F1B && (fsdp != PLAN_FSDP_KEPT ||
			    sc == PLAN_ZBH1)) || k > o->recompute_max ||
			    plan_fsdp_refused(g[vi]) != NULL :
			    o->fsdp_min > 0)
				continue;
			/* per operator beside FSDP2 only, selective beside
			 * Megatron's data parallelism only */
			if (k <= o->recompute_max && plan_recompute_refused((int)k,
			    fsdp, g[vi]) != NULL)
				continue;

			/* the FP8 gather: FP8 graphs only, without ZeRO,
			 * and there on every distributed-optimizer plan
			 * where always on; torchao's float8 beside FSDP2
			 * alone, its all-gather likewise (and always on
			 * where asked), Transformer Engine's without it */
			if ((FP8_TORCHAO(g[vi]->var_fp8)) != (fsdp &&
			    g[vi]->var_fp8 != FP8_NONE))
				continue;
			if (g[vi]->var_fp8 == FP8_NONE ? f8 :
			    (dopt || fsdp) && !zero_on &&
			    f8 < o->fp8_gather_min)
				continue;
			/* the split schedules: their chunks a stage (ZB-H1
			 * one, ZB-V and DualPipeV two), the W passes' share */
			if (sc != PLAN_1F1B && (nv != plan_schedule_chunks(sc) ||
			    !g[vi]->has_wgrad))
				continue;
			for (size_t i = 1; i <= n; i++)
				if (i == n || (mask >> (i - 1) & 1)) {
					st[S].first = start;
					st[S++].last = i - 1;
					start = i;
				}
			/* and two stages or more (DualPipeV's micro-batches,
			 * ZB-V's and its layers a chunk: the evaluator's to
			 * refuse) */
			if (sc != PLAN_1F1B && S < 2)
				continue;
			for (long d = 1; d * v.b <= env->global_batch &&
			    d * v.w <= env->devices; d++) {
				struct plan_cell c;
				int block = k > o->recompute_max;

				/* FSDP2: resharded on one stage, kept on more,
				 * over two devices or more, its float8
				 * all-gather over two data-parallel ranks or
				 * more */
				if (fsdp && plan_fsdp_plan_refused(fsdp, hs, S,
				    d, v.c * v.e, f8) != NULL)
					continue;
				/* a framework that runs stage-major alone
				 * (torchtitan) */
				if (!sm && o->stage_major_only && !zero_on &&
				    S > 1 && d > 1)
					continue;
				/* and needs a micro-batch a stage (PyTorch's
				 * pipelining; without ZeRO copies, as the
				 * search asks it), where it pipelines at all */
				if (o->stages_max > 0 && S > o->stages_max)
					continue;
				if (o->micro_per_stage && !zero_on && S > 1 &&
				    plan_microbatches(env->global_batch, v.b,
				    d) < S)
					continue;
				struct plan p = { .g = g[vi], .d = d,
				    .stage_major = sm,
				    .recompute = block ? RC_FULL : (int)k,
				    .nstages = S,
				    .stage = st, .v = nv, .distopt = dopt && !fsdp,
				    .overlap_grad = o->overlap && !fsdp,
				    .overlap_param = o->overlap && dopt && !fsdp,
				    .fsdp = fsdp, .fsdp_shard = hs,
				    .ends_in_split = ends,
				    .recompute_layers = block ? k -
				    o->recompute_max : 0,
				    .fp8_param_gather = f8, .schedule = sc,
				    .ep_overlap = ep };
				struct plan_mode mode = plan_mode_of(&p);
				struct plan_result r;
				long K = 0;
				int ok = 1;

				/* the ZeRO choice does not depend on K (nor,
				 * without interleaving, on S) */
				plan_cell_init(&c, env, &v, d, S, &mode);
				for (int i = 0; i < S && ok; i++) {
					ok = dp_stage_zero(&c, st[i].first,
					    st[i].last, S - i, zero_on,
					    zmax, &st[i].z,
					    &st[i].zero_stage) == 0;
					K += st[i].z;
				}
				plan_cell_release(&c);
				if (!ok || d * K * v.w > env->devices)
					continue;
				if (megatron) {
					struct megatron_why w;

					if (megatron_check(&p, env->global_batch,
					    model, &w) > 0)
						continue;
				}
				brute_plans++;
				if (plan_evaluate(env, &p, &r, NULL) == 0) {
					if (r.fits && r.step_s < best)
						best = r.step_s;
					if (r.fits)
						layout_seen(vi, d, K, nv,
						    r.step_s);
					plan_result_release(&r);
				}
			}
		}
		plan_variant_release(&v);
	}
	return best;
}

/* What a row keeps and reruns under full and selective recomputation:
 * a fraction x of its activations kept (full: the smaller of that and
 * its input), the forward rerun in full, and under selective 0.3-0.8
 * of it kept for an eighth of the forward; per operator (FSDP2's), what
 * full and selective keep between them for a third of the forward (not
 * drawn: the instances stay those of before). */
static void
set_recompute(struct layer *l, double x, double y)
{
	l->checkpoint_bytes = fmin(l->input_bytes, x * l->activation_bytes);
	l->recompute_s = l->forward_s;
	l->selective_bytes = (0.3 + 0.5 * y) * l->activation_bytes;
	l->selective_recompute_s = l->forward_s / 8;
	l->op_sac_bytes = (l->checkpoint_bytes + l->selective_bytes) / 2;
	l->op_sac_recompute_s = l->forward_s / 3;
}

/* One random chain and its t = 2 variant (half the work, collectives),
 * which may have another micro-batch size;
 * `layers`: rows 1..n-2 alike, as a transformer's layers between an
 * embedding and a head; `experts`: the t = 1 variant has e = 2, three
 * quarters of every row's parameters experts' (their data-parallel group
 * is t e apart, the dense one t: the search bounds each apart), every
 * row an all-to-all, and the t = 2 variant's experts whole half the time
 * (et = 1: its all-to-all over its two tensor ranks, else none);
 * `experts` 2, the other layouts of the experts: the t = 1 variant a
 * batch split of e = 4 with a fold of 2 (two sample ranks, each row's
 * keys and values exchanged over its fold), the second variant at t = 4
 * with its experts split over 2 (the expert kinds over their own 2
 * ranks).  No draw more: the instances before stay as they were. */
static size_t
random_graphs(struct layer_graph *g, size_t n, int layers, int experts)
{
	size_t ng = pick(1, 2);
	long b = pick(1, 2);

	for (size_t k = 0; k < ng; k++) {
		graph_alloc(&g[k], n);
		g[k].has_variant = 1;
		g[k].var_t = k ? 2 : 1;
		g[k].var_e = g[k].var_c = 1;
		if (experts && k == 0)
			g[k].var_e = 2;
		if (experts == 2 && k == 0) {
			g[k].var_e = 4;
			g[k].var_ep_batch = 1;
			g[k].var_ep_fold = 2;
		}
		if (experts == 2 && k == 1)
			g[k].var_t = 4;
		/* the t = 2 variant's experts whole half the time: its two
		 * tensor ranks are its expert ranks (et = 1) */
		if (experts && k == 1 && uniform() < 0.5)
			g[k].var_et = 1;
		if (experts == 2 && k == 1)
			g[k].var_et = 2;
		if (experts && k == 1)
			g[k].var_sp = 1;
		/* the t = 2 variant at another micro-batch size, half the
		 * time: the search chooses b with the rest */
		g[k].var_b = k && uniform() < 0.5 ? 3 - b : b;
		if (experts == 2 && k == 0)
			g[k].var_b *= 2;	/* its two sample ranks' */
	}
	for (size_t i = 0; i < n; i++) {
		double f = 0.001 * (1 + 9 * uniform()), p = 1e6 * (1 + 20 *
		    uniform()), a = 1e6 * (1 + 20 * uniform()), in = 1e6 *
		    (1 + 50 * uniform());

		if (layers && i > 1 && i + 1 < n) {
			g[0].l[i] = g[0].l[1];
			g[0].l[i].id = (long)i;
			if (ng > 1) {
				g[1].l[i] = g[1].l[1];
				g[1].l[i].id = (long)i;
			}
			continue;
		}
		if (layers && (i == 0 || i + 1 == n))
			f /= 10, p /= 10;	/* a light embedding and head */
		if (layers)
			in /= 10;		/* and cheap transfers */
		set_row(&g[0], i, f, f * (1.5 + uniform()), p, a, in);
		if (uniform() < 0.3)
			g[0].l[i].dense_parameter_bytes = p / 2;
		if (experts) {
			g[0].l[i].dense_parameter_bytes = p / 4;
			g[0].l[i].coll_bytes[LCOLL_ALL_TO_ALL] = 2 * in;
		}
		if (experts == 2) {
			g[0].l[i].coll_bytes[LCOLL_CONTEXT_ALL_GATHER] = in / 2;
			g[0].l[i].coll_bytes[LCOLL_CONTEXT_REDUCE_SCATTER] =
			    in / 2;
		}
		set_recompute(&g[0].l[i], uniform(), uniform());
		if (ng > 1) {
			set_row(&g[1], i, f * 0.55, f * 1.1, p / 2, a * 0.6,
			    in);
			g[1].l[i].coll_bytes[LCOLL_ALL_REDUCE] = 4 * in;
			if (experts)
				g[1].l[i].coll_bytes[LCOLL_ALL_TO_ALL] = in;
			if (experts == 2) {
				g[1].l[i].coll_bytes[LCOLL_EXPERT_ALL_GATHER] =
				    in / 2;
				g[1].l[i].coll_bytes[
				    LCOLL_EXPERT_REDUCE_SCATTER] = in / 2;
			}
			set_recompute(&g[1].l[i], uniform(), uniform());
		}
	}
	/* the weights' gradient a fixed share of each backward pass (not
	 * drawn: the instances stay those of before), for ZB-H1's W; the
	 * experts' share of a mixture's passes, for the combined 1F1B */
	for (size_t k = 0; k < ng; k++) {
		g[k].has_wgrad = g[k].has_op_sac = 1;
		g[k].has_expert_times = experts > 0;
		for (size_t i = 0; i < n; i++) {
			g[k].l[i].weight_gradient_s = 0.45 *
			    g[k].l[i].backward_s;
			if (experts) {
				struct layer *l = &g[k].l[i];

				l->expert_forward_s = 0.6 * l->forward_s;
				l->expert_backward_s = 0.6 * l->backward_s;
				l->expert_weight_gradient_s = 0.3 *
				    l->backward_s;
				l->combine_forward_s = 0.05 * l->forward_s;
				l->combine_backward_s = 0.05 * l->backward_s;
			}
		}
	}
	/* a transformer's kinds: block recomputation counts the layers
	 * only, and leaves the embedding and head, which full reruns here,
	 * to none's tables */
	for (size_t k = 0; layers && k < ng; k++)
		for (size_t i = 0; i < n; i++)
			snprintf(g[k].l[i].kind, sizeof g[k].l[i].kind, "%s",
			    i == 0 ? "embedding" : i + 1 == n ? "head" :
			    "transformer");
	return ng;
}

static void
random_instances(void)
{
	int agree = 0, exact = 0, flat_ok = 0, infeasible = 0, zero = 0;
	int total = 550, interleaved = 0, modes[RC_N] = { 0 }, distopt = 0;
	int fp8_gather = 0, zbh1 = 0, zbv = 0, dualpipev = 0, ep_won = 0;
	int float8 = 0, float8_gather = 0, fsdp_v = 0;
	int fsdp[PLAN_FSDP_KEPT + 1] = { 0 };	/* the winners' */
	int fsdp_experts = 0;		/* of them, with experts */
	int fsdp_interleaved = 0;	/* and interleaved */
	int hsdp = 0;				/* of them, HSDP */
	int stage_major = 0;			/* the winners placed so */
	/* the experts' other layouts chosen: a batch split with a fold, an
	 * expert tensor group below t */
	int fold = 0, etp = 0;
	int zero_heavy_solved = 0, zero_pipelines = 0, block = 0;
	int block_named = 0;
	/* Megatron's space: agreement, instances where it costs something,
	 * and where its encoder rule binds */
	int mega_agree = 0, mega_dearer = 0, mega_launchable = 0;
	int mega_encoder_dearer = 0;
	/* the runner-ups against the enumeration's layouts */
	int top_agree = 0, top_deep = 0;

	/* 300 chains of any rows (every fifth with an expert variant),
	 * then 100 transformer-like ones (alike layers, small batches, fast
	 * links: where interleaving pays), then 150 of those where memory
	 * is so short that ZeRO and long pipelines must be searched, with
	 * up to 8 copies a stage (the bounds dp.c prunes ZeRO cells by) */
	for (int it = 0; it < total; it++) {
		int layers = it >= 300, zero_heavy = it >= 400;
		struct network net, flat;
		struct layer_graph g[2];
		const struct layer_graph *gp[2] = { &g[0], &g[1] };
		struct layer_graph *gm[2] = { &g[0], &g[1] };
		struct plan_env env, fenv;
		struct dp_options o = { .recompute_min = RC_NONE,
		    .recompute_max = RC_SELECTIVE, .zero = DP_ZERO_AUTO,
		    .zmax = 4, .vmax = pick(1, 3), .distopt_max = 1,
		    .overlap = uniform() < 0.5 };
		struct dp_stats st;
		struct plan best, fbest;
		struct plan_result r;
		double step = INFINITY, fstep, want, need = 0;
		size_t n = (size_t)(layers ? 2 * pick(3, 4) : pick(2, 8)), ng;
		int rc;

		memset(&net, 0, sizeof net);
		net.nlevels = (int)pick(2, 3);
		level(&net, 0, pick(1, 4), 1e11 * (0.5 + uniform()),
		    1e-6 * uniform());
		level(&net, 1, pick(2, 4), 1e10 * (0.2 + uniform()),
		    1e-5 * uniform());
		if (net.nlevels == 3)
			level(&net, 2, 2, 1e9 * (0.5 + uniform()), 1e-4 *
			    uniform());
		net.level[1].oversubscription = uniform() < 0.3 ? 2 : 1;
		network_finish(&net, "net", NULL);
		ng = random_graphs(g, n, layers, layers || it % 5 != 4 ? 0 :
		    it % 10 == 9 ? 2 : 1);
		/* the combined 1F1B searched on the experts' instances */
		o.ep_overlap_max = !layers && it % 5 == 4;
		/* every third instance's first variant in FP8 (not drawn:
		 * the instances stay those of before), three quarters of
		 * each kind of weight, the four recipes in turn, torchao's
		 * float8 (its tensor parallelism in turn) on every other one
		 * of those that search FSDP2 without experts (MXFP8's turn);
		 * the FP8 gather searched, or always on every sixth (but
		 * float8's every other time) */
		if (it % 3 == 1) {
			int torchao = it % 24 == 10 && it % 5 != 4;

			g[0].var_fp8 = !torchao ? 1 + (it / 3) % 4 :
			    it % 48 == 10 ? FP8_FLOAT8 : FP8_FLOAT8_TP;
			for (size_t i = 0; i < n; i++) {
				struct layer *l = &g[0].l[i];

				l->fp8_weight_bytes = 0.75 * l->parameter_bytes;
				l->fp8_expert_weight_bytes = 0.75 *
				    (l->parameter_bytes -
				    l->dense_parameter_bytes);
			}
			o.fp8_gather_min = it % 6 == 4 && !(torchao &&
			    it % 96 == 10);
			o.fp8_gather_max = 1;
		}
		for (size_t k = 0; zero_heavy && k < ng; k++)
			for (size_t i = 0; i < n; i++) {  /* states dominate */
				g[k].l[i].activation_bytes /= 10;
				g[k].l[i].checkpoint_bytes /= 10;
				g[k].l[i].selective_bytes /= 10;
			}
		for (size_t i = 0; i < n; i++)
			need += 16 * g[0].l[i].parameter_bytes +
			    g[0].l[i].activation_bytes;
		/* from a few layers' worth (ZeRO or nothing) to it all */
		env = (struct plan_env){ .net = &net,
		    .devices = pick(1, net.ndevices),
		    .memory_bytes = need * (0.04 + 1.2 * uniform() * uniform()),
		    .optimizer = uniform() < 0.8 ? OPT_ADAM : OPT_SGD,
		    .global_batch = layers ? pick(2, 12) : pick(2, 64),
		    .grad_bytes_per_param = uniform() < 0.5 ? 2 : 4,
		    .grad_copies = 1 };
		/* PyTorch DDP's second copy of the gradients half the time,
		 * Megatron's pipeline scatter/gather (t = 2 variants) too, and
		 * the optimizer step at an HBM-like 0.5-10.5e11 B/s */
		env.grad_copies = uniform() < 0.5 ? 1 : 2;
		env.p2p_scatter_gather = uniform() < 0.5;
		env.optimizer_Bps = uniform() < 0.5 ? 0 : 1e11 * (0.5 + 10 *
		    uniform());
		if (layers) {	/* memory binds: pipelines pay */
			env.memory_bytes = need * (0.1 + 0.25 * uniform());
			env.optimizer = OPT_ADAM;
			env.global_batch = 12;
			o.distopt_max = 0;
			/* block recomputation of up to 0-3 layers a chunk
			 * (not drawn: the instances stay those of before) */
			o.block_max = it % 4;
		}
		/* ZB-H1 searched beside 1F1B on every other instance, and
		 * ZB-V and DualPipeV too on every other of those (not drawn) */
		o.sched_max = it % 2 == 0 ? PLAN_1F1B : it % 4 == 1 ?
		    PLAN_ZBH1 : PLAN_DUALPIPEV;
		/* FSDP2 searched beside the rest on every fourth instance,
		 * and on every eighth with ZB-V and DualPipeV
		 * (kept: torchtitan's ZBVZeroBubble and DualPipeV),
		 * alone on every twelfth of the first (not drawn), */
		o.fsdp_max = it % 4 == 2 || it % 8 == 3;
		o.fsdp_min = it % 48 == 2;
		/* and there torchtitan's per-operator checkpointing */
		if (o.fsdp_max)
			o.recompute_max = RC_OP;
		/* both placements on every third instance, stage-major alone
		 * on every tenth of those, and torchtitan's rules (stage-major
		 * alone where they differ, a micro-batch a stage or more) on
		 * every fifth (not drawn) */
		o.stage_major_max = it % 3 == 0;
		o.stage_major_min = it % 30 == 0;
		o.stage_major_only = it % 15 == 3;
		o.micro_per_stage = o.stage_major_only;
		/* and on every other of those a model it does not pipeline
		 * (Qwen3's): one stage, without ZeRO copies (not drawn) */
		if (it % 30 == 18) {
			o.stages_max = 1;
			o.zero = DP_ZERO_OFF;
		}
		/* and beside the distributed optimizer alone on every other
		 * of those (FSDP2 is listed once whatever -D says) */
		if (it % 8 == 6 && o.distopt_max > 0)
			o.distopt_min = 1;
		if (zero_heavy) {
			env.devices = net.ndevices;
			env.memory_bytes = need * (0.02 + 0.1 * uniform());
			o.zmax = 8;
		}
		nlayouts = 0;
		want = brute_mode(&env, gm, ng, 0, &o, 0, NULL);
		if (isinf(want) && o.zero != DP_ZERO_OFF) {
			nlayouts = 0;
			want = brute_mode(&env, gm, ng, 1, &o, 0, NULL);
		}
		rc = dp_solve(&env, gp, ng, &o, &best, &step, &st, NULL);
		/* the runner-ups (-k): the top_n best layouts' steps are the
		 * top_n least of the enumeration's best a layout, each plan
		 * re-evaluates to its step, no layout twice */
		{
			struct plan top[6];
			static double bests[100000];
			double tsteps[6];
			size_t top_n = (size_t)pick(2, 6), nf = 0, want_n;
			int ok;

			for (size_t i = 0; i < nlayouts; i++)
				bests[i] = layouts[i].step;
			qsort(bests, nlayouts, sizeof *bests, cmp_double);
			want_n = nlayouts < top_n ? nlayouts : top_n;
			ok = dp_solve_top(&env, gp, ng, &o, top_n, top, tsteps,
			    &nf, &st, NULL) == (want_n ? 0 : 1) && nf == want_n;
			for (size_t i = 0; ok && i < nf; i++) {
				ok = tsteps[i] == bests[i] && plan_evaluate(&env,
				    &top[i], &r, NULL) == 0;
				if (!ok)
					break;
				ok = r.step_s == tsteps[i] && r.fits;
				plan_result_release(&r);
				for (size_t j = 0; ok && j < i; j++)
					ok = top[j].g != top[i].g ||
					    top[j].d != top[i].d ||
					    top[j].v != top[i].v ||
					    plan_slots(&top[j]) !=
					    plan_slots(&top[i]);
			}
			top_agree += ok;
			top_deep += ok && nf >= 3;
			if (!ok)
				printf("# instance %d: top %zu: dp found %zu, "
				    "enumeration %zu layouts\n", it, top_n, nf,
				    nlayouts);
			for (size_t i = 0; i < nf; i++)
				free(top[i].stage);
		}
		if (rc == 1 && isinf(want)) {
			agree++;
			exact++;
			flat_ok++;
			infeasible++;
		} else if (rc == 0 && step == want) {
			agree++;
			zero += st.zero_used;
			zero_heavy_solved += zero_heavy && st.zero_used;
			zero_pipelines += zero_heavy && st.zero_used &&
			    best.nstages > 1;
			modes[best.recompute]++;
			/* block recomputation strictly faster than every
			 * plan without it (and then the plan says so) */
			if (o.block_max > 0) {
				struct dp_options no = o;

				no.block_max = 0;
				if (step < brute_mode(&env, gm, ng,
				    st.zero_used, &no, 0, NULL)) {
					block++;
					block_named += best.recompute_layers > 0;
				}
			}
			distopt += best.distopt;
			fsdp[best.fsdp]++;
			hsdp += best.fsdp && best.fsdp_shard > 0;
			fsdp_experts += best.fsdp && best.g->has_variant &&
			    best.g->var_e > 1;
			fsdp_interleaved += best.fsdp && best.v > 1 &&
			    best.schedule == PLAN_1F1B;
			fsdp_v += best.fsdp && best.schedule != PLAN_1F1B;
			stage_major += best.stage_major;
			fp8_gather += best.fp8_param_gather;
			float8 += FP8_TORCHAO(best.g->var_fp8);
			float8_gather += FP8_TORCHAO(best.g->var_fp8) &&
			    best.fp8_param_gather;
			zbh1 += best.schedule == PLAN_ZBH1;
			zbv += best.schedule == PLAN_ZBV;
			dualpipev += best.schedule == PLAN_DUALPIPEV;
			ep_won += best.ep_overlap;
			fold += layers_ep_fold(best.g) > 1 &&
			    best.g->var_ep_batch;
			etp += layers_expert_t(best.g) > 1 &&
			    layers_expert_t(best.g) < best.g->var_t;
			interleaved += best.v > 1;
			if (plan_evaluate(&env, &best, &r, NULL) == 0) {
				exact += r.step_s == step && r.fits;
				plan_result_release(&r);
			}
			/* a flat-network optimum, priced on the real one */
			network_flatten(&net, &flat);
			fenv = env;
			fenv.net = &flat;
			if (dp_solve(&fenv, gp, ng, &o, &fbest, &fstep, &st,
			    NULL) == 0 && plan_evaluate(&env, &fbest, &r,
			    NULL) == 0) {
				flat_ok += r.step_s >= step;
				plan_result_release(&r);
			} else
				flat_ok++;	/* no flat plan to compare */
			free(fbest.stage);
		} else
			printf("# instance %d: dp %d %.17g, brute force "
			    "%.17g\n", it, rc, step, want);
		free(best.stage);
		/* Megatron's space (-X megatron): the same search with its
		 * batch rule and no ZeRO, every third instance an encoder's
		 * (its split by Megatron's flags only), against the
		 * enumeration filtered by megatron_check */
		{
			struct dp_options mo = o;
			struct model_cfg enc;
			int encoder = it % 3 == 0;
			double mwant, mstep = INFINITY;
			int mrc;

			memset(&enc, 0, sizeof enc);
			enc.architecture = ARCH_ENCODER;
			enc.layers = (long)n - 2;
			enc.seq_len = 1L << 20;
			enc.experts = 1;
			enc.mlp = MLP_DENSE;
			enc.activation = ACT_GELU;
			mo.zero = DP_ZERO_OFF;
			mo.megatron_batch = mo.megatron_order = 1;
			mo.sched_max = PLAN_1F1B;	/* dpsolve: -X none */
			mo.fsdp_min = mo.fsdp_max = 0;	/* the same */
			mo.classic_split = encoder;
			mwant = brute_mode(&env, gm, ng, 0, &mo, 1, encoder ?
			    &enc : NULL);
			/* the variants Megatron runs, as dpsolve leaves them
			 * to the search (experts at t 2 need sp) */
			const struct layer_graph *gpm[2];
			size_t ngm = 0;

			for (size_t k = 0; k < ng; k++)
				if (megatron_variant_ok(gp[k], encoder ? &enc :
				    NULL))
					gpm[ngm++] = gp[k];
			/* none (torchao's float8 alone): no plan, as
			 * dpsolve says */
			best.stage = NULL;
			mrc = ngm == 0 ? 1 : dp_solve(&env, gpm, ngm, &mo,
			    &best, &mstep, &st, NULL);
			if ((mrc == 1 && isinf(mwant)) || (mrc == 0 &&
			    mstep == mwant))
				mega_agree++;
			else
				printf("# instance %d (megatron%s): dp %d %.17g, "
				    "brute force %.17g\n", it, encoder ?
				    ", encoder" : "", mrc, mstep, mwant);
			if (mrc == 0) {
				struct megatron_why w;

				mega_launchable += megatron_check(&best,
				    env.global_batch, encoder ? &enc : NULL,
				    &w) == 0;
				mega_dearer += rc == 0 && mstep > step;
				if (encoder) {
					struct dp_options dec = mo;

					dec.classic_split = 0;
					mega_encoder_dearer += mstep > brute_mode(
					    &env, gm, ng, 0, &dec, 1, NULL);
				}
			} else
				mega_launchable++;
			free(best.stage);
		}
		for (size_t k = 0; k < ng; k++)
			layers_release(&g[k]);
	}
	EQ_INT(agree, total, "dp equals brute force on 550 random instances");
	EQ_INT(top_agree, total, "its 2-6 best distinct layouts (-k) are the "
	    "enumeration's, each plan re-evaluating to its step");
	OK(top_deep > 100, "three or more layouts ranked on many instances");
	EQ_INT(mega_agree, total, "in Megatron's space too (its batch rule, no "
	    "ZeRO, an encoder's split flags), against enumeration filtered by "
	    "megatron_check");
	EQ_INT(mega_launchable, total, "and every plan it finds passes "
	    "megatron_check");
	OK(mega_dearer > 20, "Megatron's space costs time on some instances");
	OK(mega_encoder_dearer > 5, "and an encoder's split rule on some");
	EQ_INT(exact, total, "its plan re-evaluates to exactly its step");
	EQ_INT(flat_ok, total, "a flat-network plan is never better");
	OK(infeasible > 10 && infeasible < total / 2, "some are infeasible");
	OK(zero > 10, "some need ZeRO");
	OK(zero_heavy_solved > 30, "a fifth of the short-memory ones are "
	    "solved with ZeRO");
	OK(zero_pipelines > 15, "and of those, many by a pipeline of ZeRO "
	    "stages");
	OK(modes[RC_NONE] > 10 && modes[RC_FULL] > 10 &&
	    modes[RC_SELECTIVE] > 10, "every recomputation kind wins somewhere");
	OK(interleaved > 5, "interleaving wins somewhere");
	EQ_INT(block_named, block, "where block recomputation wins, the "
	    "plan is block recomputation");
	OK(distopt > 10 && distopt < total - infeasible - 10,
	    "the distributed optimizer wins somewhere, not everywhere");
	OK(fp8_gather > 5, "the FP8 parameter gather wins somewhere");
	OK(float8_gather > 0, "torchao's float8 wins somewhere, with its "
	    "all-gather (searched beside FSDP2 on every 24th instance; "
	    "without it each micro-batch casts the weights, 6 bytes where "
	    "it transposes 2)");
	OK(fsdp[PLAN_FSDP_RESHARD] > 0 && fsdp[PLAN_FSDP_KEPT] > 0, "FSDP2 "
	    "wins somewhere, resharded after forward and kept gathered "
	    "(searched on every fourth instance)");
	OK(fsdp_v > 0, "FSDP2 kept wins somewhere under ZB-V or DualPipeV "
	    "(searched on every eighth instance)");
	OK(fsdp_experts > 0, "FSDP2 wins somewhere with expert ranks (the "
	    "experts' own shard group, torchtitan's efsdp)");
	OK(zbh1 > 5, "ZB-H1 wins somewhere (searched on every other "
	    "instance)");
	/* DualPipeV, searched there too, comes within 2-5% on some but
	 * wins none: its pairs hide collectives, and these chains' best
	 * plans have few */
	OK(fold > 0 && etp > 0, "a batch split with a fold and an expert "
	    "tensor group below t win somewhere (on every tenth instance's "
	    "experts)");
	OK(zbv > 0, "ZB-V wins somewhere (searched with DualPipeV on every "
	    "fourth)");
	OK(ep_won > 0, "the combined 1F1B wins somewhere (searched on the "
	    "experts' instances)");
	OK(modes[RC_OP] > 0, "torchtitan's per-operator checkpointing wins "
	    "somewhere (searched beside FSDP2 on every fourth instance)");
	OK(stage_major > 0, "stage-major placement wins somewhere (searched "
	    "on every third instance)");
	printf("# %d infeasible, %d solved with ZeRO (%d of the short-memory "
	    "ones, %d with more than one stage), %d interleaved; "
	    "recompute none/full/selective/op %d/%d/%d/%d (block %d), distributed "
	    "optimizer %d (gathering FP8 %d), FSDP2 %d resharded and %d "
	    "kept (HSDP %d, with expert ranks %d, interleaved %d, ZB-V or "
	    "DualPipeV %d, float8 %d, its all-gather %d), stage-major %d, "
	    "ZB-H1 %d, ZB-V %d, "
	    "DualPipeV %d; "
	    "experts folded over a sequence in a batch split %d, split over "
	    "fewer tensor ranks than t %d; %ld plans enumerated; "
	    "Megatron's space dearer in %d (the encoder rule in %d); the "
	    "combined 1F1B %d\n",
	    infeasible, zero, zero_heavy_solved, zero_pipelines, interleaved,
	    modes[0], modes[1], modes[2], modes[3], block, distopt, fp8_gather,
	    fsdp[PLAN_FSDP_RESHARD], fsdp[PLAN_FSDP_KEPT], hsdp, fsdp_experts,
	    fsdp_interleaved, fsdp_v, float8, float8_gather, stage_major,
	    zbh1,
	    zbv, dualpipev, fold, etp, brute_plans, mega_dearer,
	    mega_encoder_dearer, ep_won);
}

/*
 * 6 layers on two nodes of 4 devices, the upper level 50x slower, at most
 * 2 layers a stage fit: 3 stages x 2 replicas would cut replica 1 across
 * the nodes; 4 stages x 2 replicas keep every cut inside a node.
 */
static void
network_awareness(void)
{
	struct network net, flat;
	struct layer_graph g;
	const struct layer_graph *gp[1] = { &g };
	struct plan_env env, fenv;
	struct dp_options o = { .zero = DP_ZERO_AUTO, .zmax = 4, .vmax = 1 };
	struct dp_stats st;
	struct plan best, fbest;
	struct plan_result r, fr;
	double step, fstep;
	int inside = 1;

	memset(&net, 0, sizeof net);
	net.nlevels = 2;
	level(&net, 0, 4, 1e11, 0);
	level(&net, 1, 2, 2e9, 0);
	network_finish(&net, "net", NULL);
	graph_alloc(&g, 6);
	for (size_t i = 0; i < 6; i++)
		set_row(&g, i, 1, 2, 1e6, 0, 1e10);
	env = (struct plan_env){ .net = &net, .devices = 8,
	    .memory_bytes = 1.7e7, .optimizer = OPT_ADAM, .global_batch = 8,
	    .grad_copies = 1 };
	OK(dp_solve(&env, gp, 1, &o, &best, &step, &st, NULL) == 0,
	    "aware: solved");
	OK(plan_evaluate(&env, &best, &r, NULL) == 0, "aware: evaluates");
	for (int i = 1; i < r.nstages; i++)
		inside &= r.stage[i].level_in == 0;
	OK(inside && best.nstages == 4 && best.d == 2,
	    "every cut inside a node (4 stages x 2 replicas)");
	/* 4 micro-batches, 7 slots; stages of 2, 1, 1, 2 layers (3 s
	 * each) and 0.2 s a cut: the end stages, 6.2 s, are the slowest;
	 * sync: 2e6 bytes across the nodes, 2e6 / 2e9 */
	EQ_DBL(step, 7 * 6.2 + 0.001, 1e-12, "aware step");
	network_flatten(&net, &flat);
	fenv = env;
	fenv.net = &flat;
	OK(dp_solve(&fenv, gp, 1, &o, &fbest, &fstep, &st, NULL) == 0,
	    "flat: solved");
	OK(fbest.nstages == 3 && fbest.d == 2, "flat: 3 stages x 2 replicas");
	OK(plan_evaluate(&env, &fbest, &fr, NULL) == 0 && fr.step_s > step,
	    "the flat plan is slower on the real network");
	/* replica 1's first cut joins devices 3 and 4: 2 x 1e10 / 2e9;
	 * stage 0's copies (devices 0 and 3) reduce inside a node, 2e6 /
	 * 1e11; stages 1 and 2 across the nodes (0.001 s), but after
	 * their own last backward passes, 4 and 8 s before stage 0's */
	EQ_DBL(fr.step_s, 6 * (6 + 0.2 + 10) + 2e6 / 1e11, 1e-12,
	    "flat plan re-scored");
	plan_result_release(&r);
	plan_result_release(&fr);
	free(best.stage);
	free(fbest.stage);
	layers_release(&g);
}

/*
 * Block recomputation by hand: an embedding, 4 alike layers (1 ms
 * forward, 2 ms backward, 1 ms to rerun; 1e8 bytes of activations, 1e7
 * kept under full recomputation: the layer's input) and a head on one
 * device, 4 micro-batches, bf16 gradients and Adam: 8 bytes a parameter
 * byte, 3.2e7 for the layers' 4e6.  Recomputing the first N layers, the
 * stage keeps N x 1e7 + (4 - N) x 1e8 and rebuilds one layer's 9e7 at a
 * time: 4.32e8 bytes at N = 0 (none) and 1, 3.42e8 at 2, 2.52e8 at 3,
 * 1.62e8 at 4 (full).  In 3.5e8 bytes none does not fit, so without
 * block recomputation the plan is full, 4 x 16 ms; with depths up to 1
 * too (N = 1 saves nothing on one stage); with depths up to 3 it is N =
 * 2, 4 x 14 ms, which the plan says and Megatron's launch would run.
 */
static void
block_by_hand(void)
{
	struct network net;
	struct layer_graph g;
	const struct layer_graph *gp[1] = { &g };
	struct plan_env env;
	struct dp_options o = { .recompute_min = RC_NONE,
	    .recompute_max = RC_FULL, .zero = DP_ZERO_OFF, .zmax = 1,
	    .vmax = 1 };
	struct dp_stats st;
	struct plan best;
	struct plan_result r;
	double step;

	memset(&net, 0, sizeof net);
	net.nlevels = 1;
	level(&net, 0, 1, 1e11, 0);
	network_finish(&net, "net", NULL);
	graph_alloc(&g, 6);
	for (size_t i = 1; i <= 4; i++) {
		set_row(&g, i, 1e-3, 2e-3, 1e6, 1e8, 1e7);
		g.l[i].checkpoint_bytes = 1e7;
		g.l[i].recompute_s = 1e-3;
	}
	env = (struct plan_env){ .net = &net, .devices = 1,
	    .memory_bytes = 3.5e8, .optimizer = OPT_ADAM, .global_batch = 4,
	    .grad_bytes_per_param = 2, .grad_copies = 1 };
	/* depths up to 1 (N = 1 saves nothing here): full */
	o.block_max = 1;
	OK(dp_solve(&env, gp, 1, &o, &best, &step, &st, NULL) == 0,
	    "block up to 1 layer: solved");
	EQ_DBL(step, 4 * 16e-3, 1e-15, "block up to 1 layer: full, 4 x 16 ms");
	OK(best.recompute == RC_FULL && best.recompute_layers == 0,
	    "and the plan says full");
	free(best.stage);
	o.block_max = 3;
	OK(dp_solve(&env, gp, 1, &o, &best, &step, &st, NULL) == 0,
	    "block up to 3 layers: solved");
	EQ_DBL(step, 4 * 14e-3, 1e-15, "block up to 3 layers: 2 of them, "
	    "4 x 14 ms");
	OK(best.recompute == RC_FULL && best.recompute_layers == 2,
	    "and the plan says block, 2 layers");
	OK(plan_evaluate(&env, &best, &r, NULL) == 0 && r.fits,
	    "it evaluates, and fits");
	EQ_DBL(r.stage[0].mem.total, 3.42e8, 1.0, "in 3.42e8 bytes");
	plan_result_release(&r);
	free(best.stage);
	/* without block recomputation: full */
	o.block_max = 0;
	OK(dp_solve(&env, gp, 1, &o, &best, &step, &st, NULL) == 0 &&
	    step == 4 * 16e-3 && best.recompute_layers == 0,
	    "without block recomputation: full, 4 x 16 ms");
	free(best.stage);
	layers_release(&g);
}

/* A layer too large for a device: ZeRO on that stage only; smaller
 * memory still: nothing fits. */
static void
zero_when_needed(void)
{
	struct network net;
	struct layer_graph g;
	const struct layer_graph *gp[1] = { &g };
	struct plan_env env;
	struct dp_options o = { .zero = DP_ZERO_AUTO, .zmax = 2, .vmax = 1 };
	struct dp_stats st;
	struct plan best;
	double step;

	memset(&net, 0, sizeof net);
	net.nlevels = 1;
	level(&net, 0, 4, 1e11, 0);
	network_finish(&net, "net", NULL);
	graph_alloc(&g, 3);
	/* Adam: 8 P bytes (P = 2 bytes a parameter); ZeRO-1 over z:
	 * P (2 + 6/z), ZeRO-2: P (1 + 7/z), ZeRO-3: 8P/z */
	set_row(&g, 0, 10, 20, 1e8, 0, 1e3);	/* 8e8 */
	set_row(&g, 1, 1, 2, 2e8, 0, 1e3);	/* 1.6e9; ZeRO-1 x 2: 1e9 */
	set_row(&g, 2, 10, 20, 1e8, 0, 1e3);
	/* on 1.04e9-byte devices two rows together need more than ZeRO-3
	 * over 2 (1.2e9), so: 3 stages, the middle one ZeRO-1 over 2 */
	env = (struct plan_env){ .net = &net, .devices = 4,
	    .memory_bytes = 1.04e9, .optimizer = OPT_ADAM, .global_batch = 8,
	    .grad_copies = 1 };
	OK(dp_solve(&env, gp, 1, &o, &best, &step, &st, NULL) == 0 &&
	    st.zero_used, "ZeRO turned on");
	OK(best.nstages == 3 && best.stage[1].z == 2 &&
	    best.stage[1].zero_stage == 1 && best.stage[0].z == 1 &&
	    best.stage[2].z == 1, "only the stage that needs it: ZeRO-1 x 2");
	free(best.stage);
	o.zero = DP_ZERO_OFF;
	OK(dp_solve(&env, gp, 1, &o, &best, &step, &st, NULL) == 1,
	    "without ZeRO nothing fits");
	o.zero = DP_ZERO_AUTO;
	env.memory_bytes = 1e7;
	OK(dp_solve(&env, gp, 1, &o, &best, &step, &st, NULL) == 1,
	    "ZeRO-3 over 8 still too large: nothing fits");
	layers_release(&g);
}

/* The latency floor the search prunes with is below every real group. */
static void
alpha_floor(void)
{
	int below = 0, total = 500;

	for (int it = 0; it < total; it++) {
		struct network net;
		struct net_shape sh;
		long devs[64], n = 0;
		double *f;

		memset(&net, 0, sizeof net);
		net.nlevels = 3;
		level(&net, 0, pick(1, 8), 1e11, 1e-6 * uniform());
		level(&net, 1, pick(1, 4), 1e10, 1e-5 * uniform());
		level(&net, 2, pick(2, 4), 1e9, 1e-4 * uniform());
		net.level[1].algo = uniform() < 0.5 ? NET_RING :
		    NET_HALVING_DOUBLING;
		/* payloads and in-fabric reductions, without drawing (the
		 * instances after these keep their random numbers) */
		net.level[0].protocol_overhead = 0.05 * (double)(it % 5);
		net.level[0].nvls_efficiency = it % 3 ? 0 : 0.3 + 0.1 *
		    (double)(it % 7);
		net.level[1].nvls_efficiency = it % 4 ? 0 : 0.9;
		network_finish(&net, "net", NULL);
		for (long dv = 0; dv < net.ndevices && n < 64; dv++)
			if (uniform() < 0.4)
				devs[n++] = dv;
		f = net_allreduce_alpha_floor(&net, net.ndevices);
		net_shape_of(&net, devs, (size_t)n, &sh, NULL);
		below += net_collective(&net, NET_ALL_REDUCE, &sh).alpha_s >=
		    f[n] * (1 - 1e-12);
		free(f);
	}
	EQ_INT(below, total, "the all-reduce latency floor is below 500 "
	    "random groups");
}

/* The bandwidth floor the search prunes with is below every real group
 * whose members are at least the floor's stride apart. */
static void
beta_floor(void)
{
	int below = 0, total = 2000;

	for (int it = 0; it < total; it++) {
		struct network net;
		struct net_shape sh;
		long devs[256], n = 0, stride = 1L << pick(0, 3);
		double *f, beta;

		memset(&net, 0, sizeof net);
		net.nlevels = 3;
		level(&net, 0, pick(1, 8), 1e11 * (0.5 + uniform()), 0);
		level(&net, 1, pick(1, 6), 1e10 * (0.5 + uniform()), 0);
		level(&net, 2, pick(2, 6), 1e9 * (0.5 + uniform()), 0);
		net.level[2].oversubscription = 1 + 3 * uniform();
		net.level[1].algo = uniform() < 0.5 ? NET_RING :
		    NET_HALVING_DOUBLING;
		net.level[0].protocol_overhead = 0.05 * (double)(it % 5);
		net.level[0].nvls_efficiency = it % 3 ? 0 : 0.3 + 0.1 *
		    (double)(it % 7);
		net.level[1].protocol_overhead = 0.1 * (double)(it % 2);
		net.level[1].nvls_efficiency = it % 4 ? 0 : 0.9;
		network_finish(&net, "net", NULL);
		/* members at least `stride` apart, some gaps longer */
		for (long dv = pick(0, 3); dv < net.ndevices && n < 256;
		    dv += stride + (uniform() < 0.3 ? pick(1, 9) : 0))
			devs[n++] = dv;
		f = net_allreduce_beta_floor(&net, net.ndevices, stride);
		net_shape_of(&net, devs, (size_t)n, &sh, NULL);
		beta = net_collective(&net, NET_ALL_REDUCE, &sh).beta_s_per_byte;
		below += beta >= f[n] * (1 - 1e-12);
		if (beta < f[n] * (1 - 1e-12))
			printf("#   stride %ld, %ld members: beta %g < floor %g\n",
			    stride, n, beta, f[n]);
		free(f);
	}
	EQ_INT(below, total, "the all-reduce bandwidth floor is below 2000 "
	    "random groups");
}

/* One level of four devices, 1e9 B/s, no latency. */
static void
four_devices(struct network *net)
{
	struct pl_err err;

	memset(net, 0, sizeof *net);
	net->nlevels = 1;
	level(net, 0, 4, 1e9, 0);
	network_finish(net, "net", &err);
}

/*
 * Megatron's --fp8-param-gather by hand, on megatron_modes' plan (d = 2,
 * one stage of six rows, 1e6 parameter bytes each, fp32 gradients, the
 * network's 1e9 B/s: an all-reduce costs 1 ms a 1e6 bytes, a reduce-
 * scatter or gather half), its four layers' weights in FP8: their FP8
 * copies, as many bytes as the bf16 ones, 4e6 (2e6 weights).  Without
 * overlap: the reduce-scatter of the 12e6 gradient bytes 6 ms; the
 * gather of bf16 weights 3 ms, in FP8 (2e6 + 4e6 / 2 bytes) 2 ms.
 * Memory: the weights 6e6 + 4e6 bytes with the bf16 copy, 6e6 without.
 * The step at 1e9 B/s: Adam's 57 ms (megatron_modes) and the weights'
 * casts: with bf16 weights, each weight cast with its transpose (delayed:
 * 4 bytes, current scaling 6) = 8 or 12 ms; with the FP8 gather, each
 * transposed again (2 bytes a weight, 4 ms) and the master shard's 1e6
 * weights, copied to bf16 as before, cast from that copy to FP8 (read 2,
 * write 1: 3 ms), current scaling reading the copy first for its amax
 * (2 ms more).  MXFP8 gathers in bf16 and quantizes as bf16 weights are:
 * 3 ms, and 2e6 x (4 + 2/32) bytes, 8.125 ms.  Then a mixture: the
 * experts' share gathered over its own group (expert_share_by_hand).
 */
static void
fp8_param_gather_by_hand(const struct plan_env *env0, struct plan *p0)
{
	struct plan_env env = *env0;
	struct plan p = *p0;
	struct layer_graph *g = (struct layer_graph *)p.g;
	static const int recipe[3] = { FP8_DELAYED, FP8_TENSORWISE,
		FP8_MXFP8 };
	static const double cast_ms[3][2] = { { 8, 7 }, { 12, 9 },
		{ 8.125, 8.125 } };
	static const double gather_ms[3] = { 2, 2, 3 };
	struct plan_result r;
	struct pl_err err;

	p.recompute = RC_NONE;
	p.distopt = 1;
	p.overlap_grad = p.overlap_param = 0;
	p.fp8_param_gather = 1;
	OK(plan_evaluate(&env, &p, &r, &err) < 0, "the FP8 gather on a bf16 "
	    "graph: refused");
	for (size_t i = 1; i + 1 < g->n; i++)
		g->l[i].fp8_weight_bytes = g->l[i].parameter_bytes;
	for (int k = 0; k < 3; k++) {
		const char *w = fp8_recipe_words[recipe[k]];
		char name[96];

		g->var_fp8 = recipe[k];
		for (int on = 0; on <= 1; on++) {
			p.fp8_param_gather = on;
			env.optimizer_Bps = 0;
			snprintf(name, sizeof name, "%s, FP8 gather %d: "
			    "evaluates", w, on);
			if (!OK(plan_evaluate(&env, &p, &r, &err) == 0, name))
				continue;
			snprintf(name, sizeof name, "%s, FP8 gather %d: the "
			    "reduce-scatter and the gather", w, on);
			EQ_DBL(r.max_sync_s, 0.006 + (on ? gather_ms[k] :
			    3) / 1e3, 1e-12, name);
			snprintf(name, sizeof name, "%s, FP8 gather %d: the "
			    "weights' bytes", w, on);
			EQ_DBL(r.stage[0].mem.weights, on ? 6e6 : 10e6, 1e-12,
			    name);
			plan_result_release(&r);
			env.optimizer_Bps = 1e9;
			snprintf(name, sizeof name, "%s, FP8 gather %d: with "
			    "the step, evaluates", w, on);
			if (!OK(plan_evaluate(&env, &p, &r, &err) == 0, name))
				continue;
			snprintf(name, sizeof name, "%s, FP8 gather %d: Adam "
			    "and the weights' casts", w, on);
			EQ_DBL(r.stage[0].optimizer_s, 0.057 +
			    cast_ms[k][on] / 1e3, 1e-12, name);
			plan_result_release(&r);
		}
	}
	p.fp8_param_gather = 1;
	p.distopt = 0;
	OK(plan_evaluate(&env, &p, &r, &err) < 0, "the FP8 gather without "
	    "the distributed optimizer: refused");
	g->var_fp8 = FP8_NONE;
	for (size_t i = 0; i < g->n; i++)
		g->l[i].fp8_weight_bytes = 0;
}

/*
 * The experts' share of the FP8 gather over its own group, by hand: four
 * devices at 1e9 B/s (no latency), a variant with e = 2 expert ranks (t
 * = c = 1: two devices a replica), d = 2, one stage of three rows.  The
 * middle row holds 1e6 bytes of dense parameters and 3e6 of experts';
 * the ends 1e6 dense each: 3e6 dense, 3e6 experts'.  Its FP8 weights:
 * 1e6 bytes dense, 2e6 experts'.  Current scaling, the distributed
 * optimizer, fp32 gradients, no overlap.  The dense parameters are
 * reduced over all four devices (a ring all-reduce costs 1.5 ms a 1e6
 * bytes), the experts' over the two holding the same experts (1 ms):
 * the gradients' reduce-scatter (3e6 x 2 x 1.5 + 3e6 x 2 x 1) / 2 = 7.5
 * ms; the weights' gather in bf16 (3e6 x 1.5 + 3e6 x 1) / 2 = 3.75 ms,
 * in FP8 ((3e6 - 0.5e6) 1.5 + (3e6 - 1e6) 1) / 2 = 2.875 ms (2.75 with
 * the shares' groups swapped).  The step at 1e9 B/s: Adam's 19 bytes a
 * 2 parameter bytes over the shards (3e6 / 4 + 3e6 / 2) = 42.75 ms; the
 * casts 2 bytes a weight for the 1.5e6 transposes and 5 a weight of the
 * shards (0.5e6 / 4 + 1e6 / 2 weights): 3e6 + 3.125e6 bytes, 6.125 ms
 * (5.5 swapped).
 */
static void
expert_share_by_hand(void)
{
	struct network net;
	struct layer_graph g;
	struct plan_env env;
	struct plan_stage one[1] = { { 0, 2, 1, 0, 0 } };
	struct plan p = { .g = &g, .d = 2, .nstages = 1, .stage = one,
	    .distopt = 1 };
	struct plan_result r;
	struct pl_err err;

	four_devices(&net);
	graph_alloc(&g, 3);
	g.has_variant = 1;
	g.var_t = g.var_c = g.var_b = 1;
	g.var_e = 2;
	g.var_fp8 = FP8_TENSORWISE;
	for (size_t i = 0; i < 3; i++)
		set_row(&g, i, 0.01, 0.02, 1e6, 1e7, i ? 1e6 : 0);
	g.l[1].parameter_bytes = 4e6;
	g.l[1].fp8_weight_bytes = 3e6;
	g.l[1].fp8_expert_weight_bytes = 2e6;
	env = (struct plan_env){ .net = &net, .devices = 4,
	    .memory_bytes = 1e12, .optimizer = OPT_ADAM, .global_batch = 4,
	    .grad_bytes_per_param = 4, .grad_copies = 1 };
	OK(plan_evaluate(&env, &p, &r, &err) == 0, "experts' share: bf16 "
	    "gather evaluates");
	EQ_DBL(r.max_sync_s, 0.0075 + 0.00375, 1e-12, "experts' share: "
	    "reduce-scatter and bf16 gather over their groups");
	plan_result_release(&r);
	p.fp8_param_gather = 1;
	OK(plan_evaluate(&env, &p, &r, &err) == 0, "experts' share: FP8 "
	    "gather evaluates");
	EQ_DBL(r.max_sync_s, 0.0075 + 0.002875, 1e-12, "experts' share: the "
	    "FP8 gather, each share over its group");
	plan_result_release(&r);
	env.optimizer_Bps = 1e9;
	OK(plan_evaluate(&env, &p, &r, &err) == 0, "experts' share: with the "
	    "step, evaluates");
	EQ_DBL(r.stage[0].optimizer_s, 0.04275 + 0.006125, 1e-12, "experts' "
	    "share: Adam and the casts over each share's shards");
	plan_result_release(&r);
	layers_release(&g);
}

/*
 * Megatron's run modes by hand, on one level of 1e9 B/s and no latency:
 * an embedding and a head (10 + 20 ms) around four layers (100 + 200 ms,
 * 1e6 bytes in, 1e6 parameter bytes each).
 */
static void
megatron_modes(void)
{
	struct network net;
	struct layer_graph g;
	struct plan_env env;
	struct plan_stage two[2] = { { 0, 2, 1, 0, 0 }, { 3, 5, 1, 0, 0 } };
	struct plan_stage one[1] = { { 0, 5, 1, 0, 0 } };
	struct plan p = { .g = &g, .d = 1, .nstages = 2, .stage = two,
	    .v = 2 };
	struct plan_result r;
	struct pl_err err;

	four_devices(&net);
	graph_alloc(&g, 6);
	for (size_t i = 0; i < 6; i++) {
		int end = i == 0 || i == 5;

		set_row(&g, i, end ? 0.01 : 0.1, end ? 0.02 : 0.2, 1e6, 1e7,
		    i ? 1e6 : 0);
		set_recompute(&g.l[i], 0.1, 0.4);
	}
	env = (struct plan_env){ .net = &net, .devices = 4,
	    .memory_bytes = 1e12, .optimizer = OPT_ADAM, .global_batch = 4,
	    .grad_bytes_per_param = 4, .grad_copies = 1 };

	/* interleaved, v = 2 over S = 2: each stage 30 + 600 ms of compute;
	 * stage 0 receives once across the wrap and sends twice, stage 1
	 * the other way round, 2 x 1 ms each time (activations, gradients) */
	OK(plan_evaluate(&env, &p, &r, &err) == 0, "interleaved evaluates");
	EQ_DBL(r.stage[0].p2p_in_s + r.stage[0].p2p_out_s, 0.006, 1e-12,
	    "interleaved: 3 transfers both ways on stage 0");
	EQ_DBL(r.stage[1].load_s, 0.636, 1e-12, "interleaved stage load");
	EQ_DBL(r.step_s, (4 + 0.5) * 0.636, 1e-12,
	    "step = (m + (S - 1)/v) max load: half the bubble");
	plan_result_release(&r);
	p.v = 1;
	OK(plan_evaluate(&env, &p, &r, &err) == 0, "plain 1F1B evaluates");
	EQ_DBL(r.step_s, 5 * (0.63 + 0.002), 1e-12, "plain: (m + S - 1)");
	plan_result_release(&r);
	p.v = 3;
	OK(plan_evaluate(&env, &p, &r, &err) < 0, "v = 3 does not divide "
	    "2 layers: refused");
	p.v = 2;
	env.global_batch = 5;
	OK(plan_evaluate(&env, &p, &r, &err) < 0, "m = 5 micro-batches over "
	    "S = 2 interleaved stages: refused (Megatron needs S | m)");
	env.global_batch = 4;

	/* d = 2, one stage: 6e6 parameter bytes, fp32 gradients (12e6
	 * bytes): a 2-ring all-reduce moves B / bw, 12 ms; the distributed
	 * optimizer reduce-scatters them (6 ms) and gathers bf16 weights
	 * (3 ms); overlapped with 840 ms of backward and 420 ms of forward,
	 * nothing is exposed */
	p = (struct plan){ .g = &g, .d = 2, .nstages = 1, .stage = one };
	OK(plan_evaluate(&env, &p, &r, &err) == 0 &&
	    fabs(r.max_sync_s - 0.012) < 1e-12, "all-reduce of fp32 "
	    "gradients: 12 ms");
	plan_result_release(&r);
	p.distopt = 1;
	OK(plan_evaluate(&env, &p, &r, &err) == 0 &&
	    fabs(r.max_sync_s - 0.009) < 1e-12, "distributed optimizer: "
	    "6 + 3 ms");
	EQ_DBL(r.stage[0].mem.optimizer, 6 * 6e6 / 2, 1e-12,
	    "distributed optimizer: Adam's states over d = 2");
	plan_result_release(&r);
	p.overlap_grad = p.overlap_param = 1;
	OK(plan_evaluate(&env, &p, &r, &err) == 0 && r.max_sync_s == 0 &&
	    fabs(r.stage[0].sync_total_s - 0.009) < 1e-12,
	    "overlapped: nothing exposed of the 9 ms");
	plan_result_release(&r);

	/* the optimizer step at 1e9 B/s: 3e6 parameters (6e6 bytes), fp32
	 * gradients, Adam's 2 x 4 + 30 = 38 bytes a parameter over the
	 * distributed optimizer's d = 2 shards: 57 ms, exposed after the
	 * overlapped reduction; without the distributed optimizer all of
	 * them, 114 ms; SGD 4 + 4 bytes a parameter, 24 ms */
	env.optimizer_Bps = 1e9;
	OK(plan_evaluate(&env, &p, &r, &err) == 0, "with the optimizer step");
	EQ_DBL(r.stage[0].optimizer_s, 0.057, 1e-12,
	    "Adam over the distributed optimizer's two shards: 57 ms");
	EQ_DBL(r.max_sync_s, 0.057, 1e-12, "nothing overlaps the optimizer "
	    "step");
	EQ_DBL(r.stage[0].sync_total_s, 0.009 + 0.057, 1e-12,
	    "the whole sync: 9 ms of communication and the step");
	plan_result_release(&r);
	p.distopt = p.overlap_param = 0;
	OK(plan_evaluate(&env, &p, &r, &err) == 0, "plain data parallel");
	EQ_DBL(r.stage[0].optimizer_s, 0.114, 1e-12,
	    "every device updates every parameter: 114 ms");
	plan_result_release(&r);
	env.optimizer = OPT_SGD;
	OK(plan_evaluate(&env, &p, &r, &err) == 0, "SGD");
	EQ_DBL(r.stage[0].optimizer_s, 0.024, 1e-12, "SGD: 8 bytes a "
	    "parameter, 24 ms");
	plan_result_release(&r);
	env.optimizer = OPT_ADAM;
	env.optimizer_Bps = 0;
	p.distopt = p.overlap_param = 1;
	p.recompute = RC_FULL;
	OK(plan_evaluate(&env, &p, &r, &err) == 0, "full recompute, p = 1");
	EQ_DBL(r.stage[0].compute_s, 0.06 + 1.2 + 0.4 + 0.02, 1e-12,
	    "full recomputation with one stage: every forward again");
	plan_result_release(&r);
	fp8_param_gather_by_hand(&env, &p);
	layers_release(&g);
	expert_share_by_hand();
}

/* Two nodes of two devices (level 0: 1e10 B/s, level 1: 1e9 B/s, no
 * latency). */
static void
two_nodes(struct network *net)
{
	struct pl_err err;

	memset(net, 0, sizeof *net);
	net->nlevels = 2;
	level(net, 0, 2, 1e10, 0);
	level(net, 1, 2, 1e9, 0);
	network_finish(net, "net", &err);
}

/* two_nodes and two rows of a t = 2 variant: 10 + 20 ms, 1e6 parameter
 * bytes, 1e7 of activations, 1e6 bytes into row 1, recomputable. */
static void
two_nodes_two_rows(struct network *net, struct layer_graph *g)
{
	two_nodes(net);
	graph_alloc(g, 2);
	g->has_variant = 1;
	g->var_t = 2;
	g->var_e = g->var_c = g->var_b = 1;
	for (size_t i = 0; i < 2; i++) {
		set_row(g, i, 0.01, 0.02, 1e6, 1e7, i ? 1e6 : 0);
		set_recompute(&g->l[i], 0.5, 0.5);
	}
}

/*
 * The stages' placement by hand: two rows at t = 1 (1e6 parameter
 * bytes each, 1e6 activation bytes across the boundary), d = 2, two
 * stages, on two nodes of two devices (1e10 and 1e9 B/s, no latency),
 * fp32 gradients.  A replica's stages one after another: replica r on
 * devices 2r and 2r + 1, the boundary inside a node (2 x 1e6 / 1e10 =
 * 0.2 ms, both ways), each stage's data-parallel pair across the nodes
 * (an all-reduce of 2e6 bytes over two, 2e6 / 1e9 = 2 ms).  Stage-major,
 * each stage's replicas side by side: stage 0 on devices 0 and 1, stage
 * 1 on 2 and 3, the boundary across the nodes (2 ms) and the pairs inside
 * (0.2 ms).  ZeRO copies are not placed stage-major (but with one
 * replica, where the two placements are one).
 */
static void
placement_by_hand(void)
{
	struct network net;
	struct layer_graph g;
	struct plan_env env;
	struct plan_stage st[2] = { { 0, 0, 1, 0, 0 }, { 1, 1, 1, 0, 0 } };
	struct plan p = { .g = &g, .d = 2, .nstages = 2, .stage = st };
	struct plan_result r;
	struct pl_err err;

	two_nodes_two_rows(&net, &g);
	g.var_t = 1;
	env = (struct plan_env){ .net = &net, .devices = 4,
	    .memory_bytes = 1e12, .optimizer = OPT_ADAM, .global_batch = 2,
	    .grad_bytes_per_param = 4, .grad_copies = 1 };
	for (int sm = 0; sm <= 1; sm++) {
		p.stage_major = sm;
		OK(plan_evaluate(&env, &p, &r, &err) == 0, sm ? "stage-major" :
		    "replica-major");
		OK(r.stage[1].level_in == sm, sm ? "stage-major: the "
		    "boundary across the nodes" : "replica-major: the boundary "
		    "inside a node");
		EQ_DBL(r.stage[1].p2p_in_s, sm ? 2e-3 : 2e-4, 1e-15,
		    "the boundary's activations and gradients");
		EQ_DBL(r.stage[0].grad_s, sm ? 2e-4 : 2e-3, 1e-15,
		    "a stage's data-parallel pair's all-reduce");
		OK(r.stage[1].first_device == (sm ? 2 : 1), "stage 1's first "
		    "device");
		plan_result_release(&r);
	}
	/* ZeRO copies: one replica places them alike either way; two are
	 * not placed stage-major (on two nodes of four) */
	st[0].z = 2;
	st[0].zero_stage = 1;
	p.d = 1;
	OK(plan_evaluate(&env, &p, &r, &err) == 0, "stage-major, one "
	    "replica: ZeRO copies as a replica's");
	plan_result_release(&r);
	memset(&net, 0, sizeof net);
	net.nlevels = 2;
	level(&net, 0, 4, 1e10, 0);
	level(&net, 1, 2, 1e9, 0);
	network_finish(&net, "net", &err);
	env.devices = 8;
	env.global_batch = 4;
	p.d = 2;
	OK(plan_evaluate(&env, &p, &r, &err) < 0, "stage-major: ZeRO copies "
	    "of two replicas refused");
	layers_release(&g);
}

/*
 * Two rows at t = 2 on two nodes of two devices (level 0: 1e10 B/s,
 * level 1: 1e9 B/s, no latency), one stage a node.  Row 1 all-reduces
 * 1e6 bytes, 2 (1/2) 1e6 / 1e10 = 0.1 ms over its node's 2-ring: full
 * recomputation runs its forward's half again (0.15 ms), selective does
 * not.  The boundary's 1e6 bytes cross level 1 at 1 ms each way; with
 * Megatron's scatter/gather each rank sends half (0.5 ms) and the pair
 * all-gathers them (half an all-reduce, 0.05 ms).
 */
static void
recompute_collectives_and_scatter_gather(void)
{
	struct network net;
	struct layer_graph g;
	struct plan_env env;
	struct plan_stage st[2] = { { 0, 0, 1, 0, 0 }, { 1, 1, 1, 0, 0 } };
	struct plan p = { .g = &g, .d = 1, .nstages = 2, .stage = st };
	struct plan_result r;
	struct pl_err err;
	const double want[RC_OP] = { 1e-4, 1.5e-4, 1e-4 };

	two_nodes_two_rows(&net, &g);
	g.l[1].coll_bytes[LCOLL_ALL_REDUCE] = 1e6;
	env = (struct plan_env){ .net = &net, .devices = 4,
	    .memory_bytes = 1e12, .optimizer = OPT_ADAM, .global_batch = 1,
	    .grad_bytes_per_param = 4, .grad_copies = 1 };
	/* Megatron's kinds (per operator is FSDP2's: fsdp_by_hand) */
	for (int rc = 0; rc < RC_OP; rc++) {
		p.recompute = rc;
		OK(plan_evaluate(&env, &p, &r, &err) == 0, "evaluates");
		EQ_DBL(r.stage[1].collective_s, want[rc], 1e-15,
		    rc == RC_FULL ? "full recomputation reruns the forward's "
		    "collectives" : "no collective run again");
		if (rc == RC_NONE)
			EQ_DBL(r.stage[0].p2p_out_s, 2e-3, 1e-15,
			    "whole activations across the nodes");
		plan_result_release(&r);
	}
	p.recompute = RC_NONE;
	env.p2p_scatter_gather = 1;
	OK(plan_evaluate(&env, &p, &r, &err) == 0, "scatter/gather evaluates");
	EQ_DBL(r.stage[0].p2p_out_s, 2 * (0.5e-3 + 0.05e-3), 1e-15,
	    "scatter/gather: half a rank, then the pair's all-gather");
	EQ_DBL(r.stage[1].p2p_in_s, r.stage[0].p2p_out_s, 1e-15,
	    "the same transfer seen from the receiver");
	plan_result_release(&r);
	layers_release(&g);
}

/* A one-stage plan priced, its stage's collectives against `want` (the
 * evaluation's refusal reported, not read past). */
static void
one_stage_collectives(const struct plan_env *env, const struct plan *p,
    double want, const char *what)
{
	struct plan_result r;
	struct pl_err err;

	if (plan_evaluate(env, p, &r, &err) != 0) {
		printf("# %s\n", err.msg);
		OK(0, what);
		return;
	}
	EQ_DBL(r.stage[0].collective_s, want, 1e-15, what);
	plan_result_release(&r);
}

/*
 * Context parallelism's keys and values cross the context group, not the
 * tensor group: two nodes of two devices (level 0: 1e10 B/s, level 1:
 * 1e9 B/s, no latency), t = 2 and c = 2 on all four, tensor ranks in a
 * node and the two context ranks a node apart.  Row 1 gathers 1e6 bytes
 * forward and reduce-scatters 1e6 backward over its 2 context ranks,
 * (1/2) 1e6 / 1e9 = 0.5 ms each: 1 ms (over the tensor group it would be
 * 0.1 ms), and full recomputation gathers again: 1.5 ms.
 */
static void
context_parallel_group(void)
{
	struct network net;
	struct layer_graph g;
	struct plan_env env;
	struct plan_stage st[1] = { { 0, 1, 1, 0, 0 } };
	struct plan p = { .g = &g, .d = 1, .nstages = 1, .stage = st };
	struct plan_result r;
	struct pl_err err;

	two_nodes_two_rows(&net, &g);
	g.var_c = 2;
	g.l[1].coll_bytes[LCOLL_CONTEXT_ALL_GATHER] = 1e6;
	g.l[1].coll_bytes[LCOLL_CONTEXT_REDUCE_SCATTER] = 1e6;
	env = (struct plan_env){ .net = &net, .devices = 4,
	    .memory_bytes = 1e12, .optimizer = OPT_ADAM, .global_batch = 1,
	    .grad_bytes_per_param = 4, .grad_copies = 1 };
	OK(plan_evaluate(&env, &p, &r, &err) == 0, "t = 2, c = 2 evaluates");
	EQ_DBL(r.stage[0].collective_s, 1e-3, 1e-15,
	    "keys and values across the nodes, both ways: 1 ms");
	plan_result_release(&r);
	p.recompute = RC_FULL;
	OK(plan_evaluate(&env, &p, &r, &err) == 0, "full recomputation");
	EQ_DBL(r.stage[0].collective_s, 1.5e-3, 1e-15,
	    "full recomputation gathers them again: 1.5 ms");
	plan_result_release(&r);
	/* e = 2 instead of c: the expert ranks share the sequence too */
	g.var_c = 1;
	g.var_e = 2;
	p.recompute = RC_NONE;
	OK(plan_evaluate(&env, &p, &r, &err) == 0, "t = 2, e = 2 evaluates");
	EQ_DBL(r.stage[0].collective_s, 1e-3, 1e-15,
	    "over the c e = 2 ranks, a node apart: 1 ms");
	plan_result_release(&r);
	/* the experts' own tensor group (1 < et < t) and a batch split's
	 * fold on the same two nodes: t = 4 over all four, et = 2, the
	 * expert kinds over 2 adjacent ranks, a node: 1e6 bytes gathered
	 * forward and 1e6 reduce-scattered backward, (1/2) 1e6 / 1e10 =
	 * 0.05 ms each, 0.1 ms (over the 4 tensor ranks across the nodes,
	 * (3/4) 1e6 / 1e9 each, 1.5 ms); then t = 1 with e = 4 split by
	 * samples, two folded over each sequence: keys and values over the
	 * fold's 2 adjacent ranks, 0.1 ms (over all 4, 1.5 ms) */
	g.var_e = 1;
	g.l[1].coll_bytes[LCOLL_CONTEXT_ALL_GATHER] = 0;
	g.l[1].coll_bytes[LCOLL_CONTEXT_REDUCE_SCATTER] = 0;
	g.var_t = 4;
	g.var_sp = 1;
	g.var_et = 2;
	g.l[1].coll_bytes[LCOLL_EXPERT_ALL_GATHER] = 1e6;
	g.l[1].coll_bytes[LCOLL_EXPERT_REDUCE_SCATTER] = 1e6;
	one_stage_collectives(&env, &p, 1e-4, "t = 4, et = 2: the experts' "
	    "gather and reduce-scatter within a node: 0.1 ms");
	g.l[1].coll_bytes[LCOLL_EXPERT_ALL_GATHER] = 0;
	g.l[1].coll_bytes[LCOLL_EXPERT_REDUCE_SCATTER] = 0;
	g.var_t = 1;
	g.var_sp = 0;
	g.var_et = 1;
	g.var_e = 4;
	g.var_b = 2;
	g.var_ep_batch = 1;
	g.var_ep_fold = 2;
	g.l[1].coll_bytes[LCOLL_CONTEXT_ALL_GATHER] = 1e6;
	g.l[1].coll_bytes[LCOLL_CONTEXT_REDUCE_SCATTER] = 1e6;
	env.global_batch = 2;
	one_stage_collectives(&env, &p, 1e-4, "e = 4 split, fold 2: keys and "
	    "values over the fold's 2 ranks, a node: 0.1 ms");
	layers_release(&g);
}


/* FSDP2's worked rows (fsdp_by_hand): an embedding, a block and a head,
 * on four devices of `net`, Adam at 1e11 B/s, a global batch of `batch`. */
static void
three_units(struct layer_graph *g, struct plan_env *env,
    const struct network *net, long batch)
{
	graph_alloc(g, 3);
	set_row(g, 0, 0.01, 0.02, 2e7, 1e6, 0);
	set_row(g, 1, 0.03, 0.06, 4e7, 1e6, 0);
	set_row(g, 2, 0.02, 0.04, 2e7, 1e6, 0);
	*env = (struct plan_env){ .net = net, .devices = 4,
	    .memory_bytes = 1e12, .optimizer = OPT_ADAM,
	    .global_batch = batch, .grad_bytes_per_param = 4,
	    .grad_copies = 1, .optimizer_Bps = 1e11 };
}

/*
 * FSDP2 by hand (plan.c, fsdp_stage_cost; docs/model.md, "FSDP2"), on one
 * level of 1e9 B/s without latency, d = 2: an all-reduce of X bytes takes
 * 2 (2 - 1)/2 X / 1e9 = X / 1e9 s, a unit's gather half that of its bf16
 * bytes, its fp32 reduce-scatter half that of twice them.  Three rows (an
 * embedding, a block, a head): forward 10, 30, 20 ms, backward 20, 60,
 * 40 ms, 2e7, 4e7, 2e7 parameter bytes; so gathers of 10, 20, 10 ms and
 * reduce-scatters of 20, 40, 20 ms.  B = 4, b = 1: m = 2; Adam's step
 * at 1e11 B/s, 40 bytes a parameter (the clipping's 12, Adam's 28) over
 * the d = 2 shards.  FSDP2's copies at the same 1e11 B/s: a unit's
 * copy-out after its gather 2 x its bytes, 0.4, 0.8, 0.4 ms; its
 * gradient's cast into the reduce-scatter 3 x, 0.6, 1.2, 0.6 ms.
 *
 * Resharded, one stage.  Forward: the embedding's gather, then each row's
 * copy-out and compute beside the next one's gather: 10 + max(10.4, 20)
 * + max(30.8, 10) + 20.4 = 81.2 ms.  Backward: the head (kept, no
 * copy-out) 0-40 ms and its cast to 40.6, the block's gather beside it
 * (0-20); the head's reduce-scatter 40.6-60.6; the block's copy-out and
 * backward 40.6-101.4 (the embedding's gather 40.6-50.6), its cast to
 * 102.6 and reduce-scatter 102.6-142.6; the embedding 102.6-123, which
 * waits for the block's reduce-scatter (142.6), casts to 143.2, its own
 * 143.2-163.2; the pass ends with it, 163.2 ms.  A micro-batch: 81.2 +
 * 163.2 = 244.4 ms (its traffic, 40 + 30 + 80 = 150 ms, is less), 180 ms
 * of it compute.  Step: 2 x 0.2444 + 40 x 2e7 / 1e11 = 0.4968 s.  Memory:
 * the fp32 shards
 * 2 x 4e7 and two neighbouring units gathered, 6e7: 1.4e8 weight bytes;
 * gradients 8e7 sharded and 3 x 4e7 (the block's bf16 and fp32): 2e8;
 * Adam's moments 4 x 4e7 = 1.6e8.
 *
 * At a quarter of the bandwidth the traffic sets the micro-batch: gathers
 * of 40, 80, 40 ms, reduce-scatters of 80, 160, 80; forward 40 + 80 + 40
 * + 20.4 = 180.4 ms; backward: the head 0-40.6 (its reduce-scatter
 * 40.6-120.6), the block 80-140.8 after its gather, cast to 142
 * (reduce-scatter 142-302), the embedding 142-162.4, cast 302-302.6
 * (302.6-382.6): 180.4 + 382.6 = 563 ms, but 160 + 120 + 320 = 600 ms of
 * traffic: step 2 x 0.6 + 0.008 = 1.208 s.
 *
 * Kept, stages 0 | 1 2 (4 devices): no traffic a micro-batch, but each
 * backward pass adds the gradients into fp32 ones, 5 x the bytes: loads
 * 30 + 1 = 31 and 150 + 3 = 153 ms.  The step's last reduce-scatters cast
 * from those (4 x) and its first pass cast instead of adding (2 x less):
 * 2 x the bytes, 0.4 and 1.2 ms.  Each stage's first forward pass waits
 * for its gathers, and micro-batch 0 meets both stages' waits through
 * the fill: each stage's counted S = 2 times.  Stage 0's sync: its
 * gather (10) and copy-out (0.4), twice, + its reduce-scatter (20) + its
 * step (40 x 1e7 / 2 / 1e11 = 2 ms) + 0.4 = 43.2 ms; stage 1's: the
 * block's gather 20 and its copy-out 0.8 (the head's gather 10 hides
 * behind the block's 30.8 ms, its copy-out 0.4 does not), twice, + 40 +
 * 20 + 6 + 1.2 = 109.6 ms, of which the drain hides stage 0's backward,
 * 21 ms: step (2 + 1) x 0.153 + 0.0886 = 0.5476 s.  With one micro-batch
 * (B = 2) the same terms: PyTorch's pipelining runs the last backward
 * pass without gradient sync too, so it casts its gradients into fp32
 * and the reduce-scatters cast from those: step 2 x 0.153 + 0.0886 =
 * 0.3946 s.  Stage 1's memory: weights
 * 6e7
 * gathered + 2 x 3e7 shards = 1.2e8; gradients 1.2e8 accumulated
 * unsharded in fp32 and 4e7 of the block's bf16 = 1.6e8.
 *
 * Per-operator checkpointing, resharded on the fast network, the block
 * keeping 4e5 of its 1e6 activation bytes and running 15 ms of its
 * forward again in its backward (75 ms): the head 0-40.6, its
 * reduce-scatter 40.6-60.6; the block 40.6-116.4, cast to 117.6, its
 * reduce-scatter 117.6-157.6; the embedding 117.6-138, cast 157.6-158.2,
 * its reduce-scatter 158.2-178.2: 81.2 + 178.2 = 259.4 ms a micro-batch,
 * step 0.5268 s; one micro-batch keeps 1e6 + 4e5 + 1e6.
 *
 * torchao's float8 (docs/model.md, "torchtitan's float8"), resharded on
 * the fast network, the block's weights all float8 (2e7 of them,
 * fp8_weight_bytes 4e7).  Without its all-gather the block casts its
 * weights in each forward pass, 6 bytes a weight at 1e11 B/s, 1.2 ms:
 * forward 10 + 20 + 32 + 20.4 = 82.4 ms, backward as bf16's 163.2: step
 * 2 x 0.2456 + 0.008 = 0.4992 s.  With it the block's gather carries 2e7
 * bytes (10 ms) and its copy-outs 0.4 ms, no cast forward but the
 * weights' transposed copy backward (2 bytes a weight, 0.4 ms), and
 * once a step the precomputed scales' pass over the fp32 shard (4 bytes
 * over 1e7 weights, 0.4 ms): forward 10 + max(10.4, 10) + 30.4 + 20.4 =
 * 71.2 ms; backward: the head 0-40.6 (its reduce-scatter to 60.6), the
 * block's copy-out, backward and transpose 40.6-101.4, cast to 102.6, its
 * reduce-scatter to 142.6; the embedding's copy-out and backward
 * 102.6-123, waits for 142.6, casts to 143.2 and reduce-scatters to
 * 163.2: a micro-batch 234.4 ms, step 2 x 0.2344 + 0.0084 = 0.4772 s;
 * two neighbouring units gathered, 4e7 bytes beside the fp32 shards'
 * 8e7.
 */
static void
fsdp_by_hand(void)
{
	struct network net;
	struct layer_graph g;
	struct plan_env env;
	struct plan_stage one[1] = { { 0, 2, 1, 0, 0 } };
	struct plan_stage two[2] = { { 0, 0, 1, 0, 0 }, { 1, 2, 1, 0, 0 } };
	struct plan p = { .g = &g, .d = 2, .nstages = 1, .stage = one,
	    .fsdp = PLAN_FSDP_RESHARD };
	struct plan_result r;
	struct pl_err err;

	four_devices(&net);
	three_units(&g, &env, &net, 4);
	OK(plan_evaluate(&env, &p, &r, &err) == 0, "FSDP2 resharded, one "
	    "stage");
	EQ_DBL(r.stage[0].forward_s, 0.0812, 1e-12, "FSDP2: the forward "
	    "pass waits for the first gather, then the block's, and copies "
	    "out (81.2 ms)");
	EQ_DBL(r.stage[0].load_s, 0.2444, 1e-12, "FSDP2: a micro-batch, "
	    "forward 81.2 ms and backward 163.2 ms to its last "
	    "reduce-scatter");
	EQ_DBL(r.stage[0].zero_s, 0.0644, 1e-12, "FSDP2: 64.4 ms of waits "
	    "and copies a micro-batch");
	EQ_DBL(r.stage[0].sync_s, 0.008, 1e-12, "FSDP2: Adam's step on the "
	    "shard, nothing else after the last micro-batch");
	EQ_DBL(r.step_s, 0.4968, 1e-12, "FSDP2 resharded: step 0.4968 s");
	EQ_DBL(r.stage[0].mem.weights, 1.4e8, 1e-12, "FSDP2: the fp32 "
	    "shards and two neighbouring units gathered");
	EQ_DBL(r.stage[0].mem.gradients, 2e8, 1e-12, "FSDP2: sharded "
	    "gradients and the block's bf16 and fp32 ones");
	EQ_DBL(r.stage[0].mem.optimizer, 1.6e8, 1e-12, "FSDP2: Adam's "
	    "moments on the shard");
	plan_result_release(&r);
	memset(&net, 0, sizeof net);
	net.nlevels = 1;
	level(&net, 0, 4, 2.5e8, 0);
	network_finish(&net, "net", &err);
	OK(plan_evaluate(&env, &p, &r, &err) == 0, "FSDP2 resharded, a "
	    "slow network");
	EQ_DBL(r.stage[0].load_s, 0.6, 1e-12, "FSDP2: the gathers and "
	    "reduce-scatters share the network, 600 ms a micro-batch");
	EQ_DBL(r.step_s, 1.208, 1e-12, "FSDP2 resharded, a slow network: "
	    "step 1.208 s");
	plan_result_release(&r);
	four_devices(&net);
	g.has_op_sac = 1;
	for (int i = 0; i < 3; i++)
		g.l[i].op_sac_bytes = g.l[i].activation_bytes;
	g.l[1].op_sac_bytes = 4e5;
	g.l[1].op_sac_recompute_s = 0.015;
	p.recompute = RC_OP;
	OK(plan_evaluate(&env, &p, &r, &err) == 0, "FSDP2 resharded, per "
	    "operator");
	EQ_DBL(r.stage[0].load_s, 0.2594, 1e-12, "per operator: the block's "
	    "backward 75 ms, a micro-batch 259.4 ms");
	EQ_DBL(r.step_s, 0.5268, 1e-12, "per operator: step 0.5268 s");
	EQ_DBL(r.stage[0].mem.kept, 2.4e6, 1e-12, "per operator: the "
	    "block keeps what its policy saves");
	plan_result_release(&r);
	p.fsdp = PLAN_FSDP_OFF;
	OK(plan_evaluate(&env, &p, &r, &err) < 0, "per operator without "
	    "FSDP2: refused");
	p.fsdp = PLAN_FSDP_RESHARD;
	p.recompute = RC_SELECTIVE;
	OK(plan_evaluate(&env, &p, &r, &err) < 0, "Megatron's selective "
	    "recomputation beside FSDP2: refused");
	p.recompute = RC_OP;
	g.has_op_sac = 0;
	OK(plan_evaluate(&env, &p, &r, &err) < 0, "per operator on a graph "
	    "without its columns: refused");
	p.recompute = RC_NONE;
	p.nstages = 2;
	p.stage = two;
	p.fsdp = PLAN_FSDP_KEPT;
	OK(plan_evaluate(&env, &p, &r, &err) == 0, "FSDP2 kept, two stages");
	EQ_DBL(r.stage[0].load_s, 0.031, 1e-12, "FSDP2 kept: no traffic a "
	    "micro-batch, the fp32 accumulation");
	EQ_DBL(r.stage[0].sync_s, 0.0432, 1e-12, "FSDP2 kept: stage 0's "
	    "gather and copy-out twice (both stages' in the fill), "
	    "reduce-scatter, cast and step");
	EQ_DBL(r.stage[1].sync_s, 0.1096, 1e-12, "FSDP2 kept: stage 1's");
	EQ_DBL(r.step_s, 0.5476, 1e-12, "FSDP2 kept: step 0.5476 s");
	EQ_DBL(r.stage[1].mem.weights, 1.2e8, 1e-12, "FSDP2 kept: the "
	    "stage's weights gathered beside their shards");
	EQ_DBL(r.stage[1].mem.gradients, 1.6e8, 1e-12, "FSDP2 kept: "
	    "gradients accumulated unsharded in fp32");
	plan_result_release(&r);
	env.global_batch = 2;
	OK(plan_evaluate(&env, &p, &r, &err) == 0, "FSDP2 kept, one "
	    "micro-batch");
	EQ_DBL(r.stage[0].load_s, 0.031, 1e-12, "FSDP2 kept, one "
	    "micro-batch: its gradients cast into fp32 all the same");
	EQ_DBL(r.stage[1].sync_s, 0.1096, 1e-12, "FSDP2 kept, one "
	    "micro-batch: the reduce-scatters cast from those after it");
	EQ_DBL(r.step_s, 0.3946, 1e-12, "FSDP2 kept, one micro-batch: step "
	    "0.3946 s");
	plan_result_release(&r);
	env.global_batch = 4;
	/* refused: two stages resharded, one kept, one device, the
	 * distributed optimizer */
	p.fsdp = PLAN_FSDP_RESHARD;
	OK(plan_evaluate(&env, &p, &r, &err) < 0 && strstr(err.msg,
	    "more than one stage"), "FSDP2 resharded on two stages: refused");
	p.nstages = 1;
	p.stage = one;
	p.fsdp = PLAN_FSDP_KEPT;
	OK(plan_evaluate(&env, &p, &r, &err) < 0 && strstr(err.msg,
	    "kept gathered on one stage"), "FSDP2 kept on one stage: refused");
	p.fsdp = PLAN_FSDP_RESHARD;
	p.d = 1;
	OK(plan_evaluate(&env, &p, &r, &err) < 0 && strstr(err.msg,
	    "over one device"), "FSDP2 over one device: refused");
	p.d = 2;
	p.distopt = 1;
	OK(plan_evaluate(&env, &p, &r, &err) < 0 && strstr(err.msg,
	    "replaces Megatron's"), "FSDP2 with the distributed optimizer: "
	    "refused");
	p.distopt = 0;
	/* torchao's float8 */
	g.var_fp8 = FP8_FLOAT8;
	g.l[1].fp8_weight_bytes = 4e7;
	OK(plan_evaluate(&env, &p, &r, &err) == 0, "float8, resharded");
	EQ_DBL(r.stage[0].forward_s, 0.0824, 1e-12, "float8: the block's "
	    "weights cast in its forward pass, 1.2 ms");
	EQ_DBL(r.step_s, 0.4992, 1e-12, "float8: step 0.4992 s");
	plan_result_release(&r);
	p.fp8_param_gather = 1;
	OK(plan_evaluate(&env, &p, &r, &err) == 0, "float8, its all-gather");
	EQ_DBL(r.stage[0].forward_s, 0.0712, 1e-12, "float8 all-gather: "
	    "the block's gather and copy-out halved, no cast (71.2 ms)");
	EQ_DBL(r.stage[0].load_s, 0.2344, 1e-12, "float8 all-gather: a "
	    "micro-batch 234.4 ms, the transposes in its backward");
	EQ_DBL(r.stage[0].sync_s, 0.0084, 1e-12, "float8 all-gather: the "
	    "step and the scales' pass over the shard");
	EQ_DBL(r.step_s, 0.4772, 1e-12, "float8 all-gather: step 0.4772 s");
	EQ_DBL(r.stage[0].mem.weights, 1.2e8, 1e-12, "float8 all-gather: "
	    "the gathered units a byte a float8 weight");
	plan_result_release(&r);
	p.fsdp = PLAN_FSDP_OFF;
	p.fp8_param_gather = 0;
	OK(plan_evaluate(&env, &p, &r, &err) < 0 && strstr(err.msg,
	    "beside FSDP2 only"), "float8 without FSDP2: refused");
	p.fsdp = PLAN_FSDP_RESHARD;
	g.var_fp8 = FP8_TENSORWISE;
	OK(plan_evaluate(&env, &p, &r, &err) < 0 && strstr(err.msg,
	    "Transformer Engine"), "Transformer Engine's FP8 beside FSDP2: "
	    "refused");
	g.var_fp8 = FP8_NONE;
	p.fp8_param_gather = 1;
	OK(plan_evaluate(&env, &p, &r, &err) < 0 && strstr(err.msg,
	    "float8 all-gather"), "FSDP2's float8 all-gather on a bf16 "
	    "graph: refused");
	layers_release(&g);
}

/*
 * FSDP2 kept and interleaved by hand (torchtitan's Interleaved1F1B; plan.c,
 * fsdp_stage_cost): four rows, an embedding (10 ms forward, 20 backward,
 * 2e7 parameter bytes), two blocks (30, 60, 4e7) and a head (20, 40,
 * 2e7), two stages of two rows, v = 2 with the ends counted (a row a
 * chunk), d = 2 on fsdp_by_hand's network (gathers of 10, 20, 20, 10 ms,
 * reduce-scatters of 20, 40, 40, 20, copy-outs of 0.4, 0.8, 0.8, 0.4),
 * B = 4 (m = 2).  Each chunk is a model part of its own, so its first
 * forward pass waits for its own first gather: stage 0's chunks 10 +
 * 10.4 and 20 + 30.8, 71.2 ms for 40 ms of passes, 31.2 ms of waits
 * (one chain over both rows, as without interleaving: 10 + max(10.4, 20)
 * + 30.8 = 60.8, 20.8 ms); stage 1's 20 + 30.8 and 10 + 20.4, 31.2 ms of
 * waits.  Loads as kept: 120 + 3 and 150 + 3 ms (the fp32 accumulation,
 * 5 x 6e7 / 1e11).  Each chunk reduces after its own last backward pass,
 * chunk k's k S = 2k chunk-backward passes before the stage's end (83 /
 * 2 = 41.5 ms each on stage 0, 103 / 2 = 51.5 on stage 1): stage 0's
 * chunk 1 (its cast 0.8 ms, reduce-scatter 40) runs 83 ms before the end
 * and hides, its chunk 0 (0.4, 20) ends 20.4 ms past it; stage 1's chunk
 * 1 (0.4, 20) hides, chunk 0 (0.8, 40) 40.8 ms.  Syncs: the waits,
 * each stage's twice (micro-batch 0 meets both stages' in the fill: 62.4
 * ms), those, Adam on 3e7 shard bytes 6 ms: 88.8 and 109.2 ms, stage 1's
 * less the drain's credit, stage 0's backward over v, 41.5.  Step: (2 +
 * 1/2) x 0.153 + 0.0888 = 0.4713 s (every reduce-scatter after the
 * stage's end, as without interleaving: 129.6 ms and 0.5121 s).
 *
 * Without the ends counted, on six rows (the embedding, four blocks, the
 * head; stages 0-2 and 3-5, a block a chunk): stage 0's chunks are the
 * embedding with the first block, 10 + max(10.4, 20) + 30.8, and the
 * second block, 20 + 30.8, 41.6 ms of waits for 70 of passes; stage 1's
 * the third block, 20 + 30.8, and the fourth with the head, which counts
 * for no layer and so ends the last chunk: 20 + max(30.8, 10) + 20.4, 42
 * ms of waits for 80 (each counted twice, as above).
 */
static void
fsdp_interleaved_by_hand(void)
{
	struct network net;
	struct layer_graph g;
	struct plan_env env;
	struct plan_stage two[2] = { { 0, 1, 1, 0, 0 }, { 2, 3, 1, 0, 0 } };
	struct plan p = { .g = &g, .d = 2, .nstages = 2, .stage = two,
	    .v = 2, .ends_in_split = 1, .fsdp = PLAN_FSDP_KEPT };
	struct plan_result r;
	struct pl_err err;

	four_devices(&net);
	three_units(&g, &env, &net, 4);
	layers_release(&g);
	graph_alloc(&g, 4);
	set_row(&g, 0, 0.01, 0.02, 2e7, 1e6, 0);
	set_row(&g, 1, 0.03, 0.06, 4e7, 1e6, 0);
	set_row(&g, 2, 0.03, 0.06, 4e7, 1e6, 0);
	set_row(&g, 3, 0.02, 0.04, 2e7, 1e6, 0);
	OK(plan_evaluate(&env, &p, &r, &err) == 0, "FSDP2 kept, interleaved");
	EQ_DBL(r.stage[0].param_exposed_s, 0.0624, 1e-12, "FSDP2 "
	    "interleaved: each chunk's first forward pass waits for its own "
	    "first gather (31.2 ms, both stages' in the fill)");
	EQ_DBL(r.stage[0].sync_s, 0.0888, 1e-12, "FSDP2 interleaved: stage "
	    "0's waits, its chunk 0's cast and reduce-scatter (chunk 1's hide "
	    "in the drain) and its step");
	EQ_DBL(r.stage[1].load_s, 0.153, 1e-12, "FSDP2 interleaved: stage 1 "
	    "a micro-batch");
	EQ_DBL(r.step_s, 0.4713, 1e-12, "FSDP2 interleaved: step 0.4713 s");
	plan_result_release(&r);
	p.v = 1;
	OK(plan_evaluate(&env, &p, &r, &err) == 0, "FSDP2 kept, the same "
	    "stages not interleaved");
	EQ_DBL(r.stage[0].param_exposed_s, 0.0416, 1e-12, "FSDP2: one chain "
	    "over the stage's rows (20.8 ms, twice)");
	plan_result_release(&r);
	layers_release(&g);
	graph_alloc(&g, 6);
	set_row(&g, 0, 0.01, 0.02, 2e7, 1e6, 0);
	for (size_t i = 1; i < 5; i++)
		set_row(&g, i, 0.03, 0.06, 4e7, 1e6, 0);
	set_row(&g, 5, 0.02, 0.04, 2e7, 1e6, 0);
	two[0] = (struct plan_stage){ 0, 2, 1, 0, 0 };
	two[1] = (struct plan_stage){ 3, 5, 1, 0, 0 };
	p.v = 2;
	p.ends_in_split = 0;
	OK(plan_evaluate(&env, &p, &r, &err) == 0, "FSDP2 kept, interleaved, "
	    "the ends not counted");
	EQ_DBL(r.stage[0].param_exposed_s, 0.0832, 1e-12, "FSDP2 "
	    "interleaved: the embedding in the first chunk (41.6 ms, twice)");
	EQ_DBL(r.stage[1].param_exposed_s, 0.084, 1e-12, "FSDP2 "
	    "interleaved: the head in the last chunk, not one of its own "
	    "(42 ms, twice)");
	plan_result_release(&r);
	layers_release(&g);
}

/*
 * HSDP by hand: the three rows of fsdp_by_hand resharded on one stage, d
 * = 4 on two nodes of two devices (inside 1e10 B/s, between 1e9, no
 * latency), B = 8 (m = 2).  Over all four (FSDP2), an all-reduce of X
 * bytes takes X / 1e10 inside the node and X / 2 / 1e9 between (each
 * device's half), 0.6 X / 1e9: gathers of 6, 12, 6 ms, reduce-scatters of
 * 12, 24, 12; the copies as there (copy-outs 0.4, 0.8, 0.4 ms, casts
 * 0.6, 1.2, 0.6).  Forward 6 + max(10.4, 12) + 30.8 + 20.4 = 69.2 ms;
 * backward: the head 0-40.6 (its reduce-scatter 40.6-52.6), the block
 * 40.6-101.4, cast to 102.6 (102.6-126.6), the embedding 102.6-123,
 * waiting for the block's to 126.6, cast to 127.2 (127.2-139.2): 139.2
 * ms; a micro-batch 208.4 ms; step 2 x 0.2084 + 40 x 4e7 / 4 / 1e11 =
 * 0.4208 s.  HSDP over shard groups of the two devices of a node
 * (fsdp_shard 2): gathers of 1, 2, 1 ms, reduce-scatters of 2, 4, 2, each
 * then the shard's 2 p / 2 bytes all-reduced across the nodes, 20, 40,
 * 20 ms: reductions of 22, 44, 22.  Forward 1 + 10.4 + 30.8 + 20.4 = 62.6
 * ms; backward: the head 0-40.6 (40.6-62.6), the block 40.6-101.4, cast
 * to 102.6 (102.6-146.6), the embedding 102.6-123, cast 146.6-147.2, then
 * 147.2-169.2: 169.2 ms; a micro-batch
 * 231.8 ms; step 2 x 0.2318 + 40 x 4e7 / 2 / 1e11 = 0.4716 s.  Weights:
 * 2 x 8e7 / 2 shards + two units 6e7 = 1.4e8.
 */
static void
hsdp_by_hand(void)
{
	struct network net;
	struct layer_graph g;
	struct plan_env env;
	struct plan_stage one[1] = { { 0, 2, 1, 0, 0 } };
	struct plan p = { .g = &g, .d = 4, .nstages = 1, .stage = one,
	    .fsdp = PLAN_FSDP_RESHARD };
	struct plan_result r;
	struct pl_err err;

	two_nodes(&net);
	three_units(&g, &env, &net, 8);
	OK(plan_evaluate(&env, &p, &r, &err) == 0, "FSDP2 over two nodes");
	EQ_DBL(r.stage[0].load_s, 0.2084, 1e-12, "FSDP2 over two nodes: "
	    "208.4 ms a micro-batch");
	EQ_DBL(r.step_s, 0.4208, 1e-12, "FSDP2 over two nodes: step "
	    "0.4208 s");
	plan_result_release(&r);
	p.fsdp_shard = 2;
	OK(plan_evaluate(&env, &p, &r, &err) == 0, "HSDP, a node a shard "
	    "group");
	EQ_DBL(r.stage[0].forward_s, 0.0626, 1e-12, "HSDP: gathers inside "
	    "the node, 62.6 ms forward");
	EQ_DBL(r.stage[0].load_s, 0.2318, 1e-12, "HSDP: the shards' "
	    "all-reduce across the nodes after each reduce-scatter, 231.8 "
	    "ms");
	EQ_DBL(r.step_s, 0.4716, 1e-12, "HSDP: step 0.4716 s");
	EQ_DBL(r.stage[0].mem.weights, 1.4e8, 1e-12, "HSDP: the shards over "
	    "the group's two devices, and two units gathered");
	plan_result_release(&r);
	p.fsdp_shard = 3;
	OK(plan_evaluate(&env, &p, &r, &err) < 0 && strstr(err.msg,
	    "does not divide d"), "HSDP: a shard group of 3 of 4: refused");
	layers_release(&g);
}

/*
 * FSDP2 with experts by hand (torchtitan's efsdp mesh; docs/model.md,
 * "FSDP2"): the three rows of fsdp_by_hand, the block's 4e7 parameter
 * bytes half an expert's, at e = 2 (two expert ranks a replica, w = 2),
 * d = 2, on hsdp_by_hand's two nodes of two devices (inside 1e10 B/s,
 * between 1e9, no latency), B = 4 (m = 2).  The dense weights are
 * sharded over all four devices, an all-reduce of X bytes 0.6 X / 1e9 (as
 * there); an expert's over the d = 2 devices of its expert rank, one a
 * node, X / 1e9.  Gathers: the embedding 6 ms, the block 6 + 10 = 16,
 * the head 6; reduce-scatters 12, 12 + 20 = 32, 12; copies as there.
 * Forward 6 + max(10.4, 16) + 30.8 + 20.4 = 73.2 ms; backward: the head
 * 0-40.6 (its reduce-scatter 40.6-52.6), the block 40.6-101.4, cast to
 * 102.6 (102.6-134.6), the embedding 102.6-123, waiting for the block's
 * to 134.6, cast to 135.2 (135.2-147.2): a micro-batch 220.4 ms.  Adam
 * over the shards, 40 bytes a parameter: the dense 6e7 bytes over 4 and
 * the experts' 2e7 over 2, 2.5e7 bytes: 5 ms; step 2 x 0.2204 + 0.005 =
 * 0.4458 s.  Weights 2 x 2.5e7 + two units 6e7 = 1.1e8; gradients 2 x
 * 2.5e7 + 3 x 4e7 = 1.7e8; Adam's moments 4 x 2.5e7 = 1e8.
 *
 * HSDP over shard groups of one replica (torchtitan's dp_shard 2 of
 * which ep takes both, efsdp 1, dp_replicate 2): the dense weights over
 * a replica's two expert ranks, a node, X / 1e10: gathers of 1 ms each,
 * reduce-scatters of 2, then the shard's 2 x 2e7 / 2 bytes all-reduced
 * across the nodes, 20 ms; the experts' over one device, no gather and
 * no reduce-scatter, their whole 4e7 fp32 bytes all-reduced across the
 * nodes, 40 ms: reductions of 22, 62, 22.  Forward 1 + 10.4 + 30.8 +
 * 20.4 = 62.6 ms; backward: the head 0-40.6 (40.6-62.6), the block
 * 40.6-101.4, cast to 102.6 (102.6-164.6), the embedding 102.6-123,
 * waiting to 164.6, cast to 165.2 (165.2-187.2): 249.8 ms a
 * micro-batch; Adam on 6e7 / 2 + 2e7 bytes, 10 ms: step 0.5096 s.
 */
static void
fsdp_experts_by_hand(void)
{
	struct network net;
	struct layer_graph g;
	struct plan_env env;
	struct plan_stage one[1] = { { 0, 2, 1, 0, 0 } };
	struct plan p = { .g = &g, .d = 2, .nstages = 1, .stage = one,
	    .fsdp = PLAN_FSDP_RESHARD };
	struct plan_result r;
	struct pl_err err;

	two_nodes(&net);
	three_units(&g, &env, &net, 4);
	g.has_variant = 1;
	g.var_e = 2;
	g.var_t = g.var_c = g.var_b = 1;
	g.var_ep_batch = 1;
	g.l[1].dense_parameter_bytes = 2e7;
	OK(plan_evaluate(&env, &p, &r, &err) == 0, "FSDP2 with experts");
	EQ_DBL(r.stage[0].forward_s, 0.0732, 1e-12, "FSDP2 with experts: "
	    "the block's gather is its dense weights' over four devices and "
	    "its experts' over two, 73.2 ms forward");
	EQ_DBL(r.stage[0].load_s, 0.2204, 1e-12, "FSDP2 with experts: "
	    "220.4 ms a micro-batch");
	EQ_DBL(r.stage[0].optimizer_s, 0.005, 1e-12, "FSDP2 with experts: "
	    "Adam on the dense weights' quarter and the experts' half");
	EQ_DBL(r.step_s, 0.4458, 1e-12, "FSDP2 with experts: step 0.4458 s");
	EQ_DBL(r.stage[0].mem.weights, 1.1e8, 1e-12, "FSDP2 with experts: "
	    "the fp32 shards of both kinds and two units gathered");
	EQ_DBL(r.stage[0].mem.gradients, 1.7e8, 1e-12, "FSDP2 with experts: "
	    "the gradients' shards and the block's bf16 and fp32 ones");
	EQ_DBL(r.stage[0].mem.optimizer, 1e8, 1e-12, "FSDP2 with experts: "
	    "Adam's moments on both shards");
	plan_result_release(&r);
	p.fsdp_shard = 1;
	OK(plan_evaluate(&env, &p, &r, &err) == 0, "HSDP with experts, a "
	    "replica a shard group");
	EQ_DBL(r.stage[0].forward_s, 0.0626, 1e-12, "HSDP with experts: "
	    "the dense weights gathered inside the node, the experts' not at "
	    "all");
	EQ_DBL(r.stage[0].load_s, 0.2498, 1e-12, "HSDP with experts: the "
	    "experts' whole gradients all-reduced across the nodes, 249.8 ms");
	EQ_DBL(r.step_s, 0.5096, 1e-12, "HSDP with experts: step 0.5096 s");
	plan_result_release(&r);
	layers_release(&g);
}

/*
 * The optimizer step's shards by hand, on one level of 1e9 B/s, fp32
 * gradients (Adam: 2 x 4 + 30 = 38 bytes a parameter): two rows of 2e6
 * parameter bytes (1e6 parameters) each, half of each dense, at e = 2
 * (w = 2 devices a stage copy).  ZeRO-1 over z = 2 copies halves every
 * shard: 2e6 x 38 / 2 / 1e9 = 38 ms.  The distributed optimizer over
 * d = 2 shards the dense parameters over d e = 4 and the experts' over
 * d = 2: (1e6 / 4 + 1e6 / 2) x 38 / 1e9 = 28.5 ms.
 */
static void
optimizer_shards(void)
{
	struct network net;
	struct layer_graph g;
	struct plan_env env;
	struct plan_stage st[1] = { { 0, 1, 2, 1, 0 } };
	struct plan p = { .g = &g, .d = 1, .nstages = 1, .stage = st };
	struct plan_result r;
	struct pl_err err;

	four_devices(&net);
	graph_alloc(&g, 2);
	g.has_variant = 1;
	g.var_e = 2;
	g.var_t = g.var_c = g.var_b = 1;
	for (size_t i = 0; i < 2; i++) {
		set_row(&g, i, 0.01, 0.02, 2e6, 1e7, i ? 1e6 : 0);
		g.l[i].dense_parameter_bytes = 1e6;
	}
	env = (struct plan_env){ .net = &net, .devices = 4,
	    .memory_bytes = 1e12, .optimizer = OPT_ADAM, .global_batch = 4,
	    .grad_bytes_per_param = 4, .grad_copies = 1,
	    .optimizer_Bps = 1e9 };
	OK(plan_evaluate(&env, &p, &r, &err) == 0, "ZeRO-1 over two copies");
	EQ_DBL(r.stage[0].optimizer_s, 0.038, 1e-12,
	    "ZeRO-1 over z = 2: half the parameters a device, 38 ms");
	plan_result_release(&r);
	st[0] = (struct plan_stage){ 0, 1, 1, 0, 0 };
	p.d = 2;
	p.distopt = 1;
	OK(plan_evaluate(&env, &p, &r, &err) == 0, "distributed optimizer, "
	    "e = 2");
	EQ_DBL(r.stage[0].optimizer_s, 0.0285, 1e-12, "dense over d e = 4, "
	    "experts over d = 2: 28.5 ms");
	plan_result_release(&r);
	layers_release(&g);
}

/*
 * The drain's credit in the cell floors (next_cell, ends_cannot_win):
 * each instance's optimum is a two-stage plan whose cell a floor without
 * the credit prices above a plan found first, so the search would stop
 * short of it.  Rows: forward, backward, parameter bytes; no sends.
 */
static void
drain_floors(void)
{
	struct dp_options o = { .recompute_min = RC_NONE,
	    .recompute_max = RC_NONE, .zero = DP_ZERO_OFF, .zmax = 1,
	    .vmax = 1 };
	const struct layer_graph *gp[1];
	struct network net;
	struct layer_graph g;
	struct plan_env env;
	struct dp_stats st;
	struct plan best;
	double step;

	/* the mean floor: 4 devices, B = 2; syncs over 2 copies 0.5 and
	 * 3.5 s.  d 2 x 1 stage: 1 x 5 + 4 = 9 (its bound, 9, first);
	 * d 2 x 2 stages: 2 x 4 + max(0.5, 3.5 - 3) = 8.5, whose mean sync
	 * (2) without the credit (4/2) would bound it at 10 */
	memset(&net, 0, sizeof net);
	net.nlevels = 1;
	level(&net, 0, 4, 1e6, 0);
	network_finish(&net, "net", NULL);
	graph_alloc(&g, 2);
	set_row(&g, 0, 1, 3, 5e5, 0, 0);
	set_row(&g, 1, 0.5, 0.5, 3.5e6, 0, 0);
	env = (struct plan_env){ .net = &net, .devices = 4,
	    .memory_bytes = 1e18, .optimizer = OPT_ADAM, .global_batch = 2,
	    .grad_bytes_per_param = 2, .grad_copies = 1 };
	gp[0] = &g;
	OK(dp_solve(&env, gp, 1, &o, &best, &step, &st, NULL) == 0 &&
	    best.d == 2 && best.nstages == 2, "mean floor: the drain's "
	    "credit keeps the two-stage plan");
	EQ_DBL(step, 2 * 4 + 0.5, 1e-12, "mean floor: 2 x 4 + stage 0's sync");
	free(best.stage);
	layers_release(&g);

	/* the last stage's floor: 2 devices, B = 10, the optimizer step
	 * (17 bytes a parameter byte at 1.7e7 B/s) 0.001 and 5 s, the
	 * network too slow for d 2.  One stage: 10 x 4.2 + 5.001 (its
	 * bound 42, first); two: 11 x 4 + max(0.001, 5 - 3) = 46, its
	 * bound 44 + the last row's 5 without the credit (44 / 11) */
	memset(&net, 0, sizeof net);
	net.nlevels = 1;
	level(&net, 0, 2, 1e5, 0);
	network_finish(&net, "net", NULL);
	graph_alloc(&g, 2);
	set_row(&g, 0, 1, 3, 1e3, 0, 0);
	set_row(&g, 1, 0.1, 0.1, 5e6, 0, 0);
	env = (struct plan_env){ .net = &net, .devices = 2,
	    .memory_bytes = 1e18, .optimizer = OPT_ADAM, .global_batch = 10,
	    .grad_bytes_per_param = 2, .grad_copies = 1,
	    .optimizer_Bps = 1.7e7 };
	gp[0] = &g;
	OK(dp_solve(&env, gp, 1, &o, &best, &step, &st, NULL) == 0 &&
	    best.d == 1 && best.nstages == 2, "tail floor: the drain's "
	    "credit keeps the two-stage plan");
	EQ_DBL(step, 11 * 4 + 5 - 3, 1e-12, "tail floor: 11 x 4 + 5 - 3");
	free(best.stage);
	layers_release(&g);

	/* stage 0 without parameters: the latency floor (2 x 8 s over 2
	 * copies) is a later stage's, which the drain credits by all of
	 * stage 0's backward pass (5 s), not half the slowest load.  Memory
	 * takes two stages; B = 4.  d 1: 5 x 6 = 30 (bound 30, first); d 2:
	 * 3 x 6 + (16 - 5) = 29 */
	memset(&net, 0, sizeof net);
	net.nlevels = 1;
	level(&net, 0, 4, 1e15, 8);
	network_finish(&net, "net", NULL);
	graph_alloc(&g, 2);
	set_row(&g, 0, 1, 5, 0, 1e6, 0);
	set_row(&g, 1, 0.1, 0.1, 1e3, 4e6, 0);
	env = (struct plan_env){ .net = &net, .devices = 4,
	    .memory_bytes = 4.5e6, .optimizer = OPT_ADAM, .global_batch = 4,
	    .grad_bytes_per_param = 2, .grad_copies = 1 };
	gp[0] = &g;
	OK(dp_solve(&env, gp, 1, &o, &best, &step, &st, NULL) == 0 &&
	    best.d == 2 && best.nstages == 2, "stage 0 without parameters: "
	    "the latency floor takes the whole credit");
	EQ_DBL(step, 3 * 6 + 16 - 5, 1e-9, "3 x 6 + 16 - 5");
	free(best.stage);
	layers_release(&g);
}

/*
 * The combined 1F1B's pair of passes (plan_ep_pair_s) against the longest
 * path through its graph, built here from Megatron-Core's issue order
 * (core_v0.15.0, TransformerLayerSchedulePlan.run): nine passes, each
 * after the one before it on its stream and, but the experts' weights'
 * gradient (backward_dw, no event), the one before it on its
 * micro-batch.  By hand: no exchange, the computations in a row; a short
 * exchange hidden behind them; a long one, the exchange stream's four in
 * a row; one longer than the attention; the weights' gradient beside the
 * dispatch backward; the combine's compute beside the attention.
 */
static double
pair_by_paths(const double *dur)
{
	/* 0 combine backward, 1 attention forward, 2 dispatch forward,
	 * 3 experts' input gradient, 4 their weights' gradient, 5 dispatch
	 * backward, 6 experts forward, 7 combine forward, 8 attention
	 * backward; edges (from, to) */
	static const int edge[][2] = {
		{ 0, 2 }, { 2, 5 }, { 5, 7 },		/* exchange stream */
		{ 1, 3 }, { 3, 4 }, { 4, 6 }, { 6, 8 },	/* compute stream */
		{ 1, 2 }, { 2, 6 }, { 6, 7 },		/* micro-batch j */
		{ 0, 3 }, { 3, 5 }, { 5, 8 },		/* micro-batch i */
	};
	double end[9], last = 0;

	for (int k = 0; k < 9; k++) {	/* 0..8 is a topological order */
		double start = 0;

		for (size_t e = 0; e < sizeof edge / sizeof edge[0]; e++)
			if (edge[e][1] == k)
				start = fmax(start, end[edge[e][0]]);
		end[k] = start + dur[k];
		last = fmax(last, end[k]);
	}
	return last;
}

static double
pair_of(double af, double eb, double ew, double ef, double ab, double x,
    double cf, double cb)
{
	struct ep_pair p = { .attn_f = af, .experts_b = eb, .experts_w = ew,
		.experts_f = ef, .attn_b = ab, .exchange = x, .combine_f = cf,
		.combine_b = cb };

	return plan_ep_pair_s(&p);
}

static void
ep_pair_by_hand(void)
{
	int agree = 0;

	EQ_DBL(pair_of(2, 1, 0, 1, 2, 0, 0, 0), 6, 1e-15,
	    "combined 1F1B: no exchange, the passes in a row");
	EQ_DBL(pair_of(2, 1, 0, 1, 2, 0.5, 0, 0), 6, 1e-15,
	    "combined 1F1B: an exchange shorter than each computation, hidden");
	EQ_DBL(pair_of(0.1, 0.1, 0, 0.1, 0.1, 1, 0, 0), 4, 1e-15,
	    "combined 1F1B: a long exchange, its four in a row");
	/* the attention's forward (2) hides the combine's backward (3)
	 * only in part: the dispatch waits for it, and the rest follows */
	EQ_DBL(pair_of(2, 1, 0, 1, 2, 3, 0, 0), 12, 1e-15,
	    "combined 1F1B: an exchange longer than the attention");
	/* experts' backward 2 of which 1.5 their weights': the dispatch
	 * backward runs 1-1.5 (after the input's gradient, 0.5-1, and the
	 * dispatch forward, 0.5-1), beside the weights' gradient (1-2.5);
	 * the experts' forward 2.5-2.6, the combine 2.6-3.1 (held by the
	 * weights' gradient, the dispatch backward would run 2.5-3 and the
	 * pair end at 3.5) */
	EQ_DBL(pair_of(0.5, 2, 1.5, 0.1, 0.1, 0.5, 0, 0), 3.1, 1e-15,
	    "combined 1F1B: the experts' weights' gradient holds nothing "
	    "on the exchange's stream");
	/* the combine's own compute on the exchange's stream: its
	 * forward's 1 beside the attention's backward 2 */
	EQ_DBL(pair_of(1, 1, 0, 1, 2, 0, 1, 0), 5, 1e-15,
	    "combined 1F1B: the combine's compute beside the attention");
	for (int it = 0; it < 1000; it++) {
		double af = uniform(), eb = uniform(), ew = eb * uniform(),
		    ef = uniform(), ab = uniform(), x = 2 * uniform(),
		    cf = 0.2 * uniform(), cb = 0.2 * uniform();
		double dur[9] = { x + cb, af, x, eb - ew, ew, x, ef, x + cf,
			ab };

		agree += fabs(pair_of(af, eb, ew, ef, ab, x, cf, cb) -
		    pair_by_paths(dur)) <= 1e-12;
	}
	EQ_INT(agree, 1000, "combined 1F1B: the pair is its graph's longest "
	    "path on 1,000 random pairs");
}

int
main(void)
{
	recompute_collectives_and_scatter_gather();
	placement_by_hand();
	optimizer_shards();
	fsdp_by_hand();
	fsdp_experts_by_hand();
	fsdp_interleaved_by_hand();
	hsdp_by_hand();
	context_parallel_group();
	alpha_floor();
	beta_floor();
	hand_example();
	network_awareness();
	zero_when_needed();
	block_by_hand();
	megatron_modes();
	random_instances();
	drain_floors();
	/* last: its draws leave the random instances as they were */
	ep_pair_by_hand();
	return tap_done();
}
