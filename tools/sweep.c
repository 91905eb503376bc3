/*
 * sweep - network co-design sweeps: a sweep config's points as Make
 * targets (-M), one point's network (-n), a progress line for a planned
 * point (-P), the targets of each point for a job array (-L), and the
 * joined table with every best plan's sensitivity (-J).  Make and dpsolve
 * do the work in between: see the Makefile's "make sweep".
 */
#include <limits.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

#include <libxml/tree.h>

#include "base/csvio.h"
#include "base/util.h"
#include "base/xmlio.h"
#include "export/sweep.h"
#include "io/planio.h"
#include "model/config.h"

#define PATH_LEN 4096

static void
usage(FILE *fp, int status)
{
	fprintf(fp, "usage: sweep -M [-h] [-C configdir] [-o file] sweep.xml\n"
	    "       sweep -n point -N devices [-C configdir] [-o file] "
	    "sweep.xml\n"
	    "       sweep -D [-o file] sweep.xml\n"
	    "       sweep -L -R resultdir -B builddir sweep.xml\n"
	    "       sweep -J -R resultdir -B builddir [-o file] sweep.xml\n"
	    "       sweep -P plan.xml [-i k/total]\n");
	usage_exit(fp, status);
}

struct opts {
	int mode;			/* 'M', 'n', 'D', 'L', 'J' or 'P' */
	const char *dir, *out, *point, *progress, *results, *build, *plan;
	long devices;
	const char *file;		/* the sweep config */
};

/* ---- where a point's files are (-M writes them, -L and -J read them) -- */

/* With -M the roots are the Make variables, so one fragment serves any. */
static void
net_path(char *buf, size_t len, const char *build, const struct sweep_cfg *s,
    long devices, const char *stem)
{
	snprintf(buf, len, "%s/%s/net/n%ld/%s.xml", build, s->name, devices,
	    stem);
}

/* A model, accelerator and cluster size: the network points of a group
 * make one block of the table and one panel of its heat maps. */
struct group {
	const char *model, *accel;
	long devices;
};

static long
ngroups(const struct sweep_cfg *s)
{
	return (long)s->nmodels * s->naccels * s->ndevices;
}

/* Group g, in table order: models, then accelerators, then sizes. */
static struct group
group_of(const struct sweep_cfg *s, long g)
{
	struct group x;

	x.devices = s->devices[g % s->ndevices];
	g /= s->ndevices;
	x.accel = s->accel[g % s->naccels].name;
	x.model = s->model[g / s->naccels].name;
	return x;
}

static void
plan_path(char *buf, size_t len, const char *results,
    const struct sweep_cfg *s, const struct group *g, const char *stem)
{
	snprintf(buf, len, "%s/%s/%s/%s/n%ld/%s.xml", results, s->name,
	    g->model, g->accel, g->devices, stem);
}

/* The point's best plan priced on the network with vary v moved to the
 * value nb[v] (its file named after it: a changed neighbour is a new
 * file, never a stale one). */
static void
eval_path(char *buf, size_t len, const char *build, const struct sweep_cfg *s,
    const struct group *g, const char *stem, int v, const int *nb)
{
	snprintf(buf, len, "%s/%s/eval/%s/%s/n%ld/%s@%s-%s.xml", build, s->name,
	    g->model, g->accel, g->devices, stem, s->vary[v].name,
	    s->vary[v].text[nb[v]]);
}

/* A group's layer graphs (their index). */
static void
layers_path(char *buf, size_t len, const struct sweep_cfg *s,
    const char *accel, const char *model)
{
	snprintf(buf, len, "$(SWEEP_LAYERS)/%s/%s/b%ld/index.csv", accel, model,
	    s->micro_batch);
}

/* The file every network and plan depends on: the sweep's definition
 * (sweep_definition), rewritten only when it changes (-D). */
static void
def_path(char *buf, size_t len, const char *build, const struct sweep_cfg *s)
{
	snprintf(buf, len, "%s/%s/definition.txt", build, s->name);
}

/* The neighbour of idx along vary v, or 0 when v has one value. */
static int
neighbour(const struct sweep_cfg *s, const int *idx, int v, int *nb)
{
	memcpy(nb, idx, sizeof(int) * SWEEP_MAX_VARY);
	if (s->vary[v].nvalues < 2)
		return 0;
	nb[v] = idx[v] + 1 < s->vary[v].nvalues ? idx[v] + 1 : idx[v] - 1;
	return 1;
}

static void
point_code(const struct sweep_cfg *s, const int *idx, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (int v = 0; v < s->nvary && used < len; v++)
		used += (size_t)snprintf(buf + used, len - used, "%s%d",
		    v ? "." : "", idx[v]);
}

