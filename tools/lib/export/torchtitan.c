#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "export/torchtitan.h"

#define cannot megatron_why_add	/* a reason it cannot run the plan */

static void line(FILE *fp, int off, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/*
 * torchtitan v0.2.2's flavors of the models it trains:
 * - Llama 3 (torchtitan/models/llama3/__init__.py, llama3_args): dim,
 *   n_layers, n_heads, n_kv_heads, and the FFN width its
 *   ffn_dim_multiplier and multiple_of give (int(8 dim / 3), times the
 *   multiplier, rounded up to the multiple); a head dim / n_heads wide,
 *   vocabulary 128,256 (model/args.py), no query/key norm;
 * - Qwen3's mixtures (torchtitan/models/qwen3/__init__.py, qwen3_args):
 *   dim, n_layers, n_heads, n_kv_heads, head_dim 128, every layer's MLP
 *   routed (moe_enabled: moe_inter_dim wide, MoEArgs' num_experts and
 *   top_k, no shared experts), vocabulary 151,936, qk_norm.  Its
 *   TrainSpec has no pipelining_fn, so torchtitan refuses to pipeline it
 *   (train.py), and parallelize_qwen3 never passes use_deepep to its MoE
 *   layers (the flat all-to-all whatever expert_parallel_comm_backend);
 * - DeepSeek-V3 671B (torchtitan/models/deepseek_v3/__init__.py): dim
 *   7168, 61 layers of which the first 3 dense (inter_dim 18,432), 128
 *   heads of latent attention (q_lora_rank 1,536, kv_lora_rank 512,
 *   qk_nope_head_dim 128, qk_rope_head_dim 64, v_head_dim 128), 256
 *   routed experts 2,048 wide and one shared, top 8 of at most 4 of 8
 *   groups, vocabulary 129,280, no multi-token prediction module; its
 *   attention flex ("flex", block_causal), which torchtitan's context
 *   parallelism refuses (only SDPA); pipelined (pipeline_llm); DeepEP
 *   where asked (use_deepep, with etp 1).  Its tensor parallelism
 *   (apply_non_moe_tp) gathers the whole hidden state before attention
 *   and runs the latent down projections unsplit, and its DeepEP layer
 *   has no reorderer for sequence-parallel tokens (DeepEPMoE sets it to
 *   None, so every tensor rank would dispatch the gathered tokens): both
 *   unlike Megatron's way, which the graphs price, so t is 1 here.
 * All: RMSNorm, a SwiGLU MLP, rotary positions, no bias, untied
 * embeddings (enable_weight_tying false).
 */
static const struct flavor {
	long hidden, layers, heads, kv_heads, head_dim, ffn, experts, top_k;
	long vocab;
	int qk_norm, pipelines;
	const char *name, *flavor;
	/* DeepSeek's: latent attention's ranks and rotary and value widths,
	 * the dense layers' FFN, the shared experts' width, the leading
	 * dense layers, the router's groups and those a token may reach
	 * (zero: none); DeepEP runs; flex attention (no context ranks) */
	long q_lora, kv_lora, rope_dim, v_head_dim, dense_ffn, shared_ffn;
	long dense_layers, groups, group_topk;
	int deepep, flex;
} flavors[] = {
	{ 4096, 32, 32, 8, 128, 14336, 0, 0, 128256, 0, 1, "llama3",
	    "8B", 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 },	/* 1.3, 1024 */
	{ 8192, 80, 64, 8, 128, 28672, 0, 0, 128256, 0, 1, "llama3",
	    "70B", 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 },	/* 1.3, 4096 */
	{ 16384, 126, 128, 8, 128, 53248, 0, 0, 128256, 0, 1, "llama3",
	    "405B", 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 },	/* 1.2, 4096 */
	{ 2048, 48, 32, 4, 128, 768, 128, 8, 151936, 1, 0, "qwen3",
	    "30B-A3B", 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 },
	{ 4096, 94, 64, 4, 128, 1536, 128, 8, 151936, 1, 0, "qwen3",
	    "235B-A22B", 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 },
	{ 7168, 61, 128, 128, 128, 2048, 256, 8, 129280, 0, 1, "deepseek_v3",
	    "671B", 1536, 512, 64, 128, 18432, 2048, 3, 8, 4, 1, 1 },
};

static const struct flavor *
flavor_of(const struct model_cfg *model)
{
	long head_dim, experts, ffn, groups;

	if (model == NULL)
		return NULL;
	head_dim = model->head_dim > 0 ? model->head_dim : model->heads > 0 ?
	    model->hidden / model->heads : 0;
	experts = model->experts > 1 ? model->experts : 0;
	ffn = experts && model->expert_ffn_hidden > 0 ?
	    model->expert_ffn_hidden : model->ffn_hidden;
	groups = model->router_groups > 1 ? model->router_groups : 0;
	for (size_t i = 0; i < sizeof flavors / sizeof flavors[0]; i++) {
		const struct flavor *f = &flavors[i];

		if (model->architecture == ARCH_DECODER &&
		    experts == f->experts && model->mtp_depth == 0 &&
		    (!experts || (model->top_k == f->top_k &&
		    model->shared_expert_ffn_hidden == f->shared_ffn &&
		    model->dense_layers == f->dense_layers &&
		    (model->dense_layers == 0 || model->ffn_hidden ==
		    f->dense_ffn) && groups == f->groups && (!groups ||
		    model->router_group_topk == f->group_topk))) &&
		    model->q_lora_rank == f->q_lora &&
		    model->kv_lora_rank == f->kv_lora &&
		    (!f->kv_lora || (model->qk_rope_head_dim == f->rope_dim &&
		    model->v_head_dim == f->v_head_dim)) &&
		    model->hidden == f->hidden && model->layers == f->layers &&
		    model->heads == f->heads && model->kv_heads ==
		    f->kv_heads && head_dim == f->head_dim && ffn == f->ffn &&
		    model->vocab == f->vocab && model->norm == NORM_RMSNORM &&
		    model->mlp == MLP_GATED && model->activation == ACT_SILU &&
		    model->position == POS_ROTARY && !model->bias &&
		    !model->tied_embeddings && !model->qk_norm == !f->qk_norm)
			return f;
	}
	return NULL;
}

const char *
torchtitan_flavor(const struct model_cfg *model, const char **name)
{
	const struct flavor *f = flavor_of(model);

	if (f == NULL)
		return NULL;
	*name = f->name;
	return f->flavor;
}

int
torchtitan_pipelines(const struct model_cfg *model)
{
	const struct flavor *f = flavor_of(model);

	return f == NULL || f->pipelines;
}

int
torchtitan_deepep(const struct model_cfg *model)
{
	const struct flavor *f = flavor_of(model);

	return f != NULL && f->deepep;
}

/* Whether the model's flavor attends with flex attention, which
 * torchtitan's context parallelism does not run. */
static int
flex_attention(const struct model_cfg *model)
{
	const struct flavor *f = flavor_of(model);

	return f != NULL && f->flex;
}

/* Whether torchtitan splits the model's attention over tensor ranks as
 * the graphs price it (Megatron's way): not its latent attention. */
static int
tensor_priced(const struct model_cfg *model)
{
	const struct flavor *f = flavor_of(model);

	return f == NULL || f->kv_lora == 0;
}

/* Its expert tensor split: none or the tensor ranks' (ParallelDims
 * asserts etp == tp or etp == 1 with ep > 1). */
static int
etp_runs(const struct layer_graph *g)
{
	long t = layers_var(g, g->var_t, 1);

	return layers_expert_ranks(g) <= 1 || layers_expert_t(g) == 1 ||
	    layers_expert_t(g) == t;
}

int
torchtitan_variant_ok(const struct layer_graph *g,
    const struct model_cfg *model)
{
	long t = layers_var(g, g->var_t, 1), cp = layers_context_ranks(g);
	long s = summary_seq_len(g, model);

	return etp_runs(g) && (g->var_fp8 == FP8_NONE || g->var_fp8 ==
	    FP8_FLOAT8 || (g->var_fp8 == FP8_FLOAT8_TP && t == 1)) &&
	    (cp == 1 || !flex_attention(model)) &&
	    (t == 1 || tensor_priced(model)) &&
	    (t == 1 || (g->has_variant && g->var_sp)) &&
	    (s <= 0 || s % (2 * t * cp) == 0);
}

/* Whether the graph's rows are torchtitan's modules, one each: the
 * embedding first, then `layers` transformer blocks, the head last. */
static int
rows_are_modules(const struct layer_graph *g, long layers)
{
	long blocks = 0;

	if (g->n < 2 || strcmp(g->l[0].kind, "embedding") ||
	    strcmp(g->l[g->n - 1].kind, "head"))
		return 0;
	for (size_t i = 1; i + 1 < g->n; i++) {
		if (strcmp(g->l[i].kind, "transformer"))
			return 0;
		blocks++;
	}
	return blocks == layers;
}

int
torchtitan_check(const struct plan *p, long global_batch, int optimizer,
    const struct model_cfg *model, struct megatron_why *w)
{
	const struct layer_graph *g = p->g;
	long t = layers_var(g, g->var_t, 1), c = layers_context_ranks(g);
	long b = layers_var(g, g->var_b, 1), s = summary_seq_len(g, model);
	int sp = g->has_variant && g->var_sp, copies = 0;
	const char *name;

	w->n = 0;
	for (int i = 0; i < p->nstages; i++)
		copies |= p->stage[i].z > 1;
	if (model && layers_expert_ranks(g) > 1 && model->experts %
	    layers_expert_ranks(g))
		cannot(w, "%ld experts over %ld expert ranks (torchtitan "
		    "splits whole experts)", model->experts,
		    layers_expert_ranks(g));
	if (!etp_runs(g))
		cannot(w, "experts split over %ld of the %ld tensor ranks "
		    "(torchtitan's expert_tensor_parallel_degree is 1 or the "
		    "tensor degree)", layers_expert_t(g), t);
	if (p->deepep && !torchtitan_deepep(model))
		cannot(w, "DeepEP's dispatch as priced (of torchtitan "
		    "v0.2.2's models DeepSeek-V3 runs it; Qwen3 runs the flat "
		    "all-to-all whatever its expert_parallel_comm_backend: "
		    "parallelize_qwen3 does not pass use_deepep)");
	else if (p->deepep && t > 1)
		cannot(w, "DeepEP's dispatch over %ld tensor ranks "
		    "(torchtitan's DeepEP layer has no reorderer for "
		    "sequence-parallel tokens: every tensor rank would "
		    "dispatch them all)", t);
	if (t > 1 && !tensor_priced(model))
		cannot(w, "%ld tensor ranks of latent attention (torchtitan "
		    "gathers the whole hidden state and runs the down "
		    "projections unsplit; priced as Megatron splits them)", t);
	if (c > 1 && flex_attention(model))
		cannot(w, "%ld context ranks (the model's flavor attends with "
		    "flex attention, which torchtitan's context parallelism "
		    "does not run)", c);
	if (g->var_fp8 != FP8_NONE && !FP8_TORCHAO(g->var_fp8))
		cannot(w, "Transformer Engine's FP8 recipe '%s' (torchtitan "
		    "runs torchao's float8: recipe float8)",
		    fp8_recipe_words[g->var_fp8]);
	else if (g->var_fp8 == FP8_FLOAT8_TP && t > 1)
		cannot(w, "float8 tensor parallelism (torchtitan v0.2.2 turns "
		    "it on for a converter named \"float8\", and registers "
		    "it as \"quantize.linear.float8\": its tensor ranks "
		    "exchange bf16, recipe float8)");
	if (copies)
		cannot(w, "ZeRO copies of a stage (torchtitan shards with "
		    "FSDP2 over the data-parallel ranks)");
	if (!p->fsdp && p->distopt)
		cannot(w, "Megatron's distributed optimizer (torchtitan "
		    "shards with FSDP2: dpsolve -X torchtitan, or -I)");
	else if (!p->fsdp)
		cannot(w, "no FSDP2 (without it torchtitan trains in fp32 "
		    "beside tensor or pipeline parallelism, applies FSDP2 "
		    "over the context ranks anyway, and runs DDP on fp32 "
		    "weights under autocast: none priced)");
	if (t > 1 && !sp)
		cannot(w, "tensor parallelism without sequence parallelism "
		    "(torchtitan's shards the norms' sequence always)");
	if (p->nstages > 1 && p->d > 1 && !p->stage_major)
		cannot(w, "a pipeline with %ld data-parallel ranks: torchtitan's "
		    "mesh puts the pipeline outermost, each stage's replicas "
		    "side by side, and the plan was priced with a replica's "
		    "stages one after another (dpsolve -L stage prices "
		    "torchtitan's)", p->d);
	if (p->nstages > 1 && b * p->d > 0 && global_batch / (b * p->d) <
	    p->nstages)
		cannot(w, "%ld micro-batches on %d stages (PyTorch's "
		    "PipelineScheduleSingle needs as many as the stages or "
		    "more)", global_batch / (b * p->d), p->nstages);
	if (p->schedule == PLAN_ZBH1)
		cannot(w, "ZB-H1 (torchtitan runs no one-chunk zero-bubble "
		    "schedule)");
	else if (p->schedule != PLAN_1F1B)
		cannot(w, "%s with compiled blocks (PyTorch's ZBVZeroBubble "
		    "and DualPipeV raise on a compiled stage, "
		    "_check_torch_compile_compatibility, and torchtitan "
		    "compiles each block; eager PyTorch is not priced)",
		    plan_schedule_name[p->schedule]);
	if (p->schedule == PLAN_DUALPIPEV && layers_expert_ranks(g) > 1 &&
	    p->recompute != RC_NONE)
		cannot(w, "DualPipeV with expert ranks and recomputation "
		    "(torchtitan's expert-parallel overlap, on by default, "
		    "raises with activation checkpointing)");
	if (p->recompute == RC_SELECTIVE || p->recompute_layers > 0)
		cannot(w, "Megatron's %s recomputation (torchtitan's selective "
		    "is per operator or per layer)", p->recompute_layers > 0 ?
		    "block" : "selective");
	if (p->tp_overlap)
		cannot(w, "Transformer Engine's tensor-parallel overlap "
		    "(torchtitan's async TP is not priced)");
	if (s > 0 && s % (2 * t * c))
		cannot(w, "a sequence of %ld tokens: torchtitan needs a "
		    "multiple of t times 2 c, %ld", s, 2 * t * c);
	if (optimizer != OPT_ADAM)
		cannot(w, "SGD (torchtitan v0.2.2 runs Adam and AdamW)");
	if (global_batch % (b * p->d))
		cannot(w, "a global batch of %ld is not a multiple of the "
		    "micro-batch times the data-parallel degree, %ld",
		    global_batch, b * p->d);
	if (!model)
		cannot(w, "no model config (dpsolve -A model.xml): without "
		    "its flavor torchtitan trains its debug model");
	else if (torchtitan_flavor(model, &name) == NULL)
		cannot(w, "no flavor of the model's shape (torchtitan trains "
		    "its registered models: Llama 3, Qwen3's mixtures, "
		    "DeepSeek-V3 without multi-token prediction; add one)");
	else if (p->nstages > 1 && !torchtitan_pipelines(model))
		cannot(w, "%d stages: torchtitan v0.2.2 does not pipeline "
		    "%s (its TrainSpec has no pipelining_fn)", p->nstages,
		    name);
	else if (!rows_are_modules(g, model->layers))
		cannot(w, "rows that are not torchtitan's modules (the "
		    "embedding, %ld blocks, the head: the analytic graphs')",
		    model->layers);
	return w->n;
}

/* A line of the job, commented out when torchtitan cannot run it. */
static void
line(FILE *fp, int off, const char *fmt, ...)
{
	va_list ap;

	if (off)
		fputs("# ", fp);
	va_start(ap, fmt);
	vfprintf(fp, fmt, ap);
	va_end(ap);
	fputc('\n', fp);
}

/* A blank line between the job's tables. */
static void
blank(FILE *fp, int off)
{
	fputs(off ? "#\n" : "\n", fp);
}

/* A name inside a TOML basic string: its quotes and backslashes and
 * control characters as underscores. */
static void
quoted(FILE *fp, const char *name)
{
	for (; *name; name++)
		fputc(*name == '"' || *name == '\\' || (unsigned char)*name <
		    0x20 ? '_' : *name, fp);
}

/* torchtitan's module names of row i: the embedding, a block, the head
 * (its norm and output); a row of another kind gets none. */
static void
row_modules(FILE *fp, const struct layer_graph *g, size_t i, long *block,
    int *first)
{
	const char *kind = g->l[i].kind;
	const char *sep = *first ? "" : ", ";

	if (strcmp(kind, "embedding") == 0)
		fprintf(fp, "%s\"tok_embeddings\"", sep);
	else if (strcmp(kind, "head") == 0)
		fprintf(fp, "%s\"norm\", \"output\"", sep);
	else if (strcmp(kind, "transformer") == 0)
		fprintf(fp, "%s\"layers.%ld\"", sep, (*block)++);
	else
		return;
	*first = 0;
}

/* Stage i's transformer blocks. */
static long
stage_blocks(const struct layer_graph *g, const struct plan_stage *st)
{
	long n = 0;

	for (size_t i = st->first; i <= st->last; i++)
		n += strcmp(g->l[i].kind, "transformer") == 0;
	return n;
}

/*
 * A V plan's model parts (ZB-V, DualPipeV: torchtitan's "v" style), 2 S
 * of them in the model's order, rank r holding parts r and 2 S - 1 - r
 * (part j is rank j's first chunk for j < S, else rank 2 S - 1 - j's
 * second).  The V puts the norm and output (the last part) on rank 0
 * beside the embedding, where the plan priced them on its last stage:
 * so one block moves from rank 0 to rank S - 1, each rank keeping its
 * stage's rows (the plan prices the V's chunks alike, at the slowest
 * stage's passes); a rank's blocks split in two, the first half its
 * first chunk's.
 */
static void
v_modules(FILE *fp, const struct plan *p)
{
	const struct layer_graph *g = p->g;
	int S = p->nstages;
	long block = 0;

	for (int j = 0; j < 2 * S; j++) {
		int r = j < S ? j : 2 * S - 1 - j;
		long n = stage_blocks(g, &p->stage[r]) - (r == 0) + (r ==
		    S - 1), first = n / 2, t = j < S ? first : n - first;
		const char *sep = "";

		fputs(j ? ", [" : "[", fp);
		if (j == 0) {
			fputs("\"tok_embeddings\"", fp);
			sep = ", ";
		}
		for (; t > 0; t--, sep = ", ")
			fprintf(fp, "%s\"layers.%ld\"", sep, block++);
		if (j == 2 * S - 1)
			fprintf(fp, "%s\"norm\", \"output\"", sep);
		fputc(']', fp);
	}
}

/*
 * An interleaved plan's model parts in the model's order, S v of them:
 * torchtitan gives part j to pipeline rank j mod S (its "loop" style
 * for Interleaved1F1B), so part c S + i is chunk c of stage i, a stage's
 * layers of the split cut into v equal chunks (Megatron's interleaving,
 * which the plan was priced with), the embedding in the first part and
 * the norm and output in the last, taking a layer's place where the
 * plan counts them.
 */
static void
chunk_modules(FILE *fp, const struct plan *p)
{
	const struct layer_graph *g = p->g;
	int S = p->nstages, ends = p->ends_in_split;
	long v = p->v, block = 0;

	for (long ch = 0; ch < v; ch++)
		for (int i = 0; i < S; i++) {
			int head = ch == 0 && i == 0;
			int tail = ch == v - 1 && i == S - 1;
			long t = layers_split_count(g, p->stage[i].first,
			    p->stage[i].last, ends) / v - (ends ? head + tail :
			    0);
			const char *sep = "";

			fputs(ch || i ? ", [" : "[", fp);
			if (head) {
				fputs("\"tok_embeddings\"", fp);
				sep = ", ";
			}
			for (; t > 0; t--, sep = ", ")
				fprintf(fp, "%s\"layers.%ld\"", sep, block++);
			if (tail)
				fprintf(fp, "%s\"norm\", \"output\"", sep);
			fputc(']', fp);
		}
}

int
torchtitan_write(FILE *fp, const struct plan_meta *m,
    const struct summary_info *si, long node_devices, int optimizer,
    const struct plan *p, const struct plan_result *r)
{
	const struct model_cfg *model = si->model;
	const struct layer_graph *g = p->g;
	long t = layers_var(g, g->var_t, 1), c = layers_context_ranks(g);
	long b = layers_var(g, g->var_b, 1), s = summary_seq_len(g, model);
	/* a batch split's expert ranks are data-parallel ranks of b/e
	 * samples each, in torchtitan's dp_shard (ep takes them from it) */
	long eb = layers_ep_samples(g), ep = layers_expert_ranks(g);
	long shard = p->fsdp_shard > 0 ? p->fsdp_shard : p->d;
	long nproc, nnodes, block = 0;
	int S = p->nstages, off;
	const char *name = NULL, *flavor = torchtitan_flavor(model, &name);
	struct megatron_why w;

	torchtitan_check(p, m->global_batch, optimizer, model, &w);
	off = w.n > 0;
	summary_write(fp, "# ", m, si, p, r);
	nproc = node_devices < r->devices_used ? node_devices : r->devices_used;
	if (nproc > 0 && r->devices_used % nproc)
		nproc = gcd_long(nproc, r->devices_used);
	nnodes = nproc > 0 ? r->devices_used / nproc : 1;
	fprintf(fp, "# torchtitan v0.2.2 (73a0e6979dd1): torchrun "
	    "--nproc_per_node %ld --nnodes %ld -m torchtitan.train "
	    "--job.config_file THIS.toml; add the dataset and tokenizer "
	    "(training.dataset, model.hf_assets_path)\n", nproc, nnodes);
	for (int i = 0; i < w.n; i++)
		fprintf(fp, "# torchtitan cannot run this plan: %s\n",
		    w.why[i]);
	/* the kernel v0.2.2 runs is not the one priced: a slower one */
	if (g->var_attn == ATTN_FA2 && !flex_attention(model))
		fputs("# priced with FlashAttention-2 (graph-normalize -V "
		    "attn=fa2, as torchtitan's runs of 2024-25 got it on "
		    "Hopper); v0.2.2's attention asks for cuDNN's first "
		    "(models/attention.py), faster than priced\n", fp);
	if (!model)
		fputs("# the model's name, flavor and sequence need its "
		    "config: dpsolve -A model.xml\n", fp);
	line(fp, off, "[job]");
	fputs(off ? "# " : "", fp);
	fputs("description = \"nestplan: ", fp);
	quoted(fp, m->label);
	fputs(" on ", fp);
	quoted(fp, m->network);
	fprintf(fp, ", %ld GPUs\"\n", r->devices_used);
	blank(fp, off);
	if (flavor || FP8_TORCHAO(g->var_fp8)) {
		line(fp, off, "[model]");
		if (flavor) {
			line(fp, off, "name = \"%s\"", name);
			line(fp, off, "flavor = \"%s\"", flavor);
		}
		/* torchao's Float8Linear (tensorwise) */
		if (FP8_TORCHAO(g->var_fp8))
			line(fp, off, "converters = "
			    "[\"quantize.linear.float8\"]");
		blank(fp, off);
	}
	line(fp, off, "[training]");
	/* pipelined, a data-parallel rank's whole share in one step, cut
	 * into micro-batches of b; else b, accumulated m times */
	line(fp, off, "local_batch_size = %ld", S > 1 ? b / eb * r->m :
	    b / eb);
	line(fp, off, "global_batch_size = %ld", m->global_batch);
	if (s > 0)
		line(fp, off, "seq_len = %ld", s);
	line(fp, off, "mixed_precision_param = \"bfloat16\"");
	line(fp, off, "mixed_precision_reduce = \"float32\"");
	blank(fp, off);
	line(fp, off, "[parallelism]");
	/* HSDP: d / s groups of s sharding replicas */
	line(fp, off, "data_parallel_replicate_degree = %ld", !p->fsdp ? p->d :
	    p->d / shard);
	line(fp, off, "data_parallel_shard_degree = %ld", !p->fsdp ? eb :
	    shard * eb);
	/* "default": resharded without pipelining, kept with it */
	if (p->fsdp)
		line(fp, off, "fsdp_reshard_after_forward = \"default\"");
	line(fp, off, "tensor_parallel_degree = %ld", t);
	line(fp, off, "context_parallel_degree = %ld", c);
	line(fp, off, "pipeline_parallel_degree = %d", S);
	/* the experts' ranks (tensor ranks among them where whole) */
	if (ep > 1) {
		line(fp, off, "expert_parallel_degree = %ld", ep);
		line(fp, off, "expert_tensor_parallel_degree = %ld",
		    layers_expert_t(g));
		if (p->deepep)
			line(fp, off, "expert_parallel_comm_backend = "
			    "\"deepep\"");
	}
	if (S > 1) {
		/* PyTorch's Interleaved1F1B runs Megatron's order where S
		 * divides m (its rounds of S micro-batches), as the
		 * evaluator asks of an interleaved plan */
		line(fp, off, "pipeline_parallel_schedule = \"%s\"",
		    p->schedule == PLAN_ZBV ? "ZBVZeroBubble" : p->schedule ==
		    PLAN_DUALPIPEV ? "DualPipeV" : p->v > 1 ?
		    "Interleaved1F1B" : "1F1B");
		line(fp, off, "pipeline_parallel_microbatch_size = %ld",
		    b / eb);
		fputs(off ? "# " : "", fp);
		fputs("module_fqns_per_model_part = [", fp);
		if (p->schedule == PLAN_ZBV || p->schedule == PLAN_DUALPIPEV)
			v_modules(fp, p);
		else if (p->v > 1)
			chunk_modules(fp, p);
		for (int i = 0; i < S && p->v <= 1; i++) {
			int first = 1;

			fputs(i ? ", [" : "[", fp);
			for (size_t k = p->stage[i].first;
			    k <= p->stage[i].last; k++)
				row_modules(fp, g, k, &block, &first);
			fputc(']', fp);
		}
		fputs("]\n", fp);
	}
	blank(fp, off);
	line(fp, off, "[activation_checkpoint]");
	line(fp, off, "mode = \"%s\"", p->recompute == RC_FULL ? "full" :
	    p->recompute == RC_OP ? "selective" : "none");
	if (p->recompute == RC_OP)
		line(fp, off, "selective_ac_option = \"op\"");
	blank(fp, off);
	/* torchao's Float8Linear (tensorwise) on every linear module but
	 * the output layer (as the graphs price it, torchtitan's default
	 * train configs' filter), its all-gather in float8 with the
	 * scales precomputed once a step where the plan says */
	if (FP8_TORCHAO(g->var_fp8)) {
		line(fp, off, "[quantize.linear.float8]");
		line(fp, off, "filter_fqns = [\"output\"]");
		line(fp, off, "enable_fsdp_float8_all_gather = %s",
		    p->fp8_param_gather ? "true" : "false");
		line(fp, off, "precompute_float8_dynamic_scale_for_fsdp = %s",
		    p->fp8_param_gather ? "true" : "false");
		blank(fp, off);
	}
	/* priced with fused kernels as Transformer Engine runs them; eager
	 * PyTorch runs more, smaller ones (not priced); torchao's float8
	 * casts fused as torch.compile fuses them */
	line(fp, off, "[compile]");
	line(fp, off, "enable = true");
	return w.n;
}
