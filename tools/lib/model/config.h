/*
 * config.h - the four config kinds as C structs.
 *
 * Each loader validates the file against its schema (xmlio_load), then
 * applies the checks a schema cannot express (heads divide hidden, a
 * torus block tiles the next one, ...), reporting file:line.  Defaults for
 * optional elements are documented in docs/formats.md.
 */
#ifndef NP_CONFIG_H
#define NP_CONFIG_H

#include <libxml/tree.h>

#include "base/util.h"
#include "model/netmodel.h"

enum { ARCH_ENCODER, ARCH_DECODER };
enum { NORM_LAYERNORM, NORM_RMSNORM };
enum { ACT_GELU, ACT_SILU, ACT_RELU };
enum { MLP_DENSE, MLP_GATED };
enum { POS_LEARNED, POS_ROTARY };

/* The most transformer layers a model may have (config-check, every tool). */
#define MODEL_MAX_LAYERS 10000

struct model_cfg {
	char name[128];
	int architecture;
	long layers, hidden, heads, kv_heads, ffn_hidden, vocab, seq_len;
	long head_dim;		/* a head's width (default hidden / heads);
				 * q and o are hidden x heads head_dim */
	long max_positions, type_vocab, experts, top_k;
	int norm, activation, mlp, position;
	int tied_embeddings, bias, pooler;
	int dropout;		/* trains with dropout (masks are kept) */
	int causal;		/* causal attention (default: decoders) */
	int qk_norm;		/* a norm over each query and key head
				 * (Qwen3, OLMo 2; Megatron's --qk-layernorm):
				 * its weights head_dim wide, shared by the
				 * heads (default false) */
	int flash_attention;	/* fused attention keeping no s x s tensor
				 * (default: decoders) */
	long rope_theta;	/* the rotary base (rotary positions; default
				 * 10,000): the launch's, not the price's */
	/* multi-head latent attention (DeepSeek-V2, -V3), where kv_lora_rank
	 * > 0: the keys and values are projected down to kv_lora_rank (and
	 * a shared rotary key of qk_rope_head_dim) and up again a head; the
	 * queries down to q_lora_rank (0: one h x heads (head_dim + rope)
	 * projection) and up.  A query or key head is head_dim (the part
	 * without positions) + qk_rope_head_dim wide, a value head
	 * v_head_dim; kv_heads = heads */
	long q_lora_rank, kv_lora_rank, qk_rope_head_dim, v_head_dim;
	/* mixture of experts beyond one kind of MLP: a routed expert's
	 * width (default ffn_hidden), the shared experts' summed width
	 * (every token through them; 0: none), the leading layers whose
	 * MLP is dense (ffn_hidden wide) and the router's groups, of which
	 * a token's top_k experts come from at most router_group_topk
	 * (DeepSeek's node-limited routing; 1 and 1: none) */
	long expert_ffn_hidden, shared_expert_ffn_hidden, dense_layers;
	long router_groups, router_group_topk;
	double expert_imbalance;	/* the most tokens an expert rank
				 * receives over the mean (1: balanced, the
				 * default; the run's measured or assumed
				 * figure, with its source) */
	long mtp_depth;		/* multi-token prediction modules after the
				 * last layer, each predicting one token further
				 * (DeepSeek-V3: 1; default 0) */
};

/* A layer's MLP is its experts' (experts > 1 and past the leading dense
 * layers). */
static inline int
model_layer_is_moe(const struct model_cfg *m, long layer)
{
	return m->experts > 1 && layer >= m->dense_layers;
}