/* ---- -M: the Make fragment ---------------------------------------------- */

/* One point of one group: dpsolve's plan, then that plan priced on each
 * neighbour's network. */
static void
point_rules(FILE *fp, const struct sweep_cfg *s, const struct group *g,
    const int *idx, long k, long total)
{
	char stem[1024], other[1024], plan[PATH_LEN], net[PATH_LEN];
	char eval[PATH_LEN], layers[512], acc[300], def[PATH_LEN];
	char mem[NUMFMT_LEN + 8], num[NUMFMT_LEN];
	int nb[SWEEP_MAX_VARY];

	sweep_point_stem(s, idx, stem, sizeof(stem));
	/* the plans' cap, where the sweep sets one (else dpsolve's) */
	snprintf(mem, sizeof mem, "%s%s%s", s->memory_bytes > 0 ? "-M " : "",
	    s->memory_bytes > 0 ? numfmt(num, s->memory_bytes) : "",
	    s->memory_bytes > 0 ? " " : "");
	plan_path(plan, sizeof(plan), "$(SWEEP_RESULTS)", s, g, stem);
	net_path(net, sizeof(net), "$(SWEEP_BUILD)", s, g->devices, stem);
	layers_path(layers, sizeof(layers), s, g->accel, g->model);
	snprintf(acc, sizeof(acc), "configs/accelerators/%s.xml", g->accel);
	def_path(def, sizeof(def), "$(SWEEP_BUILD)", s);
	/* bin/sweep only prints the progress line: order-only */
	fprintf(fp, "SWEEP_PLANS += %s\n%s: %s %s %s %s bin/dpsolve | "
	    "bin/sweep\n"
	    "\t@mkdir -p $(@D)\n"
	    "\t@bin/dpsolve -X $(SWEEP_FRAMEWORK) -Y $(SWEEP_SCHEDULE) -a %s "
	    "-n %s -N %ld -B %ld "
	    "%s-m %s -o $@ %s\n"
	    "\t@bin/sweep -P $@ -i %ld/%ld\n", plan, plan, net, layers, acc,
	    def, acc, net, g->devices, s->global_batch, mem, g->model, layers,
	    k, total);
	for (int v = 0; v < s->nvary; v++) {
		if (!neighbour(s, idx, v, nb))
			continue;
		sweep_point_stem(s, nb, other, sizeof(other));
		net_path(net, sizeof(net), "$(SWEEP_BUILD)", s, g->devices,
		    other);
		eval_path(eval, sizeof(eval), "$(SWEEP_BUILD)", s, g, stem, v,
		    nb);
		fprintf(fp, "SWEEP_EVALS += %s\n%s: %s %s %s %s bin/dpsolve\n"
		    "\t@mkdir -p $(@D)\n"
		    "\t@bin/dpsolve -E %s -a %s -n %s -N %ld -B %ld -o $@ %s\n",
		    eval, eval, plan, net, layers, acc, plan, acc, net,
		    g->devices, s->global_batch, layers);
	}
}

static int
make_fragment(const struct opts *o, const struct sweep_cfg *s,
    struct pl_err *err)
{
	long npts = sweep_net_points(s), k = 0;
	long total = npts * ngroups(s);
	int idx[SWEEP_MAX_VARY];
	struct outfile out;
	char stem[1024], net[PATH_LEN], def[PATH_LEN];

