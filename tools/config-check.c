/*
 * config-check - validate configs (any of the four kinds) against their
 * schemas and semantic rules, and print one summary row per file.  With
 * -C dir, an experiment's references (accelerator, networks, models) are
 * loaded from dir and checked too (a cluster's device count must be its
 * network's).  With -M, it writes instead the Make fragment that lists
 * the analytic layer sets the experiments need (accelerator, model and
 * micro-batch size each), which the Makefile includes.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "artifact/artifact.h"
#include "base/csvio.h"
#include "base/util.h"
#include "base/xmlio.h"
#include "export/sweep.h"
#include "model/config.h"
#include "model/netmodel.h"

static void
usage(FILE *fp, int status)
{
	fprintf(fp, "usage: config-check [-h] [-C configdir] [-o file] "
	    "config.xml...\n"
	    "       config-check -M [-C configdir] [-o file] experiment.xml...\n");
	usage_exit(fp, status);
}

struct summary {
	const char *kind;
	char name[128];
	char parameters[NUMFMT_LEN], devices[NUMFMT_LEN], memory[NUMFMT_LEN];
	char cells[NUMFMT_LEN];
};

static int
check_refs(const struct experiment_cfg *e, const char *file, const char *dir,
    struct pl_err *err)
{
	char path[1024];
	struct accel_cfg a;
	struct model_cfg m;
	struct network n;

	snprintf(path, sizeof(path), "%s/accelerators/%s.xml", dir,
	    e->accelerator);
	if (accel_load(&a, path, err) < 0)
		return pl_err_ref(err, file, e->accelerator_line, "accelerator",
		    e->accelerator);
	for (int i = 0; i < e->nmodels; i++) {
		snprintf(path, sizeof(path), "%s/models/%s.xml", dir,
		    e->model[i].name);
		if (model_load(&m, path, err) < 0)
			return pl_err_ref(err, file, e->model[i].line, "model",
			    e->model[i].name);
	}
	for (int i = 0; i < e->nclusters; i++) {
		snprintf(path, sizeof(path), "%s/networks/%s.xml", dir,
		    e->cluster[i].network);
		if (network_load(&n, path, err) < 0)
			return pl_err_ref(err, file, e->cluster[i].line,
			    "network", e->cluster[i].network);
		if (n.ndevices != e->cluster[i].devices)
			return pl_errf(err, file, e->cluster[i].line, "cluster "
			    "'%s': the network "
			    "has %ld devices, not %ld", e->cluster[i].network,
			    n.ndevices, e->cluster[i].devices);
	}
	return 0;
}

static int check_doc(xmlDocPtr doc, enum xmlio_kind kind, const char *file,
    const char *dir, struct summary *s, struct pl_err *err);

static int
check(const char *file, const char *dir, struct summary *s, struct pl_err *err)
{
	enum xmlio_kind kind;
	xmlDocPtr doc;
	int ret;

	memset(s, 0, sizeof(*s));
	if ((doc = xmlio_load(file, XMLIO_ANY, &kind, err)) == NULL)
		return -1;
	ret = check_doc(doc, kind, file, dir, s, err);
	xmlFreeDoc(doc);
	return ret;
}

static int
check_doc(xmlDocPtr doc, enum xmlio_kind kind, const char *file,
    const char *dir, struct summary *s, struct pl_err *err)
{
	s->kind = xmlio_kind_name(kind);
	switch (kind) {
	case XMLIO_MODEL: {
		struct model_cfg m;

		if (model_from_doc(&m, doc, file, err) < 0)
			return -1;
		snprintf(s->name, sizeof(s->name), "%s", m.name);
		numfmt(s->parameters, model_parameters(&m));
		break;
	}
	case XMLIO_ACCELERATOR: {
		struct accel_cfg a;

		if (accel_from_doc(&a, doc, file, err) < 0)
			return -1;
		snprintf(s->name, sizeof(s->name), "%s", a.name);
		numfmt(s->memory, a.memory_bytes);
		break;
	}
	case XMLIO_NETWORK: {
		struct network n;

		if (network_from_doc(&n, doc, file, err) < 0)
			return -1;
		snprintf(s->name, sizeof(s->name), "%s", n.name);
		snprintf(s->devices, NUMFMT_LEN, "%ld", n.ndevices);
		break;
	}
	case XMLIO_SWEEP: {
		struct sweep_cfg sw;

		if (sweep_from_doc(&sw, doc, file, err) < 0 ||
		    (dir && sweep_check_refs(&sw, file, dir, err) < 0))
			return -1;
		snprintf(s->name, sizeof(s->name), "%s", sw.name);
		snprintf(s->cells, NUMFMT_LEN, "%ld", sweep_net_points(&sw) *
		    sw.ndevices * sw.nmodels * sw.naccels);
		break;
	}
	default: {
		struct experiment_cfg e;

		if (experiment_from_doc(&e, doc, file, err) < 0)
			return -1;
		if (dir && check_refs(&e, file, dir, err) < 0)
			return -1;
		snprintf(s->name, sizeof(s->name), "%s", e.name);
		snprintf(s->cells, NUMFMT_LEN, "%d", e.nclusters * e.nmodels *
		    e.nmbs * e.nmethods);
		break;
	}
	}
	return 0;
}

/*
 * The experiment's artifact table (make artifact): the same cells priced
 * by the artifact's cost model (compare-baselines --compat nest), each
 * method by the published one standing for it; they read only the
 * artifact's files (ARTIFACT_INPUTS).
 */
