/*
 * t-analytic.c - the analytic operator graphs against closed forms:
 * Narayanan et al. (SC'21) for FLOPs, Korthikanti et al. (MLSys'23) for
 * activation bytes, Megatron's collective placement, and conservation of
 * FLOPs and parameters under tensor parallelism.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/csvio.h"
#include "graph/analytic.h"
#include "model/config.h"
#include "tap.h"

static struct model_cfg
model_as_configured(const char *name)
{
	struct model_cfg m;
	struct pl_err err;
	char path[256];

	snprintf(path, sizeof(path), "configs/models/%s.xml", name);
	if (model_load(&m, path, &err) < 0) {
		printf("Bail out! %s\n", path);
		exit(1);
	}
	return m;
}

/* The published closed forms count the unfused attention of their time:
 * the s x s scores are computed whole and kept. */
static struct model_cfg
model(const char *name)
{
	struct model_cfg m = model_as_configured(name);

	m.flash_attention = 0;
	return m;
}

static void
build(const struct model_cfg *m, long t, int sp, long e, long c, long b,
    struct aop_graph *g)
{
	struct variant v = { t, e, c, sp, b, 0, 0, 0, 0, ATTN_FUSED };
	struct pl_err err;

	if (analytic_build(m, NULL, &v, g, &err) < 0) {
		printf("Bail out! %s t=%ld\n", m->name, t);
		exit(1);
	}
}

struct sums {
	double matmul_flops, act, params;
	int fwd[LCOLL_N], bwd[LCOLL_N];
	double fwd_bytes[LCOLL_N], bwd_bytes[LCOLL_N];
};

static void
build_on(const struct model_cfg *m, const struct accel_cfg *a, long t, int sp,
    struct aop_graph *g)
{
	struct variant v = { t, 1, 1, sp, 1, 0, 0, 0, 0, ATTN_FUSED };
	struct pl_err err;

	if (analytic_build(m, a, &v, g, &err) < 0) {
		printf("Bail out! %s t=%ld\n", m->name, t);
		exit(1);
	}
}

static struct sums
layer_sums(const struct aop_graph *g, long layer)
{
	struct sums s = { 0 };

	for (size_t i = 0; i < g->n; i++) {
		const struct aop *o = &g->op[i];

		if (o->layer != layer)
			continue;
		if (o->kind == AOP_MATMUL || o->kind == AOP_ATTENTION)
			s.matmul_flops += o->fwd_flops;
		s.act += o->activation_bytes;
		s.params += o->parameter_bytes;
		if (o->fwd_coll >= 0) {
			s.fwd[o->fwd_coll]++;
			s.fwd_bytes[o->fwd_coll] += o->coll_bytes;
		}
		if (o->bwd_coll >= 0) {
			s.bwd[o->bwd_coll]++;
			s.bwd_bytes[o->bwd_coll] += o->coll_bytes;
		}
	}
	return s;
}

/* Korthikanti et al., Section 4: per layer, with dropout, 16-bit. */
static void
test_activations(void)
{
	struct model_cfg m = model("gpt3-175b");
	double s = 2048, h = 12288, a = 96;
	struct aop_graph g;

	for (long b = 1; b <= 2; b++) {
		double sbh = s * b * h, sq = a * s * s * b;

		build(&m, 1, 0, 1, 1, b, &g);
		EQ_DBL(layer_sums(&g, 0).act, sbh * (34 + 5 * a * s / h), 1e-12,
		    "gpt3 activations = sbh(34 + 5as/h), t = 1");
		analytic_release(&g);
		build(&m, 8, 0, 1, 1, b, &g);
		EQ_DBL(layer_sums(&g, 0).act, sbh * (10 + 24.0 / 8) + 5 * sq / 8,
		    1e-12, "gpt3 activations = sbh(10 + 24/t) + 5as^2b/t, t = 8");
		analytic_release(&g);
		build(&m, 4, 1, 1, 1, b, &g);
		EQ_DBL(layer_sums(&g, 0).act, sbh * (34 + 5 * a * s / h) / 4,
		    1e-12, "gpt3 activations with sp = sbh(34 + 5as/h)/t, t = 4");
		analytic_release(&g);
	}
	m = model("bertlarge");
	build(&m, 1, 0, 1, 1, 1, &g);
	EQ_DBL(layer_sums(&g, 0).act, 512.0 * 1024 * (34 + 5 * 16 * 512.0 /
	    1024), 1e-12, "bert-large activations = sbh(34 + 5as/h)");
	analytic_release(&g);
	/* without dropout: no masks (2 sbh) and no dropout output or mask of
	 * the attention probabilities (3as^2b); GQA: k and v are kv wide;
	 * a gated MLP keeps its input and three f-wide tensors */
	m = model("llama3-70b");
	build(&m, 1, 0, 1, 1, 1, &g);
	{
		double S = 4096, H = 8192, A = 64, KV = 1024, F = 28672;
		double want = S * (4 * H +		/* two norm inputs */
		    2 * H + 2 * H + 2 * KV + 2 * KV +	/* qkv in, q, k, v */
		    2 * H +				/* attention out in */
		    2 * H + 2 * 2 * F + 2 * F) +	/* mlp in, gate+up, down in */
		    2 * A * S * S;			/* softmax output */

		EQ_DBL(layer_sums(&g, 0).act, want, 1e-12,
		    "llama3 activations (no dropout, GQA, gated MLP)");
	}
	analytic_release(&g);
}

/*
 * The HBM bytes the memory-bound kernels of one unfused GPT layer move
 * (t = 1, dropout, f = 4h), counted kernel by kernel as Megatron-LM runs
 * them, 2 bytes an element and 1 a dropout mask.  Forward: two LayerNorms
 * read and write sbh (4 each), two bias-dropout-adds read the branch and
 * the residual and write the sum and the mask (7 each), GeLU reads and
 * writes 4sbh (4), the scale-mask-softmax reads and writes as^2b (4) and
 * dropout on it reads, writes and writes a mask (5): 38sbh + 9as^2b.
 * Backward: the norms read the gradient and the input and write one (6
 * each), the dropout-adds read the gradient and the mask and write one (5
 * each), GeLU 6 on 4sbh, softmax 6 and its dropout 5 on as^2b: 46sbh +
 * 11as^2b.
 */
static void
test_vector_traffic(void)
{
	struct model_cfg m = model("gpt3-175b");
	double s = 2048, h = 12288, a = 96;
	struct aop_graph g;

	m.flash_attention = 0;
	m.dropout = 1;
	for (long b = 1; b <= 2; b++) {
		double sbh = s * b * h, sq = a * s * s * b, fwd = 0, bwd = 0;

		build(&m, 1, 0, 1, 1, b, &g);
		for (size_t i = 0; i < g.n; i++)
			if (g.op[i].layer == 0 && (g.op[i].kind == AOP_VECTOR ||
			    g.op[i].kind == AOP_NORM)) {
				fwd += g.op[i].fwd_bytes;
				bwd += g.op[i].bwd_bytes;
			}
		EQ_DBL(fwd, 38 * sbh + 9 * sq, 1e-12, "elementwise forward "
		    "traffic = 38sbh + 9as^2b");
		EQ_DBL(bwd, 46 * sbh + 11 * sq, 1e-12, "elementwise backward "
		    "traffic = 46sbh + 11as^2b");
		analytic_release(&g);
	}
	/* Megatron-LM's cross-entropy over the padded vocabulary slice
	 * (50,257 -> 50,264 at t = 8), kernel by kernel in its
	 * cross_entropy.py: cast 2 + 4, max 4, subtract 8, exp 8, sum 4,
	 * divide 8 forward; scale 8 and the cast back 4 + 2 backward */
	build(&m, 8, 1, 1, 1, 1, &g);
	for (size_t i = 0; i < g.n; i++)
		if (strcmp(g.op[i].name, "cross_entropy") == 0) {
			double slice = s * 50264.0 / 8;

			EQ_DBL(g.op[i].fwd_bytes, 38 * slice, 1e-12,
			    "cross-entropy forward traffic = 38 s V/t");
			EQ_DBL(g.op[i].bwd_bytes, 14 * slice, 1e-12,
			    "cross-entropy backward traffic = 14 s V/t");
		}
	analytic_release(&g);
}

/* Narayanan et al.: 24Bsh^2 + 4Bs^2h forward FLOPs a dense layer (MHA,
 * f = 4h); adjusted: q/k/v 2Bsh(h + 2kv), gated MLP 6Bshf. */
static void
test_flops(void)
{
	struct model_cfg m = model("gpt3-175b");
	struct aop_graph g;
	double B = 2, s = 2048, h = 12288;

	build(&m, 1, 0, 1, 1, 2, &g);
	EQ_DBL(layer_sums(&g, 0).matmul_flops, 24 * B * s * h * h +
	    4 * B * s * s * h, 1e-12, "gpt3 layer FLOPs = 24Bsh^2 + 4Bs^2h");
	analytic_release(&g);

	m = model("llama3-70b");
	build(&m, 1, 0, 1, 1, 1, &g);
	s = 4096, h = 8192;
	EQ_DBL(layer_sums(&g, 0).matmul_flops, 2 * s * h * (h + 2 * 1024) +
	    4 * s * s * h + 2 * s * h * h + 6 * s * h * 28672, 1e-12,
	    "llama3 layer FLOPs, GQA and gated MLP");
	analytic_release(&g);

	/* MoE: the router, and each token through top_k experts */
	m = model("mixtral-8x7b");
	build(&m, 1, 0, 1, 1, 1, &g);
	s = 4096, h = 4096;
	EQ_DBL(layer_sums(&g, 0).matmul_flops, 2 * s * h * (h + 2 * 1024) +
	    4 * s * s * h + 2 * s * h * h + 2 * s * h * 8 +
	    2 * 6 * s * h * 14336, 1e-12, "mixtral layer FLOPs, top-2 of 8");
	analytic_release(&g);
	/* expert parallel: each of e devices holds s/e tokens and E/e
	 * experts; a device's work is 1/e of the layer's */
	{
		struct aop_graph g4;

		build(&m, 1, 0, 1, 1, 1, &g);
		build(&m, 1, 0, 4, 1, 1, &g4);
		EQ_DBL(4 * layer_sums(&g4, 0).matmul_flops,
		    layer_sums(&g, 0).matmul_flops, 1e-12,
		    "e = 4: a device does a quarter of the layer's FLOPs");
		analytic_release(&g4);
		analytic_release(&g);
	}
}

/* Splits conserve FLOPs and parameters: every split op times t (times e
 * for experts) plus the replicated ones gives the t = 1 totals. */
static void
test_conservation(void)
{
	static const char *const names[] = {
		"llama2-7b", "llama3-70b", "bertlarge", "mixtral-8x7b"
	};

	for (int k = 0; k < 4; k++) {
		struct model_cfg m = model(names[k]);
		struct aop_graph g1, gt;
		/* t divides the vocabulary, so no padding row is added */
		long t = m.experts > 1 || m.vocab % 8 ? 2 : 8;
		long e = m.experts > 1 ? 4 : 1;
		double f1 = 0, ft = 0, p1 = 0, pt = 0;
		char label[128];

		build(&m, 1, 0, 1, 1, 1, &g1);
		build(&m, t, 0, e, 1, 1, &gt);
		for (size_t i = 0; i < g1.n; i++) {
			p1 += g1.op[i].parameter_bytes;
			if (g1.op[i].kind == AOP_MATMUL ||
			    g1.op[i].kind == AOP_ATTENTION)
				f1 += g1.op[i].fwd_flops;
		}
		for (size_t i = 0; i < gt.n; i++) {
			const struct aop *o = &gt.op[i];
			double copies = o->param_split == SPLIT_T ? (double)t :
			    o->param_split == SPLIT_TE ? (double)(t * e) :
			    o->param_split == SPLIT_E ? (double)e : 1;

			pt += o->parameter_bytes * copies;
			/* every matmul is split over t except the router and
			 * the pooler, which the t devices of a group repeat */
			if (o->kind == AOP_MATMUL || o->kind == AOP_ATTENTION)
				ft += o->fwd_flops * (double)e *
				    (strcmp(o->name, "router") == 0 ||
				    strcmp(o->name, "pooler") == 0 ? 1 : (double)t);
		}
		snprintf(label, sizeof(label), "%s: t=%ld e=%ld conserves "
		    "parameters", names[k], t, e);
		EQ_DBL(pt, p1, 1e-12, label);
		snprintf(label, sizeof(label), "%s: t=%ld e=%ld conserves FLOPs",
		    names[k], t, e);
		EQ_DBL(ft, f1, 1e-12, label);
		snprintf(label, sizeof(label), "%s: graph parameters = closed "
		    "form", names[k]);
		EQ_DBL(p1 / 2, model_parameters(&m), 1e-12, label);
		analytic_release(&g1);
		analytic_release(&gt);
	}
}

/* Megatron's placement: per layer, t > 1 without sp: two all-reduces
 * forward (after the row-parallel attention output and MLP down
 * projections) and two backward (at the column-parallel inputs); with sp
 * each becomes an all-gather before and a reduce-scatter after; c > 1
 * gathers keys and values; e > 1 adds dispatch and combine all-to-alls. */
