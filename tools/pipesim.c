/*
 * pipesim - one step of a plan simulated pass by pass: each micro-batch's
 * forward and backward pass (and, where the schedule splits it, its
 * weights' gradient) on every stage (and model chunk) in the order its
 * pipeline schedule runs them, each stage's exposed gradient reduction
 * after its own last backward pass; the step, every stage's busy and idle
 * time and the activations it holds at its peak, beside the closed forms
 * dpsolve -E prices (issue 35; the engine: lib/sim/pipeline.h;
 * docs/model.md, "Pipeline schedules, simulated").  Schedules: 1F1B,
 * GPipe, Megatron-LM's interleaving, ZB-H1, ZB-V, DualPipe, DualPipeV;
 * FSDP2's plans as torchtitan runs them (1F1B, Interleaved1F1B).
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

/* The schedules -s names, in its order. */
enum { PS_1F1B, PS_GPIPE, PS_ZBH1, PS_ZBV, PS_DUALPIPE,
	PS_DUALPIPEV, PS_N };
static const char *const sched_words[PS_N] = { "1f1b", "gpipe", "zbh1",
	"zbv", "dualpipe", "dualpipev" };

struct opts {
	const char *accel, *network, *plan, *out, *timeline;
	const char *stragglers;	/* -J: a table of devices' speeds */
	long devices, batch, group;
	double memory_bytes, grad_bytes, grad_copies;
	int optimizer, scatter_gather, tp_grad_blocking;
	int sched;		/* -s: PS_*; -1 as the plan runs: its
				 * schedule (zbh1, zbv, dualpipev), else
				 * Megatron-LM's 1F1B, interleaved or
				 * not */
	int transfers;		/* -x: 0 as Megatron runs it, 1 hold, 2
				 * overlap */
};

static void
usage(FILE *fp, int status)
{
	fprintf(fp, "usage: pipesim [-h] [-B batch] [-G megatron|torch] "
	    "[-J speeds.csv] [-M bytes] [-N devices] [-O adam|sgd] [-P on|off] "
	    "[-W async|blocking] [-g bf16|fp32] [-o file] "
	    "[-s 1f1b|gpipe|zbh1|dualpipe|zbv|dualpipev] "
	    "[-t timeline.csv] [-u group] [-x hold|overlap] "
	    "-a accelerator.xml -n network.xml "
	    "-p plan.xml graph.csv|index.csv ...\n");
	if (fp == stdout)
		fputs(
		    "  -a accelerator.xml  the device (required)\n"
		    "  -n network.xml      the network (required)\n"
		    "  -p plan.xml         the plan, as dpsolve writes it (required)\n"
		    "  graph.csv|index.csv the per-layer graphs the plan names\n"
		    "  -B, -G, -J, -M, -N, -O, -P, -W, -g  priced as dpsolve -E prices them (man dpsolve)\n"
		    "  -s schedule         without interleaving: 1f1b, gpipe, zbh1 or dualpipe; two chunks a\n"
		    "                      stage: zbv or dualpipev (default: the plan's own, 1F1B, Megatron's\n"
		    "                      interleaving or its schedule: zbh1, zbv, dualpipev)\n"
		    "  -u group            interleaved: micro-batches a group (Megatron's\n"
		    "                      --microbatch-group-size-per-virtual-pipeline-stage, default p)\n"
		    "  -x hold|overlap     a boundary's transfer holds its sender, or runs beside compute\n"
		    "                      (default: holds under 1f1b, gpipe and zbh1, beside compute otherwise)\n"
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
		{ "stragglers", required_argument, NULL, 'J' },
		{ NULL, 0, NULL, 0 }
	};
	int ch;

	memset(o, 0, sizeof *o);
	o->sched = -1;
	o->batch = 4096;
	o->grad_bytes = 4;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, ":B:G:J:M:N:O:P:W:a:g:hn:o:p:s:t:u:x:",
	    longopts, NULL)) != -1)
		switch (ch) {
		case 'B': o->batch = opt_long('B', optarg, 1, 1L << 40); break;
		case 'G':
			o->grad_copies = opt_word('G', optarg,
			    "megatron", "torch", usage) ? 2 : 1;
			break;
		case 'J': o->stragglers = optarg; break;
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
		case 's':
			for (o->sched = 0; o->sched < PS_N &&
			    strcmp(optarg, sched_words[o->sched]); o->sched++)
				;
			if (o->sched == PS_N) {
				warnx("-s: '%s' is not 1f1b, gpipe, zbh1, "
				    "dualpipe, zbv or dualpipev", optarg);
				usage(stderr, 2);
			}
			break;
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
		const char *in[4] = { o->accel, o->network, o->plan,
		    o->stragglers };

		if (stdin_count(in, 4) + stdin_count((const char *const *)
		    argv + optind, (size_t)(argc - optind)) > 1) {
			warnx("only one input can be '-' (standard input)");
			usage(stderr, 2);
		}
	}
}

