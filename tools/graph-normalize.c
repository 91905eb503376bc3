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
	const char *model, *edges, *out;
	long nlayers;
	int timing;
};

static void
usage(FILE *fp, int status)
{
	fprintf(fp, "usage: graph-normalize [-h] [-c model.xml] [-e edges.csv] "
	    "[-n layers] [-o file] [-t sequential] graph-dir\n");
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
	if (opgraph_to_layers(&g, o->nlayers, o->timing, &lg, err) < 0)
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
	struct opts o = { NULL, NULL, NULL, 0, LAYER_TIME_SEQUENTIAL };
	struct pl_err err;
	int ch;

	opterr = 0;
	while ((ch = getopt(argc, argv, ":c:e:hn:o:t:")) != -1) {
		switch (ch) {
		case 'c': o.model = optarg; break;
		case 'e': o.edges = optarg; break;
		case 'h': usage(stdout, 0); break;
		case 'n': o.nlayers = opt_long('n', optarg, 1, 100000); break;
		case 'o': o.out = optarg; break;
		case 't':
			if (strcmp(optarg, "sequential") != 0) {
				warnx("-t: '%s' is not sequential", optarg);
				usage(stderr, 2);
			}
			break;
		default: bad_option(ch); usage(stderr, 2);
		}
	}
	argc -= optind;
	argv += optind;
	if (argc != 1)
		usage(stderr, 2);
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
