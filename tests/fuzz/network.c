/* network.c - fuzz the network config reader (network_load: libxml2, our schema, then
 * the rules a schema cannot state). */
#include "fuzz.h"
#include "model/config.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct network cfg;
	struct pl_err err;

	fuzz_expect(network_load(&cfg, fuzz_file("network.xml", data, size), &err),
	    &err);
	return 0;
}
