/* planio.c - dpsolve's inputs and outputs (planio.h). */
/* realpath() (an index entry that links out of its folder) */
#define _XOPEN_SOURCE 700
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <libxml/parser.h>
#include <libxml/tree.h>

#include "base/csvio.h"
#include "base/xmlio.h"
#include "io/planio.h"
#include "model/config.h"
#include "model/straggler.h"

int
planio_format(const char *name)
{
	static const char *const names[] = { "xml", "csv", "megatron",
		"summary", "torchtitan" };

	for (int i = 0; i < 5; i++)
		if (strcmp(name, names[i]) == 0)
			return i;
	return -1;
}

static void
add_graph(struct variants *vs, const struct layer_graph *g)
{
	vs->g = xrealloc(vs->g, (vs->n + 1) * sizeof *vs->g);
	vs->g[vs->n++] = *g;
}

/* A listed file stays in the index's folder or below it. */
static int
inside_folder(const char *name)
{
	const char *p = name;

	if (*name == '/' || *name == '\0')
		return 0;
	for (;;) {
		size_t n = strcspn(p, "/");

		if (n == 2 && strncmp(p, "..", 2) == 0)
			return 0;
		if (p[n] == '\0')
			return 1;
		p += n + 1;
	}
}

/* The folder of `index` (its first dirlen bytes; none: the current
 * folder), links resolved; NULL if it cannot be. */
static char *
index_folder(const char *index, size_t dirlen)
{
	char *dir = xmalloc(dirlen + 2), *base;

	if (dirlen)
		snprintf(dir, dirlen + 1, "%s", index);
	else
		strcpy(dir, ".");
	base = realpath(dir, NULL);
	free(dir);
	return base;
}

/* The file `path` lies, links resolved, in the folder `base` or below. */
static int
resolves_inside(const char *base, const char *path)
{
	char *real = base ? realpath(path, NULL) : NULL;
	int inside = 0;

	if (real) {
		size_t n = strlen(base);

		inside = strncmp(real, base, n) == 0 &&
		    (real[n] == '/' || strcmp(base, "/") == 0);
	}
	free(real);
	return inside;
}

/*
 * An index row's own numbers (t, e, c, sp, micro_batch_samples, width;
 * each optional) against the graph it names: an index that contradicts
 * its file would plan one variant under another's name.
 */
static int
check_index_row(const struct csvio_table *t, size_t r,
    const struct layer_graph *g, struct pl_err *err)
{
	static const char *const cols[] = { "t", "e", "c", "sp",
		"micro_batch_samples", "width", "ep_batch", "expert_t",
		"ep_fold" };
	long want[9] = { g->var_t, g->var_e, g->var_c, g->var_sp, g->var_b,
		layers_width(g), g->var_ep_batch, layers_expert_t(g),
		g->var_ep_batch ? layers_ep_fold(g) : 1 };

	for (int k = 0; k < 9; k++) {
		int col = csvio_col_opt(t, cols[k]);
		long v;

		if (col < 0)
			continue;
		if (csvio_long(t, r, col, CSVIO_NONNEG, &v, err) < 0)
			return -1;
		if (!g->has_variant)
			return pl_errf(err, t->file, t->lines[r], "column '%s': "
			    "%s has no variant columns to match", cols[k],
			    g->file);
		if (v != want[k])
			return pl_errf(err, t->file, t->lines[r], "column '%s': "
			    "%ld, but %s says %ld", cols[k], v, g->file,
			    want[k]);
	}
	{
		int col = csvio_col_opt(t, "fp8_recipe");
		const char *w = col >= 0 ? csvio_cell(t, r, col) : NULL;

		if (w && strcmp(w, fp8_recipe_words[g->var_fp8]) != 0)
			return pl_errf(err, t->file, t->lines[r], "column "
			    "'fp8_recipe': '%s', but %s says '%s'", w, g->file,
			    fp8_recipe_words[g->var_fp8]);
	}
	return 0;
}

/* <parallelism>'s optional attribute `name`: the index of its word in
 * `words` (NULL-ended; `choices` says them), `absent` without it, -1
 * (err set) for another word. */
static int
attr_word(const char *path, xmlNodePtr par, const char *name,
    const char *const *words, const char *choices, int absent,
    struct pl_err *err)
{
	char *w = xmlio_attr(par, name);
	int k = absent;

	if (w && (k = word_index(words, w)) < 0)
		pl_errf(err, path, (size_t)xmlGetLineNo(par), "<parallelism> "
		    "%s: '%s' is not %s", name, w, choices);
	free(w);
	return k;
}

static int
same_variant(const struct layer_graph *a, const struct layer_graph *b)
{
	return a->var_t == b->var_t && a->var_e == b->var_e &&
	    a->var_c == b->var_c && a->var_sp == b->var_sp &&
	    a->var_b == b->var_b && a->var_ep_batch == b->var_ep_batch &&
	    layers_ep_fold(a) == layers_ep_fold(b) &&
	    layers_expert_t(a) == layers_expert_t(b) &&
	    a->var_fp8 == b->var_fp8 && a->var_attn == b->var_attn;
}

/* The files of an index's column `col`, relative to its folder (the
 * first dirlen bytes of its name; `base`, that folder resolved). */
