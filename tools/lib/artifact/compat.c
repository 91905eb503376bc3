/* compat.c - the artifact's cost model (compat.h, docs/compat.md). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "artifact/compat.h"
#include "base/csvio.h"

#define GiB_BYTES 1073741824.0

struct chain_row {
	long order, id;
	double fwd, bwd, param, act;
};

static int
cmp_order(const void *a, const void *b)
{
	long x = ((const struct chain_row *)a)->order;
	long y = ((const struct chain_row *)b)->order;

	return (x > y) - (x < y);
}

/* The rows of layers.csv in dp_order, the order the artifact's solver
 * lists the DP's nodes in. */
static int
read_layers(struct chain_row **out, size_t *n, const char *path, int ilp,
    struct pl_err *err)
{
	struct csvio_table t;
	struct chain_row *rows;
	int c[6];
	const char *names[6] = {
		"dp_order", "layer_id", ilp ? "fwd_ilp_ms" : "fwd_seq_ms",
		ilp ? "bwd_ilp_ms" : "bwd_seq_ms", "parameterSize_bytes",
		"activationSize_bytes"
	};

	if (csvio_read(&t, path, err) < 0)
		return -1;
	for (int k = 0; k < 6; k++)
		if ((c[k] = csvio_col(&t, names[k], err)) < 0) {
			csvio_release(&t);
			return -1;
		}
	if (csvio_need_rows(&t, "layers", err) < 0) {
		csvio_release(&t);
		return -1;
	}
	rows = xcalloc(t.nrows, sizeof(*rows));
	for (size_t r = 0; r < t.nrows; r++) {
		struct chain_row *w = &rows[r];

		if (csvio_long(&t, r, c[0], CSVIO_NONNEG, &w->order, err) < 0 ||
		    csvio_long(&t, r, c[1], 0, &w->id, err) < 0 ||
		    csvio_double(&t, r, c[2], CSVIO_NONNEG, &w->fwd, err) < 0 ||
		    csvio_double(&t, r, c[3], CSVIO_NONNEG, &w->bwd, err) < 0 ||
		    csvio_double(&t, r, c[4], CSVIO_NONNEG, &w->param, err) < 0 ||
		    csvio_double(&t, r, c[5], CSVIO_NONNEG, &w->act, err) < 0) {
			free(rows);
			csvio_release(&t);
			return -1;
		}
		for (size_t q = 0; q < r; q++)
			if (rows[q].id == w->id) {
				pl_errf(err, t.file, t.lines[r], "column "
				    "'layer_id': layer %ld twice", w->id);
				free(rows);
				csvio_release(&t);
				return -1;
			}
	}
	qsort(rows, t.nrows, sizeof(*rows), cmp_order);
	*out = rows;
	*n = t.nrows;
	csvio_release(&t);
	return 0;
}

static long
row_of(const struct chain_row *rows, size_t n, long id)
{
	for (size_t i = 0; i < n; i++)
		if (rows[i].id == id)
			return (long)i;
	return -1;
}

struct layer_edges {
	size_t n;
	long *src, *dst;	/* rows of layers.csv (dp_order) */
	double *bytes;
};

