/*
 * pipeline.h - one step of a pipeline schedule, simulated operation by
 * operation (issue 35: pipesim's engine; docs/model.md, "Pipeline
 * schedules, simulated").
 *
 * A pipeline of S ranks, each holding v model chunks.  A micro-batch
 * passes the chunks of its route in order on its forward pass and back in
 * reverse on its backward pass: by default chunk c of rank r is position
 * c S + r (Megatron-LM's interleaving); the V schedules turn on the last
 * rank, DualPipe sends half the micro-batches up the ranks
 * (pipe_costs.route).  Every rank runs its operations one at a time in
 * the order its schedule gives (pipe_order_*); an operation starts when
 * the rank is free and its input has arrived: a forward pass needs the
 * previous position's forward output, a backward pass the next one's
 * gradient (the last position's: its own forward pass), each after the
 * boundary's transfer time; a W pass (the weights' gradient, split off
 * by the zero-bubble schedules) its own backward pass; an overlapped pair
 * (DualPipe's F&B) both its inputs.  Transfers either run beside
 * compute, holding neither rank, or hold the sender until they are done
 * (pipe_costs.hold_sender); a schedule whose orders wait on each other
 * in a cycle is refused.
 *
 * What comes out: when each operation ran, the step (the last one's
 * end), each rank's busy time, and the activations each rank holds at
 * its peak (a chunk's, from the start of its forward pass to the end of
 * its backward pass, or of its W pass where it has one) in chunk-micro-
 * batches.
 */
#ifndef NP_PIPELINE_H
#define NP_PIPELINE_H

#include <stddef.h>

#include "base/util.h"

/* A forward pass, a backward pass (all of it, or where a W pass of the
 * same micro-batch and chunk follows, only the input's gradient), and
 * the weights' gradient split from it (zero-bubble schedules). */
enum { PIPE_F, PIPE_B, PIPE_W, PIPE_FB };

/* One operation of a rank's order: a pass of micro-batch mb through its
 * model chunk `chunk`; PIPE_FB: its forward pass and, overlapped with it
 * (DualPipe's F&B), the whole backward pass of micro-batch bmb through
 * chunk bchunk. */
struct pipe_op {
	int kind;			/* PIPE_F, PIPE_B, PIPE_W or PIPE_FB */
	int chunk;			/* 0..v-1 */
	long mb;			/* 0..m-1 */
	int bchunk;			/* PIPE_FB only */
	long bmb;
};

/* A rank's order of operations (owned). */
struct pipe_order {
	struct pipe_op *op;
	size_t n;
};

/*
 * One-forward-one-backward (PipeDream-Flush, Megatron-LM's
 * forward_backward_pipelining_without_interleaving): rank r of S runs
 * min(S - r - 1, m) forward passes, then alternates a forward and a
 * backward pass, then the backward passes left.
 */
void pipe_order_1f1b(int S, int r, long m, struct pipe_order *out);

/*
 * Megatron-LM's interleaved 1F1B (forward_backward_pipelining_with_
 * interleaving, core_v0.15.0 schedules.py): the forward passes go by
 * groups of `group` micro-batches (--microbatch-group-size-per-virtual-
 * pipeline-stage, default S), each group through chunk 0, then chunk 1,
 * ... (the last group takes the micro-batches left); the backward passes
 * in the same table with the chunks reversed.  Rank r first runs
 * 2 (S - r - 1) + (v - 1) group forward passes (at most m v), then
 * alternates a forward and a backward pass, then the backward passes
 * left.  Megatron-LM runs it for S <= group <= m with m mod group 0 or
 * at least S (pipe_group_ok); other groups give orders that may wait on
 * each other (pipe_simulate refuses them as a deadlock).
 */
void pipe_order_interleaved(int S, int v, int r, long m, long group,
    struct pipe_order *out);
/* Whether Megatron-LM runs micro-batch groups of `group` (schedules.py:
 * S <= group <= m, m mod group 0 or at least S). */
int pipe_group_ok(int S, long m, long group);

