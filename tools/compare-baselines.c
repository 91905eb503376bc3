/*
 * compare-baselines - run one method on one cell of an experiment (a
 * cluster, a model, a micro-batch size) and write its results row; or,
 * with -J, join the rows of an experiment into its results table with the
 * speedup column.  Every method's plan is scored by the one evaluator
 * (lib/plan.h) on the real network; lib/baselines.h has the methods.
 */
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "artifact/artifact.h"
#include "base/csvio.h"
#include "base/util.h"
#include "io/planio.h"
#include "model/config.h"
#include "search/baselines.h"
#include "search/dp.h"

struct opts {
	const char *experiment, *configs, *layers, *artifact, *out, *plan_out;
	const char *model, *method, *progress;
	long devices, mbs;
	double tolerance;
	int join, regress, compat;
	unsigned char seen[OPT_SEEN_MAX];	/* the options given */
};

/* The methods of each form (docs/baselines.md; docs/compat.md). */
static const char *const cell_methods[] = {
	"manual", "manual-published", "mcmc", "phaze", "alpa-like",
	"mist-like", "nest", "nest-no-zero", NULL
};
static const char *const compat_methods[] = {
	"nest", "nest-artifact-input", "manual-published", "mcmc-published",
	"phaze-published", "alpa-e-published", NULL
};

static const char *const columns[] = {
	"setup", "model", "devices", "mbs", "method", "p", "d", "t", "s", "e",
	"c", "zero", "recompute", "throughput_samples_per_s", "speedup",
	"status", "solve_s", "step_s", "devices_used", "zero_degree",
	"peak_memory_bytes", "stages", "virtual_stages",
	"distributed_optimizer", "note"
};
enum { NCOLS = sizeof columns / sizeof columns[0] };
/* the columns above, in order */
enum { C_SETUP, C_MODEL, C_DEVICES, C_MBS, C_METHOD, C_P, C_D, C_T, C_S, C_E,
	C_C, C_ZERO, C_RECOMPUTE, C_THROUGHPUT, C_SPEEDUP, C_STATUS, C_SOLVE,
	C_STEP, C_DEVICES_USED, C_ZERO_DEGREE, C_PEAK_MEMORY, C_STAGES,
	C_VIRTUAL_STAGES, C_DISTOPT, C_NOTE };
_Static_assert(C_NOTE + 1 == NCOLS, "a name for every column");

static void
usage(FILE *fp, int status)
{
	fprintf(fp,
	    "usage: compare-baselines [-h] [-A artifact-dir] [-C configs] "
	    "[-L layers] [-c plan.csv] [-i K/N] [-o file] -x experiment.xml "
	    "-m model -N devices -b mbs -M method\n"
	    "       compare-baselines --compat nest -A artifact-dir [-i K/N] "
	    "[-o file] -x experiment.xml -m model -N devices -b mbs -M method\n"
	    "       compare-baselines -J [-o file] row.csv ...\n"
	    "       compare-baselines -R [-t rel] expected.csv results.csv\n");
	usage_exit(fp, status);
}

/* ---- one cell -------------------------------------------------------- */

struct cell {
	struct experiment_cfg exp;
	struct model_cfg model;
	struct accel_cfg accel;
	struct network net;
	struct variants vs;
	struct plan_env env;
	char setup[128];
};

/* The experiment, and the indices of the cell's cluster and model in it. */
static void
load_experiment(struct experiment_cfg *e, const struct opts *o, int *ci,
    int *mi)
{
	struct pl_err err;
	int bi = -1;

	if (experiment_load(e, o->experiment, &err) < 0)
		die_err(&err);
	*ci = *mi = -1;
	for (int i = 0; i < e->nclusters; i++)
		if (e->cluster[i].devices == o->devices)
			*ci = i;
	for (int i = 0; i < e->nmodels; i++)
		if (strcmp(e->model[i].name, o->model) == 0)
			*mi = i;
	for (int i = 0; i < e->nmbs; i++)
		if (e->mbs[i] == o->mbs)
			bi = i;
	if (*ci < 0 || *mi < 0 || bi < 0)
		die("%s: no cell of %ld devices, model %s, micro-batch %ld",
		    o->experiment, o->devices, o->model, o->mbs);
}

