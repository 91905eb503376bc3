/*
 * plan.h - a training plan and the one evaluator every method shares (the
 * default cost model; docs/model.md, "Plans", states it rule by rule).
 *
 * A plan takes one intra-layer variant (a per-layer graph with t, e, c, sp
 * and micro-batch b; w = t*e*c devices), a data-parallel degree d, S
 * contiguous stages, and how Megatron-LM runs them (struct plan_mode):
 * recomputation none, full or selective, v virtual stages a stage
 * (interleaved 1F1B), the distributed optimizer, and whether the
 * gradient reduction and the parameter gather overlap with compute.
 * Stage i has w * z_i devices, z_i > 1 being copies of the stage that
 * share its micro-batches and shard its states ZeRO-style.  Replica r of
 * the pipeline occupies devices [r*R, (r+1)*R), R = sum w*z_i, stages one
 * after another, so every device of every replica has an id on the
 * network.
 *
 *   load_i = compute (+ recomputation) + intra-layer collectives
 *            + v * (p2p in + p2p out) + ZeRO gathers  (one micro-batch, one copy)
 *   step   = (m + (S - 1) / v) * max_i load_i / z_i + max_i sync_i,
 *   m      = ceil(B / (b d)),  throughput = B / step,
 * sync_i being the part of stage i's gradient reduction (and parameter
 * gather) that no computation hides, and its optimizer step.
 *
 * The dynamic program (dp.h) prices stages with plan_stage_cost() on the
 * same plan_cell, so the time it reports is the evaluator's, bit for bit.
 */
#ifndef NP_PLAN_H
#define NP_PLAN_H

#include <stddef.h>

#include "base/util.h"
#include "model/layers.h"
#include "model/mem.h"
#include "model/netmodel.h"

#define PLAN_ZLOG_MAX 10		/* z = 1, 2, 4, ..., 1024 */

/* What a plan runs on. */
struct plan_env {
	const struct network *net;
	long devices;			/* usable devices, <= net->ndevices */
	double memory_bytes;		/* per device */
	int optimizer;			/* OPT_ADAM or OPT_SGD */
	long global_batch;		/* B, samples */
	double grad_bytes_per_param;	/* 2 (bf16) or 4 (fp32); 0 reads 2 */
	/* how the runtime runs the plans of methods that do not choose it
	 * (the baselines): the distributed optimizer, overlap */
	int distopt, overlap;
	int tp_overlap;			/* --tp-comm-overlap where sp */
	/* a mixture's tokens dispatched and combined by DeepEP's
	 * hierarchical kernels (Megatron-Core's flex dispatcher,
	 * routing.h) instead of the flat all-to-all; experts whole */
	int deepep;
	double grad_copies;		/* 2: PyTorch DDP's buckets (mem.h);
					 * 0 reads 1 */
	/* Megatron-LM of 2021-22 (--scatter-gather-tensors-in-pipeline, its
	 * default then; Narayanan et al. SC'21, Section 4.1): a tensor-
	 * parallel activation crosses a stage boundary as t pieces, one a
	 * rank over its own link, all-gathered over the t ranks on arrival.
	 * Megatron-Core sends it whole (0, the default). */
	int p2p_scatter_gather;
	/* Megatron-LM before 2021-08-30 (SC'21's runs): a column-parallel
	 * product's input-gradient all-reduce waits for its weight
	 * gradient instead of running beside it; 0 (async), Megatron-LM's
	 * way since (docs/model.md, "Tensor-parallel overlap") */
	int tp_grad_blocking;
	/* the optimizer step's memory traffic: the accelerator's HBM
	 * bandwidth times its memory efficiency, bytes/s; 0: not priced */
	double optimizer_Bps;
	/* the SMs --tp-comm-overlap's pipelined and bulk kernels take from
	 * the products beside them (accel_tp_comm_sm_share); 0: not priced */
	double tp_comm_sm_share;
};

