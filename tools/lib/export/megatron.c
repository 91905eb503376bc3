/*
 * megatron.c - a plan as a Megatron-LM launch (dpsolve -f megatron).
 *
 * The flags are those of Megatron-LM core_v0.15.0 (commit 0d7e02bd26d3,
 * megatron/training/arguments.py); tests/megatron/ holds the names and
 * checks every flag printed against them.  Megatron's own constraints are
 * checked before printing; a plan it cannot run is printed commented out,
 * after the reasons.  The mapping of nestplan's variant onto Megatron's
 * groups: t is the tensor-parallel size (and the experts' tensor-parallel
 * size), the c * e devices that share a micro-batch's tokens are
 * Megatron's context-parallel group, and e of them its expert-parallel
 * group, folded onto them (Megatron-Core's MoE parallel folding); d is
 * the data-parallel size.  A variant whose e devices split the
 * micro-batch's samples (ep_batch, c = 1) is Megatron's plain expert
 * parallelism: e data-parallel ranks (Megatron's data-parallel size is
 * then d e, which it derives) with b/e samples each.  A batch split that
 * folds f of its ranks over a sequence (ep_fold) is both: context-
 * parallel size f, data-parallel size d e/f, b f/e samples a rank, and
 * the expert group over them (Megatron-Core lays it over the context
 * ranks first).
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "export/megatron.h"

#define cannot megatron_why_add	/* a reason it cannot run the plan */

static void flag(FILE *fp, const struct megatron_why *w, const char *fmt,
    ...) __attribute__((format(printf, 3, 4)));

void
megatron_why_add(struct megatron_why *w, const char *fmt, ...)
{
	va_list ap;

	if (w->n == MEGATRON_MAX_WHY)
		return;
	va_start(ap, fmt);
	vsnprintf(w->why[w->n++], sizeof w->why[0], fmt, ap);
	va_end(ap);
}

/* Do the stages hold equal numbers of layers so counted? */
static int
even_split(const struct layer_graph *g, const struct plan *p, int ends)
{
	for (int i = 1; i < p->nstages; i++)
		if (layers_split_count(g, p->stage[i].first, p->stage[i].last,
		    ends) != layers_split_count(g, p->stage[0].first,
		    p->stage[0].last, ends))
			return 0;
	return 1;
}

/* One flag a line, continued; commented out when Megatron cannot run it. */
static void
flag(FILE *fp, const struct megatron_why *w, const char *fmt, ...)
{
	va_list ap;

	fputs(w->n ? "#     " : "    ", fp);
	va_start(ap, fmt);
	vfprintf(fp, fmt, ap);
	va_end(ap);
	fputs(" \\\n", fp);
}

/*
 * The fused attention priced, as Megatron's --attention-backend: the
 * flash-attn package's FlashAttention-2 (flash) for a graph of -V
 * attn=fa2; the device's own measured fused kernel (fused: Transformer
 * Engine's cuDNN attention, which its own choice prefers on Hopper) where
 * the accelerator has one; else Transformer Engine's own choice (auto: a
 * device priced at one attention efficiency, measured on no kernel of its
 * own).
 */
static const char *
attention_backend(const struct layer_graph *g, const struct model_cfg *model,
    const struct accel_cfg *accel)
{
	if (!model->flash_attention)
		return "unfused";
	if (g->var_attn == ATTN_FA2)
		return "flash";
	return accel_has_fused_attention(accel) ? "fused" : "auto";
}

int
megatron_encoder(const struct layer_graph *g, const struct model_cfg *model)
{
	char arch[32];

	if (model)
		return model->architecture == ARCH_ENCODER;
	return g->model_config && config_line_field(g->model_config,
	    "architecture", arch, sizeof arch) == 0 &&
	    strcmp(arch, "encoder") == 0;
}

/*
 * How the launch states the split: its layers a stage (counted with the
 * embedding and the loss as layers when `ends`), and whether Megatron's
 * even split (with or without the ends counted) or its first/last-stage
 * flags (--decoder-first/last-pipeline-num-layers: the middle stages even,
 * each stage non-empty) express it; otherwise a decoder's launch gives
 * the layers of every model chunk (--pipeline-model-parallel-layout).
 */
