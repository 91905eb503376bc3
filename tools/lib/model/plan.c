/* plan.c - the default-mode plan evaluator (docs/model.md, "Plans"). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/config.h"
#include "model/plan.h"
#include "model/routing.h"
#include "sim/form.h"

/* A V-shaped schedule's form, in a cell (plan_cell.form) or shared
 * (plan_shape_cache.forms). */
struct plan_form_entry {
	int schedule;
	struct pipe_form f;
	double floor;			/* pipe_form_floor at its pairs' share */
};
struct plan_form_memo {
	const struct pipe_form *form;	/* NULL: not yet */
	const struct pipe_form *sampled; /* its peaks, cheaper */
};

static const struct pipe_form *cell_form(const struct plan_cell *c,
    int sampled);

#define NZ (PLAN_ZLOG_MAX + 1)

static int
zlog(long z)
{
	int k = 0;

	while ((1L << k) < z)
		k++;
	return k;
}

/* Is cost a worse than cost b (per byte first, then latency)? */
static int
costlier(struct net_cost a, struct net_cost b)
{
	if (a.beta_s_per_byte != b.beta_s_per_byte)
		return a.beta_s_per_byte > b.beta_s_per_byte;
	return a.alpha_s > b.alpha_s;
}

/*
 * An intra-layer group: `n` members `stride` apart inside a block of w
 * devices.  Blocks start at multiples of w; the cost is the worst over
 * the block positions of one period of the network (every position, when
 * w divides the node or the node divides w, gives the same).  With a
 * routing, the all-to-all is the hierarchical dispatch (routing.h).
 */
static struct net_cost
group_cost_routed(const struct plan_env *env, long w, long n, long stride,
    enum net_coll kind, const struct routing *rt)
{
	const struct network *net = env->net;
	struct net_cost worst = { 0, 0 };
	long period = net->span[net->nlevels - 1], *devs;

	if (n <= 1)
		return worst;
	devs = xcalloc((size_t)n, sizeof *devs);
	for (long o = 0; o < period && o + w <= net->ndevices; o += w) {
		struct net_shape s;
		struct net_cost c;

		for (long i = 0; i < n; i++)
			devs[i] = o + i * stride;
		if (net_shape_of(net, devs, (size_t)n, &s, NULL) < 0)
			break;
		c = rt ? routing_dispatch_hierarchical(net, &s, rt) :
		    net_collective(net, kind, &s);
		if (costlier(c, worst))
			worst = c;
		if (o / w > 4096)	/* a period this long repeats itself */
			break;
	}
	free(devs);
	return worst;
}

static struct net_cost
group_cost(const struct plan_env *env, long w, long n, long stride,
    enum net_coll kind)
{
	return group_cost_routed(env, w, n, stride, kind, NULL);
}

static double *
prefix(const struct layer_graph *g, size_t off)
{
	double *pf = xcalloc(g->n + 1, sizeof *pf);

	for (size_t i = 0; i < g->n; i++)
		pf[i + 1] = pf[i] + *(const double *)((const char *)&g->l[i] + off);
	return pf;
}

/* Log2 of n, rounded down (n >= 1). */
static int
ilog2(size_t n)
{
	int k = 0;

	while (n >>= 1)
		k++;
	return k;
}

/*
 * What rows keep and run again under recomputation kind rc: prefix sums,
 * and a sparse table of the largest activations a row rebuilds while its
 * backward runs (what it keeps subtracted), for range maxima in O(1).
 */
static void
recompute_tables(struct plan_variant *v, int rc)
{
	const struct layer_graph *g = v->g;
	int levels = ilog2(g->n) + 1;

	v->pf_kept[rc] = xcalloc(g->n + 1, sizeof(double));
	v->pf_rerun[rc] = xcalloc(g->n + 1, sizeof(double));
	v->working[rc] = xcalloc((size_t)levels, sizeof(double *));
	v->kept_max[rc] = xcalloc((size_t)levels, sizeof(double *));
	for (int j = 0; j < levels; j++) {
		v->working[rc][j] = xcalloc(g->n, sizeof(double));
		v->kept_max[rc][j] = xcalloc(g->n, sizeof(double));
	}
	for (size_t i = 0; i < g->n; i++) {
		const struct layer *L = &g->l[i];
		double kept = mem_row_kept(L, rc);

		v->pf_kept[rc][i + 1] = v->pf_kept[rc][i] + kept;
		v->pf_rerun[rc][i + 1] = v->pf_rerun[rc][i] +
		    mem_row_rerun_s(L, rc);
		v->working[rc][0][i] = fmax(0, L->activation_bytes - kept);
		v->kept_max[rc][0][i] = kept;
	}
	for (int j = 1; j < levels; j++)
		for (size_t i = 0; i + ((size_t)1 << j) <= g->n; i++) {
			size_t h = i + ((size_t)1 << (j - 1));

			v->working[rc][j][i] = fmax(v->working[rc][j - 1][i],
			    v->working[rc][j - 1][h]);
			v->kept_max[rc][j][i] = fmax(v->kept_max[rc][j - 1][i],
			    v->kept_max[rc][j - 1][h]);
		}
}

/* The largest value of a sparse table t over rows [first, last]. */
static double
range_max(double *const *t, size_t first, size_t last)
{
	int j = ilog2(last - first + 1);

	return fmax(t[j][first], t[j][last + 1 - ((size_t)1 << j)]);
}

static double
working_max(const struct plan_variant *v, int rc, size_t first, size_t last)
{
	return range_max(v->working[rc], first, last);
}

struct plan_mode
plan_mode_of(const struct plan *p)
{
	struct plan_mode m = { p->recompute, p->v > 1 ? p->v : 1, p->distopt,
		p->overlap_grad, p->overlap_param, p->ends_in_split,
		p->tp_overlap, p->recompute_layers, p->fp8_param_gather,
		p->schedule, p->fsdp, p->fsdp ? p->fsdp_shard : 0,
		p->stage_major, p->ep_overlap };

	return m;
}

const char *
plan_fsdp_refused(const struct layer_graph *g)
{
	if (g->var_fp8 != FP8_NONE && !FP8_TORCHAO(g->var_fp8))
		return "Transformer Engine's FP8 recipe (torchtitan runs "
		    "torchao's float8 beside FSDP2: recipe float8)";
	return NULL;
}

const char *
plan_fp8_refused(const struct layer_graph *g, int fsdp, int distopt,
    int fp8_gather)
{
	int recipe = g->var_fp8;

	if (FP8_TORCHAO(recipe) && !fsdp)
		return "torchao's float8 (recipe float8) runs in torchtitan, "
		    "priced beside FSDP2 only (fsdp 1 or 2)";
	for (size_t i = 0; FP8_TORCHAO(recipe) && i < g->n; i++)
		if (g->l[i].parameter_bytes > g->l[i].dense_parameter_bytes)
			return "torchao's float8 on experts (torchtitan's "
			    "Float8GroupedMM, a prototype, is not priced)";
	return fp8_gather ? plan_fp8_gather_refused(recipe, fsdp, distopt) :
	    NULL;
}

const char *
plan_fp8_gather_refused(int recipe, int fsdp, int distopt)
{
	if (fsdp && !FP8_TORCHAO(recipe))
		return "FSDP2's float8 all-gather needs torchao's float8 "
		    "(recipe float8)";
	if (!fsdp && (!distopt || recipe == FP8_NONE))
		return "the FP8 parameter gather needs the distributed "
		    "optimizer and an FP8 graph";
	return NULL;
}

int
plan_megatron_order_differs(const struct layer_graph *g)
{
	long t = layers_var(g, g->var_t, 1);
	long cp = layers_context_ranks(g);
	long ep = layers_expert_ranks(g) > 1 ? layers_expert_ranks(g) : 1;
	long etp = ep > 1 ? layers_expert_t(g) : t;

	return t * cp != etp * ep;
}

const char *
plan_megatron_order_refused(const struct layer_graph *g, long S, long d,
    int stage_major)
{
	return plan_megatron_order_refused_by(plan_megatron_order_differs(g),
	    S, d, stage_major);
}

const char *
plan_megatron_order_refused_by(int order_differs, long S, long d,
    int stage_major)
{
	/* one replica: the placements are one, Megatron's default order */
	if (stage_major || S < 2 || d < 2 || !order_differs)
		return NULL;
	return "a replica's stages one after another need "
	    "--use-tp-pp-dp-mapping, which core_v0.15.0 rejects with this "
	    "context or expert layout (stage-major, Megatron's default "
	    "order, runs it: dpsolve -L stage or both)";
}

const char *
plan_recompute_refused(int rc, int fsdp, const struct layer_graph *g)
{
	if (rc == RC_OP && !fsdp)
		return "torchtitan's per-operator checkpointing runs beside "
		    "FSDP2 only (fsdp 1 or 2)";
	if (rc == RC_OP && !g->has_op_sac)
		return "per-operator checkpointing on a graph without its "
		    "columns (op_sac_bytes, op_sac_recompute_s: the analytic "
		    "graphs of dense bf16 models have them)";
	if (rc == RC_SELECTIVE && fsdp)
		return "Megatron's selective recomputation beside FSDP2 "
		    "(torchtitan checkpoints per operator instead: recompute "
		    "3)";
	return NULL;
}

const char *
plan_fsdp_layout_refused(int fsdp, long S, long group)
{
	if (group < 2)
		return "over one device (torchtitan's fully_shard needs a "
		    "data-parallel or context rank beside it)";
	if (fsdp == PLAN_FSDP_RESHARD && S > 1)
		return "resharded after forward on more than one stage "
		    "(pipelined, torchtitan keeps the weights gathered: fsdp 2)";
	if (fsdp == PLAN_FSDP_KEPT && S < 2)
		return "kept gathered on one stage (without pipelining, "
		    "torchtitan reshards after backward and reduces every "
		    "micro-batch: fsdp 1)";
	return NULL;
}

const char *
plan_hsdp_refused(long shard, long d)
{
	if (shard < 0 || (shard > 0 && (shard >= d || d % shard)))
		return "a shard group of replicas that does not divide d "
		    "into two groups or more";
	return NULL;
}

const char *
plan_fsdp_plan_refused(int fsdp, long shard, long S, long d, long c,
    int fp8_gather)
{
	const char *why = plan_hsdp_refused(shard, d);

	if (why == NULL)
		why = plan_fsdp_layout_refused(fsdp, S, (shard > 0 ? shard :
		    d) * c);
	if (why == NULL && fp8_gather && (shard > 0 ? shard : d) < 2)
		why = "its float8 all-gather over one data-parallel rank "
		    "(torchtitan enables it only where "
		    "data_parallel_shard_degree > 1)";
	return why;
}

const char *
plan_fsdp_schedule_refused(int fsdp, int schedule)
{
	if (fsdp && schedule == PLAN_ZBH1)
		return "ZB-H1 beside FSDP2 (torchtitan runs no one-chunk "
		    "zero-bubble schedule)";
	if (fsdp == PLAN_FSDP_RESHARD && schedule != PLAN_1F1B)
		return "a zero-bubble schedule resharded (it pipelines, and "
		    "pipelined FSDP2 is kept gathered)";
	return NULL;
}

int
plan_records_tp_overlap(const struct plan_mode *m, const struct layer_graph *g)
{
	return m->tp_overlap && g->has_variant && g->var_sp;
}

const double *
plan_coll(const struct plan_variant *v, const struct plan_mode *m)
{
	if (m->tp_overlap && v->pf_coll_tpo[m->recompute] != NULL)
		return v->pf_coll_tpo[m->recompute];
	return v->pf_coll[m->recompute];
}

/* A pair's collective of kind k: its bytes' share of the row's time of
 * that kind (the row prices each kind's bytes as one collective), or on
 * its own when the row has none of the kind. */
static double
pair_time(const struct plan_variant *v, const struct layer *L,
    const double *kind_s, int k, double bytes)
{
	if (L->coll_bytes[k] > 0)
		return kind_s[k] * fmin(1, bytes / L->coll_bytes[k]);
	return net_time(v->coll[k], bytes);
}

/* Up to `amount` of kind k's time hidden, never more than the row was
 * charged for that kind (a hand-written table may list pairs beyond its
 * byte columns). */
static double
hide(double *left, int k, double amount)
{
	double h = fmin(amount, left[k]);

	left[k] -= h;
	return h;
}

/* Transformer Engine's "pipeline" overlap runs a product in this many
 * splits (TE v1.7-v1.10, module/base.py, initialize_ub: num_splits = 4
 * by default). */
#define TE_PIPELINE_SPLITS 4

/*
 * What the products beside a row's tensor-parallel collectives hide of
 * them (docs/model.md, "Tensor-parallel overlap"), forward and backward,
 * and what sequence parallelism's backward adds: a column-parallel
 * product keeps its input sharded and gathers it again for its weight
 * gradient, beside its input gradient.  A product's backward is its input
 * and its weight gradient, half each.  Megatron-LM's backward reduces the
 * input gradient beside the weight gradient (async, or always with sp).
 * --tp-comm-overlap (sp) runs Transformer Engine's userbuffers, with its
 * default method a collective (TE v1.7-v1.10, initialize_ub):
 * - the gathers before a column-parallel product's forward and a
 *   row-parallel one's input gradient: "ring_exchange", the product in t
 *   chunks, each beside the next chunk's arrival through the copy
 *   engines: the first chunk is local, min(c, g (t - 1) / t) hidden;
 * - the reductions after a row-parallel product's forward: "pipeline",
 *   the product in 4 splits, each split's reduce-scatter beside the next
 *   split: the last split's is exposed, (3/4) min(c, g) hidden;
 * - the backward's of a column-parallel product under sp: "bulk", the
 *   whole collective beside the whole product (as Megatron-LM's own).
 * The pipelined and bulk kernels are 16 thread blocks on a high-priority
 * stream that take their SMs from the product as its blocks finish
 * (set_sm_margin 0): to first order, each second of them hidden costs
 * the product env->tp_comm_sm_share of a second, added to the exposed
 * time.  Bulk is TE's fused-norm column-parallel products'
 * (TELayerNormColumnParallelLinear: q/k/v and the MLP's first), the
 * TP_COLUMN pairs; TP_OUTSIDE (the head) gets Megatron-LM's own.
 */