	if (sweep_check_refs(s, o->file, o->dir, err) < 0)
		return -1;
	if (outfile_open(&out, o->out, err) < 0)
		return -1;
	fprintf(out.fp, "# written by sweep -M from %s: %ld points (%d models"
	    " x %d accelerators x %d cluster sizes x %ld networks)\n", o->file,
	    total, s->nmodels, s->naccels, s->ndevices, npts);
	def_path(def, sizeof(def), "$(SWEEP_BUILD)", s);
	/* the Makefile writes it again as it reads this fragment (the
	 * config in use may be another file, older or newer); its time
	 * moves only when the definition does: a new value makes only the
	 * new points */
	fprintf(out.fp, "SWEEP_NAME := %s\nSWEEP_DEFINITION := %s\n"
	    "%s: | bin/sweep\n\t@mkdir -p $(@D)\n"
	    "\t@bin/sweep -D -o $@ $(SWEEP_CONFIG)\n", s->name, def, def);
	fprintf(out.fp, "SWEEP_TABLE := $(SWEEP_RESULTS)/%s.csv\n"
	    "SWEEP_HEAT_X := %s\nSWEEP_HEAT_Y := %s\n", s->name,
	    s->heat_x < 0 ? "devices" : s->vary[s->heat_x].name,
	    s->heat_y < 0 ? "devices" : s->vary[s->heat_y].name);
	for (int m = 0; m < s->nmodels; m++) {
		const char *model = s->model[m].name;

		for (int a = 0; a < s->naccels; a++) {
			const char *accel = s->accel[a].name;
			char set[512];

			layers_path(set, sizeof(set), s, accel, model);
			fprintf(out.fp, "SWEEP_LAYER_SETS += %s\n%s: "
			    "configs/accelerators/%s.xml configs/models/%s.xml "
			    "bin/graph-normalize\n\t@mkdir -p $(@D)\n"
			    "\tbin/graph-normalize -D $(@D) -a "
			    "configs/accelerators/%s.xml -c configs/models/%s.xml "
			    "-V b=%ld -o $@\n", set, set, accel, model, accel,
			    model, s->micro_batch);
		}
		fprintf(out.fp, "SWEEP_PLOT_FILES += $(SWEEP_PLOTS)/%s-%s.png "
		    "$(SWEEP_PLOTS)/%s-%s.svg $(SWEEP_PLOTS)/%s-%s-plans.png "
		    "$(SWEEP_PLOTS)/%s-%s-plans.svg\n", s->name, model, s->name,
		    model, s->name, model, s->name, model);
	}
	for (int d = 0; d < s->ndevices; d++)
		for (long p = 0; p < npts; p++) {
			char code[128];

			sweep_point_values(s, p, idx);
			sweep_point_stem(s, idx, stem, sizeof(stem));
			point_code(s, idx, code, sizeof(code));
			net_path(net, sizeof(net), "$(SWEEP_BUILD)", s,
			    s->devices[d], stem);
			/* bin/sweep order-only: what it writes is
			 * versioned in the definition (SWEEP_GENERATOR) */
			fprintf(out.fp, "SWEEP_NETS += %s\n%s: %s "
			    "configs/networks/%s.xml | bin/sweep\n"
			    "\t@mkdir -p $(@D)\n"
			    "\t@bin/sweep -n %s -N %ld -o $@ $(SWEEP_CONFIG)\n",
			    net, net, def, s->network, code, s->devices[d]);
		}
	for (long g = 0; g < ngroups(s); g++) {
		struct group x = group_of(s, g);

		for (long p = 0; p < npts; p++) {
			sweep_point_values(s, p, idx);
			point_rules(out.fp, s, &x, idx, ++k, total);
		}
	}
	fprintf(out.fp, "$(SWEEP_TABLE): $(SWEEP_PLANS) $(SWEEP_EVALS) "
	    "$(SWEEP_CONFIG) bin/sweep\n\t@mkdir -p $(@D)\n"
	    "\t@bin/sweep -J -R $(SWEEP_RESULTS) -B $(SWEEP_BUILD) -o $@ "
	    "$(SWEEP_CONFIG)\n");
	return outfile_commit(&out, err);
}

/* ---- -n: one point's network -------------------------------------------- */

static int
write_network(const struct opts *o, const struct sweep_cfg *s,
    struct pl_err *err)
{
	char path[1024];
	int idx[SWEEP_MAX_VARY];
	struct network net;
	struct outfile out;
	xmlDocPtr doc;
	int known = 0;

	for (int d = 0; d < s->ndevices; d++)
		known |= s->devices[d] == o->devices;
	if (!known)
		return pl_errf(err, o->file, 0, "-N %ld: not one of the sweep's "
		    "cluster sizes", o->devices);
	if (sweep_parse_point(s, o->file, o->point, idx, err) < 0)
		return -1;
	snprintf(path, sizeof(path), "%s/networks/%s.xml", o->dir, s->network);
	if ((doc = xmlio_load(path, XMLIO_NETWORK, NULL, err)) == NULL)
		return -1;
	/* the base is a valid network, and so is what we make of it */
	if (network_from_doc(&net, doc, path, err) < 0 ||
	    sweep_apply(s, o->file, idx, o->devices, doc, path, err) < 0 ||
	    network_from_doc(&net, doc, path, err) < 0 ||
	    outfile_open(&out, o->out, err) < 0) {
		xmlFreeDoc(doc);
		return -1;
	}
	xmlDocDump(out.fp, doc);
	xmlFreeDoc(doc);
	return outfile_commit(&out, err);
}

/* ---- -D: what the points depend on ------------------------------------- */

static int
write_definition(const struct opts *o, const struct sweep_cfg *s,
    struct pl_err *err)
{
	char text[4096], *old = NULL;
	struct outfile out;
	struct pl_err ignored;
	size_t len;
	int same;

