/* speeds.c - fuzz the device speeds reader (dpsolve and pipesim -J) and
 * the expected slowest device over it. */
#include "fuzz.h"
#include "model/straggler.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const long jobs[] = { 1, 2, 64, 16384, 1L << 30 };
	struct straggler_table t;
	struct pl_err err;
	double last = 0;
	int rc = straggler_read(&t, fuzz_file("speeds.csv", data, size),
	    &err);

	fuzz_expect(rc, &err);
	if (rc < 0)
		return 0;
	/* the expected slowest lies within the table's times and grows
	 * with the job, exactly: the sum's form keeps its rounding there */
	for (size_t i = 0; i < sizeof jobs / sizeof jobs[0]; i++) {
		double x = straggler_expected_slowest(&t, jobs[i]);

		if (!(x >= t.relative_time[0] &&
		    x <= t.relative_time[t.n - 1] && x >= last))
			__builtin_trap();
		last = x;
	}
	straggler_release(&t);
	return 0;
}