static void
tp_hidden(const struct plan_variant *v, const struct plan_env *env,
    const struct layer *L, const double *kind_s, int tpo, double *hid_fwd,
    double *hid_bwd, double *extra_bwd)
{
	double pipe = v->t > 1 ? (double)(v->t - 1) / (double)v->t : 0;
	double split = (double)(TE_PIPELINE_SPLITS - 1) /
	    (double)TE_PIPELINE_SPLITS;
	double sm = tpo ? env->tp_comm_sm_share : 0;
	double left[LCOLL_N];

	memcpy(left, kind_s, sizeof left);
	*hid_fwd = *hid_bwd = *extra_bwd = 0;
	for (int k = 0; k < L->ntp; k++) {
		const struct tp_pair *p = &L->tp[k];
		double ag = pair_time(v, L, kind_s, LCOLL_ALL_GATHER, p->bytes);
		double rs = pair_time(v, L, kind_s, LCOLL_REDUCE_SCATTER,
		    p->bytes);
		double ar = pair_time(v, L, kind_s, LCOLL_ALL_REDUCE, p->bytes);
		double half = p->backward_s / 2;

		if (p->role == TP_ROW) {
			if (tpo && v->sp) {
				*hid_fwd += (1 - sm) * hide(left,
				    LCOLL_REDUCE_SCATTER, split * fmin(rs,
				    p->forward_s));
				*hid_bwd += hide(left, LCOLL_ALL_GATHER,
				    fmin(ag, pipe * half));
			}
			continue;
		}
		if (v->sp) {
			/* TE's bulk kernels for TE's own products only */
			double bulk_sm = p->role == TP_COLUMN ? sm : 0;

			*extra_bwd += ag - (1 - bulk_sm) * fmin(ag, half);
			*hid_bwd += (1 - bulk_sm) * hide(left,
			    LCOLL_REDUCE_SCATTER, fmin(rs, half));
			if (tpo && p->role == TP_COLUMN)
				*hid_fwd += hide(left, LCOLL_ALL_GATHER,
				    fmin(ag, pipe * p->forward_s));
		} else if (!env->tp_grad_blocking) {
			*hid_bwd += hide(left, LCOLL_ALL_REDUCE, fmin(ar, half));
		}
	}
}

double
plan_ep_pair_s(const struct ep_pair *p)
{
	/* the communication stream: i's combine backward, j's dispatch,
	 * i's dispatch backward, j's combine; the compute stream: j's
	 * attention, i's experts' backward (its input's gradient, then its
	 * weights'), j's experts, i's attention's backward */
	double x = p->exchange;
	double combine_b = x + p->combine_b;
	double attn_f = p->attn_f;
	double dispatch_f = fmax(combine_b, attn_f) + x;
	double experts_in = fmax(attn_f, combine_b) + p->experts_b -
	    p->experts_w;
	double experts_b = experts_in + p->experts_w;
	double dispatch_b = fmax(dispatch_f, experts_in) + x;
	double experts_f = fmax(experts_b, dispatch_f) + p->experts_f;
	double combine_f = fmax(dispatch_b, experts_f) + x + p->combine_f;
	double attn_b = fmax(experts_f, dispatch_b) + p->attn_b;

	return fmax(combine_f, attn_b);
}

const char *
plan_ep_overlap_refused(const struct plan_mode *m,
    const struct layer_graph *g, int stages, int zero_copies)
{
	if (!m->ep_overlap)
		return NULL;
	if (!layers_has_experts(g))
		return "it overlaps the experts' exchange: a mixture-of-"
		    "experts graph";
	if (!g->has_expert_times)
		return "the graph has no expert_forward_s, "
		    "expert_backward_s, expert_weight_gradient_s, "
		    "combine_forward_s and combine_backward_s columns (what "
		    "it runs apart, which graph-normalize writes)";
	if (layers_expert_ranks(g) < 2)
		return "Megatron-Core runs it with expert parallelism only "
		    "(EP > 1)";
	if (m->recompute == RC_FULL || m->recompute_layers > 0)
		return "Megatron-Core runs it without full recomputation";
	if (m->recompute == RC_OP)
		return "per-operator checkpointing is torchtitan's, beside "
		    "FSDP2";
	if (m->schedule != PLAN_1F1B || m->fsdp)
		return "it is Megatron-Core's 1F1B, without FSDP2";
	if (stages > 1 && m->v < 2)
		return "with a pipeline Megatron-Core runs it interleaved "
		    "only (virtual stages)";
	if (zero_copies)
		return "ZeRO copies of a stage are not modelled with it";
	return NULL;
}

/* The combined 1F1B's saving on each row (plan_variant.pf_ep_save): its
 * pair of passes (plan_ep_pair_s) against the two run alone, everything
 * of the row but its experts and its combine's compute beside them
 * (their collectives, the tensor-parallel ones, as exposed as priced),
 * the all-to-all's time in four alike exchanges (dispatch and combine,
 * each way), the row paired with a row like it (alike layers, as a
 * stage's are). */
static double *
ep_save_table(const struct plan_variant *v, const double *pf_coll, int rc)
{
	const struct layer_graph *g = v->g;
	double *pf = xcalloc(g->n + 1, sizeof *pf);

	for (size_t i = 0; i < g->n; i++) {
		const struct layer *L = &g->l[i];
		double coll = pf_coll[i + 1] - pf_coll[i];
		double x = fmin(net_time(v->coll[LCOLL_ALL_TO_ALL],
		    L->coll_bytes[LCOLL_ALL_TO_ALL]), coll) / 4;
		double other = coll - 4 * x;
		double rerun = rc == RC_SELECTIVE ? L->selective_recompute_s : 0;
		struct ep_pair p = {
			.attn_f = L->forward_s - L->expert_forward_s -
			    L->combine_forward_s + other / 2,
			.attn_b = L->backward_s - L->expert_backward_s -
			    L->combine_backward_s + rerun + other / 2,
			.experts_f = L->expert_forward_s,
			.experts_b = L->expert_backward_s,
			.experts_w = L->expert_weight_gradient_s,
			.exchange = x,
			.combine_f = L->combine_forward_s,
			.combine_b = L->combine_backward_s,
		};
		double alone = L->forward_s + L->backward_s + rerun + coll;

		pf[i + 1] = pf[i] + fmax(0, alone - plan_ep_pair_s(&p));
	}
	return pf;
}

const double *
plan_ep_save(const struct plan_variant *v, const struct plan_mode *m)
{
	if (!m->ep_overlap || m->recompute < 0 || m->recompute >= RC_N)
		return NULL;
	return v->pf_ep_save[m->tp_overlap && v->sp][m->recompute];
}

/*
 * What a stage's merged pairs hide of its load under the combined 1F1B,
 * as a share of each pair's saving `save` (its rows' sum), spread over
 * the closed form's m + (S - 1)/v slots so that plan_step's (m + (S -
 * 1)/v) x load stays the step.  Rank u runs m v chunks' passes each way,
 * its warm-up's forward passes alone (Megatron-Core's count, 2 (S - u -
 * 1) + (v - 1) S interleaved, none without a pipeline, and one more) and
 * as many backward passes alone in the cool-down, the rest in pairs,
 * each a chunk's (1/v of a micro-batch's stage).  The step's longest
 * path runs through the last rank's steady state, whose pairs are the
 * most, m v - (v - 1) S - 1: with alike stages the step is the plain
 * one less that many pairs' saving (pipesim's, on 200 random pipelines:
 * t-pipeline), so every stage is credited that many.  Without a
 * pipeline: m passes' load less m - 1 pairs' saving.
 */
static double
ep_hidden_s(const struct plan_cell *c, double save)
{
	long nv = c->mode.v, S = c->K, passes = c->m * nv;
	long warm = (S > 1 ? (nv - 1) * S : 0) + 1;
	long pairs = passes > warm ? passes - warm : 0;

	return (double)pairs / (double)nv * save / ((double)c->m +
	    (double)(S - 1) / (double)nv);
}

int
plan_variant_init(struct plan_variant *v, const struct plan_env *env,
    const struct layer_graph *g, struct pl_err *err)
{
	double *diff;
	struct routing rt;
	int routed;

	memset(v, 0, sizeof *v);
	if (g->n == 0)
		return pl_errf(err, g->file, 0, "the graph has no layers");
	v->order_differs = plan_megatron_order_differs(g);
	/* DeepEP's group is the flex dispatcher's tensor x expert ranks,
	 * each token sent to every tensor rank of its experts: priced only
	 * where the experts are whole (et 1) */
	if ((routed = env->deepep && layers_has_experts(g))) {
		if (routing_from_config_line(g->model_config, &rt) < 0)
			return pl_errf(err, g->file, 0, "the hierarchical "
			    "dispatch needs the graph's record of its model's "
			    "routing (column model_config: experts, top_k, "
			    "router_groups, router_group_topk)");
		if (layers_expert_t(g) > 1)
			return pl_errf(err, g->file, 0, "the hierarchical "
			    "dispatch of experts split over %ld tensor ranks "
			    "is not modelled (whole experts: expert_t 1)",
			    layers_expert_t(g));
	}
	v->g = g;
	v->t = g->has_variant ? g->var_t : 1;
	v->e = g->has_variant ? g->var_e : 1;
	v->c = g->has_variant ? g->var_c : 1;
	v->sp = g->has_variant ? g->var_sp : 0;
	v->b = g->has_variant ? g->var_b : 1;
	v->et = layers_expert_t(g);
	v->w = layers_width(g);
	v->pf_fwd = prefix(g, offsetof(struct layer, forward_s));
	v->pf_bwd = prefix(g, offsetof(struct layer, backward_s));
	v->pf_wgrad = prefix(g, offsetof(struct layer, weight_gradient_s));
	v->pf_param = prefix(g, offsetof(struct layer, parameter_bytes));
	v->pf_dense = prefix(g, offsetof(struct layer, dense_parameter_bytes));
	v->pf_fp8 = prefix(g, offsetof(struct layer, fp8_weight_bytes));
	v->pf_fp8_expert = prefix(g, offsetof(struct layer,
	    fp8_expert_weight_bytes));
	for (int rc = 0; rc < RC_N; rc++)
		recompute_tables(v, rc);

	/* Megatron's t-group runs the all-reduces and reduce-scatters (and
	 * the all-gathers of sequence parallelism); all-to-all is the expert
	 * group's, e t/et ranks et apart (e ranks t apart at et t, the t e
	 * tensor and expert ranks, adjacent, with whole experts); context
	 * parallelism's keys and values cross the c*e devices sharing a
	 * sequence (t apart; a graph whose expert ranks split the samples
	 * has none, layers.c, unless it folds some of them over a sequence:
	 * then those, the first of the e, as Megatron-Core lays its expert
	 * ranks over the context ranks first).  An all-gather of a graph
	 * without the context kinds at t = 1 is context parallel's. */
	v->coll[LCOLL_ALL_REDUCE] = group_cost(env, v->w, v->t, 1,
	    NET_ALL_REDUCE);
	v->coll[LCOLL_REDUCE_SCATTER] = group_cost(env, v->w, v->t, 1,
	    NET_REDUCE_SCATTER);
	v->coll[LCOLL_ALL_TO_ALL] = group_cost_routed(env, v->w, v->e *
	    (v->t / v->et), v->et, NET_ALL_TO_ALL, routed ? &rt : NULL);
	v->coll[LCOLL_CONTEXT_ALL_GATHER] = group_cost(env, v->w,
	    layers_context_ranks(g), v->t, NET_ALL_GATHER);
	v->coll[LCOLL_CONTEXT_REDUCE_SCATTER] = group_cost(env, v->w,
	    layers_context_ranks(g), v->t, NET_REDUCE_SCATTER);
	/* the experts' own tensor group, where it is smaller than t: et
	 * adjacent ranks (Megatron-Core builds its expert groups expert-
	 * tensor rank first) */
	v->coll[LCOLL_EXPERT_ALL_GATHER] = group_cost(env, v->w, v->et, 1,
	    NET_ALL_GATHER);
	v->coll[LCOLL_EXPERT_REDUCE_SCATTER] = group_cost(env, v->w, v->et, 1,
	    NET_REDUCE_SCATTER);
	v->coll[LCOLL_ALL_GATHER] = v->t > 1 ?
	    group_cost(env, v->w, v->t, 1, NET_ALL_GATHER) :
	    v->coll[LCOLL_CONTEXT_ALL_GATHER];
	/* Full recomputation runs a layer's forward again, its collectives
	 * included (Megatron's checkpoint reruns the layer's function).
	 * Megatron's collectives come in conjugate pairs, one in each
	 * direction with the same bytes (f and g, an all-gather and its
	 * reduce-scatter, dispatch and combine), so a row's forward runs
	 * half of its collective time.  Selective recomputation reruns the
	 * attention core, which has none.  torchtitan's per-operator policy
	 * (sequence-parallel: analytic.c) reruns the forward's all-gathers,
	 * half of that kind's time, its reduce-scatters not: what the
	 * backward reads of them is saved or unread. */
	for (int rc = 0; rc < RC_N; rc++) {
		v->pf_coll[rc] = xcalloc(g->n + 1, sizeof *v->pf_coll[rc]);
		if (v->sp)
			v->pf_coll_tpo[rc] = xcalloc(g->n + 1,
			    sizeof *v->pf_coll_tpo[rc]);
	}
	for (size_t i = 0; i < g->n; i++) {
		double s = 0, kind_s[LCOLL_N];

		for (int k = 0; k < LCOLL_N; k++)
			s += kind_s[k] = net_time(v->coll[k],
			    g->l[i].coll_bytes[k]);
		for (int tpo = 0; tpo <= (v->sp != 0); tpo++) {
			double **pf = tpo ? v->pf_coll_tpo : v->pf_coll;
			double hf, hb, extra;

			tp_hidden(v, env, &g->l[i], kind_s, tpo, &hf, &hb,
			    &extra);
			for (int rc = 0; rc < RC_N; rc++)
				pf[rc][i + 1] = pf[rc][i] + fmax(0, s +
				    extra - hf - hb + (rc == RC_FULL &&
				    g->l[i].recompute_s > 0 ? s / 2 - hf : 0) +
				    (rc == RC_OP && g->l[i].op_sac_recompute_s >
				    0 ? kind_s[LCOLL_ALL_GATHER] / 2 : 0));
		}
	}
	/* the combined 1F1B's kinds of recomputation: none, selective */
	for (int tpo = 0; g->has_expert_times && layers_has_experts(g) &&
	    tpo <= (v->sp != 0); tpo++)
		for (int rc = RC_NONE; rc <= RC_SELECTIVE; rc++)
			if (rc != RC_FULL)
				v->pf_ep_save[tpo][rc] = ep_save_table(v, tpo ?
				    v->pf_coll_tpo[rc] : v->pf_coll[rc], rc);
	v->scatter_gather = env->p2p_scatter_gather && v->t > 1 && !v->sp;

	/* Bytes crossing each cut: every edge is relayed by the stages
	 * between its ends; a row no edge feeds reads the model input. */
	v->cut = xcalloc(g->n + 1, sizeof *v->cut);
	diff = xcalloc(g->n + 2, sizeof *diff);
	if (g->nedges == 0) {
		for (size_t i = 0; i < g->n; i++)
			v->cut[i] = g->l[i].input_bytes;
	} else {
		unsigned char *fed = xcalloc(g->n, 1);

		for (size_t k = 0; k < g->nedges; k++) {
			diff[g->e[k].src + 1] += g->e[k].bytes;
			diff[g->e[k].dst + 1] -= g->e[k].bytes;
			fed[g->e[k].dst] = 1;
		}
		for (size_t i = 0; i < g->n; i++) {
			if (fed[i])
				continue;
			v->cut[0] += g->l[i].input_bytes;
			diff[1] += g->l[i].input_bytes;
			diff[i + 1] -= g->l[i].input_bytes;
		}
		for (size_t i = 1; i < g->n; i++) {
			diff[i] += diff[i - 1];
			v->cut[i] = diff[i];
		}
		free(fed);
	}
	free(diff);
	for (size_t i = 1; i < g->n; i++)
		v->chunk_bytes = fmax(v->chunk_bytes, v->cut[i]);
	return 0;
}

