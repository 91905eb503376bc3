/*
 * artifact.c - the paper artifact's tables, and its cells priced with its
 * own cost model (docs/compat.md).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "artifact/artifact.h"
#include "base/csvio.h"
#include "search/baselines.h"

static const struct art_names names_table[] = {
	/* H100 has graphs (and baseline rows) of both; the TPUv4 setups
	 * only megatronbert's */
	{ "bertlarge", { "bertlarge", "megatronbert", NULL }, "megatronbert" },
	{ "llama2-7b", { "llama2", NULL, NULL }, "llama2" },
	{ "llama3-70b", { "llama3", NULL, NULL }, "llama3" },
	{ "gpt3-175b", { "megatrongpt3", NULL, NULL }, "megatrongpt3" },
	/* baseline_configs.csv spells it both ways; no graph of it exists */
	{ "gpt3-35b", { "gpt3_small", "gpt_small", NULL }, "megatrongpt3" },
	{ "mixtral-8x7b", { "mixtral", NULL, NULL }, "mixtral" },
};

const struct art_names *
artifact_names(const char *ours)
{
	for (size_t k = 0; k < sizeof names_table / sizeof names_table[0]; k++)
		if (strcmp(names_table[k].ours, ours) == 0)
			return &names_table[k];
	return NULL;
}

const char *
artifact_method(const char *ours, int k)
{
	static const char *const map[][2] = {
		{ "manual", "manual-published" },
		{ "manual-published", "manual-published" },
		{ "mcmc", "mcmc-published" },
		{ "phaze", "phaze-published" },
		{ "alpa-like", "alpa-e-published" },
		{ "nest", "nest" },
		{ "nest", "nest-artifact-input" },
	};

	for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
		if (strcmp(map[i][0], ours) == 0 && k-- == 0)
			return map[i][1];
	return NULL;
}

/* Read dir/name and look up the named columns, in order. */
static int
read_table(struct csvio_table *t, const char *dir, const char *name,
    const char *const *cols, int *idx, struct pl_err *err)
{
	char path[1024];

	snprintf(path, sizeof path, "%s/%s", dir, name);
	if (csvio_read(t, path, err) < 0)
		return -1;
	for (int k = 0; cols[k]; k++)
		if ((idx[k] = csvio_col(t, cols[k], err)) < 0) {
			csvio_release(t);
			return -1;
		}
	return 0;
}

int
artifact_model(const char *dir, const char *name, struct art_model *m,
    struct pl_err *err)
{
	static const char *const cols[] = { "model", "artifact_name",
	    "graph_prefix", "expert_parallel", "activation_recomputation",
	    NULL };
	enum { MODEL, NAME, PREFIX, EP, RC };
	struct csvio_table t;
	int c[5], found = 0;

	if (read_table(&t, dir, "models.csv", cols, c, err) < 0)
		return -1;
	for (size_t r = 0; r < t.nrows && !found; r++) {
		long rc;

		if (strcmp(csvio_cell(&t, r, c[NAME]), name) != 0 &&
		    strcmp(csvio_cell(&t, r, c[MODEL]), name) != 0)
			continue;
		if (csvio_long(&t, r, c[EP], CSVIO_POSITIVE, &m->e, err) < 0 ||
		    csvio_long(&t, r, c[RC], CSVIO_NONNEG, &rc, err) < 0) {
			csvio_release(&t);
			return -1;
		}
		m->recompute = rc != 0;
		snprintf(m->model, sizeof m->model, "%s",
		    csvio_cell(&t, r, c[MODEL]));
		snprintf(m->name, sizeof m->name, "%s",
		    csvio_cell(&t, r, c[NAME]));
		snprintf(m->prefix, sizeof m->prefix, "%s",
		    csvio_cell(&t, r, c[PREFIX]));
		found = 1;
	}
	csvio_release(&t);
	return found;
}

/* layer_partition: p counts of transformer layers, summing to L. */
static int
read_partition(const struct csvio_table *t, size_t r, int col,
    struct art_baseline *b, struct pl_err *err)
{
	const char *s = csvio_cell(t, r, col);
	long sum = 0, n = 0;