static void
test_collectives(void)
{
	struct model_cfg m = model("llama2-7b");
	struct aop_graph g;
	struct sums s;
	double sh = 2.0 * 4096 * 4096;	/* one s x h fp16 activation, b = 1 */

	build(&m, 1, 0, 1, 1, 1, &g);
	s = layer_sums(&g, 0);
	EQ_INT(s.fwd[LCOLL_ALL_REDUCE] + s.fwd[LCOLL_ALL_GATHER] +
	    s.fwd[LCOLL_REDUCE_SCATTER] + s.fwd[LCOLL_ALL_TO_ALL] +
	    s.bwd[LCOLL_ALL_REDUCE], 0, "t = 1: no collectives");
	analytic_release(&g);

	build(&m, 4, 0, 1, 1, 1, &g);
	s = layer_sums(&g, 0);
	EQ_INT(s.fwd[LCOLL_ALL_REDUCE], 2, "t = 4: two all-reduces forward");
	EQ_INT(s.bwd[LCOLL_ALL_REDUCE], 2, "t = 4: two all-reduces backward");
	EQ_INT(s.fwd[LCOLL_ALL_GATHER] + s.fwd[LCOLL_REDUCE_SCATTER], 0,
	    "t = 4: nothing else");
	EQ_DBL(s.fwd_bytes[LCOLL_ALL_REDUCE], 2 * sh, 1e-12,
	    "t = 4: each all-reduce carries the s x h activation");
	{
		int first = -1, ar[2], k = 0;

		for (size_t i = 0; i < g.n; i++)
			if (g.op[i].layer == 0 && first < 0)
				first = (int)i;
		for (size_t i = 0; i < g.n; i++)
			if (g.op[i].layer == 0 && g.op[i].fwd_coll ==
			    LCOLL_ALL_REDUCE && k < 2)
				ar[k++] = (int)i - 1;
		EQ_STR(g.op[ar[0]].name, "attn_out", "first all-reduce follows "
		    "the attention output projection");
		EQ_STR(g.op[ar[1]].name, "mlp_down", "second follows the MLP "
		    "down projection");
	}
	analytic_release(&g);

	build(&m, 4, 1, 1, 1, 1, &g);
	s = layer_sums(&g, 0);
	EQ_INT(s.fwd[LCOLL_ALL_REDUCE] + s.bwd[LCOLL_ALL_REDUCE], 0,
	    "sp: no all-reduce");
	EQ_INT(s.fwd[LCOLL_ALL_GATHER], 2, "sp: two all-gathers forward");
	EQ_INT(s.fwd[LCOLL_REDUCE_SCATTER], 2, "sp: two reduce-scatters forward");
	EQ_INT(s.bwd[LCOLL_ALL_GATHER], 2, "sp: two all-gathers backward");
	EQ_INT(s.bwd[LCOLL_REDUCE_SCATTER], 2, "sp: two reduce-scatters "
	    "backward");
	analytic_release(&g);

	build(&m, 1, 0, 1, 2, 1, &g);
	s = layer_sums(&g, 0);
	EQ_INT(s.fwd[LCOLL_CONTEXT_ALL_GATHER], 1, "c = 2: keys and values "
	    "gathered over the context group");
	EQ_INT(s.bwd[LCOLL_CONTEXT_REDUCE_SCATTER], 1, "c = 2: their "
	    "gradients reduce-scattered back");
	EQ_INT(s.fwd[LCOLL_ALL_GATHER], 0, "c = 2: no tensor-group gather");
	EQ_DBL(s.fwd_bytes[LCOLL_CONTEXT_ALL_GATHER], 2.0 * 4096 * 2 * 4096,
	    1e-12, "c = 2: the whole sequence's k and v");
	analytic_release(&g);

	/* t = 4 with sequence parallelism and c = 2: the tensor group's
	 * gathers are sequence parallelism's two, the keys and values are
	 * the context group's (at t > 1 they were priced as the former) */
	build(&m, 4, 1, 1, 2, 1, &g);
	s = layer_sums(&g, 0);
	EQ_INT(s.fwd[LCOLL_ALL_GATHER], 2, "t = 4, sp, c = 2: sequence "
	    "parallelism's two all-gathers on the tensor group");
	EQ_INT(s.fwd[LCOLL_CONTEXT_ALL_GATHER], 1, "t = 4, sp, c = 2: the "
	    "keys and values on the context group");
	EQ_INT(s.bwd[LCOLL_CONTEXT_REDUCE_SCATTER], 1, "t = 4, sp, c = 2: "
	    "their gradients too");
	EQ_DBL(s.fwd_bytes[LCOLL_CONTEXT_ALL_GATHER], 2.0 * 4096 * 2 * 4096 / 4,
	    1e-12, "t = 4, c = 2: a quarter of the heads' k and v");
	analytic_release(&g);

	m = model("mixtral-8x7b");
	build(&m, 1, 0, 2, 1, 1, &g);
	s = layer_sums(&g, 0);
	EQ_INT(s.fwd[LCOLL_ALL_TO_ALL], 2, "e = 2: dispatch and combine");
	EQ_DBL(s.fwd_bytes[LCOLL_ALL_TO_ALL], 2 * (2.0 * 2048 * 2 * 4096),
	    1e-12, "e = 2: each sends its s/e tokens to top-2 experts");
	analytic_release(&g);
}

/*
 * Expert ranks that split the micro-batch's samples (Megatron-LM's plain
 * expert parallelism), by hand against the folded split of the same
 * tokens: Mixtral 8x7B at t = 1, e = 8, a micro-batch of 8 sequences.
 * Folded, a device holds 512 tokens of each of the 8 sequences and needs
 * all 8 sequences' keys and values (2 x 8 x 4,096 tokens x 2 x 1,024
 * bytes = 134,217,728 gathered); split by samples, it holds one whole
 * sequence and gathers nothing.  Everything else a device computes is
 * the same: 4,096 tokens through the same products, the same all-to-all
 * (each sends its tokens' top-2 copies), the same parameters; its
 * attention reads one sequence's keys and values instead of eight.
 */
/*
 * Both at once (Megatron-Core's expert ranks over its context ranks
 * first, then its data-parallel ones: EP 8 over CP 2 and DP 4): the 8
 * ranks fold 2 over each sequence and split 8 samples 4 ways, so each
 * device again holds 4,096 tokens, half of each of 2 sequences.  Worked
 * by hand against the two splits above: the same products, all-to-all,
 * parameters and activations; the keys and values of the 2 sequences its
 * fold shares gathered (a quarter of the fold's 8); its attention reads 6
 * sequences' keys and values less than the fold's.
 */
static void
test_expert_split_folded(const struct model_cfg *m, const struct variant *fold,
    const struct variant *split)
{
	struct variant both = *split, bad;
	struct aop_graph gf, gs, gb;
	struct sums f, s, b;
	struct layer_graph lg;
	struct pl_err err;
	double kv = 0, kv_fold = 0;

	both.ep_fold = 2;
	if (analytic_build(m, NULL, fold, &gf, &err) < 0 ||
	    analytic_build(m, NULL, split, &gs, &err) < 0 ||
	    analytic_build(m, NULL, &both, &gb, &err) < 0) {
		printf("Bail out! mixtral e = 8, fold 2: %s\n", err.msg);
		exit(1);
	}
	f = layer_sums(&gf, 0);
	s = layer_sums(&gs, 0);
	b = layer_sums(&gb, 0);
	for (size_t i = 0; i < gb.n; i++)
		if (gb.op[i].layer == 0 && strcmp(gb.op[i].name, "qkv") == 0)
			EQ_DBL(gb.op[i].gemm_m, 4096, 0, "fold 2 and 4 sample "
			    "ranks: 4,096 tokens a device (2 samples, half of "
			    "each)");
	EQ_DBL(b.fwd_bytes[LCOLL_CONTEXT_ALL_GATHER], 2.0 * 2 * 4096 * 2 *
	    1024, 1e-12, "the keys and values of the fold's 2 sequences "
	    "gathered");
	EQ_DBL(b.bwd_bytes[LCOLL_CONTEXT_REDUCE_SCATTER], 2.0 * 2 * 4096 * 2 *
	    1024, 1e-12, "their gradients reduce-scattered");
	EQ_DBL(b.matmul_flops, f.matmul_flops, 1e-12, "the same products as "
	    "the fold's");
	EQ_DBL(b.fwd_bytes[LCOLL_ALL_TO_ALL], s.fwd_bytes[LCOLL_ALL_TO_ALL],
	    1e-12, "the same all-to-all as the split's");
	EQ_DBL(b.params, s.params, 1e-12, "the same parameters");
	EQ_DBL(b.act, s.act, 1e-12, "the same activations kept");
	for (size_t i = 0; i < gb.n; i++)
		if (gb.op[i].layer == 0 && strcmp(gb.op[i].name,
		    "flash_attention") == 0)
			kv = gb.op[i].fwd_bytes;
	for (size_t i = 0; i < gf.n; i++)
		if (gf.op[i].layer == 0 && strcmp(gf.op[i].name,
		    "flash_attention") == 0)
			kv_fold = gf.op[i].fwd_bytes;
	EQ_DBL(kv_fold - kv, 2.0 * 2 * 6 * 4096 * 1024, 1e-9, "attention "
	    "reads 6 sequences' keys and values less than the fold's");
	/* the per-layer graph carries the fold, through its CSV and back */
	{
		char dir[] = "/tmp/t-analytic.XXXXXX", path[64];
		struct layer_graph back;
		FILE *fp;
		int ok = 0;

		analytic_layers(&gb, &lg);
		if (mkdtemp(dir) != NULL) {
			snprintf(path, sizeof path, "%s/fold.csv", dir);
			if ((fp = fopen(path, "w")) != NULL) {
				ok = layers_write(fp, NULL, &lg) == 0;
				ok &= fclose(fp) == 0;
			}
			if (ok && layers_read(&back, path, &err) == 0) {
				ok = back.var_ep_batch == 1 &&
				    layers_ep_fold(&back) == 2 &&
				    layers_ep_samples(&back) == 4;
				layers_release(&back);
			} else
				ok = 0;
			unlink(path);
			rmdir(dir);
		}
		OK(ok, "a layer graph's fold written and read back (2 over a "
		    "sequence, 4 sample ranks)");
		layers_release(&lg);
	}
	analytic_release(&gf);
	analytic_release(&gs);
	analytic_release(&gb);
	bad = both, bad.ep_fold = 3;
	OK(analytic_build(m, NULL, &bad, &gb, &err) < 0, "a fold of 3 of 8 "
	    "refused");
	bad = both, bad.ep_fold = 8;
	OK(analytic_build(m, NULL, &bad, &gb, &err) < 0, "a fold of all 8 "
	    "in a batch split refused (that is the fold itself)");
	bad = *fold, bad.ep_fold = 2;
	OK(analytic_build(m, NULL, &bad, &gb, &err) < 0, "a fold without a "
	    "batch split refused");
	bad = both, bad.b = 6;
	OK(analytic_build(m, NULL, &bad, &gb, &err) < 0, "6 samples over 4 "
	    "sample ranks refused");
}