/* Which plan stage a rank's chunk k runs: its own, a share of it a
 * chunk (Megatron's interleaving, the V schedules), or under DualPipe on
 * chunk 1 the mirror stage S - 1 - r, whole (DualPipe keeps two stages a
 * rank, its parameters twice over). */
static int
stage_of(int sched, int S, int r, int k)
{
	return sched == PS_DUALPIPE && k == 1 ? S - 1 - r : r;
}

/* One send's time across the boundary after stage i: the evaluator's
 * sends over their count (2 a boundary, 2 v interleaved, 2 (v - 1)
 * across the last stage's wrap to the first). */
static double
send_s(const struct plan_result *r, int i, int v)
{
	int S = r->nstages;

	return r->stage[i].p2p_out_s / (2.0 * (i + 1 < S ? v : v - 1));
}

/*
 * The plan's passes as the engine takes them under schedule sched
 * (-1: Megatron's interleaving): a stage's passes split alike over its
 * v chunks (DualPipe's two chunks a rank each a whole stage), each pass
 * with its collectives' share (what DualPipe's pairs hide) and its
 * weights' gradients' (what the zero-bubble schedules split off), and
 * each boundary's transfer one way on the link it crosses (a V's turn
 * on the last rank: none).  route and mb_route: room for the V's or
 * DualPipe's routes (2 S and m).
 */
static void
costs_of(const struct plan_result *r, int sched, int v, int hold,
    int *route, int *mb_route, struct pipe_costs *c)
{
	int S = r->nstages, chunks = sched == PS_DUALPIPE ? 2 : v;
	size_t n = (size_t)(S * chunks);
	double *f = xcalloc(n, sizeof *f), *b = xcalloc(n, sizeof *b);
	double *w = xcalloc(n, sizeof *w), *fc = xcalloc(n, sizeof *fc);
	double *bc = xcalloc(n, sizeof *bc), *x = xcalloc(n, sizeof *x);
	double share = sched == PS_DUALPIPE ? 1 : 1.0 / v;

	for (int i = 0; i < S; i++)
		for (int k = 0; k < chunks; k++) {
			const struct stage_cost *st =
			    &r->stage[stage_of(sched, S, i, k)];
			size_t at = (size_t)(i * chunks + k);

			f[at] = st->forward_s * share;
			b[at] = st->backward_s * share;
			w[at] = st->weight_gradient_s * share;
			fc[at] = st->forward_comm_s * share;
			bc[at] = st->backward_comm_s * share;
		}
	*c = (struct pipe_costs){ .S = S, .v = chunks, .m = r->m, .fwd_s = f,
	    .bwd_s = b, .transfer_s = x, .hold_sender = hold, .wgrad_s = w,
	    .fwd_comm_s = fc, .bwd_comm_s = bc };
	if (sched == PS_ZBV || sched == PS_DUALPIPEV) {
		pipe_route_v(S, route);
		for (int j = 0; j + 1 < 2 * S; j++)
			x[j] = j < S - 1 ? send_s(r, j, v) : j == S - 1 ? 0 :
			    send_s(r, 2 * S - 2 - j, v);
		c->route = route;
		c->nroute = 1;
		c->route_len = 2 * S;
	} else if (sched == PS_DUALPIPE) {
		/* route 1 goes up the ranks: its boundary j crosses the
		 * link after rank S - 2 - j */
		pipe_route_dual(S, r->m, route, mb_route);
		for (int j = 0; j + 1 < S; j++) {
			x[j] = send_s(r, j, 1);
			x[S - 1 + j] = send_s(r, S - 2 - j, 1);
		}
		c->route = route;
		c->mb_route = mb_route;
		c->nroute = 2;
		c->route_len = S;
	} else {
		for (int j = 0; j + 1 < S * v; j++)
			x[j] = send_s(r, j % S, v);
	}
}

static const char *const summary_head[] = { "stage", "first_device",
	"devices", "forward_s", "backward_s", "busy_s", "idle_s", "end_s",
	"sync_s", "peak_activation_chunks", "peak_memory_bytes",
	"closed_form_memory_bytes", "fits", "step_s", "closed_form_step_s" };
#define NSUMMARY (sizeof summary_head / sizeof summary_head[0])

/* A chunk's rows: the stage's, split alike over its chunks (DualPipe's
 * two chunks each a whole stage). */
