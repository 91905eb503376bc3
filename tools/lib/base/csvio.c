/* csvio.c - CSV tables through libcsv. */
#include <csv.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/csvio.h"

/* The state the libcsv callbacks fill while a buffer is parsed. */
struct reader {
	struct csvio_table *t;
	struct pl_err *err;
	int failed;
	size_t line;		/* physical line being fed */
	size_t row_line;	/* line the current record started on */
	uint32_t *fields;	/* the current record's offsets into t->text */
	size_t nfields, capfields;
	size_t textcap;		/* capacity of t->text */
	size_t caprows;		/* capacity of t->cells in rows */
	size_t max_rows;	/* 0: any number */
	const char *why_max;	/* what a table of more rows would be */
};

/* Drop the current record: its fields and their text. */
static void
free_fields(struct reader *r)
{
	if (r->nfields > 0)
		r->t->textlen = r->fields[0];
	r->nfields = 0;
}

/* Append a field's text, NUL-terminated, to the table's one buffer: a
 * cell costs its bytes and a 4-byte offset, not an allocation of its own
 * (a 16 MB table of short cells would take ten times its size). */
static int
append_text(struct reader *r, const char *s, size_t len)
{
	struct csvio_table *t = r->t;

	if (len >= UINT32_MAX - t->textlen) {
		pl_errf(r->err, t->file, r->row_line, "more than 4 GB of text");
		return -1;
	}
	if (t->textlen + len + 1 > r->textcap) {
		while (t->textlen + len + 1 > r->textcap)
			r->textcap = r->textcap ? r->textcap * 2 : 4096;
		t->text = xrealloc(t->text, r->textcap);
	}
	memcpy(t->text + t->textlen, s, len);
	t->text[t->textlen + len] = '\0';
	t->textlen += len + 1;
	return 0;
}

/* The field being read is refused: "file:line: column 'x': why" (the
 * header's column name, once the header is read). */
static void
bad_field(struct reader *r, size_t line, const char *why)
{
	const struct csvio_table *t = r->t;

	if (t->header && r->nfields < t->ncols)
		pl_errf(r->err, t->file, line, "column '%s': %s",
		    t->header[r->nfields], why);
	else
		pl_errf(r->err, t->file, line, "field %zu: %s", r->nfields + 1,
		    why);
}

static void
on_field(void *s, size_t len, void *data)
{
	struct reader *r = data;
	const char *nul;
	size_t bad;
	char why[64];

	if (r->failed)
		return;
	if (r->nfields == 0)
		r->row_line = r->line;
	/* A NUL would silently cut the field short where C reads it. */
	if (s && (nul = memchr(s, '\0', len)) != NULL) {
		size_t line = r->line;	/* the line the field ends on */

		for (const char *c = nul; c < (const char *)s + len; c++)
			line -= *c == '\n';
		bad_field(r, line, "contains a NUL byte");
		r->failed = 1;
		free_fields(r);
		return;
	}
	/* Our tables are UTF-8, as every output is; a Latin-1 label would
	 * be copied into them as bytes no reader could decode. */
	if (s && (bad = utf8_invalid_at(s, len)) < len) {
		size_t line = r->line;

		for (const char *c = (const char *)s + bad;
		    c < (const char *)s + len; c++)
			line -= *c == '\n';
		snprintf(why, sizeof why, "not UTF-8 text (byte 0x%02X)",
		    ((const unsigned char *)s)[bad]);
		bad_field(r, line, why);
		r->failed = 1;
		free_fields(r);
		return;
	}
	/* no table of ours is this wide; the header's duplicate check
	 * stays cheap */
	if (r->nfields == CSVIO_MAX_FIELDS) {
		pl_errf(r->err, r->t->file, r->row_line, "more than %d fields "
		    "in a row", CSVIO_MAX_FIELDS);
		r->failed = 1;
		free_fields(r);
		return;
	}
	if (r->nfields == r->capfields) {
		r->capfields = r->capfields ? r->capfields * 2 : 16;
		r->fields = xrealloc(r->fields, r->capfields * sizeof(*r->fields));
	}
	r->fields[r->nfields++] = (uint32_t)r->t->textlen;
	if (append_text(r, s ? s : "", s ? len : 0) < 0) {
		r->failed = 1;
		free_fields(r);
	}
}