/* How Megatron-LM runs a plan, beyond its layout. */
struct plan_mode {
	int recompute;			/* RC_NONE, RC_FULL, RC_SELECTIVE */
	long v;				/* virtual stages a stage; 1: none */
	int distopt;			/* --use-distributed-optimizer */
	int overlap_grad;		/* --overlap-grad-reduce */
	int overlap_param;		/* --overlap-param-gather (distopt) */
	int ends_in_split;		/* the embedding and the head count as
					 * layers when v splits a stage
					 * (Megatron's --account-for-*-in-
					 * pipeline-split) */
	int tp_overlap;			/* --tp-comm-overlap (Transformer
					 * Engine's userbuffers; sp only) */
	long recompute_layers;		/* RC_FULL by --recompute-method
					 * block: only the first N layers of
					 * each model chunk recomputed, the
					 * rest keep everything; 0: all */
	/* --fp8-param-gather (with the distributed optimizer, on an FP8
	 * graph): the FP8 weights are the model's own, with no bf16 copy,
	 * cast from the fp32 master shards after the optimizer step and
	 * gathered in FP8 (MXFP8: gathered in bf16 through the gradient
	 * buffer, --reuse-grad-buf-for-mxfp8-param-ag, and quantized on
	 * arrival); docs/model.md, "FP8".  Under FSDP2 on a float8 graph,
	 * torchao's float8 all-gather (torchtitan's
	 * enable_fsdp_float8_all_gather with its precomputed scales) */
	int fp8_param_gather;
	/* the pipeline schedule: PLAN_1F1B, Megatron-LM's (interleaved
	 * where v > 1); without ZeRO copies, the zero-bubble ones that split
	 * W passes off: PLAN_ZBH1 (v = 1), whose W passes fill the drain
	 * (plan_step_zbh1), and the V-shaped PLAN_ZBV and PLAN_DUALPIPEV
	 * (v = 2, a stage's chunks the V's two arms; plan_split_step) */
	int schedule;
	/* PyTorch's FSDP2 as torchtitan applies it (docs/model.md, "FSDP2")
	 * in place of Megatron's data parallelism: every parameter, its
	 * gradient and Adam's states sharded over the stage's data-parallel
	 * group (d c e devices; an expert's over the d c of its expert rank,
	 * torchtitan's efsdp), a row a unit, gathered in bf16 and its
	 * gradient reduce-scattered in fp32.  PLAN_FSDP_RESHARD: each unit
	 * gathered for every micro-batch's forward and again for its
	 * backward pass, its gradient reduce-scattered after each (one
	 * stage: torchtitan's default without pipelining); PLAN_FSDP_KEPT:
	 * gathered on the step's first forward pass and kept, the gradients
	 * reduce-scattered once after the last backward pass (its default
	 * with pipelining; interleaved too, each chunk a model part of its
	 * own).  0: off. */
	int fsdp;
	/* HSDP: FSDP2 sharded over groups of fsdp_shard replicas (times
	 * their c context and e expert ranks; an expert's their c), the
	 * groups' gradients all-reduced across
	 * the d / fsdp_shard groups after every reduce-scatter
	 * (torchtitan's data_parallel_shard_degree and _replicate_degree);
	 * 0: over all d replicas */
	long fsdp_shard;
	/* Where the stages sit (docs/model.md, Plans): 0, a replica's
	 * stages one after another (Megatron's --use-tp-pp-dp-mapping); 1,
	 * stage-major: each stage's d replicas side by side, the stages one
	 * after another (Megatron's default order, torchtitan's mesh), no
	 * ZeRO copies */
	int stage_major;
	/* Megatron-Core's combined 1F1B (--overlap-moe-expert-parallel-comm
	 * with --delay-wgrad-compute; docs/model.md, "Expert exchange
	 * overlap"): in the steady state one micro-batch's forward pass and
	 * another's backward pass run merged, layer by layer, each pass's
	 * dispatch and combine on a stream of their own beside the other
	 * pass's compute (plan_ep_pair_s).  A rank's warm-up forward passes
	 * (Megatron's count and one more) and its cool-down backward passes
	 * run alone.  1F1B, no pipeline or an interleaved one, no full
	 * recomputation, expert ranks, no ZeRO copies or FSDP2
	 * (plan_ep_overlap_refused); 0: off */
	int ep_overlap;
};

/* plan_mode.fsdp */
enum { PLAN_FSDP_OFF, PLAN_FSDP_RESHARD, PLAN_FSDP_KEPT };