static void
chunk_rows(const struct plan *p, int sched, int v, int r, int k,
    size_t *first, size_t *n)
{
	const struct plan_stage *st = &p->stage[stage_of(sched, p->nstages,
	    r, k)];
	size_t rows = st->last - st->first + 1;
	size_t per = sched == PS_DUALPIPE ? 1 : (size_t)v;

	if (sched == PS_DUALPIPE)
		k = 0;
	*first = st->first + (size_t)k * rows / per;
	*n = st->first + ((size_t)k + 1) * rows / per - *first;
}

/* Megatron's default bucket: max(40M, 1M x its data-parallel size, the
 * replicas and, splitting the samples, the expert ranks), parameters. */
static double
bucket_params(const struct plan *p)
{
	const struct layer_graph *g = p->g;
	double dp = (double)p->d * (double)layers_ep_samples(g);

	return fmax(40e6, 1e6 * dp);
}

/* The forward pass's share before point x of a chunk's rows (a row index
 * plus a share of the row), the rows' forward times fwd[0..n-1]. */
static double
share_before(const double *fwd, size_t n, double x)
{
	double sum = 0, before = 0;
	size_t i = 0;

	for (size_t j = 0; j < n; j++)
		sum += fwd[j];
	for (; i < n && (double)(i + 1) <= x; i++)
		before += fwd[i];
	if (i < n)
		before += (x - (double)i) * fwd[i];
	return sum > 0 ? fmin(1, before / sum) : fmin(1, x / (double)n);
}

/*
 * With --overlap-param-gather, each chunk's weight gather as Megatron-LM
 * core_v0.15.0 runs it (pipe_gather): the chunk's buckets as its buffers
 * form them (pipe_bucket_starts, the dense weights and the experts'
 * apart), where its first forward pass reaches each (its rows' forward
 * times), and each bucket's all-gather, half its group's all-reduce
 * latency and per byte (as stage_sync halves the gather) on the bytes
 * the stage gathers, in the bucket's share.  Interleaved, Megatron's
 * default --align-param-gather launches chunks 0 and 1 with the step and
 * chunk k >= 2 when rank r starts its forward pass (k - 1) group - r
 * (schedules.py, forward_step_helper); otherwise each bucket as the pass
 * has waited for the one before it (its forward pre-hook).  Without
 * --overlap-grad-reduce Megatron's DDP makes one bucket a buffer.  NULL
 * without the gather.  Free with free_gathers.
 */
static struct pipe_gather *
chunk_gathers(const struct plan *p, const struct plan_result *r, int sched,
    int v, long group)
{
	const struct layer_graph *g = p->g;
	int S = r->nstages, chunks = sched == PS_DUALPIPE ? 2 : v;
	struct pipe_gather *gat;
	double bucket = p->overlap_grad ? bucket_params(p) : 0;

	if (!p->distopt || !p->overlap_param)
		return NULL;
	gat = xcalloc((size_t)(S * chunks), sizeof *gat);
	for (int i = 0; i < S; i++)
		for (int k = 0; k < chunks; k++) {
			const struct stage_cost *sc =
			    &r->stage[stage_of(sched, S, i, k)];
			const struct plan_stage *st =
			    &p->stage[stage_of(sched, S, i, k)];
			struct pipe_gather *ga = &gat[i * chunks + k];
			double *prm, *fwd, *start[2], *size[2], *sh, *gs;
			double total[2] = { 0, 0 }, gathered[2];
			struct net_cost cost[2] = { sc->grad_dense_cost,
				sc->grad_expert_cost };
			size_t first, n, nb[2];
			int *kind;

			chunk_rows(p, sched, v, i, k, &first, &n);
			prm = xcalloc(3 * n, sizeof *prm);
			fwd = prm + 2 * n;
			for (size_t s = st->first; s <= st->last; s++) {
				total[0] += g->l[s].dense_parameter_bytes;
				total[1] += g->l[s].parameter_bytes -
				    g->l[s].dense_parameter_bytes;
			}
			gathered[0] = total[0] > 0 ? sc->gather_dense_bytes /
			    total[0] : 0;
			gathered[1] = total[1] > 0 ? sc->gather_expert_bytes /
			    total[1] : 0;
			for (size_t j = 0; j < n; j++) {
				const struct layer *L = &g->l[first + j];

				/* 2 bytes a parameter in the graph */
				prm[j] = L->dense_parameter_bytes / 2;
				prm[n + j] = (L->parameter_bytes -
				    L->dense_parameter_bytes) / 2;
				fwd[j] = L->forward_s;
			}
			for (int kd = 0; kd < 2; kd++)
				nb[kd] = pipe_bucket_starts(prm + (size_t)kd * n,
				    n, bucket, &start[kd], &size[kd]);
			ga->n = nb[0] + nb[1];
			sh = xcalloc(2 * ga->n + 1, sizeof *sh);
			gs = sh + ga->n;
			kind = xcalloc(ga->n + 1, sizeof *kind);
			/* the two kinds merged in the order the pass reaches
			 * them, the dense first at a tie */
			for (size_t a = 0, b = 0, e = 0; e < ga->n; e++) {
				int kd = b >= nb[1] || (a < nb[0] &&
				    start[0][a] <= start[1][b]) ? 0 : 1;
				size_t at = kd ? b++ : a++;

				sh[e] = share_before(fwd, n, start[kd][at]);
				gs[e] = 0.5 * (cost[kd].alpha_s +
				    cost[kd].beta_s_per_byte * 2 *
				    size[kd][at] * gathered[kd]);
				kind[e] = kd;
			}
			/* shares non-decreasing whatever the rounding */
			for (size_t e = 1; e < ga->n; e++)
				sh[e] = fmax(sh[e], sh[e - 1]);
			ga->share_before = sh;
			ga->gather_s = gs;
			ga->kind = kind;
			ga->dispatch = PIPE_GATHER_CHAIN;
			if (sched < 0 && v > 1) {
				ga->dispatch = k < 2 ? PIPE_GATHER_START :
				    PIPE_GATHER_AT;
				ga->at_forward = (long)(k - 1) * group - i;
			}
			for (int kd = 0; kd < 2; kd++) {
				free(start[kd]);
				free(size[kd]);
			}
			free(prm);
		}
	return gat;
}