static int
read_entries(struct variants *vs, const struct csvio_table *t, int col,
    size_t dirlen, const char *base, struct pl_err *err)
{
	size_t first = vs->n;	/* this index's graphs start here */
	struct stat st;

	for (size_t r = 0; r < t->nrows; r++) {
		const char *name = csvio_cell(t, r, col);
		char *path = xmalloc(dirlen + strlen(name) + 1);
		struct layer_graph g;
		int rc;

		if (!inside_folder(name)) {
			free(path);
			return pl_errf(err, t->file, t->lines[r], "column 'file': "
			    "'%s' is not a file in the index's folder", name);
		}
		memcpy(path, t->file, dirlen);
		strcpy(path + dirlen, name);
		if (access(path, R_OK) != 0 || stat(path, &st) != 0) {
			pl_errf(err, t->file, t->lines[r], "column 'file': cannot "
			    "open '%s': %s", path, strerror(errno));
			free(path);
			return -1;
		}
		/* a folder or a pipe is no graph (a pipe would block) */
		if (!S_ISREG(st.st_mode)) {
			free(path);
			return pl_errf(err, t->file, t->lines[r], "column 'file': "
			    "'%s' is not a regular file", name);
		}
		if (!resolves_inside(base, path)) {
			free(path);
			return pl_errf(err, t->file, t->lines[r], "column 'file': "
			    "'%s' leads outside the index's folder (a link)",
			    name);
		}
		rc = layers_read(&g, path, err);
		free(path);
		if (rc < 0)
			return -1;
		if (check_index_row(t, r, &g, err) < 0) {
			layers_release(&g);
			return -1;
		}
		for (size_t j = first; j < vs->n; j++)
			if (g.has_variant && same_variant(&vs->g[j], &g)) {
				layers_release(&g);
				return pl_errf(err, t->file, t->lines[r], "column "
				    "'file': the same t, e, c, sp, "
				    "micro_batch_samples, ep_batch, ep_fold, "
				    "expert_t and fp8_recipe as line %zu",
				    t->lines[j - first]);
			}
		add_graph(vs, &g);
	}
	return 0;
}

/* Read the files an index lists, relative to the index's directory. */
static int
read_index(struct variants *vs, const struct csvio_table *t, struct pl_err *err)
{
	const char *slash = strrchr(t->file, '/');
	int col = csvio_col(t, "file", err), rc;
	size_t dirlen = slash ? (size_t)(slash - t->file) + 1 : 0;
	char *base;

	if (col < 0)
		return -1;
	if (csvio_need_rows(t, "variants listed", err) < 0)
		return -1;
	base = index_folder(t->file, dirlen);	/* once, not a row */
	rc = read_entries(vs, t, col, dirlen, base, err);
	free(base);
	return rc;
}

static int
check_variants(const struct variants *vs, struct pl_err *err)
{
	const struct layer_graph *a = &vs->g[0];

	/* a planner prices layers by their times: a graph must have them,
	 * and not all zero (a step of 0 s, an infinite throughput) */
	for (size_t i = 0; i < vs->n; i++) {
		const struct layer_graph *g = &vs->g[i];
		double total = 0;

		if (!g->has_times)
			return pl_errf(err, g->file, 1, "no columns forward_s "
			    "and backward_s: a plan needs the layers' times");
		for (size_t r = 0; r < g->n; r++)
			total += g->l[r].forward_s + g->l[r].backward_s;
		if (total <= 0)
			return pl_errf(err, g->file, g->l[0].line, "column "
			    "'forward_s': every layer takes 0 s, nothing to "
			    "plan");
	}

	for (size_t i = 1; i < vs->n; i++) {
		const struct layer_graph *b = &vs->g[i];

		/* one fused attention kernel a search: its launch names one */
		if (b->var_attn != a->var_attn)
			return pl_errf(err, b->file, b->n ? b->l[0].line : 0,
			    "column 'attention_kernel': priced for '%s', but "
			    "%s for '%s' (one kernel a search)",
			    attention_kernel_words[b->var_attn], a->file,
			    attention_kernel_words[a->var_attn]);
		if (!a->has_variant || !b->has_variant)
			return pl_errf(err, a->has_variant ? b->file : a->file,
			    0, "several graphs need the variant columns t, e, "
			    "c, sp, micro_batch_samples");
		if (b->n != a->n)
			return pl_errf(err, b->file, 0, "inconsistent variants: "
			    "%zu layers, %s has %zu", b->n, a->file, a->n);
		for (size_t r = 0; r < a->n; r++)
			if (b->l[r].id != a->l[r].id)
				return pl_errf(err, b->file, b->l[r].line,
				    "inconsistent variants: layer_id %ld, %s "
				    "has %ld in that row", b->l[r].id, a->file,
				    a->l[r].id);
		for (size_t j = 0; j < i; j++)
			if (same_variant(&vs->g[j], b))
				return pl_errf(err, b->file, 0, "inconsistent "
				    "variants: the same t, e, c, sp, b, ep_batch, "
				    "ep_fold, expert_t and fp8_recipe as %s",
				    vs->g[j].file);
	}
	return 0;
}

int
planio_read_variants(struct variants *vs, char *const *paths, size_t n,
    struct pl_err *err)
{
	memset(vs, 0, sizeof *vs);
	for (size_t i = 0; i < n; i++) {
		struct csvio_table t;
		struct layer_graph g;
		int rc;

		if (csvio_read_max(&t, paths[i], LAYERS_MAX_ROWS,
		    LAYERS_WHY_MAX, err) < 0)
			goto fail;
		if (csvio_col_opt(&t, "file") >= 0)
			rc = read_index(vs, &t, err);
		else if ((rc = layers_from_table(&g, &t, err)) == 0)
			add_graph(vs, &g);
		csvio_release(&t);
		if (rc < 0)
			goto fail;
	}
	if (check_variants(vs, err) < 0)
		goto fail;
	return 0;
fail:
	planio_release_variants(vs);
	return -1;
}

void
planio_release_variants(struct variants *vs)
{
	for (size_t i = 0; i < vs->n; i++)
		layers_release(&vs->g[i]);
	free(vs->g);
	memset(vs, 0, sizeof *vs);
}

/* ---- reading a plan back -------------------------------------------- */

/* A required attribute: xmlio_attr_long, absent as an error. */
static int
attr_long(const char *file, xmlNodePtr n, const char *name, long min,
    long *out, struct pl_err *err)
{
	int rc = xmlio_attr_long(file, n, name, min, out, err);

	if (rc > 0)
		return pl_errf(err, file, (size_t)xmlGetLineNo(n), "<%s>: "
		    "missing attribute %s", (const char *)n->name, name);
	return rc;
}

