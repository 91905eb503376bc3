/* summary.c - a plan in a person's terms (summary.h). */
#include <stdlib.h>
#include <string.h>

#include "export/summary.h"

#define GiB 1073741824.0

/* A rate for a person: four digits, or all of them from 1,000 on (no
 * exponent below 10^15). */
static const char *
rate(char *buf, size_t len, double v)
{
	snprintf(buf, len, v >= 1000 && v < 1e15 ? "%.0f" : "%.4g", v);
	return buf;
}

long
summary_seq_len(const struct layer_graph *g, const struct model_cfg *model)
{
	char v[32];

	if (model)
		return model->seq_len;
	if (g->model_config && config_line_field(g->model_config, "seq_len",
	    v, sizeof v) == 0)
		return atol(v);
	return 0;
}

void
summary_layout(char *buf, size_t len, const struct plan *p,
    long global_batch)
{
	const struct layer_graph *g = p->g;
	long t = layers_var(g, g->var_t, 1), eb = layers_ep_samples(g);
	long c = layers_var(g, g->var_c, 1), b = layers_var(g, g->var_b, 1);
	int sp = g->has_variant && g->var_sp;
	/* in Megatron's terms: a fold's expert ranks are context ranks, a
	 * split's data-parallel ranks with b/e samples each (a split with a
	 * fold: both) */
	long cp = layers_context_ranks(g), dp = p->d * eb;
	long mb = b / eb, z = 1;
	char rc[64], vp[32] = "", ep[48] = "", zero[64] = "", hsdp[320] = "";
	char efsdp[128] = "";

	for (int i = 0; i < p->nstages; i++)
		if (p->stage[i].z > z)
			z = p->stage[i].z;
	if (p->recompute == RC_FULL && p->recompute_layers > 0)
		snprintf(rc, sizeof rc, "block, %ld layers a model chunk",
		    p->recompute_layers);
	else
		snprintf(rc, sizeof rc, "%s", p->recompute == RC_FULL ? "full" :
		    p->recompute == RC_SELECTIVE ? "selective" :
		    p->recompute == RC_OP ? "per operator (torchtitan's "
		    "selective op)" : "none");
	if (p->v > 1)
		snprintf(vp, sizeof vp, ", VP %ld", p->v);
	if (layers_expert_ranks(g) > 1)
		snprintf(ep, sizeof ep, ", EP %ld (ETP %ld)",
		    layers_expert_ranks(g), layers_expert_t(g));
	if (z > 1)
		snprintf(zero, sizeof zero, "; ZeRO over %ld copies of a stage",
		    z);
	/* the experts' shard group: the replicas' (or a shard group's) c
	 * devices of an expert's rank (plan.c, fsdp_shards_expert) */
	if (p->fsdp && layers_expert_ranks(g) > 1)
		snprintf(efsdp, sizeof efsdp, "; an expert's weights sharded "
		    "over the %ld devices of its expert rank (torchtitan's "
		    "efsdp)", (p->fsdp_shard > 0 ? p->fsdp_shard : p->d) * c);
	if (p->fsdp && p->fsdp_shard > 0)
		snprintf(hsdp, sizeof hsdp, "HSDP: FSDP2 over groups of %ld "
		    "DP ranks and their CP ranks, the groups' gradients "
		    "all-reduced across %ld replicas (%s; torchtitan's, not "
		    "Megatron-LM's)", p->fsdp_shard * eb, p->d / p->fsdp_shard,
		    p->fsdp == PLAN_FSDP_KEPT ? "gathered once a step and "
		    "kept" : "each block gathered for every micro-batch");
	snprintf(buf, len, "TP %ld%s, PP %d%s, CP %ld%s, DP %ld; micro-batch "
	    "%ld, global batch %ld (%ld micro-batches a data-parallel rank); "
	    "recomputation %s; %s%s%s%s", t, sp ? " (sequence parallel)" : "",
	    p->nstages, vp, cp, ep, dp, mb, global_batch,
	    mb * dp > 0 ? (global_batch + mb * dp - 1) / (mb * dp) : 0, rc,
	    p->fsdp && p->fsdp_shard > 0 ? hsdp :
	    p->fsdp == PLAN_FSDP_RESHARD ? "FSDP2 over DP and CP (weights, "
	    "gradients and Adam's states sharded; each block gathered for "
	    "every micro-batch's forward and backward pass; torchtitan's, "
	    "not Megatron-LM's)" : p->fsdp == PLAN_FSDP_KEPT ? "FSDP2 over "
	    "DP and CP (weights, gradients and Adam's states sharded; the "
	    "weights gathered once a step and kept, the gradients reduced "
	    "once; torchtitan's with pipelining, not Megatron-LM's)" :
	    p->distopt ? "distributed optimizer (Adam's states over DP)" :
	    "optimizer states replicated", efsdp, zero, p->deepep &&
	    layers_expert_ranks(g) > 1 ? "; tokens dispatched by DeepEP (a "
	    "node once, then NVLink)" : "");
	if (FP8_TORCHAO(g->var_fp8)) {
		size_t at = strlen(buf);

		snprintf(buf + at, len > at ? len - at : 0, "; torchao's "
		    "float8 linear layers (tensorwise dynamic scaling, cast "
		    "every micro-batch)%s", p->fp8_param_gather ? ", their "
		    "weights gathered by FSDP2 in float8" : "");
	} else if (g->var_fp8 != FP8_NONE) {
		size_t at = strlen(buf);

		snprintf(buf + at, len > at ? len - at : 0, "; FP8 linear "
		    "layers (%s scaling)%s", fp8_recipe_words[g->var_fp8],
		    p->fp8_param_gather ? ", their weights kept and gathered "
		    "in FP8" : "");
	}
	if (g->var_attn == ATTN_FA2) {
		size_t at = strlen(buf);

		snprintf(buf + at, len > at ? len - at : 0, "; attention by "
		    "FlashAttention-2 (priced at its rate, graph-normalize -V "
		    "attn=fa2)");
	}
	if (p->ep_overlap) {
		size_t at = strlen(buf);

		snprintf(buf + at, len > at ? len - at : 0, "; the experts' "
		    "exchange beside another micro-batch's compute "
		    "(Megatron-Core's combined 1F1B)");
	}
	if (p->schedule != PLAN_1F1B) {
		static const char *const what[PLAN_NSCHED] = { "", "ZB-H1 (1F1B "
		    "with the weights' gradients split off to fill the drain",
		    "ZB-V (the zero-bubble V: a stage's two chunks the V's "
		    "arms, the weights' gradients split off", "DualPipeV "
		    "(DeepSeek's cut-in-half DualPipe: a stage's two chunks "
		    "the V's arms, forward and backward passes overlapped in "
		    "pairs" };
		size_t at = strlen(buf);

		snprintf(buf + at, len > at ? len - at : 0, "; schedule %s; "
		    "not Megatron-LM's)", what[p->schedule]);
	}
	/* where the placements differ: two stages and two replicas */
	if (p->nstages > 1 && p->d > 1) {
		size_t at = strlen(buf);

		snprintf(buf + at, len > at ? len - at : 0, "; %s",
		    p->stage_major ? "each stage's replicas side by side "
		    "(stage-major: Megatron's default rank order, torchtitan's "
		    "mesh)" : "a replica's stages one after another "
		    "(Megatron's --use-tp-pp-dp-mapping)");
	}
}

