/* oplayers.c - reduce an operator graph to the per-layer graph. */
#include <stdlib.h>
#include <string.h>

#include "base/csvio.h"
#include "graph/opgraph.h"
#include "graph/sched.h"

struct pair {
	long src, dst;		/* layer ids */
	double bytes;
};

static int
cmp_long(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;

	return (x > y) - (x < y);
}

/* The layer edges: each pair of layers keeps the bytes of the last
 * operator edge seen between them (the artifact's rule). */
static struct pair *
layer_pairs(const struct opgraph *g, size_t *count)
{
	struct pair *p = NULL;
	size_t n = 0, cap = 0;

	for (size_t i = 0; i < g->nedges; i++) {
		long sl = opgraph_op(g, g->edges[i].src)->layer;
		long dl = opgraph_op(g, g->edges[i].dst)->layer;
		size_t k;

		if (sl == dl)
			continue;
		for (k = 0; k < n; k++)
			if (p[k].src == sl && p[k].dst == dl)
				break;
		if (k == n) {
			if (n == cap) {
				cap = cap ? 2 * cap : 16;
				p = xrealloc(p, cap * sizeof(*p));
			}
			p[n].src = sl;
			p[n++].dst = dl;
		}
		p[k].bytes = 2 * g->edges[i].elems;	/* fp16 */
	}
	*count = n;
	return p;
}

static void
layer_sums(const struct opgraph *g, long id, struct layer *L)
{
	for (size_t i = 0; i < g->nops; i++) {
		const struct op *o = &g->ops[i];

		if (o->layer != id)
			continue;
		L->parameter_bytes += 2 * o->param_elems;
		L->dense_parameter_bytes += 2 * o->param_elems;
		L->activation_bytes += 2 * o->act_elems;
		if (!opgraph_scheduled(o))
			continue;
		/* sequential: every scheduled op one after another, each
		 * spread over all cores of its kind */
		L->forward_s += o->fwd_intra_ms / 1000;
		L->backward_s += o->bwd_intra_ms / 1000;
		if (o->coll >= 0)
			L->coll_bytes[o->coll] += 2 * o->act_elems;
	}
}

/* Were any of the layer's operators evaluated? */
static int
evaluated(const struct opgraph *g, long id)
{
	for (size_t i = 0; i < g->nops; i++)
		if (g->ops[i].layer == id && g->ops[i].evaluated)
			return 1;
	return 0;
}

/*
 * The schedule problem of one layer and direction: the scheduled fused ops
 * and which must precede which, through the fused DAG (Nop nodes pass
 * precedence on); backward reverses every edge.
 */
static void
layer_problem(const struct opgraph *g, long layer, int backward,
    struct sched_problem *p, long **ids_out)
{
	size_t nall = 0, n = 0;
	long *all = xmalloc((size_t)(g->maxid + 1) * sizeof(long));
	long *pos = xmalloc((size_t)(g->maxid + 1) * sizeof(long));
	long *ids, *stack;
	unsigned char *seen;

	for (long i = 0; i <= g->maxid; i++)
		pos[i] = -1;
	/* every fused node of the layer: the heads, Nop ones included */
	for (size_t i = 0; i < g->nops; i++)
		if (g->ops[i].layer == layer && g->ops[i].fused_into == g->ops[i].id)
			all[nall++] = g->ops[i].id;
	ids = xmalloc((nall ? nall : 1) * sizeof(long));
	for (size_t i = 0; i < nall; i++)
		if (opgraph_scheduled(opgraph_op(g, all[i]))) {
			pos[all[i]] = (long)n;
			ids[n++] = all[i];
		}
	p->n = n;
	p->op = xcalloc(n ? n : 1, sizeof(struct sched_op));
	p->before = xcalloc(n * n + 1, 1);
	for (size_t j = 0; j < n; j++) {
		const struct op *o = opgraph_op(g, ids[j]);

		p->op[j].kind = o->core == CORE_TC ? SK_TC : o->core == CORE_VC ?
		    SK_VC : o->core == CORE_TCVC ? SK_TCVC : SK_COLL;
		p->op[j].single = backward ? o->bwd_single_ms : o->fwd_single_ms;
		p->op[j].intra = backward ? o->bwd_intra_ms : o->fwd_intra_ms;
	}
	/* reachability from each scheduled node over the fused edges */
	stack = xmalloc((g->nfused + nall + 1) * sizeof(long));
	seen = xcalloc((size_t)g->maxid + 1, 1);
	for (size_t j = 0; j < n; j++) {
		size_t top = 0;

		memset(seen, 0, (size_t)g->maxid + 1);
		stack[top++] = ids[j];
		while (top > 0) {
			long v = stack[--top];

			for (size_t e = 0; e < g->nfused; e++) {
				long from = backward ? g->fused[e].dst : g->fused[e].src;
				long to = backward ? g->fused[e].src : g->fused[e].dst;

				if (from != v || g->fused[e].layer != layer || seen[to])
					continue;
				seen[to] = 1;
				stack[top++] = to;
				if (pos[to] >= 0)
					p->before[j * n + (size_t)pos[to]] = 1;
			}
		}
	}
	free(stack);
	free(seen);
	free(all);
	free(pos);
	*ids_out = ids;
}