static void
load_cell(struct cell *c, const struct opts *o)
{
	char path[1024];
	struct pl_err err;
	int ci, mi;

	load_experiment(&c->exp, o, &ci, &mi);
	snprintf(path, sizeof path, "%s/models/%s.xml", o->configs, o->model);
	if (model_load(&c->model, path, &err) < 0)
		die_err(&err);
	snprintf(path, sizeof path, "%s/accelerators/%s.xml", o->configs,
	    c->exp.accelerator);
	if (accel_load(&c->accel, path, &err) < 0)
		die_err(&err);
	snprintf(path, sizeof path, "%s/networks/%s.xml", o->configs,
	    c->exp.cluster[ci].network);
	if (network_load(&c->net, path, &err) < 0)
		die_err(&err);
	if (o->devices > c->net.ndevices)
		die("%s: %ld devices, the network has %ld", path, o->devices,
		    c->net.ndevices);
	snprintf(c->setup, sizeof c->setup, "%s", c->net.name);
	snprintf(path, sizeof path, "%s/%s/%s/b%ld/index.csv", o->layers,
	    c->exp.accelerator, o->model, o->mbs);
	{
		char *paths[1] = { path };

		if (planio_read_variants(&c->vs, paths, 1, &err) < 0)
			die_err(&err);
	}
	/* the reproduction's plan space: the expert ranks folded over the
	 * micro-batch's sequence (the experiments were set up so; dpsolve
	 * also searches splitting its samples, Megatron-LM's plain expert
	 * parallelism, and whole experts beside tensor parallelism,
	 * docs/model.md), and the paper's widths where the
	 * experiment limits them */
	{
		size_t kept = 0;
		long max_width = c->exp.model[mi].max_width;

		for (size_t i = 0; i < c->vs.n; i++) {
			const struct layer_graph *g = &c->vs.g[i];

			if (!(g->has_variant && g->var_ep_batch) &&
			    layers_expert_t(g) == layers_var(g, g->var_t, 1) &&
			    g->var_fp8 == FP8_NONE &&
			    (max_width <= 0 || layers_width(g) <= max_width))
				c->vs.g[kept++] = *g;
			else
				layers_release(&c->vs.g[i]);
		}
		c->vs.n = kept;
	}
	c->env = (struct plan_env){ .net = &c->net, .devices = o->devices,
	    .memory_bytes = c->exp.model[mi].device_memory_bytes > 0 ?
	    c->exp.model[mi].device_memory_bytes : c->accel.memory_bytes,
	    .optimizer = c->exp.optimizer, .global_batch = c->exp.global_batch,
	    .grad_bytes_per_param = c->exp.grad_bytes_per_param,
	    .distopt = BASELINE_DISTOPT, .overlap = BASELINE_OVERLAP,
	    .grad_copies = 1, .optimizer_Bps = accel_memory_Bps(&c->accel),
	    .tp_comm_sm_share = accel_tp_comm_sm_share(&c->accel) };
}

/* The artifact's setup for the experiment at micro-batch mbs: its
 * <artifact_setup>, with "_mbs<b>" for b > 1, as setups.csv names them. */
static void
artifact_setup_name(const struct experiment_cfg *e, long mbs, char *buf,
    size_t len)
{
	if (mbs > 1)
		snprintf(buf, len, "%s_mbs%ld", e->artifact_setup, mbs);
	else
		snprintf(buf, len, "%s", e->artifact_setup);
}

static int
method_known(const struct experiment_cfg *e, const char *m)
{
	for (int i = 0; i < e->nmethods; i++)
		if (strcmp(e->methods[i], m) == 0)
			return 1;
	return 0;
}

/* Run the method; a bl_result with a plan, or a status and a note. */
static void
run_method(struct cell *c, const struct opts *o, struct bl_result *r)
{
	struct pl_err err;
	const char *m = o->method;

	if (strcmp(m, "manual") == 0)
		bl_manual(&c->env, &c->vs, r);
	else if (strcmp(m, "manual-published") == 0) {
		struct art_baseline b;
		struct art_model am = { .e = 1, .recompute = 1 };
		const struct art_names *nm = artifact_names(o->model);
		int found = 0;
		char setup[160];

		memset(r, 0, sizeof *r);
		artifact_setup_name(&c->exp, o->mbs, setup, sizeof setup);
		if (o->artifact && c->exp.artifact_setup[0] && nm &&
		    ((found = artifact_baseline(o->artifact, setup, o->devices,
		    "manual", o->model, &b, &err)) < 0 || (found &&
		    artifact_model(o->artifact, nm->models_row, &am, &err) < 0)))
			die_err(&err);
		if (found)
			bl_published(&c->env, &c->vs, b.p, b.d, b.t, am.e,
			    am.recompute, r);
		else {
			r->status = BL_INFEASIBLE;
			snprintf(r->note, sizeof r->note, "no published plan%s",
			    o->artifact ? "" : " (no artifact, -A)");
		}
	} else if (strcmp(m, "mcmc") == 0)
		bl_mcmc(&c->env, &c->vs, (unsigned long)c->exp.seed, 10, 2000, r);
	else if (strcmp(m, "phaze") == 0) {
		if (bl_phaze(&c->env, &c->vs, r, &err) < 0)
			die_err(&err);
	} else if (strcmp(m, "alpa-like") == 0)
		bl_alpa(&c->env, &c->vs, r);
	else if (strcmp(m, "mist-like") == 0) {
		/* what the original supports (paper Section 5.3) */
		memset(r, 0, sizeof *r);
		if (c->model.experts > 1) {
			r->status = BL_INFEASIBLE;
			snprintf(r->note, sizeof r->note, "Mist supports no "
			    "mixture-of-experts model");
		} else if (c->model.hidden > 8192) {
			r->status = BL_INFEASIBLE;
			snprintf(r->note, sizeof r->note, "Mist supports no "
			    "hidden size above 8192");
		} else
			bl_mist(&c->env, &c->vs, 600, r);
	} else if (bl_nest(&c->env, &c->vs, strcmp(m, "nest") == 0 ?
	    DP_ZERO_AUTO : DP_ZERO_OFF, r, &err) < 0)	/* nest, -no-zero */
		die_err(&err);
}

