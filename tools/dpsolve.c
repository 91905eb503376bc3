/*
 * dpsolve - per-layer graphs of a model's variants + network + accelerator
 * -> the fastest training plan (lib/dp.h), its evaluator breakdown
 * (lib/plan.h) as XML, CSV or Megatron-LM arguments; or, with -E, the
 * breakdown of a given plan; or, with -C nest, the artifact's plan space
 * and cost model (lib/compat.h).
 */
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include <libxml/parser.h>
#include <libxml/tree.h>

#include "artifact/compat.h"
#include "base/csvio.h"
#include "base/util.h"
#include "export/megatron.h"
#include "export/torchtitan.h"
#include "export/summary.h"
#include "io/planio.h"
#include "model/config.h"
#include "model/layers.h"
#include "model/plan.h"
#include "search/dp.h"

struct opts {
	const char *accel, *network, *out, *csv, *evaluate, *stats, *label;
	const char *model;
	const char *stragglers;	/* -J: a table of devices' speeds */
	const char *compat, *setups, *setup;
	long devices, batch, zmax, width, ep, vmax, block_max;
	long top_n;		/* -k: the plans of this many layouts */
	double memory_bytes, grad_bytes, grad_copies;
	int optimizer, rc_min, rc_max, zero, format, flat, seq_times;
	int distopt_min, distopt_max, overlap, scatter_gather;
	int fp8_gather_min, fp8_gather_max;	/* -Q */
	int fsdp_min, fsdp_max;			/* -I: FSDP2 */
	int stage_major_min, stage_major_max;	/* -L: the placements */
	int sched_min, sched_max;		/* -Y: PLAN_1F1B.. */
	int tp_overlap, tp_grad_blocking;
	int ep_min, ep_max;	/* -K: Megatron-Core's combined 1F1B */
	int deepep;		/* -H deepep: DeepEP's hierarchical dispatch */
	int megatron;		/* -X: search only what Megatron-LM runs */
	int torchtitan;		/* -X torchtitan: only what it runs */
	unsigned char seen[OPT_SEEN_MAX];	/* the options given */
};

/* A variant whose micro-batch the global batch holds (a graph without
 * one: any). */
static int
batch_fits(const struct layer_graph *g, long batch)
{
	return !g->has_variant || g->var_b <= batch;
}

static void
usage(FILE *fp, int status)
{
	fprintf(fp,
	    "usage: dpsolve [-hF] [-A model.xml] [-B batch] [-D on|off|both] [-E plan.xml] "
	    "[-G megatron|torch] [-H alltoall|deepep] [-I off|both|only] [-J speeds.csv] [-K on|off|both] [-L replica|stage|both] [-M bytes] [-N devices] [-O adam|sgd] [-P on|off] [-Q on|off|both] "
	    "[-R layers] [-T stats.csv] [-U on|off] "
	    "[-V on|off] [-W async|blocking] [-X megatron|torchtitan|none] [-Y 1f1b|zbh1|zbv|dualpipev|both|all] [-Z auto|off] [-c plan.csv] [-f xml|csv|megatron|summary|torchtitan] "
	    "[-g bf16|fp32] [-k N] [-m label] [-o file] "
	    "[-r none|full|selective|op|all] [-v vmax] [-z zmax] "
	    "-a accelerator.xml -n network.xml graph.csv|index.csv ...\n"
	    "       dpsolve -C nest [-hq] [-e ep] [-r 0|1] [-o file] -S setups.csv "
	    "-s setup -N devices -w width graph-dir\n");
	if (fp == stdout)	/* -h: each option, one line (man dpsolve) */
		fputs(
		    "search (the first form):\n"
		    "  -a accelerator.xml  the device: its rates and memory (required)\n"
		    "  -n network.xml      the network (required)\n"
		    "  graph.csv|index.csv the model's per-layer graphs, or graph-normalize -D's indexes (one a micro-batch size)\n"
		    "  -A model.xml        the model: the launch's flags of -f megatron and summary, checked against the graphs\n"
		    "  -B batch            the global batch in samples (default 4096)\n"
		    "  -N devices          use the first devices of the network (default all)\n"
		    "  -M bytes            the memory a device's tensors may fill (default: the device less a reserve, 6.1 GB of 80 GiB)\n"
		    "  -X megatron|torchtitan|none  search only what Megatron-LM runs (default), what torchtitan runs (FSDP2), or nestplan's whole space\n"
		    "  -Y 1f1b|zbh1|zbv|dualpipev|both|all\n"
		    "                      pipeline schedules searched (default 1f1b; with -X none: zbh1 ZB-H1,\n"
		    "                      zbv ZB-V, dualpipev DualPipeV; both 1F1B and ZB-H1, all every one)\n"
		    "  -r none|full|selective|op|all  recomputation searched (default all; both: none and full; op: torchtitan's per-operator checkpointing, beside FSDP2)\n"
		    "  -R layers           also search block recomputation of 1..layers layers a chunk\n"
		    "  -v vmax             most virtual (interleaved) stages (default 4)\n"
		    "  -D on|off|both      the distributed optimizer (default both: searched)\n"
		    "  -Q on|off|both      FP8 graphs' parameter gather in FP8: the distributed optimizer's, or\n"
		    "                      FSDP2's float8 all-gather on float8 graphs (default both)\n"
		    "  -I off|both|only    PyTorch's FSDP2 as torchtitan runs it, beside Megatron's data parallelism (default off; -X none)\n"
		    "  -J speeds.csv       price every device as the expected slowest of the job's -N: a table of\n"
		    "                      measured devices' relative_time (data/variability/; default off)\n"
		    , fp);
	if (fp == stdout)
		fputs(
		    "  -K on|off|both      Megatron-Core's combined 1F1B, the experts' exchange beside another micro-batch's\n"
		    "                      compute (--overlap-moe-expert-parallel-comm; default off)\n"
		    "  -L replica|stage|both  the stages' placement: a replica's one after another, each stage's replicas side by side (Megatron's default order), or both (default)\n"
		    "  -Z auto|off         ZeRO where nothing fits without it (default auto) or never\n"
		    "  -z zmax             largest ZeRO degree (power of two, default 64)\n"
		    "  -O adam|sgd         the optimizer of the memory model (default adam)\n"
		    "  -g bf16|fp32        gradient precision (default fp32 main gradients)\n"
		    "  -G megatron|torch   data-parallel wrapper: Megatron's buffer (default) or PyTorch DDP's bucket copy\n"
		    "  -V on|off           overlap gradient reduction and parameter gather (default on)\n"
		    "  -U on|off           search sequence parallelism with --tp-comm-overlap (default off)\n"
		    "  -H alltoall|deepep  a mixture's token dispatch: the flat all-to-all (default) or DeepEP's, a node once (whole experts only)\n"
		    "  -W async|blocking   column-parallel input-gradient all-reduce beside its weight gradient (default async)\n"
		    "  -P on|off           the 2021-22 pipeline scatter/gather (default off)\n"
		    "  -F                  search on a flat copy of the network (a network-agnostic planner)\n"
		    "  -k N                the N fastest distinct layouts, exactly (runner-ups; default 1)\n"
		    "  -E plan.xml         evaluate this plan instead of searching\n"
		    "  -m label            the model name written into the plan\n"
		    "  -f xml|csv|megatron|summary|torchtitan  output: the plan (xml, default off a terminal), its stages, the Megatron-LM launch, a person's summary (default on a terminal), or the torchtitan job\n"
		    "  -o file             write there (default standard output)\n"
		    "  -c plan.csv         also write the plan's stages as CSV\n"
		    "  -T stats.csv        write solve time, peak memory and search counts\n"
		    "  -h, --help          this text (man dpsolve for each in full)\n"
		    "the paper artifact's cost model (the second form):\n"
		    "  -C nest             price and search as the artifact does (docs/compat.md)\n"
		    "  -S setups.csv       the artifact's cluster table\n"
		    "  -s setup            the setup\n"
		    "  -w width            devices a stage\n"
		    "  -e ep               the graph's expert-parallel degree (default 1)\n"
		    "  -r 0|1              recomputation off or on\n"
		    "  -q                  sequential layer times even where the setup says ilp\n", fp);
	usage_exit(fp, status);
}

