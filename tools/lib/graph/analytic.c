/*
 * analytic.c - operator graphs from model hyperparameters (analytic.h).
 *
 * Every size below is for one device of the variant and one micro-batch.
 * Tensors are fp16/bf16 (2 bytes an element) except dropout masks (1 byte
 * an element) and the logits the loss keeps (fp32), as in Korthikanti et
 * al., "Reducing Activation Recomputation in Large Transformer Models"
 * (MLSys 2023), whose per-layer count s*b*h*(34 + 5*a*s/h) this code must
 * reproduce for a dense layer with dropout at t = 1.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/csvio.h"
#include "graph/analytic.h"

/* The shape of the work one device does for one layer. */
struct dims {
	double n;		/* tokens on the device: b*s/(c*e) */
	double s_full;		/* keys each query sees: s (whole sequence) */
	double b;		/* sequences the device holds (part of): b, or
				 * b/e when the expert ranks split the samples */
	double h, heads, vocab, experts, top_k;
	double imbalance;	/* the busiest expert rank's tokens over the
				 * mean (model_cfg.expert_imbalance) */
	double f, fe, fs;	/* the MLPs' widths: dense, a routed expert's,
				 * the shared experts' (0: none) */
	double head_dim;
	/* the attention core's widths over all heads: the queries' and the
	 * context's (heads x head_dim, h unless the model sets head_dim), the
	 * keys' and the values' (kv_heads x head_dim); latent attention's
	 * queries and keys are head_dim + rope wide a head, its values and
	 * context v_head_dim */
	double qw, kw, vw, ow;
	double qr, kvr, rope;	/* latent attention's ranks and rotary key
				 * (kvr 0: none) */
	double t, shard;	/* shard: t with sp (norm/residual tensors), else 1 */
	double ce;		/* devices sharing a sequence: c*e, or c
				 * (a batch split), or c times its fold */
	double e;
	double et, ep;		/* the experts' tensor and expert ranks:
				 * (t, e), or (et, t e / et) for et
				 * dividing t, (1, t e) the whole */
	int fp8;		/* the variant's FP8 recipe (FP8_NONE: bf16) */
	int dropout, gated, rms, bias, qk_norm;
	int causal, flash;
	int attn;		/* the fused attention's kernel (ATTN_*) */
};

struct builder {
	struct aop_graph *g;
	const struct dims *d;
	const char *prefix;	/* before each op's name ("": none) */
	long layer;
	long enter;		/* an f collective awaiting its product, or -1 */
	long last_matmul;	/* the latest product, or -1 */
	/* torchtitan's products in the row so far (its policy saves every
	 * other one), and the modules the next product stands for: their
	 * output widths (0 modules: one, as wide as the product), and
	 * whether the block's backward pass reads its output (1, or 0: its
	 * only reader saved or needing nothing of it) */
	long sac_count;
	int next_modules;
	double next_widths[3];
	int next_unread;
};

/* The ops that follow belong to row `layer` (-1 the embedding, L the
 * head); no tensor-parallel pair reaches across rows. */
static void
begin_row(struct builder *B, long layer)
{
	B->layer = layer;
	B->enter = B->last_matmul = -1;
	B->sac_count = 0;
}

/* The next product is torchtitan's `n` linear modules of these output
 * widths side by side (Llama's wq, wk and wv; w1 and w3), in the order
 * its forward pass calls them. */
static void
modules(struct builder *B, int n, double w0, double w1, double w2)
{
	B->next_modules = n;
	B->next_widths[0] = w0;
	B->next_widths[1] = w1;
	B->next_widths[2] = w2;
}

/* The block's backward pass reads nothing of the next product's output
 * (under torch.compile it is then neither saved nor run again). */
static void
unread(struct builder *B)
{
	B->next_unread = 1;
}

/*
 * torchtitan's per-operator policy over a product's modules
 * (_op_sac_save_list with its mm count, distributed/activation_checkpoint.py
 * at v0.2.2), as torch.compile partitions the block (its jobs compile
 * every block): each module is one aten.mm, counted in the order the
 * block's forward pass calls them; of the outputs the backward pass
 * reads, the odd-numbered ones are saved and the others run again, their
 * share of the product's work (the modules share its input, so their
 * widths weigh it).  An output nothing reads is neither (eager PyTorch
 * would keep an odd one and rerun an even one: not priced).
 */
static void
sac_products(struct builder *B, struct aop *o, double tokens, double n_out)
{
	int n = B->next_modules > 0 ? B->next_modules : 1;
	double total = 0, rerun = 0;

	for (int k = 0; k < n; k++) {
		double w = B->next_modules > 0 ? B->next_widths[k] : n_out;

		total += w;
		if (++B->sac_count % 2 == 0)
			rerun += B->next_unread ? 0 : w;
		else if (!B->next_unread)
			o->sac_saved_bytes += 2 * tokens * w;
	}
	o->sac_rerun = total > 0 ? rerun / total : 0;
	B->next_modules = B->next_unread = 0;
}

static struct aop *
add(struct builder *B, const char *name, int kind)
{
	struct aop_graph *g = B->g;
	struct aop *o;

	if (g->n == g->cap) {
		g->cap = g->cap ? 2 * g->cap : 64;
		g->op = xrealloc(g->op, g->cap * sizeof(*g->op));
	}
	o = &g->op[g->n++];
	memset(o, 0, sizeof(*o));
	o->layer = B->layer;
	snprintf(o->name, sizeof(o->name), "%s%s", B->prefix, name);
	o->kind = kind;
	o->fwd_coll = o->bwd_coll = -1;
	o->tp_role = -1;
	o->tp_gemm = -1;
	o->fused_dropout = -1;
	o->param_split = SPLIT_NONE;
	o->sac_rerun = 1;
	return o;
}

/*
 * A matmul of a (tokens x k) input with a (k x n_out) weight: 2*tokens*k*n
 * FLOPs forward; backward computes the input and the weight gradient,
 * twice the FLOPs and twice the traffic.  Memory traffic reads the input
 * and the weight and writes the output once (2 bytes an element).
 */
static struct aop *
matmul(struct builder *B, const char *name, double tokens, double k,
    double n_out, double params, int split)
{
	struct aop *o = add(B, name, AOP_MATMUL);
	long self = (long)(B->g->n - 1);

	if (B->enter >= 0)
		B->g->op[B->enter].tp_gemm = self;
	B->enter = -1;
	B->last_matmul = self;
	o->fwd_flops = 2 * tokens * k * n_out;
	o->bwd_flops = 2 * o->fwd_flops;
	o->fwd_bytes = 2 * (tokens * k + k * n_out + tokens * n_out);
	o->bwd_bytes = 2 * o->fwd_bytes;
	o->parameter_bytes = 2 * params;
	o->param_split = split;
	o->gemm_m = tokens;
	o->gemm_n = n_out;
	o->gemm_k = k;
	o->gemm_batch = 1;
	sac_products(B, o, tokens, n_out);
	return o;
}

/* A grouped product: `groups` products of tokens/groups rows each (the
 * local experts, each on its share of the tokens). */
static void
grouped(struct aop *o, double groups)
{
	o->gemm_m /= groups;
	o->gemm_batch = groups;
}

/* torchao's float8 tensor parallelism (recipe float8-tp) over the
 * block's sequence-parallel tensor ranks: torchtitan's
 * Float8ColwiseParallel and Float8RowwiseParallel */
static int
float8_tp(const struct builder *B)
{
	return B->d->fp8 == FP8_FLOAT8_TP && B->d->shard > 1;
}

/*
 * The latest product is a Transformer Engine linear layer's: under an
 * FP8 recipe it runs in FP8 (forward, input and weight gradients; one-
 * byte operands), keeps its input for the backward pass in FP8 (half
 * the bytes), and a cast runs beside it: its input's forward, its output
 * gradient's backward (the weights' casts run once a step: plan.c).
 */
