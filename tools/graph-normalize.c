/*
 * graph-normalize - operator graph -> per-layer graph (and layer edges).
 *
 * Analytic path (the default): the model config's operator graph for one
 * variant (lib/analytic.c).  Profiled path: the directory of one graph of
 * the paper's artifact export (ops.csv, op_edges.csv, fused_edges.csv).
 * Summary (-s): one row per model config, results/models.csv.  Formats are
 * in docs/formats.md.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "base/csvio.h"
#include "base/util.h"
#include "graph/analytic.h"
#include "graph/opgraph.h"
#include "model/config.h"

struct opts {
	const char *accel, *model, *edges, *out, *ops, *dir;
	long nlayers;
	int timing, summary;
	int ep;			/* -V ep=: EP_FOLD, EP_BATCH or both (-D) */
	struct variant v;
	struct sched_opts sched;
	/* the configs loaded from -c and -a (NULL: not given), recorded in
	 * every graph written */
	const struct model_cfg *mcfg;
	const struct accel_cfg *acfg;
};

/* Record in a graph the model and the accelerator it is built from. */
static void
record_configs(const struct opts *o, struct layer_graph *lg)
{
	if (o->mcfg) {
		lg->model = xstrdup(o->mcfg->name);
		lg->model_config = model_config_line(o->mcfg);
	}
	if (o->acfg) {
		lg->accel = xstrdup(o->acfg->name);
		lg->accel_config = accel_config_line(o->acfg);
	}
}

static void
usage(FILE *fp, int status)
{
	fprintf(fp, "usage: graph-normalize [-hv] [-a accelerator.xml] "
	    "[-c model.xml] [-e edges.csv] [-n layers] [-O ops.csv] [-o file] "
	    "[-T seconds] [-t sequential|ilp] [-V variant] [-w model.lp] "
	    "[graph-dir]\n"
	    "       graph-normalize -D dir -a accelerator.xml -c model.xml "
	    "[-V b=,t=,c=,ep=,fp8=,attn=] [-o index.csv]\n"
	    "       graph-normalize -s [-o file] model.xml ...\n");
	usage_exit(fp, status);
}

/*
 * A single graph's outputs: the per-layer graph (-o), its edges (-e), the
 * operator CSV (-O) and the ILP model (-w, which GLPK writes by name: it
 * is given the temporary file), opened before any work, so that a path
 * that cannot be written stops the run before the ILP, and put in place
 * together: all or none.
 */
struct outputs {
	struct outfile out, edges, ops, lp;
	struct outfile *all[4];
	size_t n;
};

static int
outputs_add(struct outputs *w, struct outfile *f, const char *path,
    struct pl_err *err)
{
	if (outfile_open(f, path, err) < 0)
		return -1;
	w->all[w->n++] = f;
	return 0;
}

static int
outputs_open(struct outputs *w, struct opts *o, int with_lp,
    struct pl_err *err)
{
	memset(w, 0, sizeof *w);
	if (outputs_add(w, &w->out, o->out, err) < 0 ||
	    (o->edges && outputs_add(w, &w->edges, o->edges, err) < 0) ||
	    (o->ops && outputs_add(w, &w->ops, o->ops, err) < 0) ||
	    (with_lp && o->sched.lp_file && outputs_add(w, &w->lp,
	    o->sched.lp_file, err) < 0)) {
		for (size_t i = 0; i < w->n; i++)
			outfile_abort(w->all[i]);
		return -1;
	}
	if (w->lp.tmp)
		o->sched.lp_file = w->lp.tmp;
	return 0;
}

static void
outputs_abort(struct outputs *w)
{
	for (size_t i = 0; i < w->n; i++)
		outfile_abort(w->all[i]);
}

/*
 * A graph its own readers would refuse is not written: every number of
 * every row within the readers' 10^18 (a model of hidden size 2^30, or an
 * operator of 10^18 parameters, gives more bytes than that).
 */
