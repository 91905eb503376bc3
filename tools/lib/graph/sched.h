/*
 * sched.h - the per-layer operator schedule (the artifact README's problem).
 *
 * n operators with precedences; each runs either on one core of its kind
 * (duration `single`: a tensor core, a vector core, one of each for a
 * matmul fused with its successor, a vector core for a collective) or
 * intra-operator-parallel on all cores of its kind (duration `intra`),
 * during which nothing else runs.  Minimise the makespan.
 *
 * sched_solve() decomposes: an operator comparable with every other one
 * runs alone (in its faster mode), which cuts the layer into independent
 * blocks run one after another; each block with two or more operators is
 * bounded from below (critical path, core-time per kind) and from above
 * (list schedules), and when the bounds differ it is solved as an integer
 * program with GLPK (ilp.h), within a time limit.  The result says whether
 * the makespan is proven optimal, and the lower bound when it is not.
 */
#ifndef NP_SCHED_H
#define NP_SCHED_H

#include <stddef.h>

#include "base/util.h"
#include "graph/schedprob.h"

struct sched_result {
	double makespan;	/* of the best schedule found */
	double bound;		/* proven lower bound (== makespan when optimal) */
	int optimal;
	int cuts, blocks, ilp_blocks;
	char status[256];	/* "optimal[cuts=13,blocks=19:ilp,2:bounds]" */
};

int sched_solve(const struct sched_problem *p, const struct sched_opts *o,
    struct sched_result *r, struct pl_err *err);

/*
 * Serial schedule generation: place the operators in `order` (which must
 * respect the precedences) one by one at their earliest feasible start,
 * in the modes `intra` (NULL: all single).  Returns the makespan and, if
 * start is not NULL, the start times.
 */
double sched_sgs(const struct sched_problem *p, const size_t *order,
    const int *intra, double *start);

/*
 * Exhaustive optimum for small problems (n <= 9): every mode vector and
 * every precedence-feasible order through sched_sgs(), whose schedules
 * include an optimal one.  For tests.
 */
double sched_brute_force(const struct sched_problem *p);

#endif