static void
fp8_linear(struct builder *B)
{
	long at = B->last_matmul;
	struct aop *o, *c;
	double in, grad, tokens, k, n, bpe;
	int gathered = 0;

	if (B->d->fp8 == FP8_NONE || at < 0)
		return;
	o = &B->g->op[at];
	o->fp8 = B->d->fp8;
	/* torchao's float8 with its tensor parallelism: the input arrives
	 * cast to float8 (torchtitan's Float8ColwiseParallel after a float8
	 * all-gather, Float8RowwiseParallel casting its shard), so its copy
	 * kept for the backward pass is float8; otherwise torchao keeps it
	 * in bf16 and casts it again (matmul_with_hp_or_float8_args, ao
	 * 6243040); and the weight cast in the forward pass is kept too, a
	 * byte a weight (its casts are plan.c's, float8_weight_s) */
	if (!FP8_TORCHAO(B->d->fp8) || float8_tp(B))
		o->activation_bytes /= 2;
	if (FP8_TORCHAO(B->d->fp8)) {
		o->activation_bytes += o->parameter_bytes / 2;
		for (long i = at - 1; float8_tp(B) && i >= 0 &&
		    B->g->op[i].layer == o->layer; i--)
			if (B->g->op[i].tp_gemm == at && B->g->op[i].tp_role ==
			    TP_COLUMN)
				gathered = 1;
	}
	tokens = o->gemm_m * o->gemm_batch;
	k = o->gemm_k;
	n = o->gemm_n;
	/* one weight matrix read, as the bf16 product counts a grouped
	 * product's (matmul(), grouped()) */
	o->fwd_bytes = tokens * k + k * n + 2 * tokens * n;
	o->bwd_bytes = 2 * o->fwd_bytes;
	in = tokens * k;
	grad = tokens * n;
	bpe = fp8_cast_bytes(B->d->fp8);
	{
		char name[24];

		snprintf(name, sizeof name, "%.18s_cast", o->name +
		    strlen(B->prefix));
		c = add(B, name, AOP_VECTOR);
	}
	c->fwd_flops = 2 * in;
	c->bwd_flops = 2 * grad;
	c->fwd_bytes = bpe * in;
	c->bwd_bytes = bpe * grad;
	/* a column-parallel product's input under torchao's float8 tensor
	 * parallelism: cast on the sequence shard before the all-gather
	 * (read 2, write 1), the gathered copy transposed for the weight
	 * gradient in the backward pass (read 1, write 1) */
	if (gathered) {
		c->fwd_bytes = 3 * in / B->d->shard;
		c->bwd_bytes += 2 * in;
	}
}

/*
 * An elementwise or reduction op over `elems` elements, `flops` each
 * (backward twice as many), moving `fwd_bpe` and `bwd_bpe` bytes an
 * element through HBM.  These ops are memory-bound, so their bytes are
 * their time: counted kernel by kernel as Megatron-LM runs them, 2 bytes
 * a tensor element and 1 a dropout mask.  A plain op reads its input and
 * writes its output (4); its backward reads the output's gradient and the
 * kept input and writes the input's gradient (6).
 */
enum { VEC_FWD_BPE = 4, VEC_BWD_BPE = 6 };

static struct aop *
vector(struct builder *B, const char *name, int kind, double elems,
    double flops, double fwd_bpe, double bwd_bpe)
{
	struct aop *o = add(B, name, kind);

	o->fwd_flops = elems * flops;
	o->bwd_flops = 2 * o->fwd_flops;
	o->fwd_bytes = fwd_bpe * elems;
	o->bwd_bytes = bwd_bpe * elems;
	return o;
}

static struct aop *
collective(struct builder *B, const char *name, int fwd, int bwd,
    double bytes)
{
	struct aop *o = add(B, name, AOP_COLLECTIVE);

	o->fwd_coll = fwd;
	o->bwd_coll = bwd;
	o->coll_bytes = bytes;
	return o;
}

/*
 * Megatron's conjugate pair around a tensor-parallel block: "f" before
 * the column-parallel matmul (identity forward, all-reduce backward) and
 * "g" after the row-parallel one (all-reduce forward, identity backward);
 * with sequence parallelism f is an all-gather (reduce-scatter backward)
 * and g a reduce-scatter (all-gather backward).  Nothing at t = 1.  Each
 * is noted with the product beside it, which can hide it (role TP_COLUMN,
 * TP_ROW or TP_OUTSIDE; -1: none): f's product is the next one, g's the
 * last, both in the same row.
 */
/*
 * torchao's float8 tensor parallelism (recipe float8-tp: torchtitan's
 * Float8ColwiseParallel and Float8RowwiseParallel): a block's all-gathers carry
 * float8, one byte an element (the forward's gather of the sequence-
 * sharded input, cast before it; the backward's gather of the output's
 * gradient), its reduce-scatters bf16.  Each pass of a block runs one of
 * each kind a pair, so each collective of the pair is priced at 3/4 of
 * its bf16 bytes, which keeps each pass's total (the plan's conjugate
 * pairs are equal, docs/model.md, Plans).
 */
static double
tp_bytes(const struct builder *B, double bytes, int role)
{
	return float8_tp(B) && (role == TP_COLUMN || role == TP_ROW) ?
	    0.75 * bytes : bytes;
}

static void
tp_enter(struct builder *B, const char *name, double bytes, int role)
{
	struct aop *o;

	if (B->d->t == 1)
		return;
	bytes = tp_bytes(B, bytes, role);
	if (B->d->shard > 1)
		o = collective(B, name, LCOLL_ALL_GATHER, LCOLL_REDUCE_SCATTER,
		    bytes);
	else
		o = collective(B, name, -1, LCOLL_ALL_REDUCE, bytes);
	o->tp_role = role;
	B->enter = role >= 0 ? (long)(B->g->n - 1) : -1;
}

static void
tp_leave(struct builder *B, const char *name, double bytes, int role)
{
	struct aop *o;

	if (B->d->t == 1)
		return;
	bytes = tp_bytes(B, bytes, role);
	if (B->d->shard > 1)
		o = collective(B, name, LCOLL_REDUCE_SCATTER, LCOLL_ALL_GATHER,
		    bytes);
	else
		o = collective(B, name, LCOLL_ALL_REDUCE, -1, bytes);
	if (role >= 0 && B->last_matmul >= 0) {
		o->tp_role = role;
		o->tp_gemm = B->last_matmul;
	}
}

/* LayerNorm: mean, variance, normalise, scale, shift (~8 FLOPs an
 * element); RMSNorm ~5.  It keeps its input.  One kernel over `elems`
 * elements whose norms have `width` weights in all (a scale each,
 * LayerNorm's shift beside). */
static void
norm_kernel(struct builder *B, const char *name, double elems, double width)
{
	const struct dims *d = B->d;
	struct aop *o = vector(B, name, AOP_NORM, elems, d->rms ? 5 : 8,
	    VEC_FWD_BPE, VEC_BWD_BPE);

	o->parameter_bytes = 2 * (d->rms ? 1 : 2) * width;
	o->activation_bytes = 2 * elems;
}

/* The norm over the hidden state (sharded over t with sp). */
static void
norm(struct builder *B, const char *name)
{
	norm_kernel(B, name, B->d->n * B->d->h / B->d->shard, B->d->h);
}

/* Dropout (when the model trains with it) and the residual add: the mask
 * is kept, one byte an element. */
static void
dropout_residual(struct builder *B, const char *name)
{
	const struct dims *d = B->d;
	double elems = d->n * d->h / d->shard;
	/* Megatron's fused bias-dropout-add reads the branch and the residual
	 * and writes the sum (6) and the mask (1); its backward reads the
	 * gradient and the mask and writes the branch's gradient (5), the
	 * residual's gradient being the same tensor.  Without dropout the
	 * backward only sums the gradient for the bias (2). */
	struct aop *o = vector(B, name, AOP_VECTOR, elems, d->dropout ? 3 : 1,
	    d->dropout ? 7 : 6, d->dropout ? 5 : 2);

	if (d->dropout)
		o->activation_bytes = elems;
}

/* The two batched matmuls of attention: backward computes the gradients
 * of both operands, twice the forward work. */
static void
attention_backward(struct aop *o)
{
	o->bwd_flops = 2 * o->fwd_flops;
	o->bwd_bytes = 2 * o->fwd_bytes;
}

/*
 * Fused (flash) attention, Dao et al. 2022: scores, softmax, dropout and
 * context in one kernel that keeps no s x s tensor, only q, k, v, its
 * output (the next matmul's input, counted there) and the softmax's
 * log-sum-exp, fp32, one a query and head.  Causal attention skips the
 * masked half of the score matrix.  The backward pass computes the scores
 * again: five matmuls of the forward's size where the unfused backward has
 * four, 2.5 times the forward FLOPs (the FlashAttention papers' count).
 * Its dropout masks are regenerated from the random state, not kept;
 * generating them costs time, in the forward pass most (the accelerator's
 * flash_attention_dropout efficiencies, measured: docs/model.md).
 */