static int
row_of(const char *file, xmlNodePtr n, const char *name,
    const struct layer_graph *g, size_t *row, struct pl_err *err)
{
	long id, r;

	if (attr_long(file, n, name, -1000000, &id, err) < 0)
		return -1;
	if ((r = layers_index(g, id)) < 0)
		return pl_errf(err, file, (size_t)xmlGetLineNo(n), "<stage> %s: "
		    "no layer %ld in %s", name, id, g->file);
	*row = (size_t)r;
	return 0;
}

/*
 * What dpsolve writes and nothing else: each element's attributes from
 * its list (the priced ones of an output plan are read back as written,
 * not used), no child element or text inside, no namespace.  A plan
 * edited into something else is refused, not half read.
 */
static const char *const plan_attrs[] = { "model", "network",
	"accelerator", "mode", "global_batch_samples", "micro_batch_samples",
	"device_memory_bytes", "straggler_factor", NULL };
static const char *const parallelism_attrs[] = { "p", "d", "t", "sp", "e",
	"c", "recompute", "zero_stage", "zero_degree", "virtual_stages",
	"distributed_optimizer", "overlap_grad_reduce", "overlap_param_gather",
	"ends_in_pipeline_split", "tp_comm_overlap", "recompute_layers",
	"ep_batch", "ep_fold", "expert_t", "deepep", "fp8_recipe",
	"fp8_param_gather", "schedule", "fsdp", "fsdp_shard", "stage_major",
	"attention_kernel", "ep_overlap", NULL };
static const char *const stage_attrs[] = { "index", "first_layer",
	"last_layer", "layers", "devices", "first_device", "zero_stage",
	"zero_degree", "compute_s", "collective_s", "p2p_in_s", "p2p_in_level",
	"p2p_out_s", "p2p_out_level", "zero_s", "stage_s", "sync_s",
	"sync_total_s", "optimizer_s", "weights_bytes", "gradients_bytes",
	"optimizer_bytes", "activations_bytes", "stash_bytes", "memory_bytes",
	"fits", NULL };
static const char *const result_attrs[] = { "step_s",
	"throughput_samples_per_s", "microbatches", "devices_used",
	"bottleneck_stage", "bottleneck_s", "sync_stage", "sync_s", "fits",
	NULL };
/* dpsolve -k: a runner-up, its parallelism and result on one element */
static const char *const runner_attrs[] = { "rank", "micro_batch_samples",
	"peak_memory_bytes", "p", "d", "t", "sp", "e", "c", "recompute",
	"zero_stage", "zero_degree", "virtual_stages", "distributed_optimizer",
	"overlap_grad_reduce", "overlap_param_gather",
	"ends_in_pipeline_split", "tp_comm_overlap", "recompute_layers",
	"ep_batch", "ep_fold", "expert_t", "deepep", "fp8_recipe",
	"fp8_param_gather", "schedule", "fsdp", "fsdp_shard", "stage_major",
	"attention_kernel", "ep_overlap", "step_s", "throughput_samples_per_s",
	"microbatches", "devices_used", "bottleneck_stage", "bottleneck_s",
	"sync_stage", "sync_s", "fits", NULL };

static int
plan_element_check(const char *file, xmlNodePtr n,
    const char *const *known, struct pl_err *err)
{
	size_t line = (size_t)xmlGetLineNo(n);

	if (n->ns != NULL)
		return pl_errf(err, file, line, "<%s>: a namespace; plans have "
		    "none", (const char *)n->name);
	for (xmlAttrPtr a = n->properties; a; a = a->next) {
		int k = 0;

		while (known[k] && strcmp(known[k], (const char *)a->name))
			k++;
		if (known[k] == NULL || a->ns != NULL)
			return pl_errf(err, file, line, "<%s>: unknown "
			    "attribute '%s'", (const char *)n->name,
			    (const char *)a->name);
	}
	if (n == xmlDocGetRootElement(n->doc))
		return 0;
	for (xmlNodePtr c = n->children; c; c = c->next) {
		const xmlChar *t = c->content;

		if (c->type == XML_ELEMENT_NODE)
			return pl_errf(err, file, (size_t)xmlGetLineNo(c),
			    "<%s> inside <%s>: not an element of a plan",
			    (const char *)c->name, (const char *)n->name);
		if (c->type != XML_TEXT_NODE && c->type != XML_COMMENT_NODE)
			continue;
		while (c->type == XML_TEXT_NODE && t && *t && strchr(" \t\r\n",
		    *t))
			t++;
		if (c->type == XML_TEXT_NODE && t && *t)
			return pl_errf(err, file, line, "<%s>: text inside",
			    (const char *)n->name);
	}
	return 0;
}

/* The optional run-mode attributes of <parallelism> (absent: v = 1, the
 * rest off, as Megatron-LM's defaults). */
static int
mode_attrs(const char *file, xmlNodePtr par, struct plan *p,
    struct pl_err *err)
{
	static const char *const flags[] = { "distributed_optimizer",
		"overlap_grad_reduce", "overlap_param_gather",
		"ends_in_pipeline_split", "tp_comm_overlap", "deepep",
		"fp8_param_gather", "ep_overlap" };
	int *dst[sizeof flags / sizeof flags[0]] = { &p->distopt,
		&p->overlap_grad, &p->overlap_param, &p->ends_in_split,
		&p->tp_overlap, &p->deepep, &p->fp8_param_gather,
		&p->ep_overlap };
	long v = 1;

