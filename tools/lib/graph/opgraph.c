/* opgraph.c - read the artifact's operator graphs; reduce them to layers. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/csvio.h"
#include "graph/opgraph.h"

static const char *const core_names[] = {
	"Nop", "TC", "VC", "TCandVC", "collective", "absorbed", "isolated",
	"not_evaluated", NULL
};

static char *
path_join(const char *dir, const char *name)
{
	size_t n = strlen(dir) + strlen(name) + 2;
	char *p = xmalloc(n);

	snprintf(p, n, "%s/%s", dir, name);
	return p;
}

const struct op *
opgraph_op(const struct opgraph *g, long id)
{
	if (id < 0 || id > g->maxid || g->index[id] < 0)
		return NULL;
	return &g->ops[g->index[id]];
}

int
opgraph_scheduled(const struct op *o)
{
	return o->fused_into == o->id && (o->core == CORE_TC ||
	    o->core == CORE_VC || o->core == CORE_TCVC || o->core == CORE_COLL);
}

/* AllReduceFwd, AllReduceBwd, AllReduce, AllGather, ReduceScatter,
 * AllToAll: Megatron's mapping functions as the export names them. */
static int
collective_kind(const char *desc)
{
	if (strncmp(desc, "AllReduce", 9) == 0)
		return LCOLL_ALL_REDUCE;
	if (strcmp(desc, "AllGather") == 0)
		return LCOLL_ALL_GATHER;
	if (strcmp(desc, "ReduceScatter") == 0)
		return LCOLL_REDUCE_SCATTER;
	if (strcmp(desc, "AllToAll") == 0)
		return LCOLL_ALL_TO_ALL;
	return -1;
}