/*
 * Megatron-Core's combined 1F1B (core_v0.15.0 combined_1f1b.py, with
 * --overlap-moe-expert-parallel-comm): the interleaved order's tables
 * (v = 1, S = 1: no pipeline), one warm-up forward pass more (2 (S - r -
 * 1) + (v - 1) group + 1, at most m v), then each forward pass merged
 * with the backward pass 1F1B would run beside it into an overlapped
 * pair (PIPE_FB), then the backward passes left.
 */
void pipe_order_combined(int S, int v, int r, long m, long group,
    struct pipe_order *out);

/* GPipe: every forward pass, then every backward pass, in micro-batch
 * order (the backward passes in reverse order of the chunks). */
void pipe_order_gpipe(int S, int v, int r, long m, struct pipe_order *out);

/*
 * ZB-H1 (Qi et al., "Zero Bubble Pipeline Parallelism", ICLR 2024,
 * Section 2.1): 1F1B with every backward pass split into B and W; each B
 * queues its W (first in, first out, as the authors' WeightGradStore),
 * and after the B of micro-batch k >= r one W leaves the queue, so rank r
 * runs its W passes r slots late and the last r of them at the end.
 */
void pipe_order_zbh1(int S, int r, long m, struct pipe_order *out);

/*
 * The V-shaped routes (pipe_costs.route): rank r holds chunk 0 at
 * position r and chunk 1 at position 2S - 1 - r, so a micro-batch goes
 * down the ranks and back up, turning on rank S - 1.
 */
void pipe_route_v(int S, int *route);

/*
 * ZB-V (the zero-bubble V schedule, ibid. and the authors' handcrafted
 * schedule, which PyTorch's ScheduleZBVZeroBubble runs), on the V route,
 * n = max(2S - 1, m): 2(S - r) - 1 forward passes of chunk 0; r times a
 * forward of chunk 1 and one of chunk 0; S - r times F B W of chunk 1;
 * then, while forwards are left, [F.0] B.0 W.0 F.1 B.1 W.1; r times B.0
 * B.1 (their W queued, a queue a chunk); S - r times B.0 and the oldest
 * queued W.0; the queued W.1, then the W.0; micro-batches past m
 * dropped.
 */
void pipe_order_zbv(int S, int r, long m, struct pipe_order *out);

/*
 * DualPipeV (DeepSeek's DualPipe repository, dualpipev.py; Sea AI Lab's
 * "cut-in-half" DualPipe), on the V route, m >= 2S (pipe_dualpipe_ok):
 * 2(S - 1 - r) F.0; r + 1 times F.0 F.1; S - 1 - r times B.1 W.1 F.1;
 * m - 2S + r + 1 times the overlapped pairs F.0 & BW.1, F.1 & BW.0 (BW a
 * whole backward pass; rank S - 1 runs its first pair one after the
 * other); S - 1 - r times BW.1 then F.1 & BW.0; r + 1 times B.1 B.0,
 * whole until the middle (from iteration (r + 1) / 2's B.1 for odd r,
 * its B.0 for even r) and split after, the W queued; S - 1 - r times a
 * queued W then B.0 split; the r + 1 W left.  One queue, first in first
 * out, for both chunks.
 */
void pipe_order_dualpipev(int S, int r, long m, struct pipe_order *out);

/*
 * DualPipe (DeepSeek-V3 technical report, Section 3.2.1): S even, m even,
 * m >= 2S; half the micro-batches enter at rank 0 (route 0, chunk 0 on
 * every rank), half at rank S - 1 (route 1, chunk 1: rank r holds its
 * stage S - 1 - r), micro-batches m/2.. on route 1 (pipe_route_dual).
 * Rank r runs DualPipeV's order for S/2 ranks, rank min(r, S - 1 - r)
 * and m/2 micro-batches, its own direction (route 0 for r < S/2) as
 * that order's chunk 0.
 */
void pipe_order_dualpipe(int S, int r, long m, struct pipe_order *out);
/* DualPipe's two routes (2 S entries) and each micro-batch's (m). */
void pipe_route_dual(int S, long m, int *route, int *mb_route);
/* Whether DualPipe (dual 1) or DualPipeV (0) runs S ranks, m micro-
 * batches (the repository's asserts: m >= 2S; DualPipe: S and m even). */
