/* accelerator.c - fuzz the accelerator config reader (accel_load: libxml2, our schema, then
 * the rules a schema cannot state). */
#include "fuzz.h"
#include "model/config.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct accel_cfg cfg;
	struct pl_err err;

	fuzz_expect(accel_load(&cfg, fuzz_file("accelerator.xml", data, size), &err),
	    &err);
	return 0;
}