static int
read_ops(struct opgraph *g, struct pl_err *err)
{
	struct csvio_table t;
	int cid, clay, cfus, ccore, cfs, cbs, cfi, cbi, cpar, cact, cdesc, cev;

	if (csvio_read_max(&t, g->ops_file, OPGRAPH_MAX_OPS, OPGRAPH_WHY_MAX,
	    err) < 0)
		return -1;
	if ((cid = csvio_col(&t, "op_id", err)) < 0 ||
	    (clay = csvio_col(&t, "layer_id", err)) < 0 ||
	    (cfus = csvio_col(&t, "fused_into", err)) < 0 ||
	    (ccore = csvio_col(&t, "core_type", err)) < 0 ||
	    (cfs = csvio_col(&t, "fwd_ms_single", err)) < 0 ||
	    (cbs = csvio_col(&t, "bwd_ms_single", err)) < 0 ||
	    (cfi = csvio_col(&t, "fwd_ms_intra", err)) < 0 ||
	    (cbi = csvio_col(&t, "bwd_ms_intra", err)) < 0 ||
	    (cpar = csvio_col(&t, "parameter_size", err)) < 0 ||
	    (cact = csvio_col(&t, "activation_size", err)) < 0 ||
	    (cdesc = csvio_col(&t, "wham_desc", err)) < 0)
		goto fail;
	cev = csvio_col_opt(&t, "layer_evaluated");
	if (csvio_need_rows(&t, "operators", err) < 0)
		goto fail;
	g->nops = t.nrows;
	g->ops = xcalloc(t.nrows, sizeof(struct op));
	g->maxid = -1;
	for (size_t r = 0; r < t.nrows; r++) {
		struct op *o = &g->ops[r];
		double *times[4] = { &o->fwd_single_ms, &o->bwd_single_ms,
		    &o->fwd_intra_ms, &o->bwd_intra_ms };
		int tcols[4] = { cfs, cbs, cfi, cbi };

		o->line = t.lines[r];
		if (csvio_long(&t, r, cid, CSVIO_NONNEG, &o->id, err) < 0 ||
		    csvio_long(&t, r, clay, 0, &o->layer, err) < 0 ||
		    (o->core = csvio_enum(&t, r, ccore, core_names, err)) < 0)
			goto fail;
		if (o->core > CORE_UNSCHEDULED)
			o->core = CORE_UNSCHEDULED;
		/* ops outside every scheduled layer belong to no fused op */
		if (o->core == CORE_UNSCHEDULED && *csvio_cell(&t, r, cfus) == '\0')
			o->fused_into = -1;
		else if (csvio_long(&t, r, cfus, CSVIO_NONNEG, &o->fused_into,
		    err) < 0)
			goto fail;
		if (csvio_double(&t, r, cpar, CSVIO_NONNEG, &o->param_elems,
		    err) < 0 ||
		    csvio_double(&t, r, cact, CSVIO_NONNEG | CSVIO_OPTIONAL,
		    &o->act_elems, err) < 0)
			goto fail;
		if (isnan(o->act_elems))
			o->act_elems = 0;
		o->evaluated = 1;
		if (cev >= 0) {
			long ev;

			if (csvio_long(&t, r, cev, CSVIO_NONNEG, &ev, err) < 0)
				goto fail;
			if (ev > 1) {
				pl_errf(err, t.file, t.lines[r], "column "
				    "'layer_evaluated': %ld is not 0 or 1", ev);
				goto fail;
			}
			o->evaluated = (int)ev;
		}
		if (o->id > 100000000) {
			pl_errf(err, t.file, t.lines[r], "column 'op_id': %ld is "
			    "too large", o->id);
			goto fail;
		}
		if (o->id > g->maxid)
			g->maxid = o->id;
		/* Times may be empty for ops that are never scheduled. */
		for (int k = 0; k < 4; k++) {
			int flags = CSVIO_NONNEG;

			if (!opgraph_scheduled(o))
				flags |= CSVIO_OPTIONAL;
			if (csvio_double(&t, r, tcols[k], flags, times[k], err) < 0)
				goto fail;
			if (isnan(*times[k]))
				*times[k] = 0;
		}
		o->coll = -1;
		if (o->core == CORE_COLL &&
		    (o->coll = collective_kind(csvio_cell(&t, r, cdesc))) < 0) {
			pl_errf(err, t.file, t.lines[r], "column 'wham_desc': "
			    "unknown collective '%s'", csvio_cell(&t, r, cdesc));
			goto fail;
		}
	}
	g->index = xmalloc((size_t)(g->maxid + 1) * sizeof(long));
	for (long i = 0; i <= g->maxid; i++)
		g->index[i] = -1;
	for (size_t r = 0; r < g->nops; r++) {
		if (g->index[g->ops[r].id] >= 0) {
			pl_errf(err, t.file, t.lines[r], "column 'op_id': duplicate "
			    "op %ld", g->ops[r].id);
			goto fail;
		}
		g->index[g->ops[r].id] = (long)r;
	}
	for (size_t r = 0; r < g->nops; r++) {
		const struct op *o = &g->ops[r], *f = opgraph_op(g, o->fused_into);

		if (o->fused_into == -1)
			continue;
		if (f == NULL || f->layer != o->layer) {
			pl_errf(err, t.file, t.lines[r], "column 'fused_into': op "
			    "%ld is not an op of layer %ld", o->fused_into, o->layer);
			goto fail;
		}
	}
	csvio_release(&t);
	return 0;
fail:
	csvio_release(&t);
	return -1;
}

/* An edge's endpoint: the op must exist and sit in the layer given. */
static int
endpoint(const struct opgraph *g, const struct csvio_table *t, size_t r,
    int col, long id, long layer, struct pl_err *err)
{
	const struct op *o = opgraph_op(g, id);

	if (o == NULL)
		return pl_errf(err, t->file, t->lines[r], "column '%s': op %ld "
		    "does not exist (a dangling edge)", t->header[col], id);
	if (o->layer != layer)
		return pl_errf(err, t->file, t->lines[r], "op %ld is in layer "
		    "%ld, not in layer %ld", id, o->layer, layer);
	return 0;
}

/* An edge by its ends, for finding repeats (sorted, then neighbours). */
struct edge_key {
	long src, dst;
	size_t line;
};