void
plan_variant_release(struct plan_variant *v)
{
	free(v->pf_fwd);
	free(v->pf_bwd);
	free(v->pf_wgrad);
	free(v->pf_param);
	free(v->pf_dense);
	free(v->pf_fp8);
	free(v->pf_fp8_expert);
	for (int rc = 0; rc < RC_N; rc++) {
		free(v->pf_kept[rc]);
		free(v->pf_rerun[rc]);
		free(v->pf_coll[rc]);
		free(v->pf_coll_tpo[rc]);
		free(v->pf_ep_save[0][rc]);
		free(v->pf_ep_save[1][rc]);
		for (int j = 0; v->working[rc] && j <= ilog2(v->g->n); j++) {
			free(v->working[rc][j]);
			free(v->kept_max[rc][j]);
		}
		free(v->working[rc]);
		free(v->kept_max[rc]);
	}
	free(v->cut);
	memset(v, 0, sizeof *v);
}

void
plan_cell_init(struct plan_cell *c, const struct plan_env *env,
    const struct plan_variant *v, long d, long K,
    const struct plan_mode *mode)
{
	size_t n = (size_t)(K + 1) * NZ;

	memset(c, 0, sizeof *c);
	c->env = env;
	c->v = v;
	c->d = d;
	c->K = K;
	c->mode = *mode;
	if (c->mode.v < 1)
		c->mode.v = 1;
	c->wrap_level = -2;
	c->m = plan_microbatches(env->global_batch, v->b, d);
	c->cut_level = xmalloc((size_t)(K + 1));
	memset(c->cut_level, -2, (size_t)(K + 1));
	/* the costs are read only where `have` says they were made: no
	 * need to clear them (a ZeRO cell has K up to the devices / w) */
	c->sync_dense = xmalloc(n * sizeof *c->sync_dense);
	c->sync_expert = xmalloc(n * sizeof *c->sync_expert);
	c->ring_dense = xmalloc(n * sizeof *c->ring_dense);
	c->ring_expert = xmalloc(n * sizeof *c->ring_expert);
	c->zero_gather = xmalloc(n * sizeof *c->zero_gather);
	if (c->mode.fsdp && c->mode.fsdp_shard > 0) {
		c->hsdp_shard = xmalloc(n * sizeof *c->hsdp_shard);
		c->hsdp_shard_expert = xmalloc(n *
		    sizeof *c->hsdp_shard_expert);
		c->hsdp_replica = xmalloc(n * sizeof *c->hsdp_replica);
	}
	c->have = xcalloc(n, 1);
	/* the V-shaped schedules' form, where they run (DualPipeV: 2K
	 * micro-batches or more; plan_evaluate refuses the others) */
	if (plan_schedule_chunks(c->mode.schedule) == 2 &&
	    (c->mode.schedule != PLAN_DUALPIPEV || pipe_dualpipe_ok((int)K,
	    c->m, 0)))
		c->form = xcalloc(1, sizeof *c->form);
}

void
plan_cell_release(struct plan_cell *c)
{
	free(c->cut_level);
	free(c->sync_dense);
	free(c->sync_expert);
	free(c->ring_dense);
	free(c->ring_expert);
	free(c->zero_gather);
	free(c->hsdp_shard);
	free(c->hsdp_shard_expert);
	free(c->hsdp_replica);
	free(c->have);
	free(c->form);
	memset(c, 0, sizeof *c);
}

long
plan_microbatches(long global_batch, long b, long d)
{
	return (global_batch + b * d - 1) / (b * d);
}

/* Replica 0's device at slot u: u w a replica's slots one after another;
 * stage-major, each slot's d replicas side by side (z = 1: a slot a
 * stage), u d w. */
static long
slot_origin(const struct plan_cell *c, long u)
{
	return u * c->v->w * (c->mode.stage_major ? c->d : 1);
}

/* From one replica's slot to the next replica's: R = K w, or w. */
static long
replica_stride(const struct plan_cell *c)
{
	return c->mode.stage_major ? c->v->w : c->K * c->v->w;
}

/* Highest level any replica's devices from its slot u0 to the end of its
 * slot u1 reach (they lie between), and in *worst_r the first replica
 * that reaches it. */
static int
slots_level(const struct plan_cell *c, long u0, long u1, long *worst_r)
{
	return net_range_top(c->env->net, slot_origin(c, u0),
	    slot_origin(c, u1) + c->v->w - 1, replica_stride(c), c->d,
	    worst_r);
}

/* The boundary at slot u joins the w-blocks at slots u-1 and u. */
static int
cut_level(struct plan_cell *c, long u)
{
	if (c->cut_level[u] == -2)
		c->cut_level[u] = (signed char)slots_level(c, u - 1, u, NULL);
	return c->cut_level[u];
}

static struct net_cost
shape_cost(const struct network *net, struct net_ap g, enum net_coll kind)
{
	struct net_shape s;
	struct net_cost none = { 0, 0 };

	if (g.n1 * g.n2 <= 1 || net_shape_ap(net, &g, &s, NULL) < 0)
		return none;
	return net_collective(net, kind, &s);
}

struct plan_shape_entry {
	long key[8];			/* d, the replicas' stride, the slot's
					 * origin, z, t, e, c, HSDP's shard
					 * (0: none); d = 0: empty */
	struct net_cost dense, expert, ring_dense, ring_expert, gather, shard,
	    shard_expert, replica;
};

static size_t
key_hash(const long *k)
{
	size_t h = 1469598103934665603UL;

	for (int i = 0; i < 8; i++)
		h = (h ^ (size_t)k[i]) * 1099511628211UL;
	return h;
}

static struct plan_shape_entry *
cache_slot(struct plan_shape_cache *sc, const long *key)
{
	size_t i;

	if (2 * (sc->n + 1) > sc->cap) {
		struct plan_shape_cache big = { sc->cap ? 2 * sc->cap : 4096, 0,
		    NULL, sc->forms, sc->nforms, sc->fcap };

		big.e = xcalloc(big.cap, sizeof *big.e);
		for (size_t k = 0; k < sc->cap; k++)
			if (sc->e[k].key[0])
				*cache_slot(&big, sc->e[k].key) = sc->e[k];
		big.n = sc->n;
		free(sc->e);
		*sc = big;
	}
	for (i = key_hash(key) & (sc->cap - 1); sc->e[i].key[0];
	    i = (i + 1) & (sc->cap - 1))
		if (memcmp(sc->e[i].key, key, sizeof sc->e[i].key) == 0)
			return &sc->e[i];
	return &sc->e[i];
}

void
plan_shape_cache_release(struct plan_shape_cache *sc)
{
	for (size_t i = 0; i < sc->fcap; i++)
		if (sc->forms[i]) {
			pipe_form_release(&sc->forms[i]->f);
			free(sc->forms[i]);
		}
	free(sc->forms);
	free(sc->e);
	memset(sc, 0, sizeof *sc);
}

/* The larger latency and per-byte cost of a and b: a bound on both. */
static struct net_cost
cost_max(struct net_cost a, struct net_cost b)
{
	return (struct net_cost){ fmax(a.alpha_s, b.alpha_s),
	    fmax(a.beta_s_per_byte, b.beta_s_per_byte) };
}

/*
 * A ring all-reduce over a group: a reduce-scatter and an all-gather,
 * each the group's reduce-scatter cost.  What the distributed optimizer,
 * ZeRO-3 and FSDP2 run are its halves; they keep the ring where a
 * level's switches would reduce a whole all-reduce in the fabric
 * (docs/model.md, "Payload and in-fabric reduction").
 */
static struct net_cost
ring_allreduce(const struct network *net, struct net_ap g)
{
	struct net_cost rs = shape_cost(net, g, NET_REDUCE_SCATTER);

	return (struct net_cost){ 2 * rs.alpha_s, 2 * rs.beta_s_per_byte };
}

/* A group's all-reduce and its ring's, its shape found once. */
static void
allreduce_pair(const struct network *net, struct net_ap g,
    struct net_cost *ar, struct net_cost *ring)
{
	struct net_shape s;
	struct net_cost rs;

	*ar = *ring = (struct net_cost){ 0, 0 };
	if (g.n1 * g.n2 <= 1 || net_shape_ap(net, &g, &s, NULL) < 0)
		return;
	*ar = net_collective(net, NET_ALL_REDUCE, &s);
	rs = net_collective(net, NET_REDUCE_SCATTER, &s);
	*ring = (struct net_cost){ 2 * rs.alpha_s, 2 * rs.beta_s_per_byte };
}

/*
 * HSDP's groups at slot u (plan_mode.fsdp_shard s replicas a shard group,
 * z = 1), o its origin and R the replicas' stride (slot_origin,
 * replica_stride): shard group k holds devices o + t i + (k s + j) R (i <
 * c e, j < s) of the dense weights and o + t e i + (k s + j) R (i < c) of
 * an expert's (torchtitan's fsdp and efsdp meshes, which take the expert
 * ranks out of fsdp as group_costs' data-parallel groups do), and a
 * shard's replicas, position (i, j), the d/s devices o + t i + (k s + j) R
 * over k.  Groups placed alike on the network cost alike;
 * their placement repeats with their start modulo the span of the level
 * below the top, so the worst of each kind is found over that period's
 * distinct starts (at most d/s and s c of them): all-reduce costs (the
 * shards' the ring's, halved into their gathers and reductions), each
 * the larger latency and per-byte cost of any group of its kind.
 */
static void
hsdp_costs(struct plan_cell *c, long u, struct net_cost *shard,
    struct net_cost *shard_expert, struct net_cost *replica)
{
	const struct plan_variant *v = c->v;
	const struct network *net = c->env->net;
	long o = slot_origin(c, u), R = replica_stride(c);
	long s = c->mode.fsdp_shard, groups = c->d / s;
	long period = net->nlevels > 1 ? net->span[net->nlevels - 2] :
	    net->ndevices;
	long starts = period / gcd_long(period, (s * R) % period ?
	    (s * R) % period : period);

	*shard = *shard_expert = *replica = (struct net_cost){ 0, 0 };
	for (long k = 0; k < groups && k < starts; k++) {
		*shard = cost_max(*shard, ring_allreduce(net, (struct net_ap){
		    o + k * s * R, v->t, v->c * v->e, R, s }));
		*shard_expert = cost_max(*shard_expert, ring_allreduce(net,
		    (struct net_ap){ o + k * s * R, v->t * v->e, v->c, R, s }));
	}
	for (long j = 0; j < s; j++)
		for (long i = 0; i < v->c * v->e; i++)
			*replica = cost_max(*replica, shape_cost(net,
			    (struct net_ap){ o + v->t * i + j * R, s * R,
			    groups, 1, 1 }, NET_ALL_REDUCE));
}

/*
 * The data-parallel groups of a stage at slot u with z copies: slot 0's
 * dense parameters live on the d*z*c*e devices sharing them, its experts
 * on d*z*c; and the z copies of the worst-placed replica (ZeRO gathers).
 */