/* The largest HSDP shard group the search lists (shard groups of 1, 2,
 * 4, ... PLAN_HSDP_MAX replicas; a plan may name any divisor of d). */
#define PLAN_HSDP_MAX 1024

/* Why FSDP2 is not priced on graph g (a phrase), or NULL: not with
 * Transformer Engine's FP8 recipes (torchao's float8 it is). */
const char *plan_fsdp_refused(const struct layer_graph *g);
/* Why a plan's FSDP2 (fsdp), distributed optimizer and FP8 parameter
 * gather (under FSDP2: torchao's float8 all-gather) cannot run together
 * on graph g's FP8 recipe, or NULL. */
const char *plan_fp8_refused(const struct layer_graph *g, int fsdp,
    int distopt, int fp8_gather);

/* Why Megatron-LM does not run plan p placed as it is (a phrase), or
 * NULL: a replica's stages one after another with two stages and two
 * replicas or more need --use-tp-pp-dp-mapping,
 * which core_v0.15.0 runs only where the experts' tensor and expert
 * ranks are as many as the attention's tensor and context ranks
 * (parallel_state.py asserts equal data-parallel sizes with pp not
 * last); stage-major, its default order, it runs whatever the layout. */
const char *plan_megatron_order_refused(const struct layer_graph *g,
    long S, long d, int stage_major);
/* The same rule given the graph's part of it (plan_variant.order_differs:
 * whether its experts' tensor and expert ranks differ in number from its
 * attention's tensor and context ranks), as the search asks it a cell. */
const char *plan_megatron_order_refused_by(int order_differs, long S, long d,
    int stage_major);
int plan_megatron_order_differs(const struct layer_graph *g);

/* Why recomputation kind rc does not run beside FSDP2 mode `fsdp` (0:
 * Megatron's data parallelism) on graph g (a phrase), or NULL:
 * torchtitan's per-operator checkpointing beside FSDP2 only, on graphs
 * that price it; Megatron's selective recomputation beside Megatron's
 * data parallelism only. */
const char *plan_recompute_refused(int rc, int fsdp,
    const struct layer_graph *g);

/* Why FSDP2 mode `fsdp` does not run S stages over a data-parallel group
 * of `group` devices (d c) as torchtitan runs it (a phrase), or NULL:
 * resharded after forward on one stage only, kept on two or more (one
 * stage reshards after backward and reduces every micro-batch whatever
 * it is told), over two devices or more (over one it applies none). */
const char *plan_fsdp_layout_refused(int fsdp, long S, long group);

/* Why HSDP over groups of `shard` replicas of d does not run (a phrase),
 * or NULL: shard divides d, 0 < shard < d (0 is plain FSDP2). */
const char *plan_hsdp_refused(long shard, long d);

/* Both rules above for FSDP2 mode `fsdp` over S stages of d replicas of c
 * devices sharing the dense weights (context and expert ranks, c e),
 * sharded over groups of `shard` (0: all d), and its float8 all-gather
 * (fp8_gather) over a shard group of two data-parallel ranks or more
 * (torchtitan enables it only where data_parallel_shard_degree > 1): the
 * one test of the evaluator, the search and t-dp's enumeration. */
const char *plan_fsdp_plan_refused(int fsdp, long shard, long S, long d,
    long c, int fp8_gather);
/* Why FSDP2 mode `fsdp` is not priced under `schedule` (PLAN_*), or
 * NULL: 1F1B, or kept under ZB-V and DualPipeV (torchtitan's
 * ZBVZeroBubble and DualPipeV). */
const char *plan_fsdp_schedule_refused(int fsdp, int schedule);
/* Why a plan's FP8 parameter gather cannot run on FP8 recipe `recipe`
 * beside its FSDP2 mode and distributed optimizer, or NULL: Megatron's
 * with the distributed optimizer on an FP8 graph, FSDP2's float8
 * all-gather on torchao's float8 (plan_fp8_refused's part for it). */
const char *plan_fp8_gather_refused(int recipe, int fsdp, int distopt);

/* The schedules the search prices (plan_mode.schedule). */
enum { PLAN_1F1B, PLAN_ZBH1, PLAN_ZBV, PLAN_DUALPIPEV, PLAN_NSCHED };