/* The variants -H deepep searches: DeepEP's dispatch is priced where a
 * mixture's experts are whole (plan.c), and Megatron-Core's flex
 * dispatcher needs more than one expert rank. */
static int
deepep_variant_ok(const struct layer_graph *g, int megatron)
{
	if (!layers_has_experts(g))
		return 1;
	return layers_expert_t(g) == 1 && (!megatron ||
	    layers_expert_ranks(g) > 1);
}

static long
peak_rss_bytes(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss * 1024L;
}

/*
 * The outputs (-o, -c, -T), opened before any work, so that a path that
 * cannot be written stops the run at once, and put in place together at
 * the end: a run that fails leaves none of them.
 */
struct outputs {
	struct outfile out, csv, stats;
	struct outfile *all[3];
	size_t n;
};

static void
outputs_open(struct outputs *w, const struct opts *o)
{
	struct pl_err err;

	memset(w, 0, sizeof *w);
	if (outfile_open(&w->out, o->out, &err) < 0)
		die_err(&err);
	w->all[w->n++] = &w->out;
	if (o->csv) {
		if (outfile_open(&w->csv, o->csv, &err) < 0)
			die_err(&err);
		w->all[w->n++] = &w->csv;
	}
	if (o->stats) {
		if (outfile_open(&w->stats, o->stats, &err) < 0)
			die_err(&err);
		w->all[w->n++] = &w->stats;
	}
}

static void
outputs_commit(struct outputs *w)
{
	struct pl_err err;

	if (outfile_commit_all(w->all, w->n, &err) < 0)
		die_err(&err);
}

static void
write_stats(FILE *fp, double solve_s, const struct dp_stats *st)
{
	if (fp == NULL)
		return;
	fprintf(fp, "solve_s,peak_rss_bytes,cells,cells_searched,states,"
	    "zero_used\n%.6f,%ld,%ld,%ld,%ld,%d\n", solve_s, peak_rss_bytes(),
	    st->cells, st->cells_searched, st->states, st->zero_used);
}

