/* network.c - fuzz the network config reader (network_load: libxml2, our
 * schema, then the rules a schema cannot state), and the collectives
 * priced on what it accepts. */
#include <math.h>

#include "fuzz.h"
#include "model/config.h"
#include "model/netmodel.h"

/* Every collective over a group costs a finite, non-negative time; an
 * all-reduce no more a byte than the ring's two passes (what a
 * reduce-scatter and an all-gather cost), the in-fabric reduction being
 * taken only where cheaper. */
static void
check_shape(const struct network *net, const long *k)
{
	struct net_shape s;
	struct net_cost c[NET_NCOLL];

	net_shape_uniform(net, k, &s);
	for (int i = 0; i < NET_NCOLL; i++) {
		c[i] = net_collective(net, (enum net_coll)i, &s);
		if (!(c[i].alpha_s >= 0 && isfinite(c[i].alpha_s) &&
		    c[i].beta_s_per_byte >= 0 && isfinite(c[i].beta_s_per_byte)))
			__builtin_trap();
	}
	if (c[NET_ALL_REDUCE].beta_s_per_byte > (1 + 1e-12) *
	    (c[NET_REDUCE_SCATTER].beta_s_per_byte +
	    c[NET_ALL_GATHER].beta_s_per_byte))
		__builtin_trap();
}

/* The whole network, and at each level 2, 3, 4 or all of its groups
 * meeting over whole groups below (the ring's or the fabric's choice
 * turns on how many meet). */
static void
check_costs(const struct network *net)
{
	static const long few[] = { 2, 3, 4, 0 };
	long k[NET_MAX_LEVELS];

	for (int l = 0; l < net->nlevels; l++)
		k[l] = net->level[l].fanout;
	check_shape(net, k);
	for (int l = 0; l < net->nlevels; l++)
		for (size_t i = 0; i < sizeof few / sizeof few[0]; i++) {
			for (int j = 0; j < net->nlevels; j++)
				k[j] = j < l ? net->level[j].fanout : 1;
			k[l] = few[i] ? few[i] : net->level[l].fanout;
			if (k[l] <= net->level[l].fanout)
				check_shape(net, k);
		}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct network cfg;
	struct pl_err err;
	int rc = network_load(&cfg, fuzz_file("network.xml", data, size),
	    &err);

	fuzz_expect(rc, &err);
	if (rc == 0)
		check_costs(&cfg);
	return 0;
}
