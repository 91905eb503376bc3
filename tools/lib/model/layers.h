/*
 * layers.h - the per-layer graph: the planner's view of a model variant.
 *
 * One CSV row per layer, in pipeline order (a stage is a contiguous run of
 * rows); all numbers are per device of the variant and per micro-batch.
 * Required columns: layer_id, parameter_bytes, activation_bytes,
 * input_bytes.  Optional: kind, forward_s, backward_s (and
 * weight_gradient_s, its share for the weights' gradient), the collective
 * byte columns (empty or absent = 0), copy_of and the four recomputation
 * columns (all or none).  The optional edges CSV (src_layer,
 * dst_layer, bytes) must point forward in row order, which also rules out
 * cycles.  See docs/formats.md.
 */
#ifndef NP_LAYERS_H
#define NP_LAYERS_H

#include <stddef.h>
#include <stdio.h>

#include "base/util.h"

/* Collectives by kind and group: the first three run over the tensor-
 * parallel group (an all-gather over the c*e devices sharing a sequence
 * when t = 1, as graphs before the context kinds had it), all-to-all over
 * the expert group, and the context kinds (context parallelism's keys and
 * values, gathered forward and their gradients reduce-scattered
 * backward) over the c*e devices sharing a sequence; the expert kinds
 * over the experts' own tensor group where it is smaller than t (et
 * adjacent ranks: the routed tokens gathered before the experts' column-
 * parallel product and their outputs reduce-scattered after the row-
 * parallel one). */
enum { LCOLL_ALL_REDUCE, LCOLL_ALL_GATHER, LCOLL_REDUCE_SCATTER,
	LCOLL_ALL_TO_ALL, LCOLL_CONTEXT_ALL_GATHER, LCOLL_CONTEXT_REDUCE_SCATTER,
	LCOLL_EXPERT_ALL_GATHER, LCOLL_EXPERT_REDUCE_SCATTER, LCOLL_N };

/*
 * A tensor-parallel collective and the matrix product beside it, which
 * can hide it (docs/model.md, "Tensor-parallel overlap"): a column-
 * parallel product entered through Megatron's f (its input gathered
 * forward with sp, its input gradient reduced backward), a row-parallel
 * one left through g (its output reduced forward, the gradient gathered
 * backward with sp), or a column-parallel product outside Transformer
 * Engine's layers (the output projection), which only the backward
 * overlap reaches.  (The experts' gather is the dispatcher's: no product
 * beside it.)  The layer-graph column `tp_overlap` lists
 * them, ROLE:BYTES:FORWARD_S:BACKWARD_S, ROLE c, r or o.
 */
enum { TP_COLUMN, TP_ROW, TP_OUTSIDE };
#define LAYER_TP_PAIRS_MAX 16

struct tp_pair {
	int role;
	double bytes;			/* the collective's buffer */
	double forward_s, backward_s;	/* the product's times */
};