	if (xmlio_attr_long(file, par, "virtual_stages", 1, &v, err) < 0)
		return -1;
	p->v = v;
	for (size_t k = 0; k < sizeof flags / sizeof flags[0]; k++) {
		long f = 0;

		if (xmlio_attr_long(file, par, flags[k], 0, &f, err) < 0)
			return -1;
		if (f > 1)
			return pl_errf(err, file, (size_t)xmlGetLineNo(par),
			    "<parallelism> %s: %ld is not 0 or 1", flags[k], f);
		*dst[k] = (int)f;
	}
	if (p->overlap_param && !p->distopt)
		return pl_errf(err, file, (size_t)xmlGetLineNo(par),
		    "<parallelism> overlap_param_gather: needs "
		    "distributed_optimizer=\"1\" (only it gathers weights)");
	/* the pipeline schedule (absent: 1f1b) */
	{
		char *w = xmlio_attr(par, "schedule");

		p->schedule = w ? plan_schedule_of(w) : PLAN_1F1B;
		if (p->schedule < 0) {
			pl_errf(err, file, (size_t)xmlGetLineNo(par),
			    "<parallelism> schedule: '%s' is not 1f1b, zbh1, "
			    "zbv or dualpipev", w);
			free(w);
			return -1;
		}
		free(w);
	}
	/* FSDP2 in place of Megatron's data parallelism (plan_mode.fsdp) */
	{
		long f = 0;

		if (xmlio_attr_long(file, par, "fsdp", 0, &f, err) < 0)
			return -1;
		if (f > PLAN_FSDP_KEPT)
			return pl_errf(err, file, (size_t)xmlGetLineNo(par),
			    "<parallelism> fsdp: %ld is not 0 (off), 1 "
			    "(resharded after forward) or 2 (kept gathered)",
			    f);
		p->fsdp = (int)f;
		if (xmlio_attr_long(file, par, "fsdp_shard", 0,
		    &p->fsdp_shard, err) < 0)
			return -1;
		if (p->fsdp_shard > 0 && !p->fsdp)
			return pl_errf(err, file, (size_t)xmlGetLineNo(par),
			    "<parallelism> fsdp_shard: HSDP's shard group "
			    "needs fsdp=\"1\" or \"2\"");
		if (p->fsdp_shard == p->d)	/* all of them: FSDP2 */
			p->fsdp_shard = 0;
	}
	if (p->fp8_param_gather && plan_fp8_gather_refused(p->g->var_fp8,
	    p->fsdp, p->distopt) != NULL)
		return pl_errf(err, file, (size_t)xmlGetLineNo(par),
		    "<parallelism> fp8_param_gather: needs "
		    "distributed_optimizer=\"1\" and an FP8 graph (a "
		    "variant with an fp8_recipe), or fsdp with fp8_recipe "
		    "float8 (torchao's float8 all-gather)");
	/* the stages' placement (plan_mode.stage_major) */
	{
		long sm = 0;

		if (xmlio_attr_long(file, par, "stage_major", 0, &sm, err) < 0)
			return -1;
		if (sm > 1)
			return pl_errf(err, file, (size_t)xmlGetLineNo(par),
			    "<parallelism> stage_major: %ld is not 0 (a "
			    "replica's stages one after another) or 1 (each "
			    "stage's replicas side by side)", sm);
		p->stage_major = (int)sm;
	}
	/* Megatron's --recompute-method block, --recompute-num-layers N */
	if (xmlio_attr_long(file, par, "recompute_layers", 0,
	    &p->recompute_layers, err) < 0)
		return -1;
	if (p->recompute_layers > 0 && p->recompute != RC_FULL)
		return pl_errf(err, file, (size_t)xmlGetLineNo(par),
		    "<parallelism> recompute_layers: %ld (block "
		    "recomputation) needs recompute=\"1\" (full)",
		    p->recompute_layers);
	/* Megatron-LM asserts it (arguments.py, core_r0.8.0) */
	if (p->tp_overlap && !(p->g->has_variant && p->g->var_sp))
		return pl_errf(err, file, (size_t)xmlGetLineNo(par),
		    "<parallelism> tp_comm_overlap: needs sequence "
		    "parallelism (a variant with sp 1)");
	return 0;
}

/*
 * A stage continues where the previous one ended (every layer in exactly
 * one stage), and its devices, when the plan states them, are what the
 * variant's width and the ZeRO degree give.
 */
static int
check_stage(const char *file, xmlNodePtr n, const struct plan *p,
    const struct plan_stage *s, size_t next, struct pl_err *err)
{
	const struct layer_graph *g = p->g;
	long w = layers_width(g), dev;
	int rc;

	if (s->first != next && next == 0)
		return pl_errf(err, file, (size_t)xmlGetLineNo(n), "<stage> "
		    "first_layer: %ld, but %s starts at layer %ld (stages "
		    "cover every layer once, in order)", g->l[s->first].id,
		    g->file, g->l[0].id);
	if (s->first != next)
		return pl_errf(err, file, (size_t)xmlGetLineNo(n), "<stage> "
		    "first_layer: %ld, but the previous stage ends at layer "
		    "%ld (stages cover every layer once, in order)",
		    g->l[s->first].id, g->l[next - 1].id);
	if (s->last < s->first)
		return pl_errf(err, file, (size_t)xmlGetLineNo(n), "<stage> "
		    "last_layer: %ld comes before first_layer %ld",
		    g->l[s->last].id, g->l[s->first].id);
	if (s->z > LAYERS_MAX_WIDTH)
		return pl_errf(err, file, (size_t)xmlGetLineNo(n), "<stage> "
		    "zero_degree: %ld, more than %ld", s->z,
		    (long)LAYERS_MAX_WIDTH);
	if ((rc = xmlio_attr_long(file, n, "devices", 1, &dev, err)) < 0)
		return -1;
	if (rc == 0 && dev != w * s->z)
		return pl_errf(err, file, (size_t)xmlGetLineNo(n), "<stage> "
		    "devices: %ld, but the variant's %ld devices times ZeRO "
		    "degree %ld make %ld", dev, w, s->z, w * s->z);
	return 0;
}