	while (*s) {
		char *end;
		long v = strtol(s, &end, 10);

		if (end == s || v < 1 || n == COMPAT_MAX_STAGES)
			return pl_errf(err, t->file, t->lines[r], "column "
			    "'layer_partition': '%s' is not a list of positive "
			    "layer counts", csvio_cell(t, r, col));
		b->part[n++] = v;
		sum += v;
		for (s = end; *s == ' '; s++)
			;
	}
	if (n != b->p || sum != b->layers)
		return pl_errf(err, t->file, t->lines[r], "column "
		    "'layer_partition': %ld counts summing to %ld, but p = %ld "
		    "and %ld transformer layers", n, sum, b->p, b->layers);
	return 0;
}

int
artifact_graph_name(const struct art_model *m, long mbs, long t, char *buf,
    size_t len)
{
	const char *p = m->prefix;
	size_t at = 0;
	int has_t = 0;

	/* MBS -> the micro-batch, _tmp_T -> _tmp_<t> */
	while (*p && at + 32 < len) {
		if (strncmp(p, "MBS", 3) == 0) {
			at += (size_t)snprintf(buf + at, len - at, "%ld", mbs);
			p += 3;
		} else if (strncmp(p, "_tmp_T", 6) == 0) {
			at += (size_t)snprintf(buf + at, len - at, "_tmp_%ld", t);
			p += 6;
			has_t = 1;
		} else
			buf[at++] = *p++;
	}
	buf[at] = '\0';
	return *p || (!has_t && t != 1) ? -1 : 0;
}

int
artifact_baseline(const char *dir, const char *setup, long devices,
    const char *method, const char *ours, struct art_baseline *b,
    struct pl_err *err)
{
	static const char *const cols[] = { "setup", "devices", "method",
	    "model", "p", "d", "t", "num_transformer_layers", NULL };
	enum { SETUP, DEVICES, METHOD, MODEL, P, D, T, LAYERS };
	const struct art_names *nm = artifact_names(ours);
	struct csvio_table t;
	int c[8], found = 0, part;
	char dev[32];

	if (nm == NULL)
		return 0;
	if (read_table(&t, dir, "baseline_configs.csv", cols, c, err) < 0)
		return -1;
	part = csvio_col_opt(&t, "layer_partition");
	snprintf(dev, sizeof dev, "%ld", devices);
	for (int n = 0; n < 3 && nm->names[n] && !found; n++)
		for (size_t r = 0; r < t.nrows && !found; r++) {
			if (strcmp(csvio_cell(&t, r, c[SETUP]), setup) != 0 ||
			    strcmp(csvio_cell(&t, r, c[DEVICES]), dev) != 0 ||
			    strcmp(csvio_cell(&t, r, c[METHOD]), method) != 0 ||
			    strcmp(csvio_cell(&t, r, c[MODEL]), nm->names[n])
			    != 0)
				continue;
			if (csvio_long(&t, r, c[P], CSVIO_POSITIVE, &b->p,
			    err) < 0 || csvio_long(&t, r, c[D], CSVIO_POSITIVE,
			    &b->d, err) < 0 || csvio_long(&t, r, c[T],
			    CSVIO_POSITIVE, &b->t, err) < 0 || csvio_long(&t, r,
			    c[LAYERS], CSVIO_POSITIVE, &b->layers, err) < 0) {
				csvio_release(&t);
				return -1;
			}
			b->uneven = part >= 0 && *csvio_cell(&t, r, part);
			if (b->uneven && read_partition(&t, r, part, b, err) < 0) {
				csvio_release(&t);
				return -1;
			}
			snprintf(b->model, sizeof b->model, "%s", nm->names[n]);
			found = 1;
		}
	csvio_release(&t);
	return found;
}

/* The Alpa-E time per batch of (the artifact's short model name, devices,
 * micro-batch): 1 found (INFINITY for "Inf", no plan), 0 none, -1 error. */
static int
alpa_e_time(const char *dir, const char *model, long devices, long mbs,
    double *time, struct pl_err *err)
{
	static const char *const cols[] = { "model", "num_devices", "mbs",
	    "time_per_batch", NULL };
	enum { MODEL, DEVICES, MBS, TIME };
	struct csvio_table t;
	int c[4], found = 0;

	if (read_table(&t, dir, "alpa_e_reference.csv", cols, c, err) < 0)
		return -1;
	for (size_t r = 0; r < t.nrows && !found; r++) {
		long dev, b;

		if (strcmp(csvio_cell(&t, r, c[MODEL]), model) != 0)
			continue;
		if (csvio_long(&t, r, c[DEVICES], CSVIO_POSITIVE, &dev,
		    err) < 0 || csvio_long(&t, r, c[MBS], CSVIO_POSITIVE, &b,
		    err) < 0) {
			csvio_release(&t);
			return -1;
		}
		if (dev != devices || b != mbs)
			continue;
		if (strcmp(csvio_cell(&t, r, c[TIME]), "Inf") == 0)
			*time = INFINITY;
		else if (csvio_double(&t, r, c[TIME], CSVIO_POSITIVE, time,
		    err) < 0) {
			csvio_release(&t);
			return -1;
		}
		found = 1;
	}
	csvio_release(&t);
	return found;
}

