/* layers.c - read the per-layer graph CSV and its edges. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/csvio.h"
#include "model/config.h"
#include "model/layers.h"

static const char *const coll_cols[LCOLL_N] = {
	"all_reduce_bytes", "all_gather_bytes", "reduce_scatter_bytes",
	"all_to_all_bytes", "context_all_gather_bytes",
	"context_reduce_scatter_bytes", "expert_all_gather_bytes",
	"expert_reduce_scatter_bytes"
};

/* Whether a graph's file has the expert kinds' columns: only where some
 * row has their bytes (graphs without stay as they were). */
static int
writes_expert_colls(const struct layer_graph *g)
{
	for (size_t i = 0; i < g->n; i++)
		if (g->l[i].coll_bytes[LCOLL_EXPERT_ALL_GATHER] > 0 ||
		    g->l[i].coll_bytes[LCOLL_EXPERT_REDUCE_SCATTER] > 0)
			return 1;
	return 0;
}

static const char *const recompute_cols[] = {
	"checkpoint_bytes", "recompute_s", "selective_bytes",
	"selective_recompute_s"
};

static const char *const op_sac_cols[] = {
	"op_sac_bytes", "op_sac_recompute_s"
};

static const char *const variant_cols[] = {
	"t", "e", "c", "sp", "micro_batch_samples"
};

/* Column `name` (at `col`), one value on every row: positive, or with
 * `flag` 0 or 1. */
static int
read_one_value(const struct csvio_table *t, int col, const char *name,
    int flag, long *out, struct pl_err *err)
{
	for (size_t r = 0; r < t->nrows; r++) {
		long v;

		if (csvio_long(t, r, col, flag ? CSVIO_NONNEG : CSVIO_POSITIVE,
		    &v, err) < 0)
			return -1;
		if (flag && v > 1)
			return pl_errf(err, t->file, t->lines[r], "column "
			    "'%s': %ld is not 0 or 1", name, v);
		if (r > 0 && v != *out)
			return pl_errf(err, t->file, t->lines[r], "column "
			    "'%s': %ld differs from the first row's %ld "
			    "(one variant a file)", name, v, *out);
		*out = v;
	}
	return 0;
}

/* The variant columns, all or none, each the same on every row. */
static int
read_variant(const struct csvio_table *t, struct layer_graph *g,
    struct pl_err *err)
{
	long *dst[5] = { &g->var_t, &g->var_e, &g->var_c, &g->var_sp,
		&g->var_b };
	int col[5], present = 0;

	for (int k = 0; k < 5; k++)
		present += (col[k] = csvio_col_opt(t, variant_cols[k])) >= 0;
	static const char *const expert_cols[] = { "ep_batch", "expert_t",
		"ep_fold" };

	for (int k = 0; present == 0 && k < 3; k++)
		if (csvio_col_opt(t, expert_cols[k]) >= 0)
			return pl_errf(err, t->file, 1, "column '%s' without "
			    "the variant's columns (t, e, c, sp, "
			    "micro_batch_samples)", expert_cols[k]);
	if (present == 0)
		return 0;
	for (int k = 0; k < 5; k++) {
		if (col[k] < 0)
			return csvio_col(t, variant_cols[k], err);
		if (read_one_value(t, col[k], variant_cols[k], k == 3, dst[k],
		    err) < 0)
			return -1;
	}
	/* the variant's devices, t e c, and its samples stay far from
	 * overflowing the planner's products */
	if (g->var_t > LAYERS_MAX_WIDTH / g->var_e ||
	    g->var_t * g->var_e > LAYERS_MAX_WIDTH / g->var_c)
		return pl_errf(err, t->file, t->lines[0], "columns 't', 'e', "
		    "'c': %ld x %ld x %ld devices, more than %ld", g->var_t,
		    g->var_e, g->var_c, (long)LAYERS_MAX_WIDTH);
	if (g->var_b > LAYERS_MAX_WIDTH)
		return pl_errf(err, t->file, t->lines[0], "column "
		    "'micro_batch_samples': %ld, more than %ld", g->var_b,
		    (long)LAYERS_MAX_WIDTH);
	if ((col[0] = csvio_col_opt(t, "ep_batch")) >= 0 &&
	    read_one_value(t, col[0], "ep_batch", 1, &g->var_ep_batch, err) < 0)
		return -1;
	g->var_et = g->var_t;
	if ((col[0] = csvio_col_opt(t, "expert_t")) >= 0) {
		if (read_one_value(t, col[0], "expert_t", 0, &g->var_et,
		    err) < 0)
			return -1;
		/* a split between 1 and t has a group of its own, the
		 * expert kinds' */
		if (g->var_t % g->var_et)
			return pl_errf(err, t->file, t->lines[0], "column "
			    "'expert_t': %ld does not divide t (%ld)",
			    g->var_et, g->var_t);
		/* each tensor rank dispatches its own tokens: sp's shards */
		if (g->var_et < g->var_t && !g->var_sp)
			return pl_errf(err, t->file, t->lines[0], "column "
			    "'expert_t': %ld below t %ld needs sp 1 (each "
			    "tensor rank dispatches its own tokens)", g->var_et,
			    g->var_t);
	}
	g->var_ep_fold = 1;
	if ((col[0] = csvio_col_opt(t, "ep_fold")) >= 0) {
		if (read_one_value(t, col[0], "ep_fold", 0, &g->var_ep_fold,
		    err) < 0)
			return -1;
		if (!g->var_ep_batch || g->var_ep_fold >= g->var_e ||
		    g->var_e % g->var_ep_fold)
			return pl_errf(err, t->file, t->lines[0], "column "
			    "'ep_fold': %ld, but a batch split's fold needs "
			    "ep_batch 1 and divides e (%ld) below it",
			    g->var_ep_fold, g->var_e);
	}
	/* what a batch split needs (docs/formats.md) */
	if (g->var_ep_batch && (g->var_e < 2 || g->var_c != 1 ||
	    g->var_b % (g->var_e / g->var_ep_fold)))
		return pl_errf(err, t->file, t->lines[0], "column 'ep_batch': "
		    "a batch split needs e > 1, its sample ranks (e over the "
		    "fold, %ld) dividing micro_batch_samples and c = 1 (e %ld, "
		    "c %ld, micro_batch_samples %ld)", g->var_e /
		    g->var_ep_fold, g->var_e, g->var_c, g->var_b);
	g->has_variant = 1;
	return 0;
}