struct layer {
	long id;
	char kind[32];
	double forward_s, backward_s;
	/* the weights' gradient's share of backward_s (column
	 * weight_gradient_s, optional: what a zero-bubble schedule runs
	 * apart as a W pass) */
	double weight_gradient_s;
	/* the parts of a mixture layer Megatron-Core's combined 1F1B runs
	 * apart (plan.h, ep_overlap; columns of the same names, all five or
	 * none, optional, 0 when absent): the experts' share of forward_s
	 * and backward_s, routed and shared (its mlp node, between the
	 * dispatch and the combine), their weights' gradients' share of
	 * theirs (which it runs after the dispatch backward has started),
	 * and the combine node's own compute of each pass (the copies' sum,
	 * the residual), which it runs on the exchange's stream */
	double expert_forward_s, expert_backward_s, expert_weight_gradient_s;
	double combine_forward_s, combine_backward_s;
	double parameter_bytes, activation_bytes, input_bytes;
	/* parameters replicated over the variant's c*e devices (all but the
	 * experts'): their gradients are also summed over that group */
	double dense_parameter_bytes;
	/* the FP8 copies of its weights Transformer Engine keeps beside
	 * them for the step (column fp8_weight_bytes, optional, 0 when
	 * absent): a byte a weight and one for its transposed copy */
	double fp8_weight_bytes;
	/* the experts' share of it (column fp8_expert_weight_bytes, in an
	 * FP8 graph beside fp8_weight_bytes): their weights are gathered
	 * over the experts' data-parallel group, the rest over the dense
	 * one (Megatron's --fp8-param-gather, plan.h) */
	double fp8_expert_weight_bytes;
	double coll_bytes[LCOLL_N];
	int ntp;			/* tensor-parallel pairs (owned) */
	struct tp_pair *tp;
	/* Recomputation (docs/model.md, "Recomputation"): under full
	 * recomputation the row keeps checkpoint_bytes a micro-batch and runs
	 * recompute_s of its forward pass again during the backward pass;
	 * under selective recomputation it keeps selective_bytes and runs
	 * selective_recompute_s again.  Absent columns: the row keeps its
	 * input and reruns its whole forward (full); selective keeps
	 * everything and reruns nothing. */
	double checkpoint_bytes, recompute_s;
	double selective_bytes, selective_recompute_s;
	/* under torchtitan's per-operator checkpointing the row keeps
	 * op_sac_bytes (its input and the outputs its policy saves, not
	 * capped by its activations) and runs op_sac_recompute_s again
	 * (columns op_sac_bytes and op_sac_recompute_s, both or neither:
	 * absent, the kind is not offered, has_op_sac) */
	double op_sac_bytes, op_sac_recompute_s;
	double forward_bound_s, backward_bound_s; /* proven, for ilp times */
	int schedule_optimal;
	char *schedule;		/* how the ilp times were found (owned) */
	int is_copy;		/* a repeat of layer copy_of (same numbers) */
	long copy_of;
	size_t line;		/* CSV line, for messages */
};

/* *dst = *src with its own copies of what a row owns (the schedule note,
 * the tensor-parallel pairs), so that both can be released. */
void layers_copy_row(struct layer *dst, const struct layer *src);

/* The most devices a variant spans (t e c) and samples a micro-batch:
 * products of these with plan sizes stay within 64 bits. */
#define LAYERS_MAX_WIDTH (1L << 30)

/* The most rows a per-layer graph (or an index of variants, or a stage
 * table) and its edge table may have: a model has hundreds of layers, and
 * the DP's stage ranges grow as their square.  A larger table is refused
 * at its first row past the cap, before it costs a second or 100 MB. */
#define LAYERS_MAX_ROWS ((size_t)100000)
#define LAYERS_MAX_EDGES ((size_t)1000000)
#define LAYERS_WHY_MAX "a model has hundreds of layers"

struct layer_edge {
	size_t src, dst;	/* row indices, src < dst */
	double bytes;
};

struct layer_graph {
	char *file;
	int scheduled;		/* times from the ilp schedule (bounds kept) */
	int has_variant;	/* the variant columns are present */
	int has_recompute;	/* the recomputation columns are present */
	int has_op_sac;		/* the per-operator checkpointing ones */
	int has_times;		/* forward_s and backward_s are present */
	int has_wgrad;		/* weight_gradient_s is present */
	int has_expert_times;	/* the five columns of struct layer's
				 * expert and combine times are */
	int has_tp_overlap;	/* the tp_overlap column is present */
	long var_t, var_e, var_c, var_sp, var_b;
	/* the e devices split the micro-batch's samples (column ep_batch,
	 * optional beside the variant's, 0 when absent: they share its
	 * sequences, as context parallelism does) */
	long var_ep_batch;
	/* of a batch split's e devices, how many share each sequence as
	 * context ranks (column ep_fold, optional beside ep_batch 1, 1
	 * when absent): Megatron-Core's expert ranks over its context
	 * ranks and then its data-parallel ones */
	long var_ep_fold;
	/* the experts' own tensor split (column expert_t, optional beside
	 * the variant's, t when absent): t, or a divisor of it, down to 1
	 * where each expert is whole on one device; the t/et groups of et
	 * ranks join the expert ranks (Megatron-Core's
	 * --expert-tensor-parallel-size, MoE Parallel Folding) */
	long var_et;
	/* the FP8 recipe its Transformer Engine layers run (column
	 * fp8_recipe, optional: a word of config.h's fp8_recipe_words, the
	 * same on every row; absent: FP8_NONE, bf16) */
	int var_fp8;
	/* the fused attention kernel it was priced for (column
	 * attention_kernel, optional: a word of config.h's
	 * attention_kernel_words; absent: ATTN_FUSED, the device's own) */
	int var_attn;
	/* the model's transformer layers, as the graph's writer knew them
	 * (column model_layers; 0: not recorded): the reader holds the
	 * graph's transformer rows to it */
	long model_layers;
	/* the model and the accelerator the graph was built from, as its
	 * writer knew them (columns model, model_config, accelerator,
	 * accelerator_config: a name and config.h's line of the fields
	 * that shape the graph; NULL: not recorded) */
	char *model, *model_config, *accel, *accel_config;
	size_t n;
	struct layer *l;
	size_t nedges;
	struct layer_edge *e;
};

