/*
 * cost-matrix - network config -> level-wise communication cost CSV.
 *
 * One row per level for point-to-point transfers, then one row per
 * collective and uniform group shape: k_l members meeting at level l, for
 * every 1 <= k_l <= fanout_l (the shapes a planner can ask for).  Each row
 * is the linear cost alpha_s + beta_s_per_byte * bytes of netmodel.h.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/csvio.h"
#include "base/util.h"
#include "model/config.h"
#include "model/netmodel.h"

#define MAX_ROWS 2000000

struct shape_row {
	struct net_shape s;
	long k[NET_MAX_LEVELS];
};

static void
usage(FILE *fp, int status)
{
	fprintf(fp, "usage: cost-matrix [-h] [-o file] network.xml\n");
	usage_exit(fp, status);
}

static int
cmp_shape(const void *a, const void *b)
{
	const struct shape_row *x = a, *y = b;

	if (x->s.n != y->s.n)
		return x->s.n < y->s.n ? -1 : 1;
	if (x->s.top != y->s.top)
		return x->s.top < y->s.top ? -1 : 1;
	for (int l = 0; l < NET_MAX_LEVELS; l++)	/* unused levels are 0 */
		if (x->k[l] != y->k[l])
			return x->k[l] < y->k[l] ? -1 : 1;
	return 0;
}

/* Every uniform shape with at least two members, sorted. */
static struct shape_row *
all_shapes(const struct network *net, const char *path, size_t *count)
{
	size_t total = 1, n = 0;
	struct shape_row *rows;
	long k[NET_MAX_LEVELS] = { 0 };

	for (int l = 0; l < net->nlevels; l++) {
		total *= (size_t)net->level[l].fanout;
		if (total > MAX_ROWS)
			die("%s:%zu: level '%s': its fanouts so far make more "
			    "than %d group shapes to list", path,
			    net->level[l].line, net->level[l].name, MAX_ROWS);
		k[l] = 1;
	}
	rows = xcalloc(total, sizeof(*rows));
	for (;;) {
		int l;

		net_shape_uniform(net, k, &rows[n].s);
		memcpy(rows[n].k, k, sizeof(k));
		if (rows[n].s.n >= 2)
			n++;
		for (l = 0; l < net->nlevels && ++k[l] > net->level[l].fanout; l++)
			k[l] = 1;
		if (l == net->nlevels)
			break;
	}
	qsort(rows, n, sizeof(*rows), cmp_shape);
	*count = n;
	return rows;
}

static int
write_row(FILE *fp, const struct network *net, enum net_coll c,
    const long *k, long n, int top, struct net_cost cost)
{
	char shape[NET_MAX_LEVELS * 12], nb[4][NUMFMT_LEN], top_s[16], n_s[24];
	const char *f[8];
	size_t off = 0;

	for (int l = 0; l < net->nlevels; l++)
		off += (size_t)snprintf(shape + off, sizeof(shape) - off, "%s%ld",
		    l ? "x" : "", k[l]);
	snprintf(top_s, sizeof(top_s), "%d", top);
	snprintf(n_s, sizeof(n_s), "%ld", n);
	f[0] = net_coll_name(c);
	f[1] = top_s;
	f[2] = net->level[top].name;
	f[3] = n_s;
	f[4] = shape;
	f[5] = numfmt(nb[0], cost.alpha_s);
	f[6] = numfmt(nb[1], cost.beta_s_per_byte);
	f[7] = numfmt(nb[2], 1 / cost.beta_s_per_byte / 1e9);
	return csvio_write_row(fp, f, 8);
}

static int
write_costs(FILE *fp, const struct network *net, const char *path)
{
	static const char *const header[] = {
		"collective", "top_level", "level_name", "group_devices",
		"shape", "alpha_s", "beta_s_per_byte", "effective_bandwidth_GBps"
	};
	struct shape_row *rows;
	size_t n;
	int bad = csvio_write_row(fp, header, 8);

	for (int l = 0; l < net->nlevels; l++) {
		long k[NET_MAX_LEVELS];

		for (int j = 0; j < net->nlevels; j++)
			k[j] = j == l ? 2 : 1;
		if (net->level[l].fanout >= 2)
			bad |= write_row(fp, net, NET_P2P, k, 2, l,
			    net_p2p(net, l));
	}
	rows = all_shapes(net, path, &n);
	for (enum net_coll c = NET_ALL_REDUCE; c < NET_NCOLL; c++)
		for (size_t i = 0; i < n; i++)
			bad |= write_row(fp, net, c, rows[i].k, rows[i].s.n,
			    rows[i].s.top, net_collective(net, c, &rows[i].s));
	free(rows);
	return bad;
}

int
main(int argc, char *argv[])
{
	struct network net;
	struct outfile out;
	struct pl_err err;
	const char *outpath = NULL;
	int ch;

	if (wants_help(argc, argv))
		usage(stdout, 0);
	opterr = 0;
	while ((ch = getopt(argc, argv, ":ho:")) != -1) {
		switch (ch) {
		case 'h': usage(stdout, 0); break;
		case 'o': outpath = optarg; break;
		default: bad_option(ch); usage(stderr, 2);
		}
	}
	argc -= optind;
	argv += optind;
	if (argc != 1)
		usage(stderr, 2);
	if (network_load(&net, argv[0], &err) < 0)
		die_err(&err);
	if (outfile_open(&out, outpath, &err) < 0)
		die_err(&err);
	write_costs(out.fp, &net, argv[0]);
	if (outfile_commit(&out, &err) < 0)
		die_err(&err);
	return 0;
}