/* Column `name`, when present: one of `words` (NULL-ended), the same on
 * every row (a file holds one `what`), its index in *out; absent:
 * `absent`. */
static int
read_one_word(const struct csvio_table *t, const char *name,
    const char *const *words, const char *what, int absent, int *out,
    struct pl_err *err)
{
	int col = csvio_col_opt(t, name);

	*out = absent;
	for (size_t r = 0; col >= 0 && r < t->nrows; r++) {
		int k = csvio_enum(t, r, col, words, err);

		if (k < 0)
			return -1;
		if (r > 0 && k != *out)
			return pl_errf(err, t->file, t->lines[r], "column "
			    "'%s': '%s' differs from the first row's (one %s "
			    "a file)", name, csvio_cell(t, r, col), what);
		*out = k;
	}
	return 0;
}

/* Column fp8_recipe, when present: one recipe word on every row. */
static int
read_fp8_recipe(const struct csvio_table *t, struct layer_graph *g,
    struct pl_err *err)
{
	int col = csvio_col_opt(t, "fp8_recipe");

	/* the three FP8 columns together: weight copies without a recipe
	 * would be lost on a rewrite, a recipe without them uncounted */
	static const char *const cols[] = { "fp8_recipe", "fp8_weight_bytes",
		"fp8_expert_weight_bytes" };

	for (int k = 1; k < 3; k++)
		if ((col >= 0) != (csvio_col_opt(t, cols[k]) >= 0))
			return pl_errf(err, t->file, 1, "column '%s' without "
			    "column '%s' (an FP8 graph has %s, %s and %s)",
			    col >= 0 ? cols[0] : cols[k], col >= 0 ? cols[k] :
			    cols[0], cols[0], cols[1], cols[2]);

	return read_one_word(t, "fp8_recipe", fp8_recipe_words, "recipe",
	    FP8_NONE, &g->var_fp8, err);
}

/* Column attention_kernel, when present: one kernel word on every row
 * (config.h's attention_kernel_words). */
static int
read_attention_kernel(const struct csvio_table *t, struct layer_graph *g,
    struct pl_err *err)
{
	return read_one_word(t, "attention_kernel", attention_kernel_words,
	    "kernel", ATTN_FUSED, &g->var_attn, err);
}

/* Column `name`, when present: one non-empty text on every row, copied
 * to *out. */
static int
read_one_text(const struct csvio_table *t, const char *name, char **out,
    struct pl_err *err)
{
	int col = csvio_col_opt(t, name);

	if (col < 0)
		return 0;
	for (size_t r = 0; r < t->nrows; r++) {
		const char *v = csvio_cell(t, r, col);

		if (*v == '\0')
			return pl_errf(err, t->file, t->lines[r], "column "
			    "'%s': empty", name);
		if (r > 0 && strcmp(v, csvio_cell(t, 0, col)) != 0)
			return pl_errf(err, t->file, t->lines[r], "column "
			    "'%s': '%s' differs from the first row's '%s' (one "
			    "model and accelerator a file)", name, v,
			    csvio_cell(t, 0, col));
	}
	if (t->nrows > 0)
		*out = xstrdup(csvio_cell(t, 0, col));
	return 0;
}

/* Two columns that come together: 0, or -1 naming the one alone. */
static int
both_or_none(const struct csvio_table *t, const char *a, const char *va,
    const char *b, const char *vb, struct pl_err *err)
{
	if (!va == !vb)
		return 0;
	return pl_errf(err, t->file, 1, "column '%s' without '%s'",
	    va ? a : b, va ? b : a);
}

/* The model's layer count as the graph's writer knew it (optional column
 * model_layers, the same on every row): a graph cut short, or grown, by
 * hand has another number of transformer rows, and is refused. */
static int
read_model_layers(const struct csvio_table *t, struct layer_graph *g,
    struct pl_err *err)
{
	int col = csvio_col_opt(t, "model_layers");
	long n = 0;

	if (col < 0)
		return 0;
	if (read_one_value(t, col, "model_layers", 0, &g->model_layers,
	    err) < 0)
		return -1;
	for (size_t r = 0; r < g->n; r++)
		n += strcmp(g->l[r].kind, "transformer") == 0;
	if (n != g->model_layers)
		return pl_errf(err, t->file, t->lines[0], "column "
		    "'model_layers': the model has %ld transformer layers, the "
		    "graph %ld transformer rows", g->model_layers, n);
	return 0;
}

/* Without recomputation columns: a row keeps the bytes entering it (its
 * edges', or its input_bytes when no edge feeds it) and reruns its
 * forward under full recomputation; selective changes nothing. */
static void
default_recompute(struct layer_graph *g)
{
	for (size_t r = 0; r < g->n; r++) {
		struct layer *L = &g->l[r];

		L->checkpoint_bytes = fmin(layers_boundary_input(g, r, r),
		    L->activation_bytes);
		L->recompute_s = L->forward_s;
		L->selective_bytes = L->activation_bytes;
		L->selective_recompute_s = 0;
	}
}

/*
 * Per-operator checkpointing's columns, both or neither, beside the
 * recomputation ones.  What a row keeps under it is not capped by its
 * activations: the policy saves outputs (a product's, where another
 * kind keeps its input) that another graph's rows may count otherwise.
 */
static int
read_op_sac(const struct csvio_table *t, struct layer_graph *g,
    struct pl_err *err)
{
	int col[2], present = 0;