static void
test_expert_batch_split(void)
{
	struct model_cfg m = model_as_configured("mixtral-8x7b");
	struct variant fold = { 1, 8, 1, 0, 8, 0, 0, 0, 0, ATTN_FUSED }, split = { 1, 8, 1, 0, 8, 1, 0, 0, 0, ATTN_FUSED };
	struct variant bad = split;
	struct aop_graph gf, gs;
	struct pl_err err;
	struct sums f, b;
	int same = 1;

	if (analytic_build(&m, NULL, &fold, &gf, &err) < 0 ||
	    analytic_build(&m, NULL, &split, &gs, &err) < 0) {
		printf("Bail out! mixtral e = 8: %s\n", err.msg);
		exit(1);
	}
	f = layer_sums(&gf, 0);
	b = layer_sums(&gs, 0);
	EQ_DBL(f.fwd_bytes[LCOLL_CONTEXT_ALL_GATHER], 2.0 * 8 * 4096 * 2 * 1024,
	    1e-12, "folded: all 8 sequences' keys and values gathered");
	EQ_DBL(f.bwd_bytes[LCOLL_CONTEXT_ALL_GATHER], 2.0 * 8 * 4096 * 2 * 1024,
	    1e-12, "and gathered again backward (Transformer Engine keeps "
	    "only the local ones)");
	EQ_DBL(f.bwd_bytes[LCOLL_CONTEXT_REDUCE_SCATTER], 2.0 * 8 * 4096 * 2 *
	    1024, 1e-12, "their gradients reduce-scattered");
	EQ_INT(b.fwd[LCOLL_CONTEXT_ALL_GATHER] + b.bwd[LCOLL_CONTEXT_REDUCE_SCATTER],
	    0, "split by samples: no key/value exchange");
	EQ_DBL(b.matmul_flops, f.matmul_flops, 1e-12, "the same products");
	EQ_DBL(b.fwd_bytes[LCOLL_ALL_TO_ALL], f.fwd_bytes[LCOLL_ALL_TO_ALL],
	    1e-12, "the same all-to-all");
	EQ_DBL(b.fwd_bytes[LCOLL_ALL_TO_ALL], 2 * (2.0 * 4096 * 2 * 4096),
	    1e-12, "each device sends its 4,096 tokens' top-2 copies");
	EQ_DBL(b.params, f.params, 1e-12, "the same parameters");
	EQ_DBL(b.act, f.act, 1e-12, "the same activations kept");
	/* operator by operator, the folded graph's gathers left out */
	for (size_t i = 0, j = 0; i < gs.n || j < gf.n; i++, j++) {
		while (j < gf.n && (strcmp(gf.op[j].name, "kv_gather") == 0 ||
		    strcmp(gf.op[j].name, "kv_regather") == 0))
			j++;
		if (i >= gs.n || j >= gf.n || strcmp(gs.op[i].name,
		    gf.op[j].name) != 0 || gs.op[i].fwd_flops !=
		    gf.op[j].fwd_flops || gs.op[i].bwd_flops != gf.op[j].bwd_flops)
			same = 0;
		if (!same)
			break;
	}
	OK(same, "every other operator, and its FLOPs, the same");
	for (size_t i = 0; i < gs.n; i++)
		if (gs.op[i].layer == 0 && strcmp(gs.op[i].name, "flash_attention") == 0)
			for (size_t j = 0; j < gf.n; j++)
				if (gf.op[j].layer == 0 &&
				    strcmp(gf.op[j].name, "flash_attention") == 0)
					EQ_DBL(gf.op[j].fwd_bytes -
					    gs.op[i].fwd_bytes, 2.0 * 2 * 7 *
					    4096 * 1024, 1e-9, "attention reads "
					    "7 sequences' keys and values less");
	analytic_release(&gf);
	analytic_release(&gs);
	bad.e = 1;
	OK(analytic_build(&m, NULL, &bad, &gs, &err) < 0, "a batch split at "
	    "e = 1 refused");
	bad = split, bad.c = 2;
	OK(analytic_build(&m, NULL, &bad, &gs, &err) < 0, "a batch split "
	    "beside context parallelism refused");
	bad = split, bad.b = 12;
	OK(analytic_build(&m, NULL, &bad, &gs, &err) < 0, "a batch split of "
	    "12 samples over 8 ranks refused");
	test_expert_split_folded(&m, &fold, &split);
}

static void
test_variants(void)
{
	struct model_cfg m = model("llama3-70b");
	struct variant v[256], bad = { 16, 1, 1, 0, 1, 0, 0, 0, 0, ATTN_FUSED };
	struct aop_graph g;
	struct pl_err err;
	size_t n;

	OK(analytic_build(&m, NULL, &bad, &g, &err) < 0,
	    "t = 16 > kv heads 8 is refused");
	/* t 1,2,4,8 (sp for t > 1: 7) x c 1,2,4 */
	n = analytic_variants(&m, 1, 8, 4, EP_FOLD, v, 256);
	EQ_INT(n, 21, "llama3: 7 t/sp x 3 c variants");
	m = model("mixtral-8x7b");
	/* and the experts' own tensor splits et = t/2 ... 1 at sp where the
	 * t e / et expert ranks divide the 8 experts: t 2 et 1 with e 1, 2,
	 * 4 (3); t 4 et 2 with e 1, 2, 4, et 1 with e 1, 2 (5); t 8 et 4
	 * with e 1, 2, 4, et 2 with e 1, 2, et 1 with e 1 (6): 14, each at
	 * 3 c */
	n = analytic_variants(&m, 1, 8, 4, EP_FOLD, v, 256);
	EQ_INT(n, 7 * 4 * 3 + 14 * 3, "mixtral: 7 t/sp x 4 e x 3 c variants, "
	    "and 14 t/e/et x 3 c with the experts' own tensor split");
	/* split by samples: e 2, 4, 8 at c = 1, a micro-batch of e ranks'
	 * one sample; e = 1 at c 1, 2, 4 as before (6 et < t each); the
	 * splits' et < t: e 2 with t 2 et 1, t 4 et 2 and 1, t 8 et 4 and
	 * 2 (5), e 4 with t 2 et 1, t 4 et 2, t 8 et 4 (3) */
	n = analytic_variants(&m, 1, 8, 4, EP_BATCH, v, 256);
	EQ_INT(n, 7 * 3 + 6 * 3 + 7 * 3 + 8, "mixtral, batch splits: 7 t/sp "
	    "x 3 c at e = 1, x 3 e at c = 1, and the experts' own splits");
	EQ_INT(v[3].e * v[3].b * v[3].ep_batch, 4, "after t = 1's three e = 1 "
	    "variants: e = 2 split, 2 samples");
	/* both: the folds and the splits, and the splits that fold 2 of
	 * e 4, 2 or 4 of e 8 over a sequence (at most c's 4), 7 t/sp each,
	 * and et < t where t e / et divides the 8: e 4 fold 2 with t 2 et
	 * 1, t 4 et 2, t 8 et 4 */
	n = analytic_variants(&m, 1, 8, 4, EP_FOLD | EP_BATCH, v, 256);
	EQ_INT(n, 7 * 4 * 3 + 14 * 3 + 7 * 3 + 8 + 3 * 7 + 3, "mixtral, both "
	    "splits, and the splits with a fold");
	n = analytic_variants(&m, 1, 8, 2, EP_FOLD | EP_BATCH, v, 256);
	EQ_INT(n, 7 * 4 * 2 + 14 * 2 + 7 * 3 + 8 + 2 * 7 + 3, "at c up to 2, "
	    "folds of 2 only");
	m = model("bertlarge");
	bad.t = 1, bad.sp = 1;
	OK(analytic_build(&m, NULL, &bad, &g, &err) < 0, "sp at t = 1 refused");
	bad.sp = 0, bad.e = 2;
	OK(analytic_build(&m, NULL, &bad, &g, &err) < 0, "e on a dense model "
	    "refused");
}

/*
 * Recomputation and flash attention, per layer (Korthikanti et al. 2022,
 * Table 2): selective recomputation keeps sbh(10 + 24/t) with tensor
 * parallelism and 34sbh/t with sequence parallelism; full recomputation
 * keeps the layer's input, 2sbh (/t with sp).  Flash attention keeps no
 * s x s tensor: 34sbh plus the fp32 log-sum-exp, 4 bytes a query and head
 * (4asb); causal attention computes half the score matrix, 2Bs^2h of
 * Narayanan's 4Bs^2h, and its backward pass 2.5 times its forward.
 */
static void
test_recompute_and_flash(void)
{
	struct model_cfg m = model("gpt3-175b");
	struct accel_cfg a;
	struct pl_err err;
	struct aop_graph g;
	struct layer_graph lg;
	double s = 2048, h = 12288, heads = 96, sbh = s * h, core_s = 0;

	if (accel_load(&a, "configs/accelerators/h100-80gb.xml", &err) < 0) {
		printf("Bail out! h100-80gb\n");
		exit(1);
	}
	build_on(&m, &a, 8, 1, &g);
	analytic_layers(&g, &lg);
	EQ_DBL(lg.l[1].selective_bytes, 34 * sbh / 8, 1e-12,
	    "selective, sp: 34sbh/t");
	EQ_DBL(lg.l[1].checkpoint_bytes, 2 * sbh / 8, 1e-12,
	    "full, sp: the layer input, 2sbh/t");
	EQ_DBL(lg.l[1].recompute_s, lg.l[1].forward_s, 0,
	    "full: the whole forward again");
	for (size_t i = 0; i < g.n; i++)
		if (g.op[i].layer == 0 && (strcmp(g.op[i].name, "scores") == 0 ||
		    strcmp(g.op[i].name, "softmax") == 0 ||
		    strcmp(g.op[i].name, "context") == 0))
			core_s += g.op[i].fwd_s;
	OK(core_s > 0, "the attention core takes time");
	EQ_DBL(lg.l[1].selective_recompute_s, core_s, 1e-12,
	    "selective: the attention core's forward again");
	EQ_DBL(lg.l[0].checkpoint_bytes, lg.l[0].activation_bytes, 0,
	    "the embedding is not recomputed");
	EQ_DBL(lg.l[lg.n - 1].recompute_s, 0, 0, "nor the head");
	layers_release(&lg);
	analytic_release(&g);
	build_on(&m, &a, 8, 0, &g);
	analytic_layers(&g, &lg);
	EQ_DBL(lg.l[1].selective_bytes, sbh * (10 + 24.0 / 8), 1e-12,
	    "selective, t = 8: sbh(10 + 24/t)");
	EQ_DBL(lg.l[1].checkpoint_bytes, 2 * sbh, 1e-12,
	    "full, no sp: 2sbh");
	layers_release(&lg);
	analytic_release(&g);

	m.flash_attention = 1;
	build(&m, 1, 0, 1, 1, 1, &g);
	EQ_DBL(layer_sums(&g, 0).act, 34 * sbh + 4 * heads * s, 1e-12,
	    "flash: 34sbh + the log-sum-exp, no 5as^2b");
	EQ_DBL(layer_sums(&g, 0).matmul_flops, 24 * s * h * h +
	    2 * s * s * h, 1e-12, "flash, causal: 24sh^2 + 2s^2h");
	for (size_t i = 0; i < g.n; i++)
		if (g.op[i].layer == 0 && g.op[i].kind == AOP_ATTENTION)
			EQ_DBL(g.op[i].bwd_flops, 2.5 * g.op[i].fwd_flops, 1e-12,
			    "flash backward: 2.5 forwards");
	analytic_release(&g);
	build(&m, 4, 1, 1, 1, 1, &g);
	EQ_DBL(layer_sums(&g, 0).act, (34 * sbh + 4 * heads * s) / 4, 1e-12,
	    "flash, sp, t = 4: (34sbh + 4as)/t");
	analytic_release(&g);
	m.causal = 0;
	build(&m, 1, 0, 1, 1, 1, &g);
	EQ_DBL(layer_sums(&g, 0).matmul_flops, 24 * s * h * h +
	    4 * s * s * h, 1e-12, "flash, bidirectional: 24sh^2 + 4s^2h");
	analytic_release(&g);

	m = model_as_configured("llama2-7b");
	OK(m.causal && m.flash_attention, "decoders: causal, flash by default");
	m = model_as_configured("bertlarge");
	OK(!m.causal && !m.flash_attention, "encoders: neither by default");
}

/*
 * torchtitan's per-operator checkpointing as torch.compile partitions
 * Llama 3 8B's block (docs/model.md, "Per-operator checkpointing"): of
 * the products wq wk wv wo w1 w3 w2, the odd ones' outputs the backward
 * reads are kept, the even ones it reads run again.  One GPU, 2
 * sequences of 8,192 (n = 16,384): the input, q, v, the attention's
 * output, w1's output (2n(4096 + 4096 + 1024 + 4096 + 14336)) and the
 * log-sum-exp (4n 32): 908,066,816 bytes; wk's share of the qkv product
 * (1024/6144), wo and w3's half of the gated up product run again, with
 * the norms, the activation and the attention's residual.  TP 8 with
 * sequence parallelism, 12 sequences (n = 98,304): the same over t and
 * the attention's reduce-scatter, 2n(512 + 512 + 128 + 512 + 1792 +
 * 512) + 4n 4 = 781,713,408 bytes, wo not run again (the reduce-scatter
 * that reads it is kept).  Refused: biases, tensor parallelism without
 * sequence parallelism, experts.
 */
