/*
 * memmodel - per-layer graph + stage descriptions -> memory CSV by
 * component (paper Eq. 1; the model is documented in lib/mem.h).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "csvio.h"
#include "layers.h"
#include "mem.h"
#include "util.h"

struct opts {
	const char *accel, *edges, *out, *stages;
	double device_memory_bytes;	/* 0: from the accelerator */
	int optimizer;
};

static void
usage(FILE *fp, int status)
{
	fprintf(fp, "usage: memmodel [-h] [-a accelerator.xml] [-e edges.csv] "
	    "[-M bytes] [-O adam|sgd] [-o file] -s stages.csv layers.csv\n");
	exit(status);
}

/* One stage row; optional columns default to no ZeRO, no recomputation,
 * 1F1B. */
struct stage_cols {
	int stage, first, last, devices, zs, zd, rc, sched, pos, mb;
};

static int
read_stage(const struct csvio_table *t, size_t r, const struct stage_cols *c,
    const struct layer_graph *g, struct mem_stage *s, struct pl_err *err)
{
	static const char *const scheds[] = { "1f1b", "gpipe", NULL };
	long first, last, v;
	long fi, li;

	memset(s, 0, sizeof(*s));
	s->zero_degree = 1;
	if (csvio_long(t, r, c->first, 0, &first, err) < 0 ||
	    csvio_long(t, r, c->last, 0, &last, err) < 0 ||
	    csvio_long(t, r, c->devices, CSVIO_POSITIVE, &s->devices, err) < 0 ||
	    csvio_long(t, r, c->pos, CSVIO_POSITIVE, &s->position_from_end,
	    err) < 0 ||
	    csvio_long(t, r, c->mb, CSVIO_POSITIVE, &s->microbatches, err) < 0)
		return -1;
	if (c->zs >= 0) {
		if (csvio_long(t, r, c->zs, CSVIO_NONNEG | CSVIO_OPTIONAL, &v,
		    err) < 0)
			return -1;
		if (v > 3)
			return pl_errf(err, t->file, t->lines[r], "column "
			    "'zero_stage': %ld is not 0, 1, 2 or 3", v);
		s->zero_stage = (int)v;
	}
	if (c->zd >= 0 && csvio_long(t, r, c->zd, CSVIO_POSITIVE |
	    CSVIO_OPTIONAL, &s->zero_degree, err) < 0)
		return -1;
	if (s->zero_degree == 0)
		s->zero_degree = 1;
	if (c->rc >= 0) {
		if (csvio_long(t, r, c->rc, CSVIO_NONNEG | CSVIO_OPTIONAL, &v,
		    err) < 0)
			return -1;
		if (v >= RC_N)
			return pl_errf(err, t->file, t->lines[r], "column "
			    "'recompute': %ld is not 0 (none), 1 (full) or 2 "
			    "(selective)", v);
		s->recompute = (int)v;
	}
	if (c->sched >= 0 && (s->schedule = csvio_enum(t, r, c->sched, scheds,
	    err)) < 0)
		return -1;
	if ((fi = layers_index(g, first)) < 0)
		return pl_errf(err, t->file, t->lines[r], "column 'first_layer': "
		    "layer %ld is not in %s", first, g->file);
	if ((li = layers_index(g, last)) < 0)
		return pl_errf(err, t->file, t->lines[r], "column 'last_layer': "
		    "layer %ld is not in %s", last, g->file);
	if (li < fi)
		return pl_errf(err, t->file, t->lines[r], "column 'last_layer': "
		    "layer %ld comes before first_layer %ld", last, first);
	if (s->devices % s->zero_degree != 0)
		return pl_errf(err, t->file, t->lines[r], "column 'zero_degree': "
		    "%ld does not divide the stage's %ld devices",
		    s->zero_degree, s->devices);
	s->first = (size_t)fi;
	s->last = (size_t)li;
	return 0;
}

static int
write_row(FILE *fp, const char *stage, const struct layer_graph *g,
    const struct mem_stage *s, const struct mem_breakdown *b, double limit)
{
	char num[20][NUMFMT_LEN];
	const char *f[21];
	int i = 0;

	f[i++] = stage;
	snprintf(num[0], NUMFMT_LEN, "%ld", g->l[s->first].id);
	f[i++] = num[0];
	snprintf(num[1], NUMFMT_LEN, "%ld", g->l[s->last].id);
	f[i++] = num[1];
	snprintf(num[2], NUMFMT_LEN, "%zu", s->last - s->first + 1);
	f[i++] = num[2];
	snprintf(num[3], NUMFMT_LEN, "%ld", s->devices);
	f[i++] = num[3];
	snprintf(num[4], NUMFMT_LEN, "%d", s->zero_stage);
	f[i++] = num[4];
	snprintf(num[5], NUMFMT_LEN, "%ld", s->zero_degree);
	f[i++] = num[5];
	snprintf(num[16], NUMFMT_LEN, "%d", s->recompute);
	f[i++] = num[16];
	f[i++] = s->schedule == SCHED_GPIPE ? "gpipe" : "1f1b";
	snprintf(num[6], NUMFMT_LEN, "%ld", s->position_from_end);
	f[i++] = num[6];
	snprintf(num[7], NUMFMT_LEN, "%ld", s->microbatches);
	f[i++] = num[7];
	f[i++] = numfmt(num[8], b->inflight);
	f[i++] = numfmt(num[9], b->weights);
	f[i++] = numfmt(num[10], b->gradients);
	f[i++] = numfmt(num[11], b->optimizer);
	f[i++] = numfmt(num[12], b->activations);
	f[i++] = numfmt(num[13], b->stash);
	f[i++] = numfmt(num[14], b->total);
	f[i++] = numfmt(num[15], limit);
	f[i++] = b->total <= limit ? "yes" : "no";
	return csvio_write_row(fp, f, (size_t)i);
}