static int
cmp_edge_key(const void *a, const void *b)
{
	const struct edge_key *x = a, *y = b;

	if (x->src != y->src)
		return x->src < y->src ? -1 : 1;
	if (x->dst != y->dst)
		return x->dst < y->dst ? -1 : 1;
	return x->line < y->line ? -1 : x->line > y->line;
}

/* The same edge twice would count its bytes (or its fusion) twice. */
static int
no_repeated_edge(struct edge_key *k, size_t n, const char *file,
    struct pl_err *err)
{
	qsort(k, n, sizeof *k, cmp_edge_key);
	for (size_t i = 1; i < n; i++)
		if (k[i].src == k[i - 1].src && k[i].dst == k[i - 1].dst)
			return pl_errf(err, file, k[i].line, "edge %ld -> %ld "
			    "repeats line %zu", k[i].src, k[i].dst,
			    k[i - 1].line);
	return 0;
}

static int
read_op_edges(struct opgraph *g, struct pl_err *err)
{
	struct csvio_table t;
	struct edge_key *k = NULL;
	int cs, cd, csl, cdl, csz;

	if (csvio_read_max(&t, g->edges_file, OPGRAPH_MAX_EDGES,
	    OPGRAPH_WHY_MAX, err) < 0)
		return -1;
	if ((cs = csvio_col(&t, "src", err)) < 0 ||
	    (cd = csvio_col(&t, "dst", err)) < 0 ||
	    (csl = csvio_col(&t, "src_layer", err)) < 0 ||
	    (cdl = csvio_col(&t, "dst_layer", err)) < 0 ||
	    (csz = csvio_col(&t, "src_activation_size", err)) < 0)
		goto fail;
	g->nedges = t.nrows;
	g->edges = xcalloc(t.nrows, sizeof(struct op_edge));
	k = xcalloc(t.nrows + 1, sizeof *k);
	for (size_t r = 0; r < t.nrows; r++) {
		struct op_edge *e = &g->edges[r];
		long sl, dl;

		e->line = t.lines[r];
		if (csvio_long(&t, r, cs, CSVIO_NONNEG, &e->src, err) < 0 ||
		    csvio_long(&t, r, cd, CSVIO_NONNEG, &e->dst, err) < 0 ||
		    csvio_long(&t, r, csl, 0, &sl, err) < 0 ||
		    csvio_long(&t, r, cdl, 0, &dl, err) < 0 ||
		    csvio_double(&t, r, csz, CSVIO_NONNEG, &e->elems, err) < 0 ||
		    endpoint(g, &t, r, cs, e->src, sl, err) < 0 ||
		    endpoint(g, &t, r, cd, e->dst, dl, err) < 0)
			goto fail;
		k[r] = (struct edge_key){ e->src, e->dst, e->line };
	}
	if (no_repeated_edge(k, t.nrows, t.file, err) < 0)
		goto fail;
	free(k);
	csvio_release(&t);
	return 0;
fail:
	free(k);
	csvio_release(&t);
	return -1;
}

