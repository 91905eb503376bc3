/*
 * pipesim - one step of a plan simulated pass by pass: each micro-batch's
 * forward and backward pass on every stage (and model chunk) in the
 * order its pipeline schedule runs them, each stage's exposed gradient
 * reduction after its own last backward pass; the step, every stage's
 * busy and idle time and the activations it holds at its peak, beside
 * the closed forms dpsolve -E prices (issue 35; the engine:
 * lib/sim/pipeline.h; docs/model.md, "Pipeline schedules, simulated").
 */
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/csvio.h"
#include "base/util.h"
#include "io/planio.h"
#include "model/config.h"
#include "model/plan.h"
#include "sim/pipeline.h"

struct opts {
	const char *accel, *network, *plan, *out, *timeline;
	long devices, batch, group;
	double memory_bytes, grad_bytes, grad_copies;
	int optimizer, scatter_gather, tp_grad_blocking, gpipe;
	int transfers;		/* -x: 0 as Megatron runs it, 1 hold, 2
				 * overlap */
};

static void
usage(FILE *fp, int status)
{
	fprintf(fp, "usage: pipesim [-h] [-B batch] [-G megatron|torch] "
	    "[-M bytes] [-N devices] [-O adam|sgd] [-P on|off] "
	    "[-W async|blocking] [-g bf16|fp32] [-o file] [-s 1f1b|gpipe] "
	    "[-t timeline.csv] [-u group] [-x hold|overlap] "
	    "-a accelerator.xml -n network.xml "
	    "-p plan.xml graph.csv|index.csv ...\n");
	if (fp == stdout)
		fputs(
		    "  -a accelerator.xml  the device (required)\n"
		    "  -n network.xml      the network (required)\n"
		    "  -p plan.xml         the plan, as dpsolve writes it (required)\n"
		    "  graph.csv|index.csv the per-layer graphs the plan names\n"
		    "  -B, -G, -M, -N, -O, -P, -W, -g  priced as dpsolve -E prices them (man dpsolve)\n"
		    "  -s 1f1b|gpipe       a plan without interleaving: 1F1B (default) or GPipe\n"
		    "  -u group            interleaved: micro-batches a group (Megatron's\n"
		    "                      --microbatch-group-size-per-virtual-pipeline-stage, default p)\n"
		    "  -x hold|overlap     a boundary's transfer holds its sender, or runs beside compute\n"
		    "                      (default as Megatron-LM: holds without interleaving, beside it with)\n"
		    "  -o file             the stages' CSV (default standard output)\n"
		    "  -t timeline.csv     also every pass: stage, chunk, micro-batch, start and end\n"
		    "  -h, --help          this text (man pipesim)\n", fp);
	usage_exit(fp, status);
}

static void
parse_args(int argc, char *argv[], struct opts *o)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	int ch;

	memset(o, 0, sizeof *o);
	o->batch = 4096;
	o->grad_bytes = 4;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, ":B:G:M:N:O:P:W:a:g:hn:o:p:s:t:u:x:",
	    longopts, NULL)) != -1)
		switch (ch) {
		case 'B': o->batch = opt_long('B', optarg, 1, 1L << 40); break;
		case 'G':
			o->grad_copies = opt_word('G', optarg,
			    "megatron", "torch", usage) ? 2 : 1;
			break;
		case 'M': o->memory_bytes = opt_double('M', optarg, 1, 1e18); break;
		case 'N': o->devices = opt_long('N', optarg, 1, 1L << 30); break;
		case 'O':
			o->optimizer = opt_word('O', optarg,
			    "adam", "sgd", usage) ?
			    OPT_SGD : OPT_ADAM;
			break;
		case 'P': o->scatter_gather = opt_word('P', optarg,
		    "off", "on", usage); break;
		case 'W':
			o->tp_grad_blocking = opt_word('W', optarg,
			    "async", "blocking", usage);
			break;
		case 'a': o->accel = optarg; break;
		case 'g':
			o->grad_bytes = opt_word('g', optarg,
			    "bf16", "fp32", usage) ?
			    4 : 2;
			break;
		case 'h': usage(stdout, 0); break;
		case 'n': o->network = optarg; break;
		case 'o': o->out = optarg; break;
		case 'p': o->plan = optarg; break;
		case 's': o->gpipe = opt_word('s', optarg,
		    "1f1b", "gpipe", usage); break;
		case 't': o->timeline = optarg; break;
		case 'u': o->group = opt_long('u', optarg, 1, 1L << 30); break;
		case 'x': o->transfers = 1 + opt_word('x', optarg,
		    "hold", "overlap", usage); break;
		case ':':
			warnx("-%c needs an argument", optopt);
			usage(stderr, 2);
			break;
		default:
			warnx("-%c: no such option", optopt);
			usage(stderr, 2);
		}
	if (optind >= argc || !o->accel || !o->network || !o->plan) {
		warnx("needs -a accelerator.xml, -n network.xml, -p plan.xml "
		    "and at least one graph");
		usage(stderr, 2);
	}
	/* two outputs, two places */
	if (o->timeline && (strcmp(o->timeline, o->out ? o->out : "-") == 0 ||
	    (strcmp(o->timeline, "-") == 0 && o->out == NULL))) {
		warnx("-t %s: the stages' CSV goes there too (-o)", o->timeline);
		usage(stderr, 2);
	}
	{
		const char *in[3] = { o->accel, o->network, o->plan };

		if (stdin_count(in, 3) + stdin_count((const char *const *)
		    argv + optind, (size_t)(argc - optind)) > 1) {
			warnx("only one input can be '-' (standard input)");
			usage(stderr, 2);
		}
	}
}