/* Efficiency factors of the roofline, indexed by these kinds (FP8_MATMUL:
 * the products that run in FP8 with a scale a tensor, at the FP8 peak,
 * the matmul one when the config does not say; FP8_BLOCK_MATMUL: with
 * block scales, blockwise or MXFP8, the FP8 one when not said).
 * ATTENTION: the unfused attention's batched products.  Fused (flash)
 * attention by pass and dropout: FLASH (its forward; the attention one
 * when not said), FLASH_BACKWARD (the flash one), FLASH_DROPOUT (the
 * forward with dropout; the flash one) and FLASH_DROPOUT_BACKWARD (the
 * backward with dropout; the flash backward one): the kernel a run gets
 * by default (cuDNN's on Hopper, where Transformer Engine and today's
 * PyTorch prefer it).  FA2 and its three: FlashAttention-2's, the same
 * four, for runs that get that kernel (ATTN_FA2 below); no default (the
 * backward one defaults to FA2, the dropout ones to theirs without). */
enum { EFF_MATMUL, EFF_ATTENTION, EFF_VECTOR, EFF_MEMORY, EFF_FP8_MATMUL,
	EFF_FP8_BLOCK_MATMUL, EFF_FLASH, EFF_FLASH_BACKWARD, EFF_FLASH_DROPOUT,
	EFF_FLASH_DROPOUT_BACKWARD, EFF_FA2, EFF_FA2_BACKWARD, EFF_FA2_DROPOUT,
	EFF_FA2_DROPOUT_BACKWARD, EFF_NKINDS };

/* The fused attention kernel a graph is priced for: the accelerator's own
 * (ATTN_FUSED, "fused": its flash_attention efficiencies; Megatron's
 * --attention-backend fused, Transformer Engine's cuDNN attention) or
 * FlashAttention-2 (ATTN_FA2, "fa2": its fa2_attention efficiencies;
 * Megatron's --attention-backend flash, PyTorch's SDPA FLASH_ATTENTION
 * backend, which torchtitan's runs of 2024-25 got on an H100). */
enum { ATTN_FUSED, ATTN_FA2, ATTN_NKERNELS };
extern const char *const attention_kernel_words[];	/* "fused", "fa2" */
/* The index of `word` in a NULL-ended list of words, or -1 (also for a
 * NULL word). */
int word_index(const char *const *words, const char *word);
/* ATTN_* of a word, or -1 */
int attention_kernel_of(const char *word);

/* FP8 scaling recipes (Transformer Engine's; Megatron-LM's --fp8-recipe):
 * a scale a tensor from its amax history (delayed) or from its own amax
 * (tensorwise, "current scaling"), DeepSeek-V3's 1x128 activation and
 * 128x128 weight blocks (blockwise), or MXFP8's 32-element blocks
 * (Blackwell).  And torchtitan's float8 converter: torchao's Float8Linear
 * with its default tensorwise dynamic scaling, a software recipe on the
 * hardware's tensorwise products, its tensor ranks' collectives in bf16
 * (FP8_FLOAT8, "float8": what torchtitan v0.2.2 runs, its parallelize
 * testing for a converter named "float8" where the one registered is
 * "quantize.linear.float8") or in float8 (FP8_FLOAT8_TP, "float8-tp":
 * torchao's float8 tensor parallelism, as torchtitan ran it before its
 * 2025-09 rename, 8a2686c4a).  FP8_NONE: bf16. */
enum { FP8_NONE, FP8_DELAYED, FP8_TENSORWISE, FP8_BLOCKWISE, FP8_MXFP8,
	FP8_FLOAT8, FP8_FLOAT8_TP, FP8_NRECIPES };
/* Whether a recipe is torchao's (float8 or float8-tp). */
#define FP8_TORCHAO(recipe) ((recipe) == FP8_FLOAT8 || \
	(recipe) == FP8_FLOAT8_TP)
extern const char *const fp8_recipe_words[];	/* "none", "delayed", ... */
/* The FP8_* of a recipe word ("none" included), or -1. */
int fp8_recipe_of(const char *word);
/* Bytes an element of Transformer Engine's cast of a bf16 tensor to FP8
 * (and its transposed copy) moves under a recipe (config.c). */
double fp8_cast_bytes(int recipe);