/* indexed by BL_OK..BL_INFEASIBLE; NULL-terminated for csvio_enum */
static const char *const status_word[] = { "ok", "oom", "infeasible",
	NULL };

/* "first..last" layer ids of each stage, "xZzS" for ZeRO copies. */
static void
stage_list(const struct plan *p, char *buf, size_t len)
{
	size_t at = 0;

	buf[0] = '\0';
	for (int i = 0; i < p->nstages && at < len; i++) {
		const struct plan_stage *s = &p->stage[i];

		at += (size_t)snprintf(buf + at, len - at, "%s%ld..%ld",
		    i ? " " : "", p->g->l[s->first].id, p->g->l[s->last].id);
		if (s->z > 1 && at < len)
			at += (size_t)snprintf(buf + at, len - at, "x%ldz%d",
			    s->z, s->zero_stage);
	}
}

/* One results row being filled: every field empty until set. */
struct row {
	char f[NCOLS][64];
	const char *fields[NCOLS];
};

static void
row_init(struct row *w, const char *setup, const struct opts *o,
    const char *status, double solve_s)
{
	for (int i = 0; i < NCOLS; i++) {
		w->f[i][0] = '\0';
		w->fields[i] = w->f[i];
	}
	w->fields[C_SETUP] = setup;
	w->fields[C_MODEL] = o->model;
	snprintf(w->f[C_DEVICES], 64, "%ld", o->devices);
	snprintf(w->f[C_MBS], 64, "%ld", o->mbs);
	w->fields[C_METHOD] = o->method;
	w->fields[C_STATUS] = status;
	snprintf(w->f[C_SOLVE], 64, "%.3f", solve_s);
}

/* p, d, t, s, e, c, ZeRO stage, recomputation (0 none, 1 full, 2
 * selective), as Table 2 writes them. */
static void
row_plan(struct row *w, int p, long d, long t, long s, long e, long c,
    int zero, int recompute)
{
	snprintf(w->f[C_P], 64, "%d", p);
	snprintf(w->f[C_D], 64, "%ld", d);
	snprintf(w->f[C_T], 64, "%ld", t);
	snprintf(w->f[C_S], 64, "%ld", s);
	snprintf(w->f[C_E], 64, "%ld", e);
	snprintf(w->f[C_C], 64, "%ld", c);
	snprintf(w->f[C_ZERO], 64, "%d", zero);
	snprintf(w->f[C_RECOMPUTE], 64, "%d", recompute);
}

static void
row_write(FILE *fp, const struct row *w)
{
	csvio_write_row(fp, columns, NCOLS);
	csvio_write_row(fp, w->fields, NCOLS);
}

static void
write_row(FILE *fp, const struct cell *c, const struct opts *o,
    const struct bl_result *r, const struct plan_result *pr, double solve_s)
{
	struct row w;
	char stages[8192];

	row_init(&w, c->setup, o, status_word[r->status], solve_s);
	w.fields[C_STAGES] = stages;
	w.fields[C_NOTE] = r->note;
	stages[0] = '\0';
	if (r->has_plan) {
		const struct plan *p = &r->plan;
		const struct layer_graph *g = p->g;
		long t = g->has_variant ? g->var_t : 1;
		long sp = g->has_variant ? g->var_sp : 0;
		long zmax = 1;
		int zs = 0;
		double peak = 0;

		for (int i = 0; i < p->nstages; i++) {
			if (p->stage[i].z > zmax)
				zmax = p->stage[i].z;
			if (p->stage[i].zero_stage > zs)
				zs = p->stage[i].zero_stage;
			peak = fmax(peak, pr->stage[i].mem.total);
		}
		row_plan(&w, p->nstages, p->d, t, sp ? t : 1,
		    g->has_variant ? g->var_e : 1, g->has_variant ? g->var_c : 1,
		    zs, p->recompute);
		snprintf(w.f[C_STEP], 64, "%.9g", pr->step_s);
		snprintf(w.f[C_DEVICES_USED], 64, "%ld", pr->devices_used);
		snprintf(w.f[C_ZERO_DEGREE], 64, "%ld", zmax);
		snprintf(w.f[C_PEAK_MEMORY], 64, "%.6g", peak);
		snprintf(w.f[C_VIRTUAL_STAGES], 64, "%ld", p->v > 1 ? p->v : 1);
		snprintf(w.f[C_DISTOPT], 64, "%d", p->distopt);
		stage_list(p, stages, sizeof stages);
		if (r->status == BL_OK)
			snprintf(w.f[C_THROUGHPUT], 64, "%.6g",
			    pr->throughput_samples_per_s);
	}
	row_write(fp, &w);
}


/* "[12/125] fig5 llama3-70b 512 nest ok 0.4 s" on stderr, with -i. */
static void
progress(const struct opts *o, const struct experiment_cfg *e,
    const char *table, const char *status, double solve_s)
{
	char mbs[32] = "";

	if (o->progress == NULL)
		return;
	if (e->nmbs > 1)
		snprintf(mbs, sizeof mbs, "b%ld ", o->mbs);
	fprintf(stderr, "[%s] %s%s %s %ld %s%s %s %.1f s\n", o->progress, table,
	    e->name, o->model, o->devices, mbs, o->method, status, solve_s);
}