static void
test_op_sac(void)
{
	struct model_cfg m = model_as_configured("llama3-8b");
	struct accel_cfg a;
	struct pl_err err;
	const struct { long t; int sp; long b; double kept, kshare; int wo; }
	    c[2] = { { 1, 0, 2, 908066816, 1024.0 / 6144, 1 },
		{ 8, 1, 12, 781713408, 128.0 / 768, 0 } };

	if (accel_load(&a, "configs/accelerators/h100-80gb.xml", &err) < 0) {
		printf("Bail out! h100-80gb\n");
		exit(1);
	}
	for (int k = 0; k < 2; k++) {
		struct variant v = { c[k].t, 1, 1, c[k].sp, c[k].b, 0, 0, 0,
		    0, ATTN_FUSED };
		struct aop_graph g;
		struct layer_graph lg;
		double rerun = 0;

		if (analytic_build(&m, &a, &v, &g, &err) < 0) {
			printf("Bail out! llama3-8b t=%ld\n", c[k].t);
			exit(1);
		}
		analytic_layers(&g, &lg);
		OK(lg.has_op_sac, "per operator: priced on Llama 3 8B");
		EQ_DBL(lg.l[1].op_sac_bytes, c[k].kept, 1e-12, c[k].t == 1 ?
		    "per operator, one GPU: input, q, v, attention, w1" :
		    "per operator, TP 8 SP: and the attention's "
		    "reduce-scatter");
		for (size_t i = 0; i < g.n; i++) {
			const struct aop *o = &g.op[i];

			if (o->layer != 0)
				continue;
			if (strcmp(o->name, "qkv") == 0)
				rerun += c[k].kshare * o->fwd_s;
			else if (strcmp(o->name, "mlp_up") == 0)
				rerun += o->fwd_s / 2;
			else if ((c[k].wo && strcmp(o->name, "attn_out") == 0) ||
			    o->kind == AOP_NORM ||
			    strcmp(o->name, "mlp_act") == 0 ||
			    strcmp(o->name, "attn_residual") == 0)
				rerun += o->fwd_s;
		}
		OK(rerun > 0, "per operator: something runs again");
		EQ_DBL(lg.l[1].op_sac_recompute_s, rerun, 1e-12, c[k].t == 1 ?
		    "per operator, one GPU: wk, wo, w3 and the rest" :
		    "per operator, TP 8 SP: wk, w3 and the rest, not wo");
		EQ_DBL(lg.l[0].op_sac_bytes, lg.l[0].activation_bytes, 0,
		    "per operator: the embedding keeps everything");
		layers_release(&lg);
		analytic_release(&g);
	}
	m.bias = 1;
	{
		struct variant v = { 1, 1, 1, 0, 1, 0, 0, 0, 0, ATTN_FUSED };
		struct aop_graph g;

		if (analytic_build(&m, NULL, &v, &g, &err) < 0)
			exit(1);
		OK(!g.op_sac, "per operator: not with biases (aten.addmm)");
		analytic_release(&g);
		m.bias = 0;
		v.t = 8;
		if (analytic_build(&m, NULL, &v, &g, &err) < 0)
			exit(1);
		OK(!g.op_sac, "per operator: not at t 8 without sequence "
		    "parallelism");
		analytic_release(&g);
	}
	m = model_as_configured("mixtral-8x7b");
	{
		struct variant v = { 1, 1, 1, 0, 1, 0, 0, 0, 0, ATTN_FUSED };
		struct aop_graph g;

		if (analytic_build(&m, NULL, &v, &g, &err) < 0)
			exit(1);
		OK(!g.op_sac, "per operator: not with experts");
		analytic_release(&g);
	}
}

/*
 * Tile and wave quantization by hand: on 132 units of 128 x 128 tiles a
 * 4096 x 4096 product is 1,024 tiles in 8 waves (1,056 slots); BERT's
 * q/k/v product at b = 1 (512 x 3072) is 96 tiles, one wave on 96 of 132
 * units; a 100 x 128 product fills 100/128 of one tile on one unit; a
 * flash-attention grid of 2 sequences x 16 heads x 4 query tiles is 128
 * blocks, one wave.  The micro-batch size then matters: BERT-Large at
 * b = 2 takes less than twice b = 1's forward time.
 */
static void
test_gemm_quantization(void)
{
	struct accel_cfg a;
	struct pl_err err;
	struct model_cfg m = model_as_configured("bertlarge");
	struct aop_graph g;
	struct layer_graph lg;
	double t1, t2;

	if (accel_load(&a, "configs/accelerators/h100-80gb.xml", &err) < 0) {
		printf("Bail out! h100-80gb\n");
		exit(1);
	}
	EQ_INT(a.gemm_units, 132, "the H100 config: 132 units");
	EQ_DBL(analytic_gemm_utilisation(&a, 4096, 4096, 1), 1024.0 / 1056,
	    1e-15, "4096^2: 1024 tiles in 8 waves of 132");
	EQ_DBL(analytic_gemm_utilisation(&a, 512, 3072, 1), 96.0 / 132,
	    1e-15, "512 x 3072: 96 tiles, one wave");
	EQ_DBL(analytic_gemm_utilisation(&a, 100, 128, 1), 100.0 / 128 / 132,
	    1e-15, "100 x 128: part of one tile on one unit");
	EQ_DBL(analytic_gemm_utilisation(&a, 512, 0, 32), 128.0 / 132, 1e-15,
	    "flash grid: 32 sequences x heads of 4 query tiles");
	a.gemm_units = 0;
	EQ_DBL(analytic_gemm_utilisation(&a, 100, 128, 1), 1, 0,
	    "no <gemm>: no quantization");
	a.gemm_units = 132;
	build_on(&m, &a, 1, 0, &g);
	analytic_layers(&g, &lg);
	t1 = lg.l[1].forward_s;
	layers_release(&lg);
	analytic_release(&g);
	{
		struct variant v = { 1, 1, 1, 0, 2, 0, 0, 0, 0, ATTN_FUSED };

		if (analytic_build(&m, &a, &v, &g, &err) < 0) {
			printf("Bail out! bertlarge b=2\n");
			exit(1);
		}
	}
	analytic_layers(&g, &lg);
	t2 = lg.l[1].forward_s;
	OK(t2 < 1.9 * t1, "BERT-Large: b = 2 runs a layer in less than twice "
	    "b = 1's time");
	layers_release(&lg);
	analytic_release(&g);
}

/*
 * A product's fixed time (<gemm fixed_s>), by hand: the H100 config's
 * 5.5 us is added once to a weight product's forward and twice to its
 * backward (the input and the weight gradient), and to no other operator.
 * BERT-Large's q/k/v product at b = 1 is 512 x 1024 by 1024 x 3072: 96
 * tiles of 128 x 128, one wave on 96 of the 132 units, 3.2 GFLOP at 65.3%
 * of 989.4 TFLOP/s (6.9 us; its 10.5 MB at 80% of 3,350 GB/s take 3.9
 * us, so it is compute-bound), then 5.5 us.  A grouped product (Mixtral's
 * eight experts) pays it once; attention's products and the vector
 * operators never; an accelerator without fixed_s (the A100) pays 0.
 */
static const struct aop *
op_named(const struct aop_graph *g, long layer, const char *name)
{
	for (size_t i = 0; i < g->n; i++)
		if (g->op[i].layer == layer && strcmp(g->op[i].name, name) == 0)
			return &g->op[i];
	printf("Bail out! no %s in layer %ld\n", name, layer);
	exit(1);
}

static void
test_gemm_fixed_time(void)
{
	struct accel_cfg a;
	struct pl_err err;
	struct model_cfg m = model_as_configured("bertlarge");
	struct aop_graph with, without;
	struct model_cfg moe = model_as_configured("mixtral-8x7b");
	const char *others[] = { "attn_norm", "scores", "context", "mlp_act",
	    "attn_residual" };

	if (accel_load(&a, "configs/accelerators/a100-80gb.xml", &err) < 0) {
		printf("Bail out! a100-80gb\n");
		exit(1);
	}
	EQ_DBL(a.gemm_fixed_s, 0, 0, "the A100 config: no fixed time");
	if (accel_load(&a, "configs/accelerators/h100-80gb.xml", &err) < 0) {
		printf("Bail out! h100-80gb\n");
		exit(1);
	}
	EQ_DBL(a.gemm_fixed_s, 5.5e-6, 0, "the H100 config: 5.5 us a product");
	build_on(&m, &a, 1, 0, &with);
	EQ_DBL(op_named(&with, 0, "qkv")->fwd_s, 2.0 * 512 * 1024 * 3072 /
	    (989.4e12 * 0.653 * 96 / 132) + 5.5e-6, 1e-12,
	    "q/k/v forward: one wave of 96 tiles at 65.3%, then 5.5 us");
	a.gemm_fixed_s = 0;
	build_on(&m, &a, 1, 0, &without);
	EQ_DBL(op_named(&with, 0, "qkv")->fwd_s -
	    op_named(&without, 0, "qkv")->fwd_s, 5.5e-6, 1e-12,
	    "q/k/v forward: one product");
	EQ_DBL(op_named(&with, 0, "qkv")->bwd_s -
	    op_named(&without, 0, "qkv")->bwd_s, 11e-6, 1e-12,
	    "q/k/v backward: two products");
	EQ_DBL(op_named(&with, 0, "mlp_down")->bwd_s -
	    op_named(&without, 0, "mlp_down")->bwd_s, 11e-6, 1e-12,
	    "the MLP's second product: two backward products");
	for (size_t i = 0; i < sizeof(others) / sizeof(others[0]); i++)
		EQ_DBL(op_named(&with, 0, others[i])->fwd_s +
		    op_named(&with, 0, others[i])->bwd_s,
		    op_named(&without, 0, others[i])->fwd_s +
		    op_named(&without, 0, others[i])->bwd_s, 0,
		    "no fixed time on an operator that is not a product");
	analytic_release(&with);
	analytic_release(&without);
	a.gemm_fixed_s = 5.5e-6;
	build_on(&moe, &a, 1, 0, &with);
	a.gemm_fixed_s = 0;
	build_on(&moe, &a, 1, 0, &without);
	EQ_DBL(op_named(&with, 0, "expert_up")->fwd_s -
	    op_named(&without, 0, "expert_up")->fwd_s, 5.5e-6, 1e-12,
	    "Mixtral's eight experts' grouped product: once forward");
	EQ_DBL(op_named(&with, 0, "expert_down")->bwd_s -
	    op_named(&without, 0, "expert_down")->bwd_s, 11e-6, 1e-12,
	    "and twice backward");
	analytic_release(&with);
	analytic_release(&without);
}

/*
 * The weights' gradient's share of a product's backward pass (what a
 * zero-bubble schedule runs as W), BERT-large's q/k/v product on an H100
 * (512 tokens, 1,024 in, 3,072 out): the weight gradient (1,024 x 512)
 * by (512 x 3,072) fills 192 tiles of 128 x 128, two waves of 132; the
 * input gradient (512 x 3,072) by (3,072 x 1,024) 32 tiles, one wave;
 * each 2 x 512 x 1,024 x 3,072 FLOPs at 65.3% of 989.4 TFLOP/s, plus
 * 5.5 us.  The attention core's products have no weights: no share.
 */
static void
test_weight_gradient_share(void)
{
	struct accel_cfg a;
	struct pl_err err;
	struct model_cfg m = model_as_configured("bertlarge");
	struct aop_graph g;
	struct layer_graph lg;
	double flops = 2.0 * 512 * 1024 * 3072, rate = 989.4e12 * 0.653;
	double w = flops / (rate * 192 / 264) + 5.5e-6;
	double in = flops / (rate * 32 / 132) + 5.5e-6;

	if (accel_load(&a, "configs/accelerators/h100-80gb.xml", &err) < 0) {
		printf("Bail out! h100-80gb\n");
		exit(1);
	}
	build_on(&m, &a, 1, 0, &g);
	EQ_DBL(op_named(&g, 0, "qkv")->wgrad_s, w, 1e-12,
	    "q/k/v: the weight gradient, two waves of 192 tiles");
	EQ_DBL(op_named(&g, 0, "qkv")->bwd_s - op_named(&g, 0, "qkv")->wgrad_s,
	    in, 1e-12, "q/k/v: the input gradient, one wave of 32 tiles");
	EQ_DBL(op_named(&g, 0, "scores")->wgrad_s, 0, 0,
	    "the attention scores: no weights, no share");
	analytic_layers(&g, &lg);
	OK(lg.has_wgrad && lg.l[1].weight_gradient_s > w &&
	    lg.l[1].weight_gradient_s < lg.l[1].backward_s,
	    "a layer's share: its products', within its backward pass");
	OK(m.tied_embeddings && lg.l[lg.n - 1].weight_gradient_s > 0 &&
	    lg.l[lg.n - 1].weight_gradient_s < lg.l[lg.n - 1].backward_s,
	    "BERT's head, tied to the embedding (its weights counted there): "
	    "its weight gradient computed all the same");
	layers_release(&lg);
	analytic_release(&g);
}

/*
 * DeepSeek-V3 (latent attention, 3 dense layers, 58 of 256 experts 2048
 * wide with one shared, a multi-token prediction module), unfused so the
 * core is whole: a layer's products summed from the report's shapes (Sec.
 * 2.1.1, 4.2), the compressed tensors gathered under sequence
 * parallelism instead of the hidden state, and the layers marked copies
 * of the first of their kind.
 */