static void
flash_attention(struct builder *B)
{
	const struct dims *d = B->d;
	double n = d->n, t = d->t;
	double keys = d->causal ? d->s_full / 2 : d->s_full;
	double qkvo = 2 * (n * (d->qw + d->ow) / t + d->b * d->s_full *
	    (d->kw + d->vw) / t);
	struct aop *o = add(B, "flash_attention", AOP_ATTENTION);

	/* the scores (q k, qw wide) and the context (p v, ow wide) */
	o->fwd_flops = 2 * n * keys * (d->qw + d->ow) / t;
	o->bwd_flops = 2.5 * o->fwd_flops;
	o->fwd_bytes = qkvo;
	o->bwd_bytes = 2 * qkvo;
	/* q, k and v, and the log-sum-exp a query and head */
	o->activation_bytes = 2 * n * (d->qw + d->kw + d->vw) / t +
	    4 * n * d->heads / t;
	o->selective_rerun = 1;
	/* one SDPA call, saved by torchtitan's policy: its output and the
	 * log-sum-exp */
	o->sac_saved_bytes = 2 * n * d->ow / t + 4 * n * d->heads / t;
	o->sac_rerun = 0;
	o->fused_dropout = d->dropout != 0;
	o->attn = d->attn;
	/* one thread block a 128-query tile of a sequence and head
	 * (FlashAttention-2's grid), each over `keys` keys on the average */
	o->gemm_m = n / d->b;
	o->gemm_n = 0;
	o->gemm_k = keys;
	o->gemm_batch = d->b * d->heads / t;
}

/* Attention's batched products: one a sequence and head. */
static void
batched(struct aop *o, const struct dims *d, double m, double n, double k)
{
	o->gemm_m = m;
	o->gemm_n = n;
	o->gemm_k = k;
	o->gemm_batch = d->b * d->heads / d->t;
}

/*
 * Latent attention's projections (DeepSeek-V2 Sec. 2.1) as Megatron-Core
 * runs them with Transformer Engine (MLASelfAttention, core_v0.15.0): the
 * down projections, q to q_lora_rank and kv to kv_lora_rank plus the
 * shared rotary key, are whole on every tensor rank ("duplicated") and
 * run on the tokens the rank holds (its share with sequence parallelism,
 * all of them without); their outputs' norms; then the column-parallel
 * up projections, to the heads' queries and to their keys and values,
 * whose input is gathered (its gradient reduced) at the compressed width
 * instead of h.  Without q_lora_rank the queries are projected from the
 * hidden state, which is then gathered as well.
 */
static void
latent_projections(struct builder *B)
{
	const struct dims *d = B->d;
	double n = d->n, h = d->h, t = d->t, local = n / d->shard;
	double qk_nope = d->kw - d->heads * d->rope;
	struct aop *o;

	if (d->qr > 0) {
		o = matmul(B, "q_down", local, h, d->qr, h * d->qr, SPLIT_NONE);
		o->activation_bytes = 2 * local * h;
		fp8_linear(B);
	}
	o = matmul(B, "kv_down", local, h, d->kvr + d->rope,
	    h * (d->kvr + d->rope), SPLIT_NONE);
	/* the two down projections share their input, kept once in bf16;
	 * in FP8 each Transformer Engine module keeps its own FP8 copy */
	if (d->qr == 0 || d->fp8 != FP8_NONE)
		o->activation_bytes = 2 * local * h;
	fp8_linear(B);
	if (d->qr > 0)
		norm_kernel(B, "q_lora_norm", local * d->qr, d->qr);
	norm_kernel(B, "kv_lora_norm", local * d->kvr, d->kvr);
	tp_enter(B, "attn_f", 2 * n * ((d->qr > 0 ? d->qr : h) + d->kvr +
	    d->rope), TP_COLUMN);
	if (d->qr > 0) {
		o = matmul(B, "q_up", n, d->qr, d->qw / t, d->qr * d->qw / t,
		    SPLIT_T);
		o->activation_bytes = 2 * local * d->qr;
	} else {
		o = matmul(B, "q", n, h, d->qw / t, h * d->qw / t, SPLIT_T);
	}
	fp8_linear(B);
	o = matmul(B, "kv_up", n, d->kvr, (qk_nope + d->vw) / t,
	    d->kvr * (qk_nope + d->vw) / t, SPLIT_T);
	o->activation_bytes = 2 * local * d->kvr;
	fp8_linear(B);
}

static void
attention(struct builder *B)
{
	const struct dims *d = B->d;
	double n = d->n, h = d->h, t = d->t;
	double probs = d->b * (d->heads / t) * (n / d->b) * d->s_full;
	struct aop *o;

	norm(B, "attn_norm");
	if (d->kvr > 0) {
		latent_projections(B);
	} else {
		double q = d->qw, kv = d->kw;

		tp_enter(B, "attn_f", 2 * n * h, TP_COLUMN);
		/* the column-parallel q, k, v projections; they keep their
		 * input (three modules in torchtitan's Llama) */
		modules(B, 3, q / t, kv / t, d->vw / t);
		o = matmul(B, "qkv", n, h, (q + 2 * kv) / t, (h * (q + 2 * kv) +
		    (d->bias ? q + 2 * kv : 0)) / t, SPLIT_T);
		o->activation_bytes = 2 * n * h / d->shard;
		fp8_linear(B);
	}
	/* the query and key heads' norms (qk_norm): one kernel over q and
	 * k; their weights, a head wide each, are on every tensor rank */
	if (d->qk_norm)
		norm_kernel(B, "qk_norm", n * (d->qw + d->kw) / t,
		    2 * d->head_dim);
	/* context parallel: every device needs the whole sequence's keys
	 * and values (their gradients are reduce-scattered back); the
	 * backward pass gathers them again rather than keep the gathered
	 * copy (Transformer Engine's AttnFuncWithCPAndKVAllGather, which
	 * Megatron-Core's cp_comm_type all_gather runs, saves only the
	 * local k and v; its ring, p2p, likewise passes k and v round again
	 * beside their gradients) */
	if (d->ce > 1) {
		double kv_bytes = 2 * d->b * d->s_full * (d->kw + d->vw) / t;

		collective(B, "kv_gather", LCOLL_CONTEXT_ALL_GATHER,
		    LCOLL_CONTEXT_REDUCE_SCATTER, kv_bytes);
		collective(B, "kv_regather", -1, LCOLL_CONTEXT_ALL_GATHER,
		    kv_bytes);
	}
	if (d->flash) {
		flash_attention(B);
	} else {
		/* the unfused path computes the whole score matrix, masked or
		 * not */
		o = add(B, "scores", AOP_ATTENTION);
		o->fwd_flops = 2 * n * d->s_full * d->qw / t;
		o->fwd_bytes = 2 * (n * d->qw / t + d->b * d->s_full * d->kw /
		    t + probs);
		attention_backward(o);
		batched(o, d, n / d->b, d->s_full, d->qw / d->heads);
		/* q and k */
		o->activation_bytes = 2 * n * (d->qw + d->kw) / t;
		o->selective_rerun = 1;
		o->sac_rerun = 0;	/* one SDPA call with softmax and context */
		/* softmax keeps its output; dropout its mask and its output */
		/* two kernels: the fused scale-mask-softmax (4 bytes an
		 * element forward, 6 backward), then dropout on the
		 * probabilities (reads 2, writes 2 and a 1-byte mask; its
		 * backward reads the gradient and the mask, writes 2) */
		o = vector(B, "softmax", AOP_VECTOR, probs, d->dropout ? 8 : 5,
		    VEC_FWD_BPE + (d->dropout ? 5 : 0),
		    VEC_BWD_BPE + (d->dropout ? 5 : 0));
		o->activation_bytes = 2 * probs +
		    (d->dropout ? probs + 2 * probs : 0);
		o->selective_rerun = o->selective_drop = 1;
		o->sac_rerun = 0;
		o = add(B, "context", AOP_ATTENTION);
		o->fwd_flops = 2 * n * d->s_full * d->ow / t;
		o->fwd_bytes = 2 * (probs + d->b * d->s_full * d->vw / t +
		    n * d->ow / t);
		attention_backward(o);
		batched(o, d, n / d->b, d->ow / d->heads, d->s_full);
		o->activation_bytes = 2 * n * d->vw / t;	/* v */
		o->selective_rerun = 1;
		o->sac_saved_bytes = 2 * n * d->ow / t;
		o->sac_rerun = 0;
	}
	/* torchtitan (per operator): the residual's sum, which the MLP's
	 * norm reads backward, is rebuilt from the block's input and the
	 * reduce-scatter's output, which the policy saves; without a
	 * reduce-scatter (t = 1) from wo's output */
	if (d->shard > 1)
		unread(B);
	o = matmul(B, "attn_out", n, d->ow / t, h, d->ow * h / t, SPLIT_T);
	o->activation_bytes = 2 * n * d->ow / t;
	fp8_linear(B);
	if (d->bias)
		add(B, "attn_out_bias", AOP_VECTOR)->parameter_bytes = 2 * h;
	tp_leave(B, "attn_g", 2 * n * h, TP_ROW);
	if (d->shard > 1)
		B->g->op[B->g->n - 1].sac_saved_bytes = 2 * n * h / t;
	dropout_residual(B, "attn_residual");
}