static int
read_edges(struct layer_edges *e, const struct chain_row *rows, size_t n,
    const char *path, struct pl_err *err)
{
	struct csvio_table t;
	int cs, cd, cb;

	memset(e, 0, sizeof(*e));
	if (csvio_read(&t, path, err) < 0)
		return -1;
	if ((cs = csvio_col(&t, "src", err)) < 0 ||
	    (cd = csvio_col(&t, "dst", err)) < 0 ||
	    (cb = csvio_col(&t, "bytes", err)) < 0)
		goto fail;
	e->src = xcalloc(t.nrows + 1, sizeof(long));
	e->dst = xcalloc(t.nrows + 1, sizeof(long));
	e->bytes = xcalloc(t.nrows + 1, sizeof(double));
	for (size_t r = 0; r < t.nrows; r++) {
		long s, d;

		if (csvio_long(&t, r, cs, 0, &s, err) < 0 ||
		    csvio_long(&t, r, cd, 0, &d, err) < 0 ||
		    csvio_double(&t, r, cb, CSVIO_NONNEG, &e->bytes[r], err) < 0)
			goto fail;
		e->src[r] = row_of(rows, n, s);
		e->dst[r] = row_of(rows, n, d);
		if (e->src[r] < 0 || e->dst[r] < 0) {
			pl_errf(err, t.file, t.lines[r], "column '%s': unknown "
			    "layer %ld", e->src[r] < 0 ? "src" : "dst",
			    e->src[r] < 0 ? s : d);
			goto fail;
		}
		e->n++;
	}
	csvio_release(&t);
	return 0;
fail:
	csvio_release(&t);
	free(e->src);
	free(e->dst);
	free(e->bytes);
	memset(e, 0, sizeof(*e));
	return -1;
}

/*
 * Rule 1: the chain is the layers in the topological order of their
 * edges, as the artifact's DP renumbers its nodes (Instance::isDAG in
 * device_placement.cpp): the layers no edge enters, in node order, on a
 * stack; pop the top, append it, and push each successor whose last
 * incoming edge that was (in edge order).  For the exported graphs it is
 * the model's order, the embedding (-1) first.  -1 if there is a cycle.
 */
static int
chain_order(const struct layer_edges *e, size_t n, long *chain)
{
	long *indegree = xcalloc(n, sizeof(long)), *stack = xcalloc(n,
	    sizeof(long));
	size_t top = 0, len = 0;

	for (size_t k = 0; k < e->n; k++)
		indegree[e->dst[k]]++;
	for (size_t i = 0; i < n; i++)
		if (indegree[i] == 0)
			stack[top++] = (long)i;
	while (top > 0) {
		long v = stack[--top];

		chain[len++] = v;
		for (size_t k = 0; k < e->n; k++)
			if (e->src[k] == v && --indegree[e->dst[k]] == 0)
				stack[top++] = e->dst[k];
	}
	free(indegree);
	free(stack);
	return len == n ? 0 : -1;
}

int
compat_read_graph(struct compat_graph *g, const char *dir, int ilp,
    struct pl_err *err)
{
	char path[4096];
	struct chain_row *rows;
	struct layer_edges e;
	long *chain, *pos;
	size_t n;
	int rc = -1;

	memset(g, 0, sizeof(*g));
	snprintf(path, sizeof(path), "%s/layers.csv", dir);
	if (read_layers(&rows, &n, path, ilp, err) < 0)
		return -1;
	snprintf(path, sizeof(path), "%s/layer_edges.csv", dir);
	if (read_edges(&e, rows, n, path, err) < 0) {
		free(rows);
		return -1;
	}
	chain = xcalloc(n, sizeof(long));
	pos = xcalloc(n, sizeof(long));
	if (chain_order(&e, n, chain) < 0) {
		pl_errf(err, path, 0, "the layer edges have a cycle");
		goto out;
	}
	g->n = n;
	g->layer_id = xcalloc(n + 1, sizeof(long));
	g->fwd_ms = xcalloc(n + 1, sizeof(double));
	g->bwd_ms = xcalloc(n + 1, sizeof(double));
	g->param_bytes = xcalloc(n + 1, sizeof(double));
	g->act_bytes = xcalloc(n + 1, sizeof(double));
	g->boundary_bytes = xcalloc(n + 1, sizeof(double));
	for (size_t i = 0; i < n; i++) {
		const struct chain_row *w = &rows[chain[i]];

		pos[chain[i]] = (long)i;
		g->layer_id[i] = w->id;
		g->fwd_ms[i] = w->fwd;
		g->bwd_ms[i] = w->bwd;
		g->param_bytes[i] = w->param;
		g->act_bytes[i] = w->act;
	}
	/* rule 6: a boundary carries the edges between the two chain
	 * entries that meet there, whichever way they point */
	for (size_t k = 0; k < e.n; k++) {
		long ps = pos[e.src[k]], pd = pos[e.dst[k]];

		if (labs(ps - pd) == 1)
			g->boundary_bytes[ps < pd ? ps : pd] += e.bytes[k];
	}
	rc = 0;
out:
	free(rows);
	free(chain);
	free(pos);
	free(e.src);
	free(e.dst);
	free(e.bytes);
	if (rc < 0)
		compat_release_graph(g);
	return rc;
}