static void
test_latent_and_experts(void)
{
	struct model_cfg m = model("deepseek-v3");
	double s = 4096, h = 7168, A = 128, qr = 1536, kvr = 512, rope = 64;
	double nope = 128, vd = 128, f = 18432, fe = 2048, E = 256, k = 8;
	double V = 129280;
	/* q down and up, kv (and the rotary key) down, k and v up, o */
	double attn = h * qr + qr * A * (nope + rope) + h * (kvr + rope) +
	    kvr * A * (nope + vd) + A * vd * h;
	double core = s * A * (nope + rope) + s * A * vd;
	double moe = h * E + (k + 1) * 3 * h * fe;	/* router, 8 + shared */
	struct aop_graph g;
	struct layer_graph lg;
	struct sums dense, expert, head, tp;
	int copies = 1;

	build(&m, 1, 0, 1, 1, 1, &g);
	dense = layer_sums(&g, 0);
	expert = layer_sums(&g, 3);
	head = layer_sums(&g, 61);
	EQ_DBL(dense.matmul_flops, 2 * s * (attn + core + 3 * h * f), 1e-12,
	    "DeepSeek-V3: a dense layer's products");
	EQ_DBL(expert.matmul_flops, 2 * s * (attn + core + moe), 1e-12,
	    "an expert layer's: 8 routed experts, the shared one, the router");
	EQ_DBL(head.matmul_flops, 2 * s * (h * V + 2 * h * h + attn + core +
	    moe + h * V), 1e-12, "the head's: the logits, and the prediction "
	    "module's projection, expert layer and logits");
	analytic_layers(&g, &lg);
	for (size_t r = 2; r + 1 < lg.n; r++) {
		long want = r <= 3 ? 0 : r == 4 ? -2 : 3;

		if (want == -2 ? lg.l[r].is_copy :
		    !lg.l[r].is_copy || lg.l[r].copy_of != want)
			copies = 0;
	}
	OK(copies && !lg.l[1].is_copy, "layers 1-2 copies of 0, 4-60 of 3");
	layers_release(&lg);
	analytic_release(&g);
	/* a stated imbalance of 1.25: the busiest expert rank's experts
	 * and exchange carry 1.25 times the mean (8 x 1.25 copies a token);
	 * the shared expert and the router do not change */
	m.expert_imbalance = 1.25;
	build(&m, 1, 0, 1, 1, 1, &g);
	expert = layer_sums(&g, 3);
	EQ_DBL(expert.matmul_flops, 2 * s * (attn + core + h * E + (k * 1.25 +
	    1) * 3 * h * fe), 1e-12, "imbalance 1.25: the busiest rank's "
	    "experts");
	EQ_DBL(expert.fwd_bytes[LCOLL_ALL_TO_ALL], 2 * (2 * s * k * 1.25 * h),
	    1e-12, "and its dispatch and combine");
	analytic_release(&g);
	m.expert_imbalance = 1;
	/* t = 8 with sp: the up projections' input gathered at the ranks'
	 * width, 2 bytes a token of q_lora_rank + kv_lora_rank + rope */
	build(&m, 8, 1, 1, 1, 1, &g);
	tp = layer_sums(&g, 0);
	EQ_DBL(tp.fwd_bytes[LCOLL_ALL_GATHER], 2 * s * (qr + kvr + rope) +
	    2 * s * h, 1e-12, "t = 8, sp: the compressed rows gathered "
	    "(and the MLP's input)");
	analytic_release(&g);
}

/*
 * The experts' own tensor split (MoE Parallel Folding), Mixtral 8x7B at
 * t = 2 with sp and e = 2 folded (4,096-token sequences, 2,048 tokens a
 * device, h 4,096, experts 14,336 wide, top-2): with et = t each expert
 * is split over the two tensor ranks, which gather their 2 x 1,024
 * tokens' 2 copies (2 x 2,048 x 2 x 4,096 bytes) before the experts and
 * reduce-scatter after; with et = 1 the two tensor ranks are expert
 * ranks as well (4 of them, 2 whole experts each), each running its own
 * 1,024 tokens' 2,048 copies.  The all-to-all, the FLOPs and the
 * parameters are the same; the gathered copies neither cross nor are
 * kept (2 x (4,096 - 2,048) x 4,096 bytes less).
 */
/*
 * Between the two (Megatron-Core's --expert-tensor-parallel-size 2 beside
 * --tensor-model-parallel-size 4): Mixtral 8x7B at t = 4 with sp, e = 1,
 * one 4,096-token sequence, 1,024 tokens a tensor rank.  With et = 2 the
 * 4 tensor ranks are 2 expert ranks of 2 (4 experts each, split in two);
 * each dispatches its 1,024 tokens' top-2 copies, and the 2 ranks of an
 * expert gather theirs over their own group, 2 x 1,024 x 2 copies of
 * 4,096 x 2 bytes, the expert kinds (with et = t the 4 gather 4 x 1,024 x
 * 2 over t, the tensor kinds); each expert runs 1,024 copies through half
 * its width.  The FLOPs, parameters and all-to-all are et = t's.
 */
static void
test_expert_tensor_group(const struct model_cfg *m)
{
	struct variant full = { 4, 1, 1, 1, 1, 0, 4, 0, 0, ATTN_FUSED }, half = full;
	struct aop_graph gf, gh;
	struct pl_err err;
	struct sums f, hs;

	half.et = 2;
	if (analytic_build(m, NULL, &full, &gf, &err) < 0 ||
	    analytic_build(m, NULL, &half, &gh, &err) < 0) {
		printf("Bail out! mixtral et 2: %s\n", err.msg);
		exit(1);
	}
	f = layer_sums(&gf, 0);
	hs = layer_sums(&gh, 0);
	EQ_DBL(hs.fwd_bytes[LCOLL_EXPERT_ALL_GATHER], 2.0 * 2 * 1024 * 2 *
	    4096, 1e-12, "et = 2: the copies gathered over the 2 ranks of an "
	    "expert");
	EQ_DBL(hs.bwd_bytes[LCOLL_EXPERT_REDUCE_SCATTER], 2.0 * 2 * 1024 * 2 *
	    4096, 1e-12, "and their gradients reduce-scattered back");
	EQ_DBL(f.fwd_bytes[LCOLL_ALL_GATHER] - hs.fwd_bytes[LCOLL_ALL_GATHER],
	    2.0 * 4 * 1024 * 2 * 4096, 1e-12, "none over the 4 tensor ranks "
	    "(et = t gathers 4 x 1,024 x 2 there)");
	EQ_INT(f.fwd[LCOLL_EXPERT_ALL_GATHER], 0, "et = t: no expert kinds");
	EQ_DBL(hs.fwd_bytes[LCOLL_ALL_TO_ALL], f.fwd_bytes[LCOLL_ALL_TO_ALL],
	    1e-12, "the same all-to-all");
	EQ_DBL(hs.matmul_flops, f.matmul_flops, 1e-12, "the same FLOPs");
	EQ_DBL(hs.params, f.params, 1e-12, "the same parameters a device");
	for (size_t i = 0; i < gh.n; i++)
		if (gh.op[i].layer == 0 && strcmp(gh.op[i].name, "expert_up") ==
		    0) {
			EQ_DBL(gh.op[i].gemm_m, 1024, 0, "et = 2: 1,024 copies "
			    "an expert");
			EQ_DBL(gh.op[i].gemm_n, 14336, 0, "through half its gate "
			    "and up");
			EQ_DBL(gh.op[i].gemm_batch, 4, 0, "4 experts a rank");
		}
	/* the experts' gather is the dispatcher's, before the experts (no
	 * product beside it to hide it): a layer's pairs are the
	 * attention's f and g alone, whatever et */
	{
		struct layer_graph lf, lh;

		analytic_layers(&gf, &lf);
		analytic_layers(&gh, &lh);
		EQ_INT(lf.l[1].ntp + lh.l[1].ntp, 4, "the experts' collectives "
		    "paired with no product (2 pairs a layer, the "
		    "attention's)");
		layers_release(&lf);
		layers_release(&lh);
	}
	analytic_release(&gf);
	analytic_release(&gh);
}

static void
test_expert_tensor_split(void)
{
	struct model_cfg m = model_as_configured("mixtral-8x7b");
	struct variant split = { 2, 2, 1, 1, 1, 0, 2, 0, 0, ATTN_FUSED }, whole = split;
	struct variant bad;
	struct aop_graph gs, gw;
	struct pl_err err;
	struct sums s, w;

	whole.et = 1;
	if (analytic_build(&m, NULL, &split, &gs, &err) < 0 ||
	    analytic_build(&m, NULL, &whole, &gw, &err) < 0) {
		printf("Bail out! mixtral et: %s\n", err.msg);
		exit(1);
	}
	s = layer_sums(&gs, 0);
	w = layer_sums(&gw, 0);
	EQ_DBL(s.fwd_bytes[LCOLL_ALL_TO_ALL], 2 * (2.0 * 1024 * 2 * 4096),
	    1e-12, "et = t: each rank dispatches and combines its 1,024 "
	    "tokens' top-2 copies");
	EQ_DBL(w.fwd_bytes[LCOLL_ALL_TO_ALL], s.fwd_bytes[LCOLL_ALL_TO_ALL],
	    1e-12, "et = 1: the same bytes (over 4 expert ranks)");
	EQ_DBL(s.fwd_bytes[LCOLL_ALL_GATHER] - w.fwd_bytes[LCOLL_ALL_GATHER],
	    2.0 * 2048 * 2 * 4096, 1e-12, "et = 1: no gather of the copies "
	    "over the tensor ranks");
	EQ_DBL(s.fwd_bytes[LCOLL_REDUCE_SCATTER] -
	    w.fwd_bytes[LCOLL_REDUCE_SCATTER], 2.0 * 2048 * 2 * 4096, 1e-12,
	    "and no reduce-scatter of their outputs");
	EQ_DBL(w.matmul_flops, s.matmul_flops, 1e-12, "the same FLOPs");
	EQ_DBL(w.params, s.params, 1e-12, "the same parameters a device");
	EQ_DBL(s.act - w.act, 2.0 * (4096 - 2048) * 4096, 1e-12, "the gathered "
	    "copies not kept");
	for (size_t i = 0; i < gw.n; i++)
		if (gw.op[i].layer == 0 && strcmp(gw.op[i].name, "expert_up") == 0) {
			EQ_DBL(gw.op[i].gemm_m, 1024, 0, "et = 1: 1,024 copies an "
			    "expert");
			EQ_DBL(gw.op[i].gemm_n, 2 * 14336, 0, "through the whole "
			    "expert's gate and up");
			EQ_DBL(gw.op[i].gemm_batch, 2, 0, "2 experts a rank");
		}
	analytic_release(&gs);
	analytic_release(&gw);
	bad = whole, bad.sp = 0;
	OK(analytic_build(&m, NULL, &bad, &gw, &err) < 0, "et = 1 without "
	    "sp refused (every tensor rank would hold all tokens)");
	test_expert_tensor_group(&m);
	bad = whole, bad.t = 4, bad.et = 3;
	OK(analytic_build(&m, NULL, &bad, &gw, &err) < 0, "et not dividing "
	    "t refused");
	bad = whole, bad.t = 4, bad.et = 2, bad.sp = 0;
	OK(analytic_build(&m, NULL, &bad, &gw, &err) < 0, "et = 2 below t = "
	    "4 without sp refused");
	bad = whole, bad.t = 4, bad.e = 4;
	OK(analytic_build(&m, NULL, &bad, &gw, &err) < 0, "16 expert ranks "
	    "for 8 experts refused");
	m = model_as_configured("llama2-7b");
	bad = whole, bad.e = 1;
	OK(analytic_build(&m, NULL, &bad, &gw, &err) < 0, "et = 1 on a dense "
	    "model refused");
}

/* A product's forward time less its fixed time, times the rate it ran
 * at (a peak and an efficiency kind): its FLOPs over its quantization,
 * the same for its bf16 and FP8 forms when each runs at its own rate. */
static double
quantized_flops(const struct accel_cfg *a, const struct aop *o, double peak,
    int eff)
{
	return (o->fwd_s - a->gemm_fixed_s) * peak * a->efficiency[eff];
}

/*
 * FP8 (Transformer Engine's linear layers), Llama 2 7B at t = 1, b = 1 on
 * the H100 (n = 4,096 tokens, h 4,096, gated MLP 11,008 wide): a linear
 * product's time less the fixed time is its FLOPs over the FP8 peak and
 * efficiency where bf16's is over bf16's (the same tiles); a cast beside
 * it moves 4 bytes an element of its input forward and of its output
 * gradient backward under delayed scaling (a cast-transpose), 6 under
 * current scaling (an amax pass first); the kept inputs of the four
 * linear layers are FP8, n (3h + f) bytes less a layer; the FP8 copies
 * of a layer's weights are as many bytes as their bf16 ones, 2 (4h^2 +
 * 3hf); the attention core, the router-less head's output product and
 * the norms stay bf16.  A recipe the device lacks is refused.
 */
