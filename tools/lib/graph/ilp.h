/*
 * ilp.h - integer programs through GLPK.  Every GLPK call of nestplan
 * lives in ilp.c.
 *
 * ilp_schedule() solves one block of the per-layer schedule (sched.h;
 * its types in schedprob.h):
 *
 *   min C  s.t.  S_k >= S_j + d_j                 j precedes k
 *                S_k >= S_j + d_j - M (1 - z_jk)  j, k incomparable
 *                z_jk + z_kj <= 1
 *                z_jk + z_kj >= x_j, x_k          intra mode runs alone
 *                sum over pairs of a set of cap+1 pairwise incomparable
 *                users of one kind of core (z_ab + z_ba) >= 1
 *                C >= S_j + d_j,   LB <= C <= UB
 *   with d_j = single_j + (intra_j - single_j) x_j, x_j binary where the
 *   intra mode is faster (it is dominated otherwise), M = UB.
 *
 * The capacity rows are exact: intervals on a line that pairwise overlap
 * share a point (Helly), so "no cap+1 users pairwise overlapping" is "at
 * most cap at any time".  The list schedule that gave UB is handed to
 * GLPK as its first incumbent.  On the time limit the best schedule and
 * the proven bound are returned with *optimal = 0.
 */
#ifndef NP_ILP_H
#define NP_ILP_H

#include "base/util.h"
#include "graph/schedprob.h"

int ilp_schedule(const struct sched_problem *p, double lb, double ub,
    const int *ub_intra, const double *ub_start, const struct sched_opts *o,
    double *best, double *bound, int *optimal, struct pl_err *err);

#endif