struct accel_cfg {
	char name[128];
	double memory_bytes;
	double peak_matmul_flops_per_s, peak_vector_flops_per_s;
	double memory_bandwidth_Bps;
	long tensor_cores, vector_cores;
	double clock_Hz;
	double efficiency[EFF_NKINDS];	/* default 1 */
	/* the GEMM model (<gemm>): a matrix product runs in output tiles of
	 * gemm_tile_m x gemm_tile_n, one tile a unit (streaming
	 * multiprocessor, matrix unit) at a time; 0 units: no quantization */
	long gemm_units, gemm_tile_m, gemm_tile_n;
	/* and a fixed time a product (<gemm fixed_s>): its launch, its first
	 * tiles' loads and its last wave's drain, which do not shrink with
	 * the product's K; 0 when not given */
	double gemm_fixed_s;
	/* fused attention (<flash_attention fixed_keys>): a block of queries
	 * runs its keys and this many more, the time that does not shrink
	 * with the sequence (its queries' load, its output's store, the
	 * masked diagonal); 0 when not given */
	double flash_fixed_keys;
	/* FP8 (<fp8>): the dense FP8 tensor rate and the recipes the
	 * device runs (a bit a FP8_* recipe); 0 and 0 without FP8 */
	double peak_fp8_flops_per_s;
	unsigned fp8_recipes;
	/* FlashAttention-2's rate given (<efficiency kind="fa2_attention">):
	 * a graph may be priced for that kernel (ATTN_FA2) */
	int fa2;
};

enum { OPT_ADAM, OPT_SGD };
enum { SCHED_1F1B, SCHED_GPIPE };
#define EXP_MAX 32

struct experiment_cfg {
	char name[128];
	char accelerator[128];
	size_t accelerator_line;
	char artifact_setup[128];	/* "": none (setups.csv's name) */
	long global_batch;
	int nmbs;
	long mbs[EXP_MAX];
	int optimizer, schedule;
	double grad_bytes_per_param;	/* <gradients>: fp32 4 (default), bf16 2 */
	long seed;
	int nmethods;
	char methods[EXP_MAX][32];
	int nclusters;
	struct {
		long devices;
		char network[128];
		size_t line;
	} cluster[EXP_MAX];
	int nmodels;
	struct {
		char name[128];
		double device_memory_bytes;	/* 0: the accelerator's */
		long max_width;			/* 0: any variant */
		size_t line;
	} model[EXP_MAX];
};

/*
 * X_load() parses and reads a file; X_from_doc() reads a document already
 * parsed with xmlio_load() (config-check does this to read stdin once).
 */
int model_load(struct model_cfg *m, const char *path, struct pl_err *err);
int accel_load(struct accel_cfg *a, const char *path, struct pl_err *err);
/* Whether accelerator a runs FP8 recipe `recipe` (its <fp8> recipes;
 * torchao's float8 where its tensorwise products run). */
int accel_runs_fp8(const struct accel_cfg *a, int recipe);
/* Whether the accelerator's own fused attention was measured (its
 * flash_attention efficiencies or fixed keys given): what Megatron's
 * --attention-backend fused runs at the price */
int accel_has_fused_attention(const struct accel_cfg *a);
int network_load(struct network *n, const char *path, struct pl_err *err);
int experiment_load(struct experiment_cfg *e, const char *path,
    struct pl_err *err);

int model_from_doc(struct model_cfg *m, xmlDocPtr doc, const char *path,
    struct pl_err *err);
int accel_from_doc(struct accel_cfg *a, xmlDocPtr doc, const char *path,
    struct pl_err *err);
int network_from_doc(struct network *n, xmlDocPtr doc, const char *path,
    struct pl_err *err);
int experiment_from_doc(struct experiment_cfg *e, xmlDocPtr doc,
    const char *path, struct pl_err *err);

/*
 * The fields of a config that shape a per-layer graph, as one line of
 * space-separated name=value pairs in a fixed order (numbers in numfmt's
 * one format): graph-normalize records them in the graph it writes
 * (columns model_config, accelerator_config), and dpsolve refuses an
 * -A or -a whose line differs, naming the first field that does
 * (config_line_diff).  Malloc'ed.
 */
