/* ilp.c - the per-layer schedule as a GLPK integer program. */
#include <glpk.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "graph/ilp.h"

#define MAX_CLIQUES 2000000

/* The model's column numbers, and what the callback needs. */
struct model {
	const struct sched_problem *p;
	glp_prob *lp;
	int *col_s, *col_x, col_c;	/* col_x[j] == 0: no choice */
	int *col_z;			/* n*n, 0 where the pair needs none */
	const int *heur_intra;
	const double *heur_start;
	double heur_ub;
	int heur_sent;
	double bound;			/* best proven bound seen */
	size_t nrows;
};

static int
add_col(glp_prob *lp, const char *name, int kind, double lo, double hi)
{
	int c = glp_add_cols(lp, 1);

	glp_set_col_name(lp, c, name);
	glp_set_col_kind(lp, c, kind);
	if (kind == GLP_BV)
		return c;
	glp_set_col_bnds(lp, c, lo == hi ? GLP_FX : GLP_DB, lo, hi);
	return c;
}

static void
add_row(struct model *m, const char *name, int type, double rhs, int len,
    const int *ind, const double *val)
{
	int r = glp_add_rows(m->lp, 1);

	glp_set_row_name(m->lp, r, name);
	glp_set_row_bnds(m->lp, r, type, rhs, rhs);
	glp_set_mat_row(m->lp, r, len, ind, val);
	m->nrows++;
}

/* j's duration is single_j + delta_j * x_j */
static double
delta(const struct sched_problem *p, size_t j)
{
	return p->op[j].intra - p->op[j].single;
}

/* Row S_k - S_j - delta_j x_j [- M z] >= single_j [- M]. */
static void
order_row(struct model *m, const char *name, size_t j, size_t k, int zcol,
    double big)
{
	int ind[5];
	double val[5];
	int len = 0;

	ind[++len] = m->col_s[k];
	val[len] = 1;
	ind[++len] = m->col_s[j];
	val[len] = -1;
	if (m->col_x[j]) {
		ind[++len] = m->col_x[j];
		val[len] = -delta(m->p, j);
	}
	if (zcol) {
		ind[++len] = zcol;
		val[len] = -big;
	}
	add_row(m, name, GLP_LO, m->p->op[j].single - (zcol ? big : 0), len,
	    ind, val);
}

static int
incomparable(const struct sched_problem *p, size_t a, size_t b)
{
	return !p->before[a * p->n + b] && !p->before[b * p->n + a];
}

/* Rows for every set of cap+1 pairwise incomparable users of a kind. */
struct clique {
	struct model *m;
	const size_t *users;
	size_t nusers, size;
	size_t *pick;
	size_t count;
	const char *tag;
};

static int
clique_rows(struct clique *q, size_t depth, size_t from)
{
	size_t n = q->m->p->n;

	if (depth == q->size) {
		int len = 0, *ind;
		double *val;
		char name[32];

		if (++q->count > MAX_CLIQUES)
			return -1;
		ind = xmalloc((q->size * q->size + 1) * sizeof(int));
		val = xmalloc((q->size * q->size + 1) * sizeof(double));
		for (size_t a = 0; a < q->size; a++)
			for (size_t b = 0; b < q->size; b++)
				if (a != b) {
					ind[++len] = q->m->col_z[q->pick[a] * n +
					    q->pick[b]];
					val[len] = 1;
				}
		snprintf(name, sizeof(name), "%s%zu", q->tag, q->count);
		add_row(q->m, name, GLP_LO, 1, len, ind, val);
		free(ind);
		free(val);
		return 0;
	}
	for (size_t i = from; i < q->nusers; i++) {
		int ok = 1;

		for (size_t a = 0; a < depth && ok; a++)
			ok = incomparable(q->m->p, q->pick[a], q->users[i]);
		if (!ok)
			continue;
		q->pick[depth] = q->users[i];
		if (clique_rows(q, depth + 1, i + 1) < 0)
			return -1;
	}
	return 0;
}