static void
free_gathers(struct pipe_gather *gat, size_t n)
{
	for (size_t i = 0; gat && i < n; i++) {
		free((void *)gat[i].share_before);
		free((void *)gat[i].kind);
	}
	free(gat);
}

/*
 * Each rank's exposed sync after its last pass.  Without
 * --overlap-grad-reduce, the closed form's (its gradient reduction,
 * what the gather leaves exposed and the optimizer step, all after it).
 * With it, the reduction runs bucket by bucket as Megatron-LM's DDP
 * launches it (pipe_reduce_buckets): each chunk's buckets as the pass
 * that completes its gradients (its last backward pass, or W pass where
 * split) reaches their rows, the rank's dense and experts' buckets one
 * at a time; then the optimizer step and the gather.  Under DualPipe a
 * rank reduces and updates both its stages.  out[S].
 */
static void
rank_syncs(const struct plan *p, const struct plan_result *r,
    const struct pipe_result *sim, const struct plan_env *env, int sched,
    int v, double *out)
{
	const struct layer_graph *g = p->g;
	int S = r->nstages, chunks = sched == PS_DUALPIPE ? 2 : v;
	double gb = env->grad_bytes_per_param > 0 ?
	    env->grad_bytes_per_param : 2;
	double bucket = bucket_params(p);

	/* each chunk's last pass that makes gradients: its backward or W */
	const struct pipe_event **last_of = xcalloc((size_t)(S * chunks),
	    sizeof *last_of);

	for (size_t e = 0; e < sim->nev; e++) {
		const struct pipe_event *ev = &sim->ev[e];
		const struct pipe_event **at = &last_of[ev->rank * chunks +
		    ev->chunk];

		if (ev->kind != PIPE_F && (!*at || ev->end_s > (*at)->end_s))
			*at = ev;
	}
	for (int i = 0; i < S; i++) {
		struct pipe_grads *gr = xcalloc((size_t)(2 * chunks),
		    sizeof *gr);
		/* a chunk's rows: their shares of its pass, then their
		 * dense and their experts' parameters */
		double **rows = xcalloc((size_t)chunks, sizeof *rows);
		double after = 0, grad_s = 0;
		size_t ng = 0;

		for (int k = 0; k < chunks; k++) {
			const struct stage_cost *sc =
			    &r->stage[stage_of(sched, S, i, k)];
			const struct pipe_event *last = last_of[i * chunks + k];
			double *share, sum = 0;
			size_t first, n;

			/* a stage's own step once (DualPipe: both stages);
			 * the gather, overlapped, before the next step's
			 * first forward passes (chunk_gathers) */
			if (sched == PS_DUALPIPE || k == 0) {
				after += sc->optimizer_s + (p->overlap_param ?
				    0 : sc->param_exposed_s);
				grad_s += sc->grad_s;
			}
			if (!p->overlap_grad || !last)
				continue;
			chunk_rows(p, sched, v, i, k, &first, &n);
			share = rows[k] = xcalloc(3 * n, sizeof *share);
			for (size_t j = 0; j < n; j++) {
				const struct layer *L = &g->l[first + j];

				share[j] = last->kind == PIPE_W ?
				    L->weight_gradient_s : L->backward_s;
				sum += share[j];
				/* 2 bytes a parameter in the graph */
				share[n + j] = L->dense_parameter_bytes / 2;
				share[2 * n + j] = (L->parameter_bytes -
				    L->dense_parameter_bytes) / 2;
			}
			for (size_t j = 0; j < n; j++)
				share[j] = sum > 0 ? share[j] / sum :
				    1.0 / (double)n;
			for (int kind = 0; kind < 2; kind++) {
				struct net_cost cost = kind ?
				    sc->grad_expert_cost : sc->grad_dense_cost;

				gr[ng++] = (struct pipe_grads){ n,
				    share + (size_t)(kind + 1) * n, share,
				    last->start_s, last->end_s,
				    cost.alpha_s * sc->grad_scale,
				    cost.beta_s_per_byte * gb * sc->grad_scale };
			}
		}
		out[i] = p->overlap_grad ? fmax(sim->end_s[i],
		    pipe_reduce_buckets(gr, ng, bucket, 0)) - sim->end_s[i] +
		    after : grad_s + after;
		for (int k = 0; k < chunks; k++)
			free(rows[k]);
		free(rows);
		free(gr);
	}
	free(last_of);
}