static int
run_cell(const struct opts *o)
{
	struct cell c;
	struct bl_result r;
	struct plan_result pr = { 0 };
	struct outfile f, plan_f;
	struct outfile *both[2] = { &plan_f, &f };
	struct pl_err err;
	double t0, solve_s;

	/* the outputs first: a path that cannot be written stops the run
	 * before the search */
	if ((o->plan_out && outfile_open(&plan_f, o->plan_out, &err) < 0) ||
	    outfile_open(&f, o->out, &err) < 0)
		die_err(&err);
	memset(&c, 0, sizeof c);
	load_cell(&c, o);
	if (!method_known(&c.exp, o->method))
		die("%s: method '%s' is not one of the experiment's",
		    o->experiment, o->method);
	t0 = monotonic_s();
	run_method(&c, o, &r);
	solve_s = monotonic_s() - t0;
	if (r.has_plan) {
		if (plan_evaluate(&c.env, &r.plan, &pr, &err) < 0)
			die("%s: %s %s %ld: the %s plan does not evaluate: %s",
			    o->experiment, o->model, c.setup, o->devices,
			    o->method, err.msg);
		if (!pr.fits)
			r.status = BL_OOM;
	}
	/* both in place or neither; the plan renamed first: the row is
	 * make's target, and a run stopped between the two renames must
	 * not leave a row without its plan */
	if (o->plan_out && r.has_plan)
		planio_write_csv(plan_f.fp, &r.plan, &pr);
	write_row(f.fp, &c, o, &r, &pr, solve_s);
	if (outfile_commit_all(o->plan_out ? both : both + 1,
	    o->plan_out ? 2 : 1, &err) < 0)
		die_err(&err);
	progress(o, &c.exp, "", status_word[r.status], solve_s);
	plan_result_release(&pr);
	bl_result_release(&r);
	planio_release_variants(&c.vs);
	return 0;
}

/*
 * --compat nest: the cell of the experiment's artifact table, priced by
 * the artifact's cost model on its own layer tables (lib/artifact.h).
 * Its time unit is the artifact's (compute in ms, transfers in s, added:
 * docs/compat.md rule 1); step_s and throughput read it as ms.
 */
static int
run_artifact_cell(const struct opts *o)
{
	struct experiment_cfg e;
	struct art_result r;
	struct row w;
	struct outfile f;
	struct pl_err err;
	char setup[160];
	double t0, solve_s;
	int ci, mi, known = 0;

	load_experiment(&e, o, &ci, &mi);
	if (!e.artifact_setup[0])
		die("%s: no <artifact_setup>, so no artifact table",
		    o->experiment);
	for (int i = 0; i < e.nmethods; i++) {
		const char *m;

		for (int k = 0; (m = artifact_method(e.methods[i], k)); k++)
			known |= strcmp(m, o->method) == 0;
	}
	if (!known)
		die("%s: '%s' is not a method of the experiment's artifact "
		    "table", o->experiment, o->method);
	artifact_setup_name(&e, o->mbs, setup, sizeof setup);
	t0 = monotonic_s();
	if (artifact_run(o->artifact, setup, o->devices, o->mbs, o->model,
	    o->method, &r, &err) < 0)
		die_err(&err);
	solve_s = monotonic_s() - t0;
	row_init(&w, setup, o, status_word[r.status], solve_s);
	w.fields[C_STAGES] = r.stages;
	w.fields[C_NOTE] = r.note;
	if (r.has_plan) {
		row_plan(&w, r.plan.nstages, r.plan.d, r.t, r.s, r.e, r.c, 0,
		    r.plan.nstages > 1 && r.plan.recompute);
		snprintf(w.f[C_DEVICES_USED], 64, "%ld", r.devices_used);
		snprintf(w.f[C_ZERO_DEGREE], 64, "1");
		snprintf(w.f[C_PEAK_MEMORY], 64, "%.6g", r.peak_memory_bytes);
	}
	if (isfinite(r.time))
		snprintf(w.f[C_STEP], 64, "%.9g", r.time / 1000);
	if (r.status == BL_OK)
		snprintf(w.f[C_THROUGHPUT], 64, "%.6g",
		    (double)r.global_batch / (r.time / 1000));
	if (outfile_open(&f, o->out, &err) < 0)
		die_err(&err);
	row_write(f.fp, &w);
	if (outfile_commit(&f, &err) < 0)
		die_err(&err);
	progress(o, &e, "artifact/", status_word[r.status], solve_s);
	return 0;
}

/* ---- -J: the experiment's table -------------------------------------- */

/* The reference throughput of a row: the Manual plan (manual, else the
 * published one) of the same model and micro-batch at the smallest device
 * count where it is ok. */
/* A row of a -J table, its cells in column order. */
typedef const char *row_cells[NCOLS];