static void
artifact_rules(FILE *fp, const char *file, const struct experiment_cfg *e)
{
	const char *meth[EXP_MAX];
	int nmeth = 0;
	long total, k = 0;

	for (int x = 0; x < e->nmethods; x++) {
		const char *m;

		for (int i = 0; (m = artifact_method(e->methods[x], i)); i++) {
			int seen = 0;

			for (int y = 0; y < nmeth; y++)
				seen |= strcmp(meth[y], m) == 0;
			if (!seen && nmeth < EXP_MAX)
				meth[nmeth++] = m;
		}
	}
	total = (long)e->nmodels * e->nclusters * e->nmbs * nmeth;
	fprintf(fp, "\nARTIFACT_TABLES += results/artifact/%s.csv\n", e->name);
	for (int m = 0; m < e->nmodels; m++)
		for (int c = 0; c < e->nclusters; c++)
			for (int b = 0; b < e->nmbs; b++)
				for (int x = 0; x < nmeth; x++) {
					char row[768];

					snprintf(row, sizeof(row), "build/artifact-rows/"
					    "%s/%s/%ld/b%ld/%s.csv", e->name,
					    e->model[m].name, e->cluster[c].devices,
					    e->mbs[b], meth[x]);
					fprintf(fp, "ART_ROWS_%s += %s\n%s: %s "
					    "bin/compare-baselines $(ARTIFACT_INPUTS)\n"
					    "\t@mkdir -p $(@D)\n"
					    "\t@bin/compare-baselines --compat nest "
					    "-A $(ARTIFACT) -x %s -m %s -N %ld -b %ld "
					    "-M %s -i %ld/%ld -o $@\n", e->name, row,
					    row, file, file, e->model[m].name,
					    e->cluster[c].devices, e->mbs[b], meth[x],
					    ++k, total);
				}
	fprintf(fp, "results/artifact/%s.csv: $(ART_ROWS_%s) "
	    "bin/compare-baselines\n"
	    "\t@mkdir -p $(@D)\n"
	    "\t@bin/compare-baselines -J -o $@ $(ART_ROWS_%s)\n", e->name,
	    e->name, e->name);
}

/*
 * The cells of one experiment for Make: a row file per (model, cluster,
 * micro-batch, method), each made by compare-baselines from exactly the
 * configs and layer set it reads, and the results table that joins them.
 */
static void
experiment_rules(FILE *fp, const char *file, const struct experiment_cfg *e)
{
	long total = (long)e->nmodels * e->nclusters * e->nmbs * e->nmethods;
	long k = 0;

	fprintf(fp, "\nRESULT_TABLES += results/%s.csv\n", e->name);
	for (int m = 0; m < e->nmodels; m++)
		for (int c = 0; c < e->nclusters; c++)
			for (int b = 0; b < e->nmbs; b++)
				for (int x = 0; x < e->nmethods; x++) {
					const char *meth = e->methods[x];
					char row[768];

					snprintf(row, sizeof(row), "build/rows/%s/"
					    "%s/%ld/b%ld/%s.csv", e->name,
					    e->model[m].name, e->cluster[c].devices,
					    e->mbs[b], meth);
					fprintf(fp, "ROWS_%s += %s\n%s: %s "
					    "configs/models/%s.xml "
					    "configs/networks/%s.xml "
					    "configs/accelerators/%s.xml "
					    "results/layers/%s/%s/b%ld/index.csv "
					    "bin/compare-baselines%s\n"
					    "\t@mkdir -p $(@D)\n"
					    "\t@bin/compare-baselines -A $(ARTIFACT) "
					    "-x %s -m %s -N %ld -b %ld -M %s "
					    "-i %ld/%ld -c $(@:.csv=.plan.csv) "
					    "-o $@\n", e->name, row, row, file,
					    e->model[m].name, e->cluster[c].network,
					    e->accelerator, e->accelerator,
					    e->model[m].name, e->mbs[b],
					    strstr(meth, "published") ?
					    " $(wildcard $(ARTIFACT)/"
					    "baseline_configs.csv)" : "",
					    file, e->model[m].name,
					    e->cluster[c].devices, e->mbs[b], meth,
					    ++k, total);
				}
	fprintf(fp, "results/%s.csv: $(ROWS_%s) bin/compare-baselines\n"
	    "\t@bin/compare-baselines -J -o $@ $(ROWS_%s)\n", e->name,
	    e->name, e->name);
	if (e->artifact_setup[0])
		artifact_rules(fp, file, e);
}