/* A graph of index.csv: its directory name and tensor-parallel width. */
struct art_graph {
	char name[128];
	long t;
};

/* The graphs index.csv lists for `setup` whose names are `prefix...`;
 * the caller frees *out. */
static int
graphs_of(const char *dir, const char *setup, const char *prefix,
    struct art_graph **out, size_t *n, struct pl_err *err)
{
	static const char *const cols[] = { "setup", "graph", "tmp_width",
	    NULL };
	enum { SETUP, GRAPH, WIDTH };
	struct csvio_table t;
	int c[3];

	*out = NULL;
	*n = 0;
	if (read_table(&t, dir, "index.csv", cols, c, err) < 0)
		return -1;
	for (size_t r = 0; r < t.nrows; r++) {
		const char *g = csvio_cell(&t, r, c[GRAPH]);
		struct art_graph *ag;

		if (strcmp(csvio_cell(&t, r, c[SETUP]), setup) != 0 ||
		    strncmp(g, prefix, strlen(prefix)) != 0)
			continue;
		*out = xrealloc(*out, (*n + 1) * sizeof **out);
		ag = &(*out)[(*n)++];
		if (csvio_long(&t, r, c[WIDTH], CSVIO_POSITIVE, &ag->t,
		    err) < 0) {
			free(*out);
			*out = NULL;
			csvio_release(&t);
			return -1;
		}
		snprintf(ag->name, sizeof ag->name, "%s", g);
	}
	csvio_release(&t);
	return 0;
}

/* Table 2's s and c of a graph, from its name (..._sp_True_..._cp_2). */
static void
graph_sc(const char *name, long t, long *s, long *c)
{
	const char *cp = strstr(name, "_cp_");

	*s = strstr(name, "_sp_True") ? t : 1;
	*c = cp ? atol(cp + 4) : 1;
	if (*c < 1)
		*c = 1;
}

/* "first..last" artifact layer ids of each stage, in the plan's order. */
static void
stage_list(const struct compat_graph *g, const struct compat_plan *p,
    char *buf, size_t len)
{
	size_t at = 0;
	long i = 0;

	buf[0] = '\0';
	for (int k = 0; k < p->nstages && at < len; k++) {
		at += (size_t)snprintf(buf + at, len - at, "%s%ld..%ld",
		    k ? " " : "", g->layer_id[i], g->layer_id[i +
		    p->size[k] - 1]);
		i += p->size[k];
	}
}

/* Record a priced plan in r: status from its memory, the rest from it. */
static void
take_plan(struct art_result *r, const struct compat_graph *g,
    const struct compat_cluster *c, const struct compat_plan *p, double time)
{
	long used = 0;

	r->has_plan = 1;
	r->plan = *p;
	r->time = time;
	r->peak_memory_bytes = compat_peak_memory(g, p);
	for (int k = 0; k < p->nstages; k++)
		used += p->width[k];
	r->devices_used = used * p->d;
	r->status = r->peak_memory_bytes <= c->memory_bytes ? BL_OK : BL_OOM;
	stage_list(g, p, r->stages, sizeof r->stages);
}

/*
 * nest: compat_solve on every graph the artifact has of the model at this
 * micro-batch (each tensor width, sequence- and context-parallel variant),
 * the fastest plan of all: the space the paper's Table 2 plans come from.
 * Without all_graphs (nest-artifact-input), only the graphs the
 * artifact's DP input lists (the model's graph_prefix at every tensor
 * width, no _sp_True or _cp_2 variant), its own plan space.  The graphs
 * are those of the
 * first of the model's artifact names with any on the setup: one family,
 * the one its published plans are scored on (H100's bertlarge and
 * megatronbert graphs come from different estimate files and differ
 * 50-fold in time).
 */