/* Their names in plans and on dpsolve's -Y: 1f1b, zbh1, zbv, dualpipev. */
extern const char *const plan_schedule_name[PLAN_NSCHED];

/* The schedule a name names, or -1. */
int plan_schedule_of(const char *name);

/* The chunks a stage schedule s runs: 1 (ZB-H1), 2 (the V-shaped), 0
 * (1F1B: any). */
long plan_schedule_chunks(int s);

struct plan_stage {
	size_t first, last;		/* rows of the variant's graph */
	long z;				/* copies: the stage has w*z devices */
	int zero_stage;			/* 0 when z == 1, else 1..3 */
	size_t line;			/* of its <stage> in a plan file, 0 */
};

struct plan {
	const struct layer_graph *g;	/* the variant */
	long d;
	int recompute;			/* RC_* */
	int nstages;
	struct plan_stage *stage;
	/* the rest of the plan's mode (0: v = 1, all off) */
	long v;
	int distopt, overlap_grad, overlap_param, ends_in_split, tp_overlap;
	long recompute_layers;		/* as plan_mode's; 0: all */
	int fp8_param_gather;		/* as plan_mode's */
	int deepep;			/* the dispatch it was priced with
					 * (plan_env.deepep) */
	int schedule;			/* as plan_mode's */
	int fsdp;			/* as plan_mode's */
	long fsdp_shard;		/* as plan_mode's */
	int stage_major;		/* as plan_mode's */
	int ep_overlap;			/* as plan_mode's */
	/* a plan file's record of the device factor it was priced with
	 * (its root's straggler_factor, planio_stragglers); 0: none */
	double straggler_factor;
	size_t line;			/* of <parallelism> in a plan file, 0 */
};

/* One layer's passes as the combined 1F1B runs them apart (plan_ep_pair_s). */
struct ep_pair {
	/* compute stream: micro-batch j's attention (everything of the layer
	 * but its experts and its combine's compute), i's experts' backward,
	 * its share that is their weights' gradient (run after the rest,
	 * holding nothing on the other stream: --delay-wgrad-compute's
	 * backward_dw), j's experts, i's attention's backward */
	double attn_f, experts_b, experts_w, experts_f, attn_b;
	/* communication stream: each of the four exchanges (dispatch and
	 * combine, each way), and the combine's own compute after its
	 * exchange, forward and backward */
	double exchange, combine_f, combine_b;
};

/*
 * One layer's pair of passes under the combined 1F1B: micro-batch j's
 * forward pass and micro-batch i's backward pass, merged as Megatron-
 * Core's TransformerLayerSchedulePlan.run issues them (core_v0.15.0): the
 * compute stream runs j's attention, i's experts' backward and their
 * weights' gradient, j's experts and i's attention's backward; the
 * communication stream i's combine backward, j's dispatch, i's dispatch
 * backward and j's combine; each node waits for the one before it on its
 * own micro-batch (a node's event) and on its own stream, the weights'
 * gradient for its stream alone.  Returns the time from the pair's start
 * to its last end.
 */
double plan_ep_pair_s(const struct ep_pair *p);

/* Why a mode's combined 1F1B cannot run on graph g with `stages` stages
 * (Megatron-Core's TransformerConfig and arguments.py asserts, and what
 * the model prices), or NULL where it can (or the mode is off). */
const char *plan_ep_overlap_refused(const struct plan_mode *m,
    const struct layer_graph *g, int stages, int zero_copies);

/* The mode of a plan (v = 0 read as 1). */
struct plan_mode plan_mode_of(const struct plan *p);

/* Whether p's block recomputation (recompute_layers N) prices every row
 * as full recomputation does: every layer recomputed, and the rows past
 * them (an embedding, a head) alike under none and full.  The plan is
 * then full recomputation, at the same cost. */
int plan_block_is_full(const struct plan *p);

/* FSDP2's groups of a stage (plan.c, fsdp_stage_cost): the dense weights'
 * shard group and the experts' (all-reduce costs, a gather half that of
 * its bf16 bytes, a reduce-scatter half that of its fp32 bytes), HSDP's
 * replicas (hsdp 1: each shard's fp32 gradient all-reduced over them
 * after its reduce-scatter), and the devices each kind is sharded over. */