static double
reference(row_cells *rows, size_t n, size_t i)
{
	static const char *const ref[] = { "manual", "manual-published" };

	for (int k = 0; k < 2; k++) {
		long best_dev = 0;
		double tp = NAN;

		for (size_t j = 0; j < n; j++) {
			long dev = atol(rows[j][C_DEVICES]);

			if (strcmp(rows[j][C_METHOD], ref[k]) != 0 ||
			    strcmp(rows[j][C_MODEL], rows[i][C_MODEL]) != 0 ||
			    strcmp(rows[j][C_MBS], rows[i][C_MBS]) != 0 ||
			    strcmp(rows[j][C_STATUS], "ok") != 0)
				continue;
			if (best_dev == 0 || dev < best_dev) {
				best_dev = dev;
				tp = atof(rows[j][C_THROUGHPUT]);
			}
		}
		if (best_dev)
			return tp;
	}
	return NAN;
}

/*
 * Does another method plan inside the search space of `nest` (nest or
 * nest-artifact-input), under the evaluator it optimises?  Every planner
 * of ours does (contiguous stages of one variant, z = 1), and the
 * artifact's published plans use the graphs both search.  Alpa-E's
 * published times come from Alpa itself, not from a plan the artifact's
 * model prices; nest searches graphs nest-artifact-input does not.
 */
static int
in_nest_space(const char *nest, const char *method)
{
	return strcmp(method, "alpa-e-published") != 0 &&
	    strcmp(method, nest) != 0 &&
	    !(strcmp(nest, "nest-artifact-input") == 0 &&
	    strcmp(method, "nest") == 0);
}

/* The exact searches: nest, and in the artifact tables nest on the
 * artifact's own input graphs, a subset of nest's space. */
static int
is_nest(const char *method)
{
	return strcmp(method, "nest") == 0 ||
	    strcmp(method, "nest-artifact-input") == 0;
}

/*
 * A row as compare-baselines writes it: a known status; a setup, model
 * and method; positive whole devices and micro-batch; the plan's numbers,
 * where present (Alpa-E's published rows have none), positive whole
 * numbers (ZeRO stage 0-3, recomputation 0-2, the distributed optimizer
 * 0/1), devices used within the devices, its stages as stage_list()
 * writes them; on an ok row a positive, finite throughput and step, on
 * any other no throughput; every other number present non-negative.
 * Dies with the file, line and column of the first that is not.
 */
/* "FIRST..LAST[xZzS] ...": a plan's stages as stage_list() writes them. */
static int
is_stage_list(const char *s)
{
	if (*s == '\0')
		return 1;	/* no plan */
	for (;;) {
		long a, b, z;
		int used = 0, zs;

		/* a published plan of the artifact's may hold an empty
		 * stage (0..-1) */
		if (sscanf(s, "%ld..%ld%n", &a, &b, &used) != 2 || used == 0 ||
		    b < a - 1)
			return 0;
		s += used;
		if (*s == 'x') {
			if (sscanf(s, "x%ldz%d%n", &z, &zs, &used) != 2 ||
			    z < 2 || zs < 1 || zs > 3)
				return 0;
			s += used;
		}
		if (*s == '\0')
			return 1;
		if (*s++ != ' ')
			return 0;
	}
}

/* A column that must be given (or, with a status other than ok, empty). */
static void
need_text(const struct csvio_table *t, size_t r, int col, int want)
{
	const char *v = csvio_cell(t, r, col);

	if ((*v != '\0') != want)
		die("%s:%zu: column '%s': %s", t->file, t->lines[r],
		    t->header[col], want ? "empty" : "a row that is not ok has "
		    "none");
}

static void
check_row(const struct csvio_table *t, size_t r)
{
	static const int plan_cols[] = { C_P, C_D, C_T, C_S, C_E, C_C,
		C_DEVICES_USED, C_ZERO_DEGREE, C_VIRTUAL_STAGES };
	struct pl_err err;
	long n, devices, used;
	double x;
	int st = csvio_enum(t, r, C_STATUS, status_word, &err), ok = st == 0;

	if (st < 0 ||
	    csvio_long(t, r, C_DEVICES, CSVIO_POSITIVE, &devices, &err) < 0 ||
	    csvio_long(t, r, C_MBS, CSVIO_POSITIVE, &n, &err) < 0)
		die_err(&err);
	need_text(t, r, C_SETUP, 1);
	need_text(t, r, C_MODEL, 1);
	need_text(t, r, C_METHOD, 1);
	/* a plan that does not fit may keep its priced step, never a
	 * throughput */
	if (!ok)
		need_text(t, r, C_THROUGHPUT, 0);
	if (!is_stage_list(csvio_cell(t, r, C_STAGES)))
		die("%s:%zu: column 'stages': '%s' is not a list of FIRST..LAST "
		    "layer ranges (xZzS: ZeRO copies)", t->file, t->lines[r],
		    csvio_cell(t, r, C_STAGES));
	if (csvio_long(t, r, C_DEVICES_USED, CSVIO_POSITIVE | CSVIO_OPTIONAL,
	    &used, &err) < 0)
		die_err(&err);
	if (*csvio_cell(t, r, C_DEVICES_USED) && used > devices)
		die("%s:%zu: column 'devices_used': %ld of %ld devices",
		    t->file, t->lines[r], used, devices);
	{	/* ZeRO stage 0-3, recomputation 0-2, flags 0/1 */
		static const int col[] = { C_ZERO, C_RECOMPUTE, C_DISTOPT };
		static const long max[] = { 3, 2, 1 };

		for (int k = 0; k < 3; k++) {
			if (csvio_long(t, r, col[k], CSVIO_NONNEG |
			    CSVIO_OPTIONAL, &n, &err) < 0)
				die_err(&err);
			if (*csvio_cell(t, r, col[k]) && n > max[k])
				die("%s:%zu: column '%s': %ld is above %ld",
				    t->file, t->lines[r], t->header[col[k]], n,
				    max[k]);
		}
	}
	for (size_t k = 0; k < sizeof plan_cols / sizeof plan_cols[0]; k++)
		if (csvio_long(t, r, plan_cols[k], CSVIO_POSITIVE |
		    CSVIO_OPTIONAL, &n, &err) < 0)
			die_err(&err);
	if (csvio_long(t, r, C_ZERO, CSVIO_NONNEG | CSVIO_OPTIONAL, &n,
	    &err) < 0 ||
	    csvio_long(t, r, C_RECOMPUTE, CSVIO_NONNEG | CSVIO_OPTIONAL, &n,
	    &err) < 0 ||
	    csvio_double(t, r, C_THROUGHPUT, (ok ? CSVIO_POSITIVE :
	    CSVIO_NONNEG | CSVIO_OPTIONAL), &x, &err) < 0 ||
	    csvio_double(t, r, C_STEP, (ok ? CSVIO_POSITIVE :
	    CSVIO_NONNEG | CSVIO_OPTIONAL), &x, &err) < 0 ||
	    csvio_double(t, r, C_SPEEDUP, CSVIO_NONNEG | CSVIO_OPTIONAL, &x,
	    &err) < 0 ||
	    csvio_double(t, r, C_SOLVE, CSVIO_NONNEG | CSVIO_OPTIONAL, &x,
	    &err) < 0 ||
	    csvio_double(t, r, C_PEAK_MEMORY, CSVIO_NONNEG | CSVIO_OPTIONAL,
	    &x, &err) < 0)
		die_err(&err);
}