	for (int k = 0; k < 2; k++)
		present += (col[k] = csvio_col_opt(t, op_sac_cols[k])) >= 0;
	if (present == 0)
		return 0;
	for (int k = 0; k < 2; k++)
		if (col[k] < 0)
			return csvio_col(t, op_sac_cols[k], err);
	for (size_t r = 0; r < g->n; r++) {
		struct layer *L = &g->l[r];

		if (csvio_double(t, r, col[0], CSVIO_NONNEG, &L->op_sac_bytes,
		    err) < 0 || csvio_double(t, r, col[1], CSVIO_NONNEG,
		    &L->op_sac_recompute_s, err) < 0)
			return -1;
	}
	g->has_op_sac = 1;
	return 0;
}

/*
 * The recomputation columns, all or none; without them a row keeps its
 * input and reruns its forward under full recomputation, and selective
 * recomputation changes nothing.  What a row keeps never exceeds its
 * activations.
 */
static int
read_recompute(const struct csvio_table *t, struct layer_graph *g,
    struct pl_err *err)
{
	int col[4], present = 0;

	for (int k = 0; k < 4; k++)
		present += (col[k] = csvio_col_opt(t, recompute_cols[k])) >= 0;
	if (present == 0) {
		default_recompute(g);
		return 0;
	}
	for (int k = 0; k < 4; k++)
		if (col[k] < 0)
			return csvio_col(t, recompute_cols[k], err);
	for (size_t r = 0; r < g->n; r++) {
		struct layer *L = &g->l[r];
		double *dst[4] = { &L->checkpoint_bytes, &L->recompute_s,
			&L->selective_bytes, &L->selective_recompute_s };

		for (int k = 0; k < 4; k++)
			if (csvio_double(t, r, col[k], CSVIO_NONNEG, dst[k],
			    err) < 0)
				return -1;
		for (int k = 0; k < 4; k += 2)
			if (*dst[k] > L->activation_bytes)
				return pl_errf(err, t->file, t->lines[r],
				    "column '%s': %g exceeds activation_bytes "
				    "%g (a row keeps at most its activations)",
				    recompute_cols[k], *dst[k],
				    L->activation_bytes);
	}
	g->has_recompute = 1;
	return 0;
}

static const char tp_roles[] = "cro";

/* A row's own copy of n tensor-parallel pairs (NULL for none). */
static struct tp_pair *
tp_pairs_dup(const struct tp_pair *pairs, int n)
{
	struct tp_pair *copy;

	if (n <= 0)
		return NULL;
	copy = xcalloc((size_t)n, sizeof *copy);
	memcpy(copy, pairs, (size_t)n * sizeof *copy);
	return copy;
}

/* A row's tp_overlap cell: space-separated ROLE:BYTES:FORWARD_S:BACKWARD_S
 * items (empty: none), each number as strict as any other cell's. */
static int
read_tp_pairs(const struct csvio_table *t, size_t r, int col, struct layer *L,
    struct pl_err *err)
{
	const char *p = csvio_cell(t, r, col);
	struct tp_pair pair[LAYER_TP_PAIRS_MAX];
	int n = 0;

	for (;;) {
		char item[4 * NUMFMT_LEN], *field[4], *save = NULL, why[96];
		size_t len;
		int nf = 0;

		p += strspn(p, " ");
		if (*p == '\0')
			break;
		len = strcspn(p, " ");
		if (n == LAYER_TP_PAIRS_MAX)
			return pl_errf(err, t->file, t->lines[r], "column "
			    "'tp_overlap': more than %d pairs",
			    LAYER_TP_PAIRS_MAX);
		if (len >= sizeof item)
			return pl_errf(err, t->file, t->lines[r], "column "
			    "'tp_overlap': item %d is too long", n + 1);
		memcpy(item, p, len);
		item[len] = '\0';
		p += len;
		/* every field counted, the first four kept */
		for (char *f = strtok_r(item, ":", &save); f;
		    f = strtok_r(NULL, ":", &save))
			if (nf++ < 4)
				field[nf - 1] = f;
		if (nf != 4 ||
		    strlen(field[0]) != 1 || !strchr(tp_roles, field[0][0]) ||
		    item[0] == ':' || item[len - 1] == ':' ||
		    strstr(item, "::") != NULL)
			return pl_errf(err, t->file, t->lines[r], "column "
			    "'tp_overlap': item %d is not ROLE:BYTES:FORWARD_S:"
			    "BACKWARD_S with ROLE c, r or o", n + 1);
		pair[n].role = (int)(strchr(tp_roles, field[0][0]) - tp_roles);
		if (parse_double(field[1], 0, PL_NUMBER_MAX, &pair[n].bytes, why,
		    sizeof why) < 0 ||
		    parse_double(field[2], 0, PL_NUMBER_MAX, &pair[n].forward_s,
		    why, sizeof why) < 0 ||
		    parse_double(field[3], 0, PL_NUMBER_MAX,
		    &pair[n].backward_s, why, sizeof why) < 0)
			return pl_errf(err, t->file, t->lines[r], "column "
			    "'tp_overlap': item %d: %s", n + 1, why);
		n++;
	}
	L->ntp = n;
	L->tp = tp_pairs_dup(pair, n);
	return 0;
}

/* The bytes a cell of `pairs` tensor-parallel pairs takes as written. */
#define TP_CELL_BYTES(pairs) ((size_t)(pairs) * (3 * NUMFMT_LEN + 8) + 1)

/* A row's tp_overlap cell as written, in buf (TP_CELL_BYTES(L->ntp)). */
static const char *
write_tp_pairs(const struct layer *L, char *buf)
{
	size_t len = 0;

	buf[0] = '\0';
	for (int k = 0; k < L->ntp; k++) {
		char b[3][NUMFMT_LEN];

		len += (size_t)sprintf(buf + len, "%s%c:%s:%s:%s", k ? " " : "",
		    tp_roles[L->tp[k].role], numfmt(b[0], L->tp[k].bytes),
		    numfmt(b[1], L->tp[k].forward_s),
		    numfmt(b[2], L->tp[k].backward_s));
	}
	return buf;
}

static const char *
differing_pairs(const struct layer *a, const struct layer *b)
{
	if (a->ntp != b->ntp)
		return "tp_overlap";
	for (int k = 0; k < a->ntp; k++)
		if (a->tp[k].role != b->tp[k].role ||
		    a->tp[k].bytes != b->tp[k].bytes ||
		    a->tp[k].forward_s != b->tp[k].forward_s ||
		    a->tp[k].backward_s != b->tp[k].backward_s)
			return "tp_overlap";
	return NULL;
}