/* The most model chunks a stage pipesim simulates under FSDP2. */
#define FSDP_CHUNKS_MAX 64

/*
 * FSDP2 kept gathered (docs/model.md, "FSDP2, simulated"): each chunk of
 * each rank a model part torchtitan shards apart, its units (a row each)
 * gathered on its first forward pass one ahead of the compute, as FSDP2's
 * pre-forward hooks issue them (PIPE_GATHER_CHAIN, one kind: the dense
 * and the experts' gathers share FSDP2's stream), each unit's gather
 * followed by its copy-out on the compute stream (pipe_gather.after_s),
 * the next unit's gather beside it: fsdp_chain_s's recurrence.  The
 * chunks as plan.c cuts a stage (plan_chunk_end).  Resharded plans (one
 * stage) have their waits inside their passes already: NULL.
 */
static struct pipe_gather *
fsdp_gathers(const struct plan *p, const struct plan_result *r,
    const struct plan_env *env, int v)
{
	const struct layer_graph *g = p->g;
	int S = r->nstages;
	struct pipe_gather *gat;

	if (p->fsdp != PLAN_FSDP_KEPT)
		return NULL;
	gat = xcalloc((size_t)(S * v), sizeof *gat);
	for (int i = 0; i < S; i++) {
		const struct plan_stage *st = &p->stage[i];
		size_t a = st->first;

		for (int k = 0; k < v && a <= st->last; k++) {
			size_t b = plan_chunk_end(g, p->ends_in_split,
			    st->first, st->last, v, a), n = b - a + 1;
			struct pipe_gather *ga = &gat[i * v + k];
			double *sh = xcalloc(3 * n + 1, sizeof *sh);
			double *gs = sh + n, *co = sh + 2 * n, sum = 0;
			double before = 0;

			for (size_t j = a; j <= b; j++)
				sum += g->l[j].forward_s;
			for (size_t j = 0; j < n; j++) {
				const struct layer *L = &g->l[a + j];
				/* torchao's float8 weights a byte each
				 * with its all-gather */
				double f8 = plan_fsdp_float8_saved(g, L,
				    p->fp8_param_gather), out, cast;

				plan_fsdp_copies_s(env, L->parameter_bytes -
				    f8, L->parameter_bytes, &out, &cast);
				sh[j] = sum > 0 ? fmin(1, before / sum) :
				    (double)j / (double)n;
				before += L->forward_s;
				gs[j] = plan_fsdp_gather_s(&r->stage[i].fsdp,
				    L->dense_parameter_bytes - f8,
				    L->parameter_bytes -
				    L->dense_parameter_bytes);
				co[j] = out;
			}
			ga->n = n;
			ga->share_before = sh;
			ga->gather_s = gs;
			ga->after_s = co;
			ga->kind = xcalloc(n + 1, sizeof *ga->kind);
			ga->dispatch = PIPE_GATHER_CHAIN;
			a = b + 1;
		}
	}
	return gat;
}