struct plan_fsdp_groups {
	struct net_cost dense, expert, replica;
	double shards, shards_expert;
	int hsdp;
};

/* A unit's gather and its gradient's reduction (with HSDP's all-reduce)
 * of `dense` and `expert` bf16 bytes on a device: what fsdp_stage_cost
 * prices a row, for pipesim to replay. */
double plan_fsdp_gather_s(const struct plan_fsdp_groups *f, double dense,
    double expert);
double plan_fsdp_reduce_s(const struct plan_fsdp_groups *f, double dense,
    double expert);

/* FSDP2's copies on the compute stream for a unit: the copy-out after
 * its gather of `gathered` bytes, and (kept) the cast of its fp32
 * accumulated gradient into the last reduce-scatter's input, for
 * `params` bytes of its bf16 weights. */
void plan_fsdp_copies_s(const struct plan_env *env, double gathered,
    double params, double *copy_out_s, double *last_cast_s);

/* What torchao's float8 all-gather (a plan's fp8_param_gather under
 * FSDP2) takes off layer L's gathered bytes on graph g: its float8
 * weights a byte each, half their bf16 bytes; 0 without it. */
double plan_fsdp_float8_saved(const struct layer_graph *g,
    const struct layer *L, int fp8_gather);

/* The last row of the chunk that starts at row a of a stage of rows
 * [first, last] cut into v chunks of equal rows of the split (the
 * embedding and the head counted as rows where `ends`, else in the first
 * and the last chunk; a chunk that fills up before rows that count for
 * none, the head, takes them): FSDP2's model parts when interleaved.
 * One chunk (v 1, or fewer rows of the split than v): last. */
size_t plan_chunk_end(const struct layer_graph *g, int ends, size_t first,
    size_t last, long v, size_t a);

struct stage_cost {
	double compute_s, collective_s, p2p_in_s, p2p_out_s, zero_s;
	/* the load less its sends, as one micro-batch's forward pass (its
	 * rows' forward compute, half the collectives they run without
	 * recomputation, the first ZeRO-3 gather) and backward pass (the
	 * rest): what pipesim runs */
	double forward_s, backward_s;
	/* the weights' gradients' share of backward_s (the rows' column
	 * weight_gradient_s): a zero-bubble schedule's W pass */
	double weight_gradient_s;
	/* the collectives' (and ZeRO-3 gathers') share of each pass, which
	 * DualPipe's overlapped pairs hide behind the other pass */
	double forward_comm_s, backward_comm_s;
	/* the combined 1F1B's hiding (plan_mode.ep_overlap): what the
	 * last rank's merged pairs, on the step's longest path, hide of
	 * the stage's, spread over the closed form's m + (S - 1)/v slots,
	 * and taken off collective_s (and, where the combine's compute
	 * hides more than the exchange, off compute_s); forward_s and
	 * backward_s stay the passes as run alone */
	double ep_hidden_s;
	/* and what a pair of its passes saves, a micro-batch's, against
	 * the two run alone (its rows' plan_ep_pair_s; 0 without it) */
	double ep_pair_save_s;
	double load_s;			/* their sum: one micro-batch, one copy */
	double sync_s;			/* the exposed part of sync_total_s */
	double sync_total_s;		/* gradient reduction over d*z copies
					 * (and the distributed optimizer's
					 * parameter gather), and the
					 * optimizer step */
	double optimizer_s;		/* the optimizer step (in both) */
	/* sync_total_s's gradient reduction and parameter gather; the
	 * reduction's network costs over the dense and the experts' data-
	 * parallel groups, a gradient byte at a time, times grad_scale
	 * (a reduce-scatter's half): what pipesim reduces by buckets */
	double grad_s, param_s;
	struct net_cost grad_dense_cost, grad_expert_cost;
	double grad_scale;
	double param_exposed_s;		/* of param_s, what sync_s exposes */
	/* the bytes param_s gathers a device, the dense weights' over
	 * grad_dense_cost's group and the experts' over grad_expert_cost's
	 * (bf16, or FP8 with --fp8-param-gather); 0 without the gather */
	double gather_dense_bytes, gather_expert_bytes;
	struct plan_fsdp_groups fsdp;	/* under FSDP2 (else zero) */
	int level_in, level_out;	/* network level of each boundary, -1 */
	struct mem_breakdown mem;
	int fits;
	long first_device, devices;	/* replica 0 */
};