void
compat_release_graph(struct compat_graph *g)
{
	free(g->layer_id);
	free(g->fwd_ms);
	free(g->bwd_ms);
	free(g->param_bytes);
	free(g->act_bytes);
	free(g->boundary_bytes);
	memset(g, 0, sizeof(*g));
}

/* A space-separated list of numbers from a setups.csv cell. */
static int
number_list(const struct csvio_table *t, size_t r, int col, double *out,
    int max, struct pl_err *err)
{
	const char *s = csvio_cell(t, r, col);
	int n = 0;

	while (*s) {
		char tok[64], why[128];
		size_t len;
		double v;

		while (*s == ' ')
			s++;
		if (*s == '\0')
			break;
		len = strcspn(s, " ");
		snprintf(tok, sizeof tok, "%.*s", (int)(len < 63 ? len : 63), s);
		if (len > 63 || n == max ||
		    parse_double(tok, 0, PL_NUMBER_MAX, &v, why, sizeof why) < 0 ||
		    !(v > 0))
			return pl_errf(err, t->file, t->lines[r], "column '%s': "
			    "'%s' is not a list of up to %d positive numbers",
			    t->header[col], csvio_cell(t, r, col), max);
		out[n++] = v;
		s += len;
	}
	return n;
}

int
compat_read_cluster(struct compat_cluster *c, const char *setups_csv,
    const char *setup, long devices, struct pl_err *err)
{
	static const char *const names[] = {
		"setup", "devices", "devices_per_level",
		"bandwidth_per_level_GiBps", "latency_per_level_s", "hbm_GiB",
		"global_batch_samples", "micro_batch", "layer_time_source"
	};
	static const char *const time_sources[] = { "ilp", "seq", NULL };
	struct csvio_table t;
	int col[9];
	int ret = -1;

	memset(c, 0, sizeof(*c));
	if (csvio_read(&t, setups_csv, err) < 0)
		return -1;
	for (int k = 0; k < 9; k++)
		if ((col[k] = csvio_col(&t, names[k], err)) < 0)
			goto done;
	for (size_t r = 0; r < t.nrows; r++) {
		double cnt[COMPAT_MAX_LEVELS], bw[COMPAT_MAX_LEVELS];
		double lat[COMPAT_MAX_LEVELS], gib;
		long dev;
		int n1, n2, n3;

		if (strcmp(csvio_cell(&t, r, col[0]), setup) != 0)
			continue;
		if (csvio_long(&t, r, col[1], CSVIO_POSITIVE, &dev, err) < 0)
			goto done;
		if (dev != devices)
			continue;
		if ((n1 = number_list(&t, r, col[2], cnt, COMPAT_MAX_LEVELS,
		    err)) < 0 ||
		    (n2 = number_list(&t, r, col[3], bw, COMPAT_MAX_LEVELS,
		    err)) < 0 ||
		    (n3 = number_list(&t, r, col[4], lat, COMPAT_MAX_LEVELS,
		    err)) < 0 ||
		    csvio_double(&t, r, col[5], CSVIO_POSITIVE, &gib, err) < 0 ||
		    csvio_long(&t, r, col[6], CSVIO_POSITIVE, &c->global_batch,
		    err) < 0 ||
		    csvio_long(&t, r, col[7], CSVIO_POSITIVE, &c->micro_batch,
		    err) < 0)
			goto done;
		if (n1 == 0 || n1 != n2 || n1 != n3) {
			pl_errf(err, t.file, t.lines[r], "the per-level lists "
			    "have %d, %d and %d entries", n1, n2, n3);
			goto done;
		}
		/* a micro-batch is part of the batch (a larger one priced
		 * a step of one micro-batch: 64 times too fast at 8192) */
		if (c->micro_batch > c->global_batch) {
			pl_errf(err, t.file, t.lines[r], "column 'micro_batch': "
			    "%ld is larger than global_batch_samples %ld",
			    c->micro_batch, c->global_batch);
			goto done;
		}
		{	/* whole fanouts that multiply to the cluster */
			double prod = 1;

			for (int l = 0; l < n1; l++) {
				if (cnt[l] != floor(cnt[l])) {
					prod = -1;
					break;
				}
				prod *= cnt[l];
			}
			if (prod != (double)devices) {
				pl_errf(err, t.file, t.lines[r], "column "
				    "'devices_per_level': '%s' are not whole "
				    "fanouts that multiply to %ld devices",
				    csvio_cell(&t, r, col[2]), devices);
				goto done;
			}
		}
		if (csvio_enum(&t, r, col[8], time_sources, err) < 0)
			goto done;
		for (size_t q = r + 1; q < t.nrows; q++)
			if (strcmp(csvio_cell(&t, q, col[0]), setup) == 0 &&
			    strcmp(csvio_cell(&t, q, col[1]),
			    csvio_cell(&t, r, col[1])) == 0) {
				pl_errf(err, t.file, t.lines[q], "setup '%s' "
				    "with %ld devices again (line %zu)", setup,
				    devices, t.lines[r]);
				goto done;
			}
		c->devices = devices;
		c->expert_parallel = 1;
		c->nlevels = n1;
		for (int l = 0; l < n1; l++) {
			c->count[l] = (long)cnt[l];
			c->bw_Bps[l] = bw[l] * GiB_BYTES;
			c->lat_s[l] = lat[l];
		}
		c->memory_bytes = gib * GiB_BYTES;
		c->ilp = strcmp(csvio_cell(&t, r, col[8]), "ilp") == 0;
		ret = 0;
		goto done;
	}
	if (t.nrows == 0)
		pl_errf(err, t.file, 1, "header only: no setup row");
	else
		pl_errf(err, t.file, 0, "no setup '%s' with %ld devices",
		    setup, devices);
done:
	csvio_release(&t);
	return ret;
}