/*
 * The plan's passes as the engine takes them: each stage's v chunks
 * alike (its forward and backward pass over v), each boundary's transfer
 * one way (the evaluator's sends over their count: 2 a boundary, 2 v
 * interleaved, 2 (v - 1) across the last stage's wrap to the first).
 */
static void
costs_of(const struct plan_result *r, int v, int hold, struct pipe_costs *c)
{
	int S = r->nstages;
	double *f = xcalloc((size_t)(S * v), sizeof *f);
	double *b = xcalloc((size_t)(S * v), sizeof *b);
	double *x = xcalloc((size_t)(S * v), sizeof *x);

	for (int i = 0; i < S; i++)
		for (int k = 0; k < v; k++) {
			f[i * v + k] = r->stage[i].forward_s / v;
			b[i * v + k] = r->stage[i].backward_s / v;
		}
	for (int j = 0; j + 1 < S * v; j++) {
		int i = j % S;

		x[j] = r->stage[i].p2p_out_s / (2.0 * (i + 1 < S ? v : v - 1));
	}
	*c = (struct pipe_costs){ S, v, r->m, f, b, x, hold };
}

static const char *const summary_head[] = { "stage", "first_device",
	"devices", "forward_s", "backward_s", "busy_s", "idle_s", "end_s",
	"sync_s", "peak_activation_chunks", "peak_memory_bytes",
	"closed_form_memory_bytes", "fits", "step_s", "closed_form_step_s" };
#define NSUMMARY (sizeof summary_head / sizeof summary_head[0])

/* idle_s: the step less the stage's passes and its exposed reduction;
 * fits: its simulated peak within the memory cap (-M, or the device
 * less its reserve) */
static void
write_summary(FILE *fp, const struct plan_result *r,
    const struct pipe_result *sim, int v, double cap)
{
	int S = r->nstages;
	const double *end = sim->end_s;
	double step = 0;

	/* each stage's exposed reduction after its own last backward pass:
	 * a stage that drains early reduces while the others drain */
	for (int i = 0; i < S; i++)
		step = fmax(step, end[i] + r->stage[i].sync_s);
	csvio_write_row(fp, summary_head, NSUMMARY);
	for (int i = 0; i < S; i++) {
		const struct stage_cost *s = &r->stage[i];
		const struct mem_breakdown *m = &s->mem;
		char b[NSUMMARY][NUMFMT_LEN];
		const char *f[NSUMMARY];
		double held = (double)sim->peak_chunks[i] / v;
		double peak = m->weights + m->gradients + m->optimizer +
		    m->activations + (held - 1) * m->kept;
		double vals[NSUMMARY] = { i, (double)s->first_device,
			(double)s->devices, s->forward_s, s->backward_s,
			sim->busy_s[i], step - sim->busy_s[i] - s->sync_s,
			end[i], s->sync_s, (double)sim->peak_chunks[i], peak,
			m->total, 0, step, r->step_s };

		for (size_t k = 0; k < NSUMMARY; k++)
			f[k] = numfmt(b[k], vals[k]);
		f[12] = peak <= cap ? "yes" : "no";
		csvio_write_row(fp, f, NSUMMARY);
	}
}

static void
write_timeline(FILE *fp, const struct pipe_result *sim)
{
	static const char *const head[] = { "stage", "chunk", "micro_batch",
		"pass", "start_s", "end_s" };
	char b[6][NUMFMT_LEN];
	const char *f[6];

	csvio_write_row(fp, head, 6);
	for (size_t i = 0; i < sim->nev; i++) {
		const struct pipe_event *e = &sim->ev[i];

		f[0] = numfmt(b[0], e->rank);
		f[1] = numfmt(b[1], e->chunk);
		f[2] = numfmt(b[2], (double)e->mb);
		f[3] = e->kind == PIPE_F ? "forward" : "backward";
		f[4] = numfmt(b[4], e->start_s);
		f[5] = numfmt(b[5], e->end_s);
		csvio_write_row(fp, f, 6);
	}
}

