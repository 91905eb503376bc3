/* network.c - fuzz the network config reader (network_load: libxml2, our
 * schema, then the rules a schema cannot state), and the collectives
 * priced on what it accepts. */
#include <math.h>

#include "fuzz.h"
#include "model/config.h"
#include "model/netmodel.h"

/* Every collective over the whole network costs a finite, non-negative
 * time; an all-reduce no more a byte than the ring's two passes (what
 * a reduce-scatter and an all-gather cost), the in-fabric reduction
 * being taken only where cheaper. */
static void
check_costs(const struct network *net)
{
	struct net_shape s;
	long k[NET_MAX_LEVELS];
	struct net_cost c[NET_NCOLL];

	for (int l = 0; l < net->nlevels; l++)
		k[l] = net->level[l].fanout;
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