int
compat_split(struct compat_plan *plan, size_t entries, const long *counts,
    int p, long width)
{
	long used = 0;

	if (p < 1 || p > COMPAT_MAX_STAGES)
		return -1;
	for (int i = 0; i < p - 1; i++) {
		if (counts[i] < 1)
			return -1;
		plan->size[i] = counts[i];
		used += counts[i];
	}
	if ((long)entries - used < 1)
		return -1;
	plan->size[p - 1] = (long)entries - used;
	plan->nstages = p;
	for (int i = 0; i < p; i++)
		plan->width[i] = width;
	plan->reversed = 1;
	return 0;
}

int
compat_uniform_split(struct compat_plan *plan, size_t entries,
    long transformer_layers, int p, long width)
{
	long counts[COMPAT_MAX_STAGES];

	if (p < 1 || p > COMPAT_MAX_STAGES)
		return -1;
	for (int i = 0; i < p; i++)
		counts[i] = (transformer_layers + p - 1) / p;
	return compat_split(plan, entries, counts, p, width);
}

/* The lowest level whose groups contain both devices. */
static int
common_level(const struct compat_cluster *c, long a, long b)
{
	long span = 1;

	for (int l = 0; l < c->nlevels; l++) {
		span *= c->count[l];
		if (a / span == b / span)
			return l;
	}
	return c->nlevels - 1;
}