static void
on_record(int term, void *data)
{
	struct reader *r = data;
	struct csvio_table *t = r->t;

	(void)term;
	if (r->failed) {
		free_fields(r);
		return;
	}
	if (t->header == NULL) {
		t->header = xcalloc(r->nfields, sizeof(char *));
		t->ncols = r->nfields;	/* so that a failure frees them */
		for (size_t i = 0; i < r->nfields; i++) {
			t->header[i] = xstrdup(t->text + r->fields[i]);
			if (t->header[i][0] == '\0') {
				pl_errf(r->err, t->file, r->row_line,
				    "header: column %zu has no name", i + 1);
				goto fail;
			}
			for (size_t j = 0; j < i; j++)
				if (strcmp(t->header[i], t->header[j]) == 0) {
					pl_errf(r->err, t->file, r->row_line,
					    "header: duplicate column '%s'",
					    t->header[i]);
					goto fail;
				}
		}
		free_fields(r);
		return;
	}
	if (r->nfields != t->ncols) {
		pl_errf(r->err, t->file, r->row_line,
		    "expected %zu fields (as in the header), found %zu",
		    t->ncols, r->nfields);
		goto fail;
	}
	if (r->max_rows && t->nrows == r->max_rows) {
		pl_errf(r->err, t->file, r->row_line, "more than %zu rows: %s",
		    r->max_rows, r->why_max);
		goto fail;
	}
	if (t->nrows == r->caprows) {
		r->caprows = r->caprows ? r->caprows * 2 : 64;
		t->cells = xrealloc(t->cells, r->caprows * t->ncols *
		    sizeof(*t->cells));
		t->lines = xrealloc(t->lines, r->caprows * sizeof(size_t));
	}
	memcpy(t->cells + t->nrows * t->ncols, r->fields,
	    t->ncols * sizeof(*t->cells));
	t->lines[t->nrows++] = r->row_line;
	r->nfields = 0;
	return;
fail:
	r->failed = 1;
	free_fields(r);
}

/* Parse with an optional cap on the rows (csvio_read_max). */
static int
parse_capped(struct csvio_table *t, const char *name, const char *buf,
    size_t len, size_t max_rows, const char *why_max, struct pl_err *err)
{
	struct csv_parser p;
	struct reader r;
	const char *line, *end = buf + len, *nl;

	memset(t, 0, sizeof(*t));
	memset(&r, 0, sizeof(r));
	t->file = xstrdup(name ? name : "-");
	r.t = t;
	r.err = err;
	r.max_rows = max_rows;
	r.why_max = why_max;
	if (csv_init(&p, CSV_STRICT | CSV_STRICT_FINI | CSV_APPEND_NULL) != 0)
		die("out of memory");
	if (len >= 3 && memcmp(buf, "\xEF\xBB\xBF", 3) == 0)
		buf += 3;
	/* Feed one physical line at a time so each record knows its line;
	 * a line ends at LF, CRLF or a lone CR, as libcsv reads them. */
	for (line = buf, r.line = 1; line < end && !r.failed; line = nl, r.line++) {
		nl = line;
		while (nl < end && *nl != '\n' && *nl != '\r')
			nl++;
		if (nl < end)	/* past the line end, CRLF as one */
			nl += *nl == '\r' && nl + 1 < end && nl[1] == '\n' ? 2 : 1;
		if (csv_parse(&p, line, (size_t)(nl - line), on_field, on_record,
		    &r) != (size_t)(nl - line)) {
			pl_errf(err, t->file, r.line, "malformed CSV: %s",
			    csv_strerror(csv_error(&p)));
			r.failed = 1;
		}
	}
	/* the last record, without its newline, ends on the last line */
	if (r.line > 1)
		r.line--;
	if (!r.failed && csv_fini(&p, on_field, on_record, &r) != 0) {
		pl_errf(err, t->file, r.line,
		    "malformed CSV: %s (unterminated quoted field?)",
		    csv_strerror(csv_error(&p)));
		r.failed = 1;
	}
	csv_free(&p);
	free_fields(&r);
	free(r.fields);
	if (!r.failed && t->header == NULL) {
		pl_errf(err, t->file, 1, "empty file: no header row");
		r.failed = 1;
	}
	if (r.failed) {
		csvio_release(t);
		return -1;
	}
	return 0;
}

int
csvio_parse(struct csvio_table *t, const char *name, const char *buf,
    size_t len, struct pl_err *err)
{
	return parse_capped(t, name, buf, len, 0, NULL, err);
}