static int
read_fused_edges(struct opgraph *g, struct pl_err *err)
{
	struct csvio_table t;
	struct edge_key *k = NULL;
	int cl, cs, cd;

	if (csvio_read_max(&t, g->fused_file, OPGRAPH_MAX_EDGES,
	    OPGRAPH_WHY_MAX, err) < 0)
		return -1;
	if ((cl = csvio_col(&t, "layer_id", err)) < 0 ||
	    (cs = csvio_col(&t, "src", err)) < 0 ||
	    (cd = csvio_col(&t, "dst", err)) < 0)
		goto fail;
	g->nfused = t.nrows;
	g->fused = xcalloc(t.nrows, sizeof(struct fused_edge));
	k = xcalloc(t.nrows + 1, sizeof *k);
	for (size_t r = 0; r < t.nrows; r++) {
		struct fused_edge *e = &g->fused[r];

		e->line = t.lines[r];
		if (csvio_long(&t, r, cl, 0, &e->layer, err) < 0 ||
		    csvio_long(&t, r, cs, CSVIO_NONNEG, &e->src, err) < 0 ||
		    csvio_long(&t, r, cd, CSVIO_NONNEG, &e->dst, err) < 0 ||
		    endpoint(g, &t, r, cs, e->src, e->layer, err) < 0 ||
		    endpoint(g, &t, r, cd, e->dst, e->layer, err) < 0)
			goto fail;
		if (opgraph_op(g, e->src)->fused_into != e->src ||
		    opgraph_op(g, e->dst)->fused_into != e->dst) {
			pl_errf(err, t.file, t.lines[r], "edge %ld -> %ld: fused "
			    "edges join fused ops (fused_into = op_id)", e->src,
			    e->dst);
			goto fail;
		}
		/* op ids are global: src and dst name the edge */
		k[r] = (struct edge_key){ e->src, e->dst, e->line };
	}
	if (no_repeated_edge(k, t.nrows, t.file, err) < 0)
		goto fail;
	free(k);
	csvio_release(&t);
	return 0;
fail:
	free(k);
	csvio_release(&t);
	return -1;
}

/*
 * After Kahn's algorithm left nodes unresolved (left[v] > 0): an edge that
 * lies on a cycle, not merely downstream of one.  Nodes that reach no
 * other unresolved node are pruned backwards (they only hang off a
 * cycle); from any node left, following an edge to a node left must come
 * back to a node already seen, and the edge leaving it closes the cycle.
 * first/order: the edges by source (counting sort).
 */
static size_t
cycle_edge(long nid, size_t n, const long *src, const long *dst,
    const long *left, const size_t *first, const size_t *order)
{
	long *outdeg = xcalloc((size_t)nid, sizeof(long));
	long *stack = xmalloc((size_t)nid * sizeof(long));
	size_t *next = xmalloc((size_t)nid * sizeof(size_t));
	size_t *rfirst = xcalloc((size_t)nid + 1, sizeof(size_t));
	size_t *rorder = xmalloc((n ? n : 1) * sizeof(size_t));
	size_t *fill = xmalloc((size_t)nid * sizeof(size_t));
	unsigned char *alive = xcalloc((size_t)nid, 1);
	unsigned char *seen = xcalloc((size_t)nid, 1);
	long top = 0, v = -1;
	size_t found = 0;

	/* the edges by destination, as `first`/`order` hold them by source */
	for (size_t i = 0; i < n; i++)
		rfirst[dst[i] + 1]++;
	for (long u = 0; u < nid; u++)
		rfirst[u + 1] += rfirst[u];
	memcpy(fill, rfirst, (size_t)nid * sizeof(size_t));
	for (size_t i = 0; i < n; i++)
		rorder[fill[dst[i]]++] = i;
	for (long u = 0; u < nid; u++)
		alive[u] = left[u] > 0;
	for (size_t i = 0; i < n; i++)
		if (alive[src[i]] && alive[dst[i]])
			outdeg[src[i]]++;
	for (long u = 0; u < nid; u++)
		if (alive[u] && outdeg[u] == 0)
			stack[top++] = u;
	while (top > 0) {	/* prune backwards */
		long u = stack[--top];

		alive[u] = 0;
		for (size_t k = rfirst[u]; k < rfirst[u + 1]; k++) {
			long w = src[rorder[k]];

			if (alive[w] && --outdeg[w] == 0)
				stack[top++] = w;
		}
	}
	for (long u = 0; u < nid && v < 0; u++)
		if (alive[u])
			v = u;
	while (v >= 0 && !seen[v]) {	/* every node alive has an edge on */
		seen[v] = 1;
		for (size_t k = first[v]; k < first[v + 1]; k++)
			if (alive[dst[order[k]]]) {
				next[v] = order[k];
				break;
			}
		v = dst[next[v]];
	}
	if (v >= 0)
		found = next[v];
	free(outdeg);
	free(stack);
	free(next);
	free(rfirst);
	free(rorder);
	free(fill);
	free(alive);
	free(seen);
	return found;
}