/* Rule 6. */
static double
transfer(const struct compat_cluster *c, double bytes, int level)
{
	double bw = c->bw_Bps[0];

	if (level == 0)
		return bytes / bw + c->lat_s[0];
	for (int l = 1; l <= level; l++)
		bw = fmin(bw, c->bw_Bps[l]);
	return 2 * (bytes / bw + c->lat_s[level]);
}

/* Rule 8. */
static double
sync_time(const struct compat_cluster *c, double bytes, long d, int top)
{
	double t = 0, run = 0;
	int steps = 0;

	if (d <= 1)
		return 0;
	while ((2L << steps) <= d)
		steps++;
	for (int i = 0; i < steps; i++)
		t += 2 * (c->lat_s[0] + bytes / ldexp(1, i) / c->bw_Bps[0]);
	for (int l = 1; l <= top; l++) {
		run += 2 * (c->lat_s[l] + bytes / c->bw_Bps[l]);
		t += run;
	}
	return t;
}

/*
 * Rules 4, 6 and 7: the load per micro-batch of a stage, from its compute
 * and its two boundaries in the layers' own direction: `in` with the
 * chain entries before it, `out` with those after it (a level < 0: none
 * on that side).  The forward pass waits for the activations coming in;
 * the backward pass of a stage that does not recompute waits for the
 * gradients coming back, while a recomputing stage receives them during
 * its recomputed forward pass (priced at the backward time) and waits
 * only for what is left (getLoadOfStageForA in device_placement.cpp:
 * fw_bw_latency_with_recompute = the forward with its input transfer,
 * then max(recomputed forward, output transfer), then the backward).
 */
static double
stage_load(const struct compat_cluster *c, double fwd, double bwd,
    int recomputes, double in_bytes, int in_level, double out_bytes,
    int out_level)
{
	double in = in_level >= 0 ? transfer(c, in_bytes, in_level) : 0;
	double out = out_level >= 0 ? transfer(c, out_bytes, out_level) : 0;

	if (recomputes)
		return in + fwd + fmax(bwd, out) + bwd;
	return in + fwd + out + bwd;
}

/*
 * Rules 8 and 9: the time per batch of S stages whose slowest load is
 * `worst`, the first scored stage holding `bytes` of parameters at
 * `offset` of each of d replicas of R devices.
 */
static double
step_time(const struct compat_cluster *c, double worst, int S, double bytes,
    long d, long R, long offset)
{
	long per = c->micro_batch * (c->expert_parallel > 1 ?
	    c->expert_parallel : 1) * d;
	long m = (c->global_batch + per - 1) / per;
	int top = common_level(c, offset, (d - 1) * R + offset);

	return worst * (double)(m + S - 1) + sync_time(c, bytes, d, top);
}

double
compat_time(const struct compat_graph *g, const struct compat_cluster *c,
    const struct compat_plan *plan)
{
	int S = plan->nstages;
	long first[COMPAT_MAX_STAGES], offset[COMPAT_MAX_STAGES], R = 0;
	int order[COMPAT_MAX_STAGES];
	double worst = 0, bytes = 0;

	for (int s = 0, e = 0; s < S; e += (int)plan->size[s], s++)
		first[s] = e;
	/* rules 2 and 5: scoring order and replica 0's placement */
	for (int q = 0; q < S; q++) {
		order[q] = plan->reversed ? S - 1 - q : q;
		offset[q] = R;
		R += plan->width[order[q]];
	}
	for (int q = 0; q < S; q++) {
		int s = order[q], out_level = -1, in_level = -1;
		double f = 0, b = 0, out_bytes = 0, in_bytes = 0;

		for (long i = first[s]; i < first[s] + plan->size[s]; i++) {
			f += g->fwd_ms[i];
			b += g->bwd_ms[i];
		}
		/* the boundaries with the chain stages s - 1 and s + 1, at the
		 * level of the scoring positions they sit at */
		if (s > 0) {
			int p = plan->reversed ? q + 1 : q - 1;

			in_bytes = g->boundary_bytes[first[s] - 1];
			in_level = common_level(c, offset[p], offset[q]);
		}
		if (s + 1 < S) {
			int p = plan->reversed ? q - 1 : q + 1;

			out_bytes = g->boundary_bytes[first[s + 1] - 1];
			out_level = common_level(c, offset[q], offset[p]);
		}
		worst = fmax(worst, stage_load(c, f, b, plan->recompute &&
		    q != S - 1 && S > 1, in_bytes, in_level, out_bytes,
		    out_level));
	}
	/* rule 8: the first scored stage's parameters, over its replicas */
	for (long i = first[order[0]]; i < first[order[0]] + plan->size[order[0]];
	    i++)
		bytes += g->param_bytes[i];
	return step_time(c, worst, S, bytes, plan->d, R, offset[0]);
}