struct split {
	long *k;
	int ends, even, first_last, layout;
};

static void
split_of(const struct plan *p, int encoder, struct split *sp)
{
	const struct layer_graph *g = p->g;
	int S = p->nstages, middle_even = 1, nonempty = 1;

	sp->k = xcalloc((size_t)S, sizeof *sp->k);
	sp->even = even_split(g, p, 0);
	/* counting the embedding and the head as layers: as the plan's
	 * interleaving does, or where it alone makes the split even (not
	 * interleaved: an interleaved plan's chunks are its own count's) */
	sp->ends = p->ends_in_split || (p->v <= 1 && !sp->even &&
	    even_split(g, p, 1));
	if (sp->ends)
		sp->even = even_split(g, p, 1);
	for (int i = 0; i < S; i++) {
		sp->k[i] = layers_split_count(g, p->stage[i].first,
		    p->stage[i].last, sp->ends);
		nonempty &= sp->k[i] > 0;
	}
	for (int i = 2; i < S - 1; i++)
		middle_even &= sp->k[i] == sp->k[1];
	sp->first_last = !sp->even && !sp->ends && middle_even && nonempty;
	sp->layout = !sp->even && !sp->first_last && !encoder;
}

/* The reason Megatron cannot run the model's MLP, or NULL. */
static const char *
mlp_reason(const struct model_cfg *model)
{
	if (model && model->mlp == MLP_GATED && model->activation != ACT_SILU)
		return "a gated MLP other than SwiGLU";
	if (model && model->mlp == MLP_DENSE && model->activation == ACT_RELU)
		return "ReLU (Megatron has --squared-relu)";
	return NULL;
}

/* A mixture's layers: the model's experts, else the graph's exchange
 * (every expert layer's rows carry their all-to-all bytes, e = 1 too). */
static int
has_experts(const struct layer_graph *g, const struct model_cfg *model)
{
	if (model)
		return model->experts > 1;
	return layers_has_experts(g);
}

/* Megatron-Core's MoELayer refuses to train with tensor parallelism and
 * no sequence parallelism (core_v0.15.0, moe_layer.py, forward: "MoE
 * and tensor parallelism are enabled without also enabling sequence
 * parallelism"), a ValueError at the first step, after the launch's
 * arguments have passed. */
static int
moe_tp_without_sp(const struct layer_graph *g, const struct model_cfg *model)
{
	return layers_var(g, g->var_t, 1) > 1 && !layers_var(g, g->var_sp,
	    0) && has_experts(g, model);
}

int
megatron_variant_ok(const struct layer_graph *g,
    const struct model_cfg *model)
{
	long cp = layers_context_ranks(g), s = summary_seq_len(g, model);

	if (moe_tp_without_sp(g, model) || FP8_TORCHAO(g->var_fp8))
		return 0;
	return cp == 1 || s == 0 || s % (2 * cp) == 0;
}

void
megatron_model_ok(const struct model_cfg *model, const char *file)
{
	const char *why = mlp_reason(model);

	if (why)
		die("%s: Megatron-LM cannot run the model: %s (-X none searches "
		    "nestplan's whole space)", file, why);
}

