/*
 * sweep.h - network co-design sweeps (configs/sweeps/, docs/formats.md).
 *
 * A sweep names a base network of levels and the parameters of its levels
 * to vary, each with a list of values; with its cluster sizes and models
 * every combination is a point.  A network point (one value of every
 * parameter, one cluster size) is the base network with those values
 * written in (sweep_apply): the models share it.
 *
 * Points are numbered in mixed radix, the first <vary> slowest, so the
 * table's rows come in the order a reader expects: per model, accelerator
 * and cluster size (a group), every network point.
 */
#ifndef NP_SWEEP_H
#define NP_SWEEP_H

#include <libxml/tree.h>

#include "base/util.h"
#include "model/netmodel.h"

#define SWEEP_MAX_VARY 6
#define SWEEP_MAX_VALUES 32

/* What a <vary> sets on each of its levels. */
enum { SWEEP_BANDWIDTH, SWEEP_LATENCY, SWEEP_OVERSUBSCRIPTION, SWEEP_DEVICES };

struct sweep_vary {
	char name[64];
	int attribute;			/* SWEEP_* */
	int nlevels;
	char level[NET_MAX_LEVELS][32];
	int nvalues;
	double value[SWEEP_MAX_VALUES];
	char text[SWEEP_MAX_VALUES][32];	/* as written: file names, labels
						 * and the generated XML use it */
	size_t line;
};

/* A config the sweep names, and the line that names it. */
struct sweep_ref {
	char name[128];
	size_t line;
};

struct sweep_cfg {
	char name[128];
	char network[128];
	size_t network_line;
	long global_batch, micro_batch;
	double memory_bytes;	/* the plans' cap (dpsolve -M); 0: its default */
	int ndevices;
	long devices[SWEEP_MAX_VALUES];
	int nvary;
	struct sweep_vary vary[SWEEP_MAX_VARY];
	int nmodels, naccels;
	struct sweep_ref model[SWEEP_MAX_VALUES], accel[SWEEP_MAX_VALUES];
	/* heat-map axes: a vary index, or SWEEP_AXIS_DEVICES */
	int heat_x, heat_y;
};
#define SWEEP_AXIS_DEVICES (-1)

/* The name of a vary's attribute ("bandwidth_GBps", ...). */
const char *sweep_attribute_name(int attribute);

int sweep_load(struct sweep_cfg *s, const char *path, struct pl_err *err);
int sweep_from_doc(struct sweep_cfg *s, xmlDocPtr doc, const char *path,
    struct pl_err *err);

/* Check the configs the sweep names in configdir (accelerators, models,
 * base network) and that the base network has every level a <vary>
 * names; errors name the sweep's line. */
int sweep_check_refs(const struct sweep_cfg *s, const char *file,
    const char *dir, struct pl_err *err);

/* Network points of one cluster size: the product of the value counts. */
long sweep_net_points(const struct sweep_cfg *s);
/* Point k's value indices (idx[v] for vary v), and back. */
void sweep_point_values(const struct sweep_cfg *s, long k, int *idx);
long sweep_point_number(const struct sweep_cfg *s, const int *idx);
/* A point's file-name stem, "name-value+name-value..." (values as
 * written). */
void sweep_point_stem(const struct sweep_cfg *s, const int *idx, char *buf,
    size_t len);
/* The point's network name: "SWEEP-nDEVICES-v1_v2_..." (values as
 * written). */
void sweep_network_name(const struct sweep_cfg *s, const int *idx,
    long devices, char *buf, size_t len);
/*
 * What every point's network and plan depend on besides the point's own
 * values: the sweep's name, base network, batch and each vary's name,
 * attribute and levels, as text (a point's model, accelerator and cluster
 * size are in its file names).  make sweep's targets depend on a file
 * holding it, rewritten only when it changes: a changed value list
 * leaves it alone, so only new points are made.
 */
void sweep_definition(const struct sweep_cfg *s, char *buf, size_t len);
/* Parse "i.j.k" (one index a vary) into idx; -1 with err (naming file)
 * when it is not a point of the sweep. */
int sweep_parse_point(const struct sweep_cfg *s, const char *file,
    const char *text, int *idx, struct pl_err *err);

/*
 * Write point idx, of `devices` devices, into the base network's document
 * (read from base_path): the varied attributes of its levels, every level
 * fanout from the level sizes in devices (docs/formats.md: a level keeps
 * its size, rounded to whole units of the level below; the top level
 * holds the cluster), the network's name and a <source> that says what
 * changed.  Errors name the sweep file's line (a level that does not
 * exist) or the base network's (a torus).
 */
int sweep_apply(const struct sweep_cfg *s, const char *sweep_path,
    const int *idx, long devices, xmlDocPtr base, const char *base_path,
    struct pl_err *err);

#endif