int
csvio_read_max(struct csvio_table *t, const char *path, size_t max_rows,
    const char *why_max, struct pl_err *err)
{
	char *buf;
	size_t len;
	int ret;

	memset(t, 0, sizeof(*t));
	if (read_file(path, &buf, &len, err) < 0)
		return -1;
	ret = parse_capped(t, path ? path : "-", buf, len, max_rows, why_max,
	    err);
	free(buf);
	return ret;
}

int
csvio_read(struct csvio_table *t, const char *path, struct pl_err *err)
{
	return csvio_read_max(t, path, 0, NULL, err);
}

void
csvio_release(struct csvio_table *t)
{
	for (size_t i = 0; t->header && i < t->ncols; i++)
		free(t->header[i]);
	free(t->text);
	free(t->cells);
	free(t->header);
	free(t->lines);
	free(t->file);
	memset(t, 0, sizeof(*t));
}

int
csvio_need_rows(const struct csvio_table *t, const char *what,
    struct pl_err *err)
{
	if (t->nrows > 0)
		return 0;
	return pl_errf(err, t->file, 1, "header only: no %s", what);
}

int
csvio_col_opt(const struct csvio_table *t, const char *name)
{
	for (size_t i = 0; i < t->ncols; i++)
		if (strcmp(t->header[i], name) == 0)
			return (int)i;
	return -1;
}

int
csvio_col(const struct csvio_table *t, const char *name, struct pl_err *err)
{
	int c = csvio_col_opt(t, name);

	if (c < 0)
		pl_errf(err, t->file, 1, "missing column '%s'", name);
	return c;
}

static int
cell_error(const struct csvio_table *t, size_t row, int col, const char *why,
    struct pl_err *err)
{
	return pl_errf(err, t->file, t->lines[row], "column '%s': %s",
	    t->header[col], why);
}

int
csvio_double(const struct csvio_table *t, size_t row, int col, int flags,
    double *out, struct pl_err *err)
{
	const char *s = csvio_cell(t, row, col);
	double min = (flags & (CSVIO_NONNEG | CSVIO_POSITIVE)) ? 0 : -HUGE_VAL;
	char why[256];

	if (*s == '\0' && (flags & CSVIO_OPTIONAL)) {
		*out = NAN;
		return 1;
	}
	if (*s == '\0')
		return cell_error(t, row, col, "empty field", err);
	if (parse_double(s, min, PL_NUMBER_MAX, out, why, sizeof(why)) < 0)
		return cell_error(t, row, col, why, err);
	if ((flags & CSVIO_POSITIVE) && *out == 0) {
		snprintf(why, sizeof(why), "must be positive: '%s'", s);
		return cell_error(t, row, col, why, err);
	}
	return 0;
}

int
csvio_long(const struct csvio_table *t, size_t row, int col, int flags,
    long *out, struct pl_err *err)
{
	const char *s = csvio_cell(t, row, col);
	long min = (flags & CSVIO_POSITIVE) ? 1 : (flags & CSVIO_NONNEG) ? 0 :
	    -2147483647L;
	char why[256];

	if (*s == '\0' && (flags & CSVIO_OPTIONAL)) {
		*out = 0;
		return 1;
	}
	if (*s == '\0')
		return cell_error(t, row, col, "empty field", err);
	if (parse_long(s, min, 2147483647L, out, why, sizeof(why)) < 0)
		return cell_error(t, row, col, why, err);
	return 0;
}

int
csvio_enum(const struct csvio_table *t, size_t row, int col,
    const char *const *choices, struct pl_err *err)
{
	const char *s = csvio_cell(t, row, col);
	char why[512];
	size_t n = 0;

	for (int i = 0; choices[i]; i++)
		if (strcmp(s, choices[i]) == 0)
			return i;
	n = (size_t)snprintf(why, sizeof(why), "'%s' is not one of", s);
	for (int i = 0; choices[i] && n < sizeof(why); i++)
		n += (size_t)snprintf(why + n, sizeof(why) - n, "%s %s",
		    i ? "," : "", choices[i]);
	return cell_error(t, row, col, why, err);
}

int
csvio_write_row(FILE *fp, const char *const *fields, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const char *f = fields[i] ? fields[i] : "";

		if (i > 0 && fputc(',', fp) == EOF)
			return -1;
		if (strpbrk(f, ",\"\r\n") != NULL) {
			if (csv_fwrite(fp, f, strlen(f)) != 0)
				return -1;
		} else if (fputs(f, fp) == EOF) {
			return -1;
		}
	}
	return fputc('\n', fp) == EOF ? -1 : 0;
}
