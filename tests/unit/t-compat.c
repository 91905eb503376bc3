/*
 * t-compat.c - the artifact's cost model against the artifact's own DP:
 * every plan of check/nest_dp_reference.csv (NEST's, Manual's, Phaze's and
 * MCMC's, bert and llama2 on the fat-tree, 64 to 1,024 devices), priced on
 * the artifact's layer tables, must give the time per batch it lists to a
 * relative 1e-9.  Reads $ARTIFACT (default ../shared/nest-artifact).
 */
#include <stdlib.h>
#include <string.h>

#include "compat.h"
#include "csvio.h"
#include "tap.h"

static const char *artifact;

/* models.csv: the graph directory of (model, micro-batch, t) and the
 * recomputation flag. */
static int
graph_of(const char *model, const char *mbs, long t, char *dir, size_t len,
    int *recompute)
{
	struct csvio_table m;
	struct pl_err err;
	char path[1024];
	int found = 0;

	snprintf(path, sizeof(path), "%s/models.csv", artifact);
	if (csvio_read(&m, path, &err) < 0)
		return -1;
	for (size_t r = 0; r < m.nrows; r++) {
		const char *p = csvio_cell(&m, r, csvio_col(&m, "graph_prefix",
		    &err));
		char *w = dir;

		if (strcmp(csvio_cell(&m, r, csvio_col(&m, "model", &err)),
		    model) != 0)
			continue;
		*recompute = atoi(csvio_cell(&m, r, csvio_col(&m,
		    "activation_recomputation", &err)));
		/* MBS -> micro-batch, T (in _tmp_T_) -> t */
		while (*p && (size_t)(w - dir) < len - 32) {
			if (strncmp(p, "MBS", 3) == 0) {
				w += sprintf(w, "%s", mbs);
				p += 3;
			} else if (strncmp(p, "_tmp_T", 6) == 0) {
				w += sprintf(w, "_tmp_%ld", t);
				p += 6;
			} else
				*w++ = *p++;
		}
		*w = '\0';
		found = 1;
	}
	csvio_release(&m);
	return found ? 0 : -1;
}

/* "4 4 4 5" -> sizes; returns the count. */
static int
list(const char *s, long *out, int max)
{
	int n = 0;
	char *end;

	while (n < max) {
		long v = strtol(s, &end, 10);

		if (end == s)
			break;
		out[n++] = v;
		s = end;
	}
	return n;
}

int
main(void)
{
	struct csvio_table ref;
	struct pl_err err;
	char path[1024];
	int rows = 0;

	artifact = getenv("ARTIFACT");
	if (artifact == NULL)
		artifact = "../shared/nest-artifact";
	snprintf(path, sizeof(path), "%s/check/nest_dp_reference.csv", artifact);
	if (csvio_read(&ref, path, &err) < 0) {
		printf("Bail out! no artifact reference at %s\n", path);
		return 1;
	}
	for (size_t r = 0; r < ref.nrows; r++) {
#define CELL(name) csvio_cell(&ref, r, csvio_col(&ref, name, &err))
		struct compat_graph g;
		struct compat_cluster c;
		struct compat_plan plan;
		char dir[512], gdir[1200], setups[1024], label[256];
		long t = atol(CELL("tp_degree")), want_dev = atol(CELL("devices"));
		int p = atoi(CELL("pp_stages")), recompute = 0;
		double want = atof(CELL("time_per_batch_artifact_units"));

		memset(&plan, 0, sizeof(plan));
		snprintf(label, sizeof(label), "%s %s %ld devices %s (p=%d d=%s "
		    "t=%ld)", CELL("setup"), CELL("model"), want_dev,
		    CELL("method"), p, CELL("dp_degree"), t);
		snprintf(setups, sizeof(setups), "%s/setups.csv", artifact);
		if (graph_of(CELL("model"), CELL("mbs"), t, dir, sizeof(dir),
		    &recompute) < 0 ||
		    compat_read_cluster(&c, setups, CELL("setup"), want_dev,
		    &err) < 0) {
			OK(0, label);
			continue;
		}
		snprintf(gdir, sizeof(gdir), "%s/%s/%s", artifact, CELL("setup"),
		    dir);
		if (compat_read_graph(&g, gdir, strcmp(CELL("layer_time_source"),
		    "ilp") == 0, &err) < 0) {
			OK(0, label);
			continue;
		}
		if (strcmp(CELL("method"), "nest") == 0) {
			long widths[COMPAT_MAX_STAGES];

			plan.nstages = list(CELL("layers_per_stage"), plan.size,
			    COMPAT_MAX_STAGES);
			list(CELL("devices_per_stage"), widths, COMPAT_MAX_STAGES);
			for (int s = 0; s < plan.nstages; s++)
				plan.width[s] = widths[s] * t;
		} else if (compat_uniform_split(&plan, g.n, (long)g.n - 1, p, t) <
		    0) {
			OK(0, label);
			compat_release_graph(&g);
			continue;
		}
		plan.d = atol(CELL("dp_degree"));
		plan.recompute = recompute;
		EQ_DBL(compat_time(&g, &c, &plan), want, 1e-9, label);
		compat_release_graph(&g);
		rows++;
#undef CELL
	}
	EQ_INT(rows, 40, "every reference row priced");
	csvio_release(&ref);
	return tap_done();
}