static int
check_range(const char *source, const struct layer_graph *lg,
    struct pl_err *err)
{
	for (size_t i = 0; i < lg->n; i++) {
		const struct layer *l = &lg->l[i];
		const double v[] = { l->forward_s, l->backward_s,
			l->parameter_bytes, l->activation_bytes, l->input_bytes,
			l->checkpoint_bytes, l->selective_bytes };
		static const char *const name[] = { "forward_s", "backward_s",
			"parameter_bytes", "activation_bytes", "input_bytes",
			"checkpoint_bytes", "selective_bytes" };
		double coll = 0;

		for (int k = 0; k < LCOLL_N; k++)
			coll = fmax(coll, l->coll_bytes[k]);
		for (size_t k = 0; k < sizeof v / sizeof v[0]; k++)
			if (!(v[k] <= PL_NUMBER_MAX))
				return pl_errf(err, source, 0, "layer %ld: %s "
				    "%g is above %g: too large a model to "
				    "plan", l->id, name[k], v[k],
				    PL_NUMBER_MAX);
		if (!(coll <= PL_NUMBER_MAX))
			return pl_errf(err, source, 0, "layer %ld: collective "
			    "bytes %g are above %g: too large a model to plan",
			    l->id, coll, PL_NUMBER_MAX);
	}
	return 0;
}

/* Write the per-layer graph, its edges and the operator CSV; commit all. */
static int
write_all(const struct opts *o, struct outputs *w, const char *source,
    const struct layer_graph *lg, const struct aop_graph *ag,
    struct pl_err *err)
{
	struct stat st;

	if (check_range(source, lg, err) < 0) {
		outputs_abort(w);
		return -1;
	}

	layers_write(w->out.fp, o->edges ? w->edges.fp : NULL, lg);
	if (o->ops)
		analytic_write_ops(w->ops.fp, ag);
	/* no block needed the ILP: no model to write, and no empty file */
	if (w->lp.tmp && stat(w->lp.tmp, &st) == 0 && st.st_size == 0) {
		outfile_abort(&w->lp);
		w->n--;
	}
	return outfile_commit_all(w->all, w->n, err);
}

static int
run_profiled(struct opts *o, const char *dir, struct pl_err *err)
{
	struct opgraph g;
	struct layer_graph lg;
	struct outputs w;
	int ret = -1;

	if (outputs_open(&w, o, 1, err) < 0)
		return -1;
	if (opgraph_read_artifact(&g, dir, err) < 0) {
		outputs_abort(&w);
		return -1;
	}
	if (opgraph_to_layers(&g, o->nlayers, o->timing, &o->sched, &lg,
	    err) == 0) {
		lg.model_layers = o->nlayers;	/* 0: the trace's own */
		record_configs(o, &lg);
		ret = write_all(o, &w, dir, &lg, NULL, err);
		layers_release(&lg);
	} else
		outputs_abort(&w);
	opgraph_release(&g);
	return ret;
}

static int
run_analytic(struct opts *o, const struct model_cfg *m,
    const struct accel_cfg *a, struct pl_err *err)
{
	struct aop_graph ag;
	struct layer_graph lg;
	struct outputs w;
	int ret;

	if (outputs_open(&w, o, 0, err) < 0)
		return -1;
	if (analytic_build(m, a, &o->v, &ag, err) < 0) {
		outputs_abort(&w);
		return -1;
	}
	analytic_layers(&ag, &lg);
	lg.model_layers = m->layers;
	record_configs(o, &lg);
	ret = write_all(o, &w, o->model, &lg, &ag, err);
	layers_release(&lg);
	analytic_release(&ag);
	return ret;
}

/* The micro-batch sizes -D writes when -V does not set one. */
#define MBS_SEARCHED { 1, 2, 4, 8 }

/*
 * -D: every variant the planner considers, one per-layer graph each in
 * `dir`, and the index of them (the -o file) written last.
 */