int
planio_plan_shape(const char *path, xmlNodePtr root, xmlNodePtr *par,
    xmlNodePtr *res, int *nstages, struct pl_err *err)
{
	double x;

	*par = *res = NULL;
	*nstages = 0;
	if (root == NULL || strcmp((const char *)root->name, "plan") != 0)
		return pl_errf(err, path, root ? (size_t)xmlGetLineNo(root) : 1,
		    "root element '%s': expected <plan>", root ?
		    (const char *)root->name : "");
	if (plan_element_check(path, root, plan_attrs, err) < 0 ||
	    xmlio_attr_double(path, root, "global_batch_samples", 1, &x,
	    err) < 0 || xmlio_attr_double(path, root, "device_memory_bytes",
	    1, &x, err) < 0)
		return -1;
	/* what dpsolve writes: one <parallelism>, the stages, at most one
	 * <result>, and with -k the runner-ups (not read: -E evaluates the
	 * plan itself) */
	for (xmlNodePtr n = root->children; n; n = n->next) {
		const char *name = (const char *)n->name;
		int is_stage, is_result, is_par;

		if (n->type != XML_ELEMENT_NODE) {
			if (n->type == XML_TEXT_NODE && n->content &&
			    n->content[strspn((const char *)n->content,
			    " \t\r\n")])
				return pl_errf(err, path, (size_t)xmlGetLineNo(
				    root), "<plan>: text inside");
			continue;
		}
		is_stage = strcmp(name, "stage") == 0;
		is_result = strcmp(name, "result") == 0;
		is_par = strcmp(name, "parallelism") == 0;
		if (strcmp(name, "runner_up") == 0) {
			if (plan_element_check(path, n, runner_attrs, err) < 0)
				return -1;
			continue;
		}
		if (!is_stage && !is_result && !is_par)
			return pl_errf(err, path, (size_t)xmlGetLineNo(n),
			    "<%s>: not an element of a plan", name);
		if ((is_result && *res) || (is_par && *par))
			return pl_errf(err, path, (size_t)xmlGetLineNo(n),
			    "<%s>: a second <%s>", name, name);
		if (plan_element_check(path, n, is_stage ? stage_attrs :
		    is_result ? result_attrs : parallelism_attrs, err) < 0)
			return -1;
		*nstages += is_stage;
		if (is_result)
			*res = n;
		if (is_par)
			*par = n;
	}
	if (*par == NULL)
		return pl_errf(err, path, (size_t)xmlGetLineNo(root), "<plan> "
		    "has no <parallelism>");
	return 0;
}

int
planio_read_plan(const char *path, const struct variants *vs, struct plan *p,
    struct pl_err *err)
{
	xmlDocPtr doc;
	xmlNodePtr root, par, res, n;
	long t, e, c, sp, b, d, rc, np, epb = 0, et = 0, fold = 1;
	int fp8, attn;
	size_t next = 0;
	int ns, has_p;