/*
 * Each rank's exposed sync after its last pass under FSDP2: resharded,
 * the optimizer step alone (every micro-batch reduces its own); kept, each
 * chunk's units cast into their reduce-scatters' fp32 input and reduce-
 * scattered (HSDP: then all-reduced) one after another from the end of
 * that chunk's own last backward pass, as PyTorch's pipelining runs its
 * REDUCE_GRAD action there, the chunks in the order they finish, then the
 * optimizer step.  An earlier chunk's casts run on the compute stream
 * beside the rank's later passes, which they do not delay here (2 bytes
 * a weight at the memory's bandwidth).  out[S].
 */
static void
fsdp_rank_syncs(const struct plan *p, const struct plan_result *r,
    const struct pipe_result *sim, const struct plan_env *env, int v,
    double *out)
{
	const struct layer_graph *g = p->g;
	int S = r->nstages;
	double *last_end = xcalloc((size_t)(S * v), sizeof *last_end);

	for (size_t e = 0; e < sim->nev; e++) {
		const struct pipe_event *ev = &sim->ev[e];
		double *at = &last_end[ev->rank * v + ev->chunk];

		if (ev->kind != PIPE_F)
			*at = fmax(*at, ev->end_s);
	}
	for (int i = 0; i < S; i++) {
		const struct plan_stage *st = &p->stage[i];
		const struct stage_cost *sc = &r->stage[i];
		double rs = 0, cast[FSDP_CHUNKS_MAX], red[FSDP_CHUNKS_MAX];
		double ends[FSDP_CHUNKS_MAX];
		int order[FSDP_CHUNKS_MAX], nk = 0;
		size_t a = st->first;

		out[i] = sc->optimizer_s;
		if (p->fsdp != PLAN_FSDP_KEPT)
			continue;
		for (int k = 0; k < v && k < FSDP_CHUNKS_MAX && a <= st->last;
		    k++) {
			size_t b = plan_chunk_end(g, p->ends_in_split,
			    st->first, st->last, v, a);

			cast[k] = red[k] = 0;
			for (size_t j = a; j <= b; j++) {
				const struct layer *L = &g->l[j];
				double co, ca;

				plan_fsdp_copies_s(env, L->parameter_bytes,
				    L->parameter_bytes, &co, &ca);
				cast[k] += ca;
				red[k] += plan_fsdp_reduce_s(&sc->fsdp,
				    L->dense_parameter_bytes,
				    L->parameter_bytes -
				    L->dense_parameter_bytes);
			}
			ends[k] = last_end[i * v + k];
			order[nk++] = k;
			a = b + 1;
		}
		/* the chunks in the order their last backward passes end */
		for (int x = 1; x < nk; x++)
			for (int y = x; y > 0 && ends[order[y]] <
			    ends[order[y - 1]]; y--) {
				int t = order[y];

				order[y] = order[y - 1];
				order[y - 1] = t;
			}
		for (int x = 0; x < nk; x++) {
			int k = order[x];

			rs = fmax(rs, ends[k] + cast[k]) + red[k];
		}
		out[i] += fmax(sim->end_s[i], rs) - sim->end_s[i];
	}
	free(last_end);
}

/* A rank's memory at its simulated peak: its stage's weights, gradients
 * and optimizer states (DualPipe: its two stages'), the working set, and
 * what each chunk-micro-batch held beyond the first keeps (held: in
 * stages' worth; DualPipe's larger of the two). */
static double
rank_peak_bytes(const struct plan_result *r, int sched, int i, double held)
{
	const struct mem_breakdown *m = &r->stage[i].mem, *o = m;
	double fixed = m->weights + m->gradients + m->optimizer;

	if (sched == PS_DUALPIPE) {
		o = &r->stage[r->nstages - 1 - i].mem;
		fixed += o->weights + o->gradients + o->optimizer;
	}
	return fixed + fmax(m->activations, o->activations) + (held - 1) *
	    fmax(m->kept, o->kept) + m->pair_layer;
}

/* idle_s: the step less the stage's passes and its exposed reduction;
 * fits: its simulated peak within the memory cap (-M, or the device
 * less its reserve) */