static int
run_variants(const struct opts *o, const struct model_cfg *m,
    const struct accel_cfg *a, struct pl_err *err)
{
	static const char *const head[] = {
		"file", "t", "e", "c", "sp", "micro_batch_samples", "width",
		"ep_batch", "expert_t", "fp8_recipe", "ep_fold"
	};
	size_t ncols = 7;
	static const long searched[] = MBS_SEARCHED;
	/* a folder's variants at most (each a graph file), and room for
	 * their FP8 twins */
	enum { MAX_VARIANTS = 1024 };
	static struct variant v[2 * MAX_VARIANTS];
	size_t n = 0, nb = o->v.b ? 1 : sizeof searched / sizeof searched[0];
	struct outfile idx;

	/* one micro-batch size when -V b= says, else each of MBS_SEARCHED
	 * that leaves the model a variant: dpsolve searches them jointly */
	for (size_t k = 0; k < nb; k++) {
		long b = o->v.b ? o->v.b : searched[k];

		n += analytic_variants(m, b, o->v.t, o->v.c, o->ep,
		    v + (n < MAX_VARIANTS ? n : MAX_VARIANTS), n < MAX_VARIANTS ?
		    MAX_VARIANTS - n : 0);
	}
	if (n > MAX_VARIANTS)
		return pl_errf(err, NULL, 0, "model '%s': %zu variants, more "
		    "than %d%s", m->name, n, MAX_VARIANTS, o->v.b ? "" :
		    " (-V b=B: one micro-batch size a folder)");
	/* -V attn=K: every variant's attention that kernel's */
	for (size_t i = 0; i < n; i++)
		v[i].attn = o->v.attn;
	/* -V fp8=R: each variant in bf16 and again in FP8 under R, the
	 * search choosing between them */
	if (o->v.fp8 != FP8_NONE) {
		for (size_t i = 0; i < n; i++) {
			v[n + i] = v[i];
			v[n + i].fp8 = o->v.fp8;
		}
		n *= 2;
	}
	/* the ep_batch column only where a batch split is listed, expert_t
	 * (and ep_batch before it) where whole experts are: other indexes
	 * stay as they were */
	for (size_t i = 0; i < n; i++) {
		if (v[i].ep_batch && ncols < 8)
			ncols = 8;
		if (v[i].et != v[i].t && ncols < 9)
			ncols = 9;
		if (v[i].fp8 != FP8_NONE && ncols < 10)
			ncols = 10;
		if (variant_ep_fold(&v[i]) > 1 && v[i].ep_batch)
			ncols = 11;
	}
	/* the folder is made if it is missing (one level, like mkdir) */
	if (mkdir(o->dir, 0777) < 0 && errno != EEXIST)
		return pl_errf(err, o->dir, 0, "cannot create folder: %s",
		    strerror(errno));
	if (outfile_open(&idx, o->out, err) < 0)
		return -1;
	csvio_write_row(idx.fp, head, ncols);
	for (size_t i = 0; i < n; i++) {
		struct opts one = *o;
		char name[96], path[4096], b[9][NUMFMT_LEN], et[24] = "";
		char fold[24] = "";
		const char *f[11];

		if (v[i].et != v[i].t)
			snprintf(et, sizeof et, "-et%ld", v[i].et);
		if (v[i].ep_batch && variant_ep_fold(&v[i]) > 1)
			snprintf(fold, sizeof fold, "-fold%ld",
			    variant_ep_fold(&v[i]));
		snprintf(name, sizeof(name), "b%ld-t%ld-sp%d-e%ld-c%ld%s%s%s%s.csv",
		    v[i].b, v[i].t, v[i].sp, v[i].e, v[i].c,
		    v[i].ep_batch ? "-epb" : "", fold, et, v[i].fp8 ? "-fp8" :
		    "");
		snprintf(path, sizeof(path), "%s/%s", o->dir, name);
		one.out = path;
		one.v = v[i];
		if (run_analytic(&one, m, a, err) < 0) {
			outfile_abort(&idx);
			return -1;
		}
		f[0] = name;
		f[1] = numfmt(b[0], (double)v[i].t);
		f[2] = numfmt(b[1], (double)v[i].e);
		f[3] = numfmt(b[2], (double)v[i].c);
		f[4] = numfmt(b[3], (double)v[i].sp);
		f[5] = numfmt(b[4], (double)v[i].b);
		f[6] = numfmt(b[5], (double)(v[i].t * v[i].e * v[i].c));
		f[7] = numfmt(b[6], (double)v[i].ep_batch);
		f[8] = numfmt(b[7], (double)v[i].et);
		f[9] = fp8_recipe_words[v[i].fp8];
		f[10] = numfmt(b[8], (double)(v[i].ep_batch ?
		    variant_ep_fold(&v[i]) : 1));
		csvio_write_row(idx.fp, f, ncols);
	}
	return outfile_commit(&idx, err);
}

/*
 * results/models.csv: per model the closed-form parameter count, the
 * analytic graph's (they must agree), the parameters a token uses in
 * the main model (its top_k routed experts') and the multi-token
 * prediction modules' share
 * of the count, and at b = 1, t = 1 the forward
 * FLOPs per token of the whole model and one transformer layer's
 * activation bytes.
 */