static void
group_costs(struct plan_cell *c, long u, long z)
{
	const struct plan_variant *v = c->v;
	const struct network *net = c->env->net;
	long w = v->w, R = replica_stride(c), o = slot_origin(c, u);
	long ce = v->c * v->e, r0 = 0;
	size_t at = (size_t)u * NZ + (size_t)zlog(z);
	long hs = c->mode.fsdp ? c->mode.fsdp_shard : 0;
	/* the groups' placement: their origin and the replicas' stride
	 * (either placement: plan_mode.stage_major) */
	long key[8] = { c->d, R, o, z, v->t, v->e, v->c, hs };
	struct plan_shape_entry *hit = NULL;

	c->have[at] = 1;
	if (c->shared) {
		hit = cache_slot(c->shared, key);
		if (hit->key[0]) {
			c->sync_dense[at] = hit->dense;
			c->sync_expert[at] = hit->expert;
			c->ring_dense[at] = hit->ring_dense;
			c->ring_expert[at] = hit->ring_expert;
			c->zero_gather[at] = hit->gather;
			if (hs > 0) {
				c->hsdp_shard[at] = hit->shard;
				c->hsdp_shard_expert[at] = hit->shard_expert;
				c->hsdp_replica[at] = hit->replica;
			}
			return;
		}
	}
	/* slot u's z copies hold devices o + t i (i < z c e: w = t c e)
	 * of every replica, o its origin; its experts' copies o + t e i (i
	 * < z c); the replicas R apart */
	allreduce_pair(net, (struct net_ap){ o, v->t, z * ce, R, c->d },
	    &c->sync_dense[at], &c->ring_dense[at]);
	allreduce_pair(net, (struct net_ap){ o, v->t * v->e, z * v->c, R,
	    c->d }, &c->sync_expert[at], &c->ring_expert[at]);
	c->zero_gather[at] = (struct net_cost){ 0, 0 };
	if (z > 1) {	/* a replica's slots one after another (no ZeRO
			 * copies stage-major) */
		slots_level(c, u, u + z - 1, &r0);
		c->zero_gather[at] = shape_cost(net, (struct net_ap){
		    r0 * R + o, w, z, R, 1 }, NET_ALL_GATHER);
	}
	if (hs > 0)
		hsdp_costs(c, u, &c->hsdp_shard[at], &c->hsdp_shard_expert[at],
		    &c->hsdp_replica[at]);
	if (hit) {
		memcpy(hit->key, key, sizeof key);
		hit->dense = c->sync_dense[at];
		hit->expert = c->sync_expert[at];
		hit->ring_dense = c->ring_dense[at];
		hit->ring_expert = c->ring_expert[at];
		hit->gather = c->zero_gather[at];
		if (hs > 0) {
			hit->shard = c->hsdp_shard[at];
			hit->shard_expert = c->hsdp_shard_expert[at];
			hit->replica = c->hsdp_replica[at];
		}
		c->shared->n++;
	}
}

/*
 * The gradient reduction of rows [first, last] at slot u over its z
 * copies' data-parallel groups, in two parts: *grad_s reduces the
 * gradients (grad_bytes_per_param a parameter), *param_s gathers updated
 * bf16 weights (with --fp8-param-gather, the FP8 ones in FP8).  Plain
 * data parallelism all-reduces the gradients (in the fabric where a
 * level's switches reduce); the distributed optimizer reduce-scatters
 * them and all-gathers the weights, each exactly half the ring's
 * all-reduce in this network model (docs/model.md, Network); ZeRO-3
 * gathers weights on use, so only the reduce-scatter remains.
 */
static void
stage_sync(struct plan_cell *c, size_t first, size_t last, long u, long z,
    int zs, double *grad_s, double *param_s)
{
	const struct plan_variant *v = c->v;
	size_t at = (size_t)u * NZ + (size_t)zlog(z);
	double params = v->pf_param[last + 1] - v->pf_param[first];
	double dense = v->pf_dense[last + 1] - v->pf_dense[first];
	double gb = c->env->grad_bytes_per_param > 0 ?
	    c->env->grad_bytes_per_param : 2;
	double weights_ar, fp8_dense, fp8_expert;
	struct net_cost ar_dense, ar_expert;
	int halves;

	if (!c->have[at])
		group_costs(c, u, z);
	plan_fp8_gather_saved(v, &c->mode, first, last, &fp8_dense,
	    &fp8_expert);
	halves = zs == 3 || c->mode.distopt;
	ar_dense = halves ? c->ring_dense[at] : c->sync_dense[at];
	ar_expert = halves ? c->ring_expert[at] : c->sync_expert[at];
	weights_ar = net_time(c->ring_dense[at], dense - fp8_dense) +
	    net_time(c->ring_expert[at], params - dense - fp8_expert);
	*grad_s = net_time(ar_dense, dense * gb / 2) +
	    net_time(ar_expert, (params - dense) * gb / 2);
	*param_s = 0;
	if (zs == 3)
		*grad_s /= 2;
	else if (c->mode.distopt) {
		*grad_s /= 2;
		*param_s = weights_ar / 2;
	}
}

void
plan_fp8_gather_saved(const struct plan_variant *v, const struct plan_mode *m,
    size_t first, size_t last, double *dense, double *expert)
{
	*dense = *expert = 0;
	if (!m->fp8_param_gather || v->g->var_fp8 == FP8_MXFP8)
		return;
	*expert = (v->pf_fp8_expert[last + 1] - v->pf_fp8_expert[first]) / 2;
	*dense = (v->pf_fp8[last + 1] - v->pf_fp8[first]) / 2 - *expert;
}

double
plan_stage_sync(struct plan_cell *c, size_t first, size_t last, long u)
{
	double grad_s, param_s;

	stage_sync(c, first, last, u, 1, 0, &grad_s, &param_s);
	return grad_s + param_s;
}

/* The devices FSDP2 shards a stage's dense weights over: its d replicas'
 * (or HSDP's shard group's) c e context and expert ranks each
 * (torchtitan's fsdp mesh, dp_shard x cp, of which ep takes e); an
 * expert's, their c (its efsdp mesh, the rest). */
static double
fsdp_shards(const struct plan_cell *c)
{
	long r = c->mode.fsdp_shard > 0 ? c->mode.fsdp_shard : c->d;

	return (double)(r * c->v->c * c->v->e);
}

static double
fsdp_shards_expert(const struct plan_cell *c)
{
	return fsdp_shards(c) / (double)c->v->e;
}

/* Row i's bf16 weights that are not an expert's, on a device. */
static double
row_dense(const struct plan_variant *v, size_t i)
{
	return v->pf_dense[i + 1] - v->pf_dense[i];
}

/* Row i's bf16 parameter bytes on a device (an FSDP unit's, gathered). */
static double
row_params(const struct plan_variant *v, size_t i)
{
	return v->pf_param[i + 1] - v->pf_param[i];
}

/* What torchao's float8 all-gather takes off row i's gathered bytes
 * (its float8 weights cross in a byte, half their bf16 bytes: the layer
 * graph's fp8_weight_bytes / 2), 0 without it. */
static double
row_float8_saved(const struct plan_cell *c, size_t i)
{
	return c->mode.fsdp ? plan_fsdp_float8_saved(c->v->g,
	    &c->v->g->l[i], c->mode.fp8_param_gather) : 0;
}

/* Row i's bytes an FSDP2 gather brings (and its copy-out splits). */
static double
row_gathered(const struct plan_cell *c, size_t i)
{
	return row_params(c->v, i) - row_float8_saved(c, i);
}

/*
 * FSDP2's memory beside its shards (mem_stage.fsdp), as PyTorch's
 * fully_shard runs torchtitan's units, a row each.  Resharded after
 * forward: at most two neighbouring units gathered at once (the one
 * running and the one prefetched; the last row, which torchtitan does
 * not reshard after forward, is resharded after its own backward pass),
 * and the largest unit's bf16 gradient with its fp32 copy for the
 * reduce-scatter, 6 bytes a parameter (an expert's weights a unit of
 * their own inside their block's, gathered with it: the pair's bytes are
 * the same; torchao's float8 all-gather brings its float8 weights in a
 * byte each, row_gathered).  Kept: the stage's weights stay
 * gathered the whole step, and with gradient sync off until the last
 * backward pass (torch.distributed.pipelining's stage) each unit's
 * gradient is accumulated unsharded in the reduce dtype, fp32, beside
 * one unit's bf16 gradient as autograd makes it; the sharded gradients
 * come only with the reduce-scatters after the last backward pass, the
 * activations gone (zero_grad sets them to none at the step's start).
 */
static void
fsdp_memory(const struct plan_cell *c, size_t first, size_t last,
    struct mem_stage *s)
{
	const struct plan_variant *v = c->v;
	double all = v->pf_param[last + 1] - v->pf_param[first];
	double unit = 0, gathered = 0, gunit = 0, gpair = 0;

	/* gathered: a float8 weight a byte with torchao's all-gather */
	for (size_t i = first; i <= last; i++) {
		unit = fmax(unit, row_params(v, i));
		gunit = fmax(gunit, row_gathered(c, i));
		gathered += row_gathered(c, i);
		if (i < last)
			gpair = fmax(gpair, row_gathered(c, i) +
			    row_gathered(c, i + 1));
	}
	s->fsdp = c->mode.fsdp;
	s->fsdp_shards = fsdp_shards(c);
	s->fsdp_shards_expert = fsdp_shards_expert(c);
	if (c->mode.fsdp == PLAN_FSDP_KEPT) {
		s->fsdp_gathered_bytes = gathered;
		s->fsdp_grad_bytes = 2 * all + unit;
	} else {
		s->fsdp_gathered_bytes = fmax(gunit, gpair);
		/* the fp32 shards the reduce-scatters accumulate into */
		s->fsdp_grad_bytes = 2 * mem_sharded_params(s, all,
		    v->pf_dense[last + 1] - v->pf_dense[first]) + 3 * unit;
	}
}

struct mem_stage
plan_mem_stage(const struct plan_cell *c, size_t first, size_t last, long z,
    int zs, long k)
{
	const struct plan_variant *v = c->v;
	struct mem_stage s = {
		.first = first, .last = last, .devices = v->w * z,
		.zero_stage = zs, .zero_degree = z,
		.recompute = c->mode.recompute,
		/* ZB-H1 holds min(S, m) micro-batches on every stage, each
		 * until its W pass, as 1F1B's first stage does (Qi et al.
		 * 2024, Section 2.1; pipesim's peaks agree, t-pipeline) */
		.schedule = SCHED_1F1B, .position_from_end =
		    c->mode.schedule == PLAN_ZBH1 ? c->K : k,
		.microbatches = c->m, .virtual_stages = c->mode.v,
		.pipeline_stages = c->K,
		/* ZB-V and DualPipeV: what the stage's rank holds at its
		 * peak in its fixed order (pipe_form) */
		.held_chunks = c->form ? cell_form(c, 1)->peak_chunks[c->K - k] :
		    0,
		.grad_bytes_per_param = c->env->grad_bytes_per_param,
		.grad_copies = c->env->grad_copies,
	};

	/* the combined 1F1B: one warm-up forward pass more, which holds
	 * the chunk 1F1B's steady state holds after its forward pass, and
	 * pairs merged layer by layer (model_chunk_schedule_plan.py: the
	 * forward pass's layer k beside the backward pass's L - 1 - k), so
	 * that a pair holds one layer more than its chunks: 1F1B's peak
	 * (mem_inflight) and the stage's largest layer */
	if (c->mode.ep_overlap)
		s.pair_layer_bytes = range_max(v->kept_max[c->mode.recompute],
		    first, last);

	/* the distributed optimizer shards Adam's states over the
	 * data-parallel group of each kind of parameter */
	if (c->mode.distopt) {
		s.optimizer_shards_dense = (double)(c->d * z * v->c * v->e);
		s.optimizer_shards_expert = (double)(c->d * z * v->c);
	}
	if (c->mode.fsdp)
		fsdp_memory(c, first, last, &s);
	return s;
}

/*
 * Megatron's --recompute-method block recomputes the first N transformer
 * layers of each of a stage's v model chunks and runs the rest as
 * without recomputation.  The chunks' layers are alike, so which rows
 * does not matter: the stage's first N v transformer rows (a graph
 * without kinds: rows that full recomputation runs again) take the full
 * tables, rows [first, split); the others, the tables of none.  Returns
 * last + 1 (every row full) outside block recomputation, or when N v is
 * the stage's layers or more.
 */
static int
block_counts(const struct layer *L)
{
	return L->kind[0] ? strcmp(L->kind, "transformer") == 0 :
	    L->recompute_s > 0;
}

static size_t
block_rows(const struct layer_graph *g, long layers, size_t first,
    size_t last)
{
	size_t i = first;

	for (; i <= last && layers > 0; i++)
		layers -= block_counts(&g->l[i]);
	return i;
}

static size_t
block_split(const struct plan_cell *c, size_t first, size_t last)
{
	if (c->mode.recompute != RC_FULL || c->mode.recompute_layers <= 0)
		return last + 1;
	return block_rows(c->v->g, c->mode.recompute_layers * c->mode.v, first,
	    last);
}

int
plan_block_is_full(const struct plan *p)
{
	long v = p->v > 1 ? p->v : 1;

	/* every row past the split (an embedding, a head) priced alike by
	 * none and full: nothing to rerun, the same bytes kept */
	for (int i = 0; i < p->nstages; i++)
		for (size_t r = block_rows(p->g, p->recompute_layers * v,
		    p->stage[i].first, p->stage[i].last); r <= p->stage[i].last;
		    r++) {
			const struct layer *L = &p->g->l[r];

			if (L->recompute_s > 0 || mem_row_kept(L, RC_FULL) !=
			    mem_row_kept(L, RC_NONE))
				return 0;
		}
	return 1;
}

int
plan_stage_memory(const struct plan_cell *c, size_t first, size_t last,
    long z, int zs, long k, struct mem_breakdown *mem)
{
	const struct plan_variant *v = c->v;
	int rc = c->mode.recompute;
	size_t split = block_split(c, first, last);
	struct mem_totals t = {
		.params = v->pf_param[last + 1] - v->pf_param[first],
		.dense_params = v->pf_dense[last + 1] - v->pf_dense[first],
		.kept = v->pf_kept[rc][split] - v->pf_kept[rc][first],
		.working = split > first ? working_max(v, rc, first, split - 1) :
		    0,
		/* --fp8-param-gather keeps no bf16 copy of them: the
		 * weights' bytes are the FP8 weights and their transposes;
		 * torchao's float8 keeps no copies across steps */
		.fp8_weights = c->mode.fp8_param_gather ||
		    FP8_TORCHAO(v->g->var_fp8) ? 0 :
		    v->pf_fp8[last + 1] - v->pf_fp8[first],
	};
	struct mem_stage s = plan_mem_stage(c, first, last, z, zs, k);

	/* block recomputation's rows that keep everything (added only then,
	 * so that the other plans' sums stay bit for bit what they were) */
	if (split <= last)
		t.kept += v->pf_kept[RC_NONE][last + 1] -
		    v->pf_kept[RC_NONE][split];
	/* torchao's float8 weights, which the graph keeps a byte each for
	 * the backward pass without recomputation: with FSDP2's float8
	 * all-gather they are its gathered weights, counted with them */
	if (FP8_TORCHAO(v->g->var_fp8) && c->mode.fsdp &&
	    c->mode.fp8_param_gather && rc == RC_NONE)
		t.kept -= (v->pf_fp8[last + 1] - v->pf_fp8[first]) / 2;

	mem_breakdown_of(&t, &s, c->env->optimizer, mem);
	return mem->total <= c->env->memory_bytes;
}

