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
 * then d e, which it derives) with b/e samples each.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "export/megatron.h"

struct launch {
	char why[8][200];	/* reasons Megatron cannot run the plan */
	int nwhy;
};

static void cannot(struct launch *l, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void flag(FILE *fp, const struct launch *l, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void
cannot(struct launch *l, const char *fmt, ...)
{
	va_list ap;

	if (l->nwhy == 8)
		return;
	va_start(ap, fmt);
	vsnprintf(l->why[l->nwhy++], sizeof l->why[0], fmt, ap);
	va_end(ap);
}

static long
var(const struct layer_graph *g, long v, long dflt)
{
	return g->has_variant ? v : dflt;
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
flag(FILE *fp, const struct launch *l, const char *fmt, ...)
{
	va_list ap;

	fputs(l->nwhy ? "#     " : "    ", fp);
	va_start(ap, fmt);
	vfprintf(fp, fmt, ap);
	va_end(ap);
	fputs(" \\\n", fp);
}

/* Can Megatron express the pipeline split (and its interleaving)? */
static void
check_split(struct launch *l, const struct plan *p, const long *k, int even,
    int ends)
{
	int S = p->nstages, middle_even = 1;

	for (int i = 2; i < S - 1; i++)
		middle_even &= k[i] == k[1];
	if (!even && !middle_even)
		cannot(l, "an uneven split beyond the first and last stage");
	if (!even && ends)
		cannot(l, "an uneven split with the embedding and the loss "
		    "counted as layers");
	for (int i = 0; p->v > 1 && i < S; i++)
		if (k[i] % p->v) {
			cannot(l, "stage %d's %ld layers do not split into %ld "
			    "virtual stages", i, k[i], p->v);
			break;
		}
}

int
megatron_write(FILE *fp, const struct plan_meta *m,
    const struct model_cfg *model, long node_devices, const struct plan *p,
    const struct plan_result *r)
{
	const struct layer_graph *g = p->g;
	long t = var(g, g->var_t, 1), e = var(g, g->var_e, 1);
	long c = var(g, g->var_c, 1), sp = var(g, g->var_sp, 0);
	long b = var(g, g->var_b, 1), zd = 1, layers = 0;
	/* folded, the expert ranks are context ranks (Megatron-Core puts
	 * the expert group first over the context ranks); split by samples,
	 * they are data-parallel ranks, each with b/e of the micro-batch */
	int epb = g->has_variant && g->var_ep_batch;
	long cp = epb ? c : c * e, rank_b = epb ? b / e : b;
	long *k = xcalloc((size_t)p->nstages, sizeof *k);
	long nproc, nnodes;
	int S = p->nstages, zs = 0, even = even_split(g, p, 0);
	/* counting the embedding and the head as layers: as the plan's
	 * interleaving does, or where it alone makes the split even */
	int ends = p->ends_in_split || (!even && even_split(g, p, 1));
	struct launch l = { .nwhy = 0 };

	if (ends)
		even = even_split(g, p, 1);
	for (int i = 0; i < S; i++) {
		const struct plan_stage *st = &p->stage[i];

		k[i] = layers_split_count(g, st->first, st->last, ends);
		layers += layers_split_count(g, st->first, st->last, 0);
		if (p->stage[i].zero_stage > zs)
			zs = p->stage[i].zero_stage;
		if (p->stage[i].z > zd)
			zd = p->stage[i].z;
	}
	check_split(&l, p, k, even, ends);
	if (zd > 1)
		cannot(&l, "ZeRO-%d over %ld copies of a stage (DeepSpeed's "
		    "\"zero_optimization\": {\"stage\": %d}; Megatron shards "
		    "only the optimizer, over the data-parallel group)", zs, zd,
		    zs);
	/* in Megatron's terms: a split's ranks are data-parallel ranks */
	if (m->global_batch % (b * p->d))
		cannot(&l, "a global batch of %ld is not a multiple of the "
		    "micro-batch %ld x data-parallel size %ld", m->global_batch,
		    rank_b, epb ? p->d * e : p->d);
	if (p->overlap_param && !p->overlap_grad)
		cannot(&l, "--overlap-param-gather needs --overlap-grad-reduce");
	if (model && cp > 1 && model->seq_len % (2 * cp))
		cannot(&l, "context parallelism over %ld needs the sequence "
		    "(%ld) a multiple of %ld", cp, model->seq_len, 2 * cp);
	if (model && model->experts > 1 && model->experts % e)
		cannot(&l, "%ld experts over %ld expert-parallel ranks",
		    model->experts, e);
	if (model && model->mlp == MLP_GATED && model->activation != ACT_SILU)
		cannot(&l, "a gated MLP other than SwiGLU");
	if (model && model->mlp == MLP_DENSE && model->activation == ACT_RELU)
		cannot(&l, "ReLU (Megatron has --squared-relu)");
	if (model && layers != model->layers)
		cannot(&l, "the plan has %ld transformer layers, the model %ld",
		    layers, model->layers);

	fprintf(fp, "# %s on %s: p=%d d=%ld t=%ld sp=%ld e=%ld c=%ld v=%ld, "
	    "%ld devices, %.6g samples/s (nestplan evaluator)\n", m->label,
	    m->network, S, p->d, t, sp, e, c, p->v > 1 ? p->v : 1,
	    r->devices_used, r->throughput_samples_per_s);
	if (epb)
		fprintf(fp, "# the %ld expert ranks split each micro-batch's %ld "
		    "samples: Megatron's data-parallel size %ld, %ld a rank\n",
		    e, b, p->d * e, rank_b);
	fputs("# Megatron-LM core_v0.15.0; add data, tokenizer and schedule "
	    "flags (a benchmark: --mock-data)\n", fp);
	for (int i = 0; i < l.nwhy; i++)
		fprintf(fp, "# Megatron-LM cannot run this plan: %s\n", l.why[i]);
	if (!model)
		fputs("# the model's flags need its config: dpsolve -A model.xml\n",
		    fp);
	nproc = node_devices < r->devices_used ? node_devices : r->devices_used;
	nnodes = (r->devices_used + nproc - 1) / nproc;
	fprintf(fp, "%storchrun --nproc-per-node %ld --nnodes %ld %s \\\n",
	    l.nwhy ? "# " : "", nproc, nnodes,
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
		flag(fp, &l, "--seq-length %ld", model->seq_len);
		flag(fp, &l, "--max-position-embeddings %ld",
		    model->max_positions);
		flag(fp, &l, "--normalization %s", model->norm == NORM_RMSNORM ?
		    "RMSNorm" : "LayerNorm");
		if (model->mlp == MLP_GATED)
			flag(fp, &l, "--swiglu");
		flag(fp, &l, "--position-embedding-type %s",
		    model->position == POS_ROTARY ? "rope" : "learned_absolute");
		if (!model->tied_embeddings)
			flag(fp, &l, "--untie-embeddings-and-output-weights");
		if (!model->bias)
			flag(fp, &l, "--disable-bias-linear");
		if (!model->dropout) {
			flag(fp, &l, "--attention-dropout 0");
			flag(fp, &l, "--hidden-dropout 0");
		}
		flag(fp, &l, "--attention-backend %s", model->flash_attention ?
		    "flash" : "unfused");
		if (model->experts > 1) {
			flag(fp, &l, "--num-experts %ld", model->experts);
			flag(fp, &l, "--moe-router-topk %ld", model->top_k);
		}
	}
	if (ends) {
		flag(fp, &l, "--account-for-embedding-in-pipeline-split");
		flag(fp, &l, "--account-for-loss-in-pipeline-split");
	}
	flag(fp, &l, "--tensor-model-parallel-size %ld", t);
	flag(fp, &l, "--pipeline-model-parallel-size %d", S);
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
	if (e > 1) {
		flag(fp, &l, "--expert-model-parallel-size %ld", e);
		flag(fp, &l, "--expert-tensor-parallel-size %ld", t);
	}
	/* interleaving an even split by its chunk size; an uneven one (first
	 * and last stage) by the chunks a stage, as Megatron asks */
	if (p->v > 1 && even)
		flag(fp, &l, "--num-layers-per-virtual-pipeline-stage %ld",
		    k[0] / p->v);
	else if (p->v > 1)
		flag(fp, &l, "--num-virtual-stages-per-pipeline-rank %ld", p->v);
	if (!even && S > 1) {
		flag(fp, &l, "--decoder-first-pipeline-num-layers %ld", k[0]);
		flag(fp, &l, "--decoder-last-pipeline-num-layers %ld", k[S - 1]);
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
	if (m->grad_bytes_per_param == 2)
		flag(fp, &l, "--grad-reduce-in-bf16");
	fprintf(fp, "%s    --bf16\n", l.nwhy ? "#" : "");
	free(k);
	return l.nwhy;
}