static int
capacity_rows(struct model *m, int vector, struct pl_err *err)
{
	const struct sched_problem *p = m->p;
	struct clique q;
	size_t *users = xmalloc(p->n * sizeof(size_t)), nu = 0;
	long cap = vector ? p->vc_cores : p->tc_cores;
	int ret = 0;

	for (size_t j = 0; j < p->n; j++) {
		long tc, vc;

		sched_needs(&p->op[j], &tc, &vc);
		if (vector ? vc : tc)
			users[nu++] = j;
	}
	q.m = m;
	q.users = users;
	q.nusers = nu;
	q.size = (size_t)cap + 1;
	q.pick = xmalloc(q.size * sizeof(size_t));
	q.count = 0;
	q.tag = vector ? "cap_vc_" : "cap_tc_";
	if (q.size <= nu && clique_rows(&q, 0, 0) < 0)
		ret = pl_errf(err, NULL, 0, "more than %d capacity rows: the "
		    "block is too wide for this model", MAX_CLIQUES);
	free(q.pick);
	free(users);
	return ret;
}

static int
build(struct model *m, double lb, double ub, struct pl_err *err)
{
	const struct sched_problem *p = m->p;
	size_t n = p->n;
	char name[64];

	m->lp = glp_create_prob();
	glp_set_prob_name(m->lp, "layer_schedule");
	glp_set_obj_dir(m->lp, GLP_MIN);
	m->col_s = xcalloc(n, sizeof(int));
	m->col_x = xcalloc(n, sizeof(int));
	m->col_z = xcalloc(n * n, sizeof(int));
	for (size_t j = 0; j < n; j++) {
		snprintf(name, sizeof(name), "S_%zu", j);
		m->col_s[j] = add_col(m->lp, name, GLP_CV, 0, ub);
		if (p->op[j].intra < p->op[j].single) {
			snprintf(name, sizeof(name), "x_%zu", j);
			m->col_x[j] = add_col(m->lp, name, GLP_BV, 0, 1);
		}
	}
	m->col_c = add_col(m->lp, "C", GLP_CV, lb, ub);
	glp_set_obj_coef(m->lp, m->col_c, 1);
	for (size_t j = 0; j < n; j++)
		for (size_t k = 0; k < n; k++) {
			long tj, vj, tk, vk;

			if (j == k || !incomparable(p, j, k))
				continue;
			sched_needs(&p->op[j], &tj, &vj);
			sched_needs(&p->op[k], &tk, &vk);
			if (!(tj && tk) && !(vj && vk) && !m->col_x[j] &&
			    !m->col_x[k])
				continue;	/* they can always overlap */
			snprintf(name, sizeof(name), "z_%zu_%zu", j, k);
			m->col_z[j * n + k] = add_col(m->lp, name, GLP_BV, 0, 1);
		}
	for (size_t j = 0; j < n; j++) {
		int ind[4];
		double val[4];
		int len = 0;

		for (size_t k = 0; k < n; k++) {
			int direct = p->before[j * n + k];

			/* only the immediate precedences: the rest follow */
			for (size_t l = 0; l < n && direct; l++)
				if (p->before[j * n + l] && p->before[l * n + k])
					direct = 0;
			if (direct) {
				snprintf(name, sizeof(name), "prec_%zu_%zu", j, k);
				order_row(m, name, j, k, 0, 0);
			}
			if (m->col_z[j * n + k]) {
				snprintf(name, sizeof(name), "disj_%zu_%zu", j, k);
				order_row(m, name, j, k, m->col_z[j * n + k], ub);
			}
			if (k > j && m->col_z[j * n + k]) {
				int oi[4] = { 0, m->col_z[j * n + k],
				    m->col_z[k * n + j], 0 };
				double ov[4] = { 0, 1, 1, -1 };

				snprintf(name, sizeof(name), "once_%zu_%zu", j, k);
				add_row(m, name, GLP_UP, 1, 2, oi, ov);
				for (int e = 0; e < 2; e++) {
					int xc = m->col_x[e ? k : j];

					if (!xc)
						continue;
					oi[3] = xc;
					snprintf(name, sizeof(name), "alone_%zu_%zu_%d",
					    j, k, e);
					add_row(m, name, GLP_LO, 0, 3, oi, ov);
				}
			}
		}
		ind[++len] = m->col_c;
		val[len] = 1;
		ind[++len] = m->col_s[j];
		val[len] = -1;
		if (m->col_x[j]) {
			ind[++len] = m->col_x[j];
			val[len] = -delta(p, j);
		}
		snprintf(name, sizeof(name), "end_%zu", j);
		add_row(m, name, GLP_LO, p->op[j].single, len, ind, val);
	}
	if (capacity_rows(m, 1, err) < 0 || capacity_rows(m, 0, err) < 0)
		return -1;
	return 0;
}