static void
write_summary(FILE *fp, const struct plan_result *r,
    const struct pipe_result *sim, const double *syncs, int sched, int v,
    double cap)
{
	int S = r->nstages;
	const double *end = sim->end_s;
	double step = 0;

	for (int i = 0; i < S; i++)
		step = fmax(step, end[i] + syncs[i]);
	csvio_write_row(fp, summary_head, NSUMMARY);
	for (int i = 0; i < S; i++) {
		const struct stage_cost *s = &r->stage[i];
		char b[NSUMMARY][NUMFMT_LEN];
		const char *f[NSUMMARY];
		double sync = syncs[i];
		double held = (double)sim->peak_chunks[i] /
		    (sched == PS_DUALPIPE ? 1 : v);
		double peak = rank_peak_bytes(r, sched, i, held);
		double vals[NSUMMARY] = { i, (double)s->first_device,
			(double)s->devices, s->forward_s, s->backward_s,
			sim->busy_s[i], step - sim->busy_s[i] - sync,
			end[i], sync, (double)sim->peak_chunks[i], peak,
			s->mem.total, 0, step, r->step_s };

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
		"pass", "start_s", "end_s", "overlapped" };
	static const char *const pass[] = { "forward", "backward", "weight" };
	char b[7][NUMFMT_LEN];
	const char *f[7];

	csvio_write_row(fp, head, 7);
	for (size_t i = 0; i < sim->nev; i++) {
		const struct pipe_event *e = &sim->ev[i];

		f[0] = numfmt(b[0], e->rank);
		f[1] = numfmt(b[1], e->chunk);
		f[2] = numfmt(b[2], (double)e->mb);
		f[3] = pass[e->kind];
		f[4] = numfmt(b[4], e->start_s);
		f[5] = numfmt(b[5], e->end_s);
		f[6] = e->paired ? "1" : "0";
		csvio_write_row(fp, f, 7);
	}
}

/*
 * Whether the plan runs under the schedule asked for: 1F1B, GPipe, ZB-H1
 * and DualPipe one chunk a stage, ZB-V and DualPipeV two (a plan of v 2),
 * micro-batch groups only with Megatron's interleaving; the split
 * schedules need the graphs' weight_gradient_s; DualPipe(V) needs the
 * micro-batches its repository asserts.
 */