	sweep_definition(s, text, sizeof(text));
	/* the same definition: the file and its time stay */
	same = o->out && access(o->out, F_OK) == 0 &&
	    read_file(o->out, &old, &len, &ignored) == 0 &&
	    len == strlen(text) && memcmp(old, text, len) == 0;
	free(old);
	if (same)
		return 0;
	if (outfile_open(&out, o->out, err) < 0)
		return -1;
	fputs(text, out.fp);
	return outfile_commit(&out, err);
}

/* ---- reading dpsolve's plans -------------------------------------------- */

struct plan_row {
	char model[128];
	long t, p, d, e, c, sp, b, v, zero_stage, zero_degree;
	long tp_overlap;		/* --tp-comm-overlap (optional) */
	long ep_batch;			/* the expert ranks split the samples */
	long ep_fold;			/* ... folding this many over a
					 * sequence (0: none) */
	long expert_t;			/* the experts' tensor split (0: t) */
	long deepep;			/* DeepEP's dispatch */
	long fp8_param_gather;		/* --fp8-param-gather */
	long stage_major;		/* each stage's replicas side by side */
	char fp8[16];			/* the FP8 recipe, "" for bf16 */
	char schedule[16];		/* zbh1, zbv, dualpipev; "": 1F1B */
	int recompute, distopt;
	double step_s, throughput, peak_bytes;
};

/* A whole-number attribute of a plan in [min, max]; absent: 1 and *out
 * untouched. */
static int
plan_long_opt(const char *path, xmlNodePtr n, const char *name, long min,
    long max, long *out, struct pl_err *err)
{
	int r = xmlio_attr_long(path, n, name, min, out, err);

	if (r == 0 && *out > max)
		return pl_errf(err, path, (size_t)xmlGetLineNo(n), "element "
		    "'%s': attribute '%s': %ld is above %ld",
		    (const char *)n->name, name, *out, max);
	return r;
}

/* The same, required. */
static int
plan_long(const char *path, xmlNodePtr n, const char *name, long min,
    long max, long *out, struct pl_err *err)
{
	int r = plan_long_opt(path, n, name, min, max, out, err);

	if (r > 0)
		return pl_errf(err, path, (size_t)xmlGetLineNo(n), "element "
		    "'%s': missing attribute '%s'", (const char *)n->name,
		    name);
	return r;
}

/* A positive number attribute of a plan, required (finite: the strict
 * parser refuses nan, inf and hex). */
static int
plan_positive(const char *path, xmlNodePtr n, const char *name,
    double *out, struct pl_err *err)
{
	int r = xmlio_attr_double(path, n, name, 0, out, err);

	if (r > 0)
		return pl_errf(err, path, (size_t)xmlGetLineNo(n), "element "
		    "'%s': missing attribute '%s'", (const char *)n->name,
		    name);
	if (r == 0 && !(*out > 0))
		return pl_errf(err, path, (size_t)xmlGetLineNo(n), "element "
		    "'%s': attribute '%s' must be positive",
		    (const char *)n->name, name);
	return r;
}

/* dpsolve -o's plan (or -E's): the parallelism, step and peak memory,
 * each checked as dpsolve writes it. */