/* The Make fragment of -M: LAYER_SETS, each set once, in input order;
 * then each experiment's cells. */
static int
make_fragment(char **files, int n, const char *dir, const char *outpath,
    struct pl_err *err)
{
	size_t cap = 64, nsets = 0;
	char (*sets)[512] = xmalloc(cap * sizeof(*sets));
	struct experiment_cfg *exps = xcalloc((size_t)n, sizeof(*exps));
	struct outfile out;

	for (int i = 0; i < n; i++) {
		struct experiment_cfg *e = &exps[i];

		if (experiment_load(e, files[i], err) < 0 ||
		    (dir && check_refs(e, files[i], dir, err) < 0)) {
			free(sets);
			free(exps);
			return -1;
		}
		for (int j = 0; j < i; j++)
			if (strcmp(exps[j].name, e->name) == 0) {
				pl_errf(err, files[i], 0, "experiment '%s' is "
				    "also %s: its results table would be made "
				    "twice", e->name, files[j]);
				free(sets);
				free(exps);
				return -1;
			}
		for (int k = 0; k < e->nmodels; k++)
			for (int b = 0; b < e->nmbs; b++) {
				char set[512];
				size_t j;

				snprintf(set, sizeof(set), "results/layers/%s/%s/b%ld/"
				    "index.csv", e->accelerator, e->model[k].name,
				    e->mbs[b]);
				for (j = 0; j < nsets; j++)
					if (strcmp(sets[j], set) == 0)
						break;
				if (j < nsets)
					continue;
				if (nsets == cap) {
					cap *= 2;
					sets = xrealloc(sets, cap * sizeof(*sets));
				}
				memcpy(sets[nsets++], set, sizeof(set));
			}
	}
	if (outfile_open(&out, outpath, err) < 0) {
		free(sets);
		free(exps);
		return -1;
	}
	fprintf(out.fp, "# written by config-check -M from the experiment "
	    "configs\n");
	for (size_t j = 0; j < nsets; j++)
		fprintf(out.fp, "LAYER_SETS += %s\n", sets[j]);
	for (int i = 0; i < n; i++)
		experiment_rules(out.fp, files[i], &exps[i]);
	free(sets);
	free(exps);
	return outfile_commit(&out, err);
}

int
main(int argc, char *argv[])
{
	static const char *const header[] = {
		"file", "kind", "name", "parameters", "devices", "memory_bytes",
		"cells"
	};
	struct summary *s;
	struct outfile out;
	struct pl_err err;
	const char *dir = NULL, *outpath = NULL;
	int ch, fragment = 0;

	if (wants_help(argc, argv))
		usage(stdout, 0);
	opterr = 0;
	while ((ch = getopt(argc, argv, ":C:Mho:")) != -1) {
		switch (ch) {
		case 'C': dir = optarg; break;
		case 'M': fragment = 1; break;
		case 'h': usage(stdout, 0); break;
		case 'o': outpath = optarg; break;
		default: bad_option(ch); usage(stderr, 2);
		}
	}
	argc -= optind;
	argv += optind;
	if (argc < 1)
		usage(stderr, 2);
	if (fragment) {
		if (make_fragment(argv, argc, dir, outpath, &err) < 0)
			die_err(&err);
		return 0;
	}
	s = xcalloc((size_t)argc, sizeof(*s));
	for (int i = 0; i < argc; i++)
		if (check(argv[i], dir, &s[i], &err) < 0)
			die_err(&err);
	if (outfile_open(&out, outpath, &err) < 0)
		die_err(&err);
	csvio_write_row(out.fp, header, 7);
	for (int i = 0; i < argc; i++) {
		const char *f[7] = { argv[i], s[i].kind, s[i].name,
		    s[i].parameters, s[i].devices, s[i].memory, s[i].cells };

		csvio_write_row(out.fp, f, 7);
	}
	free(s);
	if (outfile_commit(&out, &err) < 0)
		die_err(&err);
	return 0;
}