static int
ilp_times(const struct opgraph *g, long layer, const struct sched_opts *so,
    struct layer *L, struct pl_err *err)
{
	for (int bwd = 0; bwd < 2; bwd++) {
		struct sched_problem p;
		struct sched_result r;
		long *ids;
		int ret;

		layer_problem(g, layer, bwd, &p, &ids);
		p.tc_cores = so->tc_cores;
		p.vc_cores = so->vc_cores;
		ret = sched_solve(&p, so, &r, err);
		free(p.op);
		free(p.before);
		free(ids);
		if (ret < 0)
			return -1;
		if (bwd) {
			L->backward_s = r.makespan / 1000;
			L->backward_bound_s = r.bound / 1000;
		} else {
			L->forward_s = r.makespan / 1000;
			L->forward_bound_s = r.bound / 1000;
		}
		L->schedule_optimal &= r.optimal;
		{
			char *was = L->schedule;

			L->schedule = xasprintf("%s%s%s:%s[%s]", was ? was : "",
			    bwd ? ";" : "", bwd ? "bwd" : "fwd",
			    r.optimal ? "optimal" : "gap", r.status);
			free(was);
		}
	}
	return 0;
}

static int
cmp_edge(const void *a, const void *b)
{
	const struct layer_edge *x = a, *y = b;

	if (x->dst != y->dst)
		return x->dst < y->dst ? -1 : 1;
	return (x->src > y->src) - (x->src < y->src);
}

int
opgraph_to_layers(const struct opgraph *g, long nlayers, int timing,
    const struct sched_opts *so, struct layer_graph *out, struct pl_err *err)
{
	long *ids = xmalloc(g->nops * sizeof(long)), ntraced = 0, nblocks = 0;
	size_t npairs, n, ne = 0;
	struct pair *pairs;
	int expand;

	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < g->nops; i++)
		ids[i] = g->ops[i].layer;
	qsort(ids, g->nops, sizeof(long), cmp_long);
	for (size_t i = 0; i < g->nops; i++)
		if (i == 0 || ids[i] != ids[i - 1])
			ids[ntraced++] = ids[i];
	for (long i = 0; i < ntraced; i++)
		if (ids[i] >= 0)
			nblocks++;
	expand = nblocks == 1 && ids[ntraced - 1] == 0 && nlayers > 1;
	if (!expand && nlayers > 0 && nblocks != nlayers) {
		free(ids);
		return pl_errf(err, g->ops_file, 0, "the graph has %ld transformer "
		    "layers, the model %ld", nblocks, nlayers);
	}
	n = (size_t)ntraced + (expand ? (size_t)nlayers - 1 : 0);
	out->file = xstrdup(g->dir);
	out->scheduled = timing == LAYER_TIME_ILP;
	out->n = n;
	out->l = xcalloc(n, sizeof(struct layer));
	for (long i = 0; i < ntraced; i++) {
		struct layer *L = &out->l[i];

		L->id = ids[i];
		snprintf(L->kind, sizeof(L->kind), "%s", ids[i] < 0 ?
		    "embedding" : "transformer");
		layer_sums(g, ids[i], L);
		if (timing == LAYER_TIME_ILP && evaluated(g, ids[i])) {
			L->schedule_optimal = 1;
			if (ilp_times(g, ids[i], so, L, err) < 0) {
				free(ids);
				layers_release(out);
				return -1;
			}
		}
	}
	/* unevaluated layers repeat layer 0 (rows are sorted: -1, 0, 1...) */
	for (long i = 0; i < ntraced; i++) {
		long zero = layers_index(out, 0);

		if (ids[i] <= 0 || evaluated(g, ids[i]))
			continue;
		if (zero < 0 || !evaluated(g, 0)) {
			pl_errf(err, g->ops_file, 0, "layer %ld has no "
			    "estimates and there is no evaluated layer 0 to copy",
			    ids[i]);
			free(ids);
			layers_release(out);
			return -1;
		}
		layers_copy_row(&out->l[i], &out->l[zero]);
		out->l[i].id = ids[i];
		out->l[i].is_copy = 1;
		out->l[i].copy_of = 0;
	}
	for (size_t i = (size_t)ntraced; i < n; i++) {
		layers_copy_row(&out->l[i], &out->l[ntraced - 1]); /* layer 0 */
		out->l[i].id = (long)(i - (size_t)ntraced) + 1;
		out->l[i].is_copy = 1;
		out->l[i].copy_of = 0;
	}
	free(ids);

	pairs = layer_pairs(g, &npairs);
	out->e = xcalloc(npairs * (expand ? (size_t)nlayers : 1) + 1,
	    sizeof(struct layer_edge));
	for (size_t k = 0; k < npairs; k++) {
		out->e[ne].src = (size_t)layers_index(out, pairs[k].src);
		out->e[ne].dst = (size_t)layers_index(out, pairs[k].dst);
		out->e[ne++].bytes = pairs[k].bytes;
		/* copies take layer 0's incoming edges from their predecessor */
		for (long c = 1; expand && pairs[k].dst == 0 && c < nlayers; c++) {
			long src = pairs[k].src == -1 ? c - 1 : pairs[k].src;

			out->e[ne].src = (size_t)layers_index(out, src);
			out->e[ne].dst = (size_t)layers_index(out, c);
			out->e[ne++].bytes = pairs[k].bytes;
		}
	}
	free(pairs);
	out->nedges = ne;
	qsort(out->e, ne, sizeof(struct layer_edge), cmp_edge);
	for (size_t k = 0; k < ne; k++) {
		if (out->e[k].src >= out->e[k].dst) {
			pl_errf(err, g->edges_file, 0, "layer edge %ld -> %ld "
			    "points backwards", out->l[out->e[k].src].id,
			    out->l[out->e[k].dst].id);
			layers_release(out);
			return -1;
		}
		out->l[out->e[k].dst].input_bytes += out->e[k].bytes;
	}
	return 0;
}