/* The combined 1F1B's columns (struct layer), in the order they are
 * written, and each one's field. */
#define EXPERT_TIME_COLS 5
static const char *const expert_time_cols[EXPERT_TIME_COLS] = {
	"expert_forward_s", "expert_backward_s", "expert_weight_gradient_s",
	"combine_forward_s", "combine_backward_s"
};

static double *
expert_time(const struct layer *L, int k)
{
	const double *f[EXPERT_TIME_COLS] = { &L->expert_forward_s,
		&L->expert_backward_s, &L->expert_weight_gradient_s,
		&L->combine_forward_s, &L->combine_backward_s };

	return (double *)f[k];
}

/* Why a row's combined 1F1B times do not fit its passes, or NULL: the
 * experts' weights' gradient within the row's (where the graph has it)
 * and within their backward, each pass's experts and combine within
 * it. */
static const char *
expert_times_unfit(const struct layer *L, int has_wgrad, char *buf,
    size_t len)
{
	if (has_wgrad && L->expert_weight_gradient_s > L->weight_gradient_s)
		snprintf(buf, len, "expert_weight_gradient_s %g exceeds "
		    "weight_gradient_s %g (it is a share of it)",
		    L->expert_weight_gradient_s, L->weight_gradient_s);
	else if (L->expert_forward_s + L->combine_forward_s > L->forward_s)
		snprintf(buf, len, "expert_forward_s %g and combine_forward_s "
		    "%g exceed forward_s %g (they are shares of it)",
		    L->expert_forward_s, L->combine_forward_s, L->forward_s);
	else if (L->expert_backward_s + L->combine_backward_s > L->backward_s)
		snprintf(buf, len, "expert_backward_s %g and combine_backward_s "
		    "%g exceed backward_s %g (they are shares of it)",
		    L->expert_backward_s, L->combine_backward_s,
		    L->backward_s);
	else if (L->expert_weight_gradient_s > L->expert_backward_s)
		snprintf(buf, len, "expert_weight_gradient_s %g exceeds "
		    "expert_backward_s %g (it is a share of it)",
		    L->expert_weight_gradient_s, L->expert_backward_s);
	else
		return NULL;
	return buf;
}

const char *
layers_differing_number(const struct layer *a, const struct layer *b)
{
	if (a->forward_s != b->forward_s)
		return "forward_s";
	if (a->backward_s != b->backward_s)
		return "backward_s";
	if (a->weight_gradient_s != b->weight_gradient_s)
		return "weight_gradient_s";
	for (int k = 0; k < EXPERT_TIME_COLS; k++)
		if (*expert_time(a, k) != *expert_time(b, k))
			return expert_time_cols[k];
	if (a->parameter_bytes != b->parameter_bytes)
		return "parameter_bytes";
	if (a->dense_parameter_bytes != b->dense_parameter_bytes)
		return "dense_parameter_bytes";
	if (a->fp8_weight_bytes != b->fp8_weight_bytes)
		return "fp8_weight_bytes";
	if (a->fp8_expert_weight_bytes != b->fp8_expert_weight_bytes)
		return "fp8_expert_weight_bytes";
	if (a->activation_bytes != b->activation_bytes)
		return "activation_bytes";
	if (a->input_bytes != b->input_bytes)
		return "input_bytes";
	for (int k = 0; k < LCOLL_N; k++)
		if (a->coll_bytes[k] != b->coll_bytes[k])
			return coll_cols[k];
	if (a->checkpoint_bytes != b->checkpoint_bytes)
		return recompute_cols[0];
	if (a->recompute_s != b->recompute_s)
		return recompute_cols[1];
	if (a->selective_bytes != b->selective_bytes)
		return recompute_cols[2];
	if (a->selective_recompute_s != b->selective_recompute_s)
		return recompute_cols[3];
	if (a->op_sac_bytes != b->op_sac_bytes)
		return op_sac_cols[0];
	if (a->op_sac_recompute_s != b->op_sac_recompute_s)
		return op_sac_cols[1];
	return differing_pairs(a, b);
}

/* A copy_of names an earlier row with the same numbers. */
static int
check_copies(const struct csvio_table *t, const struct layer_graph *g,
    struct pl_err *err)
{
	for (size_t r = 0; r < g->n; r++) {
		const struct layer *L = &g->l[r];
		const char *what;
		long o;

		if (!L->is_copy)
			continue;
		if ((o = layers_index(g, L->copy_of)) < 0 || (size_t)o >= r)
			return pl_errf(err, t->file, L->line, "column 'copy_of': "
			    "%ld is not an earlier layer", L->copy_of);
		if ((what = layers_differing_number(L, &g->l[o])) != NULL)
			return pl_errf(err, t->file, L->line, "column 'copy_of': "
			    "column '%s' differs from layer %ld's", what,
			    L->copy_of);
	}
	return 0;
}

int
layers_read(struct layer_graph *g, const char *path, struct pl_err *err)
{
	struct csvio_table t;
	int rc;

	memset(g, 0, sizeof(*g));
	if (csvio_read_max(&t, path, LAYERS_MAX_ROWS, LAYERS_WHY_MAX, err) < 0)
		return -1;
	rc = layers_from_table(g, &t, err);
	csvio_release(&t);
	return rc;
}

int
layers_from_table(struct layer_graph *g, const struct csvio_table *tab,
    struct pl_err *err)
{
	int cid, cpar, cact, cin, ckind, cfwd, cbwd, ccopy, ccoll[LCOLL_N];
	int cdense, ctp, cfp8w, cfp8e, cwgrad, cexp[EXPERT_TIME_COLS], nexp = 0;

