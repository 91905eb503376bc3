/*
 * compat.h - the paper artifact's cost model (--compat nest), rule by rule
 * as docs/compat.md states it.  It prices a plan on the artifact's own
 * layer tables (layers.csv, layer_edges.csv of one graph) and cluster
 * (setups.csv), in the artifact's mixed units (compute in ms, transfers
 * and all-reduces in s, added as they are).
 */
#ifndef NP_COMPAT_H
#define NP_COMPAT_H

#include <stddef.h>
#include <stdio.h>

#include "base/util.h"

#define COMPAT_MAX_LEVELS 8
#define COMPAT_MAX_STAGES 128

/* One graph's layers in the topological order of their edges, as the
 * artifact's DP renumbers them (docs/compat.md rule 1). */
struct compat_graph {
	size_t n;
	long *layer_id;
	double *fwd_ms, *bwd_ms;		/* the chosen time source */
	double *param_bytes, *act_bytes;
	double *boundary_bytes;	/* [i]: edges between chain entries i, i+1 */
};

struct compat_cluster {
	long devices;
	int nlevels;
	long count[COMPAT_MAX_LEVELS];		/* groups of the level below */
	double bw_Bps[COMPAT_MAX_LEVELS];	/* GiB/s x 2^30 */
	double lat_s[COMPAT_MAX_LEVELS];
	double memory_bytes;
	long global_batch, micro_batch;
	/* the graph's expert-parallel degree e (1 after compat_read_cluster):
	 * the artifact counts B / (b e) micro-batches in a batch (rule 9) */
	long expert_parallel;
	int ilp;			/* the setup's layer-time source */
};

struct compat_plan {
	int nstages;
	long size[COMPAT_MAX_STAGES];	/* chain entries per stage */
	long width[COMPAT_MAX_STAGES];	/* devices per stage */
	long d;				/* replicas */
	int recompute;
	int reversed;		/* a fixed baseline plan: scored back to front */
};

/* Read dir/layers.csv and dir/layer_edges.csv; ilp: the *_ilp_ms times,
 * else *_seq_ms. */
int compat_read_graph(struct compat_graph *g, const char *dir, int ilp,
    struct pl_err *err);
void compat_release_graph(struct compat_graph *g);

/* The row of setups.csv for (setup, devices). */
int compat_read_cluster(struct compat_cluster *c, const char *setups_csv,
    const char *setup, long devices, struct pl_err *err);

/*
 * A fixed baseline split (rule 2): stage i < p - 1 takes counts[i] chain
 * entries, the last stage the rest.  Returns -1 when a stage is empty.
 */
int compat_split(struct compat_plan *plan, size_t entries, const long *counts,
    int p, long width);

/*
 * The fixed baseline split (rule 2): p - 1 stages of ceil(L / p) chain
 * entries, the rest in the last.  Returns -1 when the last is empty.
 */
int compat_uniform_split(struct compat_plan *plan, size_t entries,
    long transformer_layers, int p, long width);

/* Time per batch of a plan, in the artifact's units (rules 3-9). */
double compat_time(const struct compat_graph *g, const struct compat_cluster *c,
    const struct compat_plan *plan);

/* The largest stage memory of the plan under rule 10, in bytes. */
double compat_peak_memory(const struct compat_graph *g,
    const struct compat_plan *plan);

/* Does every stage of the plan fit in device memory (rule 10)? */
int compat_fits(const struct compat_graph *g, const struct compat_cluster *c,
    const struct compat_plan *plan);

/*
 * The fastest plan under rules 1-10 over the artifact's plan space: any
 * number of contiguous stages S in the plan's own order, each `width`
 * devices, any d with d * S * width <= the cluster's devices, every stage
 * fitting in memory.  Exact: a minimax dynamic program over (stage
 * position, chain entry) for each S, then every first stage and d.
 * Returns the time, or INFINITY (plan untouched) when nothing fits.
 */
double compat_solve(const struct compat_graph *g, const struct compat_cluster *c,
    long width, int recompute, struct compat_plan *best);

/* A --compat nest plan: the artifact's Table 2 numbers and its time. */
void compat_write_plan(FILE *fp, const struct compat_cluster *c,
    const struct compat_plan *p, double time, const char *setup);

#endif