static int
run_nest(const char *dir, const char *setup, long mbs,
    const struct art_names *nm, const struct compat_cluster *c,
    int all_graphs, struct art_result *r, struct pl_err *err)
{
	int tried = 0;

	for (int n = 0; n < 3 && nm->names[n]; n++) {
		struct art_model m;
		struct art_graph *gs;
		size_t ng;
		char prefix[96];
		int found;

		if ((found = artifact_model(dir, nm->names[n], &m, err)) < 0)
			return -1;
		snprintf(prefix, sizeof prefix, "%s_mbs_%ld_", nm->names[n], mbs);
		if (graphs_of(dir, setup, prefix, &gs, &ng, err) < 0)
			return -1;
		for (size_t k = 0; k < ng && found; k++) {
			struct compat_graph g;
			struct compat_plan p;
			struct compat_cluster cm = *c;
			char path[1024], own[256];
			double time;
			long sp, cp;

			if (!all_graphs && (artifact_graph_name(&m, mbs,
			    gs[k].t, own, sizeof own) < 0 ||
			    strcmp(own, gs[k].name) != 0))
				continue;
			snprintf(path, sizeof path, "%s/%s/%s", dir, setup,
			    gs[k].name);
			if (compat_read_graph(&g, path, c->ilp, err) < 0) {
				free(gs);
				return -1;
			}
			tried++;
			graph_sc(gs[k].name, gs[k].t, &sp, &cp);
			/* a stage's replica spans t x e x c devices (Table 2:
			 * Mixtral {8, 8, 1, 1, 4, 2} on 512) */
			cm.expert_parallel = m.e;
			time = compat_solve(&g, &cm, gs[k].t * m.e * cp,
			    m.recompute, &p);
			if (time < r->time) {
				take_plan(r, &g, &cm, &p, time);
				r->t = gs[k].t;
				r->s = sp;
				r->c = cp;
				r->e = m.e;
				snprintf(r->graph, sizeof r->graph, "%s",
				    gs[k].name);
			}
			compat_release_graph(&g);
		}
		free(gs);
		if (tried)
			break;
	}
	if (!tried)
		snprintf(r->note, sizeof r->note, "the artifact has no graph of "
		    "this model at micro-batch %ld on %s", mbs, setup);
	else if (!r->has_plan) {
		r->status = BL_OOM;
		snprintf(r->note, sizeof r->note, "no plan of any of %d graphs "
		    "fits in %.4g GiB", tried, c->memory_bytes / 1073741824.0);
	} else
		snprintf(r->note, sizeof r->note, "%s", r->graph);
	return 0;
}

/* A published plan (rule 8): {p, d, t} of baseline_configs.csv on the
 * graph of width t, layers split ceil(L / p), scored back to front. */
static int
run_published(const char *dir, const char *setup, long devices, long mbs,
    const char *ours, const char *method, const struct compat_cluster *c,
    struct art_result *r, struct pl_err *err)
{
	struct art_baseline b;
	struct art_model m;
	struct art_graph *gs;
	struct compat_graph g;
	struct compat_plan p;
	char graph[256];
	size_t ng;
	int found;