struct plan_result {
	double step_s, throughput_samples_per_s;
	/* max load_i / z_i; the exposed sync past the pipeline's step:
	 * max_i (sync_i - what the drain credits stage i, plan_drain_sync),
	 * or without that credit (ZeRO copies) max sync_i */
	double max_load_s, max_sync_s;
	long m, devices_used;
	int nstages, bottleneck, sync_stage, fits;
	struct stage_cost *stage;	/* nstages, owned */
};

/* One variant's per-row costs, independent of d and placement. */
struct plan_variant {
	const struct layer_graph *g;
	long t, e, c, sp, b, w;
	long et;			/* the experts' tensor split (t or 1) */
	int order_differs;		/* plan_megatron_order_differs */
	double *pf_fwd, *pf_bwd, *pf_wgrad, *pf_param, *pf_dense, *pf_fp8;
	double *pf_fp8_expert;		/* the experts' share of pf_fp8 */
	/* by recomputation kind: what rows keep, what they run again, and
	 * their collectives (full recomputation runs the forward's again) */
	double *pf_kept[RC_N], *pf_rerun[RC_N], *pf_coll[RC_N];
	/* the same collectives with --tp-comm-overlap (sp variants; else
	 * NULL): plan_coll() picks */
	double *pf_coll_tpo[RC_N];
	/* what the combined 1F1B saves on each row's merged pair of passes
	 * against the two run alone (plan_ep_pair_s), by recomputation
	 * (none and selective; NULL else) and --tp-comm-overlap (0, 1);
	 * NULL where the graph has no experts' times */
	double *pf_ep_save[2][RC_N];
	double **working[RC_N];		/* sparse tables: range max of what a
					 * row recomputes (activations - kept) */
	double **kept_max[RC_N];	/* and of what a row keeps */
	double *cut;			/* [i]: bytes entering row i from rows < i */
	double chunk_bytes;		/* the largest interior cut: what one
					 * virtual stage sends the next */
	int scatter_gather;		/* a boundary's activations cross in t
					 * pieces (plan_env.p2p_scatter_gather) */
	struct net_cost coll[LCOLL_N];
};

/* Rows' prefix sums of the combined 1F1B's saving in mode m (the
 * variant's pf_ep_save), or NULL where the mode is off or it has none. */
const double *plan_ep_save(const struct plan_variant *v,
    const struct plan_mode *m);

/* What a plan of graph g run in mode m records as its tp_comm_overlap:
 * --tp-comm-overlap needs sequence parallelism (Megatron-LM asserts it),
 * so a search mode that allows it leaves it off elsewhere. */
int plan_records_tp_overlap(const struct plan_mode *m,
    const struct layer_graph *g);

/* The bytes --fp8-param-gather takes off the parameter gather of rows
 * [first, last] in mode m, the dense parameters' and the experts': an FP8
 * weight crosses in one byte, half its bf16 bytes (MXFP8's, gathered in
 * bf16, in two: none off).  0 and 0 without the gather. */
void plan_fp8_gather_saved(const struct plan_variant *v,
    const struct plan_mode *m, size_t first, size_t last, double *dense,
    double *expert);

/* The prefix sums of a variant's exposed intra-layer collectives under a
 * mode (its recomputation and --tp-comm-overlap). */
const double *plan_coll(const struct plan_variant *v,
    const struct plan_mode *m);

/* Group costs shared by the cells of variants with the same t, e, c (a
 * hash table keyed by the group's generator; optional). */
struct plan_shape_cache {
	size_t cap, n;
	struct plan_shape_entry *e;
	/* the V-shaped schedules' forms, a hash table by (schedule, S, m)
	 * of fcap slots (a power of two; NULL: empty) */
	struct plan_form_entry **forms;
	size_t nforms, fcap;
};
void plan_shape_cache_release(struct plan_shape_cache *sc);