	memset(g, 0, sizeof(*g));
	if ((cid = csvio_col(tab, "layer_id", err)) < 0 ||
	    (cpar = csvio_col(tab, "parameter_bytes", err)) < 0 ||
	    (cact = csvio_col(tab, "activation_bytes", err)) < 0 ||
	    (cin = csvio_col(tab, "input_bytes", err)) < 0)
		goto fail;
	if (csvio_need_rows(tab, "layers", err) < 0)
		goto fail;
	ckind = csvio_col_opt(tab, "kind");
	cfwd = csvio_col_opt(tab, "forward_s");
	cbwd = csvio_col_opt(tab, "backward_s");
	g->has_times = cfwd >= 0 && cbwd >= 0;
	cwgrad = csvio_col_opt(tab, "weight_gradient_s");
	if (cwgrad >= 0 && cbwd < 0) {
		pl_errf(err, tab->file, 1, "column 'weight_gradient_s' without "
		    "column 'backward_s' (it is a share of the backward pass)");
		goto fail;
	}
	g->has_wgrad = cwgrad >= 0;
	for (int k = 0; k < EXPERT_TIME_COLS; k++)
		nexp += (cexp[k] = csvio_col_opt(tab, expert_time_cols[k])) >= 0;
	if ((nexp > 0 && nexp < EXPERT_TIME_COLS) || (nexp > 0 &&
	    !g->has_times)) {
		pl_errf(err, tab->file, 1, "columns 'expert_forward_s', "
		    "'expert_backward_s', 'expert_weight_gradient_s', "
		    "'combine_forward_s' and 'combine_backward_s' come "
		    "together, beside 'forward_s' and 'backward_s' (shares "
		    "of each)");
		goto fail;
	}
	g->has_expert_times = nexp > 0;
	ccopy = csvio_col_opt(tab, "copy_of");
	cdense = csvio_col_opt(tab, "dense_parameter_bytes");
	cfp8w = csvio_col_opt(tab, "fp8_weight_bytes");
	cfp8e = csvio_col_opt(tab, "fp8_expert_weight_bytes");
	ctp = csvio_col_opt(tab, "tp_overlap");
	g->has_tp_overlap = ctp >= 0;
	for (int k = 0; k < LCOLL_N; k++)
		ccoll[k] = csvio_col_opt(tab, coll_cols[k]);
	g->file = xstrdup(tab->file);
	g->n = tab->nrows;
	g->l = xcalloc(tab->nrows, sizeof(struct layer));
	for (size_t r = 0; r < tab->nrows; r++) {
		struct layer *L = &g->l[r];
		double v;

		L->line = tab->lines[r];
		if (csvio_long(tab, r, cid, 0, &L->id, err) < 0 ||
		    csvio_double(tab, r, cpar, CSVIO_NONNEG, &L->parameter_bytes,
		    err) < 0 ||
		    csvio_double(tab, r, cact, CSVIO_NONNEG, &L->activation_bytes,
		    err) < 0 ||
		    csvio_double(tab, r, cin, CSVIO_NONNEG, &L->input_bytes,
		    err) < 0)
			goto fail;
		/* stages are runs of rows: a gap would be a missing layer */
		if (r > 0 && (unsigned long)L->id !=
		    (unsigned long)g->l[r - 1].id + 1) {
			if (L->id == g->l[r - 1].id)
				pl_errf(err, tab->file, tab->lines[r], "column "
				    "'layer_id': duplicate layer %ld", L->id);
			else
				pl_errf(err, tab->file, tab->lines[r], "column "
				    "'layer_id': %ld after %ld (ids count up by "
				    "one, in pipeline order)", L->id,
				    g->l[r - 1].id);
			goto fail;
		}
		if (ckind >= 0)
			snprintf(L->kind, sizeof(L->kind), "%s",
			    csvio_cell(tab, r, ckind));
		if (cfwd >= 0 && csvio_double(tab, r, cfwd,
		    CSVIO_NONNEG | CSVIO_OPTIONAL, &v, err) < 0)
			goto fail;
		L->forward_s = cfwd >= 0 && !isnan(v) ? v : 0;
		if (cbwd >= 0 && csvio_double(tab, r, cbwd,
		    CSVIO_NONNEG | CSVIO_OPTIONAL, &v, err) < 0)
			goto fail;
		L->backward_s = cbwd >= 0 && !isnan(v) ? v : 0;
		if (cwgrad >= 0) {
			if (csvio_double(tab, r, cwgrad, CSVIO_NONNEG |
			    CSVIO_OPTIONAL, &v, err) < 0)
				goto fail;
			L->weight_gradient_s = isnan(v) ? 0 : v;
			if (L->weight_gradient_s > L->backward_s) {
				pl_errf(err, tab->file, tab->lines[r], "column "
				    "'weight_gradient_s': %g exceeds backward_s "
				    "%g (it is a share of it)",
				    L->weight_gradient_s, L->backward_s);
				goto fail;
			}
		}
		for (int k = 0; k < EXPERT_TIME_COLS && g->has_expert_times;
		    k++) {
			if (csvio_double(tab, r, cexp[k], CSVIO_NONNEG |
			    CSVIO_OPTIONAL, &v, err) < 0)
				goto fail;
			*expert_time(L, k) = isnan(v) ? 0 : v;
		}
		if (g->has_expert_times) {
			char why[256];

			if (expert_times_unfit(L, g->has_wgrad, why,
			    sizeof why)) {
				pl_errf(err, tab->file, tab->lines[r], "%s",
				    why);
				goto fail;
			}
		}
		if (ccopy >= 0) {
			int r2 = csvio_long(tab, r, ccopy, CSVIO_OPTIONAL,
			    &L->copy_of, err);

			if (r2 < 0)
				goto fail;
			L->is_copy = r2 == 0;
		}
		for (int k = 0; k < LCOLL_N; k++) {
			if (ccoll[k] < 0)
				continue;
			if (csvio_double(tab, r, ccoll[k],
			    CSVIO_NONNEG | CSVIO_OPTIONAL, &v, err) < 0)
				goto fail;
			L->coll_bytes[k] = isnan(v) ? 0 : v;
		}
		L->dense_parameter_bytes = L->parameter_bytes;
		if (cdense >= 0) {
			if (csvio_double(tab, r, cdense, CSVIO_NONNEG, &v, err) < 0)
				goto fail;
			if (v > L->parameter_bytes) {
				pl_errf(err, tab->file, tab->lines[r], "column "
				    "'dense_parameter_bytes': %g exceeds "
				    "parameter_bytes %g", v, L->parameter_bytes);
				goto fail;
			}
			L->dense_parameter_bytes = v;
		}
		if (cfp8w >= 0 && csvio_double(tab, r, cfp8w, CSVIO_NONNEG,
		    &L->fp8_weight_bytes, err) < 0)
			goto fail;
		if (cfp8e >= 0) {
			if (csvio_double(tab, r, cfp8e, CSVIO_NONNEG, &v,
			    err) < 0)
				goto fail;
			/* the experts' FP8 weights: FP8 weights, and not
			 * the dense parameters' */
			if (v > L->fp8_weight_bytes || v > L->parameter_bytes -
			    L->dense_parameter_bytes ||
			    L->fp8_weight_bytes - v > L->dense_parameter_bytes) {
				pl_errf(err, tab->file, tab->lines[r], "column "
				    "'fp8_expert_weight_bytes': %g does not "
				    "split fp8_weight_bytes %g into the "
				    "experts' parameter_bytes (%g) and the "
				    "dense ones (%g)", v, L->fp8_weight_bytes,
				    L->parameter_bytes -
				    L->dense_parameter_bytes,
				    L->dense_parameter_bytes);
				goto fail;
			}
			L->fp8_expert_weight_bytes = v;
		}
		if (ctp >= 0 && read_tp_pairs(tab, r, ctp, L, err) < 0)
			goto fail;
	}
	if (read_variant(tab, g, err) < 0 || read_recompute(tab, g, err) < 0 ||
	    read_op_sac(tab, g, err) < 0 ||
	    check_copies(tab, g, err) < 0 || read_model_layers(tab, g, err) < 0 ||
	    read_fp8_recipe(tab, g, err) < 0 ||
	    read_attention_kernel(tab, g, err) < 0 ||
	    read_one_text(tab, "model", &g->model, err) < 0 ||
	    read_one_text(tab, "model_config", &g->model_config, err) < 0 ||
	    read_one_text(tab, "accelerator", &g->accel, err) < 0 ||
	    read_one_text(tab, "accelerator_config", &g->accel_config,
	    err) < 0)
		goto fail;
	if (both_or_none(tab, "model", g->model, "model_config",
	    g->model_config, err) < 0 || both_or_none(tab, "accelerator",
	    g->accel, "accelerator_config", g->accel_config, err) < 0)
		goto fail;
	/* expert ranks that split the samples exchange no keys or values
	 * (c is 1) unless some fold over a sequence: bytes that say
	 * otherwise would be priced over no one */
	for (size_t r = 0; layers_ep_fold(g) == 1 && g->var_ep_batch &&
	    r < g->n; r++) {
		static const int kinds[] = { LCOLL_CONTEXT_ALL_GATHER,
			LCOLL_CONTEXT_REDUCE_SCATTER, LCOLL_ALL_GATHER };

		for (int k = 0; k < 3; k++)
			if (g->l[r].coll_bytes[kinds[k]] > 0 &&
			    (kinds[k] != LCOLL_ALL_GATHER || g->var_t == 1)) {
				pl_errf(err, tab->file, g->l[r].line, "column '%s': "
				    "%g bytes, but ep_batch 1 and c 1 leave no one "
				    "to exchange keys and values with",
				    coll_cols[kinds[k]], g->l[r].coll_bytes[kinds[k]]);
				goto fail;
			}
	}
	/* the expert kinds run over the experts' own tensor group, where it
	 * is smaller than t: whole experts (expert_t 1, or no variant) have
	 * no one to run them with, and at expert_t t the tensor kinds are
	 * theirs */
	for (size_t r = 0; r < g->n; r++)
		for (int k = LCOLL_EXPERT_ALL_GATHER; k < LCOLL_N; k++)
			if (g->l[r].coll_bytes[k] > 0 && (layers_expert_t(g) ==
			    1 || layers_expert_t(g) == g->var_t)) {
				pl_errf(err, tab->file, g->l[r].line, "column "
				    "'%s': %g bytes, but only an expert_t between "
				    "1 and t (%ld) has a group of its own to run "
				    "them over", coll_cols[k],
				    g->l[r].coll_bytes[k], layers_var(g, g->var_t,
				    1));
				goto fail;
			}
	return 0;
fail:
	layers_release(g);
	return -1;
}