	if ((found = artifact_baseline(dir, setup, devices, method, ours, &b,
	    err)) <= 0) {
		snprintf(r->note, sizeof r->note, "no published %s plan",
		    method);
		return found;
	}
	r->t = b.t;
	r->s = 1;
	r->c = 1;
	if ((found = artifact_model(dir, b.model, &m, err)) <= 0) {
		snprintf(r->note, sizeof r->note, "published {p=%ld d=%ld t=%ld}"
		    " for %s: the artifact has no graph of it (rule 8)", b.p,
		    b.d, b.t, b.model);
		return found;
	}
	r->e = m.e;
	if (artifact_graph_name(&m, mbs, b.t, graph, sizeof graph) < 0)
		graph[0] = '\0';	/* the model has no tensor-parallel graph */
	if (graphs_of(dir, setup, graph, &gs, &ng, err) < 0)
		return -1;
	found = 0;
	for (size_t k = 0; k < ng; k++)
		found |= graph[0] && strcmp(gs[k].name, graph) == 0;
	free(gs);
	if (!found) {
		snprintf(r->note, sizeof r->note, "published {p=%ld d=%ld t=%ld}:"
		    " no %s graph of t = %ld on %s (rule 8)", b.p, b.d, b.t,
		    b.model, b.t, setup);
		return 0;
	}
	snprintf(r->graph, sizeof r->graph, "%s", graph);
	{
		char path[1024];

		snprintf(path, sizeof path, "%s/%s/%s", dir, setup, graph);
		if (compat_read_graph(&g, path, c->ilp, err) < 0)
			return -1;
	}
	memset(&p, 0, sizeof p);
	if ((b.uneven ? compat_split(&p, g.n, b.part, (int)b.p, b.t * m.e) :
	    compat_uniform_split(&p, g.n, b.layers, (int)b.p, b.t * m.e)) < 0)
		snprintf(r->note, sizeof r->note, "published {p=%ld d=%ld t=%ld}:"
		    " the split of %ld layers leaves a stage empty (rule 8)",
		    b.p, b.d, b.t, b.layers);
	else if (b.p * b.d * b.t * m.e > devices)
		snprintf(r->note, sizeof r->note, "published {p=%ld d=%ld t=%ld"
		    " e=%ld} needs %ld devices", b.p, b.d, b.t, m.e,
		    b.p * b.d * b.t * m.e);
	else {
		struct compat_cluster cm = *c;

		cm.expert_parallel = m.e;
		p.d = b.d;
		p.recompute = m.recompute;
		take_plan(r, &g, &cm, &p, compat_time(&g, &cm, &p));
		snprintf(r->note, sizeof r->note, "%s%s", graph, r->status ==
		    BL_OOM ? ": a stage exceeds device memory (rule 10)" : "");
	}
	compat_release_graph(&g);
	return 0;
}

/* Alpa-E as published: alpa_e_reference.csv has no setup column; its
 * runs are the paper's Figure 5/6 ones, on the TPUv4 fat-tree. */
static int
run_alpa_e(const char *dir, const char *setup, long devices, long mbs,
    const struct art_names *nm, struct art_result *r, struct pl_err *err)
{
	int found = 0;

	if (strncmp(setup, "tpuv4_fatTree", 13) == 0)
		for (int n = 0; n < 3 && nm->names[n] && !found; n++) {
			struct art_model m;
			int k = artifact_model(dir, nm->names[n], &m, err);

			if (k < 0 || (k > 0 && (found = alpa_e_time(dir, m.model,
			    devices, mbs, &r->time, err)) < 0))
				return -1;
		}
	if (!found)
		snprintf(r->note, sizeof r->note, "no published Alpa-E result");
	else if (isinf(r->time))
		snprintf(r->note, sizeof r->note, "Alpa-E found no plan "
		    "(published time Inf)");
	else
		r->status = BL_OK;
	return 0;
}

int
artifact_run(const char *dir, const char *setup, long devices, long mbs,
    const char *ours, const char *method, struct art_result *r,
    struct pl_err *err)
{
	static const char *const baselines[] = { "manual", "mcmc", "phaze" };
	const struct art_names *nm = artifact_names(ours);
	struct compat_cluster c;
	char path[1024];

	memset(r, 0, sizeof *r);
	r->status = BL_INFEASIBLE;
	r->time = INFINITY;
	snprintf(path, sizeof path, "%s/setups.csv", dir);
	if (compat_read_cluster(&c, path, setup, devices, err) < 0)
		return -1;
	if (c.micro_batch != mbs)
		return pl_errf(err, path, 0, "setup %s at %ld devices has "
		    "micro-batch %ld, not %ld", setup, devices, c.micro_batch,
		    mbs);
	r->global_batch = c.global_batch;
	if (nm == NULL) {
		snprintf(r->note, sizeof r->note, "the artifact has no model "
		    "%s", ours);
		return 0;
	}
	if (strcmp(method, "nest") == 0 ||
	    strcmp(method, "nest-artifact-input") == 0)
		return run_nest(dir, setup, mbs, nm, &c,
		    strcmp(method, "nest") == 0, r, err);
	if (strcmp(method, "alpa-e-published") == 0)
		return run_alpa_e(dir, setup, devices, mbs, nm, r, err);
	for (int k = 0; k < 3; k++) {
		char name[32];

		snprintf(name, sizeof name, "%s-published", baselines[k]);
		if (strcmp(method, name) == 0)
			return run_published(dir, setup, devices, mbs, ours,
			    baselines[k], &c, r, err);
	}
	return pl_errf(err, NULL, 0, "--compat nest: no method '%s' (nest, "
	    "nest-artifact-input, manual-published, mcmc-published, phaze-published, "
	    "alpa-e-published)", method);
}