void
summary_write(FILE *fp, const char *prefix, const struct plan_meta *m,
    const struct summary_info *si, const struct plan *p,
    const struct plan_result *r)
{
	const struct stage_cost *bn = &r->stage[r->bottleneck];
	long s = summary_seq_len(p->g, si->model), n = r->devices_used;
	double peak = 0, cap = m->memory_bytes;
	double mb = (double)r->m, v = (double)(p->v > 1 ? p->v : 1);
	int peak_stage = 0;
	char layout[512], num[32];

	for (int i = 0; i < r->nstages; i++)
		if (r->stage[i].mem.total > peak) {
			peak = r->stage[i].mem.total;
			peak_stage = i;
		}
	summary_layout(layout, sizeof layout, p, m->global_batch);
	fprintf(fp, "%s%s", prefix, m->label);
	/* the model's size as its card gives it: a mixture's active count,
	 * and what the prediction modules add to the total */
	if (si->model) {
		const struct model_cfg *mc = si->model;
		double mtp = model_mtp_parameters(mc);

		fprintf(fp, " (%.4gB parameters", model_parameters(mc) / 1e9);
		if (mtp > 0)
			fprintf(fp, ", %.3gB of them in the prediction "
			    "modules", mtp / 1e9);
		if (mc->experts > 1)
			fprintf(fp, ", %.4gB active a token",
			    model_active_parameters(mc) / 1e9);
		fputc(')', fp);
	}
	fprintf(fp, " on %s: %ld GPUs, a global batch of %ld samples\n",
	    m->network, n, m->global_batch);
	fprintf(fp, "%splan (%s terms): %s\n", prefix, p->fsdp ? "torchtitan's" :
	    "Megatron-LM's", layout);
	fprintf(fp, "%sstep %.4g s: %s samples/s", prefix, r->step_s,
	    rate(num, sizeof num, r->throughput_samples_per_s));
	if (s > 0)
		fprintf(fp, ", %s tokens/s a GPU (%ld-token sequences)",
		    rate(num, sizeof num, r->throughput_samples_per_s *
		    (double)s / (double)n), s);
	fputc('\n', fp);
	if (m->straggler_factor > 0)
		fprintf(fp, "%severy GPU priced at the expected slowest of the "
		    "job's (-J): its times %.4gx the median device's\n", prefix,
		    m->straggler_factor);
	if (si->model && si->accel && si->accel->peak_matmul_flops_per_s > 0) {
		double peak_rate = si->accel->peak_matmul_flops_per_s;
		double share = p->recompute != RC_FULL ? 0 :
		    p->recompute_layers > 0 ? (double)p->recompute_layers *
		    p->nstages * v / (double)si->model->layers : 1;
		double fm = model_step_flops(si->model, (double)m->global_batch,
		    0, 0);
		double fh = model_step_flops(si->model, (double)m->global_batch,
		    share < 1 ? share : 1, p->recompute == RC_SELECTIVE);

		char num2[32];

		if (p->recompute == RC_OP)	/* its reruns: not counted */
			fprintf(fp, "%sMFU %.1f%% of %.4g TFLOP/s a GPU "
			    "(Megatron-LM's FLOP count, %s PFLOP a step; HFU "
			    "is not counted under per-operator "
			    "checkpointing)\n", prefix, 100 * fm / (r->step_s *
			    (double)n * peak_rate), peak_rate / 1e12, rate(num,
			    sizeof num, fm / 1e15));
		else
			fprintf(fp, "%sMFU %.1f%%, HFU %.1f%% of %.4g TFLOP/s "
			    "a GPU (Megatron-LM's FLOP count, %s PFLOP a step; "
			    "HFU's with the recomputed passes, %s)\n", prefix,
			    100 * fm / (r->step_s * (double)n * peak_rate),
			    100 * fh / (r->step_s * (double)n * peak_rate),
			    peak_rate / 1e12, rate(num, sizeof num, fm / 1e15),
			    rate(num2, sizeof num2, fh / 1e15));
	} else
		fprintf(fp, "%sMFU and HFU: the model's FLOPs need its config "
		    "(-A model.xml)\n", prefix);
	fprintf(fp, "%smemory: %.1f GiB a GPU at its peak (stage %d), %.1f GiB "
	    "under the cap of %.1f GiB", prefix, peak / GiB, peak_stage,
	    (cap - peak) / GiB, cap / GiB);
	if (si->reserve_bytes > 0 && si->accel)
		fprintf(fp, " (%.0f GiB less %.1f GiB for the CUDA context, "
		    "NCCL and fragmentation)", si->accel->memory_bytes / GiB,
		    si->reserve_bytes / GiB);
	fprintf(fp, "%s\n", r->fits ? "" : "; DOES NOT FIT");
	/* the split schedules' step (plan_split_step) takes the slowest
	 * passes of any stage: what is not the bottleneck's m loads or the
	 * sync */
	fprintf(fp, "%sbottleneck: stage %d of %d; the step = %ld micro-batches "
	    "of it (compute %.4g s, collectives %.4g s, p2p %.4g s) + %s %.4g "
	    "s + exposed sync %.4g s\n", prefix, r->bottleneck, r->nstages,
	    r->m, mb * bn->compute_s, mb * (bn->collective_s + bn->zero_s),
	    mb * (bn->p2p_in_s + bn->p2p_out_s), p->schedule ==
	    PLAN_DUALPIPEV ? "DualPipeV's fill and drain and the other "
	    "stages' slower passes, less what its overlapped pairs hide" :
	    p->schedule != PLAN_1F1B ? "the schedule's fill and drain and "
	    "the other stages' slower passes" : "the pipeline's fill and "
	    "drain", p->schedule != PLAN_1F1B ?
	    r->step_s - mb * r->max_load_s - r->max_sync_s :
	    (double)(r->nstages - 1) / v * r->max_load_s, r->max_sync_s);
	/* what the held-out mixtures lack, said where it applies:
	 * Megatron's dispatchers (its all-to-all, DeepEP's) read the tokens'
	 * counts on the host for their exchange and grouped products, at
	 * any EP; torchtitan's only for its exchange (EP > 1) */
	if (layers_has_experts(p->g) && (!p->fsdp ||
	    layers_expert_ranks(p->g) > 1))
		fprintf(fp, "%snot priced: the host's time after each mixture "
		    "layer's dispatcher waits for its tokens' counts (the "
		    "held-out mixture runs without CUDA graphs took longer "
		    "than priced by about that: docs/model.md, \"Held-out: a "
		    "mixture of experts\")\n", prefix);
}

