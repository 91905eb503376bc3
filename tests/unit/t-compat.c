/*
 * t-compat.c - the artifact's cost model against the artifact's own DP:
 * every plan of check/nest_dp_reference.csv (NEST's, Manual's, Phaze's and
 * MCMC's, bert and llama2 on the fat-tree, 64 to 1,024 devices), priced on
 * the artifact's layer tables, must give the time per batch it lists to a
 * relative 1e-9.  Then compat_solve(): on each NEST cell its plan is at
 * least as fast as the artifact's own DP's (ours is exact over the same
 * space) and re-prices to the time it reports; and on 300 seeded random
 * small instances it equals exhaustive enumeration; and Mixtral's
 * micro-batch count (rule 9, B / (b e)).  Reads $ARTIFACT
 * (default ../shared/nest-artifact).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "artifact/artifact.h"
#include "artifact/compat.h"
#include "base/csvio.h"
#include "tap.h"

#define GiB_BYTES_TEST 1073741824.0

static const char *artifact;

/* models.csv: the graph directory of (model, micro-batch, t) and the
 * recomputation flag. */
static int
graph_of(const char *model, const char *mbs, long t, char *dir, size_t len,
    int *recompute)
{
	struct art_model m;
	struct pl_err err;

	if (artifact_model(artifact, model, &m, &err) <= 0 ||
	    artifact_graph_name(&m, atol(mbs), t, dir, len) < 0)
		return -1;
	*recompute = m.recompute;
	return 0;
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

/* A tiny deterministic generator (the tests' seed is fixed). */
static unsigned long rng_state = 12345;

static double
uniform(void)
{
	rng_state = rng_state * 6364136223846793005UL + 1442695040888963407UL;
	return (double)((rng_state >> 11) & ((1UL << 53) - 1)) / 9007199254740992.0;
}

/* Every composition of n entries into stages, every d: the best fitting
 * plan's time (INFINITY if none). */
static double
brute_force(const struct compat_graph *g, const struct compat_cluster *c,
    long width, int recompute)
{
	long n = (long)g->n;
	double best = INFINITY;

	for (unsigned long mask = 0; mask < (1UL << (n - 1)); mask++) {
		struct compat_plan p;
		long start = 0;

		memset(&p, 0, sizeof(p));
		for (long i = 1; i <= n; i++)
			if (i == n || (mask >> (i - 1) & 1)) {
				p.width[p.nstages] = width;
				p.size[p.nstages++] = i - start;
				start = i;
			}
		p.recompute = recompute;
		for (p.d = 1; p.d * p.nstages * width <= c->devices; p.d++) {
			double t;

			if (!compat_fits(g, c, &p))
				break;
			t = compat_time(g, c, &p);
			if (t < best)
				best = t;
		}
	}
	return best;
}

static void
random_instances(void)
{
	int agree = 0, infeasible = 0, total = 300;

	for (int k = 0; k < total; k++) {
		struct compat_graph g;
		struct compat_cluster c;
		struct compat_plan plan;
		long n = 2 + (long)(uniform() * 7);	/* 2..8 entries */
		long width = uniform() < 0.3 ? 2 : 1;
		int recompute = uniform() < 0.5;
		double mine, brute, biggest = 0;

		memset(&g, 0, sizeof(g));
		g.n = (size_t)n;
		g.layer_id = xcalloc((size_t)n, sizeof(long));
		g.fwd_ms = xcalloc((size_t)n, sizeof(double));
		g.bwd_ms = xcalloc((size_t)n, sizeof(double));
		g.param_bytes = xcalloc((size_t)n, sizeof(double));
		g.act_bytes = xcalloc((size_t)n, sizeof(double));
		g.boundary_bytes = xcalloc((size_t)n, sizeof(double));
		for (long i = 0; i < n; i++) {
			g.fwd_ms[i] = 0.1 + 10 * uniform();
			g.bwd_ms[i] = 0.1 + 20 * uniform();
			g.param_bytes[i] = 1e6 + 1e9 * uniform();
			g.act_bytes[i] = 1e6 + 4e9 * uniform();
			g.boundary_bytes[i] = 1e6 + 1e8 * uniform();
			biggest = fmax(biggest, 2 * g.param_bytes[i] +
			    g.act_bytes[i]);
		}
		memset(&c, 0, sizeof(c));
		c.nlevels = 2 + (uniform() < 0.5);
		for (int l = 0; l < c.nlevels; l++) {
			c.count[l] = 2 + (long)(uniform() * 3);
			c.bw_Bps[l] = (5 + 900 * uniform()) * GiB_BYTES_TEST;
			c.lat_s[l] = 1e-5 + 1e-3 * uniform();
		}
		c.devices = 4 + (long)(uniform() * 29);	/* up to 32 */
		c.global_batch = 64 + (long)(uniform() * 512);
		c.micro_batch = 1 + (long)(uniform() * 2);
		/* binding memory: from below one layer (infeasible) to a few */
		c.memory_bytes = biggest * (0.9 + 3 * uniform());
		mine = compat_solve(&g, &c, width, recompute, &plan);
		brute = brute_force(&g, &c, width, recompute);
		if (isinf(brute))
			infeasible++;
		if ((isinf(mine) && isinf(brute)) ||
		    (!isinf(mine) && fabs(mine - brute) <= 1e-12 * brute &&
		    fabs(compat_time(&g, &c, &plan) - mine) <= 1e-12 * mine &&
		    compat_fits(&g, &c, &plan)))
			agree++;
		else
			printf("# instance %d: dp %.17g, brute force %.17g\n", k,
			    mine, brute);
		compat_release_graph(&g);
	}
	EQ_INT(agree, total, "compat_solve equals brute force on 300 random "
	    "instances");
	OK(infeasible > 10 && infeasible < total - 100, "some instances are "
	    "infeasible, most are not");
	printf("# %d of %d random instances infeasible\n", infeasible, total);
}

/* Rule 2's splits by hand: the last stage takes what the others leave. */
static void
splits(void)
{
	struct compat_plan plan;
	const long uneven[3] = { 1, 2, 9 }, empty[2] = { 3, 3 };

	memset(&plan, 0, sizeof(plan));
	EQ_INT(compat_split(&plan, 6, uneven, 3, 4), 0, "split 1 2 of 6 entries");
	EQ_INT(plan.nstages, 3, "three stages");
	OK(plan.size[0] == 1 && plan.size[1] == 2 && plan.size[2] == 3 &&
	    plan.width[2] == 4 && plan.reversed, "sizes 1 2 3, 4 wide, reversed");
	EQ_INT(compat_split(&plan, 6, empty, 3, 1), -1, "3 + 3 of 6 leaves the "
	    "last stage empty");
	/* BERT: 24 layers + the embedding; p = 13 gives 12 x 2 and 1 */
	EQ_INT(compat_uniform_split(&plan, 25, 24, 13, 1), 0, "ceil(24 / 13)");
	OK(plan.size[0] == 2 && plan.size[11] == 2 && plan.size[12] == 1,
	    "12 stages of 2, the last 1");
	/* Llama3: 80 layers, p = 28: 27 x 3 = 81 entries, nothing left */
	EQ_INT(compat_uniform_split(&plan, 81, 80, 28, 1), -1, "ceil(80 / 28) "
	    "leaves the last stage empty");
}

/*
 * Rule 9 for Mixtral: the artifact counts B / (b e) micro-batches in a
 * batch, e = 4, so a plan at B prices exactly as the same plan at B / 4
 * with e = 1 (e divides B), and is cheaper than at B with e = 1 by the
 * three quarters of the micro-batches it drops: for S stages of slowest
 * load w, (m1 + S - 1) w versus (m1 / 4 + S - 1) w, the sync unchanged.
 */
static void
mixtral_microbatches(void)
{
	static const long devices[] = { 64, 128, 256, 512 };
	char setups[1024], gdir[1200];
	struct compat_graph g;
	struct pl_err err;

	snprintf(setups, sizeof setups, "%s/setups.csv", artifact);
	snprintf(gdir, sizeof gdir, "%s/tpuv4_fatTree/"
	    "mixtral_mbs_1_sl_4096_tmp_1_ep_4_cp_1", artifact);
	if (compat_read_graph(&g, gdir, 1, &err) < 0) {
		OK(0, "the Mixtral graph reads");
		return;
	}
	for (size_t k = 0; k < sizeof devices / sizeof devices[0]; k++) {
		struct compat_cluster c, quarter;
		struct compat_plan plan;
		double t1, t4, tq;
		long S = 4, d = devices[k] / (S * 4);

		if (compat_read_cluster(&c, setups, "tpuv4_fatTree", devices[k],
		    &err) < 0) {
			OK(0, "the fat-tree setup reads");
			continue;
		}
		EQ_INT(c.expert_parallel, 1, "e defaults to 1");
		memset(&plan, 0, sizeof plan);
		compat_uniform_split(&plan, g.n, (long)g.n - 1, (int)S, 4);
		plan.d = d;
		plan.recompute = 1;
		t1 = compat_time(&g, &c, &plan);
		quarter = c;
		quarter.global_batch = c.global_batch / 4;
		tq = compat_time(&g, &quarter, &plan);
		c.expert_parallel = 4;
		t4 = compat_time(&g, &c, &plan);
		EQ_DBL(t4, tq, 1e-12, "Mixtral, e = 4: B / (b e) micro-batches "
		    "price as a quarter of the batch");
		OK(t1 / t4 > 3 && t1 / t4 < 4, "about 4x less time than with "
		    "B / b micro-batches");
	}
	/* one stage of 4 devices, one replica: no transfer, no sync, no
	 * recomputation (the last stage never recomputes), so the time is
	 * m x the graph's forward and backward times, m = 4096 / 4 = 1024 */
	{
		struct compat_cluster c;
		struct compat_plan one;
		double sum = 0;

		compat_read_cluster(&c, setups, "tpuv4_fatTree", 64, &err);
		for (size_t i = 0; i < g.n; i++)
			sum += g.fwd_ms[i] + g.bwd_ms[i];
		memset(&one, 0, sizeof one);
		one.nstages = 1;
		one.size[0] = (long)g.n;
		one.width[0] = 4;
		one.d = 1;
		one.recompute = 1;
		EQ_DBL(compat_time(&g, &c, &one), 4096 * sum, 1e-12,
		    "one Mixtral stage, e = 1: 4096 micro-batches");
		c.expert_parallel = 4;
		EQ_DBL(compat_time(&g, &c, &one), 1024 * sum, 1e-12,
		    "one Mixtral stage, e = 4: 4096 / 4 micro-batches");
	}
	compat_release_graph(&g);
}

static void
write_file(const char *dir, const char *name, const char *text)
{
	char path[1024];
	FILE *fp;

	snprintf(path, sizeof path, "%s/%s", dir, name);
	fp = fopen(path, "w");
	if (fp != NULL) {
		fputs(text, fp);
		fclose(fp);
	}
}

/*
 * Rule 1 by hand: layers.csv lists layer 0 before the embedding (dp_order
 * 0, 1, 2 = layers 0, -1, 1, as the export does), the edges run -1 -> 0
 * -> 1; the chain follows the edges, -1 0 1, so the embedding can be a
 * stage of its own, and each boundary carries its edge's bytes (100 and
 * 200).  Edges in a circle are refused.
 */
static void
chain_by_hand(void)
{
	char dir[] = "/tmp/t-compat.XXXXXX", path[1024];
	struct compat_graph g;
	struct pl_err err;

	if (mkdtemp(dir) == NULL) {
		OK(0, "a scratch folder");
		return;
	}
	write_file(dir, "layers.csv", "dp_order,layer_id,fwd_seq_ms,bwd_seq_ms,"
	    "parameterSize_bytes,activationSize_bytes\n"
	    "0,0,2,4,10,20\n1,-1,1,2,30,40\n2,1,3,6,50,60\n");
	write_file(dir, "layer_edges.csv", "src,dst,bytes\n-1,0,100\n0,1,200\n");
	if (compat_read_graph(&g, dir, 0, &err) < 0) {
		OK(0, "the hand-made graph reads");
	} else {
		OK(g.n == 3 && g.layer_id[0] == -1 && g.layer_id[1] == 0 &&
		    g.layer_id[2] == 1, "chained -1 0 1, the edges' order");
		OK(g.fwd_ms[0] == 1 && g.param_bytes[0] == 30 &&
		    g.fwd_ms[1] == 2, "each entry keeps its own row");
		OK(g.boundary_bytes[0] == 100 && g.boundary_bytes[1] == 200,
		    "boundaries 100 (-1 -> 0) and 200 (0 -> 1)");
		compat_release_graph(&g);
	}
	write_file(dir, "layer_edges.csv", "src,dst,bytes\n-1,0,100\n0,1,200\n"
	    "1,0,5\n");
	EQ_INT(compat_read_graph(&g, dir, 0, &err), -1, "edges in a circle are "
	    "refused");
	snprintf(path, sizeof path, "%s/layers.csv", dir);
	unlink(path);
	snprintf(path, sizeof path, "%s/layer_edges.csv", dir);
	unlink(path);
	rmdir(dir);
}

/*
 * Rule 7 by hand.  Three one-entry stages on one node (transfers at level
 * 0: bytes / 1 GiB/s, no latency, in s added to ms as the artifact does),
 * one replica, B = 8 one-sample micro-batches, recomputation: the first
 * two stages recompute, the last does not.  Forward 5, 1, 1 ms, backward
 * 5, 1, 1 ms; the boundaries carry 0.5 GiB then 0.5 GiB (0.5 each way).
 *   stage 0: 5 + max(5, 0.5) + 5 = 15  (its output's transfer hidden by
 *            the recomputed forward; charged, it was 15.5)
 *   stage 1: 0.5 + 1 + max(1, 0.5) + 1 = 3.5
 *   stage 2: 0.5 + 1 + 1 = 2.5
 * so the step is 15 x (8 + 3 - 1) = 150 (d = 1: no sync).  With the first
 * boundary at 8 GiB the transfer outlasts the recomputed forward: stage 0
 * is 5 + 8 + 5 = 18, stage 1 8 + 1 + 1 + 1 = 11, the step 180.  Scored
 * back to front (a published plan: the chain's last stage recomputes,
 * its first does not), each recomputing stage waits for its input and
 * the first pays both ways: 0.5 + 1 + max(1, 0) + 1 = 3.5, 8 + 1 + max(1,
 * 0.5) + 1 = 11 and 5 + 8 + 5 = 18, again 180; with the first stage's
 * compute at 1 ms the middle one, 11, is the slowest: 110.
 */
static void
recompute_transfers_by_hand(void)
{
	struct compat_graph g;
	struct compat_cluster c;
	struct compat_plan plan;
	double fwd[3] = { 5, 1, 1 }, bwd[3] = { 5, 1, 1 }, zero[3] = { 0 };
	long id[3] = { -1, 0, 1 };
	double bytes[3] = { 0.5 * GiB_BYTES_TEST, 0.5 * GiB_BYTES_TEST, 0 };

	memset(&g, 0, sizeof g);
	g.n = 3;
	g.layer_id = id;
	g.fwd_ms = fwd;
	g.bwd_ms = bwd;
	g.param_bytes = zero;
	g.act_bytes = zero;
	g.boundary_bytes = bytes;
	memset(&c, 0, sizeof c);
	c.devices = 4;
	c.nlevels = 1;
	c.count[0] = 4;
	c.bw_Bps[0] = GiB_BYTES_TEST;
	c.memory_bytes = 1e12;
	c.global_batch = 8;
	c.micro_batch = 1;
	c.expert_parallel = 1;
	memset(&plan, 0, sizeof plan);
	plan.nstages = 3;
	for (int s = 0; s < 3; s++) {
		plan.size[s] = 1;
		plan.width[s] = 1;
	}
	plan.d = 1;
	plan.recompute = 1;
	EQ_DBL(compat_time(&g, &c, &plan), 150, 1e-12, "a recomputing first "
	    "stage's output transfer is hidden by its recomputed forward");
	bytes[0] = 8 * GiB_BYTES_TEST;
	EQ_DBL(compat_time(&g, &c, &plan), 180, 1e-12, "and counts where it "
	    "outlasts it");
	plan.reversed = 1;
	EQ_DBL(compat_time(&g, &c, &plan), 180, 1e-12, "scored back to front, "
	    "the stage that does not recompute pays both transfers");
	fwd[0] = bwd[0] = 1;
	EQ_DBL(compat_time(&g, &c, &plan), 110, 1e-12, "and a recomputing one "
	    "waits for its input");
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
		if (strcmp(CELL("method"), "nest") == 0) {
			struct compat_plan mine;
			double ours;

			OK(compat_fits(&g, &c, &plan), "the artifact's NEST plan "
			    "fits under rule 10");
			ours = compat_solve(&g, &c, t, recompute, &mine);
			OK(ours <= want * (1 + 1e-9), "compat_solve at least as "
			    "fast as the artifact's DP");
			EQ_DBL(compat_time(&g, &c, &mine), ours, 1e-12,
			    "its plan re-prices to the time it reports");
			OK(compat_fits(&g, &c, &mine), "its plan fits");
			printf("# %s: ours %.10g (S=%d d=%ld), artifact %.10g\n",
			    label, ours, mine.nstages, mine.d, want);
		}
		compat_release_graph(&g);
		rows++;
#undef CELL
	}
	EQ_INT(rows, 40, "every reference row priced");
	csvio_release(&ref);
	random_instances();
	splits();
	mixtral_microbatches();
	chain_by_hand();
	recompute_transfers_by_hand();
	return tap_done();
}