/*
 * The MLP on `tokens` tokens whose input is sharded `in_shard` ways: up
 * (and gate) column-parallel, the activation, down row-parallel.  A dense
 * MLP keeps the up projection's input and output (GeLU's input) and the
 * down projection's input; a gated one keeps the gate and up outputs.
 * An expert MLP holds `experts` experts' weights (split over e as well).
 * It is `f` wide (an expert's width for experts).
 */
static void
mlp(struct builder *B, double tokens, double in_shard, double experts,
    double f, const char *prefix)
{
	const struct dims *d = B->d;
	int is_expert = experts > 0;
	/* whole experts (et 1) exchange nothing over the tensor ranks;
	 * experts split over fewer than t (1 < et < t) exchange over their
	 * own et ranks */
	int split = !is_expert || d->et > 1;
	int own = is_expert && split && d->et < d->t;
	double h = d->h, t = is_expert ? d->et : d->t, ups = d->gated ? 2 : 1;
	double copies = is_expert ? experts : 1;
	char name[24];
	struct aop *o;

	/* the experts' gather is the dispatcher's (Megatron-Core's
	 * MoEAlltoAllTokenDispatcher gathers the routed copies over the
	 * experts' tensor group once, and their grouped product keeps the
	 * gathered input): no product beside it hides it, and its backward,
	 * a reduce-scatter after the experts' input gradient, neither */
	snprintf(name, sizeof(name), "%s_f", prefix);
	if (own)
		collective(B, name, LCOLL_EXPERT_ALL_GATHER,
		    LCOLL_EXPERT_REDUCE_SCATTER, 2 * tokens * h);
	else if (split)
		tp_enter(B, name, 2 * tokens * h, is_expert ? -1 : TP_COLUMN);
	snprintf(name, sizeof(name), "%s_up", prefix);
	if (d->gated)	/* torchtitan's w1, then w3 */
		modules(B, 2, f / t, f / t, 0);
	o = matmul(B, name, tokens, h, ups * f / t,
	    copies * (ups * h * f + (d->bias ? ups * f : 0)) / t,
	    is_expert ? SPLIT_TE : SPLIT_T);
	grouped(o, copies);
	o->activation_bytes = 2 * tokens * h / in_shard;
	fp8_linear(B);
	snprintf(name, sizeof(name), "%s_act", prefix);
	/* GeLU (with its bias, fused) reads and writes each element;
	 * SwiGLU reads the gate and the up halves for each element it
	 * writes, and its backward writes both halves' gradients */
	o = vector(B, name, AOP_VECTOR, tokens * f / t, d->gated ? 6 : 8,
	    d->gated ? 6 : VEC_FWD_BPE, d->gated ? 10 : VEC_BWD_BPE);
	o->activation_bytes = 2 * ups * tokens * f / t;
	snprintf(name, sizeof(name), "%s_down", prefix);
	/* torchtitan: only the block's output reads it (nor its
	 * reduce-scatter's, unsaved) */
	unread(B);
	o = matmul(B, name, tokens, f / t, h, copies * f * h / t,
	    is_expert ? SPLIT_TE : SPLIT_T);
	grouped(o, copies);
	o->activation_bytes = 2 * tokens * f / t;
	fp8_linear(B);
	if (d->bias) {
		/* a row-parallel bias is whole on every device of the t group */
		snprintf(name, sizeof(name), "%s_down_bias", prefix);
		o = add(B, name, AOP_VECTOR);
		o->parameter_bytes = 2 * copies * h;
		o->param_split = is_expert ? SPLIT_E : SPLIT_NONE;
	}
	snprintf(name, sizeof(name), "%s_g", prefix);
	if (own)
		collective(B, name, LCOLL_EXPERT_REDUCE_SCATTER,
		    LCOLL_EXPERT_ALL_GATHER, 2 * tokens * h);
	else if (split)
		tp_leave(B, name, 2 * tokens * h, is_expert ? -1 : TP_ROW);
}

/* The ops from `first` on are of the combined 1F1B's node `node`: the
 * experts' (1) or the combine's compute (2) (struct aop, expert_node). */
static void
expert_node(struct builder *B, size_t first, int node)
{
	for (size_t i = first; i < B->g->n; i++)
		B->g->op[i].expert_node = node;
}

/*
 * Mixture of experts (GShard/Switch style, top-k routing): a replicated
 * router, an all-to-all that sends each local token to its k experts,
 * the local experts' MLPs on the n*k tokens that arrive (E/e experts a
 * device), and an all-to-all back.  Balanced unless the model states an
 * imbalance: then the busiest expert rank receives, computes and returns
 * that many times the mean, and sets the pace of the layer (its
 * exchange and its experts are what the others wait for).  Shared experts
 * (DeepSeekMoE) are one tensor-parallel MLP of their summed width that
 * every token passes, as Megatron-Core's SharedExpertMLP runs them; here
 * after the routed ones (not overlapped with the all-to-all).
 */
static void
moe(struct builder *B)
{
	const struct dims *d = B->d;
	double n = d->n, h = d->h, k = d->top_k * d->imbalance;
	double local = d->experts / d->ep;
	/* the token-expert pairs an expert rank runs: its t ranks' (gathered
	 * over them) where the experts are split over t, else its own s/t
	 * share's gathered over its et ranks (et < t comes with sp) */
	double pairs = d->et == d->t ? n * k : n * k * d->et / d->shard;
	size_t first;
	struct aop *o;

	o = matmul(B, "router", n / d->shard, h, d->experts, h * d->experts,
	    SPLIT_NONE);
	o->activation_bytes = 2 * n * h / d->shard;
	o = vector(B, "topk", AOP_VECTOR, n / d->shard * d->experts, 5,
	    VEC_FWD_BPE, VEC_BWD_BPE);
	o->activation_bytes = 2 * n / d->shard * d->experts;
	collective(B, "dispatch", LCOLL_ALL_TO_ALL, LCOLL_ALL_TO_ALL,
	    2 * n * k * h / d->shard);
	first = B->g->n;
	mlp(B, pairs, 1, local, d->fe, "expert");
	expert_node(B, first, 1);
	collective(B, "combine", LCOLL_ALL_TO_ALL, LCOLL_ALL_TO_ALL,
	    2 * n * k * h / d->shard);
	/* each token's own k copies, on the rank that holds the token
	 * (Megatron-Core's combine node runs it, on the exchange's stream) */
	o = vector(B, "combine_sum", AOP_VECTOR, n * d->top_k * h / d->shard,
	    2, VEC_FWD_BPE, VEC_BWD_BPE);
	o->activation_bytes = 2 * n * d->top_k * h / d->shard;
	o->expert_node = 2;
	if (d->fs > 0) {
		first = B->g->n;
		mlp(B, n, d->shard, 0, d->fs, "shared");
		/* Megatron-Core's mlp node runs the shared experts too
		 * (fine_grained_callables.py, submodule_moe_forward) */
		expert_node(B, first, 1);
	}
}