/* The layout in Megatron-LM's names, short: "TP 2 SP, PP 4, VP 2, CP 1,
 * EP 1, DP 16, mb 1, recompute none, dist-opt". */
static void
layout_short(char *buf, size_t len, const struct plan *p)
{
	const struct layer_graph *g = p->g;
	long t = layers_var(g, g->var_t, 1), eb = layers_ep_samples(g);
	long b = layers_var(g, g->var_b, 1), z = 1;
	int sp = g->has_variant && g->var_sp;
	long cp = layers_context_ranks(g), dp = p->d * eb;
	char vp[32] = "", zero[48] = "";

	for (int i = 0; i < p->nstages; i++)
		if (p->stage[i].z > z)
			z = p->stage[i].z;
	if (p->v > 1)
		snprintf(vp, sizeof vp, ", VP %ld", p->v);
	if (z > 1)
		snprintf(zero, sizeof zero, ", ZeRO x%ld", z);
	snprintf(buf, len, "TP %ld%s, PP %d%s, CP %ld, EP %ld%s%.0ld, DP %ld, "
	    "mb %ld, recompute %s%s%s", t, sp ? " SP" : "", p->nstages, vp, cp,
	    layers_expert_ranks(g), layers_expert_t(g) != t ? " ETP " : "",
	    layers_expert_t(g) != t ? layers_expert_t(g) : 0, dp, b / eb, p->recompute == RC_FULL ? (p->recompute_layers >
	    0 ? "block" : "full") : p->recompute == RC_SELECTIVE ?
	    "selective" : p->recompute == RC_OP ? "op" : "none", p->fsdp == PLAN_FSDP_RESHARD ? ", FSDP2" :
	    p->fsdp == PLAN_FSDP_KEPT ? ", FSDP2 kept" : p->distopt ?
	    ", dist-opt" : "", zero);
	if (p->fsdp && p->fsdp_shard > 0) {
		size_t at = strlen(buf);

		snprintf(buf + at, len > at ? len - at : 0, " (HSDP %ld x %ld)",
		    p->d / p->fsdp_shard, p->fsdp_shard * eb);
	}
	if (g->var_fp8 != FP8_NONE) {
		size_t at = strlen(buf);

		snprintf(buf + at, len > at ? len - at : 0, ", FP8 %s%s",
		    fp8_recipe_words[g->var_fp8], p->fp8_param_gather ?
		    " fp8-gather" : "");
	}
	if (g->var_attn == ATTN_FA2) {
		size_t at = strlen(buf);

		snprintf(buf + at, len > at ? len - at : 0, ", FA2");
	}
	if (p->schedule != PLAN_1F1B) {
		static const char *const title[PLAN_NSCHED] = { "", "ZB-H1",
		    "ZB-V", "DualPipeV" };
		size_t at = strlen(buf);

		snprintf(buf + at, len > at ? len - at : 0, ", %s",
		    title[p->schedule]);
	}
}