static int
run_summary(const struct opts *o, char **models, int n, struct pl_err *err)
{
	static const char *const head[] = {
		"model", "parameters", "graph_parameters", "active_parameters",
		"mtp_parameters", "layers", "hidden",
		"heads", "kv_heads", "head_dim", "ffn_hidden", "experts",
		"top_k", "seq_len", "flops_per_token_fwd",
		"activation_bytes_per_layer"
	};
	struct variant one = { 1, 1, 1, 0, 1, 0, 1, FP8_NONE, 0, ATTN_FUSED };
	struct outfile out;

	if (outfile_open(&out, o->out, err) < 0)
		return -1;
	enum { NCOLS = sizeof head / sizeof *head };
	csvio_write_row(out.fp, head, NCOLS);
	for (int i = 0; i < n; i++) {
		struct model_cfg m;
		struct aop_graph ag;
		double params = 0, flops = 0, act = 0;
		char b[NCOLS][NUMFMT_LEN];
		const char *f[NCOLS];
		int c = 0;

		if (model_load(&m, models[i], err) < 0 ||
		    analytic_build(&m, NULL, &one, &ag, err) < 0) {
			outfile_abort(&out);
			return -1;
		}
		for (size_t k = 0; k < ag.n; k++) {
			params += ag.op[k].parameter_bytes / 2;
			flops += ag.op[k].fwd_flops;
			if (ag.op[k].layer == 0)
				act += ag.op[k].activation_bytes;
		}
		analytic_release(&ag);
		f[c++] = m.name;
#define NUM(x) (f[c] = numfmt(b[c], (x)), c++)
		NUM(model_parameters(&m));
		NUM(params);
		NUM(model_active_parameters(&m));
		NUM(model_mtp_parameters(&m));
		NUM((double)m.layers);
		NUM((double)m.hidden);
		NUM((double)m.heads);
		NUM((double)m.kv_heads);
		NUM((double)m.head_dim);
		NUM((double)m.ffn_hidden);
		NUM((double)m.experts);
		NUM((double)m.top_k);
		NUM((double)m.seq_len);
		NUM(flops / (double)m.seq_len);
		NUM(act);
#undef NUM
		csvio_write_row(out.fp, f, NCOLS);
	}
	return outfile_commit(&out, err);
}

/* -V t=8,sp=1,e=1,c=1,b=1,ep=fold (any subset, any order, each once);
 * ep is fold, batch or (for -D) both; fold= a batch split's ranks over a
 * sequence; attn= the fused attention kernel (fused or fa2, every graph
 * of a -D folder alike). */
static void
parse_variant(const char *arg, struct variant *v, int *ep)
{
	static const char *const keys[] = { "t", "e", "c", "b", "sp", "ep",
		"et", "fp8", "fold", "attn" };
	enum { NKEYS = sizeof keys / sizeof *keys };
	long *dst[NKEYS] = { &v->t, &v->e, &v->c, &v->b, NULL, NULL, &v->et,
		NULL, &v->ep_fold, NULL };
	char *copy = xstrdup(arg), *tok = copy, *next;
	unsigned seen = 0;

	do {
		char *eq;
		int k = 0;

		/* fields one by one: an empty one (",,") is an error */
		if ((next = strchr(tok, ',')) != NULL)
			*next++ = '\0';
		if ((eq = strchr(tok, '=')) == NULL)
			goto bad;
		*eq++ = '\0';
		while (k < NKEYS && strcmp(tok, keys[k]) != 0)
			k++;
		if (k == NKEYS)
			goto bad;
		if (seen & 1u << k) {
			warnx("-V: '%s' given twice in '%s'", keys[k], arg);
			free(copy);
			usage(stderr, 2);
		}
		seen |= 1u << k;
		if (dst[k])
			*dst[k] = opt_long('V', eq, 1, 1L << 20);
		else if (k == 4)
			v->sp = (int)opt_long('V', eq, 0, 1);
		else if (k == 7) {
			int r = fp8_recipe_of(eq);

			if (r <= FP8_NONE) {
				warnx("-V: fp8=%s is not delayed, tensorwise, "
				    "blockwise, mxfp8, float8 or float8-tp",
				    eq);
				free(copy);
				usage(stderr, 2);
			}
			v->fp8 = r;
		} else if (k == 9) {
			if ((v->attn = attention_kernel_of(eq)) < 0) {
				warnx("-V: attn=%s is not fused or fa2", eq);
				free(copy);
				usage(stderr, 2);
			}
		} else if (strcmp(eq, "fold") == 0)
			*ep = EP_FOLD;
		else if (strcmp(eq, "batch") == 0)
			*ep = EP_BATCH;
		else if (strcmp(eq, "both") == 0)
			*ep = EP_FOLD | EP_BATCH;
		else {
			warnx("-V: ep=%s is not fold, batch or both", eq);
			free(copy);
			usage(stderr, 2);
		}
	} while ((tok = next) != NULL);
	free(copy);
	return;
bad:
	warnx("-V: '%s' is not a list of t=, e=, c=, sp=, b=, ep=, et=, fp8=, "
	    "fold= or attn= settings",
	    arg);
	free(copy);
	usage(stderr, 2);
}