/* Placement-dependent costs for one (variant, d, R), cached lazily. */
struct plan_form_memo;
struct plan_cell {
	struct plan_shape_cache *shared;	/* NULL: none */
	/* the V-shaped schedules' form (plan_split_step), found on first
	 * use: in shared where there is one, else in the process's own
	 * cache */
	struct plan_form_memo *form;
	const struct plan_env *env;
	const struct plan_variant *v;
	long d, K;			/* R = K * w devices a replica */
	long m;
	struct plan_mode mode;
	signed char *cut_level;		/* [u]: level of the boundary at slot u */
	int wrap_level;			/* last stage to first (v > 1); -2: not
					 * yet known */
	/* the data-parallel groups' all-reduce (in the fabric where a
	 * level's switches reduce cheaper), and the ring's all-reduce that
	 * the reduce-scatters and all-gathers are halves of */
	struct net_cost *sync_dense, *sync_expert, *ring_dense, *ring_expert;
	struct net_cost *zero_gather;
	/* HSDP (mode.fsdp_shard): a shard group's ring all-reduce, of the
	 * dense weights and of an expert's, and the replicas' of a shard,
	 * the worst of their groups; NULL without */
	struct net_cost *hsdp_shard, *hsdp_shard_expert, *hsdp_replica;
	unsigned char *have;		/* [u * (ZLOG+1) + zlog] cached */
};

int plan_variant_init(struct plan_variant *v, const struct plan_env *env,
    const struct layer_graph *g, struct pl_err *err);
void plan_variant_release(struct plan_variant *v);

/* A cell of K slots a replica; with v > 1 there are no ZeRO copies, so
 * its pipeline has S = K stages. */
void plan_cell_init(struct plan_cell *c, const struct plan_env *env,
    const struct plan_variant *v, long d, long K,
    const struct plan_mode *mode);
void plan_cell_release(struct plan_cell *c);

/* Eq. 1's description of rows [first, last] as a stage k-th from the end
 * with z copies at ZeRO stage zs, in the cell's mode. */
struct mem_stage plan_mem_stage(const struct plan_cell *c, size_t first,
    size_t last, long z, int zs, long k);

/*
 * Memory of rows [first, last] as a stage k-th from the end with z copies
 * at ZeRO stage zs; returns 1 when it fits.
 */
int plan_stage_memory(const struct plan_cell *c, size_t first, size_t last,
    long z, int zs, long k, struct mem_breakdown *mem);

/*
 * Price rows [first, last] placed at slot u (devices r*R + u*w ...) with z
 * copies at ZeRO stage zs, k-th from the pipeline end.
 */
void plan_stage_price(struct plan_cell *c, size_t first, size_t last,
    long u, long z, int zs, long k, struct stage_cost *out);

/* One way across a stage boundary at network level `level`, `bytes` a
 * device: point to point, or with scatter/gather t pieces and the
 * all-gather of the t ranks. */
double plan_boundary_s(const struct plan_variant *v,
    const struct network *net, int level, double bytes);

/* The same without the memory (fits = 1, mem zero), for a caller that has
 * already checked it (the DP, through dp_stage_zero). */
void plan_stage_cost(struct plan_cell *c, size_t first, size_t last,
    long u, long z, int zs, struct stage_cost *out);

/*
 * The drain's credit (issue 35, item 3): every stage reduces its exposed
 * gradients (sync_s) after its own last backward pass, and stage i's
 * comes before stage 0's by the last micro-batch's backward passes of
 * stages 0..i-1 (a chunk's, 1/v of a stage's, interleaved), so the step
 * is the pipeline's plus max_i (sync_i - those passes).  Folded from the
 * last stage to the first: later_s the value for the stages after sc's,
 * the result for sc's and after.  Plans with ZeRO copies take no credit
 * (a stage's copies need not end with the last micro-batch).
 */
double plan_drain_sync(double later_s, const struct stage_cost *sc, long v);
/* (m + (S - 1) / v) * max_load + max_sync (plan_result.max_sync_s: after
 * the drain's credit): the one formula of a step. */
double plan_step(long m, int nstages, long v, double max_load_s,
    double max_sync_s);


