/* t-csvio.c - CSV edge cases through libcsv. */
#include <math.h>
#include <string.h>

#include "base/csvio.h"
#include "tap.h"

static int
parse(struct csvio_table *t, const char *text, struct pl_err *err)
{
	return csvio_parse(t, "x.csv", text, strlen(text), err);
}

static void
good_tables(void)
{
	struct csvio_table t;
	struct pl_err err;
	double v;
	long n;
	int c;

	OK(parse(&t, "a,b\n1,2\n3,4\n", &err) == 0, "plain table");
	EQ_INT(t.ncols, 2, "two columns");
	EQ_INT(t.nrows, 2, "two rows");
	EQ_STR(csvio_cell(&t, 1, 1), "4", "cell (1, 1)");
	EQ_INT(t.lines[1], 3, "second row is line 3");
	csvio_release(&t);

	OK(parse(&t, "\xEF\xBB\xBFname,note\r\nx,\"a, \"\"quoted\"\"\r\nline\"\r\n"
	    "y,plain\r\n", &err) == 0, "BOM, CRLF, quotes, embedded newline");
	EQ_STR(t.header[0], "name", "the BOM is not part of the first name");
	EQ_STR(csvio_cell(&t, 0, 1), "a, \"quoted\"\r\nline",
	    "quoted comma, doubled quote and newline kept");
	EQ_INT(t.nrows, 2, "two records over three lines");
	EQ_INT(t.lines[1], 4, "the record after a two-line field is on line 4");
	csvio_release(&t);

	OK(parse(&t, "a\n\n1\n\n2\n", &err) == 0, "blank lines are skipped");
	EQ_INT(t.nrows, 2, "two rows");
	EQ_INT(t.lines[1], 5, "line numbers count the blank lines");
	csvio_release(&t);

	OK(parse(&t, "a,b\n1,2", &err) == 0, "no newline at the end");
	EQ_INT(t.nrows, 1, "last record kept");
	csvio_release(&t);

	OK(parse(&t, "x_bytes,y_s,n\n1.5e3,-2,7\n,0.25,\n", &err) == 0, "typed");
	c = csvio_col(&t, "x_bytes", &err);
	EQ_INT(c, 0, "column found by name");
	OK(csvio_double(&t, 0, 0, CSVIO_NONNEG, &v, &err) == 0 && v == 1500,
	    "1.5e3 parses");
	OK(csvio_double(&t, 1, 0, CSVIO_OPTIONAL, &v, &err) == 1 && isnan(v),
	    "optional empty field");
	OK(csvio_long(&t, 0, 2, CSVIO_POSITIVE, &n, &err) == 0 && n == 7,
	    "integer");
	OK(csvio_double(&t, 0, 1, 0, &v, &err) == 0 && v == -2,
	    "negative allowed without NONNEG");
	csvio_release(&t);
}

static void
expect_error(const char *text, size_t line, const char *msg, const char *name)
{
	struct csvio_table t;
	struct pl_err err;
	char label[160];

	snprintf(label, sizeof(label), "%s: fails", name);
	if (!OK(parse(&t, text, &err) < 0, label)) {
		csvio_release(&t);
		return;
	}
	snprintf(label, sizeof(label), "%s: line", name);
	EQ_INT(err.line, line, label);
	snprintf(label, sizeof(label), "%s: message", name);
	EQ_STR(err.msg, msg, label);
}

static void
bad_tables(void)
{
	expect_error("", 1, "empty file: no header row", "empty file");
	expect_error("a,b\n1,2\n3\n", 3,
	    "expected 2 fields (as in the header), found 1", "short row");
	expect_error("a,a\n", 1, "header: duplicate column 'a'", "duplicate");
	expect_error("a,,c\n", 1, "header: column 2 has no name", "unnamed");
	expect_error("a\n\"open\n", 2,
	    "malformed CSV: error parsing data while strict checking enabled "
	    "(unterminated quoted field?)", "unterminated quote");
	expect_error("a\nx\"y\n", 2,
	    "malformed CSV: error parsing data while strict checking enabled",
	    "quote inside an unquoted field");
}