static void
test_fp8(void)
{
	struct model_cfg m = model_as_configured("llama2-7b");
	struct accel_cfg a, old;
	struct variant v = { 1, 1, 1, 0, 1, 0, 0, FP8_NONE, 0, ATTN_FUSED };
	struct aop_graph g16, g8, gt;
	struct layer_graph l16, l8;
	struct pl_err err;
	const struct aop *o16, *o8;
	double n = 4096, h = 4096, f = 11008;

	if (accel_load(&a, "configs/accelerators/h100-80gb.xml", &err) < 0 ||
	    accel_load(&old, "configs/accelerators/a100-80gb.xml", &err) < 0) {
		printf("Bail out! %s\n", err.msg);
		exit(1);
	}
	if (analytic_build(&m, &a, &v, &g16, &err) < 0)
		goto bail;
	v.fp8 = FP8_DELAYED;
	if (analytic_build(&m, &a, &v, &g8, &err) < 0)
		goto bail;
	v.fp8 = FP8_TENSORWISE;
	if (analytic_build(&m, &a, &v, &gt, &err) < 0)
		goto bail;
	o16 = op_named(&g16, 0, "mlp_up");
	o8 = op_named(&g8, 0, "mlp_up");
	OK(o16 && o8 && o8->fp8 && !o16->fp8, "the MLP's up projection in FP8");
	if (o16 && o8)
		EQ_DBL(quantized_flops(&a, o8, a.peak_fp8_flops_per_s,
		    EFF_FP8_MATMUL), quantized_flops(&a, o16,
		    a.peak_matmul_flops_per_s, EFF_MATMUL), 1e-9,
		    "at the FP8 peak and efficiency");
	o16 = op_named(&g16, 0, "flash_attention");
	o8 = op_named(&g8, 0, "flash_attention");
	OK(o16 && o8 && o16->fwd_s == o8->fwd_s && !o8->fp8, "the attention "
	    "core in bf16");
	o8 = op_named(&g8, 32, "output");
	OK(o8 && !o8->fp8, "the output product in bf16");
	o8 = op_named(&g8, 0, "qkv_cast");
	OK(o8 != NULL, "a cast beside q/k/v");
	if (o8) {
		EQ_DBL(o8->fwd_bytes, 4 * n * h, 1e-12, "delayed: its input "
		    "cast and transposed, 4 bytes an element");
		EQ_DBL(o8->bwd_bytes, 4 * n * 3 * h, 1e-12, "its output "
		    "gradient's likewise");
	}
	{
		struct aop_graph gb;

		v.fp8 = FP8_BLOCKWISE;
		if (analytic_build(&m, &a, &v, &gb, &err) < 0)
			goto bail;
		o16 = op_named(&g16, 0, "mlp_up");
		o8 = op_named(&gb, 0, "mlp_up");
		EQ_DBL(quantized_flops(&a, o8, a.peak_fp8_flops_per_s,
		    EFF_FP8_BLOCK_MATMUL), quantized_flops(&a, o16,
		    a.peak_matmul_flops_per_s, EFF_MATMUL), 1e-9, "blockwise: "
		    "at the block-scaled efficiency");
		OK(a.efficiency[EFF_FP8_BLOCK_MATMUL] <
		    a.efficiency[EFF_FP8_MATMUL], "which the H100 measured "
		    "lower");
		analytic_release(&gb);
	}
	/* a grouped product's operands (Mixtral's 8 experts on one
	 * device) one byte in FP8, the same weight matrix counted as in
	 * bf16 (one expert's): the two memory sides differ by the
	 * operands' second bytes alone */
	{
		struct model_cfg mx = model_as_configured("mixtral-8x7b");
		struct variant ve = { 1, 1, 1, 0, 1, 0, 0, FP8_NONE, 0, ATTN_FUSED };
		struct aop_graph e16, e8;
		const struct aop *x16, *x8;

		if (analytic_build(&mx, &a, &ve, &e16, &err) < 0)
			goto bail;
		ve.fp8 = FP8_DELAYED;
		if (analytic_build(&mx, &a, &ve, &e8, &err) < 0)
			goto bail;
		x16 = op_named(&e16, 0, "expert_up");
		x8 = op_named(&e8, 0, "expert_up");
		EQ_DBL(x16->fwd_bytes - x8->fwd_bytes, x16->gemm_m *
		    x16->gemm_batch * x16->gemm_k + x16->gemm_k * x16->gemm_n,
		    1e-12, "grouped FP8 experts: operands a byte, one weight "
		    "matrix counted as in bf16");
		analytic_release(&e16);
		analytic_release(&e8);
	}
	/* latent attention's two down projections share their input: kept
	 * once in bf16 (2 bytes an element), once by each in FP8 (1 + 1) */
	{
		struct model_cfg ds = model_as_configured("deepseek-v3");
		struct variant vd = { 1, 1, 1, 0, 1, 0, 0, FP8_NONE, 0, ATTN_FUSED };
		struct aop_graph d16, d8;

		if (analytic_build(&ds, &a, &vd, &d16, &err) < 0)
			goto bail;
		vd.fp8 = FP8_BLOCKWISE;
		if (analytic_build(&ds, &a, &vd, &d8, &err) < 0)
			goto bail;
		EQ_DBL(op_named(&d8, 0, "q_down")->activation_bytes +
		    op_named(&d8, 0, "kv_down")->activation_bytes,
		    op_named(&d16, 0, "q_down")->activation_bytes +
		    op_named(&d16, 0, "kv_down")->activation_bytes, 1e-12,
		    "latent attention's shared input: two FP8 copies, one bf16");
		analytic_release(&d16);
		analytic_release(&d8);
	}
	o8 = op_named(&gt, 0, "mlp_down_cast");
	if (o8)
		EQ_DBL(o8->fwd_bytes, 6 * n * f, 1e-12, "tensorwise: an amax "
		    "pass first, 6 bytes an element");
	OK(o8 != NULL, "a cast beside the down projection");
	analytic_layers(&g16, &l16);
	analytic_layers(&g8, &l8);
	EQ_DBL(l16.l[1].activation_bytes - l8.l[1].activation_bytes,
	    n * (3 * h + f), 1e-12, "the four linear layers keep FP8 inputs");
	EQ_DBL(l8.l[1].fp8_weight_bytes, 2 * (4 * h * h + 3 * h * f), 1e-12,
	    "FP8 weight copies, a byte a weight and its transpose's");
	EQ_DBL(l16.l[1].fp8_weight_bytes, 0, 0, "none in bf16");
	EQ_INT(l8.var_fp8, FP8_DELAYED, "the graph records its recipe");
	layers_release(&l16);
	layers_release(&l8);
	analytic_release(&g16);
	analytic_release(&g8);
	analytic_release(&gt);
	v.fp8 = FP8_MXFP8;
	OK(analytic_build(&m, &a, &v, &g8, &err) < 0, "MXFP8 on the H100 "
	    "refused");
	v.fp8 = FP8_DELAYED;
	OK(analytic_build(&m, &old, &v, &g8, &err) < 0, "FP8 on the A100 "
	    "refused");
	return;
bail:
	printf("Bail out! fp8: %s\n", err.msg);
	exit(1);
}

/*
 * torchao's float8 (recipe float8), Llama 3 8B on the H100, one sequence
 * of n = 8,192 tokens (h 4,096, keys and values 1,024 wide each, f
 * 14,336; W = h (h + 2,048) + h^2 + 3 h f weights a block).  One GPU: a
 * cast moves 4 bytes an element (the amax fused into the op before it),
 * forward its input, backward its output gradient; the inputs are kept
 * in bf16 (torchao recasts them) and the weights' float8 copies beside
 * them, W bytes a block more than bf16's; the weights' bytes recorded as
 * the FP8 ones (2 W), the per-operator policy keeping what bf16's keeps.
 * TP 8 with sequence parallelism and torchao's float8 tensor
 * parallelism (float8-tp): the all-gathers in float8, each collective at
 * 3/4 of its bf16 bytes; q/k/v's input cast on the sequence shard before
 * the gather (3 n h / 8) and the gathered copy transposed backward (2 n
 * h); every input kept in float8 as Transformer Engine's, W / 8 of
 * weights beside.  Without it (float8, torchtitan v0.2.2's): the
 * collectives bf16's, the gathered input cast whole (4 n h), kept in
 * bf16 as at t 1.  Refused: experts, and a device without tensorwise
 * products.
 */
static void
test_float8(void)
{
	struct model_cfg m = model_as_configured("llama3-8b");
	struct accel_cfg a, old;
	struct pl_err err;
	double n = 8192, h = 4096, f = 14336;
	double W = h * (h + 2048) + h * h + 3 * h * f;
	struct aop_graph g16, g8, gte, gp;
	struct layer_graph l16, l8, lte, lp;
	const struct aop *o;

	if (accel_load(&a, "configs/accelerators/h100-80gb.xml", &err) < 0 ||
	    accel_load(&old, "configs/accelerators/a100-80gb.xml", &err) < 0)
		goto bail;
	for (int k = 0; k < 2; k++) {
		long t = k ? 8 : 1;
		struct variant v = { t, 1, 1, k, 1, 0, 0, FP8_NONE, 0, ATTN_FUSED };

		if (analytic_build(&m, &a, &v, &g16, &err) < 0)
			goto bail;
		v.fp8 = FP8_FLOAT8_TP;
		if (analytic_build(&m, &a, &v, &g8, &err) < 0)
			goto bail;
		v.fp8 = FP8_FLOAT8;
		if (analytic_build(&m, &a, &v, &gp, &err) < 0)
			goto bail;
		v.fp8 = FP8_DELAYED;
		if (analytic_build(&m, &a, &v, &gte, &err) < 0)
			goto bail;
		analytic_layers(&g16, &l16);
		analytic_layers(&g8, &l8);
		analytic_layers(&gp, &lp);
		analytic_layers(&gte, &lte);
		if (t == 1) {
			o = op_named(&g8, 0, "mlp_down_cast");
			OK(o && o->fwd_bytes == 4 * n * f && o->bwd_bytes ==
			    4 * n * h, "float8: a cast 4 bytes an element of "
			    "its input forward, of its gradient backward");
			EQ_DBL(l8.l[1].activation_bytes -
			    l16.l[1].activation_bytes, W, 1e-12, "float8, one "
			    "GPU: inputs kept in bf16, the float8 weights "
			    "beside");
			EQ_DBL(l8.l[1].fp8_weight_bytes, 2 * W, 1e-12, "float8: "
			    "the block's weights all float8 (2 W bytes)");
			EQ_DBL(l8.l[1].op_sac_bytes, l16.l[1].op_sac_bytes, 0,
			    "float8: the per-operator policy keeps bf16's");
			OK(op_named(&g8, 32, "output") && !op_named(&g8, 32,
			    "output")->fp8, "float8: the output product in "
			    "bf16 (filter_fqns)");
		} else {
			EQ_DBL(l8.l[1].coll_bytes[LCOLL_ALL_GATHER], 0.75 *
			    l16.l[1].coll_bytes[LCOLL_ALL_GATHER], 1e-12,
			    "float8, TP 8: the block's all-gathers at 3/4");
			EQ_DBL(l8.l[1].coll_bytes[LCOLL_REDUCE_SCATTER], 0.75 *
			    l16.l[1].coll_bytes[LCOLL_REDUCE_SCATTER], 1e-12,
			    "float8, TP 8: its reduce-scatters likewise");
			o = op_named(&g8, 0, "qkv_cast");
			OK(o && o->fwd_bytes == 3 * n * h / 8 && o->bwd_bytes ==
			    4 * n * 6144 / 8 + 2 * n * h, "float8, TP 8: q/k/v's "
			    "input cast on its shard, transposed gathered");
			EQ_DBL(l8.l[1].activation_bytes -
			    lte.l[1].activation_bytes, W / 8, 1e-12, "float8, "
			    "TP 8: inputs kept in float8, the weights beside");
			EQ_DBL(lp.l[1].coll_bytes[LCOLL_ALL_GATHER],
			    l16.l[1].coll_bytes[LCOLL_ALL_GATHER], 0, "float8 "
			    "without its tensor parallelism: bf16 collectives");
			o = op_named(&gp, 0, "qkv_cast");
			OK(o && o->fwd_bytes == 4 * n * h, "float8 without it: "
			    "the gathered input cast whole");
			EQ_DBL(lp.l[1].activation_bytes -
			    l16.l[1].activation_bytes, W / 8, 1e-12, "float8 "
			    "without it: inputs kept in bf16, the weights beside");
		}
		layers_release(&l16);
		layers_release(&l8);
		layers_release(&lte);
		layers_release(&lp);
		analytic_release(&g16);
		analytic_release(&g8);
		analytic_release(&gte);
		analytic_release(&gp);
	}
	{
		struct variant v = { 1, 1, 1, 0, 1, 0, 0, FP8_FLOAT8, 0, ATTN_FUSED };
		struct model_cfg mx = model_as_configured("mixtral-8x7b");

		OK(analytic_build(&m, &old, &v, &g8, &err) < 0, "float8 on "
		    "the A100 refused");
		OK(analytic_build(&mx, &a, &v, &g8, &err) < 0 &&
		    strstr(err.msg, "dense blocks"), "float8 with experts "
		    "refused");
	}
	return;
bail:
	printf("Bail out! float8: %s\n", err.msg);
	exit(1);
}

/*
 * Fused attention's efficiencies by pass and dropout, and a block's fixed
 * share, worked by hand for the held-out 1.7B GPT (dropout) and Llama 3
 * 70B (none) on the H100: a sequence of 4,096 tokens, causal, so 2,048
 * keys a block on the average and a share 2,048 / (2,048 + 1,200) of the
 * rate; 16 heads of 128 at t 1 (1.7B) or 8 query heads at t 8 (70B);
 * forward FLOPs 2 s (s/2) (qw + ow) / t, backward 2.5 times; 32 query
 * tiles a head, so 512 or 256 blocks on 132 SMs: 4 waves (u = 512/528)
 * or 2 (256/264).  An accelerator without the new kinds prices both
 * passes at its attention efficiency, whatever the keys.
 */