int
megatron_check(const struct plan *p, long global_batch,
    const struct model_cfg *model, struct megatron_why *w)
{
	const struct layer_graph *g = p->g;
	long eb = layers_ep_samples(g), cp = layers_context_ranks(g);
	long b = layers_var(g, g->var_b, 1), zd = 1;
	int zs = 0, S = p->nstages;
	long layers = 0;
	struct split sp;

	w->n = 0;
	split_of(p, megatron_encoder(g, model), &sp);
	for (int i = 0; i < S; i++) {
		layers += layers_split_count(g, p->stage[i].first,
		    p->stage[i].last, 0);
		if (p->stage[i].zero_stage > zs)
			zs = p->stage[i].zero_stage;
		if (p->stage[i].z > zd)
			zd = p->stage[i].z;
	}
	if (!sp.even && !sp.first_last && !sp.layout)
		cannot(w, "an uneven split %s (an encoder's launch has no "
		    "--pipeline-model-parallel-layout)", sp.ends ? "with the "
		    "embedding and the loss counted as layers" : "beyond the "
		    "first and last stage");
	for (int i = 0; p->v > 1 && i < S; i++)
		if (sp.k[i] % p->v || sp.k[i] == 0) {
			cannot(w, "stage %d's %ld layers do not split into %ld "
			    "virtual stages", i, sp.k[i], p->v);
			break;
		}
	free(sp.k);
	if (p->fsdp)
		cannot(w, "PyTorch's FSDP2 as torchtitan runs it (fsdp %d; "
		    "Megatron's own FSDP gathers and reduces otherwise)",
		    p->fsdp);
	if (zd > 1)
		cannot(w, "ZeRO-%d over %ld copies of a stage (DeepSpeed's "
		    "\"zero_optimization\": {\"stage\": %d}; Megatron shards "
		    "only the optimizer, over the data-parallel group)", zs, zd,
		    zs);
	/* in Megatron's terms: a split's ranks are data-parallel ranks */
	if (global_batch % (b * p->d))
		cannot(w, "a global batch of %ld is not a multiple of the "
		    "micro-batch %ld x data-parallel size %ld", global_batch,
		    b / eb, p->d * eb);
	if (p->overlap_param && !p->overlap_grad)
		cannot(w, "--overlap-param-gather needs --overlap-grad-reduce");
	/* core_v0.15.0's schedules.py: 1F1B, interleaved or not, and its
	 * combined 1F1B (the experts' all-to-all beside the other micro-
	 * batch's compute), none with W passes filling the drain */
	if (p->schedule == PLAN_ZBH1 || p->schedule == PLAN_ZBV)
		cannot(w, "%s (Qi et al. 2024): Megatron-LM has no zero-"
		    "bubble schedule; PyTorch's torch.distributed.pipelining "
		    "runs its zero-bubble schedules", p->schedule == PLAN_ZBH1 ?
		    "ZB-H1" : "ZB-V");
	if (p->schedule == PLAN_DUALPIPEV)
		cannot(w, "DualPipeV (DeepSeek's DualPipe repository): "
		    "Megatron-LM has no DualPipe schedule; PyTorch's "
		    "torch.distributed.pipelining runs it");
	/* the placement priced (docs/model.md, Plans) */
	{
		const char *why = plan_megatron_order_refused(g, S, p->d,
		    p->stage_major);

		if (why != NULL)
			cannot(w, "%s", why);
	}
	if (moe_tp_without_sp(g, model))
		cannot(w, "experts with tensor parallelism %ld need sequence "
		    "parallelism (Megatron-Core's MoE layer refuses to train "
		    "without it)", layers_var(g, g->var_t, 1));
	else if (!megatron_variant_ok(g, model))
		cannot(w, "context parallelism over %ld needs the sequence "
		    "(%ld) a multiple of %ld", cp, summary_seq_len(g, model),
		    2 * cp);
	/* Megatron-Core's flex dispatcher (core_v0.15.0, token_dispatcher.py)
	 * asserts more than one rank of its tensor x expert group; experts
	 * split over t under DeepEP are not priced (plan.c) */
	if (p->deepep && layers_expert_ranks(g) * layers_expert_t(g) == 1 &&
	    has_experts(g, model))
		cannot(w, "DeepEP's flex dispatcher needs more than one expert "
		    "rank");
	if (model && model->experts > 1 && model->experts %
	    layers_expert_ranks(g))
		cannot(w, "%ld experts over %ld expert-parallel ranks",
		    model->experts, layers_expert_ranks(g));
	if (mlp_reason(model))
		cannot(w, "%s", mlp_reason(model));
	/* core_v0.15.0's TransformerConfig asserts it of the combined 1F1B */
	if (p->ep_overlap && model && model->mtp_depth > 1)
		cannot(w, "--overlap-moe-expert-parallel-comm with %ld multi-"
		    "token prediction layers (Megatron-Core runs it with one "
		    "at most)", model->mtp_depth);
	if (model && layers != model->layers)
		cannot(w, "the plan has %ld transformer layers, the model %ld",
		    layers, model->layers);
	return w->n;
}

