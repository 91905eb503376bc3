/*
 * csvio.h - CSV tables through libcsv, columns looked up by name.
 *
 * A table is read whole: the first record is the header (mandatory, names
 * unique and non-empty), every later record must have as many fields.
 * Quoted fields, embedded newlines, CRLF line ends and a UTF-8 byte-order
 * mark are accepted; blank lines are skipped.  Every row remembers the
 * physical line it starts on, so errors read "file:line: column 'x': ...".
 *
 *	struct csvio_table t;
 *	int c;
 *	double v;
 *
 *	if (csvio_read(&t, "layers.csv", &err) < 0)
 *		die_err(&err);
 *	if ((c = csvio_col(&t, "forward_s", &err)) < 0)
 *		die_err(&err);
 *	for (size_t r = 0; r < t.nrows; r++)
 *		if (csvio_double(&t, r, c, CSVIO_NONNEG, &v, &err) < 0)
 *			die_err(&err);
 *	csvio_release(&t);
 *
 * Writing: csvio_write_row() quotes a field only when it must.
 */
#ifndef NP_CSVIO_H
#define NP_CSVIO_H

/* The most fields a row may have (the widest table of ours has 25). */
#define CSVIO_MAX_FIELDS 1024

#include <stdint.h>
#include <stdio.h>

#include "base/util.h"

struct csvio_table {
	char *file;		/* name used in messages ("-" for stdin) */
	size_t ncols;
	char **header;		/* ncols names */
	size_t nrows;
	char *text;		/* every cell's text, each NUL-terminated */
	size_t textlen;
	uint32_t *cells;	/* nrows * ncols offsets into text, row-major */
	size_t *lines;		/* physical line each row starts on */
};

/* Read `path` ("-" or NULL: stdin).  On error nothing needs releasing. */
int csvio_read(struct csvio_table *t, const char *path, struct pl_err *err);
/* Same, refusing a table of more than max_rows rows at its next row's
 * line: "file:line: more than N rows: <why_max>" (a table no real input
 * is, read no further than that).  max_rows 0: any number. */
int csvio_read_max(struct csvio_table *t, const char *path, size_t max_rows,
    const char *why_max, struct pl_err *err);
/* Same, from a buffer; `name` is used in messages. */
int csvio_parse(struct csvio_table *t, const char *name, const char *buf,
    size_t len, struct pl_err *err);
void csvio_release(struct csvio_table *t);

/* 0 when the table has rows; else -1 with "file:1: header only: no
 * <what>". */
int csvio_need_rows(const struct csvio_table *t, const char *what,
    struct pl_err *err);

/* Index of column `name`, or -1 with "file:1: missing column 'name'". */
int csvio_col(const struct csvio_table *t, const char *name, struct pl_err *err);
/* Index of column `name`, or -1 without an error (optional columns). */
int csvio_col_opt(const struct csvio_table *t, const char *name);

static inline const char *
csvio_cell(const struct csvio_table *t, size_t row, int col)
{
	return t->text + t->cells[row * t->ncols + (size_t)col];
}

/* Flags for the typed getters. */
enum {
	CSVIO_NONNEG = 1,	/* value >= 0 */
	CSVIO_POSITIVE = 2,	/* value > 0 */
	CSVIO_OPTIONAL = 4	/* empty field allowed: *out = NAN / 0, returns 1 */
};

/*
 * Parse a cell; on error "file:line: column 'x': invalid number 'abc'".
 * Return 0, 1 for an allowed empty field, -1 on error.
 */
int csvio_double(const struct csvio_table *t, size_t row, int col, int flags,
    double *out, struct pl_err *err);
int csvio_long(const struct csvio_table *t, size_t row, int col, int flags,
    long *out, struct pl_err *err);
/* A cell that must be one of `choices` (NULL-terminated); returns its index. */
int csvio_enum(const struct csvio_table *t, size_t row, int col,
    const char *const *choices, struct pl_err *err);

/* Write one record of n fields (a NULL field is written empty). */
int csvio_write_row(FILE *fp, const char *const *fields, size_t n);

#endif