static void
transformer_layer(struct builder *B, int is_moe)
{
	attention(B);
	norm(B, "mlp_norm");
	if (is_moe)
		moe(B);
	else
		mlp(B, B->d->n, B->d->shard, 0, B->d->f, "mlp");
	dropout_residual(B, "mlp_residual");
	/* a mixture's residual is its combine node's (mlp_bda) */
	if (is_moe)
		B->g->op[B->g->n - 1].expert_node = 2;
	/* the block's output: its backward reads nothing of it */
	B->g->op[B->g->n - 1].sac_rerun = 0;
}

/* Vocabulary-parallel embedding (Megatron): each device holds V/t rows;
 * the partial lookups are summed (reduce-scattered with sp). */
static void
token_lookup(struct builder *B, double params)
{
	const struct dims *d = B->d;
	double n = d->n, h = d->h;
	struct aop *o;

	o = add(B, "token_embedding", AOP_EMBEDDING);
	o->fwd_bytes = 2 * n * h;
	o->bwd_bytes = 2 * 2 * n * h;
	o->parameter_bytes = 2 * params / d->t;
	o->param_split = SPLIT_T;
	if (d->t > 1) {
		if (d->shard > 1)
			collective(B, "embedding_g", LCOLL_REDUCE_SCATTER,
			    LCOLL_ALL_GATHER, 2 * n * h);
		else
			collective(B, "embedding_g", LCOLL_ALL_REDUCE, -1,
			    2 * n * h);
	}
}

static void
embedding(struct builder *B, const struct model_cfg *m)
{
	const struct dims *d = B->d;
	double n = d->n, h = d->h;
	struct aop *o;

	token_lookup(B, d->vocab * h);
	if (m->position == POS_LEARNED || m->type_vocab > 0) {
		o = vector(B, "position_embedding", AOP_EMBEDDING, n * h / d->shard,
		    1, VEC_FWD_BPE, VEC_BWD_BPE);
		o->parameter_bytes = 2 * h * ((m->position == POS_LEARNED ?
		    (double)m->max_positions : 0) + (double)m->type_vocab);
	}
	if (m->architecture == ARCH_ENCODER)
		norm(B, "embedding_norm");
	if (d->dropout) {
		/* reads 2, writes 2 and the mask; backward reads the
		 * gradient and the mask, writes 2 */
		o = vector(B, "embedding_dropout", AOP_VECTOR, n * h / d->shard, 2,
		    5, 5);
		o->activation_bytes = n * h / d->shard;
	}
}

/*
 * The head: final norm (decoders), pooler (BERT), the column-parallel
 * output projection over the vocabulary (its weight is the embedding's
 * when tied, held by the embedding layer) and the vocabulary-parallel
 * cross-entropy, whose three per-token reductions are all-reduced (fp32).
 * A multi-token prediction module's head (`shared`) projects with the
 * model's output weight.
 */
static void
head(struct builder *B, const struct model_cfg *m, int shared)
{
	const struct dims *d = B->d;
	double n = d->n, h = d->h, V = d->vocab, t = d->t;
	struct aop *o;

	if (m->architecture == ARCH_DECODER)
		norm(B, "final_norm");
	if (m->pooler) {
		o = matmul(B, "pooler", d->b, h, h, h * h + h, SPLIT_NONE);
		o->activation_bytes = 2 * d->b * h;
	}
	tp_enter(B, "head_f", 2 * n * h, TP_OUTSIDE);
	o = matmul(B, "output", n, h, V / t, m->tied_embeddings || shared ? 0 :
	    V * h / t, SPLIT_T);
	o->activation_bytes = 2 * n * h / d->shard;
	/* Megatron-LM's vocabulary-parallel cross-entropy (unfused, its
	 * default through core_r0.8.0), one pass over the logits a kernel:
	 * cast to fp32 (reads 2, writes 4), max (4), subtract it in place
	 * (8), exp in place (8), sum (4), divide in place for the softmax
	 * it keeps (8): 38 bytes an element.  Backward scales the kept
	 * softmax by the loss's gradient in place (8) and casts it back to
	 * bf16 for the projection (6): 14. */
	o = vector(B, "cross_entropy", AOP_VECTOR, n * V / t, 5, 38, 14);
	o->activation_bytes = 4 * n * V / t;
	if (t > 1)
		collective(B, "loss_reduce", LCOLL_ALL_REDUCE, -1, 3 * 4 * n);
}

/*
 * Multi-token prediction, a module a depth after the main head and in its
 * row (DeepSeek-V3 Sec. 2.2; Megatron-Core's MultiTokenPredictionLayer,
 * core_v0.15.0, which puts them in the last stage): the next token's
 * embedding (the model's weights) and the previous depth's hidden state,
 * each normed, concatenated and projected from 2h to h (column-parallel,
 * its output gathered over the tensor ranks), a transformer layer of the
 * last layer's kind, and a head with its own norm over the model's output
 * projection and its own loss.
 */
static void
mtp_module(struct builder *B, const struct model_cfg *m, int is_moe)
{
	const struct dims *d = B->d;
	double n = d->n, h = d->h, t = d->t;
	struct aop *o;

	token_lookup(B, 0);
	norm(B, "enorm");
	norm(B, "hnorm");
	tp_enter(B, "eh_f", 2 * n * 2 * h, TP_COLUMN);
	o = matmul(B, "eh_proj", n, 2 * h, h / t, 2 * h * h / t, SPLIT_T);
	o->activation_bytes = 2 * n * 2 * h / d->shard;
	fp8_linear(B);
	if (t > 1)
		collective(B, "eh_gather", LCOLL_ALL_GATHER, -1, 2 * n * h);
	transformer_layer(B, is_moe);
	head(B, m, 1);
}

static double roofline(const struct accel_cfg *a, const struct aop *o,
    int backward, double flops, double bytes);

/*
 * Tile and wave quantization (NVIDIA, "Matrix Multiplication Background
 * User's Guide", sections on tile and wave quantization): a product of
 * batch x (m x k)(k x n) runs as tiles of tile_m x tile_n outputs, each
 * unit computing one tile at a time, so the work done is that of
 * ceil(tiles / units) full waves of full tiles.  Returns the useful
 * fraction of that work (1 without a <gemm> model, or for a product with
 * no shape).  n = 0: a grid of batch x ceil(m / tile_m) blocks (flash
 * attention's), quantized in waves only.
 */
double
analytic_gemm_utilisation(const struct accel_cfg *a, double m, double n,
    double batch)
{
	double tiles, useful, waves;

	if (a->gemm_units <= 0 || m <= 0 || batch <= 0)
		return 1;
	if (n <= 0) {
		tiles = batch * ceil(m / (double)a->gemm_tile_m);
		useful = tiles;
	} else {
		tiles = batch * ceil(m / (double)a->gemm_tile_m) *
		    ceil(n / (double)a->gemm_tile_n);
		useful = batch * m * n / ((double)a->gemm_tile_m *
		    (double)a->gemm_tile_n);
	}
	waves = ceil(tiles / (double)a->gemm_units);
	return useful / (waves * (double)a->gemm_units);
}

/* The forward (0) or backward (1) time of an operator: the roofline, the
 * compute side of a matrix product scaled by its quantization.  The
 * backward of a weight product is two products: the input gradient
 * (m x n)(n x k) and the weight gradient (k x m)(m x n); of an attention
 * product, the gradients of its two operands, the same shapes.  A weight
 * product also pays the accelerator's fixed time once a product it runs
 * (<gemm fixed_s>; a grouped product's experts run side by side, so
 * once for all of them). */
static double
op_time(const struct accel_cfg *a, const struct aop *o, int backward)
{
	double flops = backward ? o->bwd_flops : o->fwd_flops;
	double bytes = backward ? o->bwd_bytes : o->fwd_bytes;
	double u;

	if (backward && o->kind == AOP_MATMUL)	/* each half in its shape */
		u = 2 / (1 / analytic_gemm_utilisation(a, o->gemm_m, o->gemm_k,
		    o->gemm_batch) + 1 / analytic_gemm_utilisation(a, o->gemm_k,
		    o->gemm_n, o->gemm_batch));
	else
		u = analytic_gemm_utilisation(a, o->gemm_m, o->gemm_n,
		    o->gemm_batch);
	/* a fused attention block's fixed share: keys / (keys + fixed) */
	if (o->fused_dropout >= 0 && a->flash_fixed_keys > 0 && o->gemm_k > 0)
		u *= o->gemm_k / (o->gemm_k + a->flash_fixed_keys);
	if (o->kind == AOP_MATMUL && flops > 0)
		return roofline(a, o, backward, flops / u, bytes) +
		    (backward ? 2 : 1) * a->gemm_fixed_s;
	return roofline(a, o, backward, flops / u, bytes);
}