static int
read_plan(const char *path, struct plan_row *r, struct pl_err *err)
{
	xmlDocPtr doc = xmlio_read(path, err);
	xmlNodePtr root, par, res;
	long recompute, distopt, batch = 0;
	int nstages, ret = -1;
	char *s;

	if (doc == NULL)
		return -1;
	memset(r, 0, sizeof(*r));
	root = xmlDocGetRootElement(doc);
	if (planio_plan_shape(path, root, &par, &res, &nstages, err) < 0)
		goto done;
	if (res == NULL) {
		pl_errf(err, path, (size_t)xmlGetLineNo(root), "not a plan "
		    "written by dpsolve (<plan> with <parallelism> and "
		    "<result>)");
		goto done;
	}
	s = xmlio_attr(root, "model");
	snprintf(r->model, sizeof(r->model), "%s", s ? s : "");
	free(s);
	if (plan_long(path, root, "micro_batch_samples", 1, LONG_MAX, &r->b,
	    err) < 0 ||
	    xmlio_attr_long(path, root, "global_batch_samples", 1, &batch,
	    err) < 0 ||
	    plan_long(path, par, "t", 1, LONG_MAX, &r->t, err) < 0 ||
	    plan_long(path, par, "p", 1, LONG_MAX, &r->p, err) < 0 ||
	    plan_long(path, par, "d", 1, LONG_MAX, &r->d, err) < 0 ||
	    plan_long(path, par, "e", 1, LONG_MAX, &r->e, err) < 0 ||
	    plan_long(path, par, "c", 1, LONG_MAX, &r->c, err) < 0 ||
	    plan_long(path, par, "sp", 0, 1, &r->sp, err) < 0 ||
	    plan_long(path, par, "virtual_stages", 1, LONG_MAX, &r->v,
	    err) < 0 ||
	    plan_long(path, par, "zero_stage", 0, 3, &r->zero_stage,
	    err) < 0 ||
	    plan_long(path, par, "zero_degree", 1, LONG_MAX, &r->zero_degree,
	    err) < 0 ||
	    plan_long(path, par, "recompute", 0, 3, &recompute, err) < 0 ||
	    plan_long(path, par, "distributed_optimizer", 0, 1, &distopt,
	    err) < 0 ||
	    plan_long_opt(path, par, "tp_comm_overlap", 0, 1, &r->tp_overlap,
	    err) < 0 ||
	    plan_long_opt(path, par, "ep_batch", 0, 1, &r->ep_batch,
	    err) < 0 ||
	    plan_long_opt(path, par, "ep_fold", 1, LONG_MAX, &r->ep_fold,
	    err) < 0 ||
	    plan_long_opt(path, par, "expert_t", 1, LONG_MAX, &r->expert_t,
	    err) < 0 ||
	    plan_long_opt(path, par, "deepep", 0, 1, &r->deepep, err) < 0 ||
	    plan_long_opt(path, par, "fp8_param_gather", 0, 1,
	    &r->fp8_param_gather, err) < 0 ||
	    plan_long_opt(path, par, "stage_major", 0, 1, &r->stage_major,
	    err) < 0 ||
	    plan_positive(path, res, "step_s", &r->step_s, err) < 0 ||
	    plan_positive(path, res, "throughput_samples_per_s",
	    &r->throughput, err) < 0)
		goto done;
	r->recompute = (int)recompute;
	r->distopt = (int)distopt;
	{
		char *w = xmlio_attr(par, "fp8_recipe");

		snprintf(r->fp8, sizeof r->fp8, "%s", w ? w : "");
		free(w);
		w = xmlio_attr(par, "schedule");
		if (w && plan_schedule_of(w) < 0) {
			pl_errf(err, path, (size_t)xmlGetLineNo(par), "element "
			    "'parallelism': schedule '%s' is not 1f1b, zbh1, zbv "
			    "or dualpipev", w);
			free(w);
			goto done;
		}
		snprintf(r->schedule, sizeof r->schedule, "%s", w &&
		    strcmp(w, "1f1b") ? w : "");
		free(w);
	}
	/* dpsolve writes both from one step: a plan whose two disagree was
	 * edited */
	if (batch > 0 && fabs(r->throughput * r->step_s / (double)batch - 1) >
	    1e-6) {
		pl_errf(err, path, (size_t)xmlGetLineNo(res), "element "
		    "'result': throughput_samples_per_s is not "
		    "global_batch_samples / step_s");
		goto done;
	}
	for (xmlNodePtr n = root->children; n; n = n->next) {
		double mem;

		if (n->type != XML_ELEMENT_NODE ||
		    xmlStrcmp(n->name, BAD_CAST "stage") != 0)
			continue;
		if (xmlio_attr_double(path, n, "memory_bytes", 0, &mem,
		    err) < 0)
			goto done;
		if (mem > r->peak_bytes)
			r->peak_bytes = mem;
	}
	ret = 0;
done:
	xmlFreeDoc(doc);
	return ret;
}

static const char *const recompute_word[] = { "none", "full", "selective",
	"op" };

static const char *
recompute_name(int rc)
{
	return rc >= 0 && rc <= 3 ? recompute_word[rc] : "?";
}

/* "t8 sp p4 v2 d32 b1 rc-full dopt": what a reader scans for. */
static void
plan_label(const struct plan_row *r, char *buf, size_t len)
{
	size_t u = (size_t)snprintf(buf, len, "t%ld", r->t);

#define ADD(...) do { if (u < len) u += (size_t)snprintf(buf + u, len - u, \
	__VA_ARGS__); } while (0)
	if (r->sp)
		ADD(" sp");
	if (r->e > 1)
		ADD(" e%ld%s", r->e, r->ep_batch ? " epb" : "");
	if (r->ep_batch && r->ep_fold > 1)
		ADD(" fold%ld", r->ep_fold);
	if (r->expert_t > 0 && r->expert_t != r->t)
		ADD(" etp%ld", r->expert_t);
	if (r->deepep)
		ADD(" deepep");
	if (r->c > 1)
		ADD(" c%ld", r->c);
	ADD(" p%ld", r->p);
	if (r->v > 1)
		ADD(" v%ld", r->v);
	ADD(" d%ld b%ld", r->d, r->b);
	if (r->stage_major)	/* each stage's replicas side by side */
		ADD(" stage-major");
	if (r->recompute)
		ADD(" rc-%s", recompute_name(r->recompute));
	if (r->distopt)
		ADD(" dopt");
	if (r->tp_overlap)
		ADD(" tpo");
	if (r->zero_stage)
		ADD(" zero%ld/%ld", r->zero_stage, r->zero_degree);
	if (r->fp8[0])
		ADD(" fp8-%s", r->fp8);
	if (r->fp8_param_gather)
		ADD(" fp8-gather");
	if (r->schedule[0])
		ADD(" %s", r->schedule);