	memset(p, 0, sizeof *p);
	if ((doc = xmlio_read(path, err)) == NULL)
		return -1;
	root = xmlDocGetRootElement(doc);
	if (planio_plan_shape(path, root, &par, &res, &ns, err) < 0)
		goto fail;
	if (attr_long(path, root, "micro_batch_samples", 1, &b, err) < 0 ||
	    attr_long(path, par, "d", 1, &d, err) < 0 ||
	    attr_long(path, par, "t", 1, &t, err) < 0 ||
	    attr_long(path, par, "e", 1, &e, err) < 0 ||
	    attr_long(path, par, "c", 1, &c, err) < 0 ||
	    attr_long(path, par, "sp", 0, &sp, err) < 0 ||
	    attr_long(path, par, "recompute", 0, &rc, err) < 0)
		goto fail;
	/* optional: the expert ranks split the samples (absent: 0) */
	if (xmlio_attr_long(path, par, "ep_batch", 0, &epb, err) < 0)
		goto fail;
	/* optional: the device factor it was priced with (absent: none) */
	if (xmlio_attr_double(path, root, "straggler_factor", 0,
	    &p->straggler_factor, err) < 0)
		goto fail;
	/* optional: a batch split's ranks over a sequence (absent: 1) */
	if (xmlio_attr_long(path, par, "ep_fold", 1, &fold, err) < 0)
		goto fail;
	/* optional: the experts' tensor split (absent: t) */
	if (xmlio_attr_long(path, par, "expert_t", 1, &et, err) < 0)
		goto fail;
	if (et == 0)
		et = t;
	/* optional: the FP8 recipe (absent: none, bf16) and the fused
	 * attention kernel (absent: the device's own) */
	if ((fp8 = attr_word(path, par, "fp8_recipe", fp8_recipe_words,
	    "none, delayed, tensorwise, blockwise, mxfp8, float8 or float8-tp",
	    FP8_NONE, err)) < 0 ||
	    (attn = attr_word(path, par, "attention_kernel",
	    attention_kernel_words, "fused or fa2", ATTN_FUSED, err)) < 0)
		goto fail;
	if (epb > 1) {
		pl_errf(err, path, (size_t)xmlGetLineNo(par), "<parallelism> "
		    "ep_batch: %ld is not 0 or 1", epb);
		goto fail;
	}
	if (fold == 0)
		fold = 1;
	if (fold > 1 && !epb) {
		pl_errf(err, path, (size_t)xmlGetLineNo(par), "<parallelism> "
		    "ep_fold: %ld without ep_batch 1 (a fold with no batch "
		    "split is e's own)", fold);
		goto fail;
	}
	for (size_t i = 0; i < vs->n && p->g == NULL; i++) {
		const struct layer_graph *g = &vs->g[i];

		if (g->has_variant ? g->var_t == t && g->var_e == e &&
		    g->var_c == c && g->var_sp == sp && g->var_b == b &&
		    g->var_ep_batch == epb && layers_expert_t(g) == et &&
		    (!epb || layers_ep_fold(g) == fold) &&
		    g->var_fp8 == fp8 && g->var_attn == attn :
		    t == 1 && e == 1 && c == 1 && sp == 0 && epb == 0 &&
		    et == 1 && fp8 == 0 && attn == g->var_attn)
			p->g = g;
	}
	if (p->g == NULL) {
		pl_errf(err, path, (size_t)xmlGetLineNo(par), "no graph given "
		    "for the variant t=%ld e=%ld c=%ld sp=%ld b=%ld%s%s%.0ld%s%.0ld%s%s%s%s",
		    t, e, c, sp, b, epb ? " ep_batch=1" : "", fold > 1 ?
		    " ep_fold=" : "", fold > 1 ? fold : 0, et != t ?
		    " expert_t=" : "", et != t ? et : 0, fp8 ? " fp8_recipe=" :
		    "", fp8 ? fp8_recipe_words[fp8] : "", attn ?
		    " attention_kernel=" : "", attn ?
		    attention_kernel_words[attn] : "");
		/* one kernel a search (check_variants): say so where the
		 * plan names the other */
		if (vs->n > 0 && vs->g[0].var_attn != attn) {
			size_t at = strlen(err->msg);

			snprintf(err->msg + at, sizeof err->msg - at, " (the "
			    "graphs are priced for attention_kernel=%s, the "
			    "plan for %s)",
			    attention_kernel_words[vs->g[0].var_attn],
			    attention_kernel_words[attn]);
		}
		goto fail;
	}
	p->d = d;
	if (rc >= RC_N) {
		pl_errf(err, path, (size_t)xmlGetLineNo(par), "<parallelism> "
		    "recompute: %ld is not 0 (none), 1 (full), 2 (selective) or 3 "
		    "(per operator)",
		    rc);
		goto fail;
	}
	p->recompute = (int)rc;
	if (mode_attrs(path, par, p, err) < 0)
		goto fail;
	p->line = (size_t)xmlGetLineNo(par);
	if ((has_p = xmlio_attr_long(path, par, "p", 1, &np, err)) < 0)
		goto fail;
	if (has_p == 0 && np != ns) {
		pl_errf(err, path, p->line, "<parallelism> p: %ld, but the plan "
		    "has %d <stage>", np, ns);
		goto fail;
	}
	if (ns == 0) {
		pl_errf(err, path, (size_t)xmlGetLineNo(root), "the plan has no "
		    "<stage>");
		goto fail;
	}
	if (d > LAYERS_MAX_WIDTH) {
		pl_errf(err, path, (size_t)xmlGetLineNo(par), "<parallelism> d: "
		    "%ld replicas, more than %ld", d, (long)LAYERS_MAX_WIDTH);
		goto fail;
	}
	p->stage = xcalloc((size_t)ns, sizeof *p->stage);
	for (n = root->children; n; n = n->next) {
		struct plan_stage *s = &p->stage[p->nstages];
		long zs;

		if (n->type != XML_ELEMENT_NODE ||
		    strcmp((const char *)n->name, "stage") != 0)
			continue;
		if (row_of(path, n, "first_layer", p->g, &s->first, err) < 0 ||
		    row_of(path, n, "last_layer", p->g, &s->last, err) < 0 ||
		    attr_long(path, n, "zero_stage", 0, &zs, err) < 0 ||
		    attr_long(path, n, "zero_degree", 1, &s->z, err) < 0 ||
		    check_stage(path, n, p, s, next, err) < 0)
			goto fail;
		if (zs > 3) {
			pl_errf(err, path, (size_t)xmlGetLineNo(n), "<stage> "
			    "zero_stage: %ld is not 0-3", zs);
			goto fail;
		}
		/* what an output plan says of a stage must be this stage */
		{
			long idx, nl;
			int has;

			if ((has = xmlio_attr_long(path, n, "index", 0, &idx,
			    err)) < 0)
				goto fail;
			if (has == 0 && idx != p->nstages) {
				pl_errf(err, path, (size_t)xmlGetLineNo(n),
				    "<stage> index: %ld, but it is stage %d",
				    idx, p->nstages);
				goto fail;
			}
			if ((has = xmlio_attr_long(path, n, "layers", 1, &nl,
			    err)) < 0)
				goto fail;
			if (has == 0 && (size_t)nl != s->last - s->first + 1) {
				pl_errf(err, path, (size_t)xmlGetLineNo(n),
				    "<stage> layers: %ld, but first_layer to "
				    "last_layer hold %zu", nl,
				    s->last - s->first + 1);
				goto fail;
			}
		}
		s->zero_stage = (int)zs;
		s->line = (size_t)xmlGetLineNo(n);
		next = s->last + 1;
		p->nstages++;
	}
	if (next != p->g->n) {
		pl_errf(err, path, (size_t)xmlGetLineNo(root), "the stages end "
		    "at layer %ld; %s goes on to layer %ld", p->g->l[next - 1].id,
		    p->g->file, p->g->l[p->g->n - 1].id);
		goto fail;
	}
	xmlFreeDoc(doc);
	return 0;
fail:
	free(p->stage);
	p->stage = NULL;
	xmlFreeDoc(doc);
	return -1;
}

/* ---- writing ------------------------------------------------------------ */

static void
prop_num(xmlNodePtr n, const char *name, double v)
{
	char buf[NUMFMT_LEN];

	xmlNewProp(n, (const xmlChar *)name, (const xmlChar *)numfmt(buf, v));
}

static void
prop_str(xmlNodePtr n, const char *name, const char *v)
{
	xmlNewProp(n, (const xmlChar *)name, (const xmlChar *)v);
}

static int
max_zero(const struct plan *p, long *degree)
{
	int zs = 0;

	*degree = 1;
	for (int i = 0; i < p->nstages; i++) {
		if (p->stage[i].zero_stage > zs)
			zs = p->stage[i].zero_stage;
		if (p->stage[i].z > *degree)
			*degree = p->stage[i].z;
	}
	return zs;
}