/* -C nest: the artifact's plan space on one of its graphs. */
static int
run_compat(const struct opts *o, const char *dir)
{
	struct compat_graph g;
	struct compat_cluster c;
	struct compat_plan best;
	struct outputs w;
	struct pl_err err;
	double t;

	outputs_open(&w, o);
	if (compat_read_cluster(&c, o->setups, o->setup, o->devices, &err) < 0 ||
	    compat_read_graph(&g, dir, c.ilp && !o->seq_times, &err) < 0)
		die_err(&err);
	c.expert_parallel = o->ep;
	t = INFINITY;
	for (int rc = o->rc_min; rc <= o->rc_max && rc <= RC_FULL; rc++) {
		struct compat_plan p;
		double ti = compat_solve(&g, &c, o->width, rc, &p);

		if (ti < t) {
			t = ti;
			best = p;
		}
	}
	if (isinf(t)) {
		compat_release_graph(&g);
		die("%s: no plan fits in %.0f bytes a device on %ld devices", dir,
		    c.memory_bytes, c.devices);
	}
	compat_write_plan(w.out.fp, &c, &best, t, o->setup);
	compat_release_graph(&g);
	outputs_commit(&w);
	return 0;
}

/* What the Megatron launch and the summary need beyond the plan. */
struct launch_info {
	const struct model_cfg *model;	/* NULL: no -A */
	long node_devices;
	struct summary_info summary;
	int optimizer;			/* OPT_*: torchtitan's job checks it */
	double straggler_factor;	/* -J: the devices' times scaled by
					 * it; 0: no -J */
};

/* The plan (p[0]) and with -k its runner-ups (p[1..n-1]) in one format:
 * the launch is the plan's, the runner-ups a table after it. */
static void
write_one(FILE *fp, int format, const struct plan_meta *m,
    const struct launch_info *li, const struct plan *p,
    const struct plan_result *r, size_t n)
{
	if (format == PLANIO_XML)
		planio_write_xml_ranked(fp, m, p, r, n);
	else if (format == PLANIO_CSV)
		planio_write_csv_ranked(fp, p, r, n);
	else if (format == PLANIO_SUMMARY) {
		summary_write(fp, "", m, &li->summary, p, r);
		summary_ranked(fp, "", p, r, n);
	} else if (format == PLANIO_TORCHTITAN) {
		torchtitan_write(fp, m, &li->summary, li->node_devices,
		    li->optimizer, p, r);
		summary_ranked(fp, "# ", p, r, n);
	} else {
		megatron_write(fp, m, &li->summary, li->node_devices, p, r);
		summary_ranked(fp, "# ", p, r, n);
	}
}

static void
write_outputs(const struct opts *o, struct outputs *w,
    const struct plan_env *env,
    const struct accel_cfg *a, const struct network *net,
    const struct launch_info *li, const struct plan *p,
    const struct plan_result *r, size_t n)
{
	const char *slash = strrchr(p->g->file, '/');
	struct plan_meta m = { o->label ? o->label : li->model ?
	    li->model->name : slash ? slash + 1 : p->g->file, net->name,
	    a->name, "default", env->global_batch, env->memory_bytes,
	    env->grad_bytes_per_param, li->straggler_factor };

	if (!r->fits)
		warnx("%s: the plan does not fit in %.0f bytes a device",
		    o->evaluate ? o->evaluate : "plan", env->memory_bytes);
	write_one(w->out.fp, o->format, &m, li, p, r, n);
	if (o->csv)
		write_one(w->csv.fp, PLANIO_CSV, &m, li, p, r, n);
}

static int
word(const char *arg, const char *w)
{
	return strcmp(arg, w) == 0;
}

/* -D, -I, -L, -Q: a choice searched one way (`zero`), the other (`one`)
 * or both ("both"); `listed`, the words as the refusal names them. */
static void
opt_either(int opt, const char *arg, const char *zero, const char *one,
    const char *listed, int *min, int *max)
{
	if (word(arg, zero))
		*min = *max = 0;
	else if (word(arg, one))
		*min = *max = 1;
	else if (word(arg, "both"))
		*min = 0, *max = 1;
	else {
		warnx("-%c: '%s' is not %s", opt, arg, listed);
		usage(stderr, 2);
	}
}

/* -r: one recomputation kind (a word or its number), all (each beside
 * the data parallelism that runs it: selective beside Megatron's, op
 * beside FSDP2), or both (none and full, as before selective existed). */
static int
recompute_range(const char *arg, struct opts *o)
{
	static const char *const kinds[RC_N] = { "none", "full", "selective",
		"op" };
	static const char *const numbers[RC_N] = { "0", "1", "2", "3" };

	if (word(arg, "all") || word(arg, "both")) {
		o->rc_min = RC_NONE;
		o->rc_max = word(arg, "all") ? RC_OP : RC_FULL;
		return 1;
	}
	for (int k = 0; k < RC_N; k++)
		if (word(arg, kinds[k]) || word(arg, numbers[k])) {
			o->rc_min = o->rc_max = k;
			return 1;
		}
	return 0;
}