long
layers_width(const struct layer_graph *g)
{
	return g->has_variant ? g->var_t * g->var_e * g->var_c : 1;
}

int
layers_has_experts(const struct layer_graph *g)
{
	for (size_t i = 0; i < g->n; i++)
		if (g->l[i].coll_bytes[LCOLL_ALL_TO_ALL] > 0)
			return 1;
	return 0;
}

long
layers_expert_t(const struct layer_graph *g)
{
	if (!g->has_variant)
		return 1;
	return g->var_et > 0 ? g->var_et : g->var_t;
}

long
layers_expert_ranks(const struct layer_graph *g)
{
	if (!g->has_variant)
		return 1;
	return g->var_e * (g->var_t / layers_expert_t(g));
}

long
layers_ep_fold(const struct layer_graph *g)
{
	if (!g->has_variant)
		return 1;
	if (!g->var_ep_batch)
		return g->var_e;
	return g->var_ep_fold > 1 ? g->var_ep_fold : 1;
}

long
layers_context_ranks(const struct layer_graph *g)
{
	return layers_var(g, g->var_c, 1) * layers_ep_fold(g);
}

long
layers_ep_samples(const struct layer_graph *g)
{
	return g->has_variant && g->var_ep_batch ? g->var_e /
	    layers_ep_fold(g) : 1;
}

long
layers_var(const struct layer_graph *g, long v, long dflt)
{
	return g->has_variant ? v : dflt;
}

