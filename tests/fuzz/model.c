/* model.c - fuzz the model config reader (model_load: libxml2, our schema, then
 * the rules a schema cannot state). */
#include "fuzz.h"
#include "model/config.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct model_cfg cfg;
	struct pl_err err;

	fuzz_expect(model_load(&cfg, fuzz_file("model.xml", data, size), &err),
	    &err);
	return 0;
}
