/*
 * testnet.h - building a network by hand in the unit tests: level l with
 * its fanout, bandwidth and latency, not oversubscribed, ring collectives.
 * Call network_finish() once every level is set.
 */
#ifndef NP_TESTNET_H
#define NP_TESTNET_H

#include "model/netmodel.h"

static inline void
level(struct network *n, int l, long fanout, double bw, double lat)
{
	n->level[l].fanout = fanout;
	n->level[l].bandwidth_Bps = bw;
	n->level[l].latency_s = lat;
	n->level[l].oversubscription = 1;
	n->level[l].algo = NET_RING;
}

#endif