/* Prefix sums over the chain, so a stage's totals are O(1). */
struct sums {
	double *f, *b, *p, *a;
};

static void
sums_make(struct sums *s, const struct compat_graph *g)
{
	s->f = xcalloc(g->n + 1, sizeof(double));
	s->b = xcalloc(g->n + 1, sizeof(double));
	s->p = xcalloc(g->n + 1, sizeof(double));
	s->a = xcalloc(g->n + 1, sizeof(double));
	for (size_t i = 0; i < g->n; i++) {
		s->f[i + 1] = s->f[i] + g->fwd_ms[i];
		s->b[i + 1] = s->b[i] + g->bwd_ms[i];
		s->p[i + 1] = s->p[i] + g->param_bytes[i];
		s->a[i + 1] = s->a[i] + g->act_bytes[i];
	}
}

static void
sums_free(struct sums *s)
{
	free(s->f);
	free(s->b);
	free(s->p);
	free(s->a);
}

/*
 * Rule 10 for the stage of chain entries [i, j) at scoring position q of
 * S (the plan's own order): weights and gradients, all activations, and
 * S - q - 1 stashes (the bytes entering the stage with recomputation).
 */
static double
stage_memory(const struct compat_graph *g, const struct sums *s, long i,
    long j, int q, int S, int recompute)
{
	double act = s->a[j] - s->a[i];
	double stash = recompute ? (i > 0 ? g->boundary_bytes[i - 1] : 0) : act;

	return 2 * (s->p[j] - s->p[i]) + act + (double)(S - q - 1) * stash;
}

double
compat_peak_memory(const struct compat_graph *g, const struct compat_plan *plan)
{
	struct sums s;
	long i = 0;
	double peak = 0;

	sums_make(&s, g);
	for (int k = 0; k < plan->nstages; k++) {
		/* position in scoring order */
		int q = plan->reversed ? plan->nstages - 1 - k : k;

		peak = fmax(peak, stage_memory(g, &s, i, i + plan->size[k], q,
		    plan->nstages, plan->recompute));
		i += plan->size[k];
	}
	sums_free(&s);
	return peak;
}

int
compat_fits(const struct compat_graph *g, const struct compat_cluster *c,
    const struct compat_plan *plan)
{
	return compat_peak_memory(g, plan) <= c->memory_bytes;
}

/* The stage [i, j) at position q of S stages each w wide, in the plan's
 * own order: its neighbours are the chain entries next to it. */
static double
chain_stage_load(const struct compat_graph *g, const struct compat_cluster *c,
    const struct sums *s, long i, long j, int q, int S, long w, int recompute)
{
	return stage_load(c, s->f[j] - s->f[i], s->b[j] - s->b[i],
	    recompute && q != S - 1 && S > 1,
	    q > 0 ? g->boundary_bytes[i - 1] : 0, q > 0 ?
	    common_level(c, (q - 1) * w, q * w) : -1,
	    q + 1 < S ? g->boundary_bytes[j - 1] : 0, q + 1 < S ?
	    common_level(c, q * w, (q + 1) * w) : -1);
}