static void
parse_args(int argc, char *argv[], struct opts *o)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "evaluate", required_argument, NULL, 'E' },
		{ "compat", required_argument, NULL, 'C' },
		{ "framework", required_argument, NULL, 'X' },
		{ "format", required_argument, NULL, 'f' },
		{ "flat", no_argument, NULL, 'F' },
		{ "model", required_argument, NULL, 'A' },
		{ "ddp", required_argument, NULL, 'G' },
		{ "schedule", required_argument, NULL, 'Y' },
		{ "fsdp", required_argument, NULL, 'I' },
		{ "placement", required_argument, NULL, 'L' },
		{ "stragglers", required_argument, NULL, 'J' },
		{ "ep-overlap", required_argument, NULL, 'K' },
		{ NULL, 0, NULL, 0 }
	};
	int ch;

	memset(o, 0, sizeof *o);
	o->batch = 4096;
	o->zmax = 64;
	o->rc_max = RC_OP;
	o->stage_major_max = 1;	/* -L both */
	o->width = 1;
	o->ep = 1;
	o->vmax = 4;
	o->grad_bytes = 4;
	o->distopt_max = 1;
	o->fp8_gather_max = 1;
	o->overlap = 1;
	o->megatron = 1;
	o->format = -1;
	o->top_n = 1;
	opterr = 0;
	while ((ch = getopt_long(argc, argv,
	    ":A:B:C:D:E:FG:H:I:J:K:L:M:N:O:P:Q:R:S:T:U:V:W:X:Y:Z:a:c:e:f:g:hk:m:n:o:qr:s:v:w:z:", longopts,
	    NULL)) != -1) {
		if (ch > 0 && ch < OPT_SEEN_MAX)
			o->seen[ch] = 1;
		switch (ch) {
		case 'A': o->model = optarg; break;
		case 'B': o->batch = opt_long('B', optarg, 1, 1L << 40); break;
		case 'C':
			if (strcmp(optarg, "nest") != 0) {
				warnx("-C: the one compatibility mode is nest");
				usage(stderr, 2);
			}
			o->compat = optarg;
			break;
		case 'D':
			opt_either('D', optarg, "off", "on", "on, off or both",
			    &o->distopt_min, &o->distopt_max);
			break;
		case 'I':	/* FSDP2 beside Megatron's data parallelism */
			opt_either('I', optarg, "off", "only",
			    "off, both or only", &o->fsdp_min, &o->fsdp_max);
			break;
		case 'L':	/* the stages' placement */
			opt_either('L', optarg, "replica", "stage",
			    "replica, stage or both", &o->stage_major_min,
			    &o->stage_major_max);
			break;
		case 'K':	/* --overlap-moe-expert-parallel-comm */
			opt_either('K', optarg, "off", "on", "on, off or both",
			    &o->ep_min, &o->ep_max);
			break;
		case 'Q':	/* --fp8-param-gather */
			opt_either('Q', optarg, "off", "on", "on, off or both",
			    &o->fp8_gather_min, &o->fp8_gather_max);
			break;
		case 'Y':	/* the pipeline schedules searched */
			o->sched_min = o->sched_max = plan_schedule_of(optarg);
			if (word(optarg, "both"))
				o->sched_min = PLAN_1F1B, o->sched_max =
				    PLAN_ZBH1;
			else if (word(optarg, "all"))
				o->sched_min = PLAN_1F1B, o->sched_max =
				    PLAN_NSCHED - 1;
			else if (o->sched_min < 0) {
				warnx("-Y: '%s' is not 1f1b, zbh1, zbv, "
				    "dualpipev, both or all", optarg);
				usage(stderr, 2);
			}
			break;
		case 'E': o->evaluate = optarg; break;
		case 'J': o->stragglers = optarg; break;
		case 'F': o->flat = 1; break;
		case 'M': o->memory_bytes = opt_double('M', optarg, 1, 1e18); break;
		case 'N': o->devices = opt_long('N', optarg, 1, 1L << 30); break;
		case 'O':
			o->optimizer = opt_word('O', optarg,
			    "adam", "sgd", usage) ?
			    OPT_SGD : OPT_ADAM;
			break;
		case 'P':	/* Megatron-LM 2021-22's pipeline scatter/gather */
			o->scatter_gather = opt_word('P', optarg,
			    "off", "on", usage);
			break;
		case 'S': o->setups = optarg; break;
		case 'T': o->stats = optarg; break;
		case 'H':	/* a mixture's token dispatch */
			o->deepep = opt_word('H', optarg,
			    "alltoall", "deepep", usage);
			break;
		case 'U':	/* --tp-comm-overlap on sp variants */
			o->tp_overlap = opt_word('U', optarg,
			    "off", "on", usage);
			break;
		case 'W':	/* Megatron-LM before 2021-08-30: blocking */
			o->tp_grad_blocking = opt_word('W', optarg,
			    "async", "blocking", usage);
			break;
		case 'V':
			o->overlap = !opt_word('V', optarg, "on", "off", usage);
			break;
		case 'Z':
			o->zero = opt_word('Z', optarg, "auto", "off", usage) ?
			    DP_ZERO_OFF : DP_ZERO_AUTO;
			break;
		case 'X':	/* the framework whose plans are searched */
			o->torchtitan = word(optarg, "torchtitan");
			o->megatron = !o->torchtitan && !opt_word('X',
			    optarg, "megatron", "none", usage);
			break;
		case 'G':	/* PyTorch DDP keeps a bucket copy */
			o->grad_copies = opt_word('G', optarg,
			    "megatron", "torch", usage) ? 2 : 1;
			break;
		case 'a': o->accel = optarg; break;
		case 'c': o->csv = optarg; break;
		case 'f':
			if ((o->format = planio_format(optarg)) < 0) {
				warnx("-f: '%s' is not xml, csv, megatron, "
				    "summary or torchtitan", optarg);
				usage(stderr, 2);
			}
			break;
		case 'g':
			o->grad_bytes = opt_word('g', optarg,
			    "bf16", "fp32", usage) ?
			    4 : 2;
			break;
		case 'h': usage(stdout, 0); break;
		case 'k': o->top_n = opt_long('k', optarg, 1, 100); break;
		case 'm': o->label = optarg; break;
		case 'n': o->network = optarg; break;
		case 'o': o->out = optarg; break;
		case 'q': o->seq_times = 1; break;
		case 'r':
			if (!recompute_range(optarg, o)) {
				warnx("-r: '%s' is not none, full, selective, op, "
				    "all, both (none and full) or 0, 1, 2, 3",
				    optarg);
				usage(stderr, 2);
			}
			break;
		case 'v': o->vmax = opt_long('v', optarg, 1, 64); break;
		case 'R': o->block_max = opt_long('R', optarg, 0, 128); break;
		case 's': o->setup = optarg; break;
		case 'w': o->width = opt_long('w', optarg, 1, 1L << 20); break;
		case 'e': o->ep = opt_long('e', optarg, 1, 1L << 20); break;
		case 'z': o->zmax = opt_long('z', optarg, 1, 1L << PLAN_ZLOG_MAX);
			if (o->zmax & (o->zmax - 1)) {
				warnx("-z: '%s' is not a power of two", optarg);
				usage(stderr, 2);
			}
			break;
		default: bad_option(ch); usage(stderr, 2);
		}
	}
	/* a person at a terminal gets the summary, a pipe or a file the
	 * plan's XML */
	if (o->format < 0)
		o->format = (o->out == NULL || strcmp(o->out, "-") == 0) &&
		    isatty(STDOUT_FILENO) ? PLANIO_SUMMARY : PLANIO_XML;
}