#undef ADD
}

/* ---- -P: one finished point --------------------------------------------- */

static int
progress(const struct opts *o, struct pl_err *err)
{
	struct plan_row r;
	char label[256];
	const char *point = o->plan + strlen(o->plan);

	if (read_plan(o->plan, &r, err) < 0)
		return -1;
	plan_label(&r, label, sizeof(label));
	/* MODEL/ACCEL/nN/STEM.xml: the point, without the folders above */
	for (int slashes = 0; point > o->plan; point--)
		if (point[-1] == '/' && ++slashes == 4)
			break;
	fprintf(stderr, "[%s] sweep %.*s: %.4g samples/s, %s\n",
	    o->progress ? o->progress : "-", (int)(strlen(point) > 4 ?
	    strlen(point) - 4 : strlen(point)), point, r.throughput, label);
	return 0;
}

/* ---- -L: each point's targets, one line a point ------------------------- */

static int
list_points(const struct opts *o, const struct sweep_cfg *s)
{
	long npts = sweep_net_points(s);
	int idx[SWEEP_MAX_VARY], nb[SWEEP_MAX_VARY];
	char stem[1024], path[PATH_LEN];

	for (long g = 0; g < ngroups(s); g++) {
		struct group x = group_of(s, g);

		for (long p = 0; p < npts; p++) {
			sweep_point_values(s, p, idx);
			sweep_point_stem(s, idx, stem, sizeof(stem));
			plan_path(path, sizeof(path), o->results, s, &x, stem);
			printf("%s", path);
			for (int v = 0; v < s->nvary; v++) {
				if (!neighbour(s, idx, v, nb))
					continue;
				eval_path(path, sizeof(path), o->build, s, &x,
				    stem, v, nb);
				printf(" %s", path);
			}
			printf("\n");
		}
	}
	return fflush(stdout) == 0 && !ferror(stdout) ? 0 : -1;
}

/* ---- -J: the table ------------------------------------------------------ */

struct point {
	struct plan_row plan;
	int idx[SWEEP_MAX_VARY];
	char stem[1024];
	double elasticity[SWEEP_MAX_VARY];	/* NAN: none */
	double relative;
};

/* d ln(throughput) / d ln(value) of the point's plan along vary v,
 * between the point and its neighbour (the plan held fixed). */
static int
elasticity(const struct opts *o, const struct sweep_cfg *s,
    const struct group *g, struct point *pt, int v, struct pl_err *err)
{
	const struct sweep_vary *y = &s->vary[v];
	int nb[SWEEP_MAX_VARY];
	struct plan_row moved;
	char path[PATH_LEN];
	double x0, x1;

	pt->elasticity[v] = NAN;
	if (!neighbour(s, pt->idx, v, nb))
		return 0;
	eval_path(path, sizeof(path), o->build, s, g, pt->stem, v, nb);
	if (read_plan(path, &moved, err) < 0)
		return -1;
	x0 = y->value[pt->idx[v]];
	x1 = y->value[nb[v]];
	if (x0 > 0 && x1 > 0)
		pt->elasticity[v] = log(moved.throughput / pt->plan.throughput) /
		    log(x1 / x0);
	return 0;
}

static void
write_header(FILE *fp, const struct sweep_cfg *s)
{
	static const char *const mid[] = {
		"network", "plan", "t", "p", "d", "e", "c", "sp",
		"micro_batch_samples", "virtual_stages", "recompute",
		"distributed_optimizer", "zero_stage", "step_s",
		"throughput_samples_per_s", "relative_throughput",
		"peak_memory_bytes"
	};

	fprintf(fp, "sweep,model,accelerator,devices");
	for (int v = 0; v < s->nvary; v++)
		fprintf(fp, ",%s", s->vary[v].name);
	for (size_t i = 0; i < sizeof(mid) / sizeof(mid[0]); i++)
		fprintf(fp, ",%s", mid[i]);
	for (int v = 0; v < s->nvary; v++)
		fprintf(fp, ",elasticity_%s", s->vary[v].name);
	fprintf(fp, "\n");
}

