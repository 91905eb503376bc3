/*
 * t-sched.c - the layer schedule (decomposition, bounds, list schedules
 * and the GLPK model) against exhaustive search on small random DAGs.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "graph/sched.h"
#include "tap.h"

static unsigned long long rng = 12345;

static double
uniform(void)
{
	rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
	return (double)(rng >> 11) / 9007199254740992.0;
}

/* A random DAG on n ops (edges i -> j, i < j), transitively closed. */
static void
random_problem(struct sched_problem *p, size_t n, double density)
{
	p->n = n;
	p->op = calloc(n, sizeof(struct sched_op));
	p->before = calloc(n * n + 1, 1);
	p->tc_cores = 1 + (long)(uniform() * 2);
	p->vc_cores = 1 + (long)(uniform() * 2);
	for (size_t j = 0; j < n; j++) {
		p->op[j].kind = (int)(uniform() * 4);
		p->op[j].single = 0.1 + uniform() * 5;
		/* intra is sometimes faster, sometimes dominated */
		p->op[j].intra = p->op[j].single * (0.3 + uniform() * 1.2);
		for (size_t i = 0; i < j; i++)
			if (uniform() < density)
				p->before[i * n + j] = 1;
	}
	for (size_t k = 0; k < n; k++)
		for (size_t i = 0; i < n; i++)
			for (size_t j = 0; j < n; j++)
				if (p->before[i * n + k] && p->before[k * n + j])
					p->before[i * n + j] = 1;
}

/* Two ops in a chain, then one alone: worked by hand. */
static void
by_hand(void)
{
	struct sched_op ops[3] = {
		{ SK_VC, 4, 2 },	/* a: 4 on one core, 2 on both */
		{ SK_VC, 4, 2 },	/* b: independent of a */
		{ SK_TC, 3, 3 },	/* c: after a and b */
	};
	unsigned char before[9] = { 0, 0, 1, 0, 0, 1, 0, 0, 0 };
	struct sched_problem p = { 3, ops, before, 1, 2 };
	struct sched_opts o = { 1, 2, 10, 0, NULL };
	struct sched_result r;

	/* a and b on the two vector cores at once (4), or each on both
	 * cores one after another (2 + 2): 4 either way; then c: 7 */
	EQ_INT(sched_solve(&p, &o, &r, NULL), 0, "hand: solves");
	EQ_DBL(r.makespan, 7, 1e-12, "hand: makespan 7");
	OK(r.optimal, "hand: proven optimal");
	EQ_INT(r.cuts, 1, "hand: c is comparable with both: a cut");
	EQ_DBL(sched_brute_force(&p), 7, 1e-12, "hand: brute force agrees");
	ops[0].intra = 1.5;	/* a on both cores now beats sharing */
	EQ_INT(sched_solve(&p, &o, &r, NULL), 0, "hand 2: solves");
	EQ_DBL(r.makespan, 1.5 + 2 + 3, 1e-12, "hand 2: 1.5 + 2 + 3");
	EQ_DBL(sched_brute_force(&p), 6.5, 1e-12, "hand 2: brute force agrees");
}

int
main(void)
{
	int agree = 0, proven = 0, total = 0;
	double worst = 0;

	by_hand();
	for (int k = 0; k < 300; k++) {
		struct sched_problem p;
		struct sched_opts o = { 0, 0, 30, 0, NULL };
		struct sched_result r;
		struct pl_err err;
		size_t n = 2 + (size_t)(k % 5);		/* 2..6 ops */
		double want;

		random_problem(&p, n, 0.15 + 0.1 * (k % 4));
		o.tc_cores = p.tc_cores;
		o.vc_cores = p.vc_cores;
		want = sched_brute_force(&p);
		total++;
		if (sched_solve(&p, &o, &r, &err) == 0) {
			double rel = fabs(r.makespan - want) / want;

			if (rel <= 1e-9)
				agree++;
			else
				printf("# instance %d (n=%zu): %.12g, brute force "
				    "%.12g\n", k, n, r.makespan, want);
			if (rel > worst)
				worst = rel;
			proven += r.optimal && r.bound <= want * (1 + 1e-9);
		} else {
			printf("# instance %d: %s\n", k, err.msg);
		}
		free(p.op);
		free(p.before);
	}
	EQ_INT(agree, total, "300 random DAGs: optimum equals brute force");
	EQ_INT(proven, total, "300 random DAGs: proven optimal, bound valid");
	return tap_done();
}