double
compat_solve(const struct compat_graph *g, const struct compat_cluster *c,
    long width, int recompute, struct compat_plan *best)
{
	long n = (long)g->n;
	double best_t = INFINITY;
	double *dp = xmalloc((size_t)(n + 1) * sizeof(double));
	double *next = xmalloc((size_t)(n + 1) * sizeof(double));
	long *cut = xmalloc((size_t)(COMPAT_MAX_STAGES + 1) * (size_t)(n + 1) *
	    sizeof(long));
	struct sums s;

	sums_make(&s, g);
	for (int S = 1; S <= n && S <= COMPAT_MAX_STAGES &&
	    (long)S * width <= c->devices; S++) {
		long maxd = c->devices / ((long)S * width);

		/* dp[i]: the smallest bottleneck of stages q..S-1 over
		 * entries [i, n); filled from q = S - 1 down to q = 1 */
		for (long i = 0; i <= n; i++)
			next[i] = i == n ? 0 : INFINITY;
		for (int q = S - 1; q >= 1; q--) {
			for (long i = 0; i <= n; i++) {
				dp[i] = INFINITY;
				cut[(size_t)q * (size_t)(n + 1) + (size_t)i] = -1;
				/* q stages before it need q entries */
				for (long j = i + 1; i >= q && j <= n; j++) {
					double v;

					if (next[j] == INFINITY ||
					    stage_memory(g, &s, i, j, q, S, recompute) >
					    c->memory_bytes)
						continue;
					v = fmax(chain_stage_load(g, c, &s, i, j, q, S,
					    width, recompute), next[j]);
					if (v < dp[i]) {
						dp[i] = v;
						cut[(size_t)q * (size_t)(n + 1) +
						    (size_t)i] = j;
					}
				}
			}
			memcpy(next, dp, (size_t)(n + 1) * sizeof(double));
		}
		/* the first stage [0, j0), then every d */
		for (long j0 = 1; j0 <= n; j0++) {
			double w0, P = s.p[j0];

			if (next[j0] == INFINITY ||
			    stage_memory(g, &s, 0, j0, 0, S, recompute) >
			    c->memory_bytes)
				continue;
			w0 = fmax(chain_stage_load(g, c, &s, 0, j0, 0, S, width,
			    recompute), next[j0]);
			for (long d = 1; d <= maxd; d++) {
				double t = step_time(c, w0, S, P, d, (long)S * width,
				    0);

				if (t < best_t) {
					long i = j0;

					best_t = t;
					best->nstages = S;
					best->size[0] = j0;
					for (int q = 1; q < S; q++) {
						long j = cut[(size_t)q * (size_t)(n + 1) +
						    (size_t)i];

						best->size[q] = j - i;
						i = j;
					}
					for (int q = 0; q < S; q++)
						best->width[q] = width;
					best->d = d;
					best->recompute = recompute;
					best->reversed = 0;
				}
			}
		}
	}
	sums_free(&s);
	free(dp);
	free(next);
	free(cut);
	return best_t;
}

void
compat_write_plan(FILE *fp, const struct compat_cluster *c,
    const struct compat_plan *p, double time, const char *setup)
{
	char b[NUMFMT_LEN];

	fprintf(fp, "setup,devices,mode,time_per_batch_artifact_units,"
	    "pp_stages,dp_degree,devices_per_stage,recompute,"
	    "layers_per_stage\n%s,%ld,nest,%s,%d,%ld,%ld,%d,", setup,
	    c->devices, numfmt(b, time), p->nstages, p->d, p->width[0],
	    p->recompute);
	for (int i = 0; i < p->nstages; i++)
		fprintf(fp, "%s%ld", i ? " " : "", p->size[i]);
	fputc('\n', fp);
}