/* The weights' gradient's share of a weight product's backward time:
 * its half of the roofline, by the time its shape takes against the
 * input gradient's, and its own fixed time (what a zero-bubble schedule
 * runs as a W pass; the attention products have no weights).  A head
 * tied to the embedding, whose weights the first stage counts, computes
 * its weight gradient all the same. */
static double
op_wgrad_time(const struct accel_cfg *a, const struct aop *o)
{
	double in, w;

	if (o->kind != AOP_MATMUL || o->bwd_flops <= 0)
		return 0;
	in = 1 / analytic_gemm_utilisation(a, o->gemm_m, o->gemm_k,
	    o->gemm_batch);
	w = 1 / analytic_gemm_utilisation(a, o->gemm_k, o->gemm_n,
	    o->gemm_batch);
	return (o->bwd_s - 2 * a->gemm_fixed_s) * w / (in + w) +
	    a->gemm_fixed_s;
}

/* Fused attention's efficiency by pass and dropout (the accelerator's
 * flash kinds default to the attention one); the unfused attention's
 * batched products', the attention one. */
static double
attention_efficiency(const struct accel_cfg *a, const struct aop *o,
    int backward)
{
	static const int kind[ATTN_NKERNELS][2][2] = {
		{ { EFF_FLASH, EFF_FLASH_BACKWARD },
		  { EFF_FLASH_DROPOUT, EFF_FLASH_DROPOUT_BACKWARD } },
		{ { EFF_FA2, EFF_FA2_BACKWARD },
		  { EFF_FA2_DROPOUT, EFF_FA2_DROPOUT_BACKWARD } },
	};

	if (o->fused_dropout < 0)
		return a->efficiency[EFF_ATTENTION];
	return a->efficiency[kind[o->attn][o->fused_dropout][backward != 0]];
}

static double
roofline(const struct accel_cfg *a, const struct aop *o, int backward,
    double flops, double bytes)
{
	double peak, mem = bytes / accel_memory_Bps(a);
	int fp8 = o->fp8;

	switch (o->kind) {
	case AOP_COLLECTIVE:
		return 0;	/* priced by the evaluator at its network level */
	case AOP_MATMUL:
		/* FP8's block scales (blockwise, MXFP8) their own efficiency */
		peak = fp8 ? a->peak_fp8_flops_per_s * a->efficiency[fp8 ==
		    FP8_BLOCKWISE || fp8 == FP8_MXFP8 ? EFF_FP8_BLOCK_MATMUL :
		    EFF_FP8_MATMUL] :
		    a->peak_matmul_flops_per_s * a->efficiency[EFF_MATMUL];
		break;
	case AOP_ATTENTION:
		peak = a->peak_matmul_flops_per_s *
		    attention_efficiency(a, o, backward);
		break;
	default:
		peak = a->peak_vector_flops_per_s * a->efficiency[EFF_VECTOR];
	}
	return fmax(flops / peak, mem);
}

long
variant_ep_fold(const struct variant *v)
{
	if (!v->ep_batch)
		return v->e;
	return v->ep_fold > 1 ? v->ep_fold : 1;
}

long
variant_ep_samples(const struct variant *v)
{
	return v->ep_batch ? v->e / variant_ep_fold(v) : 1;
}

static int
check_variant(const struct model_cfg *m, const struct variant *v,
    struct pl_err *err)
{
	const char *why = NULL;
	char buf[160];
	long et = v->et ? v->et : v->t;

	if (v->t < 1 || v->e < 1 || v->c < 1 || v->b < 1)
		why = "t, e, c and the micro-batch must be at least 1";
	else if (m->heads % v->t || m->kv_heads % v->t || m->ffn_hidden % v->t) {
		snprintf(buf, sizeof(buf), "t = %ld does not divide the heads "
		    "(%ld), key/value heads (%ld) and MLP width (%ld)", v->t,
		    m->heads, m->kv_heads, m->ffn_hidden);
		why = buf;
	} else if (et < 1 || v->t % et) {
		snprintf(buf, sizeof(buf), "et = %ld: the experts' tensor "
		    "split divides t", et);
		why = buf;
	} else if (m->expert_ffn_hidden % et ||
	    m->shared_expert_ffn_hidden % v->t) {
		snprintf(buf, sizeof(buf), "et = %ld and t = %ld do not divide "
		    "an expert's width (%ld) and the shared experts' (%ld)",
		    et, v->t, m->expert_ffn_hidden,
		    m->shared_expert_ffn_hidden);
		why = buf;
	} else if (et < v->t && m->experts == 1) {
		why = "et < t needs a mixture-of-experts model";
	} else if (et < v->t && !v->sp) {
		/* without it every tensor rank holds all the tokens */
		why = "an experts' tensor split below t (et < t) needs "
		    "sequence parallelism";
	} else if (v->sp && v->t == 1)
		why = "sequence parallelism needs t > 1";
	else if (v->e > 1 && m->experts == 1)
		why = "expert parallelism needs a mixture-of-experts model";
	else if (m->experts % (v->e * (v->t / et))) {
		snprintf(buf, sizeof(buf), "%ld expert ranks (e = %ld x t/et = "
		    "%ld) do not divide the %ld experts", v->e * (v->t / et),
		    v->e, v->t / et, m->experts);
		why = buf;
	} else if (v->ep_batch && v->e == 1) {
		why = "a batch split of the experts needs e > 1";
	} else if (v->ep_batch && v->c > 1) {
		/* Megatron-Core folds its expert ranks over the context ranks
		 * first: a batch split beside context parallelism cannot be
		 * launched */
		why = "a batch split of the experts needs c = 1";
	} else if (v->ep_fold < 0 || (v->ep_fold > 1 && (!v->ep_batch ||
	    v->ep_fold >= v->e || v->e % v->ep_fold))) {
		snprintf(buf, sizeof(buf), "a fold of %ld expert ranks over "
		    "a sequence in a batch split needs ep_batch and a divisor "
		    "of e = %ld below it", v->ep_fold, v->e);
		why = buf;
	} else if (v->ep_batch && v->b % variant_ep_samples(v)) {
		snprintf(buf, sizeof(buf), "a batch split: %ld sample ranks "
		    "(e = %ld over a fold of %ld) do not divide the "
		    "micro-batch", variant_ep_samples(v), v->e,
		    variant_ep_fold(v));
		why = buf;
	} else if (m->seq_len % (v->c * variant_ep_fold(v))) {
		snprintf(buf, sizeof(buf), "c times the expert ranks over a "
		    "sequence, %ld, does not divide it (%ld)", v->c *
		    variant_ep_fold(v), m->seq_len);
		why = buf;
	} else if (v->sp && (v->b * m->seq_len / (v->c * v->e)) % v->t) {
		why = "t does not divide the tokens a device holds";
	}
	if (why) {
		char split[96] = "";

		if (v->ep_batch && variant_ep_fold(v) > 1)
			snprintf(split, sizeof(split), " ep=batch fold=%ld "
			    "(%ld/%ld a rank)", variant_ep_fold(v), v->b,
			    variant_ep_samples(v));
		else if (v->ep_batch)
			snprintf(split, sizeof(split), " ep=batch (%ld/%ld a "
			    "rank)", v->b, v->e);
		if (et != v->t)
			snprintf(split + strlen(split), sizeof(split) -
			    strlen(split), " et=%ld", et);
		return pl_errf(err, NULL, 0, "model '%s', variant t=%ld e=%ld "
		    "c=%ld sp=%d b=%ld%s: %s", m->name, v->t, v->e, v->c, v->sp,
		    v->b, split, why);
	}
	return 0;
}