int
layers_check_model(const struct layer_graph *g, long layers,
    const char *model_file, struct pl_err *err)
{
	long n = 0;

	for (size_t r = 0; r < g->n; r++)
		n += strcmp(g->l[r].kind, "transformer") == 0;
	if (n != layers)
		return pl_errf(err, g->file, 1, "column 'kind': %ld transformer "
		    "rows, but %s has %ld layers", n, model_file, layers);
	return 0;
}

int
layers_check_configs(const struct layer_graph *g, const char *model_line,
    const char *model_file, const char *accel_line, const char *accel_file,
    struct pl_err *err)
{
	const char *col[2] = { "model_config", "accelerator_config" };
	const char *built[2] = { g->model_config, g->accel_config };
	const char *name[2] = { g->model, g->accel };
	const char *given[2] = { model_line, accel_line };
	const char *file[2] = { model_file, accel_file };

	for (int k = 0; k < 2; k++) {
		char field[64], want[64], got[64];

		if (!built[k] || !given[k] || !config_line_diff(built[k],
		    given[k], field, want, got, sizeof field))
			continue;
		return pl_errf(err, g->file, 1, "column '%s': built for %s with "
		    "%s %s, but %s has %s %s", col[k], name[k], field, want,
		    file[k], field, got);
	}
	return 0;
}

int
layers_read_edges(struct layer_graph *g, const char *path, struct pl_err *err)
{
	struct csvio_table t;
	int cs, cd, cb;

	if (csvio_read_max(&t, path, LAYERS_MAX_EDGES, LAYERS_WHY_MAX, err) < 0)
		return -1;
	if ((cs = csvio_col(&t, "src_layer", err)) < 0 ||
	    (cd = csvio_col(&t, "dst_layer", err)) < 0 ||
	    (cb = csvio_col(&t, "bytes", err)) < 0)
		goto fail;
	/* no rows is no edges (graph-normalize -e writes so for a graph
	 * without edges between its layers) */
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
		/* twice the same edge would count its bytes twice */
		for (size_t k = 0; k < g->nedges; k++)
			if (g->e[k].src == (size_t)si && g->e[k].dst == (size_t)di) {
				pl_errf(err, t.file, t.lines[r], "edge %ld -> %ld "
				    "repeats line %zu", s, d, t.lines[k]);
				goto fail;
			}
		g->e[g->nedges].src = (size_t)si;
		g->e[g->nedges].dst = (size_t)di;
		g->e[g->nedges++].bytes = b;
	}
	csvio_release(&t);
	if (!g->has_recompute)	/* the checkpoints are what edges bring */
		default_recompute(g);
	return 0;
fail:
	csvio_release(&t);
	free(g->e);
	g->e = NULL;
	g->nedges = 0;
	return -1;
}

void
layers_scale_times(struct layer_graph *g, double factor)
{
	for (size_t i = 0; i < g->n; i++) {
		struct layer *L = &g->l[i];

		L->forward_s *= factor;
		L->backward_s *= factor;
		L->weight_gradient_s *= factor;
		for (int k = 0; k < EXPERT_TIME_COLS; k++)
			*expert_time(L, k) *= factor;
		L->recompute_s *= factor;
		L->selective_recompute_s *= factor;
		L->op_sac_recompute_s *= factor;
		L->forward_bound_s *= factor;
		L->backward_bound_s *= factor;
		for (int k = 0; k < L->ntp; k++) {
			L->tp[k].forward_s *= factor;
			L->tp[k].backward_s *= factor;
		}
	}
}

void
layers_copy_row(struct layer *dst, const struct layer *src)
{
	*dst = *src;
	dst->schedule = src->schedule ? xstrdup(src->schedule) : NULL;
	dst->tp = tp_pairs_dup(src->tp, src->ntp);
}

void
layers_release(struct layer_graph *g)
{
	for (size_t i = 0; g->l && i < g->n; i++) {
		free(g->l[i].schedule);
		free(g->l[i].tp);
	}
	free(g->file);
	free(g->l);
	free(g->e);
	free(g->model);
	free(g->model_config);
	free(g->accel);
	free(g->accel_config);
	memset(g, 0, sizeof(*g));
}

long
layers_split_count(const struct layer_graph *g, size_t first, size_t last,
    int ends)
{
	size_t lo = first > 0 ? first : 1;
	size_t hi = last + 1 < g->n ? last : g->n - 2;

	if (ends)
		return (long)(last - first + 1);
	return g->n < 3 || hi < lo ? 0 : (long)(hi - lo + 1);
}