int
main(int argc, char *argv[])
{
	struct opts o;
	struct model_cfg m;
	struct accel_cfg a;
	struct pl_err err;
	unsigned char seen[OPT_SEEN_MAX] = { 0 };
	int ch, k;

	memset(&o, 0, sizeof(o));
	o.timing = LAYER_TIME_SEQUENTIAL;
	o.sched.time_limit_s = 60;
	/* t and c: 0 until set (-D reads them as maxima); b: 0 until set
	 * (-D then writes every micro-batch size of MBS_SEARCHED) */
	o.v.e = 1;
	if (wants_help(argc, argv))
		usage(stdout, 0);
	opterr = 0;
	while ((ch = getopt(argc, argv, ":D:O:T:V:a:c:e:hn:o:st:vw:")) != -1) {
		if (ch > 0 && ch < OPT_SEEN_MAX)
			seen[ch] = 1;
		switch (ch) {
		case 'D': o.dir = optarg; break;
		case 'O': o.ops = optarg; break;
		case 'V': parse_variant(optarg, &o.v, &o.ep); break;
		case 's': o.summary = 1; break;
		case 'T': o.sched.time_limit_s = opt_double('T', optarg, 0.001,
		    1e6); break;
		case 'a': o.accel = optarg; break;
		case 'c': o.model = optarg; break;
		case 'e': o.edges = optarg; break;
		case 'h': usage(stdout, 0); break;
		case 'n': o.nlayers = opt_long('n', optarg, 1, 100000); break;
		case 'o': o.out = optarg; break;
		case 't':
			if ((k = opt_one_of('t', optarg, "sequential", "ilp")) < 0)
				usage(stderr, 2);
			o.timing = k ? LAYER_TIME_ILP : LAYER_TIME_SEQUENTIAL;
			break;
		case 'v': o.sched.verbose = 1; break;
		case 'w': o.sched.lp_file = optarg; break;
		default: bad_option(ch); usage(stderr, 2);
		}
	}
	argc -= optind;
	argv += optind;
	if (o.summary) {
		if ((k = opt_first_outside(seen, "ho" "s")) != 0) {
			warnx("-%c: not with -s (a summary takes -o alone)", k);
			usage(stderr, 2);
		}
		if (argc < 1) {
			warnx("-s needs at least one model.xml");
			usage(stderr, 2);
		}
		if (run_summary(&o, argv, argc, &err) < 0)
			die_err(&err);
		return 0;
	}
	if (argc > 1) {
		warnx("one graph-dir at most");
		usage(stderr, 2);
	}
	if (argc == 0 && o.model == NULL) {
		warnx("needs -c model.xml%s", o.dir ? "" : " or a graph-dir");
		usage(stderr, 2);
	}
	if (o.dir && (argc == 1 || o.ops || o.edges)) {
		warnx("-D writes analytic variants: no graph-dir, -O or -e");
		usage(stderr, 2);
	}
	if (o.dir && (k = opt_first_outside(seen, "DVaco" "h")) != 0) {
		warnx("-%c: not with -D (it takes -a, -c, -V and -o)", k);
		usage(stderr, 2);
	}
	/* the integer program runs on an artifact graph's layers alone */
	if ((seen['w'] || seen['T']) &&
	    (argc == 0 || o.timing != LAYER_TIME_ILP)) {
		warnx("-%c: only with -t ilp on a graph-dir", seen['w'] ? 'w' :
		    'T');
		usage(stderr, 2);
	}
	if (o.dir && (o.v.sp || o.v.e > 1 || o.v.et)) {
		warnx("-D tries every sp, e and et: -V sets only b, t, c, ep, "
		    "fp8 and attn");
		usage(stderr, 2);
	}
	if (!o.dir && o.ep == (EP_FOLD | EP_BATCH)) {
		warnx("-V ep=both lists variants: with -D only");
		usage(stderr, 2);
	}
	if (o.v.ep_fold && (o.dir || o.ep != EP_BATCH)) {
		warnx("-V fold= folds some of a batch split's expert ranks "
		    "over a sequence: with ep=batch, without -D");
		usage(stderr, 2);
	}
	if (!o.dir && o.ep == EP_BATCH && o.v.e < 2) {
		warnx("-V ep=batch splits the samples over the expert ranks: "
		    "it needs e > 1");
		usage(stderr, 2);
	}
	/* -V b= is a rank's micro-batch (Megatron's --micro-batch-size):
	 * split by samples, the variant's e ranks take e of them (e over
	 * the fold: the folded ranks share theirs) */
	if (!o.dir && o.ep == EP_BATCH) {
		o.v.ep_batch = 1;
		if (o.v.ep_fold > 1 && o.v.e % o.v.ep_fold) {
			warnx("-V fold=%ld does not divide e=%ld", o.v.ep_fold,
			    o.v.e);
			usage(stderr, 2);
		}
		o.v.b = (o.v.b ? o.v.b : 1) * (o.v.ep_fold > 1 ? o.v.e /
		    o.v.ep_fold : o.v.e);
	}
	/* -D lists both expert splits unless told; one graph folds */
	if (o.ep == 0)
		o.ep = o.dir ? EP_FOLD | EP_BATCH : EP_FOLD;
	o.v.t = o.v.t ? o.v.t : o.dir ? 8 : 1;
	o.v.c = o.v.c ? o.v.c : o.dir ? 4 : 1;
	if (!o.dir && o.v.b == 0)
		o.v.b = 1;
	if (argc == 1 && o.v.fp8 != FP8_NONE) {
		warnx("-V fp8=: the analytic path's graphs, not a graph-dir's");
		usage(stderr, 2);
	}
	if (argc == 1 && o.v.attn != ATTN_FUSED) {
		warnx("-V attn=: the analytic path's graphs, not a "
		    "graph-dir's");
		usage(stderr, 2);
	}
	if (argc == 1 && o.ops) {
		warnx("-O writes the analytic operator graph: no graph-dir");
		usage(stderr, 2);
	}
	if (argc == 0 && o.accel == NULL) {
		warnx("the analytic path needs the accelerator: -a "
		    "accelerator.xml");
		usage(stderr, 2);
	}
	if (argc == 0 && o.nlayers) {
		warnx("-n: the analytic path takes the layers from -c");
		usage(stderr, 2);
	}
	if (o.accel) {
		if (accel_load(&a, o.accel, &err) < 0)
			die_err(&err);
		o.acfg = &a;
		o.sched.tc_cores = a.tensor_cores;
		o.sched.vc_cores = a.vector_cores;
		/* before any graph is written: a device without the recipe */
		if (o.v.fp8 != FP8_NONE && !accel_runs_fp8(&a, o.v.fp8))
			die("%s: accelerator '%s' runs no FP8 recipe '%s'%s",
			    o.accel, a.name, fp8_recipe_words[o.v.fp8],
			    a.fp8_recipes ? "" : " (it has no <fp8> element)");
		if (o.v.attn == ATTN_FA2 && !a.fa2)
			die("%s: accelerator '%s' has no FlashAttention-2 rate "
			    "(<efficiency kind=\"fa2_attention\">) for -V "
			    "attn=fa2", o.accel, a.name);
	} else if (o.timing == LAYER_TIME_ILP) {
		warnx("-t ilp needs the accelerator's cores: -a "
		    "accelerator.xml");
		usage(stderr, 2);
	}
	if (o.model) {
		if (model_load(&m, o.model, &err) < 0)
			die_err(&err);
		o.mcfg = &m;
		if (o.nlayers && o.nlayers != m.layers)
			die("-n %ld disagrees with %s (%ld layers)", o.nlayers,
			    o.model, m.layers);
		o.nlayers = m.layers;
	}
	/* the analytic layer is a chain: its optimal schedule is sequential */
	if ((argc == 1 ? run_profiled(&o, argv[0], &err) : o.dir ?
	    run_variants(&o, &m, &a, &err) : run_analytic(&o, &m, &a, &err)) < 0)
		die_err(&err);
	return 0;
}