int pipe_dualpipe_ok(int S, long m, int dual);

void pipe_order_release(struct pipe_order *o);

/* How a chunk's weight gathers are launched (pipe_gather.dispatch). */
enum { PIPE_GATHER_CHAIN, PIPE_GATHER_START, PIPE_GATHER_AT };

/*
 * One model chunk's weights gathered before its first forward pass uses
 * them, as Megatron-LM core_v0.15.0's distributed optimizer does with
 * --overlap-param-gather (distributed_data_parallel.py, param_and_grad_
 * buffer.py): its buckets in the order the pass reaches them, each of
 * one kind (0 the dense weights, 1 the experts', each a buffer and a
 * chain of its own), the share of the pass's time before it reaches the
 * bucket, and the bucket's gather time.  The chunk's first forward pass
 * waits at each bucket until its gather is done (later passes find the
 * weights there).  Launched:
 *   PIPE_GATHER_CHAIN: a kind's first bucket when the pass reaches it,
 *     each next one when the pass has waited for the one before it of
 *     its kind: Megatron's way without interleaving, where it turns
 *     --align-param-gather off (the forward pre-hook's finish_param_sync
 *     waits for a bucket and launches the next; the launch, however far
 *     ahead the host is, starts on the GPU only once the compute stream
 *     has passed that wait, as NCCL's stream waits for the current one);
 *   PIPE_GATHER_START, PIPE_GATHER_AT: all of the chunk's buckets at
 *     once, at the step's start or when the rank starts its forward
 *     pass number at_forward (from 0), as --align-param-gather, the
 *     interleaved schedule's default, launches the first two chunks and
 *     the others (start_param_sync: the last bucket first, the experts'
 *     after the dense), one at a time on the rank's stream (the two
 *     kinds' process groups may run beside each other: not priced).
 */
struct pipe_gather {
	size_t n;
	const double *share_before;	/* [n]: non-decreasing, in [0, 1] */
	const double *gather_s;		/* [n] */
	const int *kind;		/* [n]: 0 or 1 */
	/* [n] or NULL: the compute stream's own work once the bucket is
	 * there, before the pass goes on (FSDP2's copy-out of a gathered
	 * unit), counted with the waits */
	const double *after_s;
	int dispatch;			/* PIPE_GATHER_* */
	long at_forward;		/* PIPE_GATHER_AT */
};

/* The durations of a step's operations. */
struct pipe_costs {
	int S, v;
	long m;
	const double *fwd_s, *bwd_s;	/* [r v + c]: one micro-batch's pass */
	/* [j], j < S v - 1: from virtual stage j to j + 1 (activations)
	 * and back (their gradients), one way; NULL: none */
	const double *transfer_s;
	/* 1: a pass's output transfer holds its rank after the pass, as
	 * Megatron-LM's non-interleaved 1F1B waits for its sends (the
	 * input arrives when the sender is done); 0: transfers run beside
	 * compute, the input arriving the transfer time after the pass */
	int hold_sender;
	/* [r v + c]: the weights' gradient's share of bwd_s, which a W
	 * pass runs apart where an order splits the backward pass; NULL:
	 * no order may split it */
	const double *wgrad_s;
	/*
	 * Where a micro-batch goes (NULL: Megatron-LM's interleaving, one
	 * route, position j on chunk j / S of rank j mod S).  route[k L +
	 * j], L = route_len: the slot r v + c of position j of route k of
	 * nroute; each slot on one route at most.  mb_route[mb]: its route
	 * (NULL: all on route 0).  transfer_s then has nroute (L - 1)
	 * entries, boundary j of route k at k (L - 1) + j; a boundary within
	 * a rank (V-shaped routes turn on their last rank) should cost 0.
	 */
	const int *route, *mb_route;
	int nroute, route_len;
	/* [r v + c]: the communication inside fwd_s and bwd_s, which an
	 * overlapped pair (PIPE_FB) hides behind the other pass's compute:
	 * the pair takes the longer of its compute and its communication
	 * (DeepSeek's "fully hidden"); NULL: none */
	const double *fwd_comm_s, *bwd_comm_s;
	/* [r v + c]: what a pair of chunk c's forward and backward pass
	 * saves against the two run alone (Megatron-Core's combined 1F1B,
	 * plan_ep_pair_s, its layers' merged passes): an overlapped pair
	 * then takes its two passes less the mean of its two chunks'
	 * savings instead, and holds its forward pass's chunk only as its
	 * backward pass's is freed (merged layer by layer: the layer more
	 * is the caller's to price); NULL: the longer of its compute and
	 * its communication, each pass's chunk held over the pair */
	const double *pair_save_s;
	/* [r v + c]: each chunk's weight gather (NULL: none; a chunk of
	 * no buckets: none), which lengthens its first forward pass by the
	 * waits (pipe_gather) */
	const struct pipe_gather *gather;
};