int
main(int argc, char *argv[])
{
	struct opts o;
	struct accel_cfg accel;
	struct model_cfg model;
	struct launch_info li = { NULL, 1, { NULL, NULL, 0 }, OPT_ADAM, 0 };
	struct network net, flat;
	struct variants vs;
	struct plan_env env;
	struct plan *plans;	/* the plan, then with -k its runner-ups */
	struct plan_result *res;
	double *steps;
	size_t nplans = 1;
	struct dp_stats st;
	struct outputs w;
	struct pl_err err;
	double t0;
	int rc;

	parse_args(argc, argv, &o);
	argc -= optind;
	argv += optind;
	if (o.compat) {
		int c;

		if (o.block_max > 0) {
			warnx("-R: the artifact's plan space (-C nest) has no "
			    "block recomputation");
			usage(stderr, 2);
		}
		if ((c = opt_first_outside(o.seen, "CNSehoqrsw")) != 0) {
			warnx("-%c: not with -C nest (the artifact's cost model "
			    "takes -e, -q, -r, -o, -S, -s, -N, -w)", c);
			usage(stderr, 2);
		}
		if (o.seen['r'] && o.rc_max > RC_FULL) {
			warnx("-r: the artifact's plan space (-C nest) has no "
			    "selective recomputation (-r none, full or both)");
			usage(stderr, 2);
		}
		if (argc != 1 || !o.setups || !o.setup || !o.devices ||
		    !o.seen['w']) {
			warnx("-C nest needs -S setups.csv, -s setup, -N devices, "
			    "-w width and one graph directory");
			usage(stderr, 2);
		}
		return run_compat(&o, argv[0]);
	}
	{
		int c = opt_first_outside(o.seen,
		    "ABDEFGHIJKLMNOPQRTUVWXYZacfghkmnorvz");

		if (c != 0) {
			warnx("-%c: only with -C nest", c);
			usage(stderr, 2);
		}
	}
	if (o.block_max > 0 && (o.rc_min > RC_FULL || o.rc_max < RC_FULL ||
	    o.evaluate)) {
		warnx("-R: block recomputation is searched beside full "
		    "recomputation (-r full, both or all), not with -E");
		usage(stderr, 2);
	}
	if (o.evaluate && o.seen['H']) {
		warnx("-H: a plan records its dispatch (deepep=\"1\"), not "
		    "with -E");
		usage(stderr, 2);
	}
	if (o.evaluate && o.seen['Q']) {
		warnx("-Q: a plan records its parameter gather "
		    "(fp8_param_gather=\"1\"), not with -E");
		usage(stderr, 2);
	}
	if (o.evaluate && o.seen['I']) {
		warnx("-I: a plan records its data parallelism (fsdp=\"1\" "
		    "or \"2\"), not with -E");
		usage(stderr, 2);
	}
	if (o.evaluate && o.seen['L']) {
		warnx("-L: a plan records its placement (stage_major=\"1\"), "
		    "not with -E");
		usage(stderr, 2);
	}
	if (o.evaluate && o.seen['K']) {
		warnx("-K: a plan records its schedule's exchange overlap "
		    "(ep_overlap=\"1\"), not with -E");
		usage(stderr, 2);
	}
	if (o.torchtitan && o.ep_min > 0) {
		warnx("-K on: torchtitan has no combined 1F1B (Megatron-Core's)");
		usage(stderr, 2);
	}
	/* where the combined 1F1B alone leaves nothing to search */
	if (o.ep_min > 0 && (o.fsdp_min > 0 || o.rc_min == RC_FULL ||
	    o.rc_min == RC_OP || o.sched_min > PLAN_1F1B)) {
		warnx("-K on: Megatron-Core's combined 1F1B runs under 1F1B, "
		    "beside Megatron's data parallelism, without full "
		    "recomputation (not with -I only, -r full or op, or -Y "
		    "without 1f1b)");
		usage(stderr, 2);
	}
	if (o.torchtitan && o.seen['L']) {
		warnx("-L: torchtitan's mesh places each stage's replicas side "
		    "by side (-X torchtitan searches that placement)");
		usage(stderr, 2);
	}
	if (o.torchtitan && o.seen['I']) {
		warnx("-I: -X torchtitan searches FSDP2 plans alone (its data "
		    "parallelism beside tensor, context and pipeline "
		    "parallelism)");
		usage(stderr, 2);
	}
	if (o.torchtitan && (o.sched_max > PLAN_1F1B || (o.rc_min ==
	    RC_SELECTIVE && o.rc_max == RC_SELECTIVE) || o.block_max > 0)) {
		warnx("-X torchtitan: its schedules and recomputation are "
		    "priced for 1F1B, interleaved or not (its ZBVZeroBubble "
		    "and DualPipeV refuse the compiled blocks it prices: -X "
		    "none -I only -Y all), and none, full or per operator "
		    "(-Y, -r, -R)");
		usage(stderr, 2);
	}
	if (o.rc_min == RC_OP && !o.torchtitan && o.fsdp_max == 0 &&
	    !o.evaluate) {
		warnx("-r op: torchtitan's per-operator checkpointing runs "
		    "beside FSDP2 (-X torchtitan, or -X none -I both|only)");
		usage(stderr, 2);
	}
	if (o.rc_min == RC_SELECTIVE && o.rc_max == RC_SELECTIVE &&
	    o.fsdp_min > 0) {
		warnx("-r selective: Megatron's selective recomputation does "
		    "not run beside FSDP2 (-I only); torchtitan's is -r op");
		usage(stderr, 2);
	}
	if (o.fsdp_max > 0 && o.megatron) {
		warnx("-I %s: Megatron-LM does not run FSDP2 plans (torchtitan "
		    "does): search them with -X none", o.fsdp_min ? "only" :
		    "both");
		usage(stderr, 2);
	}
	if (o.fp8_gather_min > 0 && o.distopt_max == 0 && o.fsdp_max == 0 &&
	    !o.torchtitan) {
		warnx("-Q on: the FP8 parameter gather is the distributed "
		    "optimizer's or FSDP2's (not with -D off alone)");
		usage(stderr, 2);
	}
	if (o.evaluate && o.seen['Y']) {
		warnx("-Y: a plan records its schedule (schedule=\"zbh1\", "
		    "\"zbv\", \"dualpipev\"), not with -E");
		usage(stderr, 2);
	}
	if (o.sched_min >= PLAN_ZBV && o.vmax < 2) {
		warnx("-Y %s runs two model chunks a stage: not with -v %ld",
		    plan_schedule_name[o.sched_min], o.vmax);
		usage(stderr, 2);
	}
	if (o.megatron && o.sched_max > PLAN_1F1B) {
		warnx("-Y %s: Megatron-LM runs none of the split schedules "
		    "(core_v0.15.0); search nestplan's whole space with -X "
		    "none", o.sched_min ? plan_schedule_name[o.sched_min] :
		    o.sched_max == PLAN_ZBH1 ? "both" : "all");
		usage(stderr, 2);
	}
	if (o.evaluate && o.top_n > 1) {
		warnx("-k: runner-ups are searched for, not with -E");
		usage(stderr, 2);
	}
	if (argc < 1 || !o.accel || !o.network) {
		warnx("needs -a accelerator.xml, -n network.xml and at least "
		    "one graph");
		usage(stderr, 2);
	}
	{
		const char *in[5] = { o.accel, o.network, o.model, o.evaluate,
		    o.stragglers };

		if (stdin_count(in, 5) + stdin_count((const char *const *)argv,
		    (size_t)argc) > 1) {
			warnx("only one input can be '-' (standard input)");
			usage(stderr, 2);
		}
	}
	outputs_open(&w, &o);
	if (accel_load(&accel, o.accel, &err) < 0 ||
	    network_load(&net, o.network, &err) < 0 ||
	    (o.model && model_load(&model, o.model, &err) < 0))
		die_err(&err);
	li.model = o.model ? &model : NULL;
	li.summary = (struct summary_info){ li.model, &accel, o.memory_bytes ?
	    0 : accel_memory_reserve_bytes(&accel) };
	li.optimizer = o.optimizer;
	li.node_devices = net.host_devices > 0 ? net.host_devices :
	    net.span[0];
	if (o.devices > net.ndevices)
		die("%s: -N %ld: the network has %ld devices", o.network,
		    o.devices, net.ndevices);
	if (planio_read_variants(&vs, argv, (size_t)argc, &err) < 0)
		die_err(&err);
	{
		char *mline = o.model ? model_config_line(&model) : NULL;
		char *aline = accel_config_line(&accel);

		for (size_t i = 0; i < vs.n; i++)
			if ((o.model && layers_check_model(&vs.g[i],
			    model.layers, o.model, &err) < 0) ||
			    layers_check_configs(&vs.g[i], mline, o.model,
			    aline, o.accel, &err) < 0)
				die_err(&err);
		free(mline);
		free(aline);
	}
	planio_env(&env, &net, &accel, &(struct price_opts){ o.devices,
	    o.batch, o.memory_bytes, o.grad_bytes, o.grad_copies, o.optimizer,
	    o.tp_overlap, o.scatter_gather, o.tp_grad_blocking, o.deepep });
	if (o.stragglers && planio_stragglers(&vs, o.stragglers, env.devices,
	    &li.straggler_factor, &err) < 0)
		die_err(&err);
	/* a plan's micro-batch must fit the global batch; a search leaves
	 * out the variants whose micro-batch does not (an index of a
	 * mixture lists expert ranks splitting b e samples), and stops only
	 * when none is left */
	{
		const struct layer_graph *first = NULL, *last = NULL, *g;
		size_t fit = 0;

		for (size_t i = 0; i < vs.n; i++)
			if (batch_fits(&vs.g[i], o.batch))
				fit++;
			else {
				if (first == NULL)
					first = &vs.g[i];
				last = &vs.g[i];
			}
		g = o.evaluate ? first : fit == 0 ? last : NULL;
		if (g)
			die("%s: micro-batch %ld is larger than the global batch "
			    "%ld", g->file, g->var_b, o.batch);
	}
	plans = xcalloc((size_t)o.top_n, sizeof *plans);
	steps = xcalloc((size_t)o.top_n, sizeof *steps);
	res = xcalloc((size_t)o.top_n, sizeof *res);
	t0 = monotonic_s();
	if (o.evaluate) {
		if (planio_read_plan(o.evaluate, &vs, &plans[0], &err) < 0)
			die_err(&err);
		planio_straggler_note(o.evaluate, &plans[0],
		    li.straggler_factor, env.devices);
		if (plan_evaluate(&env, &plans[0], &res[0], &err) < 0) {
			if (!err.file[0])	/* the plan's own inconsistency */
				snprintf(err.file, sizeof err.file, "%s",
				    o.evaluate);
			die_err(&err);
		}
		memset(&st, 0, sizeof st);
	} else {
		const struct layer_graph **gp = xcalloc(vs.n, sizeof *gp);
		struct dp_options dpo = { .recompute_min = o.rc_min,
		    .recompute_max = o.rc_max, .zero = o.zero, .zmax = o.zmax,
		    .vmax = o.vmax, .distopt_min = o.distopt_min,
		    .distopt_max = o.distopt_max, .overlap = o.overlap,
		    .tp_overlap = o.tp_overlap, .block_max = o.block_max,
		    .fp8_gather_min = o.fp8_gather_min,
		    .fp8_gather_max = o.fp8_gather_max,
		    .sched_min = o.sched_min, .sched_max = o.sched_max,
		    .fsdp_min = o.fsdp_min, .fsdp_max = o.fsdp_max,
		    .stage_major_min = o.stage_major_min,
		    .stage_major_max = o.stage_major_max,
		    .ep_overlap_min = o.ep_min, .ep_overlap_max = o.ep_max };
		size_t ng = 0;

		for (size_t i = 0; i < vs.n; i++)
			if (batch_fits(&vs.g[i], o.batch) && (!o.megatron ||
			    megatron_variant_ok(&vs.g[i], li.model)) &&
			    (!o.torchtitan || torchtitan_variant_ok(&vs.g[i],
			    li.model)) &&
			    (!o.deepep || deepep_variant_ok(&vs.g[i],
			    o.megatron)) && (!o.deepep || !o.torchtitan ||
			    layers_var(&vs.g[i], vs.g[i].var_t, 1) == 1))
				gp[ng++] = &vs.g[i];
		if (o.deepep && ng == 0)
			die("%s: -H deepep searches none of the variants: DeepEP "
			    "is priced where experts are whole (expert_t 1, "
			    "graph-normalize -D lists them)%s", argv[0],
			    o.megatron ? ", and Megatron's flex dispatcher needs "
			    "more than one expert rank" : "");
		if (o.sched_min > PLAN_1F1B) {
			size_t split = 0;

			for (size_t i = 0; i < ng; i++)
				split += gp[i]->has_wgrad != 0;
			if (ng > 0 && split == 0) {
				const char *file = gp[0]->file;

				free(gp);
				die("%s: no weight_gradient_s column: -Y %s "
				    "splits the backward pass (the analytic "
				    "graphs have it)", file,
				    plan_schedule_name[o.sched_min]);
			}
		}
		{
			size_t torchao = 0;

			for (size_t i = 0; i < vs.n; i++)
				torchao += FP8_TORCHAO(vs.g[i].var_fp8);
			/* every variant torchao's, and no FSDP2 searched */
			if (vs.n > 0 && torchao == vs.n && (o.megatron ||
			    (!o.torchtitan && o.fsdp_max == 0))) {
				free(gp);
				die("%s: torchao's float8 runs beside FSDP2: "
				    "-X torchtitan, or -X none -I both|only",
				    argv[0]);
			}
		}
		if (o.megatron) {
			megatron_model_ok(li.model, o.model);
			if (ng == 0)
				die("%s: Megatron-LM runs none of the variants "
				    "(context parallelism needs the sequence a "
				    "multiple of 2 c, and torchao's float8 FSDP2; "
				    "-X none searches them)", argv[0]);
			dpo.zero = DP_ZERO_OFF;
			dpo.megatron_batch = 1;
			dpo.megatron_order = 1;
			dpo.classic_split = megatron_encoder(gp[0], li.model);
		}
		if (o.torchtitan) {
			const char *name;

			if (!li.model)
				die("%s: -X torchtitan needs the model's config "
				    "(-A model.xml): torchtitan trains its own "
				    "flavors", argv[0]);
			if (torchtitan_flavor(li.model, &name) == NULL)
				die("%s: torchtitan v0.2.2 has no flavor of this "
				    "shape (its Llama 3, Qwen3 mixtures and "
				    "DeepSeek-V3 without multi-token prediction; "
				    "-X none searches nestplan's whole space)",
				    o.model);
			if (env.optimizer != OPT_ADAM)
				die("%s: -X torchtitan with -O sgd: torchtitan "
				    "v0.2.2 runs Adam and AdamW", argv[0]);
			if (o.deepep && !torchtitan_deepep(li.model))
				die("%s: -X torchtitan -H deepep: torchtitan "
				    "v0.2.2 dispatches by DeepEP for its "
				    "DeepSeek-V3 alone, not for %s", o.model,
				    name);
			if (ng == 0)
				die("%s: torchtitan runs none of the variants "
				    "(no Transformer Engine FP8; tensor "
				    "parallelism with sequence "
				    "parallelism; experts whole or split over "
				    "all the tensor ranks; the sequence a "
				    "multiple of 2 t c)", argv[0]);
			dpo.zero = DP_ZERO_OFF;
			dpo.megatron_batch = 1;	/* whole batches */
			dpo.fsdp_min = dpo.fsdp_max = 1;
			/* its mesh puts the pipeline outermost */
			dpo.stage_major_max = 1;
			dpo.stage_major_only = 1;
			dpo.micro_per_stage = 1;
			/* Qwen3: no pipelining_fn */
			dpo.stages_max = torchtitan_pipelines(li.model) ? 0 : 1;
			dpo.tp_overlap = 0;
			/* Megatron-Core's schedule */
			dpo.ep_overlap_max = 0;
		}
		if (o.flat) {
			network_flatten(&net, &flat);
			env.net = &flat;
		}
		rc = dp_solve_top(&env, gp, ng, &dpo, (size_t)o.top_n, plans,
		    steps, &nplans, &st, &err);
		free(gp);
		if (rc < 0)
			die_err(&err);
		if (rc == 1)
			die("%s: no plan fits: %ld devices of %.0f bytes%s", argv[0],
			    env.devices, env.memory_bytes, o.torchtitan ?
			    " that torchtitan runs (FSDP2 over two devices or "
			    "more, the global batch a multiple of b d; -X none "
			    "searches them all)" : dpo.fsdp_min > 0 ? " as "
			    "FSDP2 (-I only: nothing else, ZeRO copies "
			    "included, is searched)" : o.megatron ?
			    " that Megatron-LM runs (no ZeRO copies, the global "
			    "batch a multiple of b d, a replica's stages "
			    "together only where --use-tp-pp-dp-mapping runs; "
			    "-X none searches them all)" : o.sched_min == PLAN_ZBH1 ? " under ZB-H1 "
			    "(two stages or more, without ZeRO copies; -Y "
			    "both searches 1F1B too)" : o.sched_min > PLAN_ZBH1 ?
			    " under the V-shaped schedule (two stages or more of "
			    "two chunks each, without ZeRO copies; DualPipeV "
			    "twice the stages in micro-batches; -Y all searches "
			    "1F1B too)" : o.stage_major_min > 0 ?
			    " placed stage-major (-L stage: without ZeRO copies; "
			    "-L both searches both placements)" :
			    o.zero == DP_ZERO_OFF ?
			    " (ZeRO off)" : ", ZeRO up to the largest degree");
		for (size_t k = 0; o.megatron && k < nplans; k++) {
			struct megatron_why why;

			/* the search and the launch's check are one rule */
			if (megatron_check(&plans[k], env.global_batch, li.model,
			    &why) > 0)
				die("internal error: the Megatron search chose a "
				    "plan Megatron-LM cannot run: %s", why.why[0]);
		}
		for (size_t k = 0; o.torchtitan && k < nplans; k++) {
			struct megatron_why why;

			if (torchtitan_check(&plans[k], env.global_batch,
			    env.optimizer, li.model, &why) > 0)
				die("internal error: the torchtitan search chose "
				    "a plan torchtitan cannot run: %s",
				    why.why[0]);
		}
		/* the breakdown is always the network-aware evaluator's */
		env.net = &net;
		for (size_t k = 0; k < nplans; k++)
			if (plan_evaluate(&env, &plans[k], &res[k], &err) < 0)
				die_err(&err);
	}
	write_stats(w.stats.fp, monotonic_s() - t0, &st);
	write_outputs(&o, &w, &env, &accel, &net, &li, plans, res, nplans);
	outputs_commit(&w);
	for (size_t k = 0; k < nplans; k++) {
		plan_result_release(&res[k]);
		free(plans[k].stage);
	}
	free(plans);
	free(res);
	free(steps);
	planio_release_variants(&vs);
	return 0;
}