static int
join(const struct opts *o, char **files, int nfiles)
{
	/* a cell and its method: what no two rows share */
	static const int same_keys[5] = { C_SETUP, C_MODEL, C_DEVICES, C_MBS,
		C_METHOD };
	row_cells *rows = xcalloc((size_t)nfiles, sizeof *rows);
	struct csvio_table *t = xcalloc((size_t)nfiles, sizeof *t);
	char (*speed)[32] = xcalloc((size_t)nfiles, sizeof *speed);
	struct outfile f;
	struct pl_err err;

	for (int i = 0; i < nfiles; i++) {
		if (csvio_read(&t[i], files[i], &err) < 0)
			die_err(&err);
		if (t[i].ncols != NCOLS)
			die("%s:1: %zu columns, a compare-baselines row has %d",
			    files[i], t[i].ncols, NCOLS);
		if (t[i].nrows == 0)
			die("%s:1: header only: no row", files[i]);
		if (t[i].nrows > 1)
			die("%s:%zu: a second row: a compare-baselines row file "
			    "holds one", files[i], t[i].lines[1]);
		for (size_t k = 0; k < NCOLS; k++)
			if (strcmp(t[i].header[k], columns[k]) != 0)
				die("%s:1: column %zu is '%s', not '%s'",
				    files[i], k + 1, t[i].header[k], columns[k]);
		check_row(&t[i], 0);
		for (int k = 0; k < NCOLS; k++)
			rows[i][k] = csvio_cell(&t[i], 0, k);
		for (int j = 0; j < i; j++) {
			int k = 0;

			while (k < 5 && strcmp(rows[j][same_keys[k]],
			    rows[i][same_keys[k]]) == 0)
				k++;
			if (k == 5)
				die("%s:%zu: the same cell and method as %s",
				    files[i], t[i].lines[0], files[j]);
		}
	}
	/* nest searches a superset of every other method's plans (all are
	 * contiguous stages of one variant, z = 1) under the same evaluator:
	 * a cell where another plan is faster is a bug, not a result */
	for (int i = 0; i < nfiles; i++)
		for (int j = 0; j < nfiles; j++) {
			double tn, tb;

			if (!is_nest(rows[i][C_METHOD]) ||
			    !in_nest_space(rows[i][C_METHOD], rows[j][C_METHOD]) ||
			    strcmp(rows[j][C_STATUS], "ok") != 0 ||
			    strcmp(rows[i][C_SETUP], rows[j][C_SETUP]) != 0 ||
			    strcmp(rows[i][C_MODEL], rows[j][C_MODEL]) != 0 ||
			    strcmp(rows[i][C_DEVICES], rows[j][C_DEVICES]) != 0 ||
			    strcmp(rows[i][C_MBS], rows[j][C_MBS]) != 0)
				continue;
			tn = strcmp(rows[i][C_STATUS], "ok") == 0 ?
			    atof(rows[i][C_THROUGHPUT]) : 0;
			tb = atof(rows[j][C_THROUGHPUT]);
			if (tb > tn * (1 + 1e-9))
				die("%s: %s %s devices b = %s: %s (%g samples/s) "
				    "beats %s (%g): its search missed a plan "
				    "of its space", files[j], rows[j][C_MODEL],
				    rows[j][C_DEVICES], rows[j][C_MBS],
				    rows[j][C_METHOD], tb, rows[i][C_METHOD], tn);
		}
	if (outfile_open(&f, o->out, &err) < 0)
		die_err(&err);
	csvio_write_row(f.fp, columns, NCOLS);
	for (int i = 0; i < nfiles; i++) {
		double ref = reference(rows, (size_t)nfiles, (size_t)i);
		const char *fields[NCOLS];

		for (int k = 0; k < NCOLS; k++)
			fields[k] = rows[i][k];
		if (strcmp(rows[i][C_STATUS], "ok") == 0 && isfinite(ref)) {
			snprintf(speed[i], sizeof speed[i], "%.4f",
			    atof(rows[i][C_THROUGHPUT]) / ref);
			fields[C_SPEEDUP] = speed[i];
		}
		csvio_write_row(f.fp, fields, NCOLS);
	}
	if (outfile_commit(&f, &err) < 0)
		die_err(&err);
	{
		int count[3] = { 0, 0, 0 };

		for (int i = 0; i < nfiles; i++)
			for (int k = 0; k < 3; k++)
				count[k] += strcmp(rows[i][C_STATUS],
				    status_word[k]) == 0;
		fprintf(stderr, "%s: %d rows: %d ok, %d oom, %d infeasible\n",
		    o->out ? o->out : "-", nfiles, count[0], count[1],
		    count[2]);
	}
	for (int i = 0; i < nfiles; i++)
		csvio_release(&t[i]);
	free(t);
	free(rows);
	free(speed);
	return 0;
}