size_t
analytic_variants(const struct model_cfg *m, long b, long max_t, long max_c,
    int ep, struct variant *out, size_t cap)
{
	struct pl_err quiet;
	size_t n = 0;

	for (long t = 1; t <= max_t; t *= 2)
		for (int sp = 0; sp <= (t > 1); sp++)
			for (long e = 1; e <= m->experts; e *= 2)
				for (long c = 1; c <= max_c; c *= 2)
					for (int eb = 0; eb <= (e > 1); eb++)
					/* a batch split's fold: 1, then 2 to
					 * e/2 where both splits are asked, its
					 * ranks over a sequence at most max_c
					 * (Megatron's context-parallel size) */
					for (long f = 1; f < (eb ? e : 2) &&
					    f <= max_c; f *= 2)
					for (long et = t; et >= 1; et /= 2) {
						struct variant v = { t, e, c, sp,
						    eb ? b * (e / f) : b, eb, et,
						    FP8_NONE, f, ATTN_FUSED };

						if (e > 1 && !(ep & (eb ? EP_BATCH :
						    EP_FOLD)))
							continue;
						if (f > 1 && ep != (EP_FOLD |
						    EP_BATCH))
							continue;
						if (check_variant(m, &v, &quiet) < 0)
							continue;
						if (n < cap)
							out[n] = v;
						n++;
					}
	return n;
}

int
analytic_build(const struct model_cfg *m, const struct accel_cfg *a,
    const struct variant *v, struct aop_graph *g, struct pl_err *err)
{
	struct dims d;
	struct builder B;

	memset(g, 0, sizeof(*g));
	if (check_variant(m, v, err) < 0)
		return -1;
	if (v->fp8 < FP8_NONE || v->fp8 >= FP8_NRECIPES)
		return pl_errf(err, NULL, 0, "model '%s': FP8 recipe %d is "
		    "not one of config.h's", m->name, v->fp8);
	if (a && v->fp8 != FP8_NONE && !accel_runs_fp8(a, v->fp8))
		return pl_errf(err, NULL, 0, "accelerator '%s' runs no FP8 "
		    "recipe '%s'%s", a->name, fp8_recipe_words[v->fp8],
		    a->fp8_recipes ? "" : " (it has no <fp8> element)");
	/* FlashAttention-2 is a fused kernel: a device with its rate, a
	 * model with fused attention */
	if (v->attn < ATTN_FUSED || v->attn >= ATTN_NKERNELS)
		return pl_errf(err, NULL, 0, "model '%s': attention kernel %d "
		    "is not one of config.h's", m->name, v->attn);
	if (v->attn == ATTN_FA2 && !m->flash_attention)
		return pl_errf(err, NULL, 0, "model '%s': attention kernel "
		    "'fa2' (FlashAttention-2) prices fused attention, and the "
		    "model's is not (<flash_attention>false)", m->name);
	/* FlashAttention-2 runs one head width for queries, keys and values,
	 * up to 256 (flash-attn 2.x; Transformer Engine turns it off for
	 * latent attention's 192 over 128) */
	if (v->attn == ATTN_FA2 && (m->kv_lora_rank > 0 ||
	    m->head_dim + m->qk_rope_head_dim != m->v_head_dim ||
	    m->v_head_dim > 256))
		return pl_errf(err, NULL, 0, "model '%s': attention kernel "
		    "'fa2' (FlashAttention-2) runs one head width up to 256 "
		    "for queries, keys and values, and the model's are %ld "
		    "and %ld%s", m->name, m->head_dim + m->qk_rope_head_dim,
		    m->v_head_dim, m->kv_lora_rank > 0 ? " (latent "
		    "attention)" : "");
	if (a && v->attn == ATTN_FA2 && !a->fa2)
		return pl_errf(err, NULL, 0, "accelerator '%s' has no "
		    "FlashAttention-2 rate (<efficiency "
		    "kind=\"fa2_attention\">)", a->name);
	/* torchao's Float8Linear on torchtitan's dense blocks: its
	 * experts' grouped products take another converter (a prototype,
	 * Float8GroupedMM), not priced, and no flavor of torchtitan's with
	 * latent attention or a prediction module is priced with it */
	if (FP8_TORCHAO(v->fp8) && (m->experts > 1 || m->kv_lora_rank > 0 ||
	    m->q_lora_rank > 0 || m->mtp_depth > 0))
		return pl_errf(err, NULL, 0, "model '%s': FP8 recipe '%s' "
		    "(torchao's Float8Linear) is priced for dense blocks of "
		    "plain attention only (experts, latent attention and "
		    "multi-token prediction are not)", m->name,
		    fp8_recipe_words[v->fp8]);
	g->v = *v;
	g->nlayers = m->layers + 2;
	d.b = (double)(v->b / variant_ep_samples(v));
	d.ce = (double)(v->c * variant_ep_fold(v));
	d.s_full = (double)m->seq_len;
	d.n = d.b * d.s_full / d.ce;
	d.h = (double)m->hidden;
	d.heads = (double)m->heads;
	d.head_dim = (double)m->head_dim;
	d.qr = (double)m->q_lora_rank;
	d.kvr = (double)m->kv_lora_rank;
	d.rope = (double)m->qk_rope_head_dim;
	d.qw = d.heads * (d.head_dim + d.rope);
	d.kw = (double)m->kv_heads * (d.head_dim + d.rope);
	d.vw = (double)m->kv_heads * (double)m->v_head_dim;
	d.ow = d.heads * (double)m->v_head_dim;
	d.f = (double)m->ffn_hidden;
	d.fe = (double)m->expert_ffn_hidden;
	d.fs = (double)m->shared_expert_ffn_hidden;
	/* the vocabulary is padded to a multiple of t, each device holding
	 * an equal slice (Megatron pads to a multiple of 128 t) */
	d.vocab = (double)((m->vocab + v->t - 1) / v->t * v->t);
	d.experts = (double)m->experts;
	d.top_k = (double)m->top_k;
	d.imbalance = m->expert_imbalance;
	d.t = (double)v->t;
	d.shard = v->sp ? d.t : 1;
	d.e = (double)v->e;
	d.et = (double)(v->et ? v->et : v->t);
	d.ep = d.e * d.t / d.et;
	d.fp8 = v->fp8;
	d.dropout = m->dropout;
	d.gated = m->mlp == MLP_GATED;
	d.rms = m->norm == NORM_RMSNORM;
	d.qk_norm = m->qk_norm;
	d.bias = m->bias;
	d.causal = m->causal;
	d.flash = m->flash_attention;
	d.attn = v->attn;
	/* torchtitan's per-operator policy is priced for the Llama block
	 * its save list and mm count are written for: dense, with plain
	 * attention, in bf16 or torchao's float8 (its Float8Linear calls
	 * aten.mm on float8 tensor subclasses, which the policy's dispatch
	 * mode sees before the subclass runs it as aten._scaled_mm: counted
	 * and saved as bf16's; the casts run again, the amaxes saved),
	 * without
	 * biases (a linear module with one runs aten.addmm, which the policy
	 * neither counts nor saves), its tensor parallelism sequence-
	 * parallel (torchtitan's only form) */
	g->op_sac = m->experts <= 1 && m->kv_lora_rank == 0 &&
	    m->mtp_depth == 0 && (v->fp8 == FP8_NONE ||
	    FP8_TORCHAO(v->fp8)) && !m->bias && (v->t == 1 || v->sp);
	memset(&B, 0, sizeof B);
	B.g = g;
	B.d = &d;
	B.prefix = "";
	begin_row(&B, -1);
	embedding(&B, m);
	for (long l = 0; l < m->layers; l++) {
		begin_row(&B, l);
		transformer_layer(&B, model_layer_is_moe(m, l));
	}
	begin_row(&B, m->layers);
	head(&B, m, 0);
	for (long k = 1; k <= m->mtp_depth; k++) {
		char prefix[32];

		snprintf(prefix, sizeof prefix, "mtp%ld_", k);
		B.prefix = prefix;
		mtp_module(&B, m, model_layer_is_moe(m, m->layers - 1));
	}
	B.prefix = "";
	g->boundary_bytes = 2 * d.n * d.h / d.shard;
	for (size_t i = 0; a && i < g->n; i++) {
		struct aop *o = &g->op[i];

		o->fwd_s = op_time(a, o, 0);
		o->bwd_s = op_time(a, o, 1);
		o->wgrad_s = op_wgrad_time(a, o);
	}
	return 0;
}

void
analytic_release(struct aop_graph *g)
{
	free(g->op);
	memset(g, 0, sizeof(*g));
}