/*
 * The memory traffic of an FP8 graph's weight casts once a step, a device
 * of stage s (the graph's FP8 weights: fp8_weight_bytes, 2 a weight).
 * With bf16 weights, Transformer Engine casts each to FP8 with its
 * transposed copy on the step's first micro-batch: fp8_cast_bytes a
 * weight.  With --fp8-param-gather the master shard is still copied to
 * bf16 first (optimizer_step_s's 6 bytes: Transformer Engine's
 * cast_master_weights_to_fp8 keeps that rounding "to keep numerical
 * consistency") and that copy cast to FP8 (read 2, write 1), after a pass
 * that reads it for its amaxes under current and block scales (2 more);
 * after the gather each weight's transposed copy is made again (read 1,
 * write 1; as the graph's copies, assumed on Blackwell too).  MXFP8's
 * weights arrive in bf16 and are quantized as the bf16 ones are.
 * torchao's float8 casts its weights a micro-batch (float8_weight_s);
 * once a step only, with its all-gather, the precomputed scales'
 * amaxes: a pass over the fp32 shard (4 bytes a weight;
 * precompute_float8_dynamic_scale_for_fsdp after the optimizer step,
 * its one all-reduce of an amax a weight not priced).  Every
 * term is a row's own and none negative, so a stage costs no less than
 * a row of it (plan_row_sync_floor).
 */
enum {
	FP8_SHARD_CAST_BYTES = 3,	/* read the bf16 copy, write FP8 */
	FP8_SHARD_AMAX_BYTES = 2,	/* current and block scales' pass */
	FP8_TRANSPOSE_BYTES = 2,	/* read FP8, write it transposed */
	FLOAT8_SCALE_BYTES = 4		/* read the fp32 shard */
};

static double
fp8_weight_cast_bytes(const struct plan_cell *c, const struct mem_stage *s)
{
	const struct plan_variant *v = c->v;
	int recipe = v->g->var_fp8;
	double all = (v->pf_fp8[s->last + 1] - v->pf_fp8[s->first]) / 2;
	double shard;

	if (recipe == FP8_NONE || (FP8_TORCHAO(recipe) &&
	    !c->mode.fp8_param_gather))
		return 0;
	if (FP8_TORCHAO(recipe))
		return FLOAT8_SCALE_BYTES * mem_sharded_params(s, all, all);
	if (!c->mode.fp8_param_gather || recipe == FP8_MXFP8)
		return fp8_cast_bytes(recipe) * all;
	shard = mem_sharded_params(s, all, all -
	    (v->pf_fp8_expert[s->last + 1] - v->pf_fp8_expert[s->first]) / 2);
	return FP8_TRANSPOSE_BYTES * all + (FP8_SHARD_CAST_BYTES +
	    (recipe == FP8_DELAYED ? 0 : FP8_SHARD_AMAX_BYTES)) * shard;
}

/*
 * The optimizer step of a stage's shard, between its gradient reduction
 * and the next step's first forward pass, which nothing overlaps: memory-
 * bound, the bytes it moves a parameter at the accelerator's achievable
 * HBM bandwidth.  Mixed-precision Adam as Megatron-LM runs it (gradient
 * clipping, then apex's fused multi-tensor Adam, then the copy to the
 * model's half-precision weights): the gradient norm reads the gradient
 * (g bytes); the update reads the gradient, the fp32 master weight and
 * both moments and writes those three back (g + 24); the copy reads the
 * master and writes 2 bytes (6): 2g + 30 bytes a parameter, 38 with fp32
 * gradients.  SGD reads the gradient and the weight and writes the
 * weight (g + 4).  Each device updates its shard: over the z copies with
 * ZeRO, over the data-parallel group with the distributed optimizer
 * (the optimizer states' shards of plan_mem_stage).
 *
 * An FP8 graph's weights are cast too, once a step, in the same traffic
 * (fp8_weight_cast_bytes).
 *
 * Under FSDP2, PyTorch's Adam on the fp32 sharded weights after
 * torchtitan's gradient clipping, which reads the gradient for its norm
 * (4 bytes) and scales it in place (clip_grads_with_norm_'s
 * _foreach_mul_, always: read and write 8); then read the gradient, the
 * weight and both moments (16) and write the last three (12): 40 bytes a
 * parameter, no half-precision copy (the gather casts on the way).  SGD:
 * the clipping's 12, then read the gradient and the weight and write the
 * weight, 24.  Each device its shard (mem_sharded_params).
 */
enum { FSDP_ADAM_BYTES = 40, FSDP_SGD_BYTES = 24 };

static double
optimizer_step_s(const struct plan_cell *c, size_t first, size_t last,
    long z, int zs)
{
	const struct plan_variant *v = c->v;
	double gb = c->env->grad_bytes_per_param > 0 ?
	    c->env->grad_bytes_per_param : 2;
	double per_param = c->mode.fsdp ? (c->env->optimizer == OPT_ADAM ?
	    FSDP_ADAM_BYTES : FSDP_SGD_BYTES) : c->env->optimizer == OPT_ADAM ?
	    2 * gb + 30 : gb + 4;
	struct mem_stage s;

	if (c->env->optimizer_Bps <= 0)
		return 0;
	s = plan_mem_stage(c, first, last, z, zs, 1);
	/* weights are 2 bytes a parameter in the graph */
	return (per_param / 2 * mem_sharded_params(&s,
	    v->pf_param[last + 1] - v->pf_param[first],
	    v->pf_dense[last + 1] - v->pf_dense[first]) +
	    fp8_weight_cast_bytes(c, &s)) / c->env->optimizer_Bps;
}

/* What the mode leaves exposed of a parameter gather beside a forward
 * pass of fwd_s. */
static double
exposed_param(const struct plan_cell *c, double param_s, double fwd_s)
{
	return c->mode.overlap_param ? fmax(0, param_s - fwd_s) : param_s;
}

/* What the mode leaves exposed of a gradient reduction and a parameter
 * gather beside a backward and a forward pass of bwd_s and fwd_s. */
static double
exposed_sync(const struct plan_cell *c, double grad_s, double param_s,
    double bwd_s, double fwd_s)
{
	return (c->mode.overlap_grad ? fmax(0, grad_s - bwd_s) : grad_s) +
	    exposed_param(c, param_s, fwd_s);
}

double
plan_row_sync_floor(struct plan_cell *c, size_t i, long u, double bwd_max,
    double fwd_max)
{
	double grad_s, param_s;

	if (c->mode.fsdp)	/* the reductions may hide (fsdp_stage_cost) */
		return optimizer_step_s(c, i, i, 1, 0);
	stage_sync(c, i, i, u, 1, 0, &grad_s, &param_s);
	return exposed_sync(c, grad_s, param_s, bwd_max, fwd_max) +
	    optimizer_step_s(c, i, i, 1, 0);
}

/* The boundary from the last stage back to the first, which interleaved
 * 1F1B crosses v - 1 times a micro-batch: the replica's whole span. */
static int
wrap_level(struct plan_cell *c)
{
	if (c->wrap_level == -2)
		c->wrap_level = slots_level(c, 0, c->K - 1, NULL);
	return c->wrap_level;
}

double
plan_boundary_s(const struct plan_variant *v, const struct network *net,
    int level, double bytes)
{
	if (!v->scatter_gather)
		return net_time(net_p2p(net, level), bytes);
	return net_time(net_p2p(net, level), bytes / (double)v->t) +
	    net_time(v->coll[LCOLL_ALL_GATHER], bytes);
}

/*
 * FSDP2 (plan_mode.fsdp; docs/model.md, "FSDP2"): a row a unit, its
 * weights all-gathered in bf16 over the d c e devices of its data-parallel
 * group (half that group's ring all-reduce of its bytes) and its gradient
 * reduce-scattered in fp32 (half a ring all-reduce of twice its bf16
 * bytes),
 * an expert's weights over their own group of d c (torchtitan's efsdp:
 * a unit of their own, gathered beside their block's, its gradient
 * reduced beside the block's),
 * each on a stream of its own beside the compute, one unit ahead (the
 * forward's next unit gathered while this one runs, the backward's
 * previous one).  Rows of no parameters are no units.
 */
static double
fsdp_gather_s(struct net_cost g, double bytes)
{
	return bytes > 0 ? net_time(g, bytes) / 2 : 0;
}

static double
fsdp_reduce_s(struct net_cost g, double bytes)
{
	return bytes > 0 ? net_time(g, 2 * bytes) / 2 : 0;
}

/* Slot `at`'s groups: its dense weights' shard group and its experts',
 * HSDP's replicas and the shards. */
static struct plan_fsdp_groups
fsdp_groups(const struct plan_cell *c, size_t at)
{
	int hsdp = c->mode.fsdp_shard > 0;

	return (struct plan_fsdp_groups){
	    hsdp ? c->hsdp_shard[at] : c->ring_dense[at],
	    hsdp ? c->hsdp_shard_expert[at] : c->ring_expert[at],
	    hsdp ? c->hsdp_replica[at] : (struct net_cost){ 0, 0 },
	    fsdp_shards(c), fsdp_shards_expert(c), hsdp };
}

double
plan_fsdp_gather_s(const struct plan_fsdp_groups *f, double dense,
    double expert)
{
	return fsdp_gather_s(f->dense, dense) + fsdp_gather_s(f->expert,
	    expert);
}

/* bytes of a unit's gradient of one kind reduced over `shards`: reduce-
 * scattered over its group and, under HSDP, the shard's fp32 bytes then
 * all-reduced over its replicas (after it, on the same path: priced one
 * after the other). */
static double
fsdp_part_reduce_s(const struct plan_fsdp_groups *f, struct net_cost g,
    double bytes, double shards)
{
	double rs = fsdp_reduce_s(g, bytes);

	if (f->hsdp && bytes > 0)
		rs += net_time(f->replica, 2 * bytes / shards);
	return rs;
}

double
plan_fsdp_reduce_s(const struct plan_fsdp_groups *f, double dense,
    double expert)
{
	return fsdp_part_reduce_s(f, f->dense, dense, f->shards) +
	    fsdp_part_reduce_s(f, f->expert, expert, f->shards_expert);
}

/* Row i's weights gathered over the stage's groups f: its dense ones'
 * (float8 ones a byte each with torchao's all-gather), then its
 * experts'. */
static double
fsdp_unit_gather_s(const struct plan_cell *c,
    const struct plan_fsdp_groups *f, size_t i)
{
	const struct plan_variant *v = c->v;

	return plan_fsdp_gather_s(f, row_dense(v, i) - row_float8_saved(c,
	    i), row_params(v, i) - row_dense(v, i));
}

/* Row i's gradient reduced: its dense weights', then its experts'. */
static double
fsdp_unit_reduce_s(const struct plan_variant *v,
    const struct plan_fsdp_groups *f, size_t i)
{
	return plan_fsdp_reduce_s(f, row_dense(v, i), row_params(v, i) -
	    row_dense(v, i));
}

static double copy_s(const struct plan_env *env, double factor,
    double bytes);

/*
 * torchao's float8 weight casts of row i, a micro-batch, on the compute
 * stream (docs/model.md, "torchtitan's float8"): without its all-gather
 * each Float8Linear casts its bf16 weight in the forward pass, an amax
 * pass (read 2) and one kernel writing both layouts (read 2, write 1 +
 * 1; torchao's roofline_utils.py at eab345c), 6 bytes a weight, and
 * again where the forward pass runs again (full recomputation 6, per
 * operator 4: the policy saves the amax); with it the weight arrives in
 * float8 and only its transposed copy is made, for the input's gradient
 * (read 1, write 1).  The float8 cast of each shard before its gather
 * runs beside, on the gathers' stream (the copy-in, not priced).
 */
enum {
	FLOAT8_WEIGHT_CAST = 6,		/* amax 2, cast 2 + 1 + 1 */
	FLOAT8_WEIGHT_RECAST = 4,	/* the amax saved */
	FLOAT8_TRANSPOSE = 2		/* read 1, write 1 */
};

static void
float8_weight_s(const struct plan_cell *c, size_t i, double *fwd,
    double *bwd)
{
	double w = (c->v->pf_fp8[i + 1] - c->v->pf_fp8[i]) / 2;

	*fwd = *bwd = 0;
	if (!FP8_TORCHAO(c->v->g->var_fp8) || w <= 0)
		return;
	if (c->mode.fp8_param_gather) {
		*bwd = copy_s(c->env, FLOAT8_TRANSPOSE, w);
		return;
	}
	*fwd = copy_s(c->env, FLOAT8_WEIGHT_CAST, w);
	if (c->mode.recompute == RC_FULL)
		*bwd = *fwd;
	else if (c->mode.recompute == RC_OP)
		*bwd = copy_s(c->env, FLOAT8_WEIGHT_RECAST, w);
}

/* Row i's passes of one micro-batch as plan_stage_cost splits a stage's:
 * its forward compute and half the collectives it runs without
 * recomputation; the rest (FSDP refuses block recomputation); and
 * torchao's float8 weight casts. */
static void
row_passes(const struct plan_cell *c, size_t i, double *fwd, double *bwd)
{
	const struct plan_variant *v = c->v;
	struct plan_mode none = c->mode;
	const double *coll = plan_coll(v, &c->mode), *coll_none;
	double half, cast_f, cast_b;

	none.recompute = RC_NONE;
	coll_none = plan_coll(v, &none);
	half = (coll_none[i + 1] - coll_none[i]) / 2;
	*fwd = v->pf_fwd[i + 1] - v->pf_fwd[i] + half;
	*bwd = v->pf_bwd[i + 1] - v->pf_bwd[i] +
	    v->pf_rerun[c->mode.recompute][i + 1] -
	    v->pf_rerun[c->mode.recompute][i] + coll[i + 1] - coll[i] - half;
	float8_weight_s(c, i, &cast_f, &cast_b);
	*fwd += cast_f;
	*bwd += cast_b;
}

