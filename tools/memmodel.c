/*
 * memmodel - per-layer graph + stage descriptions -> memory CSV by
 * component (paper Eq. 1; the model is documented in lib/mem.h).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/csvio.h"
#include "base/util.h"
#include "io/memio.h"
#include "model/config.h"
#include "model/layers.h"

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
	usage_exit(fp, status);
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
	struct mem_stage_table st;
	int ret = -1, bad;

	if (layers_read(&g, layers_path, err) < 0)
		return -1;
	if (o->edges && layers_read_edges(&g, o->edges, err) < 0)
		goto out_graph;
	/* every row is checked before any is written: bad input leaves
	 * nothing */
	if (mem_read_stages(&st, o->stages, &g, err) < 0)
		goto out_graph;
	bad = csvio_write_row(fp, header, sizeof(header) / sizeof(header[0]));
	for (size_t r = 0; r < st.n; r++) {
		struct mem_breakdown b;

		mem_stage_breakdown(&g, &st.s[r], o->optimizer, &b);
		bad |= write_row(fp, csvio_cell(&st.t, r, st.label_col), &g,
		    &st.s[r], &b, o->device_memory_bytes);
	}
	(void)bad;		/* write errors surface in outfile_commit() */
	mem_release_stages(&st);
	ret = 0;
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
	int ch, k;

	if (wants_help(argc, argv))
		usage(stdout, 0);
	opterr = 0;
	while ((ch = getopt(argc, argv, ":M:O:a:e:ho:s:")) != -1) {
		switch (ch) {
		case 'M': o.device_memory_bytes = opt_double('M', optarg, 1,
		    1e18); break;
		case 'O':
			if ((k = opt_one_of('O', optarg, "adam", "sgd")) < 0)
				usage(stderr, 2);
			o.optimizer = k ? OPT_SGD : OPT_ADAM;
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
	if (o.stages == NULL) {
		warnx("needs -s stages.csv");
		usage(stderr, 2);
	}
	if (argc > 1) {
		warnx("one layer graph at most");
		usage(stderr, 2);
	}
	{
		const char *in[4] = { argc ? argv[0] : "-", o.stages, o.edges,
			o.accel };

		if (stdin_count(in, 4) > 1) {
			warnx("only one of the layers, -s, -e and -a can be '-' "
			    "(standard input)");
			usage(stderr, 2);
		}
	}
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