/* A pass as it ran (an overlapped pair: its forward and its backward
 * pass, two events over the same time, paired 1). */
struct pipe_event {
	int rank, kind, chunk;
	long mb;
	double start_s, end_s;
	int paired;
};

struct pipe_result {
	double step_s;
	double *busy_s;			/* [S] */
	double *end_s;			/* [S]: when its last pass ends */
	long *peak_chunks;		/* [S]: chunk-micro-batches held */
	struct pipe_event *ev;		/* every operation, in the order
					 * they were scheduled */
	size_t nev;
};

/*
 * Simulate one step of costs c under the ranks' orders (S of them).
 * Each micro-batch's every position on its route must appear once as a
 * forward and once as a backward pass on its rank, and at most once as a
 * W pass (then after the backward one); returns -1 (err) when not, or
 * when the orders wait on each other in a cycle (a deadlock).  A chunk's
 * activations are held from the start of its forward pass to the end of
 * its W pass where it has one, of its backward pass otherwise.
 */
int pipe_simulate(const struct pipe_costs *c, const struct pipe_order *orders,
    struct pipe_result *out, struct pl_err *err);
void pipe_result_release(struct pipe_result *r);

/*
 * One model chunk's gradients of one kind (the dense ones, or the
 * experts', each in a buffer of its own), as Megatron-LM's DDP reduces
 * them with --overlap-grad-reduce: rows' parameters, in forward order,
 * their share of the pass that completes the chunk's gradients (the last
 * micro-batch's backward pass, or its W pass where split), and what a
 * bucket's reduction costs.
 */
struct pipe_grads {
	size_t nrows;
	const double *params;		/* [row]: parameters on a device */
	const double *share;		/* [row]: of the pass's time, sum 1 */
	double start_s, end_s;		/* the pass */
	double alpha_s, per_param_s;	/* a bucket: alpha + per_param n */
};

/*
 * The buckets of Megatron-LM core_v0.15.0 (param_and_grad_buffer.py):
 * a chunk's parameters from its last row back, a bucket closed once it
 * holds bucket_params (a row split across two where one fills), the rest
 * a last bucket; a bucket is ready when the pass, running the rows from
 * the last to the first each for its share, has finished the earliest
 * of its rows.  The buckets of all n chunks and kinds are reduced one at
 * a time in the order they become ready, from free_s on.  Returns when
 * the last reduction ends (free_s when there is none).
 */
double pipe_reduce_buckets(const struct pipe_grads *g, size_t n,
    double bucket_params, double free_s);

/*
 * The same buckets of rows' parameters params[0..nrows-1] (from the
 * last row back, bucket_params each, a row split where one fills, the
 * rest a last bucket), in forward order: where each begins, a row index
 * plus the share of that row's parameters before it (the rest bucket:
 * its first row with parameters), and its parameters.  Returns their
 * count (0: no parameters); *start and *size malloc'ed.
 */
size_t pipe_bucket_starts(const double *params, size_t nrows,
    double bucket_params, double **start, double **size);

#endif
