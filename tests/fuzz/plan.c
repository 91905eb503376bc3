/* plan.c - fuzz the plan reader of dpsolve -E (planio_read_plan) on a
 * fixed graph, then price every plan it accepts (plan_evaluate) on the
 * tiny 2 x 2 network, as dpsolve -E would. */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "io/planio.h"
#include "model/config.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct network net;
	static struct variants vs;
	static int ready;
	struct plan_env env;
	struct plan p;
	struct plan_result res;
	struct pl_err err;
	int rc;

	if (!ready) {
		char *graph[1] = { (char *)"tests/dpsolve/tiny-v.csv" };

		if (network_load(&net, "tests/dpsolve/tiny-net.xml", &err) < 0 ||
		    planio_read_variants(&vs, graph, 1, &err) < 0) {
			fuzz_expect(-1, &err);
			__builtin_trap();
		}
		ready = 1;
	}
	rc = planio_read_plan(fuzz_file("plan.xml", data, size), &vs, &p, &err);
	fuzz_expect(rc, &err);
	if (rc < 0)
		return 0;
	memset(&env, 0, sizeof(env));
	env.net = &net;
	env.devices = net.ndevices;
	env.memory_bytes = 16e9;
	env.optimizer = OPT_ADAM;
	env.global_batch = 64;
	env.grad_bytes_per_param = 2;
	env.grad_copies = 1;
	rc = plan_evaluate(&env, &p, &res, &err);
	fuzz_expect(rc, &err);
	if (rc == 0)
		plan_result_release(&res);
	free(p.stage);
	return 0;
}