char *model_config_line(const struct model_cfg *m);
char *accel_config_line(const struct accel_cfg *a);

/* The first field whose value differs between two such lines (or that
 * one of them lacks): 0 when they agree, else 1 with its name and both
 * values ("-" where absent) in name/want/got (each of size len). */
int config_line_diff(const char *want, const char *got, char *name,
    char *want_value, char *got_value, size_t len);

/* A field's value in such a line, in value (size len): 0, or -1 when the
 * line has no such field. */
int config_line_field(const char *line, const char *name, char *value,
    size_t len);

/*
 * The FLOPs of a training step of `samples` sequences as Megatron-LM
 * counts them (num_floating_point_operations, training.py, core_r0.8.0;
 * Narayanan et al., SC'21, Eq. 3): forward and backward of attention (q
 * and output projections, kv/heads of them for the keys and values, s/h
 * for the scores and context), of the MLP (f/h, top_k experts a token,
 * 3/2 gated) and of the logits:
 *   F = 12 B s L h^2 (r (1 + G/A + s/h + k g f/h) + q + V / (2 L h))
 * with r = 1 + rerun_share / 3 (the share of the layers whose forward
 * runs again, 1 under full recomputation: a hardware count) and q =
 * s / 3h where selective recomputation reruns the attention core (its
 * forward); r = 1 and q = 0 give the model's FLOPs, MFU's count.
 * Latent attention's projections, the experts' own and shared widths,
 * leading dense layers and multi-token prediction (a layer of the last
 * layer's kind, its norms and 2h x h projection, its logits) are counted
 * as core_v0.15.0 counts them, the attention core still whole (s, not
 * core_v0.15.0's causal s/2, so that a model's count does not change
 * with the features it uses).
 */
double model_step_flops(const struct model_cfg *m, double samples,
    double rerun_share, int selective_rerun);

/* Parameter count of a model config (closed form, docs/formats.md),
 * multi-token prediction's modules included; the active count, a
 * token's in the main model as model cards count it, has the top_k
 * routed experts where the total has them all and no prediction module;
 * the multi-token prediction modules' share of the total. */
double model_parameters(const struct model_cfg *m);
double model_active_parameters(const struct model_cfg *m);
double model_mtp_parameters(const struct model_cfg *m);

/*
 * What a training process holds beside the plan's tensors, which the
 * memory model does not count (docs/model.md, "Memory"): the CUDA context
 * with its kernels (667 MB with eager module loading, 287 MB lazy, in
 * PyTorch's own measurement, pytorch/pytorch#86509: the larger), NCCL's
 * buffers (NCCL_BUFFSIZE, 4 MiB, per channel, peer and direction: 1 GiB
 * for some 32 channels and a few peers each way), and the caching
 * allocator's fragmentation (5% of the device).  dpsolve's default cap is
 * the device's memory less this reserve (6.1 GB of an 80 GiB GPU: the
 * -M 80e9 that earlier advice gave); -M sets the cap outright.
 */
#define RESERVE_CONTEXT_BYTES 667e6
#define RESERVE_NCCL_BYTES 1073741824.0
#define RESERVE_FRAGMENTATION 0.05
double accel_memory_reserve_bytes(const struct accel_cfg *a);

/* The HBM bandwidth a memory-bound kernel achieves: the peak times the
 * `memory` efficiency, bytes/s. */
double accel_memory_Bps(const struct accel_cfg *a);

/*
 * The share of a GPU's SMs that Transformer Engine's userbuffers kernels
 * take beside the products they overlap (--tp-comm-overlap): 16, its
 * default num_sm for the pipelined and bulk overlaps (TE v1.7-v1.10,
 * module/base.py, initialize_ub), over the SMs of <gemm units>; 0 without
 * a GEMM model or with no more units than that (not a GPU that runs it).
 */
#define TE_UB_COMM_SMS 16
double accel_tp_comm_sm_share(const struct accel_cfg *a);

#endif