/* A plan's <parallelism> attributes (on `n`). */
static void
parallelism_props(xmlNodePtr n, const struct plan *p)
{
	const struct layer_graph *g = p->g;
	long zd;
	int zs = max_zero(p, &zd);

	prop_num(n, "p", p->nstages);
	prop_num(n, "d", (double)p->d);
	prop_num(n, "t", (double)layers_var(g, g->var_t, 1));
	prop_num(n, "sp", (double)layers_var(g, g->var_sp, 0));
	prop_num(n, "e", (double)layers_var(g, g->var_e, 1));
	prop_num(n, "c", (double)layers_var(g, g->var_c, 1));
	prop_num(n, "recompute", p->recompute);
	prop_num(n, "zero_stage", zs);
	prop_num(n, "zero_degree", (double)zd);
	prop_num(n, "virtual_stages", (double)(p->v > 1 ? p->v : 1));
	prop_num(n, "distributed_optimizer", p->distopt);
	prop_num(n, "overlap_grad_reduce", p->overlap_grad);
	prop_num(n, "overlap_param_gather", p->overlap_param);
	prop_num(n, "ends_in_pipeline_split", p->ends_in_split);
	prop_num(n, "tp_comm_overlap", p->tp_overlap);
	if (p->recompute == RC_FULL && p->recompute_layers > 0)
		prop_num(n, "recompute_layers", (double)p->recompute_layers);
	if (g->has_variant && g->var_ep_batch)
		prop_num(n, "ep_batch", 1);
	if (g->has_variant && g->var_ep_batch && layers_ep_fold(g) > 1)
		prop_num(n, "ep_fold", (double)layers_ep_fold(g));
	if (layers_expert_t(g) != layers_var(g, g->var_t, 1))
		prop_num(n, "expert_t", (double)layers_expert_t(g));
	if (p->deepep)
		prop_num(n, "deepep", 1);
	/* only where on: other plans stay as they were */
	if (p->ep_overlap)
		prop_num(n, "ep_overlap", 1);
	if (g->var_fp8 != FP8_NONE)
		prop_str(n, "fp8_recipe", fp8_recipe_words[g->var_fp8]);
	if (g->var_attn != ATTN_FUSED)
		prop_str(n, "attention_kernel",
		    attention_kernel_words[g->var_attn]);
	if (p->fp8_param_gather)
		prop_num(n, "fp8_param_gather", 1);
	if (p->schedule != PLAN_1F1B)
		prop_str(n, "schedule", plan_schedule_name[p->schedule]);
	if (p->fsdp)
		prop_num(n, "fsdp", p->fsdp);
	if (p->fsdp && p->fsdp_shard > 0)
		prop_num(n, "fsdp_shard", (double)p->fsdp_shard);
	if (p->stage_major)
		prop_num(n, "stage_major", 1);
}

/* A plan's <result> attributes (on `n`). */
static void
result_props(xmlNodePtr n, const struct plan_result *r)
{
	prop_num(n, "step_s", r->step_s);
	prop_num(n, "throughput_samples_per_s", r->throughput_samples_per_s);
	prop_num(n, "microbatches", (double)r->m);
	prop_num(n, "devices_used", (double)r->devices_used);
	prop_num(n, "bottleneck_stage", r->bottleneck);
	prop_num(n, "bottleneck_s", r->max_load_s);
	prop_num(n, "sync_stage", r->sync_stage);
	prop_num(n, "sync_s", r->max_sync_s);
	prop_str(n, "fits", r->fits ? "yes" : "no");
}

double
planio_peak_memory(const struct plan_result *r)
{
	double peak = 0;

	for (int i = 0; i < r->nstages; i++)
		if (r->stage[i].mem.total > peak)
			peak = r->stage[i].mem.total;
	return peak;
}

void
planio_write_xml(FILE *fp, const struct plan_meta *m, const struct plan *p,
    const struct plan_result *r)
{
	planio_write_xml_ranked(fp, m, p, r, 1);
}