/*
 * FSDP2's copies on the compute stream, a unit's bf16 weight bytes x
 * these over the memory's bandwidth (PyTorch's fully_shard,
 * _fsdp_collectives.py and _fsdp_param.py; docs/model.md, "FSDP2"):
 * after each gather the flat output is split into the weights
 * (foreach_all_gather_copy_out's split_with_sizes_copy: read 2 bytes a
 * weight, write 2); before each reduce-scatter the bf16 gradients are
 * cast into its fp32 input (foreach_reduce's chunk_cat: read 2, write
 * 4).  Without gradient sync (kept, pipelined) each backward pass adds
 * its bf16 gradient into an fp32 one (the first pass casts it: read 2,
 * write 4; the others read 4 and 2, write 4), and the last reduce-
 * scatter's input is cast from that (read 4, write 4).  The gathers'
 * copy-in (the fp32 shard cast to bf16 and copied into the gather's
 * buffer: 10 bytes over the shard) runs on its own stream beside the
 * compute and is not priced.
 */
enum {
	FSDP_COPY_OUT = 2,	/* x the bf16 bytes: read 2, write 2 */
	FSDP_CAST_IN = 3,	/* read 2, write 4 */
	FSDP_ACCUMULATE = 5,	/* read 4 + 2, write 4 */
	FSDP_FIRST_SAVES = 2,	/* the first pass's cast: 3, not 5 */
	FSDP_CAST_FP32 = 4,	/* read 4, write 4 */
	/* kept: the last reduce-scatters' casts, less what the first
	 * pass's accumulation saved */
	FSDP_LAST_CAST = FSDP_CAST_FP32 - FSDP_FIRST_SAVES
};

static double
copy_s(const struct plan_env *env, double factor, double bytes)
{
	return env->optimizer_Bps > 0 ? factor * bytes / env->optimizer_Bps :
	    0;
}

void
plan_fsdp_copies_s(const struct plan_env *env, double gathered,
    double params, double *copy_out_s, double *last_cast_s)
{
	*copy_out_s = copy_s(env, FSDP_COPY_OUT, gathered);
	*last_cast_s = copy_s(env, FSDP_LAST_CAST, params);
}

double
plan_fsdp_float8_saved(const struct layer_graph *g, const struct layer *L,
    int fp8_gather)
{
	return fp8_gather && FP8_TORCHAO(g->var_fp8) ?
	    L->fp8_weight_bytes / 2 : 0;
}

/*
 * A forward pass's time over rows [a, b] when nothing is gathered yet:
 * the first unit's gather, then each unit's copy-out and compute beside
 * the next unit's gather; *fwd_sum gains the passes alone.
 */
static double
fsdp_chain_s(const struct plan_cell *c, const struct plan_fsdp_groups *g,
    size_t a, size_t b, double *fwd_sum)
{
	double t = fsdp_unit_gather_s(c, g, a);

	for (size_t i = a; i <= b; i++) {
		double f, bwd, next = i < b ? fsdp_unit_gather_s(c, g, i + 1) :
		    0;

		row_passes(c, i, &f, &bwd);
		*fwd_sum += f;
		t += fmax(f + copy_s(c->env, FSDP_COPY_OUT, row_gathered(c, i)),
		    next);
	}
	return t;
}

/* Whether row i counts in the split (layers_split_count): the embedding
 * and the head only where `ends`. */
static int
row_counts(const struct layer_graph *g, int ends, size_t i)
{
	return ends || (i > 0 && i + 1 < g->n);
}

size_t
plan_chunk_end(const struct layer_graph *g, int ends, size_t first,
    size_t last, long v, size_t a)
{
	long per = v > 1 ? layers_split_count(g, first, last, ends) / v : 0;
	long seen = 0;

	if (per <= 0)
		return last;
	for (size_t i = a; i < last; i++) {
		seen += row_counts(g, ends, i);
		if (seen == per) {
			size_t j = i + 1;

			while (j <= last && !row_counts(g, ends, j))
				j++;
			return j > last ? last : i;
		}
	}
	return last;
}

/*
 * What a kept stage's reductions leave exposed after its last backward
 * pass (`all`: every unit's reduce-scatter and cast, one after another).
 * Interleaved over nchunks chunks (c->mode.v; their reduce-scatters
 * red[k] and casts cast[k]), PyTorch's pipelining issues each chunk's
 * after its own last backward pass (REDUCE_GRAD), and in Megatron's
 * order, which Interleaved1F1B runs where S divides m, chunk k's last
 * backward pass is followed by the last round's k S backward passes of
 * the chunks below it, bwd / v each and perhaps waits between them: so
 * at least k S bwd / v before the stage's end.  The reduce-scatters run
 * one after another from there, the later chunks' first; what reaches
 * past the end is exposed.  Taking no waits in that drain, it credits no
 * more than runs (pipesim's is the simulated one).  More chunks than
 * FSDP_CHUNKS_CREDITED, or the zero-bubble orders (ZB-V, DualPipeV,
 * whose chunks' last W passes this does not place): all of it,
 * uncredited, an upper bound.
 */
#define FSDP_CHUNKS_CREDITED 64

static double
fsdp_kept_reductions_s(const struct plan_cell *c, double all, double bwd,
    const double *red, const double *cast, int nchunks)
{
	double end = -INFINITY, per = bwd / (double)c->mode.v;

	if (c->mode.v <= 1 || nchunks != c->mode.v ||
	    nchunks > FSDP_CHUNKS_CREDITED || c->mode.schedule != PLAN_1F1B)
		return all;
	for (int k = nchunks - 1; k >= 0; k--)
		end = fmax(end, -(double)k * (double)c->K * per + cast[k]) +
		    red[k];
	return fmax(0, end);
}

/*
 * Prices rows [first, last] at slot u under FSDP2 into o, which holds
 * the stage's costs without it.  Resharded after forward (one stage): a
 * micro-batch's forward pass waits for the first unit's gather and then
 * runs each unit in the longer of its compute and the next unit's
 * gather.  Its backward pass runs from the last unit (kept gathered)
 * down, the previous unit's gather beside each; after a unit's backward
 * the compute stream waits for the reduce-scatter before (FSDP2's post-
 * backward reuses its memory) and then starts the unit's own; the pass
 * ends when the last reduce-scatter does (the root's post-backward
 * callback waits for them, every micro-batch: torchtitan never marks a
 * backward pass other than the last).  The gathers and reduce-scatters
 * share the network: a micro-batch takes at least all of their time.
 * Kept (pipelined): no traffic a micro-batch; the step's first forward
 * pass waits as above, S times (micro-batch 0 meets every stage's in the
 * fill), and every unit's reduce-scatter runs after the last backward
 * pass, exposed.  Either way with the copies above in the
 * compute stream's time.  Kept and interleaved (torchtitan's
 * Interleaved1F1B), each of the stage's v chunks is a model part
 * sharded apart, so each chunk's first forward pass waits for its own
 * first unit's gather, and each chunk's reduce-scatters run from its own
 * last backward pass (fsdp_kept_reductions_s).
 */
static void
fsdp_stage_cost(struct plan_cell *c, size_t first, size_t last, long u,
    struct stage_cost *o)
{
	const struct plan_variant *v = c->v;
	size_t at = (size_t)u * NZ;
	double gathers = 0, reduces = 0, fwd_sum = 0, passes = 0;
	double fwd_t, t, rs, back_gathers = 0, casts_f = 0, casts_b = 0;
	/* interleaved, kept: each chunk's reduce-scatters and casts */
	double chunk_red[FSDP_CHUNKS_CREDITED];
	double chunk_cast[FSDP_CHUNKS_CREDITED];
	int nchunks = 0;
	struct plan_fsdp_groups g;

	if (!c->have[at])
		group_costs(c, u, 1);
	g = fsdp_groups(c, at);
	for (size_t i = first; i <= last; i++) {
		double f, b;

		row_passes(c, i, &f, &b);
		gathers += fsdp_unit_gather_s(c, &g, i);
		passes += f + b;
		float8_weight_s(c, i, &f, &b);
		casts_f += f;
		casts_b += b;
	}
	/* torchao's float8 weight casts: compute, a micro-batch */
	o->compute_s += casts_f + casts_b;
	/* the forward pass, a chunk at a time (one without interleaving):
	 * the first unit's gather, then each unit's copy-out and compute
	 * beside the next unit's gather (resharded: every micro-batch;
	 * kept: the step's first); and the chunk's reductions */
	fwd_t = 0;
	for (size_t a = first, b; a <= last; a = b + 1, nchunks++) {
		double red = 0;

		b = plan_chunk_end(v->g, c->mode.ends_in_split, first, last,
		    c->mode.v, a);
		fwd_t += fsdp_chain_s(c, &g, a, b, &fwd_sum);
		for (size_t i = a; i <= b; i++)
			red += fsdp_unit_reduce_s(v, &g, i);
		reduces += red;
		if (nchunks < FSDP_CHUNKS_CREDITED) {
			chunk_red[nchunks] = red;
			chunk_cast[nchunks] = copy_s(c->env, FSDP_LAST_CAST,
			    v->pf_param[b + 1] - v->pf_param[a]);
		}
	}
	o->optimizer_s = optimizer_step_s(c, first, last, 1, 0);
	o->fsdp = g;
	o->grad_dense_cost = o->fsdp.dense;
	o->grad_expert_cost = o->fsdp.expert;
	o->gather_dense_bytes = o->gather_expert_bytes = 0;
	if (c->mode.fsdp == PLAN_FSDP_KEPT) {
		double bytes = v->pf_param[last + 1] - v->pf_param[first];
		/* every backward pass accumulates in fp32 (the last too:
		 * PyTorch's pipelining runs each without gradient sync and
		 * then the stage's post-backward by hand) and the step's
		 * reduce-scatters cast from that; its first pass's
		 * accumulation is a cast */
		double acc = copy_s(c->env, FSDP_ACCUMULATE, bytes);
		double last_cast = copy_s(c->env, FSDP_LAST_CAST, bytes);

		o->zero_s += acc;
		o->load_s += acc + casts_f + casts_b;
		o->forward_s += casts_f;
		o->backward_s += acc + casts_b;
		/* the zero-bubble orders: the accumulation is the W pass's,
		 * which writes the weights' gradients */
		if (c->mode.schedule != PLAN_1F1B)
			o->weight_gradient_s += acc;
		o->grad_s = reduces;
		o->param_s = gathers;
		/* the first forward pass's waits and copies, each stage's
		 * S times: micro-batch 0 meets every stage's first gathers
		 * in turn through the fill (exact for alike stages, an
		 * upper bound otherwise, as the fill priced at the slowest
		 * stage's passes) */
		o->param_exposed_s = (fwd_t - fwd_sum) * (double)c->K;
		o->sync_total_s = gathers + reduces + o->optimizer_s +
		    last_cast;
		o->sync_s = o->param_exposed_s + fsdp_kept_reductions_s(c,
		    reduces + last_cast, o->backward_s, chunk_red, chunk_cast,
		    nchunks) + o->optimizer_s;
		return;
	}
	/* the backward pass from the last unit down (the head kept
	 * gathered since its forward): t where the unit starts, rs where
	 * the reduce-scatter before it ends; a unit's copy-out, its
	 * backward, then its post-backward: the wait for that
	 * reduce-scatter, the cast into its own, which then starts */
	t = rs = 0;
	for (size_t i = last + 1; i-- > first;) {
		double f, b, prev = i > first ? fsdp_unit_gather_s(c, &g,
		    i - 1) : 0;
		double post, out = i < last ? copy_s(c->env, FSDP_COPY_OUT,
		    row_gathered(c, i)) : 0;

		row_passes(c, i, &f, &b);
		post = fmax(t + out + b, rs) + copy_s(c->env, FSDP_CAST_IN,
		    row_params(v, i));
		rs = post + fsdp_unit_reduce_s(v, &g, i);
		back_gathers += prev;
		t = fmax(post, t + prev);
	}
	{
		double mb = fmax(fwd_t + rs, gathers + back_gathers + reduces);
		double m = (double)c->m;

		o->zero_s = mb - passes;
		o->load_s = mb + o->p2p_in_s + o->p2p_out_s;
		o->forward_s = fwd_t;
		o->backward_s = mb - fwd_t;
		o->forward_comm_s = o->forward_s - fmin(o->forward_s,
		    v->pf_fwd[last + 1] - v->pf_fwd[first]);
		o->backward_comm_s = fmax(0, o->collective_s + o->zero_s -
		    o->forward_comm_s);
		o->grad_s = m * reduces;
		o->param_s = m * (gathers + back_gathers);
		o->param_exposed_s = 0;
		o->sync_total_s = o->grad_s + o->param_s + o->optimizer_s;
		o->sync_s = o->optimizer_s;
	}
}