/* The list schedule as GLPK's first incumbent. */
static void
send_heuristic(glp_tree *tree, struct model *m)
{
	const struct sched_problem *p = m->p;
	size_t n = p->n;
	double *x = xcalloc((size_t)glp_get_num_cols(m->lp) + 1, sizeof(double));

	for (size_t j = 0; j < n; j++) {
		x[m->col_s[j]] = m->heur_start[j];
		if (m->col_x[j])
			x[m->col_x[j]] = m->heur_intra[j];
	}
	x[m->col_c] = m->heur_ub;
	for (size_t j = 0; j < n; j++)
		for (size_t k = 0; k < n; k++) {
			double dj = m->heur_intra[j] ? p->op[j].intra :
			    p->op[j].single;

			if (!m->col_z[j * n + k])
				continue;
			/* j before k, unless k is already before j */
			if (m->heur_start[j] + dj <= m->heur_start[k] + 1e-12 &&
			    !(m->col_z[k * n + j] && x[m->col_z[k * n + j]] > 0.5))
				x[m->col_z[j * n + k]] = 1;
		}
	glp_ios_heur_sol(tree, x);
	free(x);
}

static void
callback(glp_tree *tree, void *info)
{
	struct model *m = info;
	int node;

	switch (glp_ios_reason(tree)) {
	case GLP_IHEUR:
		if (!m->heur_sent) {
			m->heur_sent = 1;
			send_heuristic(tree, m);
		}
		break;
	case GLP_ISELECT:
	case GLP_IBINGO:
		if ((node = glp_ios_best_node(tree)) != 0) {
			double b = glp_ios_node_bound(tree, node);

			if (b > m->bound)
				m->bound = b;
		}
		break;
	default:
		break;
	}
}

int
ilp_schedule(const struct sched_problem *p, double lb, double ub,
    const int *ub_intra, const double *ub_start, const struct sched_opts *o,
    double *best, double *bound, int *optimal, struct pl_err *err)
{
	struct model m;
	glp_smcp smcp;
	glp_iocp iocp;
	int ret = -1, rc, status;

	memset(&m, 0, sizeof(m));
	m.p = p;
	m.heur_intra = ub_intra;
	m.heur_start = ub_start;
	m.heur_ub = ub;
	m.bound = lb;
	*best = ub;
	*bound = lb;
	*optimal = 0;
	glp_term_out(o->verbose ? GLP_ON : GLP_OFF);
	if (build(&m, lb, ub, err) < 0)
		goto done;
	if (o->lp_file && glp_write_lp(m.lp, NULL, o->lp_file) != 0) {
		pl_errf(err, o->lp_file, 0, "cannot write the model");
		goto done;
	}
	glp_init_smcp(&smcp);
	smcp.msg_lev = o->verbose ? GLP_MSG_ON : GLP_MSG_OFF;
	if (glp_simplex(m.lp, &smcp) != 0 || glp_get_status(m.lp) != GLP_OPT) {
		pl_errf(err, NULL, 0, "GLPK: the relaxation of the schedule "
		    "could not be solved");
		goto done;
	}
	glp_init_iocp(&iocp);
	iocp.msg_lev = o->verbose ? GLP_MSG_ON : GLP_MSG_OFF;
	iocp.cb_func = callback;
	iocp.cb_info = &m;
	iocp.mir_cuts = GLP_ON;
	iocp.clq_cuts = GLP_ON;
	if (o->time_limit_s > 0)
		iocp.tm_lim = (int)fmin(o->time_limit_s * 1000, 2e9);
	rc = glp_intopt(m.lp, &iocp);
	status = glp_mip_status(m.lp);
	if (rc == 0 && status == GLP_OPT) {
		*best = fmin(glp_mip_obj_val(m.lp), ub);
		*bound = *best;
		*optimal = 1;
	} else if (rc == GLP_ETMLIM || (rc == 0 && status == GLP_FEAS)) {
		if (status == GLP_FEAS || status == GLP_OPT)
			*best = fmin(glp_mip_obj_val(m.lp), ub);
		*bound = fmin(m.bound, *best);
	} else {
		pl_errf(err, NULL, 0, "GLPK: the schedule failed (glp_intopt "
		    "%d, status %d)", rc, status);
		goto done;
	}
	ret = 0;
done:
	if (m.lp)
		glp_delete_prob(m.lp);
	free(m.col_s);
	free(m.col_x);
	free(m.col_z);
	glp_free_env();
	return ret;
}