/*
 * --pipeline-model-parallel-layout: the model chunks in Megatron's order
 * (virtual stage 0 of every pipeline rank, then virtual stage 1, ...),
 * separated by |, each its layers: E the embedding, t a decoder layer, m
 * a multi-token prediction module, L the loss; a stage's layers split
 * into v equal chunks, the ends taking
 * a layer's place where they are counted.
 */
static void
write_layout(FILE *fp, const struct plan *p, const struct split *sp,
    long mtp_depth)
{
	int S = p->nstages;
	long v = p->v > 1 ? p->v : 1;

	for (long ch = 0; ch < v; ch++)
		for (int i = 0; i < S; i++) {
			int head = ch == 0 && i == 0, tail = ch == v - 1 &&
			    i == S - 1;
			long t = sp->k[i] / v - (sp->ends ? head + tail : 0);

			fprintf(fp, "%s%s", ch || i ? "|" : "", head ? "E" : "");
			if (t == 1)
				fputc('t', fp);
			else if (t > 1)
				fprintf(fp, "t*%ld", t);
			/* the prediction modules run with the loss, in the
			 * last chunk of the last stage (m a module) */
			for (long k = 0; tail && k < mtp_depth; k++)
				fprintf(fp, "%sm", t > 0 || head || k ? "," : "");
			if (tail)
				fprintf(fp, "%sL", t > 0 || head || mtp_depth > 0 ?
				    "," : "");
		}
}