static void
test_attention_efficiencies(void)
{
	struct accel_cfg a, old;
	struct pl_err err;
	struct model_cfg gpt = model_as_configured("mlm24-gpt-1.7b");
	struct model_cfg llama = model_as_configured("llama3-70b");
	struct aop_graph g;
	double fwd = 2.0 * 4096 * 2048 * (2048 + 2048), u = 512.0 / 528;
	double keys = 2048.0 / (2048 + 1200);
	const struct aop *o;

	if (accel_load(&a, "configs/accelerators/h100-80gb.xml", &err) < 0 ||
	    accel_load(&old, "configs/accelerators/a100-80gb.xml", &err) < 0) {
		printf("Bail out! %s\n", err.msg);
		exit(1);
	}
	OK(gpt.dropout && gpt.flash_attention && !llama.dropout,
	    "the 1.7B has dropout, Llama 3 none");
	build_on(&gpt, &a, 1, 0, &g);
	o = op_named(&g, 0, "flash_attention");
	EQ_DBL(o->fwd_s, fwd / (989.4e12 * 0.349 * u * keys), 1e-12,
	    "1.7B attention forward with dropout at 34.9%, 2,048 keys");
	EQ_DBL(o->bwd_s, 2.5 * fwd / (989.4e12 * 0.517 * u * keys), 1e-12,
	    "1.7B attention backward with dropout at 51.7%, 2,048 keys");
	analytic_release(&g);
	build_on(&llama, &a, 8, 1, &g);
	o = op_named(&g, 0, "flash_attention");
	fwd = 2.0 * 4096 * 2048 * (1024 + 1024);
	u = 256.0 / 264;
	EQ_DBL(o->fwd_s, fwd / (989.4e12 * 0.734 * u * keys), 1e-12,
	    "Llama 3 70B attention forward at 73.4%, 2,048 keys");
	EQ_DBL(o->bwd_s, 2.5 * fwd / (989.4e12 * 0.623 * u * keys), 1e-12,
	    "Llama 3 70B attention backward at 62.3%, 2,048 keys");
	analytic_release(&g);
	EQ_DBL(old.flash_fixed_keys, 0, 0, "A100: no fixed share");
	EQ_DBL(old.efficiency[EFF_FLASH_BACKWARD],
	    old.efficiency[EFF_ATTENTION], 0, "A100: backward as forward");
	EQ_DBL(old.efficiency[EFF_FLASH_DROPOUT_BACKWARD],
	    old.efficiency[EFF_ATTENTION], 0, "A100: dropout as none");
}

static int
by_value(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return (a > b) - (a < b);
}