void
plan_stage_cost(struct plan_cell *c, size_t first, size_t last, long u,
    long z, int zs, struct stage_cost *o)
{
	const struct plan_variant *v = c->v;
	const struct network *net = c->env->net;
	size_t at = (size_t)u * NZ + (size_t)zlog(z);
	double fwd = v->pf_fwd[last + 1] - v->pf_fwd[first];
	double bwd = v->pf_bwd[last + 1] - v->pf_bwd[first];
	size_t split = block_split(c, first, last);
	double rerun = v->pf_rerun[c->mode.recompute][split] -
	    v->pf_rerun[c->mode.recompute][first];
	double params = v->pf_param[last + 1] - v->pf_param[first];
	const double *coll = plan_coll(v, &c->mode);
	double grad_s, param_s;
	long nv = c->mode.v;

	o->compute_s = fwd + bwd + rerun;
	o->collective_s = coll[split] - coll[first];
	if (split <= last) {	/* block recomputation's rows run once */
		struct plan_mode none = c->mode;
		const double *coll_none;

		none.recompute = RC_NONE;
		coll_none = plan_coll(v, &none);
		o->collective_s += coll_none[last + 1] - coll_none[split];
	}
	o->level_in = o->level_out = -1;
	o->p2p_in_s = o->p2p_out_s = 0;
	/* activations one way, their gradients the other; interleaved, each
	 * of the v model chunks receives and sends one micro-batch, the first
	 * and last stages v - 1 times across the wrap */
	if (nv == 1 || plan_schedule_chunks(c->mode.schedule) == 2) {
		/* no wrap: one chunk a stage, or the V's two, chunk 0 down
		 * the ranks and chunk 1 back over the same boundaries,
		 * turning inside the last rank (a chunk's cut is the
		 * largest interior one, as interleaved) */
		if (first > 0) {
			o->level_in = cut_level(c, u);
			o->p2p_in_s = 2 * (double)nv * plan_boundary_s(v, net,
			    o->level_in, nv == 1 ? v->cut[first] :
			    v->chunk_bytes);
		}
		if (last + 1 < v->g->n) {
			o->level_out = cut_level(c, u + z);
			o->p2p_out_s = 2 * (double)nv * plan_boundary_s(v, net,
			    o->level_out, nv == 1 ? v->cut[last + 1] :
			    v->chunk_bytes);
		}
	} else {
		o->level_in = first > 0 ? cut_level(c, u) : wrap_level(c);
		o->level_out = last + 1 < v->g->n ? cut_level(c, u + z) :
		    wrap_level(c);
		o->p2p_in_s = 2 * (double)(first > 0 ? nv : nv - 1) *
		    plan_boundary_s(v, net, o->level_in, v->chunk_bytes);
		o->p2p_out_s = 2 * (double)(last + 1 < v->g->n ? nv : nv - 1) *
		    plan_boundary_s(v, net, o->level_out, v->chunk_bytes);
	}
	if (!c->have[at])
		group_costs(c, u, z);
	/* ZeRO-3 gathers the stage's weights for the forward and again for
	 * the backward pass of every micro-batch */
	o->zero_s = zs == 3 ? 2 * net_time(c->zero_gather[at], params) : 0;
	o->load_s = o->compute_s + o->collective_s + o->p2p_in_s +
	    o->p2p_out_s + o->zero_s;
	/* a row's collectives come in conjugate pairs, one each way with
	 * the same bytes (docs/model.md, Plans): the forward's are half of
	 * what it runs without recomputation (passes as run alone: the
	 * combined 1F1B's last backward pass, which the drain credits, and
	 * its first forward pass are) */
	{
		double passes = o->compute_s + o->collective_s + o->zero_s;
		struct plan_mode none = c->mode;

		none.recompute = RC_NONE;
		o->forward_s = fmin(passes, fwd + (plan_coll(v, &none)[last +
		    1] - plan_coll(v, &none)[first]) / 2 + o->zero_s / 2);
		o->backward_s = passes - o->forward_s;
		o->forward_comm_s = o->forward_s - fmin(fwd, o->forward_s);
		o->backward_comm_s = fmax(0, o->collective_s + o->zero_s -
		    o->forward_comm_s);
		o->weight_gradient_s = fmin(o->backward_s,
		    v->pf_wgrad[last + 1] - v->pf_wgrad[first]);
	}
	/* the combined 1F1B's pairs: what they hide comes off the
	 * collectives, and where the combine's compute beside the other
	 * pass's hides more than the exchange, off the compute */
	o->ep_hidden_s = o->ep_pair_save_s = 0;
	{
		const double *save = plan_ep_save(v, &c->mode);

		if (save != NULL) {
			double off;

			o->ep_pair_save_s = save[last + 1] - save[first];
			o->ep_hidden_s = ep_hidden_s(c, o->ep_pair_save_s);
			off = fmin(o->ep_hidden_s, o->collective_s);
			o->collective_s -= off;
			o->compute_s -= o->ep_hidden_s - off;
			o->load_s -= o->ep_hidden_s;
		}
	}
	/* Overlap: the gradient reduction runs during the last micro-batch's
	 * backward pass, the parameter gather during the first one's forward
	 * pass of the next step; only what they do not cover is exposed. */
	stage_sync(c, first, last, u, z, zs, &grad_s, &param_s);
	o->optimizer_s = optimizer_step_s(c, first, last, z, zs);
	o->sync_total_s = grad_s + param_s + o->optimizer_s;
	o->grad_s = grad_s;
	o->param_s = param_s;
	/* what pipesim reduces bucket by bucket (stage_sync's terms) */
	o->grad_scale = zs == 3 || c->mode.distopt ? 0.5 : 1;
	o->grad_dense_cost = o->grad_scale < 1 ? c->ring_dense[at] :
	    c->sync_dense[at];
	o->grad_expert_cost = o->grad_scale < 1 ? c->ring_expert[at] :
	    c->sync_expert[at];
	o->param_exposed_s = exposed_param(c, param_s, fwd);
	o->gather_dense_bytes = o->gather_expert_bytes = 0;
	memset(&o->fsdp, 0, sizeof o->fsdp);
	if (param_s > 0) {
		double dense = v->pf_dense[last + 1] - v->pf_dense[first];
		double fd, fe;

		plan_fp8_gather_saved(v, &c->mode, first, last, &fd, &fe);
		o->gather_dense_bytes = dense - fd;
		o->gather_expert_bytes = params - dense - fe;
	}
	/* under the split schedules the last micro-batch's W pass (a
	 * chunk's) completes the gradients: the reduction hides behind it
	 * alone */
	o->sync_s = exposed_sync(c, grad_s, param_s, c->mode.schedule !=
	    PLAN_1F1B ? o->weight_gradient_s / (double)c->mode.v : bwd +
	    rerun, fwd) + o->optimizer_s;
	if (c->mode.fsdp)
		fsdp_stage_cost(c, first, last, u, o);
	o->first_device = slot_origin(c, u);
	o->devices = z * v->w;
	o->fits = 1;
	memset(&o->mem, 0, sizeof o->mem);
}

void
plan_stage_price(struct plan_cell *c, size_t first, size_t last, long u,
    long z, int zs, long k, struct stage_cost *o)
{
	plan_stage_cost(c, first, last, u, z, zs, o);
	o->fits = plan_stage_memory(c, first, last, z, zs, k, &o->mem);
}

/* What Megatron's interleaved schedule needs of a plan. */
static int
interleave_check(const struct plan_variant *v, const struct plan *p,
    const struct plan_env *env, struct pl_err *err)
{
	long m = plan_microbatches(env->global_batch, v->b, p->d);

	if (p->nstages < 2)
		return pl_errf(err, NULL, p->line, "%ld virtual stages need a "
		    "pipeline of two stages or more", p->v);
	/* Megatron's interleaving; the V-shaped schedules take any m */
	if (p->schedule == PLAN_1F1B && m % p->nstages)
		return pl_errf(err, NULL, p->line, "interleaving: %ld micro-batches "
		    "are not a multiple of the %d stages", m, p->nstages);
	for (int i = 0; i < p->nstages; i++) {
		long layers = layers_split_count(v->g, p->stage[i].first,
		    p->stage[i].last, p->ends_in_split);

		if (p->stage[i].z > 1)
			return pl_errf(err, NULL, p->stage[i].line, "stage %d: "
			    "interleaving with ZeRO copies of a stage is not "
			    "modelled", i);
		if (layers == 0 || layers % p->v)
			return pl_errf(err, NULL, p->stage[i].line, "stage %d: "
			    "%ld virtual stages do not divide its %ld layers "
			    "of the split (%s)", i, p->v, layers,
			    p->ends_in_split ? "the graph's first and last "
			    "rows counted" : "the graph's first and last rows "
			    "not counted; ends_in_pipeline_split=\"1\" counts "
			    "them");
	}
	return 0;
}

int
plan_evaluate(const struct plan_env *env, const struct plan *p,
    struct plan_result *r, struct pl_err *err)
{
	const struct layer_graph *g = p->g;
	struct plan_variant v;
	struct plan_cell cell;
	struct plan_mode mode;
	struct plan_env own = *env;
	long K = 0, u = 0;
	size_t next = 0;
	int zero_copies = 0;

	/* the dispatch is the plan's own (a plan records it) */
	own.deepep = p->deepep;
	env = &own;
	memset(r, 0, sizeof *r);
	if (p->nstages < 1)
		return pl_errf(err, NULL, p->line, "a plan needs at least one stage");
	if (p->d < 1)
		return pl_errf(err, NULL, p->line, "d must be at least 1");
	for (int i = 0; i < p->nstages; i++) {
		const struct plan_stage *s = &p->stage[i];

		if (s->first != next || s->last < s->first || s->last >= g->n)
			return pl_errf(err, NULL, s->line, "stage %d: rows %zu..%zu "
			    "do not continue the previous stage (next row %zu "
			    "of %zu)", i, s->first, s->last, next, g->n);
		if (s->z < 1 || (s->z & (s->z - 1)) || zlog(s->z) > PLAN_ZLOG_MAX)
			return pl_errf(err, NULL, s->line, "stage %d: zero_degree %ld "
			    "is not a power of two up to %d", i, s->z,
			    1 << PLAN_ZLOG_MAX);
		if ((s->z == 1) != (s->zero_stage == 0) || s->zero_stage > 3)
			return pl_errf(err, NULL, s->line, "stage %d: zero_stage %d "
			    "with zero_degree %ld (stage 1-3 exactly when the "
			    "degree is above 1)", i, s->zero_stage, s->z);
		K += s->z;
		zero_copies |= s->z > 1;
		next = s->last + 1;
	}
	if (next != g->n)
		return pl_errf(err, NULL, p->line, "the stages end at row %zu of %zu",
		    next, g->n);
	if (p->recompute < 0 || p->recompute >= RC_N)
		return pl_errf(err, NULL, p->line, "recompute %d is not 0 (none), 1 "
		    "(full), 2 (selective) or 3 (per operator)", p->recompute);
	{
		const char *why = plan_recompute_refused(p->recompute,
		    p->fsdp, g);

		if (why != NULL)
			return pl_errf(err, NULL, p->line, "recompute %d: %s",
			    p->recompute, why);
	}
	if (p->recompute_layers < 0 || (p->recompute_layers > 0 &&
	    p->recompute != RC_FULL))
		return pl_errf(err, NULL, p->line, "recompute_layers %ld: block "
		    "recomputation needs recompute 1 (full) and N >= 1",
		    p->recompute_layers);
	if (p->v < 0)
		return pl_errf(err, NULL, p->line, "virtual stages %ld: not positive",
		    p->v);
	if (p->fsdp) {
		const char *why = plan_fsdp_refused(g);

		if (why != NULL)
			return pl_errf(err, NULL, p->line, "fsdp %d: not priced "
			    "on a graph with %s", p->fsdp, why);
		if (p->distopt || p->overlap_grad || p->overlap_param ||
		    p->tp_overlap || zero_copies)
			return pl_errf(err, NULL, p->line, "fsdp %d: FSDP2 "
			    "replaces Megatron's data parallelism: not with the "
			    "distributed optimizer, its overlaps, "
			    "tp_comm_overlap or ZeRO copies", p->fsdp);
		why = plan_fsdp_schedule_refused(p->fsdp, p->schedule);
		if (why != NULL || p->recompute_layers > 0)
			return pl_errf(err, NULL, p->line, "fsdp %d: priced "
			    "without block recomputation, under 1F1B "
			    "(interleaved or not) or, kept, ZB-V and DualPipeV "
			    "only%s%s", p->fsdp, why ? ": " : "", why ? why :
			    "");
		why = plan_fsdp_plan_refused(p->fsdp, p->fsdp_shard,
		    p->nstages, p->d, layers_var(g, g->var_c, 1) *
		    layers_var(g, g->var_e, 1), p->fp8_param_gather);
		if (why != NULL)
			return pl_errf(err, NULL, p->line, "fsdp %d%s%.0ld with "
			    "d = %ld and %d stage%s: not as torchtitan runs it, "
			    "%s", p->fsdp, p->fsdp_shard > 0 ? ", fsdp_shard " :
			    "", p->fsdp_shard > 0 ? p->fsdp_shard : 0, p->d,
			    p->nstages, p->nstages > 1 ? "s" : "", why);
	}
	if (p->stage_major && p->d > 1) {	/* one replica: the same */
		for (int i = 0; i < p->nstages; i++)
			if (p->stage[i].z > 1)
				return pl_errf(err, NULL, p->stage[i].line ?
				    p->stage[i].line : p->line, "stage %d: "
				    "ZeRO copies placed stage-major (each "
				    "stage's replicas side by side: priced one "
				    "copy a stage)", i);
	}
	if (p->overlap_param && !p->distopt)
		return pl_errf(err, NULL, p->line, "overlapping the parameter gather "
		    "needs the distributed optimizer");
	{
		const char *why = plan_fp8_refused(g, p->fsdp, p->distopt,
		    p->fp8_param_gather);

		if (why != NULL)
			return pl_errf(err, NULL, p->line, "%s", why);
	}
	for (int i = 0; i < p->nstages && p->fp8_param_gather; i++)
		if (p->stage[i].zero_stage > 0)
			return pl_errf(err, NULL, p->stage[i].line ?
			    p->stage[i].line : p->line, "stage %d: ZeRO stage "
			    "%d with the FP8 parameter gather (priced for the "
			    "distributed optimizer's own gather, without ZeRO "
			    "copies)", i, p->stage[i].zero_stage);
	if (p->schedule < PLAN_1F1B || p->schedule >= PLAN_NSCHED)
		return pl_errf(err, NULL, p->line, "schedule %d is not 1f1b, "
		    "zbh1, zbv or dualpipev", p->schedule);
	if (p->schedule != PLAN_1F1B) {
		const char *name = plan_schedule_name[p->schedule];
		long chunks = plan_schedule_chunks(p->schedule);

		if (p->nstages < 2)
			return pl_errf(err, NULL, p->line, "schedule %s needs "
			    "a pipeline of two stages or more (one stage runs "
			    "1F1B's passes)", name);
		if ((p->v > 1 ? p->v : 1) != chunks)
			return pl_errf(err, NULL, p->line, "schedule %s runs "
			    "%ld model chunk%s a stage, not %ld", name, chunks,
			    chunks > 1 ? "s" : "", p->v > 1 ? p->v : 1);
		if (!g->has_wgrad)
			return pl_errf(err, NULL, p->line, "schedule %s "
			    "splits the backward pass: %s has no "
			    "weight_gradient_s column", name, g->file);
		for (int i = 0; i < p->nstages; i++)
			if (p->stage[i].z > 1)
				return pl_errf(err, NULL, p->stage[i].line ?
				    p->stage[i].line : p->line, "stage %d: "
				    "ZeRO copies under schedule %s are not "
				    "modelled", i, name);
	}
	mode = plan_mode_of(p);
	{
		const char *why = plan_ep_overlap_refused(&mode, g,
		    p->nstages, zero_copies);

		if (why != NULL)
			return pl_errf(err, NULL, p->line, "ep_overlap: %s",
			    why);
	}
	if (plan_variant_init(&v, env, g, err) < 0)
		return -1;
	if (mode.v > 1 && interleave_check(&v, p, env, err) < 0) {
		plan_variant_release(&v);
		return -1;
	}
	if (mode.schedule == PLAN_DUALPIPEV) {
		long m = plan_microbatches(env->global_batch, v.b, p->d);

		if (!pipe_dualpipe_ok(p->nstages, m, 0)) {
			plan_variant_release(&v);
			return pl_errf(err, NULL, p->line, "schedule dualpipev "
			    "runs %ld micro-batches through %d stages: it needs "
			    "twice the stages or more", m, p->nstages);
		}
	}
	if (p->d * v.b > env->global_batch || p->d * K * v.w > env->devices) {
		long b = v.b, need = p->d * K * v.w;

		plan_variant_release(&v);
		if (p->d * b > env->global_batch)
			return pl_errf(err, NULL, p->line, "d = %ld replicas of %ld "
			    "samples exceed the global batch of %ld", p->d, b,
			    env->global_batch);
		return pl_errf(err, NULL, p->line, "the plan needs %ld devices, %ld "
		    "are available", need, env->devices);
	}
	plan_cell_init(&cell, env, &v, p->d, K, &mode);
	r->nstages = p->nstages;
	r->stage = xcalloc((size_t)p->nstages, sizeof *r->stage);
	r->m = cell.m;
	r->devices_used = p->d * K * v.w;
	r->fits = 1;
	for (int i = 0; i < p->nstages; i++) {
		const struct plan_stage *s = &p->stage[i];
		struct stage_cost *sc = &r->stage[i];
		double eff;

		plan_stage_price(&cell, s->first, s->last, u, s->z,
		    s->zero_stage, p->nstages - i, sc);
		eff = sc->load_s / (double)s->z;
		if (i == 0 || eff > r->max_load_s) {
			r->max_load_s = eff;
			r->bottleneck = i;
		}
		r->fits &= sc->fits;
		u += s->z;
	}
	/* the exposed sync past the pipeline: each stage's after its own
	 * last backward pass, the drain crediting the later stages
	 * (plan_drain_sync), from the last stage to the first as the
	 * search folds it */
	for (int i = p->nstages - 1; i >= 0; i--) {
		const struct stage_cost *sc = &r->stage[i];
		double y = zero_copies || mode.schedule != PLAN_1F1B ?
		    fmax(r->max_sync_s, sc->sync_s) :
		    plan_drain_sync(r->max_sync_s, sc, mode.v);

		if (i == p->nstages - 1 || sc->sync_s >= y)
			r->sync_stage = i;
		r->max_sync_s = y;
	}
	if (mode.schedule != PLAN_1F1B) {
		double f = 0, b = 0, w = 0, pair = 0;

		for (int i = 0; i < p->nstages; i++) {
			double fi, bi, wi, pi;

			plan_split_passes(&r->stage[i], mode.v, &fi, &bi, &wi,
			    &pi);
			f = fmax(f, fi);
			b = fmax(b, bi);
			w = fmax(w, wi);
			pair = fmax(pair, pi);
		}
		r->step_s = plan_split_step(&cell, f, b, w, pair) +
		    r->max_sync_s;
	} else
		r->step_s = plan_step(r->m, p->nstages, mode.v, r->max_load_s,
		    r->max_sync_s);
	r->throughput_samples_per_s = (double)env->global_batch / r->step_s;
	plan_cell_release(&cell);
	plan_variant_release(&v);
	return 0;
}