/* The whole sync of rows [first, last] at slot u with one copy (z = 1),
 * none of it hidden. */
double plan_stage_sync(struct plan_cell *c, size_t first, size_t last, long u);

/*
 * The least exposed sync (as plan_stage_cost's sync_s) of any one-copy
 * stage at slot u that holds row i, when its backward and forward pass
 * of a micro-batch are at most bwd_max and fwd_max: the reduction, the
 * gather and the optimizer step of more rows cost no less than row i's
 * alone, and the overlap hides at most those passes.
 */
double plan_row_sync_floor(struct plan_cell *c, size_t i, long u,
    double bwd_max, double fwd_max);

/*
 * ZB-H1's step through S stages of m micro-batches (Qi et al., ICLR 2024,
 * Section 2.1; docs/model.md, "ZB-H1 in the search"), its exposed sync
 * aside, a stage's forward pass f, input-gradient pass b and weight-
 * gradient pass w (f and b each with one transfer over each of the
 * stage's boundaries, as plan_split_passes halves the load's sends
 * between them; w none) being at most f, b and w:
 *
 *     m (F + B + W) + (S - 1)(F + B) - (min(m, S) - 1) W,
 *     F = max(f, w), B = max(b, w), W = w,
 *
 * exact where every stage's passes are F, B and W (W at most F and B;
 * for m >= S the paper's bubble (S - 1)(F + B - W)), and an upper bound
 * on any other stages (an order of passes fixed, a step only grows with
 * a pass's time): t-pipeline checks both against the simulation.
 */
double plan_step_zbh1(long m, int nstages, double f, double b, double w);

/*
 * A stage's passes as the split schedules take them, a chunk's (v alike
 * chunks a stage): f its forward pass, b its backward pass less w, w its
 * W pass (the weights' gradient), each of f and b with half the chunk's
 * share of the load's sends (one transfer over each of the stage's
 * boundaries, the V's chunks both over the same two);
 * and pair, DualPipe's overlapped F&B, a forward and a whole backward
 * pass each taking its communication beside the other's compute, the
 * longer of the two, plus both passes' sends.
 */
void plan_split_passes(const struct stage_cost *sc, long v, double *f,
    double *b, double *w, double *pair);

/*
 * The step of a split schedule's pipeline (the cell's schedule, K
 * stages, the cell's m micro-batches), its exposed sync aside, at every
 * stage's passes at most f, b, w and pair (plan_split_passes): ZB-H1's
 * closed form (plan_step_zbh1); ZB-V's and DualPipeV's form
 * (sim/form.h), the longest chain of their fixed orders at those passes.
 * Exact where every stage's passes are those (W at most F and B) and
 * the transfers take no time, an upper bound on any other stages.
 */
double plan_split_step(struct plan_cell *c, double f, double b, double w,
    double pair);

/*
 * The multiplier of the slowest stage's load in a lower bound on a split
 * schedule's step through S stages of m micro-batches, its exposed sync
 * aside: ZB-H1's m + (S - 1)/3 (plan_step_zbh1: F + B - W is at least a
 * third of F + B + W where W is at most F and B); ZB-V's and DualPipeV's
 * their form's floor (pipe_form_floor) over half the load, a chunk's
 * passes summing to at least the slowest chunk's load and a pair taking
 * at least half its two passes'.  The forms in sc (NULL: the process's
 * own).
 */
double plan_split_mult(struct plan_shape_cache *sc, int schedule, long S,
    long m);

/* ceil(B / (b d)). */
long plan_microbatches(long global_batch, long b, long d);

/*
 * Check a plan (rows covered in order, z a power of two, ZeRO stage
 * consistent, d * R within the devices, d * b <= B; with v > 1: S > 1, no
 * ZeRO copies, v dividing every stage's layers and S dividing m, as
 * Megatron's interleaved schedule needs) and price it.
 */
int plan_evaluate(const struct plan_env *env, const struct plan *p,
    struct plan_result *r, struct pl_err *err);
void plan_result_release(struct plan_result *r);

/* The same network with one level: every transfer at level 0's cost (the
 * network-agnostic view of a flat planner). */
void network_flatten(const struct network *net, struct network *flat);

#endif
