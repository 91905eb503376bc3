/*
 * planio.h - dpsolve's files: the variant graphs it reads, the plan it
 * reads back (-E), and the plan it writes as XML, CSV or Megatron-LM
 * arguments (docs/formats.md, "Plan").
 */
#ifndef NP_PLANIO_H
#define NP_PLANIO_H

#include <stdio.h>

#include <libxml/tree.h>

#include "base/util.h"
#include "model/layers.h"
#include "model/plan.h"

enum { PLANIO_XML, PLANIO_CSV, PLANIO_MEGATRON, PLANIO_SUMMARY,
	PLANIO_TORCHTITAN };

/* "xml", "csv", "megatron", "summary", "torchtitan" -> PLANIO_*, else
 * -1. */
int planio_format(const char *name);

/* The variants of one model: the same layers, one graph each. */
struct variants {
	size_t n;
	struct layer_graph *g;
};

/*
 * Read per-layer graphs and variant indexes (a CSV with a `file` column,
 * its files relative to it), and check they are variants of one model:
 * the same layer ids in the same order, each (t, e, c, sp, b) once.
 */
int planio_read_variants(struct variants *vs, char *const *paths, size_t n,
    struct pl_err *err);
void planio_release_variants(struct variants *vs);

/*
 * What a plan XML may hold, as planio_write_xml writes it: a <plan> root,
 * one <parallelism>, its <stage>s, at most one <result>, each with its own
 * attributes and nothing inside (the root's batch and memory, if given,
 * valid).  Sets *par, *res (NULL when absent) and the number of stages.
 * Shared by dpsolve -E and sweep, which read plans back.
 */
int planio_plan_shape(const char *path, xmlNodePtr root, xmlNodePtr *par,
    xmlNodePtr *res, int *nstages, struct pl_err *err);

/* How a plan is priced beyond its file and its graphs: the runtime
 * options dpsolve and pipesim share (0: the accelerator's memory less
 * its reserve, every device of the network). */
struct price_opts {
	long devices, global_batch;
	double memory_bytes, grad_bytes_per_param, grad_copies;
	int optimizer, tp_overlap, p2p_scatter_gather, tp_grad_blocking;
	int deepep;
};
struct accel_cfg;
void planio_env(struct plan_env *env, const struct network *net,
    const struct accel_cfg *accel, const struct price_opts *o);

/*
 * dpsolve and pipesim -J: the expected slowest of `devices` devices
 * drawn from the speeds table at `path` (straggler.h) into *factor, and
 * every graph's device times scaled by it, so that every plan is priced
 * as if each of its devices were that slow.
 */
int planio_stragglers(struct variants *vs, const char *path, long devices,
    double *factor, struct pl_err *err);

/* A plan read back (`path`) whose straggler_factor differs from the one
 * it is now priced at (`factor`, over `devices`; 0: no -J): a warning on
 * standard error, so that a step priced apart from its search says why. */
void planio_straggler_note(const char *path, const struct plan *p,
    double factor, long devices);

/* Read a plan XML written by planio_write_xml; p->stage is malloc'ed. */
int planio_read_plan(const char *path, const struct variants *vs,
    struct plan *p, struct pl_err *err);

struct plan_meta {
	const char *label, *network, *accelerator, *mode;
	long global_batch;
	double memory_bytes;
	double grad_bytes_per_param;	/* 2 (bf16) or 4 (fp32) */
	/* every device priced as the expected slowest of the job's
	 * (planio_stragglers): the factor, written on the plan; 0: not */
	double straggler_factor;
};

void planio_write_xml(FILE *fp, const struct plan_meta *m,
    const struct plan *p, const struct plan_result *r);
void planio_write_csv(FILE *fp, const struct plan *p,
    const struct plan_result *r);
/* dpsolve -k: plans[0] as above and plans[1..n-1], the runner-ups, as
 * <runner_up rank=...> elements (their parallelism, result and peak
 * memory on one element), or in the CSV with a leading rank column (n > 1) */
void planio_write_xml_ranked(FILE *fp, const struct plan_meta *m,
    const struct plan *plans, const struct plan_result *results, size_t n);
void planio_write_csv_ranked(FILE *fp, const struct plan *plans,
    const struct plan_result *results, size_t n);
/* The largest stage memory of a plan, bytes a device. */
double planio_peak_memory(const struct plan_result *r);

#endif