int
main(int argc, char *argv[])
{
	struct opts o;
	struct accel_cfg accel;
	struct network net;
	struct variants vs;
	struct plan p;
	struct plan_env env;
	struct plan_result r;
	struct pipe_costs c;
	struct pipe_order *orders;
	struct pipe_result sim;
	struct outfile out, tl;
	struct outfile *all[2] = { &out, &tl };
	struct pl_err err;
	int v;

	parse_args(argc, argv, &o);
	argc -= optind;
	argv += optind;
	if (outfile_open(&out, o.out, &err) < 0 ||
	    (o.timeline && outfile_open(&tl, o.timeline, &err) < 0))
		die_err(&err);
	if (accel_load(&accel, o.accel, &err) < 0 ||
	    network_load(&net, o.network, &err) < 0 ||
	    planio_read_variants(&vs, argv, (size_t)argc, &err) < 0)
		die_err(&err);
	if (o.devices > net.ndevices)
		die("%s: -N %ld: the network has %ld devices", o.network,
		    o.devices, net.ndevices);
	{
		char *aline = accel_config_line(&accel);

		for (size_t i = 0; i < vs.n; i++)
			if (layers_check_configs(&vs.g[i], NULL, NULL, aline,
			    o.accel, &err) < 0)
				die_err(&err);
		free(aline);
	}
	planio_env(&env, &net, &accel, &(struct price_opts){
	    .devices = o.devices, .global_batch = o.batch,
	    .memory_bytes = o.memory_bytes, .grad_bytes_per_param =
	    o.grad_bytes, .grad_copies = o.grad_copies, .optimizer =
	    o.optimizer, .p2p_scatter_gather = o.scatter_gather,
	    .tp_grad_blocking = o.tp_grad_blocking });
	if (planio_read_plan(o.plan, &vs, &p, &err) < 0)
		die_err(&err);
	if (plan_evaluate(&env, &p, &r, &err) < 0) {
		if (!err.file[0])
			snprintf(err.file, sizeof err.file, "%s", o.plan);
		die_err(&err);
	}
	for (int i = 0; i < p.nstages; i++)
		if (p.stage[i].z > 1)
			die("%s: stage %d has %ld ZeRO copies: pipesim "
			    "simulates plans without them", o.plan, i,
			    p.stage[i].z);
	v = p.v > 1 ? (int)p.v : 1;
	if (o.group && (v == 1 || !pipe_group_ok(p.nstages, r.m, o.group)))
		die("%s: -u %ld: a micro-batch group needs interleaving, p (%d) "
		    "to m (%ld) micro-batches and m's remainder 0 or at least p, "
		    "as Megatron-LM asserts", o.plan, o.group, p.nstages, r.m);
	if (o.gpipe && v > 1)
		die("%s: -s gpipe: the plan interleaves %d chunks a stage",
		    o.plan, v);
	/* Megatron-LM core_v0.15.0 overlaps the interleaved schedule's
	 * transfers (--no-overlap-p2p-communication turns it off) and has
	 * the non-interleaved 1F1B wait for them (arguments.py) */
	costs_of(&r, v, o.transfers ? o.transfers == 1 : v == 1, &c);
	orders = xcalloc((size_t)p.nstages, sizeof *orders);
	for (int i = 0; i < p.nstages; i++)
		if (v > 1)
			pipe_order_interleaved(p.nstages, v, i, r.m, o.group ?
			    o.group : p.nstages, &orders[i]);
		else if (o.gpipe)
			pipe_order_gpipe(p.nstages, 1, i, r.m, &orders[i]);
		else
			pipe_order_1f1b(p.nstages, i, r.m, &orders[i]);
	if (pipe_simulate(&c, orders, &sim, &err) < 0)
		die_err(&err);
	write_summary(out.fp, &r, &sim, v, env.memory_bytes);
	if (o.timeline)
		write_timeline(tl.fp, &sim);
	if (outfile_commit_all(all, o.timeline ? 2 : 1, &err) < 0)
		die_err(&err);
	for (int i = 0; i < p.nstages; i++)
		pipe_order_release(&orders[i]);
	free(orders);
	free((void *)c.fwd_s);
	free((void *)c.bwd_s);
	free((void *)c.transfer_s);
	pipe_result_release(&sim);
	plan_result_release(&r);
	free(p.stage);
	planio_release_variants(&vs);
	return 0;
}
