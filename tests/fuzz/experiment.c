/* experiment.c - fuzz the experiment config reader (experiment_load: libxml2, our schema, then
 * the rules a schema cannot state). */
#include "fuzz.h"
#include "model/config.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct experiment_cfg cfg;
	struct pl_err err;

	fuzz_expect(experiment_load(&cfg, fuzz_file("experiment.xml", data, size), &err),
	    &err);
	return 0;
}
