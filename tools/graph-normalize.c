/*
 * graph-normalize - operator graph -> per-layer graph (and layer edges).
 *
 * Profiled path: the directory of one graph of the paper's artifact export
 * (ops.csv, op_edges.csv, fused_edges.csv).  The per-layer graph format is
 * in docs/formats.md.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "opgraph.h"
#include "util.h"

struct opts {
	const char *accel, *model, *edges, *out;
	long nlayers;
	int timing;
	struct sched_opts sched;
};

static void
usage(FILE *fp, int status)
{
	fprintf(fp, "usage: graph-normalize [-hv] [-a accelerator.xml] "
	    "[-c model.xml] [-e edges.csv] [-n layers] [-o file] "
	    "[-T seconds] [-t sequential|ilp] [-w model.lp] graph-dir\n");
	exit(status);
}

static int
run(const struct opts *o, const char *dir, struct pl_err *err)
{
	struct outfile out, eout;
	struct opgraph g;
	struct layer_graph lg;
	int ret = -1;

	if (opgraph_read_artifact(&g, dir, err) < 0)
		return -1;
	if (opgraph_to_layers(&g, o->nlayers, o->timing, &o->sched, &lg,
	    err) < 0)
		goto out_graph;
	if (outfile_open(&out, o->out, err) < 0)
		goto out_layers;
	if (o->edges && outfile_open(&eout, o->edges, err) < 0) {
		outfile_abort(&out);
		goto out_layers;
	}
	layers_write(out.fp, o->edges ? eout.fp : NULL, &lg);
	if (o->edges && outfile_commit(&eout, err) < 0) {
		outfile_abort(&out);
		goto out_layers;
	}
	ret = outfile_commit(&out, err);
out_layers:
	layers_release(&lg);
out_graph:
	opgraph_release(&g);
	return ret;
}

int
main(int argc, char *argv[])
{
	struct opts o;
	struct pl_err err;
	int ch;

	memset(&o, 0, sizeof(o));
	o.timing = LAYER_TIME_SEQUENTIAL;
	o.sched.time_limit_s = 60;
	opterr = 0;
	while ((ch = getopt(argc, argv, ":T:a:c:e:hn:o:t:vw:")) != -1) {
		switch (ch) {
		case 'T': o.sched.time_limit_s = opt_double('T', optarg, 0.001,
		    1e6); break;
		case 'a': o.accel = optarg; break;
		case 'c': o.model = optarg; break;
		case 'e': o.edges = optarg; break;
		case 'h': usage(stdout, 0); break;
		case 'n': o.nlayers = opt_long('n', optarg, 1, 100000); break;
		case 'o': o.out = optarg; break;
		case 't':
			if (strcmp(optarg, "sequential") == 0)
				o.timing = LAYER_TIME_SEQUENTIAL;
			else if (strcmp(optarg, "ilp") == 0)
				o.timing = LAYER_TIME_ILP;
			else {
				warnx("-t: '%s' is not sequential or ilp", optarg);
				usage(stderr, 2);
			}
			break;
		case 'v': o.sched.verbose = 1; break;
		case 'w': o.sched.lp_file = optarg; break;
		default: bad_option(ch); usage(stderr, 2);
		}
	}
	argc -= optind;
	argv += optind;
	if (argc != 1)
		usage(stderr, 2);
	if (o.timing == LAYER_TIME_ILP) {
		struct accel_cfg a;

		if (o.accel == NULL) {
			warnx("-t ilp needs the accelerator's cores: -a "
			    "accelerator.xml");
			usage(stderr, 2);
		}
		if (accel_load(&a, o.accel, &err) < 0)
			die_err(&err);
		o.sched.tc_cores = a.tensor_cores;
		o.sched.vc_cores = a.vector_cores;
	}
	if (o.model) {
		struct model_cfg m;

		if (model_load(&m, o.model, &err) < 0)
			die_err(&err);
		if (o.nlayers && o.nlayers != m.layers)
			die("-n %ld disagrees with %s (%ld layers)", o.nlayers,
			    o.model, m.layers);
		o.nlayers = m.layers;
	}
	if (run(&o, argv[0], &err) < 0)
		die_err(&err);
	return 0;
}