/* ---- -R: a results table against the expected one --------------------- */

/* How each column is compared: the plan exactly, numbers within a
 * relative tolerance, timings not at all. */
enum { CMP_EXACT, CMP_REL, CMP_SKIP };

static int
column_rule(int k)
{
	switch (k) {
	case C_THROUGHPUT: case C_SPEEDUP: case C_STEP: case C_PEAK_MEMORY:
		return CMP_REL;
	case C_SOLVE: case C_NOTE:
		return CMP_SKIP;
	default:
		return CMP_EXACT;
	}
}

static void
row_key(const struct csvio_table *t, size_t r, char *buf, size_t len)
{
	snprintf(buf, len, "%s %s %s devices, b = %s, %s",
	    csvio_cell(t, r, C_SETUP), csvio_cell(t, r, C_MODEL),
	    csvio_cell(t, r, C_DEVICES), csvio_cell(t, r, C_MBS),
	    csvio_cell(t, r, C_METHOD));
}

static int
same_cell(const char *a, const char *b, int rule, double tol)
{
	char *ea, *eb;
	double x, y;

	if (rule == CMP_SKIP || strcmp(a, b) == 0)
		return 1;
	if (rule == CMP_EXACT || !*a || !*b)
		return 0;
	x = strtod(a, &ea);
	y = strtod(b, &eb);
	if (*ea || *eb)
		return 0;
	return fabs(x - y) <= tol * fmax(fabs(x), fabs(y));
}

static void
check_header(const struct csvio_table *t)
{
	if (t->ncols != NCOLS)
		die("%s:1: %zu columns, a results table has %d", t->file,
		    t->ncols, NCOLS);
	for (size_t k = 0; k < NCOLS; k++)
		if (strcmp(t->header[k], columns[k]) != 0)
			die("%s:1: column %zu is '%s', not '%s'", t->file, k + 1,
			    t->header[k], columns[k]);
}

/* A table to compare has rows, each cell and method once: a bad file is
 * an input error, not a list of differences. */
static void
no_repeated_cell(const struct csvio_table *t)
{
	if (t->nrows == 0)
		die("%s:1: header only: no row", t->file);
	for (size_t i = 1; i < t->nrows; i++) {
		char key[768], other[768];

		row_key(t, i, key, sizeof key);
		for (size_t j = 0; j < i; j++) {
			row_key(t, j, other, sizeof other);
			if (strcmp(key, other) == 0)
				die("%s:%zu: %s: the same cell and method as "
				    "line %zu", t->file, t->lines[i], key,
				    t->lines[j]);
		}
	}
}

static int
regress(const struct opts *o, const char *expected, const char *actual)
{
	struct csvio_table e, a;
	struct pl_err err;
	unsigned char *matched;
	int moved = 0;

	if (csvio_read(&e, expected, &err) < 0 || csvio_read(&a, actual,
	    &err) < 0)
		die_err(&err);
	check_header(&e);
	check_header(&a);
	for (size_t i = 0; i < e.nrows; i++)
		check_row(&e, i);
	for (size_t i = 0; i < a.nrows; i++)
		check_row(&a, i);
	no_repeated_cell(&e);
	no_repeated_cell(&a);
	matched = xcalloc(a.nrows + 1, 1);
	for (size_t i = 0; i < e.nrows; i++) {
		char key[768], akey[768];
		size_t j;

		row_key(&e, i, key, sizeof key);
		for (j = 0; j < a.nrows; j++) {
			row_key(&a, j, akey, sizeof akey);
			if (!matched[j] && strcmp(key, akey) == 0)
				break;
		}
		if (j == a.nrows) {
			printf("%s: %s: missing\n", actual, key);
			moved++;
			continue;
		}
		matched[j] = 1;
		for (int k = 0; k < NCOLS; k++)
			if (!same_cell(csvio_cell(&e, i, k), csvio_cell(&a, j, k),
			    column_rule(k), o->tolerance)) {
				printf("%s:%zu: %s: %s was %s, now %s\n", actual,
				    a.lines[j], key, columns[k],
				    *csvio_cell(&e, i, k) ? csvio_cell(&e, i, k) :
				    "(empty)", *csvio_cell(&a, j, k) ?
				    csvio_cell(&a, j, k) : "(empty)");
				moved++;
			}
	}
	for (size_t j = 0; j < a.nrows; j++)
		if (!matched[j]) {
			char key[768];

			row_key(&a, j, key, sizeof key);
			printf("%s:%zu: %s: not expected\n", actual, a.lines[j],
			    key);
			moved++;
		}
	free(matched);
	csvio_release(&e);
	csvio_release(&a);
	if (moved)
		fprintf(stderr, "%s: %d differences from %s\n", actual, moved,
		    expected);
	return moved ? 1 : 0;
}