static void
bad_cells(void)
{
	struct csvio_table t;
	struct pl_err err;
	double v;
	long n;

	parse(&t, "v_bytes,k\n12abc,1.5\n-3,\ninf,0\n", &err);
	OK(csvio_col(&t, "w_bytes", &err) < 0, "missing column");
	EQ_STR(err.msg, "missing column 'w_bytes'", "missing column message");
	EQ_INT(err.line, 1, "missing column points at the header");
	OK(csvio_double(&t, 0, 0, 0, &v, &err) < 0, "trailing junk");
	EQ_STR(err.msg, "column 'v_bytes': invalid number '12abc'", "junk message");
	EQ_INT(err.line, 2, "junk line");
	OK(csvio_double(&t, 1, 0, CSVIO_NONNEG, &v, &err) < 0, "negative size");
	EQ_STR(err.msg, "column 'v_bytes': negative: '-3'", "negative message");
	OK(csvio_double(&t, 2, 0, 0, &v, &err) < 0, "infinity refused");
	OK(csvio_double(&t, 1, 1, 0, &v, &err) < 0, "empty refused");
	EQ_STR(err.msg, "column 'k': empty field", "empty message");
	OK(csvio_long(&t, 0, 1, 0, &n, &err) < 0, "1.5 is not an integer");
	OK(csvio_long(&t, 2, 1, CSVIO_POSITIVE, &n, &err) < 0, "0 not positive");
	csvio_release(&t);

	/* What strtod and strtol take but a table does not mean */
	parse(&t, "v,n\n0x10,0x10\nnan, 7\n-0,9223372036854775808\n"
	    "1e999,-0\n", &err);
	OK(csvio_double(&t, 0, 0, 0, &v, &err) < 0, "hex float refused");
	EQ_STR(err.msg, "column 'v': invalid number '0x10'", "hex message");
	OK(csvio_long(&t, 0, 1, 0, &n, &err) < 0, "hex integer refused");
	OK(csvio_double(&t, 1, 0, 0, &v, &err) < 0, "nan refused");
	OK(csvio_long(&t, 1, 1, 0, &n, &err) == 0 && n == 7,
	    "libcsv trims the blank before an unquoted field");
	OK(csvio_double(&t, 2, 0, CSVIO_NONNEG, &v, &err) == 0 && v == 0 &&
	    !signbit(v), "-0 is zero, stored as +0");
	OK(csvio_long(&t, 2, 1, 0, &n, &err) < 0, "2^63 refused");
	OK(csvio_double(&t, 3, 0, 0, &v, &err) < 0, "1e999 refused");
	OK(csvio_long(&t, 3, 1, CSVIO_NONNEG, &n, &err) == 0 && n == 0,
	    "integer -0 is zero");
	csvio_release(&t);
}

static void
bad_bytes(void)
{
	static const char nul[] = "a,b\n1,x\0y\n";
	struct csvio_table t;
	struct pl_err err;

	OK(csvio_parse(&t, "x.csv", nul, sizeof(nul) - 1, &err) < 0,
	    "NUL byte inside a field refused");
	EQ_STR(err.msg, "column 'b': contains a NUL byte", "NUL message");
	EQ_INT(err.line, 2, "NUL line");
	{
		static const char last[] = "a,b\n1,2\0";
		static const char quoted[] = "a,b\n1,\"x\0\ny\"\n";

		OK(csvio_parse(&t, "x.csv", last, sizeof(last) - 1, &err) < 0 &&
		    err.line == 2, "NUL in the last field, no newline: line 2");
		OK(csvio_parse(&t, "x.csv", quoted, sizeof(quoted) - 1, &err) < 0
		    && err.line == 2, "NUL before a newline in a quoted field: "
		    "its own line");
	}
	{
		/* RFC 3629, section 4's syntax: each refused at its byte */
		static const struct { const char *text; size_t at; } u[] = {
			{ "caf\xC3\xA9", 5 },		/* U+00E9: valid */
			{ "\xE2\x82\xAC\xF0\x9F\x98\x80", 7 }, /* U+20AC, U+1F600 */
			{ "\xF4\x8F\xBF\xBF", 4 },	/* U+10FFFF, the last */
			{ "caf\xE9", 3 },		/* Latin-1 e-acute */
			{ "\xC0\xAF", 0 },		/* overlong '/' */
			{ "\xE0\x80\xAF", 0 },	/* overlong, 3 bytes */
			{ "\xF0\x80\x80\xAF", 0 },	/* overlong, 4 bytes */
			{ "\xED\xA0\x80", 0 },	/* U+D800, a surrogate */
			{ "\xF4\x90\x80\x80", 0 },	/* U+110000 */
			{ "a\xE2\x82", 1 },		/* cut short */
			{ "\xE2\x28\xA1", 0 },	/* bad continuation */
			{ "\x80", 0 },			/* a lone continuation */
			{ "\xFF", 0 },
		};
		static const char latin1[] = "a,b\n1,2\n3,caf\xE9\n";

		for (size_t i = 0; i < sizeof u / sizeof u[0]; i++)
			EQ_INT(utf8_invalid_at(u[i].text, strlen(u[i].text)),
			    u[i].at, u[i].text);
		OK(csvio_parse(&t, "x.csv", latin1, sizeof(latin1) - 1, &err)
		    < 0 && err.line == 3, "Latin-1 refused at its line");
		EQ_STR(err.msg, "column 'b': not UTF-8 text (byte 0xE9)",
		    "UTF-8 message");
	}
	OK(parse(&t, "a,b\n", &err) == 0 && csvio_need_rows(&t, "things",
	    &err) < 0, "header only");
	EQ_STR(err.msg, "header only: no things", "header-only message");
	EQ_INT(err.line, 1, "header-only line");
	csvio_release(&t);
}

static void
writer(void)
{
	const char *f[4] = { "plain", "a,b", "say \"hi\"", NULL };
	char buf[128] = { 0 };
	FILE *fp = fmemopen(buf, sizeof(buf), "w");

	csvio_write_row(fp, f, 4);
	fclose(fp);
	EQ_STR(buf, "plain,\"a,b\",\"say \"\"hi\"\"\",\n",
	    "quotes only where needed, NULL is empty");
}

int
main(void)
{
	good_tables();
	bad_tables();
	bad_cells();
	bad_bytes();
	writer();
	return tap_done();
}