static void
check_schedule(const struct opts *o, const struct plan *p, long m, int v)
{
	int sched = o->sched, S = p->nstages;

	if (o->group && (v == 1 || sched >= 0 || !pipe_group_ok(S, m,
	    o->group)))
		die("%s: -u %ld: a micro-batch group needs Megatron's "
		    "interleaving, p (%d) to m (%ld) micro-batches and m's "
		    "remainder 0 or at least p, as Megatron-LM asserts",
		    o->plan, o->group, S, m);
	if (sched < 0)
		return;
	if ((sched == PS_ZBV || sched == PS_DUALPIPEV) ? v != 2 : v != 1)
		die("%s: -s %s runs %s a stage; the plan has %d", o->plan,
		    sched_words[sched], sched == PS_ZBV || sched ==
		    PS_DUALPIPEV ? "two model chunks (v 2)" : "one model "
		    "chunk", v);
	if (sched >= PS_ZBH1 && !p->g->has_wgrad)
		die("%s: no weight_gradient_s column: -s %s splits the "
		    "backward pass by it (graph-normalize -c model.xml writes "
		    "it)",
		    p->g->file, sched_words[sched]);
	if ((sched == PS_DUALPIPE || sched == PS_DUALPIPEV) &&
	    !pipe_dualpipe_ok(S, m, sched == PS_DUALPIPE))
		die("%s: -s %s: %d stages and %ld micro-batches; it needs at "
		    "least twice as many micro-batches as ranks%s", o->plan,
		    sched_words[sched], S, m, sched == PS_DUALPIPE ?
		    ", both even" : "");
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
	struct pipe_gather *gathers;
	struct pipe_result sim;
	struct outfile out, tl;
	struct outfile *all[2] = { &out, &tl };
	struct pl_err err;
	int v, sched, *route, *mb_route;
	double *syncs, factor = 0;	/* -J's device factor */

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
	if (o.stragglers && planio_stragglers(&vs, o.stragglers, env.devices,
	    &factor, &err) < 0)
		die_err(&err);
	if (planio_read_plan(o.plan, &vs, &p, &err) < 0)
		die_err(&err);
	planio_straggler_note(o.plan, &p, factor, env.devices);
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
	/* Megatron-Core's combined 1F1B: its own order alone */
	if (p.ep_overlap && o.sched >= 0)
		die("%s: ep_overlap: Megatron-Core's combined 1F1B runs its "
		    "own order (interleaved 1F1B's with its pairs merged), no "
		    "other -s", o.plan);
	v = p.v > 1 ? (int)p.v : 1;
	/* FSDP2: torchtitan's 1F1B, interleaved or not (its groups of S,
	 * Megatron's order), and the plan's ZBVZeroBubble or DualPipeV */
	if (p.fsdp && (p.schedule != PLAN_1F1B ? o.sched >= 0 &&
	    o.sched != (p.schedule == PLAN_ZBV ? PS_ZBV : PS_DUALPIPEV) :
	    o.sched >= 0 ? o.sched != PS_1F1B || v > 1 : o.group > 0 &&
	    o.group != p.nstages))
		die("%s: fsdp %d: FSDP2 plans run torchtitan's 1F1B, "
		    "Interleaved1F1B (its rounds of p micro-batches) or the "
		    "plan's zero-bubble V, no other -s or -u", o.plan, p.fsdp);
	if (p.fsdp && v > FSDP_CHUNKS_MAX)
		die("%s: fsdp %d: %d model chunks a stage; pipesim simulates "
		    "FSDP2 on %d at most", o.plan, p.fsdp, v, FSDP_CHUNKS_MAX);
	/* a plan searched under a split schedule (dpsolve -Y) runs it
	 * unless told */
	if (o.sched < 0 && p.schedule != PLAN_1F1B)
		o.sched = p.schedule == PLAN_ZBH1 ? PS_ZBH1 : p.schedule ==
		    PLAN_ZBV ? PS_ZBV : PS_DUALPIPEV;
	check_schedule(&o, &p, r.m, v);
	sched = o.sched >= 0 ? o.sched : v > 1 ? -1 : PS_1F1B;
	route = xcalloc((size_t)(2 * p.nstages), sizeof *route);
	mb_route = xcalloc((size_t)r.m, sizeof *mb_route);
	/* Megatron-LM core_v0.15.0 overlaps the interleaved schedule's
	 * transfers (--no-overlap-p2p-communication turns it off) and has
	 * the non-interleaved 1F1B wait for them (arguments.py); ZB-H1 is
	 * the authors' patch of the latter, the V and DualPipe schedules
	 * overlap theirs */
	costs_of(&r, sched, v, o.transfers ? o.transfers == 1 : sched ==
	    PS_1F1B || sched == PS_GPIPE || sched == PS_ZBH1, route,
	    mb_route, &c);
	orders = xcalloc((size_t)p.nstages, sizeof *orders);
	/* the combined 1F1B's pairs: each chunk's share of its stage's
	 * saving */
	if (p.ep_overlap) {
		size_t n = (size_t)p.nstages * (size_t)v;
		double *save = xcalloc(n, sizeof *save);

		for (size_t k = 0; k < n; k++)
			save[k] = r.stage[k / (size_t)v].ep_pair_save_s / v;
		c.pair_save_s = save;
	}
	for (int i = 0; i < p.nstages; i++)
		if (p.ep_overlap)
			pipe_order_combined(p.nstages, v, i, r.m, o.group ?
			    o.group : p.nstages, &orders[i]);
		else switch (sched) {
		case -1:
			pipe_order_interleaved(p.nstages, v, i, r.m, o.group ?
			    o.group : p.nstages, &orders[i]);
			break;
		case PS_GPIPE:
			pipe_order_gpipe(p.nstages, 1, i, r.m, &orders[i]);
			break;
		case PS_ZBH1:
			pipe_order_zbh1(p.nstages, i, r.m, &orders[i]);
			break;
		case PS_ZBV:
			pipe_order_zbv(p.nstages, i, r.m, &orders[i]);
			break;
		case PS_DUALPIPE:
			pipe_order_dualpipe(p.nstages, i, r.m, &orders[i]);
			break;
		case PS_DUALPIPEV:
			pipe_order_dualpipev(p.nstages, i, r.m, &orders[i]);
			break;
		default:
			pipe_order_1f1b(p.nstages, i, r.m, &orders[i]);
		}
	gathers = p.fsdp ? fsdp_gathers(&p, &r, &env, v) : chunk_gathers(&p,
	    &r, sched, v, o.group ? o.group : p.nstages);
	c.gather = gathers;
	if (pipe_simulate(&c, orders, &sim, &err) < 0)
		die_err(&err);
	syncs = xcalloc((size_t)p.nstages, sizeof *syncs);
	if (p.fsdp)
		fsdp_rank_syncs(&p, &r, &sim, &env, v, syncs);
	else
		rank_syncs(&p, &r, &sim, &env, sched, v, syncs);
	write_summary(out.fp, &r, &sim, syncs, sched, v, env.memory_bytes);
	free(syncs);
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
	free((void *)c.wgrad_s);
	free((void *)c.fwd_comm_s);
	free((void *)c.bwd_comm_s);
	free((void *)c.pair_save_s);
	free(route);
	free(mb_route);
	free_gathers(gathers, (size_t)p.nstages * (size_t)(sched ==
	    PS_DUALPIPE ? 2 : v));
	pipe_result_release(&sim);
	plan_result_release(&r);
	free(p.stage);
	planio_release_variants(&vs);
	return 0;
}
