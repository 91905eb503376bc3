/*
 * artifact.h - the paper artifact's own tables (ARTIFACT, by default
 * ../shared/nest-artifact): which of its model names are which of our
 * model configs, the graphs it has for a setup, its published baseline
 * plans (baseline_configs.csv) and Alpa-E results (alpa_e_reference.csv),
 * and one cell of an artifact table priced with its cost model
 * (compat.h, --compat nest).
 */
#ifndef NP_ARTIFACT_H
#define NP_ARTIFACT_H

#include "artifact/compat.h"
#include "base/util.h"

/* One of our model configs and the artifact's names for it: every name
 * its tables use, first the one whose models.csv row gives expert
 * parallelism and recomputation. */
struct art_names {
	const char *ours;
	const char *names[3];		/* NULL-terminated */
	const char *models_row;		/* models.csv artifact_name */
};

/* The names of our model `ours`, or NULL when the artifact has none. */
const struct art_names *artifact_names(const char *ours);

/* A row of models.csv. */
struct art_model {
	char model[32];		/* short name (alpa_e_reference.csv uses it) */
	char name[64];		/* artifact_name */
	char prefix[160];	/* graph_prefix: MBS micro-batch, T width */
	long e;
	int recompute;
};

/* The models.csv row named `name` (its artifact_name, or its short model
 * name as the reference files use it): 1, 0 when none, -1 error. */
int artifact_model(const char *dir, const char *name, struct art_model *m,
    struct pl_err *err);

/* The graph directory of the model at micro-batch mbs and tensor width t
 * (graph_prefix with MBS and T filled in); -1 when the model has no graph
 * of that width (no T in its prefix and t > 1) or buf is too short. */
int artifact_graph_name(const struct art_model *m, long mbs, long t,
    char *buf, size_t len);

/* A published baseline plan: a row of baseline_configs.csv. */
struct art_baseline {
	char model[64];		/* the artifact name the row uses */
	long p, d, t, layers;
	int uneven;		/* layer_partition given: */
	long part[COMPAT_MAX_STAGES];	/* transformer layers per stage */
};

/* The plan `method` (manual, mcmc, phaze) has for our model `ours` on
 * (setup, devices): 1, 0 when the file lists none, -1 error. */
int artifact_baseline(const char *dir, const char *setup, long devices,
    const char *method, const char *ours, struct art_baseline *b,
    struct pl_err *err);

/*
 * One cell of an artifact table: `method` (nest, manual-published,
 * mcmc-published, phaze-published, alpa-e-published) for our model `ours`
 * with micro-batch mbs on (setup, devices) of setups.csv.
 */
struct art_result {
	int status;			/* BL_OK, BL_OOM, BL_INFEASIBLE */
	int has_plan;
	struct compat_plan plan;
	long t, s, e, c;		/* the plan's graph: Table 2's t, s, e, c */
	double time;			/* per batch, artifact units; or INFINITY */
	double peak_memory_bytes;
	long global_batch, devices_used;
	char graph[128];		/* the graph directory priced */
	char stages[4096];		/* "first..last" layer ids per stage */
	char note[256];
};

int artifact_run(const char *dir, const char *setup, long devices, long mbs,
    const char *ours, const char *method, struct art_result *r,
    struct pl_err *err);

/* The k-th artifact-table method standing for one of ours (manual ->
 * manual-published, mcmc -> mcmc-published, phaze -> phaze-published,
 * alpa-like -> alpa-e-published, nest -> nest and nest-artifact-input), or
 * NULL past the last. */
const char *artifact_method(const char *ours, int k);

#endif