long
layers_index(const struct layer_graph *g, long id)
{
	/* ids count up by one in every graph read from a file */
	unsigned long guess;

	if (g->n == 0)
		return -1;
	guess = (unsigned long)id - (unsigned long)g->l[0].id;
	if (guess < g->n && g->l[guess].id == id)
		return (long)guess;
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

int
layers_write(FILE *fp, FILE *edges_fp, const struct layer_graph *g)
{
	static const char *const eheader[] = { "src_layer", "dst_layer", "bytes" };
	const char *head[64], *f[64];
	char b[64][NUMFMT_LEN], *pairs = NULL;
	size_t nc = 0;
	/* the collective kinds written: all but the expert kinds, and
	 * those where present */
	int ncoll = writes_expert_colls(g) ? LCOLL_N : LCOLL_EXPERT_ALL_GATHER;
	int bad;

	head[nc++] = "layer_id";
	head[nc++] = "kind";
	head[nc++] = "copy_of";
	head[nc++] = "forward_s";
	head[nc++] = "backward_s";
	if (g->has_wgrad)
		head[nc++] = "weight_gradient_s";
	for (int k = 0; k < EXPERT_TIME_COLS && g->has_expert_times; k++)
		head[nc++] = expert_time_cols[k];
	head[nc++] = "parameter_bytes";
	head[nc++] = "activation_bytes";
	head[nc++] = "input_bytes";
	for (int k = 0; k < ncoll; k++)
		head[nc++] = coll_cols[k];
	if (g->has_variant) {
		head[nc++] = "dense_parameter_bytes";
		for (int k = 0; k < 5; k++)
			head[nc++] = variant_cols[k];
		/* only where it is 1 (where the experts' split differs):
		 * other graphs stay as they were */
		if (g->var_ep_batch)
			head[nc++] = "ep_batch";
		if (layers_expert_t(g) != g->var_t)
			head[nc++] = "expert_t";
		if (g->var_ep_batch && layers_ep_fold(g) > 1)
			head[nc++] = "ep_fold";
	}
	/* FP8's columns only in an FP8 graph */
	if (g->var_fp8 != FP8_NONE) {
		head[nc++] = "fp8_recipe";
		head[nc++] = "fp8_weight_bytes";
		head[nc++] = "fp8_expert_weight_bytes";
	}
	/* the kernel's column only in a graph priced for another kernel
	 * than the device's own */
	if (g->var_attn != ATTN_FUSED)
		head[nc++] = "attention_kernel";
	if (g->has_recompute)
		for (int k = 0; k < 4; k++)
			head[nc++] = recompute_cols[k];
	if (g->has_op_sac)
		for (int k = 0; k < 2; k++)
			head[nc++] = op_sac_cols[k];
	if (g->has_tp_overlap) {
		int most = 0;

		head[nc++] = "tp_overlap";
		for (size_t i = 0; i < g->n; i++)
			if (g->l[i].ntp > most)
				most = g->l[i].ntp;
		pairs = xmalloc(TP_CELL_BYTES(most));
	}
	if (g->scheduled) {
		head[nc++] = "forward_bound_s";
		head[nc++] = "backward_bound_s";
		head[nc++] = "schedule";
	}
	if (g->model_layers > 0)
		head[nc++] = "model_layers";
	if (g->model) {
		head[nc++] = "model";
		head[nc++] = "model_config";
	}
	if (g->accel) {
		head[nc++] = "accelerator";
		head[nc++] = "accelerator_config";
	}
	bad = csvio_write_row(fp, head, nc);
	for (size_t i = 0; i < g->n; i++) {
		const struct layer *L = &g->l[i];
		size_t c = 0;

		snprintf(b[c], NUMFMT_LEN, "%ld", L->id);
		f[c] = b[c], c++;
		f[c++] = L->kind;
		snprintf(b[c], NUMFMT_LEN, "%ld", L->copy_of);
		f[c] = L->is_copy ? b[c] : "", c++;
		f[c] = numfmt(b[c], L->forward_s), c++;
		f[c] = numfmt(b[c], L->backward_s), c++;
		if (g->has_wgrad)
			f[c] = numfmt(b[c], L->weight_gradient_s), c++;
		for (int k = 0; k < EXPERT_TIME_COLS && g->has_expert_times;
		    k++)
			f[c] = numfmt(b[c], *expert_time(L, k)), c++;
		f[c] = numfmt(b[c], L->parameter_bytes), c++;
		f[c] = numfmt(b[c], L->activation_bytes), c++;
		f[c] = numfmt(b[c], L->input_bytes), c++;
		for (int k = 0; k < ncoll; k++)
			f[c] = numfmt(b[c], L->coll_bytes[k]), c++;
		if (g->has_variant) {
			long v[5] = { g->var_t, g->var_e, g->var_c, g->var_sp,
				g->var_b };

			f[c] = numfmt(b[c], L->dense_parameter_bytes), c++;
			for (int k = 0; k < 5; k++) {
				snprintf(b[c], NUMFMT_LEN, "%ld", v[k]);
				f[c] = b[c], c++;
			}
			if (g->var_ep_batch)
				f[c++] = "1";
			if (layers_expert_t(g) != g->var_t) {
				snprintf(b[c], NUMFMT_LEN, "%ld", g->var_et);
				f[c] = b[c], c++;
			}
			if (g->var_ep_batch && layers_ep_fold(g) > 1) {
				snprintf(b[c], NUMFMT_LEN, "%ld",
				    layers_ep_fold(g));
				f[c] = b[c], c++;
			}
		}
		if (g->var_fp8 != FP8_NONE) {
			f[c++] = fp8_recipe_words[g->var_fp8];
			f[c] = numfmt(b[c], L->fp8_weight_bytes), c++;
			f[c] = numfmt(b[c], L->fp8_expert_weight_bytes), c++;
		}
		if (g->var_attn != ATTN_FUSED)
			f[c++] = attention_kernel_words[g->var_attn];
		if (g->has_recompute) {
			double v[4] = { L->checkpoint_bytes, L->recompute_s,
				L->selective_bytes, L->selective_recompute_s };

			for (int k = 0; k < 4; k++)
				f[c] = numfmt(b[c], v[k]), c++;
		}
		if (g->has_op_sac) {
			f[c] = numfmt(b[c], L->op_sac_bytes), c++;
			f[c] = numfmt(b[c], L->op_sac_recompute_s), c++;
		}
		if (g->has_tp_overlap)
			f[c++] = write_tp_pairs(L, pairs);
		if (g->scheduled) {
			f[c] = numfmt(b[c], L->forward_bound_s), c++;
			f[c] = numfmt(b[c], L->backward_bound_s), c++;
			f[c++] = L->is_copy || !L->schedule ? "" : L->schedule;
		}
		if (g->model_layers > 0) {
			snprintf(b[c], NUMFMT_LEN, "%ld", g->model_layers);
			f[c] = b[c], c++;
		}
		if (g->model) {
			f[c++] = g->model;
			f[c++] = g->model_config;
		}
		if (g->accel) {
			f[c++] = g->accel;
			f[c++] = g->accel_config;
		}
		bad |= csvio_write_row(fp, f, nc);
	}
	free(pairs);
	if (edges_fp == NULL)
		return bad;
	bad |= csvio_write_row(edges_fp, eheader, 3);
	for (size_t k = 0; k < g->nedges; k++) {
		snprintf(b[0], NUMFMT_LEN, "%ld", g->l[g->e[k].src].id);
		snprintf(b[1], NUMFMT_LEN, "%ld", g->l[g->e[k].dst].id);
		f[0] = b[0];
		f[1] = b[1];
		f[2] = numfmt(b[2], g->e[k].bytes);
		bad |= csvio_write_row(edges_fp, f, 3);
	}
	return bad;
}