double
plan_drain_sync(double later_s, const struct stage_cost *sc, long v)
{
	return fmax(sc->sync_s, later_s - sc->backward_s / (double)(v > 1 ?
	    v : 1));
}

const char *const plan_schedule_name[PLAN_NSCHED] = { "1f1b", "zbh1",
    "zbv", "dualpipev" };

int
plan_schedule_of(const char *name)
{
	for (int k = 0; name && k < PLAN_NSCHED; k++)
		if (strcmp(plan_schedule_name[k], name) == 0)
			return k;
	return -1;
}

long
plan_schedule_chunks(int s)
{
	return s == PLAN_ZBH1 ? 1 : s == PLAN_ZBV || s == PLAN_DUALPIPEV ? 2 : 0;
}

static void
form_build(int schedule, int S, long m, int sampled, struct pipe_form *f)
{
	/* the sampled forms' points (F, B, W, P): about the floor's
	 * triangle (its middle, corners and between), pairs at half their
	 * passes' sum and more (plan_split_mult) */
	static const int at[][FORM_N] = {
		{ 2, 2, 2, 3 }, { 2, 2, 2, 6 }, { 1, 1, 0, 1 }, { 2, 0, 0, 1 },
		{ 0, 2, 0, 1 }, { 2, 2, 1, 4 },
	};
	struct pipe_order *o = xcalloc((size_t)S, sizeof *o);
	int *route = xmalloc(2 * (size_t)S * sizeof *route);
	struct pl_err err;

	pipe_route_v(S, route);
	for (int r = 0; r < S; r++)
		if (schedule == PLAN_ZBV)
			pipe_order_zbv(S, r, m, &o[r]);
		else
			pipe_order_dualpipev(S, r, m, &o[r]);
	/* the orders are the library's own, which never wait in a cycle
	 * (t-pipeline runs them) */
	if ((sampled ? pipe_form_sample(o, S, 2, m, route, at, sizeof at /
	    sizeof at[0], f, &err) : pipe_form_build(o, S, 2, m, route, f,
	    &err)) < 0)
		die("internal error: %s", err.msg);
	for (int r = 0; r < S; r++)
		pipe_order_release(&o[r]);
	free(o);
	free(route);
}

/*
 * The forms a process has made without a shared cache (plan_evaluate's
 * cells), kept for its life: a form depends on (schedule, S, m) alone, a
 * few hundred bytes, and a caller that evaluates many plans (t-dp's
 * enumeration, sweep) asks for the same few again and again (the library
 * runs on one thread).
 */
static struct plan_shape_cache kept_forms;

/*
 * Each micro-batch more adds one round to every rank's steady phase: ZB-V
 * a forward, backward and W pass of each chunk from 2S micro-batches on,
 * DualPipeV two overlapped pairs from 2S + 1 on (its orders' loops; the
 * warm-up and the drain depend on S alone).  From there the form of m
 * micro-batches is the first one's with a round added per micro-batch
 * more, so a form costs O(S^2) to make, not O(S m): where the forms of
 * the first two micro-batch counts are a round apart (checked each time;
 * otherwise the orders are run whole), and t-pipeline checks the rule
 * against the orders run whole for S 2-12, 32 and 64.
 */
static long
steady_from(int schedule, int S)
{
	return schedule == PLAN_ZBV ? 2L * S : 2L * S + 1;
}

/* (F, B and W alike in each) */
static const int steady_round[PLAN_NSCHED][FORM_N] = {
	[PLAN_ZBV] = { [FORM_F] = 2, [FORM_B] = 2, [FORM_W] = 2 },
	[PLAN_DUALPIPEV] = { [FORM_P] = 2 },
};

/* The slot of (schedule, S, m) in sc's table of forms: its entry, or the
 * empty slot it would take. */
static size_t
form_slot(const struct plan_shape_cache *sc, int schedule, int S, long m)
{
	size_t i = ((size_t)schedule * 1000003u + (size_t)S * 9176u +
	    (size_t)m) * 11400714819323198485u >> 20;

	for (i &= sc->fcap - 1; sc->forms[i]; i = (i + 1) & (sc->fcap - 1))
		if (sc->forms[i]->schedule == schedule &&
		    sc->forms[i]->f.S == S && sc->forms[i]->f.m == m)
			break;
	return i;
}

/* Enter e in sc's table, doubling it at half full. */
static void
form_enter(struct plan_shape_cache *sc, struct plan_form_entry *e)
{
	if (2 * (sc->nforms + 1) > sc->fcap) {
		struct plan_shape_cache big = { .fcap = sc->fcap ? 2 * sc->fcap :
		    64 };

		big.forms = xcalloc(big.fcap, sizeof *big.forms);
		for (size_t i = 0; i < sc->fcap; i++)
			if (sc->forms[i])
				big.forms[form_slot(&big, sc->forms[i]->schedule,
				    sc->forms[i]->f.S, sc->forms[i]->f.m)] =
				    sc->forms[i];
		free(sc->forms);
		sc->forms = big.forms;
		sc->fcap = big.fcap;
	}
	sc->forms[form_slot(sc, e->schedule, e->f.S, e->f.m)] = e;
	sc->nforms++;
}

/* Schedule's form for S stages and m micro-batches (key: the schedule,
 * or the schedule + PLAN_NSCHED for its sampled form, pipe_form_sample),
 * found in sc or made there. */
static const struct plan_form_entry *
form_of(struct plan_shape_cache *sc, int key, int S, long m)
{
	int schedule = key % PLAN_NSCHED;
	long m0 = steady_from(schedule, S);
	struct plan_form_entry *e;
	double pair;

	if (sc->fcap && sc->forms[form_slot(sc, key, S, m)])
		return sc->forms[form_slot(sc, key, S, m)];
	e = xmalloc(sizeof *e);
	e->schedule = key;
	/* a pair takes at least half its passes' time (plan_split_mult) */
	pair = schedule == PLAN_DUALPIPEV ? 0.5 : 0;
	if (m > m0 + 1) {
		/* entries are allocated one by one: a and b stay put */
		const struct plan_form_entry *a = form_of(sc, key, S, m0);
		const struct plan_form_entry *b = form_of(sc, key, S, m0 + 1);
		const int *round = steady_round[schedule];

		if (pipe_form_is_shift(&a->f, &b->f, round)) {
			pipe_form_shifted(&a->f, m - m0, round, &e->f);
			/* a round's time is the same all over the floor's
			 * triangle (its F, B and W alike): F + B + W = 1 */
			e->floor = a->floor + (double)(m - m0) * (round[FORM_F] +
			    round[FORM_P] * pair);
			form_enter(sc, e);
			return e;
		}
	}
	form_build(schedule, S, m, key >= PLAN_NSCHED, &e->f);
	e->floor = pipe_form_floor(&e->f, pair);
	form_enter(sc, e);
	return e;
}

double
plan_split_mult(struct plan_shape_cache *sc, int schedule, long S, long m)
{
	if (schedule == PLAN_ZBH1)
		return (double)m + (double)(S - 1) / 3.0;
	/* the sampled form's floor: at most the form's */
	return form_of(sc ? sc : &kept_forms, schedule + PLAN_NSCHED, (int)S,
	    m)->floor / 2;
}

/* The cell's form (sampled: its sampled form, the same peaks), found or
 * made on first use (its memo is the cell's own even where the cell is
 * read as const). */
static const struct pipe_form *
cell_form(const struct plan_cell *c, int sampled)
{
	struct plan_form_memo *memo = c->form;
	const struct pipe_form **f = sampled ? &memo->sampled : &memo->form;

	if (!*f)
		*f = &form_of(c->shared ? c->shared : &kept_forms,
		    c->mode.schedule + (sampled ? PLAN_NSCHED : 0), (int)c->K,
		    c->m)->f;
	return *f;
}

double
plan_split_step(struct plan_cell *c, double f, double b, double w,
    double pair)
{
	if (c->mode.schedule == PLAN_ZBH1)
		return plan_step_zbh1(c->m, (int)c->K, f, b, w);
	/* a schedule that cannot run the cell never ends */
	return c->form ? pipe_form_step(cell_form(c, 0), f, b, w, pair) :
	    INFINITY;
}

/*
 * 1F1B runs m micro-batches through S stages in m + S - 1 slots of the
 * slowest stage; interleaved over v model chunks a stage, the fill and
 * drain take (S - 1)/v of them (Narayanan et al. 2021, Section 2.2).
 */
double
plan_step(long m, int nstages, long v, double max_load_s, double max_sync_s)
{
	return ((double)m + (double)(nstages - 1) / (double)(v > 1 ? v : 1)) *
	    max_load_s + max_sync_s;
}

double
plan_step_zbh1(long m, int nstages, double f, double b, double w)
{
	double F = fmax(f, w), B = fmax(b, w);
	long p = m < nstages ? m : nstages;

	return (double)m * (F + B + w) + (double)(nstages - 1) * (F + B) -
	    (double)(p - 1) * w;
}

void
plan_split_passes(const struct stage_cost *sc, long v, double *f, double *b,
    double *w, double *pair)
{
	double nv = (double)(v > 1 ? v : 1);
	/* a chunk's: the stage's sends are its v chunks' */
	double sends = (sc->p2p_in_s + sc->p2p_out_s) / (2 * nv);
	double own = (sc->forward_s + sc->backward_s) / nv;
	double comm = (fmin(sc->forward_comm_s, sc->forward_s) +
	    fmin(sc->backward_comm_s, sc->backward_s)) / nv;

	/* a forward pass receives its input and sends its output, a
	 * backward pass the same of their gradients: each half of the
	 * sends the load counts a chunk */
	*f = sc->forward_s / nv + sends;
	*w = sc->weight_gradient_s / nv;
	*b = fmax(0, sc->load_s / nv - *f - *w);
	*pair = fmax(own - comm, comm) + 2 * sends;
}

void
plan_result_release(struct plan_result *r)
{
	free(r->stage);
	memset(r, 0, sizeof *r);
}

void
network_flatten(const struct network *net, struct network *flat)
{
	memset(flat, 0, sizeof *flat);
	memcpy(flat->name, net->name, sizeof flat->name);
	flat->nlevels = 1;
	flat->level[0] = net->level[0];
	flat->level[0].fanout = net->ndevices;
	/* a node's switch reduces in the fabric, not the whole cluster */
	flat->level[0].nvls_efficiency = 0;
	flat->span[0] = net->ndevices;
	flat->ndevices = net->ndevices;
}