int layers_read(struct layer_graph *g, const char *path, struct pl_err *err);

/* Do two rows carry the same numbers (a copy_of row repeats its original
 * exactly: the planner prices copies as the original)?  NULL, or the
 * first column that differs. */
const char *layers_differing_number(const struct layer *a,
    const struct layer *b);
/* The same from a table already read (not released). */
struct csvio_table;
int layers_from_table(struct layer_graph *g, const struct csvio_table *t,
    struct pl_err *err);
int layers_read_edges(struct layer_graph *g, const char *path,
    struct pl_err *err);
void layers_release(struct layer_graph *g);

/* Every time a row runs on its device (its passes, their recomputation,
 * its products beside tensor-parallel collectives) times `factor`: the
 * device's speed (straggler.h); bytes, and so every transfer, unchanged. */
void layers_scale_times(struct layer_graph *g, double factor);

/* The devices one replica of the variant spans, t e c (1 for a graph
 * without the variant columns). */
long layers_width(const struct layer_graph *g);

/* Does any row exchange tokens with experts (all-to-all bytes: every
 * expert layer's rows carry them, at e = 1 too)? */
int layers_has_experts(const struct layer_graph *g);

/* The experts' tensor split of the graph: var_et, or t where it is not
 * set (0) or the graph has no variant columns (1). */
long layers_expert_t(const struct layer_graph *g);

/* Megatron's expert-parallel size of the graph: e, times t where the
 * experts are whole (the tensor ranks join the expert ranks). */
long layers_expert_ranks(const struct layer_graph *g);
/* The variant's expert ranks that share a sequence (all e without a
 * batch split, its fold with one) and those that split the samples. */
long layers_ep_fold(const struct layer_graph *g);
long layers_ep_samples(const struct layer_graph *g);
/* The devices that share a sequence: the variant's context ranks times
 * the expert ranks folded over them (Megatron's --context-parallel-size;
 * torchtitan's cp mesh, of which its ep takes a fold's ranks). */
long layers_context_ranks(const struct layer_graph *g);

/* A variant field of the graph (its var_t, var_sp, ...), or dflt for a
 * graph without the variant columns. */
long layers_var(const struct layer_graph *g, long v, long dflt);

/* A graph of a model with `layers` transformer layers (model_file: for
 * the message) has that many rows of kind "transformer": a graph cut
 * short would plan a smaller model. */
/*
 * A graph that records the model or the accelerator it was built from
 * (model_config, accelerator_config) must agree with the config given
 * for it (config.h's line of the fields that shape it; NULL: none
 * given): 0, or -1 naming the first field that differs.
 */
int layers_check_configs(const struct layer_graph *g, const char *model_line,
    const char *model_file, const char *accel_line, const char *accel_file,
    struct pl_err *err);

int layers_check_model(const struct layer_graph *g, long layers,
    const char *model_file, struct pl_err *err);

/*
 * The layers of rows [first, last] a pipeline split counts: every row but
 * the graph's first (the embedding) and last (the head), which ride on the
 * end stages; with `ends` (Megatron's --account-for-embedding/loss-in-
 * pipeline-split) every row.
 */
long layers_split_count(const struct layer_graph *g, size_t first,
    size_t last, int ends);

/* Row index of layer `id`, or -1. */
long layers_index(const struct layer_graph *g, long id);

/*
 * Bytes entering rows [first, last] from outside them: with edges, those
 * from earlier rows plus the input_bytes of rows no edge feeds (the model
 * input); without edges, the first row's input_bytes.
 */
double layers_boundary_input(const struct layer_graph *g, size_t first,
    size_t last);

/*
 * Write a per-layer graph (the variant columns when has_variant, the
 * bound and schedule columns when scheduled) and, if edges_fp is not
 * NULL, its edges.
 */
int layers_write(FILE *fp, FILE *edges_fp, const struct layer_graph *g);

#endif
