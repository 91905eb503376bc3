/* mem.c - the per-stage memory model of Eq. 1. */
#include "mem.h"

void
mem_stage_breakdown(const struct layer_graph *g, const struct mem_stage *s,
    int optimizer, struct mem_breakdown *out)
{
	double params = 0, acts = 0;

	for (size_t i = s->first; i <= s->last; i++) {
		params += g->l[i].parameter_bytes;
		acts += g->l[i].activation_bytes;
	}
	mem_breakdown_of(params, acts, s->recompute ?
	    layers_boundary_input(g, s->first, s->last) : acts, s, optimizer,
	    out);
}

void
mem_breakdown_of(double params, double acts, double stash_unit,
    const struct mem_stage *s, int optimizer, struct mem_breakdown *out)
{
	double z = (double)s->zero_degree;

	out->weights = params;
	out->gradients = params;
	out->optimizer = optimizer == OPT_ADAM ? 6 * params : 0;
	if (s->zero_stage >= 1)
		out->optimizer /= z;
	if (s->zero_stage >= 2)
		out->gradients /= z;
	if (s->zero_stage >= 3)
		out->weights /= z;
	if (s->schedule == SCHED_GPIPE)
		out->inflight = s->microbatches;
	else
		out->inflight = s->position_from_end < s->microbatches ?
		    s->position_from_end : s->microbatches;
	out->activations = acts;
	out->stash = (double)(out->inflight - 1) * stash_unit;
	out->total = out->weights + out->gradients + out->optimizer +
	    out->activations + out->stash;
}