static double
median_of(double *v, size_t n)
{
	qsort(v, n, sizeof *v, by_value);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/*
 * A table of data/measured: a comment line naming the GPU, then a CSV
 * table, parsed into t.  Returns the buffer t points into (the caller
 * frees it after csvio_release); bails out on a table it cannot read
 * whole.
 */
static char *
read_measured(const char *path, struct csvio_table *t)
{
	struct pl_err err;
	char *buf, *body;
	size_t len;
	FILE *fp = fopen(path, "r");

	buf = fp ? malloc(1 << 16) : NULL;
	len = buf ? fread(buf, 1, (1 << 16) - 1, fp) : 0;
	if (!buf || len == 0 || !feof(fp)) {
		printf("Bail out! %s: cannot read it whole\n", path);
		exit(1);
	}
	fclose(fp);
	buf[len] = '\0';
	for (body = buf; body && *body == '#'; body = strchr(body, '\n'))
		body++;		/* the comment line naming the GPU */
	if (!body) {
		printf("Bail out! %s: no table after its comment\n", path);
		exit(1);
	}
	if (csvio_parse(t, path, body, strlen(body), &err) < 0) {
		printf("Bail out! %s\n", err.msg);
		exit(1);
	}
	return buf;
}

/*
 * FlashAttention-2 (-V attn=fa2): the Llama 3 70B case of
 * test_attention_efficiencies worked by hand again at the H100's FA2
 * efficiencies (36.5% forward, 34.9% backward); refused on a device
 * without an FA2 rate (the A100), on a model whose attention is not
 * fused (BERT-Large) and on latent attention (DeepSeek-V3).
 */
static void
test_fa2(void)
{
	struct accel_cfg h, old;
	struct pl_err err;
	struct model_cfg llama = model_as_configured("llama3-70b");
	struct model_cfg bert = model_as_configured("bertlarge");
	struct model_cfg dsv3 = model_as_configured("deepseek-v3");
	struct variant v = { 8, 1, 1, 1, 1, 0, 0, 0, 0, ATTN_FA2 };
	struct aop_graph g;
	double fwd = 2.0 * 4096 * 2048 * (1024 + 1024), u = 256.0 / 264;
	double keys = 2048.0 / (2048 + 1200);
	const struct aop *o;

	if (accel_load(&h, "configs/accelerators/h100-80gb.xml", &err) < 0 ||
	    accel_load(&old, "configs/accelerators/a100-80gb.xml", &err) < 0 ||
	    analytic_build(&llama, &h, &v, &g, &err) < 0) {
		printf("Bail out! %s\n", err.msg);
		exit(1);
	}
	o = op_named(&g, 0, "flash_attention");
	EQ_DBL(o->fwd_s, fwd / (989.4e12 * 0.365 * u * keys), 1e-12,
	    "Llama 3 70B attention forward under FA2 at 36.5%, 2,048 keys");
	EQ_DBL(o->bwd_s, 2.5 * fwd / (989.4e12 * 0.349 * u * keys), 1e-12,
	    "Llama 3 70B attention backward under FA2 at 34.9%, 2,048 keys");
	analytic_release(&g);
	OK(analytic_build(&llama, &old, &v, &g, &err) < 0 &&
	    strstr(err.msg, "no FlashAttention-2 rate"),
	    "FA2 refused on a device without its rate (A100)");
	v.t = 1;
	v.sp = 0;
	OK(analytic_build(&bert, &h, &v, &g, &err) < 0 &&
	    strstr(err.msg, "prices fused attention"),
	    "FA2 refused on unfused attention (BERT-Large)");
	OK(analytic_build(&dsv3, &h, &v, &g, &err) < 0 &&
	    strstr(err.msg, "are 192 and 128 (latent attention)"),
	    "FA2 refused on latent attention's 192-wide keys over 128-wide "
	    "values (DeepSeek-V3)");
}

/*
 * Both fused kernels against a table not fitted to
 * (data/measured/attention-long-h100-2026-11-28.csv,
 * tests/device/attention-long.py): Llama 3 8B's 32 heads (8 key/value
 * heads) over 8,192 to 131,072 causal tokens on one H100, FlashAttention-2
 * and cuDNN's, forward and backward, priced through the graph at the
 * efficiencies fitted on attention-h100-2026-11-26.csv's 16 shapes of
 * 2,048-32,768 tokens.  Measured: FA2 within 19% (the 8,192-token
 * forward faster than priced), cuDNN's within 18% (the 131,072-token
 * forward slower: a call of a quarter second, under the H100's power
 * cap), FA2 at about half cuDNN's rate throughout.
 */
static void
test_attention_measured(void)
{
	const char *path = "data/measured/attention-long-h100-2026-11-28.csv";
	struct accel_cfg a;
	struct pl_err err;
	struct csvio_table t;
	double errs[2][8];
	size_t n[2] = { 0, 0 };
	int cq, cc, cb, cp, cs;
	char *buf;

	if (accel_load(&a, "configs/accelerators/h100-80gb.xml", &err) < 0) {
		printf("Bail out! h100-80gb\n");
		exit(1);
	}
	buf = read_measured(path, &t);
	if ((cq = csvio_col(&t, "queries", &err)) < 0 ||
	    (cc = csvio_col(&t, "causal", &err)) < 0 ||
	    (cb = csvio_col(&t, "backend", &err)) < 0 ||
	    (cp = csvio_col(&t, "pass", &err)) < 0 ||
	    (cs = csvio_col(&t, "seconds", &err)) < 0) {
		printf("Bail out! %s\n", err.msg);
		exit(1);
	}
	for (size_t r = 0; r < t.nrows; r++) {
		struct model_cfg m = model_as_configured("llama3-8b");
		int fa2 = !strcmp(csvio_cell(&t, r, cb), "flash2");
		struct variant v = { 1, 1, 1, 0, 1, 0, 0, 0, 0,
		    fa2 ? ATTN_FA2 : ATTN_FUSED };
		int bwd = !strcmp(csvio_cell(&t, r, cp), "backward");
		struct aop_graph g;
		const struct aop *o;
		long q, causal;
		double sec;

		/* the causal calls of a whole sequence, the graph's shape
		 * (the ring's unmasked calls are no layer's) */
		if (csvio_long(&t, r, cq, CSVIO_POSITIVE, &q, &err) < 0 ||
		    csvio_long(&t, r, cc, 0, &causal, &err) < 0 ||
		    csvio_double(&t, r, cs, CSVIO_POSITIVE, &sec, &err) < 0) {
			printf("Bail out! %s\n", err.msg);
			exit(1);
		}
		if (!causal || !strncmp(csvio_cell(&t, r, 0), "ring", 4) ||
		    n[fa2] >= 8)
			continue;
		m.seq_len = q;
		if (analytic_build(&m, &a, &v, &g, &err) < 0) {
			printf("Bail out! %s\n", err.msg);
			exit(1);
		}
		o = op_named(&g, 0, "flash_attention");
		errs[fa2][n[fa2]++] = (bwd ? o->bwd_s : o->fwd_s) / sec - 1;
		analytic_release(&g);
	}
	csvio_release(&t);
	free(buf);
	for (int k = 0; k < 2; k++) {
		double worst = 0;

		EQ_INT((long)n[k], 8, k ? "FA2: 4 sequences, 2 passes" :
		    "cuDNN: 4 sequences, 2 passes");
		for (size_t i = 0; i < n[k]; i++)
			worst = fmax(worst, fabs(errs[k][i]));
		printf("# %s over 8,192-131,072 tokens: worst |err| %.1f%%\n",
		    k ? "FA2" : "cuDNN", 100 * worst);
		OK(worst < 0.20, k ? "FA2 over 8,192-131,072 tokens: each "
		    "pass within 20% of the measured" : "cuDNN over "
		    "8,192-131,072 tokens: each pass within 20% of the "
		    "measured");
	}
}

/*
 * The shape model (tiles, waves and the fixed time a product) against
 * products measured on one H100 as a training step runs them: back to
 * back, operands from memory (data/measured/gemm-timing-h100-2026-11-26.csv,
 * tests/device/gemm-timing.py, rows "cold": 75 shapes, m 1,024-8,192, n
 * and k 768-7,168).  The GEMMs' own speed is the config comment's 82.5%
 * of the peak (XLA's table, not this one); FP8's is that times the
 * config's fp8_matmul / matmul efficiencies.  Measured: bf16 median
 * |err| 3.6%, FP8 8.0%.  (Timed one call at a time, the host's launch
 * time made the small products look 1.5-3x slower.)
 */
static void
test_gemm_measured(void)
{
	const char *path = "data/measured/gemm-timing-h100-2026-11-26.csv";
	struct accel_cfg a;
	struct pl_err err;
	struct csvio_table t;
	double err16[100], err8[100], signed16[100], signed8[100];
	size_t n16 = 0, n8 = 0, r;
	int cm, cn, ck, ckind, ctiming, cs;
	char *buf;

	if (accel_load(&a, "configs/accelerators/h100-80gb.xml", &err) < 0) {
		printf("Bail out! h100-80gb\n");
		exit(1);
	}
	buf = read_measured(path, &t);
	if ((cm = csvio_col(&t, "m", &err)) < 0 ||
	    (cn = csvio_col(&t, "n", &err)) < 0 ||
	    (ck = csvio_col(&t, "k", &err)) < 0 ||
	    (ckind = csvio_col(&t, "kind", &err)) < 0 ||
	    (ctiming = csvio_col(&t, "timing", &err)) < 0 ||
	    (cs = csvio_col(&t, "seconds", &err)) < 0) {
		printf("Bail out! %s\n", err.msg);
		exit(1);
	}
	for (r = 0; r < t.nrows; r++) {
		double m, n, k, s, peak, predicted, e;
		const char *kind = csvio_cell(&t, r, ckind);
		int fp8 = !strcmp(kind, "fp8");

		if (strcmp(csvio_cell(&t, r, ctiming), "cold") ||
		    (!fp8 && strcmp(kind, "bf16")) ||
		    csvio_double(&t, r, cm, CSVIO_POSITIVE, &m, &err) < 0 ||
		    csvio_double(&t, r, cn, CSVIO_POSITIVE, &n, &err) < 0 ||
		    csvio_double(&t, r, ck, CSVIO_POSITIVE, &k, &err) < 0 ||
		    csvio_double(&t, r, cs, CSVIO_POSITIVE, &s, &err) < 0)
			continue;
		peak = fp8 ? a.peak_fp8_flops_per_s * 0.825 *
		    a.efficiency[EFF_FP8_MATMUL] / a.efficiency[EFF_MATMUL] :
		    a.peak_matmul_flops_per_s * 0.825;
		predicted = 2 * m * n * k / (peak *
		    analytic_gemm_utilisation(&a, m, n, 1)) + a.gemm_fixed_s;
		e = predicted / s - 1;
		if (fp8 && n8 < 100) {
			signed8[n8] = e;
			err8[n8++] = fabs(e);
		} else if (!fp8 && n16 < 100) {
			signed16[n16] = e;
			err16[n16++] = fabs(e);
		}
	}
	csvio_release(&t);
	free(buf);
	EQ_INT((long)n16, 75, "measured grid: 75 bf16 products");
	EQ_INT((long)n8, 75, "measured grid: 75 FP8 products");
	OK(median_of(err16, n16) < 0.05, "bf16 products by shape: median "
	    "|err| under 5% of the H100's measured times");
	OK(median_of(err8, n8) < 0.10, "FP8 products by shape: median |err| "
	    "under 10% of the H100's measured times");
	OK(fabs(median_of(signed16, n16)) < 0.03 &&
	    fabs(median_of(signed8, n8)) < 0.07,
	    "neither kind priced systematically fast or slow");
}

/*
 * The weights' gradient (the W pass of the zero-bubble schedules) against
 * whole layers timed on one H100 (data/measured/gpt-layer-h100-2026-11-27.csv,
 * tests/device/gpt-layer.py): a backward pass with every gradient, and
 * one with the input's alone, whose difference is the weights' gradient.
 * Four GPT layers of the weak-scaling table at 4,096 tokens with dropout
 * (t 1, 2, 8, 8) and Llama 3's 8B, 70B and 405B at 8,192 tokens (t 1, 8,
 * 8; measured without the rotary embedding, which has no weights).
 * Measured against priced: the input's part within 6% on all seven, the
 * weights' within 7% on the GPT layers but 8-26% slower than measured on
 * Llama's (the large products at 8,192 tokens run at 80% of the peak, the
 * model's efficiency carrying time outside the kernels), so the weights'
 * share of the backward pass, which sets the zero-bubble schedules' bubble
 * and their order, within 0.07 on all seven (34-45% measured).
 */
static void
test_weight_gradient_measured(void)
{
	static const struct {
		const char *name, *model;
		long t, seq;
	} layer[] = {
		{ "mlm24-1.7b", "mlm24-gpt-1.7b", 1, 4096 },
		{ "mlm24-7.1b", "mlm24-gpt-7.1b", 2, 4096 },
		{ "mlm24-70b", "mlm24-gpt-70b", 8, 4096 },
		{ "mlm24-177b", "mlm24-gpt-177b", 8, 4096 },
		{ "llama3-8b", "llama3-8b", 1, 8192 },
		{ "llama3-70b", "llama3-70b", 8, 8192 },
		{ "llama3-405b", "llama3-405b", 8, 8192 },
	};
	const char *path = "data/measured/gpt-layer-h100-2026-11-27.csv";
	struct accel_cfg a;
	struct pl_err err;
	struct csvio_table t;
	double worst_input = 0, worst_share = 0;
	int cname, cdrop, cpass, cs, found = 0;
	char *buf;

	if (accel_load(&a, "configs/accelerators/h100-80gb.xml", &err) < 0) {
		printf("Bail out! h100-80gb\n");
		exit(1);
	}
	buf = read_measured(path, &t);
	if ((cname = csvio_col(&t, "name", &err)) < 0 ||
	    (cdrop = csvio_col(&t, "attention_dropout", &err)) < 0 ||
	    (cpass = csvio_col(&t, "pass", &err)) < 0 ||
	    (cs = csvio_col(&t, "seconds", &err)) < 0) {
		printf("Bail out! %s\n", err.msg);
		exit(1);
	}
	for (size_t i = 0; i < sizeof layer / sizeof layer[0]; i++) {
		struct model_cfg m = model_as_configured(layer[i].model);
		double back = 0, input = 0, w, share;
		struct aop_graph g;
		struct layer_graph lg;

		for (size_t r = 0; r < t.nrows; r++) {
			const char *pass = csvio_cell(&t, r, cpass);
			const char *drop = csvio_cell(&t, r, cdrop);
			double s;

			/* the dropout Megatron's GPT trains with; Llama none */
			if (strcmp(csvio_cell(&t, r, cname), layer[i].name) ||
			    strcmp(drop, m.dropout ? "0.1" : "0") ||
			    csvio_double(&t, r, cs, CSVIO_POSITIVE, &s,
			    &err) < 0)
				continue;
			if (!strcmp(pass, "backward"))
				back = s;
			else if (!strcmp(pass, "backward_input"))
				input = s;
		}
		if (back <= input || input <= 0)
			continue;
		found++;
		m.seq_len = layer[i].seq;
		build_on(&m, &a, layer[i].t, 0, &g);
		analytic_layers(&g, &lg);
		w = lg.l[1].weight_gradient_s;
		share = fabs(w / lg.l[1].backward_s - (back - input) / back);
		worst_share = fmax(worst_share, share);
		worst_input = fmax(worst_input,
		    fabs((lg.l[1].backward_s - w) / input - 1));
		layers_release(&lg);
		analytic_release(&g);
	}
	csvio_release(&t);
	free(buf);
	EQ_INT(found, 7, "measured layers: 7 with both backward passes");
	printf("# worst: input's gradient %.1f%%, weights' share %.3f\n",
	    100 * worst_input, worst_share);
	OK(worst_input < 0.06, "the input's gradient priced within 6% of "
	    "the measured layers'");
	OK(worst_share < 0.07, "the weights' share of the backward pass "
	    "within 0.07 of the measured layers'");
}

/*
 * Llama 3's blocks as torchtitan runs them (compiled, the loss in fp32)
 * against graph-normalize's price of the same, timed on one H100 without
 * a network (data/measured/torchtitan-llama-h100-2026-11-27.csv and
 * torchtitan-llama-profile-h100-2026-11-27.csv, tests/device/
 * torchtitan-llama.py): a step of a few blocks, the output layer and the
 * loss, less the output layer and the loss timed alone, a block.  Llama
 * 3 8B with per-operator checkpointing at the held-out rows' two
 * sequences (priced 4.5% slower than measured); a tensor rank's share
 * of 8B at t 8 and 12 sequences and of 70B at t 8 and 16 sequences,
 * without checkpointing and with every norm over all tokens (0.3% and
 * 2.9% fast).  So the held-out torchtitan rows' gaps (15-46%, priced at
 * the FlashAttention-2 they ran) lie outside the products priced here.
 * And the 8B block again, cuDNN's attention then FlashAttention-2
 * (SDPA=flash) on one H100 the same day
 * (torchtitan-llama-fa2-h100-2026-11-28.csv): 47.1 and 52.9 ms measured,
 * 49.1 and 55.8 priced (graph-normalize -V attn=fa2); what FA2 adds,
 * 5.7 ms measured, 6.7 priced.
 */
static void
test_torchtitan_blocks_measured(void)
{
	static const struct {
		const char *path, *shape, *model, *variant;
		long t, b;
		int attn;
	} row[] = {
		{ "data/measured/torchtitan-llama-h100-2026-11-27.csv",
		    "llama3-8b", "llama3-8b", "compiled-op", 1, 2, ATTN_FUSED },
		{ "data/measured/torchtitan-llama-h100-2026-11-27.csv",
		    "llama3-8b-t8", "llama3-8b", "compiled", 8, 12, ATTN_FUSED },
		{ "data/measured/torchtitan-llama-profile-h100-2026-11-27.csv",
		    "llama3-70b-t8-1", "llama3-70b", "compiled", 8, 16,
		    ATTN_FUSED },
		/* the same day, the same GPU: cuDNN's attention, then FA2 */
		{ "data/measured/torchtitan-llama-fa2-h100-2026-11-28.csv",
		    "llama3-8b", "llama3-8b", "compiled-op", 1, 2, ATTN_FUSED },
		{ "data/measured/torchtitan-llama-fa2-h100-2026-11-28.csv",
		    "llama3-8b", "llama3-8b", "compiled-op+fa2", 1, 2,
		    ATTN_FA2 },
	};
	struct accel_cfg a;
	struct pl_err err;
	double worst = 0, kernel[2][2] = { { 0, 0 }, { 0, 0 } };
	int found = 0;

	if (accel_load(&a, "configs/accelerators/h100-80gb.xml", &err) < 0) {
		printf("Bail out! h100-80gb\n");
		exit(1);
	}
	for (size_t i = 0; i < sizeof row / sizeof row[0]; i++) {
		struct model_cfg m = model_as_configured(row[i].model);
		struct variant v = { row[i].t, 1, 1, 0, row[i].b, 0, 0, 0, 0,
		    row[i].attn };
		struct csvio_table t;
		struct aop_graph g;
		struct layer_graph lg;
		double step = 0, head = 0, blocks = 0, priced, measured;
		int own_head = 0;
		int cshape, cblocks, cvar, cwhat, cval;
		char *buf = read_measured(row[i].path, &t);

		if ((cshape = csvio_col(&t, "shape", &err)) < 0 ||
		    (cblocks = csvio_col(&t, "blocks", &err)) < 0 ||
		    (cvar = csvio_col(&t, "variant", &err)) < 0 ||
		    (cwhat = csvio_col(&t, "what", &err)) < 0 ||
		    (cval = csvio_col(&t, "value", &err)) < 0) {
			printf("Bail out! %s\n", err.msg);
			exit(1);
		}
		for (size_t r = 0; r < t.nrows; r++) {
			const char *what = csvio_cell(&t, r, cwhat);
			double x;

			if (strcmp(csvio_cell(&t, r, cshape), row[i].shape) ||
			    csvio_double(&t, r, cval, CSVIO_POSITIVE, &x,
			    &err) < 0)
				continue;
			/* the head timed in the variant's own run, else the
			 * shape's first (each run times it once) */
			if (!strcmp(what, "head_s") && !own_head &&
			    (head == 0 || !strcmp(csvio_cell(&t, r, cvar),
			    row[i].variant))) {
				head = x;
				own_head = !strcmp(csvio_cell(&t, r, cvar),
				    row[i].variant);
			}
			else if (!strcmp(what, "step_s") && !strcmp(
			    csvio_cell(&t, r, cvar), row[i].variant)) {
				step = x;
				(void)csvio_double(&t, r, cblocks,
				    CSVIO_POSITIVE, &blocks, &err);
			}
		}
		csvio_release(&t);
		free(buf);
		if (step <= head || head <= 0 || blocks <= 0)
			continue;
		found++;
		m.seq_len = 8192;
		if (analytic_build(&m, &a, &v, &g, &err) < 0) {
			printf("Bail out! %s\n", err.msg);
			exit(1);
		}
		analytic_layers(&g, &lg);
		priced = lg.l[1].forward_s + lg.l[1].backward_s;
		if (!strncmp(row[i].variant, "compiled-op", 11))
			priced += lg.l[1].op_sac_recompute_s;
		measured = (step - head) / blocks;
		printf("# %s %s: a block %.1f ms measured, %.1f ms priced\n",
		    row[i].shape, row[i].variant, 1e3 * measured,
		    1e3 * priced);
		worst = fmax(worst, fabs(priced / measured - 1));
		if (i >= 3) {	/* the pair of kernels, measured and priced */
			kernel[row[i].attn][0] = measured;
			kernel[row[i].attn][1] = priced;
		}
		layers_release(&lg);
		analytic_release(&g);
	}
	EQ_INT(found, 5, "torchtitan's blocks: 5 measured");
	OK(worst < 0.08, "torchtitan's compiled blocks priced within 8% of "
	    "one H100's times, with cuDNN's attention or FA2");
	printf("# llama3-8b compiled-op: FA2 over cuDNN's, a block +%.1f ms "
	    "measured, +%.1f ms priced\n", 1e3 * (kernel[1][0] - kernel[0][0]),
	    1e3 * (kernel[1][1] - kernel[0][1]));
	OK(fabs((kernel[1][1] - kernel[0][1]) / (kernel[1][0] -
	    kernel[0][0]) - 1) < 0.25, "what FA2 adds to a block priced "
	    "within 25% of what it added on the H100");
}

int
main(void)
{
	test_activations();
	test_vector_traffic();
	test_recompute_and_flash();
	test_fa2();
	test_attention_measured();
	test_op_sac();
	test_gemm_quantization();
	test_gemm_fixed_time();
	test_weight_gradient_share();
	test_gemm_measured();
	test_weight_gradient_measured();
	test_torchtitan_blocks_measured();
	test_attention_efficiencies();
	test_flops();
	test_conservation();
	test_collectives();
	test_variants();
	test_expert_batch_split();
	test_expert_tensor_split();
	test_fp8();
	test_float8();
	test_latent_and_experts();
	return tap_done();
}