static int
run(const struct opts *o, const char *layers_path, FILE *fp, struct pl_err *err)
{
	static const char *const header[] = {
		"stage", "first_layer", "last_layer", "layers", "devices",
		"zero_stage", "zero_degree", "recompute", "schedule",
		"position_from_end", "microbatches", "inflight_microbatches",
		"weights_bytes", "gradients_bytes", "optimizer_bytes",
		"activations_bytes", "stash_bytes", "total_bytes",
		"device_memory_bytes", "fits"
	};
	struct layer_graph g;
	struct csvio_table t;
	struct stage_cols c;
	int ret = -1, bad;

	if (layers_read(&g, layers_path, err) < 0)
		return -1;
	if (o->edges && layers_read_edges(&g, o->edges, err) < 0)
		goto out_graph;
	if (csvio_read(&t, o->stages, err) < 0)
		goto out_graph;
	if ((c.stage = csvio_col(&t, "stage", err)) < 0 ||
	    (c.first = csvio_col(&t, "first_layer", err)) < 0 ||
	    (c.last = csvio_col(&t, "last_layer", err)) < 0 ||
	    (c.devices = csvio_col(&t, "devices", err)) < 0 ||
	    (c.pos = csvio_col(&t, "position_from_end", err)) < 0 ||
	    (c.mb = csvio_col(&t, "microbatches", err)) < 0)
		goto out_table;
	c.zs = csvio_col_opt(&t, "zero_stage");
	c.zd = csvio_col_opt(&t, "zero_degree");
	c.rc = csvio_col_opt(&t, "recompute");
	c.sched = csvio_col_opt(&t, "schedule");
	if (csvio_need_rows(&t, "stages", err) < 0)
		goto out_table;
	/* Check every row before writing any, so bad input leaves nothing. */
	for (size_t r = 0; r < t.nrows; r++) {
		struct mem_stage s;

		if (read_stage(&t, r, &c, &g, &s, err) < 0)
			goto out_table;
	}
	bad = csvio_write_row(fp, header, sizeof(header) / sizeof(header[0]));
	for (size_t r = 0; r < t.nrows; r++) {
		struct mem_stage s;
		struct mem_breakdown b;

		read_stage(&t, r, &c, &g, &s, err);
		mem_stage_breakdown(&g, &s, o->optimizer, &b);
		bad |= write_row(fp, csvio_cell(&t, r, c.stage), &g, &s, &b,
		    o->device_memory_bytes);
	}
	(void)bad;		/* write errors surface in outfile_commit() */
	ret = 0;
out_table:
	csvio_release(&t);
out_graph:
	layers_release(&g);
	return ret;
}

int
main(int argc, char *argv[])
{
	struct opts o = { NULL, NULL, NULL, NULL, 0, OPT_ADAM };
	struct outfile out;
	struct pl_err err;
	int ch;

	if (wants_help(argc, argv))
		usage(stdout, 0);
	opterr = 0;
	while ((ch = getopt(argc, argv, ":M:O:a:e:ho:s:")) != -1) {
		switch (ch) {
		case 'M': o.device_memory_bytes = opt_double('M', optarg, 1,
		    1e18); break;
		case 'O':
			if (strcmp(optarg, "adam") == 0)
				o.optimizer = OPT_ADAM;
			else if (strcmp(optarg, "sgd") == 0)
				o.optimizer = OPT_SGD;
			else {
				warnx("-O: '%s' is not adam or sgd", optarg);
				usage(stderr, 2);
			}
			break;
		case 'a': o.accel = optarg; break;
		case 'e': o.edges = optarg; break;
		case 'h': usage(stdout, 0); break;
		case 'o': o.out = optarg; break;
		case 's': o.stages = optarg; break;
		default: bad_option(ch); usage(stderr, 2);
		}
	}
	argc -= optind;
	argv += optind;
	if (argc > 1 || o.stages == NULL)
		usage(stderr, 2);
	if (o.device_memory_bytes == 0) {
		struct accel_cfg a;

		if (o.accel == NULL) {
			warnx("the device memory is needed: -a accelerator.xml "
			    "or -M bytes");
			usage(stderr, 2);
		}
		if (accel_load(&a, o.accel, &err) < 0)
			die_err(&err);
		o.device_memory_bytes = a.memory_bytes;
	}
	if (outfile_open(&out, o.out, &err) < 0)
		die_err(&err);
	if (run(&o, argc ? argv[0] : "-", out.fp, &err) < 0) {
		outfile_abort(&out);
		die_err(&err);
	}
	if (outfile_commit(&out, &err) < 0)
		die_err(&err);
	return 0;
}
