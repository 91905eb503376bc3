/* mem.c - the per-stage memory model of Eq. 1 (mem.h). */
#include <math.h>

#include "model/mem.h"

double
mem_row_kept(const struct layer *L, int rc)
{
	return rc == RC_FULL ? L->checkpoint_bytes : rc == RC_SELECTIVE ?
	    L->selective_bytes : rc == RC_OP ? L->op_sac_bytes :
	    L->activation_bytes;
}

double
mem_row_rerun_s(const struct layer *L, int rc)
{
	return rc == RC_FULL ? L->recompute_s : rc == RC_SELECTIVE ?
	    L->selective_recompute_s : rc == RC_OP ? L->op_sac_recompute_s :
	    0;
}

void
mem_totals_of(const struct layer_graph *g, size_t first, size_t last, int rc,
    struct mem_totals *t)
{
	t->params = t->dense_params = t->kept = t->working = 0;
	t->fp8_weights = 0;
	for (size_t i = first; i <= last; i++) {
		const struct layer *L = &g->l[i];
		double kept = mem_row_kept(L, rc);

		t->params += L->parameter_bytes;
		/* Transformer Engine's FP8 copies (torchao's float8 casts
		 * a micro-batch, kept as activations) */
		if (!FP8_TORCHAO(g->var_fp8))
			t->fp8_weights += L->fp8_weight_bytes;
		t->dense_params += L->dense_parameter_bytes;
		t->kept += kept;
		t->working = fmax(t->working, L->activation_bytes - kept);
	}
}

double
mem_inflight(const struct mem_stage *s)
{
	long k = s->position_from_end, m = s->microbatches;
	long v = s->virtual_stages > 1 ? s->virtual_stages : 1;

	if (s->schedule == SCHED_GPIPE)
		return (double)m;
	if (s->held_chunks > 0)
		return (double)(s->held_chunks < m * v ? s->held_chunks :
		    m * v) / (double)v;
	if (v > 1) {
		long chunks = 2 * (k - 1) + (v - 1) * s->pipeline_stages + 1;

		if (chunks > m * v)
			chunks = m * v;
		return (double)chunks / (double)v;
	}
	return (double)(k < m ? k : m);
}

void
mem_stage_breakdown(const struct layer_graph *g, const struct mem_stage *s,
    int optimizer, struct mem_breakdown *out)
{
	struct mem_totals t;

	mem_totals_of(g, s->first, s->last, s->recompute, &t);
	mem_breakdown_of(&t, s, optimizer, out);
}

double
mem_sharded_params(const struct mem_stage *s, double params,
    double dense_params)
{
	double zdiv = s->zero_stage >= 1 ? (double)s->zero_degree : 1;

	if (s->fsdp)	/* every parameter over FSDP2's shards */
		return dense_params / fmax(1, s->fsdp_shards) +
		    (params - dense_params) / fmax(1, s->fsdp_shards_expert >
		    0 ? s->fsdp_shards_expert : s->fsdp_shards);
	return dense_params / fmax(zdiv, s->optimizer_shards_dense) +
	    (params - dense_params) / fmax(zdiv, s->optimizer_shards_expert);
}

void
mem_breakdown_of(const struct mem_totals *t, const struct mem_stage *s,
    int optimizer, struct mem_breakdown *out)
{
	double z = (double)s->zero_degree;
	double grad = s->grad_bytes_per_param > 0 ? s->grad_bytes_per_param : 2;

	out->weights = t->params + t->fp8_weights;
	out->gradients = t->params * grad / 2 *
	    (s->grad_copies > 1 ? s->grad_copies : 1);
	out->optimizer = optimizer == OPT_ADAM ?
	    6 * mem_sharded_params(s, t->params, t->dense_params) : 0;
	if (s->zero_stage >= 2)
		out->gradients /= z;
	if (s->zero_stage >= 3)
		out->weights /= z;
	if (s->fsdp) {
		/* 2 bytes a parameter in params: the fp32 shards are twice
		 * that over the shards, Adam's moments four times */
		double shard = mem_sharded_params(s, t->params,
		    t->dense_params);

		out->weights = 2 * shard + s->fsdp_gathered_bytes;
		out->gradients = s->fsdp_grad_bytes;
		out->optimizer = optimizer == OPT_ADAM ? 4 * shard : 0;
	}
	out->inflight = mem_inflight(s);
	out->kept = t->kept;
	out->activations = t->kept + t->working;
	out->pair_layer = s->pair_layer_bytes;
	out->stash = (out->inflight - 1) * t->kept + out->pair_layer;
	out->total = out->weights + out->gradients + out->optimizer +
	    out->activations + out->stash;
}