/*
 * Per-layer sums.  The ops of a layer form a chain, so the sequential sum
 * is also the optimal schedule (each op on all cores of its kind).  Every
 * layer's input is the previous layer's output, b*s/(c*e) tokens of
 * width h (sharded over t with sp); the embedding reads token ids only.
 */
void
analytic_layers(const struct aop_graph *g, struct layer_graph *out)
{
	memset(out, 0, sizeof(*out));
	out->file = xstrdup("(analytic)");
	out->n = (size_t)g->nlayers;
	out->l = xcalloc(out->n, sizeof(struct layer));
	out->has_variant = 1;
	out->has_recompute = 1;
	out->has_op_sac = g->op_sac;
	out->has_wgrad = 1;
	out->var_t = g->v.t;
	out->var_e = g->v.e;
	out->var_c = g->v.c;
	out->var_sp = g->v.sp;
	out->var_b = g->v.b;
	out->var_ep_batch = g->v.ep_batch;
	out->var_ep_fold = g->v.ep_batch ? variant_ep_fold(&g->v) : 1;
	out->var_et = g->v.et ? g->v.et : g->v.t;
	out->var_fp8 = g->v.fp8;
	out->var_attn = g->v.attn;
	for (size_t r = 0; r < out->n; r++) {
		struct layer *L = &out->l[r];

		L->id = (long)r - 1;
		snprintf(L->kind, sizeof(L->kind), "%s", r == 0 ? "embedding" :
		    r + 1 == out->n ? "head" : "transformer");
	}
	for (size_t i = 0; i < g->n; i++) {
		const struct aop *o = &g->op[i];
		struct layer *L = &out->l[o->layer + 1];

		L->forward_s += o->fwd_s;
		L->backward_s += o->bwd_s;
		L->weight_gradient_s += o->wgrad_s;
		if (o->expert_node == 1) {
			L->expert_forward_s += o->fwd_s;
			L->expert_backward_s += o->bwd_s;
			L->expert_weight_gradient_s += o->wgrad_s;
			out->has_expert_times = 1;
		} else if (o->expert_node == 2) {
			L->combine_forward_s += o->fwd_s;
			L->combine_backward_s += o->bwd_s;
		}
		L->parameter_bytes += o->parameter_bytes;
		/* an FP8 product's weights: a byte each and one for the
		 * transpose, as many bytes as their bf16 copy */
		if (o->fp8)
			L->fp8_weight_bytes += o->parameter_bytes;
		if (o->param_split != SPLIT_TE && o->param_split != SPLIT_E)
			L->dense_parameter_bytes += o->parameter_bytes;
		else if (o->fp8)
			L->fp8_expert_weight_bytes += o->parameter_bytes;
		L->activation_bytes += o->activation_bytes;
		if (o->selective_rerun)
			L->selective_recompute_s += o->fwd_s;
		if (!o->selective_drop)
			L->selective_bytes += o->activation_bytes;
		L->op_sac_bytes += o->sac_saved_bytes;
		L->op_sac_recompute_s += o->sac_rerun * o->fwd_s;
		if (o->fwd_coll >= 0)
			L->coll_bytes[o->fwd_coll] += o->coll_bytes;
		if (o->bwd_coll >= 0)
			L->coll_bytes[o->bwd_coll] += o->coll_bytes;
	}
	/* each tensor-parallel collective with the product beside it */
	out->has_tp_overlap = 1;
	for (size_t i = 0; i < g->n; i++) {
		const struct aop *o = &g->op[i];
		struct layer *L = &out->l[o->layer + 1];
		struct tp_pair *p;

		if (o->tp_role < 0 || o->tp_gemm < 0)
			continue;
		L->tp = xrealloc(L->tp, (size_t)(L->ntp + 1) * sizeof *L->tp);
		p = &L->tp[L->ntp++];
		p->role = o->tp_role;
		p->bytes = o->coll_bytes;
		p->forward_s = g->op[o->tp_gemm].fwd_s;
		p->backward_s = g->op[o->tp_gemm].bwd_s;
	}
	out->nedges = out->n - 1;
	out->e = xcalloc(out->nedges, sizeof(struct layer_edge));
	for (size_t r = 1; r < out->n; r++) {
		out->l[r].input_bytes = g->boundary_bytes;
		out->e[r - 1].src = r - 1;
		out->e[r - 1].dst = r;
		out->e[r - 1].bytes = g->boundary_bytes;
	}
	/* Megatron recomputes transformer layers only: a recomputed layer
	 * keeps its input (full) or all but its attention core's s x s
	 * tensors (selective); the embedding and the head keep everything
	 * and run nothing again */
	for (size_t r = 0; r < out->n; r++) {
		struct layer *L = &out->l[r];

		if (r == 0 || r + 1 == out->n) {
			L->checkpoint_bytes = L->selective_bytes =
			    L->op_sac_bytes = L->activation_bytes;
			L->recompute_s = L->selective_recompute_s =
			    L->op_sac_recompute_s = 0;
		} else {
			L->checkpoint_bytes = L->input_bytes;
			L->recompute_s = L->forward_s;
			/* torchtitan's checkpoint keeps the block's input
			 * beside what its policy saves */
			L->op_sac_bytes += L->input_bytes;
		}
	}
	/* identical transformer layers: say so, as the profiled path does
	 * (each a copy of the first of its kind: a few kinds at most, dense
	 * and expert layers) */
	for (size_t r = 2; r + 1 < out->n; r++)
		for (size_t o = 1; o < r; o++) {
			if (out->l[o].is_copy ||
			    layers_differing_number(&out->l[r], &out->l[o]))
				continue;
			out->l[r].is_copy = 1;
			out->l[r].copy_of = (long)o - 1;
			break;
		}
}

int
analytic_write_ops(FILE *fp, const struct aop_graph *g)
{
	static const char *const header[] = {
		"op_id", "layer_id", "name", "kind", "forward_flops",
		"backward_flops", "forward_bytes", "backward_bytes",
		"parameter_bytes", "activation_bytes", "forward_collective",
		"backward_collective", "collective_bytes", "forward_s",
		"backward_s", "gemm_m", "gemm_n", "gemm_k", "gemm_batch"
	};
	static const char *const kinds[] = {
		"matmul", "attention", "vector", "norm", "embedding", "collective"
	};
	static const char *const colls[] = {
		"all_reduce", "all_gather", "reduce_scatter", "all_to_all",
		"context_all_gather", "context_reduce_scatter",
		"expert_all_gather", "expert_reduce_scatter"
	};
	char b[16][NUMFMT_LEN];
	int bad = csvio_write_row(fp, header, 19);

	for (size_t i = 0; i < g->n; i++) {
		const struct aop *o = &g->op[i];
		const char *f[19];
		int mm = o->kind == AOP_MATMUL;

		snprintf(b[0], NUMFMT_LEN, "%zu", i);
		snprintf(b[1], NUMFMT_LEN, "%ld", o->layer);
		f[0] = b[0];
		f[1] = b[1];
		f[2] = o->name;
		f[3] = kinds[o->kind];
		f[4] = numfmt(b[2], o->fwd_flops);
		f[5] = numfmt(b[3], o->bwd_flops);
		f[6] = numfmt(b[4], o->fwd_bytes);
		f[7] = numfmt(b[5], o->bwd_bytes);
		f[8] = numfmt(b[6], o->parameter_bytes);
		f[9] = numfmt(b[7], o->activation_bytes);
		f[10] = o->fwd_coll >= 0 ? colls[o->fwd_coll] : "";
		f[11] = o->bwd_coll >= 0 ? colls[o->bwd_coll] : "";
		f[12] = numfmt(b[8], o->coll_bytes);
		f[13] = numfmt(b[9], o->fwd_s);
		f[14] = numfmt(b[10], o->bwd_s);
		/* a matrix product's shape: (m x k)(k x n), batch of them */
		f[15] = mm ? numfmt(b[11], o->gemm_m) : "";
		f[16] = mm ? numfmt(b[12], o->gemm_n) : "";
		f[17] = mm ? numfmt(b[13], o->gemm_k) : "";
		f[18] = mm ? numfmt(b[14], o->gemm_batch) : "";
		bad |= csvio_write_row(fp, f, 19);
	}
	return bad;
}