void
planio_write_xml_ranked(FILE *fp, const struct plan_meta *m,
    const struct plan *plans, const struct plan_result *results, size_t n)
{
	const struct plan *p = &plans[0];
	const struct plan_result *r = &results[0];
	const struct layer_graph *g = p->g;
	xmlDocPtr doc = xmlNewDoc((const xmlChar *)"1.0");
	xmlNodePtr root = xmlNewNode(NULL, (const xmlChar *)"plan"), e;
	xmlChar *buf;
	int size;

	xmlDocSetRootElement(doc, root);
	prop_str(root, "model", m->label);
	prop_str(root, "network", m->network);
	prop_str(root, "accelerator", m->accelerator);
	prop_str(root, "mode", m->mode);
	prop_num(root, "global_batch_samples", (double)m->global_batch);
	prop_num(root, "micro_batch_samples", (double)layers_var(g, g->var_b,
	    1));
	prop_num(root, "device_memory_bytes", m->memory_bytes);
	if (m->straggler_factor > 0)
		prop_num(root, "straggler_factor", m->straggler_factor);
	parallelism_props(xmlNewChild(root, NULL,
	    (const xmlChar *)"parallelism", NULL), p);
	for (int i = 0; i < p->nstages; i++) {
		const struct plan_stage *s = &p->stage[i];
		const struct stage_cost *c = &r->stage[i];

		e = xmlNewChild(root, NULL, (const xmlChar *)"stage", NULL);
		prop_num(e, "index", i);
		prop_num(e, "first_layer", (double)g->l[s->first].id);
		prop_num(e, "last_layer", (double)g->l[s->last].id);
		prop_num(e, "layers", (double)(s->last - s->first + 1));
		prop_num(e, "devices", (double)c->devices);
		prop_num(e, "first_device", (double)c->first_device);
		prop_num(e, "zero_stage", s->zero_stage);
		prop_num(e, "zero_degree", (double)s->z);
		prop_num(e, "compute_s", c->compute_s);
		prop_num(e, "collective_s", c->collective_s);
		prop_num(e, "p2p_in_s", c->p2p_in_s);
		prop_num(e, "p2p_in_level", c->level_in);
		prop_num(e, "p2p_out_s", c->p2p_out_s);
		prop_num(e, "p2p_out_level", c->level_out);
		prop_num(e, "zero_s", c->zero_s);
		prop_num(e, "stage_s", c->load_s);
		prop_num(e, "sync_s", c->sync_s);
		prop_num(e, "sync_total_s", c->sync_total_s);
		prop_num(e, "optimizer_s", c->optimizer_s);
		prop_num(e, "weights_bytes", c->mem.weights);
		prop_num(e, "gradients_bytes", c->mem.gradients);
		prop_num(e, "optimizer_bytes", c->mem.optimizer);
		prop_num(e, "activations_bytes", c->mem.activations);
		prop_num(e, "stash_bytes", c->mem.stash);
		prop_num(e, "memory_bytes", c->mem.total);
		prop_str(e, "fits", c->fits ? "yes" : "no");
	}
	result_props(xmlNewChild(root, NULL, (const xmlChar *)"result", NULL),
	    r);
	for (size_t k = 1; k < n; k++) {
		const struct layer_graph *gk = plans[k].g;

		e = xmlNewChild(root, NULL, (const xmlChar *)"runner_up", NULL);
		prop_num(e, "rank", (double)(k + 1));
		prop_num(e, "micro_batch_samples", (double)layers_var(gk,
		    gk->var_b, 1));
		parallelism_props(e, &plans[k]);
		result_props(e, &results[k]);
		prop_num(e, "peak_memory_bytes", planio_peak_memory(
		    &results[k]));
	}
	xmlDocDumpFormatMemoryEnc(doc, &buf, &size, "UTF-8", 1);
	fwrite(buf, 1, (size_t)size, fp);
	xmlFree(buf);
	xmlFreeDoc(doc);
}

void
planio_write_csv(FILE *fp, const struct plan *p, const struct plan_result *r)
{
	planio_write_csv_ranked(fp, p, r, 1);
}

void
planio_write_csv_ranked(FILE *fp, const struct plan *plans,
    const struct plan_result *results, size_t n)
{
	fprintf(fp, "%sstage,first_layer,last_layer,layers,devices,"
	    "first_device,zero_stage,zero_degree,compute_s,p2p_s,collective_s,"
	    "zero_s,sync_s,stage_s,memory_bytes,fits,bottleneck\n", n > 1 ?
	    "rank," : "");
	for (size_t k = 0; k < n; k++)
	for (int i = 0; i < plans[k].nstages; i++) {
		const struct plan *p = &plans[k];
		const struct plan_result *r = &results[k];
		const struct plan_stage *s = &p->stage[i];
		const struct stage_cost *c = &r->stage[i];
		char b[8][NUMFMT_LEN];

		if (n > 1)
			fprintf(fp, "%zu,", k + 1);
		fprintf(fp, "%d,%ld,%ld,%zu,%ld,%ld,%d,%ld,%s,%s,%s,%s,%s,%s,"
		    "%s,%s,%s\n", i, p->g->l[s->first].id, p->g->l[s->last].id,
		    s->last - s->first + 1, c->devices, c->first_device,
		    s->zero_stage, s->z, numfmt(b[0], c->compute_s),
		    numfmt(b[1], c->p2p_in_s + c->p2p_out_s),
		    numfmt(b[2], c->collective_s), numfmt(b[3], c->zero_s),
		    numfmt(b[4], c->sync_s), numfmt(b[5], c->load_s),
		    numfmt(b[6], c->mem.total), c->fits ? "yes" : "no",
		    i == r->bottleneck ? "yes" : "no");
	}
}

int
planio_stragglers(struct variants *vs, const char *path, long devices,
    double *factor, struct pl_err *err)
{
	struct straggler_table t;

	if (straggler_read(&t, path, err) < 0)
		return -1;
	*factor = straggler_expected_slowest(&t, devices);
	straggler_release(&t);
	for (size_t i = 0; i < vs->n; i++)
		layers_scale_times(&vs->g[i], *factor);
	return 0;
}

void
planio_straggler_note(const char *path, const struct plan *p, double factor,
    long devices)
{
	if (p->straggler_factor > 0 && factor <= 0)
		warnx("%s: priced with every device the expected slowest of its "
		    "job's (straggler_factor %.6g); without -J, each at the "
		    "median device's speed", path, p->straggler_factor);
	else if (p->straggler_factor > 0 && fabs(factor -
	    p->straggler_factor) > 1e-9 * p->straggler_factor)
		warnx("%s: priced with straggler_factor %.6g, -J gives %.6g "
		    "over %ld devices (the -N and table it was searched "
		    "with?)", path, p->straggler_factor, factor, devices);
}

void
planio_env(struct plan_env *env, const struct network *net,
    const struct accel_cfg *accel, const struct price_opts *o)
{
	*env = (struct plan_env){ .net = net,
	    .devices = o->devices ? o->devices : net->ndevices,
	    .memory_bytes = o->memory_bytes ? o->memory_bytes :
	    accel->memory_bytes - accel_memory_reserve_bytes(accel),
	    .optimizer = o->optimizer, .global_batch = o->global_batch,
	    .grad_bytes_per_param = o->grad_bytes_per_param,
	    .tp_overlap = o->tp_overlap, .grad_copies = o->grad_copies,
	    .p2p_scatter_gather = o->p2p_scatter_gather,
	    .tp_grad_blocking = o->tp_grad_blocking, .deepep = o->deepep,
	    .optimizer_Bps = accel_memory_Bps(accel),
	    .tp_comm_sm_share = accel_tp_comm_sm_share(accel) };
}