static void
write_row(FILE *fp, const struct sweep_cfg *s, const struct group *g,
    const struct point *pt)
{
	const struct plan_row *r = &pt->plan;
	char label[256], net[400];

	plan_label(r, label, sizeof(label));
	sweep_network_name(s, pt->idx, g->devices, net, sizeof(net));
	fprintf(fp, "%s,%s,%s,%ld", s->name, g->model, g->accel, g->devices);
	for (int v = 0; v < s->nvary; v++)
		fprintf(fp, ",%s", s->vary[v].text[pt->idx[v]]);
	fprintf(fp, ",%s,%s,%ld,%ld,%ld,%ld,%ld,%ld,%ld,%ld,%s,%d,%ld,"
	    "%.6g,%.6g,%.4f,%.6g", net, label, r->t, r->p, r->d, r->e, r->c,
	    r->sp, r->b,
	    r->v > 0 ? r->v : 1, recompute_name(r->recompute), r->distopt,
	    r->zero_stage, r->step_s, r->throughput, pt->relative,
	    r->peak_bytes);
	for (int v = 0; v < s->nvary; v++)
		if (isnan(pt->elasticity[v]))
			fprintf(fp, ",");
		else	/* no "-0.000" */
			fprintf(fp, ",%.3f", fabs(pt->elasticity[v]) < 5e-4 ? 0 :
			    pt->elasticity[v]);
	fprintf(fp, "\n");
}

/* One line a model and cluster size on stderr: the range, the best point
 * and the parameter the best plans are most sensitive to. */
static void
summarize(const struct sweep_cfg *s, const struct group *g,
    const struct point *pts, long n)
{
	long best = 0, worst = 0;
	double mean[SWEEP_MAX_VARY] = { 0 };
	int top = -1;
	char label[256];

	for (long i = 1; i < n; i++) {
		if (pts[i].plan.throughput > pts[best].plan.throughput)
			best = i;
		if (pts[i].plan.throughput < pts[worst].plan.throughput)
			worst = i;
	}
	for (int v = 0; v < s->nvary; v++) {
		long k = 0;

		for (long i = 0; i < n; i++)
			if (!isnan(pts[i].elasticity[v])) {
				mean[v] += fabs(pts[i].elasticity[v]);
				k++;
			}
		mean[v] = k ? mean[v] / (double)k : 0;
		if (k && (top < 0 || mean[v] > mean[top]))
			top = v;
	}
	plan_label(&pts[best].plan, label, sizeof(label));
	fprintf(stderr, "sweep %s: %s on %ld %s: %.4g-%.4g samples/s "
	    "(%.2fx); best %s (%s)", s->name, g->model, g->devices, g->accel,
	    pts[worst].plan.throughput, pts[best].plan.throughput,
	    pts[best].plan.throughput / pts[worst].plan.throughput,
	    pts[best].stem, label);
	if (top >= 0)
		fprintf(stderr, "; most sensitive to %s (mean |elasticity| "
		    "%.2f)", s->vary[top].name, mean[top]);
	fprintf(stderr, "\n");
}

/* Every plan and pricing is read before a byte is written: a missing
 * one leaves no partial table, not even on standard output. */
static int
join(const struct opts *o, const struct sweep_cfg *s, struct pl_err *err)
{
	long npts = sweep_net_points(s), n = ngroups(s);
	struct point *pts = xcalloc((size_t)(npts * n), sizeof(*pts));
	struct outfile out;

	for (long g = 0; g < n; g++) {
		struct group x = group_of(s, g);
		struct point *group = pts + g * npts;
		double best = 0;

		for (long p = 0; p < npts; p++) {
			struct point *pt = &group[p];
			char path[PATH_LEN];

			sweep_point_values(s, p, pt->idx);
			sweep_point_stem(s, pt->idx, pt->stem, sizeof(pt->stem));
			plan_path(path, sizeof(path), o->results, s, &x,
			    pt->stem);
			if (read_plan(path, &pt->plan, err) < 0)
				goto fail;
			for (int v = 0; v < s->nvary; v++)
				if (elasticity(o, s, &x, pt, v, err) < 0)
					goto fail;
			if (pt->plan.throughput > best)
				best = pt->plan.throughput;
		}
		for (long p = 0; p < npts; p++)
			group[p].relative = group[p].plan.throughput / best;
	}
	if (outfile_open(&out, o->out, err) < 0)
		goto fail;
	write_header(out.fp, s);
	for (long g = 0; g < n; g++) {
		struct group x = group_of(s, g);

		for (long p = 0; p < npts; p++)
			write_row(out.fp, s, &x, &pts[g * npts + p]);
	}
	if (outfile_commit(&out, err) < 0)
		goto fail;
	for (long g = 0; g < n; g++) {
		struct group x = group_of(s, g);

		summarize(s, &x, pts + g * npts, npts);
	}
	fprintf(stderr, "sweep %s: %ld points in %s\n", s->name, npts * n,
	    o->out ? o->out : "stdout");
	free(pts);
	return 0;
fail:
	free(pts);
	return -1;
}