int
megatron_write(FILE *fp, const struct plan_meta *m,
    const struct summary_info *si, long node_devices, const struct plan *p,
    const struct plan_result *r)
{
	const struct model_cfg *model = si->model;
	const struct layer_graph *g = p->g;
	long t = layers_var(g, g->var_t, 1), e = layers_var(g, g->var_e, 1);
	long c = layers_var(g, g->var_c, 1), sp = layers_var(g, g->var_sp, 0);
	long b = layers_var(g, g->var_b, 1);
	/* folded, the expert ranks are context ranks (Megatron-Core puts
	 * the expert group first over the context ranks); split by samples,
	 * they are data-parallel ranks, each with b/e of the micro-batch;
	 * a split with a fold, both */
	int epb = g->has_variant && g->var_ep_batch;
	long eb = layers_ep_samples(g), cp = layers_context_ranks(g);
	long rank_b = b / eb;
	long nproc, nnodes;
	int S = p->nstages, order_flag;
	struct split split;
	struct megatron_why l;

	megatron_check(p, m->global_batch, model, &l);
	split_of(p, megatron_encoder(g, model), &split);
	/* A replica's stages one after another (docs/model.md, Plans) is
	 * Megatron's rank order tp-cp-ep-pp-dp (--use-tp-pp-dp-mapping);
	 * its default, tp-cp-ep-dp-pp (training/initialize.py), puts each
	 * stage's replicas side by side, as a stage-major plan is priced.
	 * The order matters where a pipeline has replicas; where core_v0.15.0
	 * rejects the flag, megatron_check says the plan cannot run
	 * (plan_megatron_order_refused). */
	order_flag = S > 1 && p->d > 1 && !p->stage_major &&
	    plan_megatron_order_refused(g, S, p->d, 0) == NULL;

	fprintf(fp, "# %s on %s: p=%d d=%ld t=%ld sp=%ld e=%ld c=%ld%s%.0ld "
	    "v=%ld, %ld devices, %.6g samples/s (nestplan's terms)\n",
	    m->label, m->network, S, p->d, t, sp, e, c, layers_expert_t(g) !=
	    t ? " et=" : "", layers_expert_t(g) != t ? layers_expert_t(g) : 0,
	    p->v > 1 ? p->v : 1, r->devices_used,
	    r->throughput_samples_per_s);
	if (epb && eb < e)
		fprintf(fp, "# the %ld expert ranks fold %ld over each sequence "
		    "and split each micro-batch's %ld samples %ld ways: "
		    "Megatron's context-parallel size %ld, data-parallel size "
		    "%ld, %ld a rank\n", e, e / eb, b, eb, cp, p->d * eb,
		    rank_b);
	else if (epb)
		fprintf(fp, "# the %ld expert ranks split each micro-batch's %ld "
		    "samples: Megatron's data-parallel size %ld, %ld a rank\n",
		    e, b, p->d * e, rank_b);
	summary_write(fp, "# ", m, si, p, r);
	fputs("# Megatron-LM core_v0.15.0; add data, tokenizer and schedule "
	    "flags (a benchmark: --mock-data)\n", fp);
	for (int i = 0; i < l.n; i++)
		fprintf(fp, "# Megatron-LM cannot run this plan: %s\n", l.why[i]);
	if (!model)
		fputs("# the model's flags need its config: dpsolve -A model.xml\n",
		    fp);
	/* processes a node: a host's GPUs, fewer where the plan's devices
	 * do not fill whole hosts (the world is the plan's devices,
	 * exactly: torchrun starts nproc x nnodes ranks) */
	nproc = node_devices < r->devices_used ? node_devices : r->devices_used;
	if (nproc > 0 && r->devices_used % nproc) {
		long host = nproc;

		nproc = gcd_long(nproc, r->devices_used);
		fprintf(fp, "# %ld processes a node where a host has %ld GPUs: "
		    "the plan's %ld devices do not fill whole hosts, and it "
		    "was priced with them packed onto as few as they fill\n",
		    nproc, host, r->devices_used);
	}
	nnodes = (r->devices_used + nproc - 1) / nproc;
	fprintf(fp, "%storchrun --nproc-per-node %ld --nnodes %ld %s \\\n",
	    l.n ? "# " : "", nproc, nnodes,
	    model && model->architecture == ARCH_ENCODER ? "pretrain_bert.py" :
	    "pretrain_gpt.py");
	if (model) {
		flag(fp, &l, "--num-layers %ld", model->layers);
		flag(fp, &l, "--hidden-size %ld", model->hidden);
		flag(fp, &l, "--ffn-hidden-size %ld", model->ffn_hidden);
		flag(fp, &l, "--num-attention-heads %ld", model->heads);
		if (model->kv_heads != model->heads) {
			flag(fp, &l, "--group-query-attention");
			flag(fp, &l, "--num-query-groups %ld", model->kv_heads);
		}
		if (model->kv_lora_rank > 0) {
			/* latent attention; --qk-layernorm gives its ranks
			 * their norms (fused into the up projections), and
			 * the rotary embedding is plain RoPE (MLA's default
			 * is YaRN, for longer contexts) */
			flag(fp, &l, "--multi-latent-attention");
			if (model->q_lora_rank > 0)
				flag(fp, &l, "--q-lora-rank %ld",
				    model->q_lora_rank);
			flag(fp, &l, "--kv-lora-rank %ld", model->kv_lora_rank);
			flag(fp, &l, "--qk-head-dim %ld", model->head_dim);
			flag(fp, &l, "--qk-pos-emb-head-dim %ld",
			    model->qk_rope_head_dim);
			flag(fp, &l, "--v-head-dim %ld", model->v_head_dim);
			flag(fp, &l, "--qk-layernorm");
			flag(fp, &l, "--rope-type rope");
		} else if (model->head_dim * model->heads != model->hidden)
			flag(fp, &l, "--kv-channels %ld", model->head_dim);
		if (model->qk_norm)
			flag(fp, &l, "--qk-layernorm");
		flag(fp, &l, "--seq-length %ld", model->seq_len);
		flag(fp, &l, "--max-position-embeddings %ld",
		    model->max_positions);
		flag(fp, &l, "--normalization %s", model->norm == NORM_RMSNORM ?
		    "RMSNorm" : "LayerNorm");
		if (model->mlp == MLP_GATED)
			flag(fp, &l, "--swiglu");
		flag(fp, &l, "--position-embedding-type %s",
		    model->position == POS_ROTARY ? "rope" : "learned_absolute");
		if (model->position == POS_ROTARY)
			flag(fp, &l, "--rotary-base %ld", model->rope_theta);
		/* the vocabulary as priced: NullTokenizer (for --mock-data)
		 * counts an end-of-document token beyond --vocab-size;
		 * Megatron pads the table to a multiple of 128 t, which the
		 * price leaves out (an unpadded table's odd rows a rank run
		 * its product 4.5x slower, data/measured/) */
		flag(fp, &l, "--tokenizer-type NullTokenizer");
		flag(fp, &l, "--vocab-size %ld", model->vocab - 1);
		if (!model->tied_embeddings)
			flag(fp, &l, "--untie-embeddings-and-output-weights");
		if (!model->bias)
			flag(fp, &l, "--disable-bias-linear");
		if (!model->dropout) {
			flag(fp, &l, "--attention-dropout 0");
			flag(fp, &l, "--hidden-dropout 0");
		}
		flag(fp, &l, "--attention-backend %s",
		    attention_backend(g, model, si->accel));
		if (model->experts > 1) {
			flag(fp, &l, "--num-experts %ld", model->experts);
			flag(fp, &l, "--moe-router-topk %ld", model->top_k);
			/* the exchange priced: each token's k copies sent
			 * to their experts' ranks and back (Megatron's
			 * default gathers every token instead), or once a
			 * node and a GPU by DeepEP (plan_env.deepep) */
			if (p->deepep) {
				flag(fp, &l, "--moe-token-dispatcher-type flex");
				flag(fp, &l, "--moe-enable-deepep");
			} else
				flag(fp, &l, "--moe-token-dispatcher-type "
				    "alltoall");
			/* the local experts' products priced as one
			 * grouped product */
			if (model->experts / layers_expert_ranks(g) > 1)
				flag(fp, &l, "--moe-grouped-gemm");
			if (model->expert_ffn_hidden != model->ffn_hidden)
				flag(fp, &l, "--moe-ffn-hidden-size %ld",
				    model->expert_ffn_hidden);
			if (model->shared_expert_ffn_hidden > 0)
				flag(fp, &l, "--moe-shared-expert-intermediate-"
				    "size %ld", model->shared_expert_ffn_hidden);
			/* 0 a dense layer, 1 an expert layer */
			if (model->dense_layers > 0)
				flag(fp, &l, "--moe-layer-freq '([0]*%ld+[1]*%ld)'",
				    model->dense_layers, model->layers -
				    model->dense_layers);
			if (model->router_groups > 1) {
				flag(fp, &l, "--moe-router-num-groups %ld",
				    model->router_groups);
				flag(fp, &l, "--moe-router-group-topk %ld",
				    model->router_group_topk);
			}
		}
		if (model->mtp_depth > 0)
			flag(fp, &l, "--mtp-num-layers %ld", model->mtp_depth);
	}
	if (split.ends && !split.layout) {
		flag(fp, &l, "--account-for-embedding-in-pipeline-split");
		flag(fp, &l, "--account-for-loss-in-pipeline-split");
	}
	flag(fp, &l, "--tensor-model-parallel-size %ld", t);
	flag(fp, &l, "--pipeline-model-parallel-size %d", S);
	if (order_flag)
		flag(fp, &l, "--use-tp-pp-dp-mapping");
	if (sp)
		flag(fp, &l, "--sequence-parallel");
	/* the exchange dpsolve prices: keys and values all-gathered before
	 * the attention, their gradients reduce-scattered, not overlapped
	 * (Megatron-Core's TransformerConfig.cp_comm_type "all_gather", as
	 * Llama 3 ran it); Megatron's default ring ("p2p") overlaps its
	 * exchange with the attention and would run faster than priced */
	if (cp > 1) {
		flag(fp, &l, "--context-parallel-size %ld", cp);
		flag(fp, &l, "--cp-comm-type all_gather");
	}
	/* Megatron-Core's MoE Parallel Folding: the experts' own layout over
	 * the same ranks, whole experts (ETP 1) taking the tensor ranks as
	 * expert ranks */
	if (layers_expert_ranks(g) > 1) {
		flag(fp, &l, "--expert-model-parallel-size %ld",
		    layers_expert_ranks(g));
		flag(fp, &l, "--expert-tensor-parallel-size %ld",
		    layers_expert_t(g));
	}
	/* interleaving an even split by its chunk size; an uneven one (first
	 * and last stage) by the chunks a stage, as Megatron asks; any other
	 * split, and its interleaving, by the layers of every chunk */
	if (split.layout) {
		fputs(l.n ? "#     " : "    ", fp);
		fputs("--pipeline-model-parallel-layout '", fp);
		write_layout(fp, p, &split, model ? model->mtp_depth : 0);
		fputs("' \\\n", fp);
	} else if (p->v > 1 && split.even)
		flag(fp, &l, "--num-layers-per-virtual-pipeline-stage %ld",
		    split.k[0] / p->v);
	else if (p->v > 1)
		flag(fp, &l, "--num-virtual-stages-per-pipeline-rank %ld", p->v);
	if (split.first_last && S > 1) {
		flag(fp, &l, "--decoder-first-pipeline-num-layers %ld",
		    split.k[0]);
		flag(fp, &l, "--decoder-last-pipeline-num-layers %ld",
		    split.k[S - 1]);
	}
	flag(fp, &l, "--micro-batch-size %ld", rank_b);
	flag(fp, &l, "--global-batch-size %ld", m->global_batch);
	if (p->recompute == RC_FULL && p->recompute_layers > 0) {
		flag(fp, &l, "--recompute-granularity full");
		flag(fp, &l, "--recompute-method block");
		flag(fp, &l, "--recompute-num-layers %ld", p->recompute_layers);
	} else if (p->recompute == RC_FULL) {
		flag(fp, &l, "--recompute-granularity full");
		flag(fp, &l, "--recompute-method uniform");
		flag(fp, &l, "--recompute-num-layers 1");
	} else if (p->recompute == RC_SELECTIVE)
		flag(fp, &l, "--recompute-granularity selective");
	if (p->distopt)
		flag(fp, &l, "--use-distributed-optimizer");
	if (p->overlap_grad)
		flag(fp, &l, "--overlap-grad-reduce");
	if (p->overlap_param)
		flag(fp, &l, "--overlap-param-gather");
	if (p->tp_overlap)
		flag(fp, &l, "--tp-comm-overlap");
	/* the combined 1F1B, the experts' weight gradients run apart as
	 * its pairs place them (model_chunk_schedule_plan.py) */
	if (p->ep_overlap) {
		flag(fp, &l, "--overlap-moe-expert-parallel-comm");
		flag(fp, &l, "--delay-wgrad-compute");
	}
	if (m->grad_bytes_per_param == 2)
		flag(fp, &l, "--grad-reduce-in-bf16");
	/* Transformer Engine's linear layers in FP8 under the graph's
	 * recipe: E4M3 forward and E5M2 gradients (hybrid), except the
	 * block scales, which Transformer Engine runs in E4M3 alone
	 * (torchao's float8 is torchtitan's, beside FSDP2, refused above) */
	if (g->var_fp8 != FP8_NONE && !FP8_TORCHAO(g->var_fp8)) {
		flag(fp, &l, "--fp8-format %s", g->var_fp8 == FP8_BLOCKWISE ?
		    "e4m3" : "hybrid");
		flag(fp, &l, "--fp8-recipe %s", fp8_recipe_words[g->var_fp8]);
	}
	/* the weights kept and gathered in FP8; MXFP8's gathered in bf16
	 * through the gradient buffer, which Megatron-Bridge's MXFP8 recipe
	 * sets beside it (and Megatron-LM warns of the memory without) */
	if (p->fp8_param_gather && !p->fsdp) {
		flag(fp, &l, "--fp8-param-gather");
		if (g->var_fp8 == FP8_MXFP8)
			flag(fp, &l, "--reuse-grad-buf-for-mxfp8-param-ag");
	}
	fprintf(fp, "%s    --bf16\n", l.n ? "#" : "");
	free(split.k);
	return l.n;
}
