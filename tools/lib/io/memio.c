/* memio.c - memmodel's stage table (memio.h). */
#include <stdlib.h>
#include <string.h>

#include "io/memio.h"

/* One stage row; optional columns default to no ZeRO, no recomputation,
 * 1F1B. */
struct stage_cols {
	int stage, first, last, devices, zs, zd, rc, sched, pos, mb;
};

static int
read_stage(const struct csvio_table *t, size_t r, const struct stage_cols *c,
    const struct layer_graph *g, struct mem_stage *s, struct pl_err *err)
{
	static const char *const scheds[] = { "1f1b", "gpipe", NULL };
	long first, last, v;
	long fi, li;

	memset(s, 0, sizeof(*s));
	s->zero_degree = 1;
	if (csvio_long(t, r, c->first, 0, &first, err) < 0 ||
	    csvio_long(t, r, c->last, 0, &last, err) < 0 ||
	    csvio_long(t, r, c->devices, CSVIO_POSITIVE, &s->devices, err) < 0 ||
	    csvio_long(t, r, c->pos, CSVIO_POSITIVE, &s->position_from_end,
	    err) < 0 ||
	    csvio_long(t, r, c->mb, CSVIO_POSITIVE, &s->microbatches, err) < 0)
		return -1;
	if (c->zs >= 0) {
		if (csvio_long(t, r, c->zs, CSVIO_NONNEG | CSVIO_OPTIONAL, &v,
		    err) < 0)
			return -1;
		if (v > 3)
			return pl_errf(err, t->file, t->lines[r], "column "
			    "'zero_stage': %ld is not 0, 1, 2 or 3", v);
		s->zero_stage = (int)v;
	}
	if (c->zd >= 0 && csvio_long(t, r, c->zd, CSVIO_POSITIVE |
	    CSVIO_OPTIONAL, &s->zero_degree, err) < 0)
		return -1;
	if (s->zero_degree == 0)
		s->zero_degree = 1;
	if (c->rc >= 0) {
		if (csvio_long(t, r, c->rc, CSVIO_NONNEG | CSVIO_OPTIONAL, &v,
		    err) < 0)
			return -1;
		if (v >= RC_N)
			return pl_errf(err, t->file, t->lines[r], "column "
			    "'recompute': %ld is not 0 (none), 1 (full), 2 "
			    "(selective) or 3 (per operator)", v);
		if (v == RC_OP && !g->has_op_sac)
			return pl_errf(err, t->file, t->lines[r], "column "
			    "'recompute': 3 (per operator) needs the graph's "
			    "op_sac_bytes and op_sac_recompute_s columns, which "
			    "%s lacks", g->file);
		s->recompute = (int)v;
	}
	if (c->sched >= 0 && (s->schedule = csvio_enum(t, r, c->sched, scheds,
	    err)) < 0)
		return -1;
	if ((fi = layers_index(g, first)) < 0)
		return pl_errf(err, t->file, t->lines[r], "column 'first_layer': "
		    "layer %ld is not in %s", first, g->file);
	if ((li = layers_index(g, last)) < 0)
		return pl_errf(err, t->file, t->lines[r], "column 'last_layer': "
		    "layer %ld is not in %s", last, g->file);
	if (li < fi)
		return pl_errf(err, t->file, t->lines[r], "column 'last_layer': "
		    "layer %ld comes before first_layer %ld", last, first);
	if (s->devices % s->zero_degree != 0)
		return pl_errf(err, t->file, t->lines[r], "column 'zero_degree': "
		    "%ld does not divide the stage's %ld devices",
		    s->zero_degree, s->devices);
	s->first = (size_t)fi;
	s->last = (size_t)li;
	return 0;
}

struct label {
	const char *text;
	size_t row;
};

static int
label_order(const void *a, const void *b)
{
	const struct label *x = a, *y = b;
	int c = strcmp(x->text, y->text);

	return c ? c : (x->row > y->row) - (x->row < y->row);
}

/* The stage label names an output row: not empty, one a stage (sorted,
 * so that a table of many rows is checked in n log n). */
static int
unique_labels(const struct csvio_table *t, int col, struct pl_err *err)
{
	struct label *l = xcalloc(t->nrows, sizeof *l);
	size_t bad = 0, first = 0;

	for (size_t r = 0; r < t->nrows; r++) {
		l[r].text = csvio_cell(t, r, col);
		l[r].row = r;
		if (*l[r].text == '\0') {
			free(l);
			return pl_errf(err, t->file, t->lines[r], "column "
			    "'stage': empty");
		}
	}
	qsort(l, t->nrows, sizeof *l, label_order);
	for (size_t i = 1; i < t->nrows; i++)
		if (strcmp(l[i].text, l[i - 1].text) == 0 &&
		    (!bad || l[i].row < bad)) {
			bad = l[i].row;
			first = l[i - 1].row;
		}
	free(l);
	if (bad)
		return pl_errf(err, t->file, t->lines[bad], "column 'stage': "
		    "'%s' names line %zu too", csvio_cell(t, bad, col),
		    t->lines[first]);
	return 0;
}

int
mem_read_stages(struct mem_stage_table *st, const char *path,
    const struct layer_graph *g, struct pl_err *err)
{
	struct stage_cols c;
	struct csvio_table *t = &st->t;

	memset(st, 0, sizeof(*st));
	if (csvio_read_max(t, path, LAYERS_MAX_ROWS, LAYERS_WHY_MAX, err) < 0)
		return -1;
	if ((c.stage = csvio_col(t, "stage", err)) < 0 ||
	    (c.first = csvio_col(t, "first_layer", err)) < 0 ||
	    (c.last = csvio_col(t, "last_layer", err)) < 0 ||
	    (c.devices = csvio_col(t, "devices", err)) < 0 ||
	    (c.pos = csvio_col(t, "position_from_end", err)) < 0 ||
	    (c.mb = csvio_col(t, "microbatches", err)) < 0 ||
	    csvio_need_rows(t, "stages", err) < 0)
		goto fail;
	c.zs = csvio_col_opt(t, "zero_stage");
	c.zd = csvio_col_opt(t, "zero_degree");
	c.rc = csvio_col_opt(t, "recompute");
	c.sched = csvio_col_opt(t, "schedule");
	st->label_col = c.stage;
	st->s = xcalloc(t->nrows, sizeof(*st->s));
	for (size_t r = 0; r < t->nrows; r++)
		if (read_stage(t, r, &c, g, &st->s[r], err) < 0)
			goto fail;
	if (unique_labels(t, c.stage, err) < 0)
		goto fail;
	st->n = t->nrows;
	return 0;
fail:
	mem_release_stages(st);
	return -1;
}

void
mem_release_stages(struct mem_stage_table *st)
{
	csvio_release(&st->t);
	free(st->s);
	memset(st, 0, sizeof(*st));
}