void
summary_ranked(FILE *fp, const char *prefix, const struct plan *plans,
    const struct plan_result *results, size_t n)
{
	char layout[320], num[32];
	int zb = 0;

	if (n < 2)
		return;
	for (size_t k = 0; k < n; k++)
		zb |= plans[k].schedule != PLAN_1F1B;
	fprintf(fp, "%sthe %zu fastest layouts (exactly; each with its best "
	    "recomputation, optimizer%s):\n", prefix, n, zb ? ", split and "
	    "schedule" : " and split");
	fprintf(fp, "%s%4s %10s %7s %10s %8s %10s  %s\n", prefix, "rank",
	    "step_s", "vs_1st", "samples/s", "peak_GiB", "bottleneck",
	    "layout");
	for (size_t k = 0; k < n; k++) {
		const struct plan_result *r = &results[k];
		char bn[24];

		layout_short(layout, sizeof layout, &plans[k]);
		snprintf(bn, sizeof bn, "%d of %d", r->bottleneck, r->nstages);
		fprintf(fp, "%s%4zu %10.4g %6.1f%% %10s %8.1f %10s  %s\n",
		    prefix, k + 1, r->step_s, 100 * (r->step_s /
		    results[0].step_s - 1), rate(num, sizeof num,
		    r->throughput_samples_per_s), planio_peak_memory(r) / GiB,
		    bn, layout);
	}
}
