/* layers.c - read the per-layer graph CSV and its edges. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "csvio.h"
#include "layers.h"

static const char *const coll_cols[LCOLL_N] = {
	"all_reduce_bytes", "all_gather_bytes", "reduce_scatter_bytes",
	"all_to_all_bytes"
};

int
layers_read(struct layer_graph *g, const char *path, struct pl_err *err)
{
	struct csvio_table t;
	int cid, cpar, cact, cin, ckind, cfwd, cbwd, ccopy, ccoll[LCOLL_N];

	memset(g, 0, sizeof(*g));
	if (csvio_read(&t, path, err) < 0)
		return -1;
	if ((cid = csvio_col(&t, "layer_id", err)) < 0 ||
	    (cpar = csvio_col(&t, "parameter_bytes", err)) < 0 ||
	    (cact = csvio_col(&t, "activation_bytes", err)) < 0 ||
	    (cin = csvio_col(&t, "input_bytes", err)) < 0)
		goto fail;
	if (t.nrows == 0) {
		pl_errf(err, t.file, 0, "no layers");
		goto fail;
	}
	ckind = csvio_col_opt(&t, "kind");
	cfwd = csvio_col_opt(&t, "forward_s");
	cbwd = csvio_col_opt(&t, "backward_s");
	ccopy = csvio_col_opt(&t, "copy_of");
	for (int k = 0; k < LCOLL_N; k++)
		ccoll[k] = csvio_col_opt(&t, coll_cols[k]);
	g->file = xstrdup(t.file);
	g->n = t.nrows;
	g->l = xcalloc(t.nrows, sizeof(struct layer));
	for (size_t r = 0; r < t.nrows; r++) {
		struct layer *L = &g->l[r];
		double v;

		L->line = t.lines[r];
		if (csvio_long(&t, r, cid, 0, &L->id, err) < 0 ||
		    csvio_double(&t, r, cpar, CSVIO_NONNEG, &L->parameter_bytes,
		    err) < 0 ||
		    csvio_double(&t, r, cact, CSVIO_NONNEG, &L->activation_bytes,
		    err) < 0 ||
		    csvio_double(&t, r, cin, CSVIO_NONNEG, &L->input_bytes,
		    err) < 0)
			goto fail;
		if (layers_index(g, L->id) != (long)r) {
			pl_errf(err, t.file, t.lines[r], "column 'layer_id': "
			    "duplicate layer %ld", L->id);
			goto fail;
		}
		if (ckind >= 0)
			snprintf(L->kind, sizeof(L->kind), "%s",
			    csvio_cell(&t, r, ckind));
		if (cfwd >= 0 && csvio_double(&t, r, cfwd,
		    CSVIO_NONNEG | CSVIO_OPTIONAL, &v, err) < 0)
			goto fail;
		L->forward_s = cfwd >= 0 && !isnan(v) ? v : 0;
		if (cbwd >= 0 && csvio_double(&t, r, cbwd,
		    CSVIO_NONNEG | CSVIO_OPTIONAL, &v, err) < 0)
			goto fail;
		L->backward_s = cbwd >= 0 && !isnan(v) ? v : 0;
		if (ccopy >= 0) {
			int r2 = csvio_long(&t, r, ccopy, CSVIO_OPTIONAL,
			    &L->copy_of, err);

			if (r2 < 0)
				goto fail;
			L->is_copy = r2 == 0;
		}
		for (int k = 0; k < LCOLL_N; k++) {
			if (ccoll[k] < 0)
				continue;
			if (csvio_double(&t, r, ccoll[k],
			    CSVIO_NONNEG | CSVIO_OPTIONAL, &v, err) < 0)
				goto fail;
			L->coll_bytes[k] = isnan(v) ? 0 : v;
		}
	}
	csvio_release(&t);
	return 0;
fail:
	csvio_release(&t);
	layers_release(g);
	return -1;
}

int
layers_read_edges(struct layer_graph *g, const char *path, struct pl_err *err)
{
	struct csvio_table t;
	int cs, cd, cb;

	if (csvio_read(&t, path, err) < 0)
		return -1;
	if ((cs = csvio_col(&t, "src_layer", err)) < 0 ||
	    (cd = csvio_col(&t, "dst_layer", err)) < 0 ||
	    (cb = csvio_col(&t, "bytes", err)) < 0)
		goto fail;
	g->e = xcalloc(t.nrows, sizeof(struct layer_edge));
	g->nedges = 0;
	for (size_t r = 0; r < t.nrows; r++) {
		long s, d, si, di;
		double b;

		if (csvio_long(&t, r, cs, 0, &s, err) < 0 ||
		    csvio_long(&t, r, cd, 0, &d, err) < 0 ||
		    csvio_double(&t, r, cb, CSVIO_NONNEG, &b, err) < 0)
			goto fail;
		if ((si = layers_index(g, s)) < 0 || (di = layers_index(g, d)) < 0) {
			pl_errf(err, t.file, t.lines[r], "column '%s': unknown "
			    "layer %ld", si < 0 ? "src_layer" : "dst_layer",
			    si < 0 ? s : d);
			goto fail;
		}
		if (si >= di) {
			pl_errf(err, t.file, t.lines[r], "edge %ld -> %ld goes "
			    "backwards in layer order (a cycle, or rows out of "
			    "topological order)", s, d);
			goto fail;
		}
		g->e[g->nedges].src = (size_t)si;
		g->e[g->nedges].dst = (size_t)di;
		g->e[g->nedges++].bytes = b;
	}
	csvio_release(&t);
	return 0;
fail:
	csvio_release(&t);
	free(g->e);
	g->e = NULL;
	g->nedges = 0;
	return -1;
}

void
layers_release(struct layer_graph *g)
{
	free(g->file);
	free(g->l);
	free(g->e);
	memset(g, 0, sizeof(*g));
}

long
layers_index(const struct layer_graph *g, long id)
{
	for (size_t i = 0; i < g->n; i++)
		if (g->l[i].id == id)
			return (long)i;
	return -1;
}

double
layers_boundary_input(const struct layer_graph *g, size_t first, size_t last)
{
	double b = 0;

	if (g->nedges == 0)
		return g->l[first].input_bytes;
	for (size_t v = first; v <= last; v++) {
		int fed = 0;

		for (size_t i = 0; i < g->nedges; i++) {
			if (g->e[i].dst != v)
				continue;
			fed = 1;
			if (g->e[i].src < first)
				b += g->e[i].bytes;
		}
		if (!fed)	/* a source layer: its input comes from outside */
			b += g->l[v].input_bytes;
	}
	return b;
}