/* -n's value indices, i.j...: digits and dots (whether there is one a
 * <vary>, each within it, the sweep's config says) */
static int
point_syntax(const char *p)
{
	for (;;) {
		size_t n = strspn(p, "0123456789");

		if (n == 0)
			return 0;
		p += n;
		if (*p == '\0')
			return 1;
		if (*p++ != '.')
			return 0;
	}
}

static void
parse_args(int argc, char *argv[], struct opts *o)
{
	/* each form's options (the usage text) */
	static const struct { int mode; const char *options, *needs; } forms[] = {
		{ 'M', "MCho", NULL }, { 'n', "nNCho", "-N devices" },
		{ 'D', "Dho", NULL }, { 'L', "LRBh", "-R resultdir and -B builddir" },
		{ 'J', "JRBho", "-R resultdir and -B builddir" },
		{ 'P', "Phi", NULL },
	};
	unsigned char seen[OPT_SEEN_MAX] = { 0 };
	int ch, c;

	memset(o, 0, sizeof(*o));
	o->dir = "configs";
	if (wants_help(argc, argv))
		usage(stdout, 0);
	opterr = 0;
	while ((ch = getopt(argc, argv, ":B:C:DJLMN:P:R:hi:n:o:")) != -1) {
		if (ch > 0 && ch < OPT_SEEN_MAX)
			seen[ch] = 1;
		switch (ch) {
		case 'B': o->build = optarg; break;
		case 'C': o->dir = optarg; break;
		case 'D': case 'J': case 'L': case 'M': case 'P': case 'n':
			if (o->mode && o->mode != ch) {
				warnx("-%c and -%c: one form at a time",
				    o->mode, ch);
				usage(stderr, 2);
			}
			o->mode = ch;
			if (ch == 'P')
				o->plan = optarg;
			if (ch == 'n' && !point_syntax(optarg)) {
				warnx("-n: '%s' is not value indices i.j... "
				    "(whole numbers and dots)", optarg);
				usage(stderr, 2);
			}
			if (ch == 'n')
				o->point = optarg;
			break;
		case 'N': o->devices = opt_long('N', optarg, 1, 1L << 30); break;
		case 'R': o->results = optarg; break;
		case 'h': usage(stdout, 0); break;
		case 'i': o->progress = opt_progress('i', optarg); break;
		case 'o': o->out = optarg; break;
		default: bad_option(ch); usage(stderr, 2);
		}
	}
	if (o->mode == 0) {
		warnx("one of -M, -n, -D, -L, -J or -P");
		usage(stderr, 2);
	}
	for (size_t f = 0; f < sizeof(forms) / sizeof(forms[0]); f++) {
		if (forms[f].mode != o->mode)
			continue;
		if ((c = opt_first_outside(seen, forms[f].options)) != 0) {
			warnx("-%c: not with -%c", c, o->mode);
			usage(stderr, 2);
		}
		if (forms[f].needs && ((o->mode == 'n' && o->devices == 0) ||
		    (o->mode != 'n' && (!o->results || !o->build)))) {
			warnx("-%c needs %s", o->mode, forms[f].needs);
			usage(stderr, 2);
		}
	}
	if (o->mode == 'P') {
		if (optind != argc) {
			warnx("-P takes no sweep.xml");
			usage(stderr, 2);
		}
		return;
	}
	if (optind != argc - 1) {
		warnx("needs one sweep.xml");
		usage(stderr, 2);
	}
	o->file = argv[optind];
}

int
main(int argc, char *argv[])
{
	struct sweep_cfg s;
	struct pl_err err;
	struct opts o;
	int ret;

	parse_args(argc, argv, &o);
	if (o.mode == 'P') {
		if (progress(&o, &err) < 0)
			die_err(&err);
		return 0;
	}
	if (sweep_load(&s, o.file, &err) < 0)
		die_err(&err);
	switch (o.mode) {
	case 'M': ret = make_fragment(&o, &s, &err); break;
	case 'n': ret = write_network(&o, &s, &err); break;
	case 'L': ret = list_points(&o, &s); break;
	case 'D': ret = write_definition(&o, &s, &err); break;
	default: ret = join(&o, &s, &err); break;
	}
	if (ret < 0 && o.mode == 'L')
		die("stdout: write error");
	if (ret < 0)
		die_err(&err);
	return 0;
}