/*
 * Kahn's algorithm over edges given as (src, dst) id pairs.  On a cycle,
 * report the line of an edge on it.
 */
static int
check_acyclic(const struct opgraph *g, size_t n, const long *src,
    const long *dst, const size_t *lines, const char *file, struct pl_err *err)
{
	long nid = g->maxid + 1;
	long *indeg = xcalloc((size_t)nid, sizeof(long));
	long *queue = xmalloc((size_t)nid * sizeof(long));
	size_t *first = xmalloc(((size_t)nid + 1) * sizeof(size_t));
	size_t *order = xmalloc((n ? n : 1) * sizeof(size_t));
	long head = 0, tail = 0;
	int ret = 0;

	/* adjacency by a counting sort of the edges on their source */
	memset(first, 0, ((size_t)nid + 1) * sizeof(size_t));
	for (size_t i = 0; i < n; i++) {
		first[src[i] + 1]++;
		indeg[dst[i]]++;
	}
	for (long v = 0; v < nid; v++)
		first[v + 1] += first[v];
	{
		size_t *fill = xmalloc((size_t)nid * sizeof(size_t));

		memcpy(fill, first, (size_t)nid * sizeof(size_t));
		for (size_t i = 0; i < n; i++)
			order[fill[src[i]]++] = i;
		free(fill);
	}
	for (long v = 0; v < nid; v++)
		if (indeg[v] == 0)
			queue[tail++] = v;
	while (head < tail) {
		long v = queue[head++];

		for (size_t k = first[v]; k < first[v + 1]; k++)
			if (--indeg[dst[order[k]]] == 0)
				queue[tail++] = dst[order[k]];
	}
	if (tail < nid) {
		size_t i = cycle_edge(nid, n, src, dst, indeg, first, order);

		ret = pl_errf(err, file, lines[i], "edge %ld -> %ld lies on a "
		    "cycle", src[i], dst[i]);
	}
	free(indeg);
	free(queue);
	free(first);
	free(order);
	return ret;
}

static int
acyclic(const struct opgraph *g, int fused, struct pl_err *err)
{
	size_t n = fused ? g->nfused : g->nedges;
	long *s = xmalloc((n ? n : 1) * sizeof(long));
	long *d = xmalloc((n ? n : 1) * sizeof(long));
	size_t *l = xmalloc((n ? n : 1) * sizeof(size_t));
	int ret;

	for (size_t i = 0; i < n; i++) {
		s[i] = fused ? g->fused[i].src : g->edges[i].src;
		d[i] = fused ? g->fused[i].dst : g->edges[i].dst;
		l[i] = fused ? g->fused[i].line : g->edges[i].line;
	}
	ret = check_acyclic(g, n, s, d, l, fused ? g->fused_file :
	    g->edges_file, err);
	free(s);
	free(d);
	free(l);
	return ret;
}

int
opgraph_read_artifact(struct opgraph *g, const char *dir, struct pl_err *err)
{
	memset(g, 0, sizeof(*g));
	g->dir = xstrdup(dir);
	g->ops_file = path_join(dir, "ops.csv");
	g->edges_file = path_join(dir, "op_edges.csv");
	g->fused_file = path_join(dir, "fused_edges.csv");
	if (read_ops(g, err) < 0 || read_op_edges(g, err) < 0 ||
	    read_fused_edges(g, err) < 0 || acyclic(g, 0, err) < 0 ||
	    acyclic(g, 1, err) < 0) {
		opgraph_release(g);
		return -1;
	}
	return 0;
}

void
opgraph_release(struct opgraph *g)
{
	free(g->dir);
	free(g->ops);
	free(g->index);
	free(g->edges);
	free(g->fused);
	free(g->ops_file);
	free(g->edges_file);
	free(g->fused_file);
	memset(g, 0, sizeof(*g));
}