enum { COMPAT_OPT = 256 };	/* --compat has no short form */

static void
parse_args(int argc, char *argv[], struct opts *o)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "join", no_argument, NULL, 'J' },
		{ "regress", no_argument, NULL, 'R' },
		{ "compat", required_argument, NULL, COMPAT_OPT },
		{ NULL, 0, NULL, 0 }
	};
	int ch;

	memset(o, 0, sizeof *o);
	o->configs = "configs";
	o->layers = "results/layers";
	o->tolerance = 1e-6;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, ":A:C:JL:M:N:Rb:c:hi:m:o:t:x:",
	    longopts, NULL)) != -1) {
		if (ch > 0 && ch < OPT_SEEN_MAX)
			o->seen[ch] = 1;
		switch (ch) {
		case 'A': o->artifact = optarg; break;
		case 'C': o->configs = optarg; break;
		case 'J': o->join = 1; break;
		case COMPAT_OPT:
			if (strcmp(optarg, "nest") != 0) {
				warnx("--compat: the one compatibility mode is "
				    "nest");
				usage(stderr, 2);
			}
			o->compat = 1;
			break;
		case 'L': o->layers = optarg; break;
		case 'M': o->method = optarg; break;
		case 'N': o->devices = opt_long('N', optarg, 1, 1L << 30); break;
		case 'R': o->regress = 1; break;
		case 'b': o->mbs = opt_long('b', optarg, 1, 1L << 20); break;
		case 'c': o->plan_out = optarg; break;
		case 'h': usage(stdout, 0); break;
		case 'i': o->progress = opt_progress('i', optarg); break;
		case 'm': o->model = optarg; break;
		case 'o': o->out = optarg; break;
		case 't': o->tolerance = opt_double('t', optarg, 0, 1); break;
		case 'x': o->experiment = optarg; break;
		default: bad_option(ch); usage(stderr, 2);
		}
	}
}

/* Refuse an option the form does not take (exit 2). */
static void
form_options(const struct opts *o, const char *allowed, const char *form)
{
	int c = opt_first_outside(o->seen, allowed);

	if (c != 0) {
		warnx("-%c: not with %s", c, form);
		usage(stderr, 2);
	}
}

static int
one_of_words(const char *w, const char *const *words)
{
	for (; *words; words++)
		if (strcmp(w, *words) == 0)
			return 1;
	return 0;
}

int
main(int argc, char *argv[])
{
	struct opts o;

	parse_args(argc, argv, &o);
	if (o.regress + o.join + o.compat > 1) {
		warnx("%s: one form at a time", o.regress && o.join ? "-J and -R"
		    : o.regress ? "--compat and -R" : "--compat and -J");
		usage(stderr, 2);
	}
	if (o.regress) {
		form_options(&o, "Rht", "-R");
		if (argc - optind != 2) {
			warnx("-R needs the expected and the actual table");
			usage(stderr, 2);
		}
		return regress(&o, argv[optind], argv[optind + 1]);
	}
	if (o.join) {
		form_options(&o, "Jho", "-J");
		if (optind >= argc) {
			warnx("-J needs at least one row file");
			usage(stderr, 2);
		}
		return join(&o, argv + optind, argc - optind);
	}
	if (optind != argc || !o.experiment || !o.model || !o.method ||
	    !o.devices || !o.mbs) {
		warnx("needs -x experiment.xml, -m model, -N devices, -b mbs "
		    "and -M method");
		usage(stderr, 2);
	}
	if (o.compat) {
		form_options(&o, "AMNbhiomx", "--compat nest");
		if (!o.artifact) {
			warnx("--compat nest needs -A artifact-dir");
			usage(stderr, 2);
		}
	} else
		form_options(&o, "ACLMNbchimox", "a cell");
	if (!one_of_words(o.method, o.compat ? compat_methods :
	    cell_methods)) {
		const char *const *w = o.compat ? compat_methods : cell_methods;

		fprintf(stderr, "compare-baselines: -M: '%s' is not one of:",
		    o.method);
		for (; *w; w++)
			fprintf(stderr, " %s", *w);
		fputc('\n', stderr);
		usage(stderr, 2);
	}
	if (o.compat)
		return run_artifact_cell(&o);
	return run_cell(&o);
}
