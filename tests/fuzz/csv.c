/* csv.c - fuzz the CSV reader (libcsv through csvio) and its typed cells. */
#include <string.h>

#include "base/csvio.h"
#include "fuzz.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct csvio_table t;
	struct pl_err err;
	int rc = csvio_read(&t, fuzz_file("table.csv", data, size), &err);

	fuzz_expect(rc, &err);
	if (rc < 0)
		return 0;
	/* every cell as each kind of number the tools ask for */
	for (size_t r = 0; r < t.nrows; r++)
		for (size_t c = 0; c < t.ncols; c++) {
			double v;
			long n;
			int k = csvio_double(&t, r, (int)c, CSVIO_NONNEG |
			    CSVIO_OPTIONAL, &v, &err);

			fuzz_expect(k < 0 ? -1 : 0, &err);
			k = csvio_long(&t, r, (int)c, CSVIO_POSITIVE, &n, &err);
			fuzz_expect(k < 0 ? -1 : 0, &err);
		}
	csvio_release(&t);
	return 0;
}
