/*
 * util.h - errors, number parsing and atomic output shared by every tool.
 *
 * Library functions never exit: they return 0 on success and -1 on failure,
 * filling a `struct pl_err` with the coordinate of the problem (file and line,
 * line 0 when there is none) and a one-line message.  Only the tool layer
 * turns that into a message on stderr and an exit status (die(), usage()).
 *
 * Messages follow one grammar:  tool: file:line: what: reason
 */
#ifndef NP_UTIL_H
#define NP_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

struct pl_err {
	char file[512];		/* "" when the error has no file */
	size_t line;		/* 0 when the error has no line */
	char msg[768];
};

/* Fill `err` (may be NULL).  `file` may be NULL.  Always returns -1. */
int pl_errf(struct pl_err *err, const char *file, size_t line,
    const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* Format `err` as "file:line: msg" (the parts that exist) into buf. */
const char *pl_err_str(const struct pl_err *err, char *buf, size_t len);

/* Wrap the error of a file that `file:line` refers to by name:
 * "file:line: what 'name': <the referenced file's error>".  Returns -1. */
int pl_err_ref(struct pl_err *err, const char *file, size_t line,
    const char *what, const char *name);

/*
 * Tool-layer helpers.  die() prints "prog: msg" and exits 1; a message that
 * ends in ':' gets ": strerror(errno)" appended (sbase eprintf).  die_err()
 * prints a pl_err.  warnx() prints without exiting.
 */
void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
void die_err(const struct pl_err *err) __attribute__((noreturn));
void warnx(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * The largest number a table or config may hold (bytes, seconds, FLOP/s,
 * bytes a second): anything larger is a typo or an attack, and products
 * of such numbers with up to 2^30 devices and micro-batches stay finite.
 */
#define PL_NUMBER_MAX 1e18

/*
 * Strict number parsing: the whole string must be a number, no trailing
 * junk, no empty string, finite, and within [min, max].  On failure the
 * reason ("invalid number 'x'", "too large: 'x' (max 8)") is written to
 * why (size whylen) and -1 is returned.
 */
int parse_double(const char *s, double min, double max, double *out,
    char *why, size_t whylen);
int parse_long(const char *s, long min, long max, long *out,
    char *why, size_t whylen);

/*
 * getopt with a leading ':' in the optstring and opterr = 0 returns '?'
 * or ':'; bad_option() says which option was wrong, in our grammar
 * ("prog: -x: unknown option"), before the tool prints its usage.
 */
void bad_option(int ch);

/*
 * The end of a tool's usage text: exit(status), or exit 1 with "prog:
 * write error on standard output: ..." when the text went to standard
 * output and could not all be written there (-h > /dev/full), as
 * coreutils' close_stdout does.
 */
void usage_exit(FILE *fp, int status) __attribute__((noreturn));

/*
 * A tool's several forms take different options: seen[c] is set for each
 * option character getopt returned; the first of them not in `allowed`
 * (a form's options), or 0.  The tool then says "-c: not with ..." and
 * exits 2.
 */
#define OPT_SEEN_MAX 128
int opt_first_outside(const unsigned char seen[OPT_SEEN_MAX],
    const char *allowed);

/* Is "--help" among the arguments (before a "--")?  Every tool takes it
 * as -h. */
int wants_help(int argc, char *const argv[]);

/*
 * Option arguments: parse, or exit 2 (a usage error) with
 * "prog: -k: too large: '9' (max 8)".
 */
double opt_double(int flag, const char *arg, double min, double max);
long opt_long(int flag, const char *arg, long min, long max);

/* An option K/N (a progress counter: whole numbers, 1 <= K <= N):
 * the argument, or exit 2 after "prog: -i: 'x' is not K/N ...". */
const char *opt_progress(int flag, const char *arg);

/* An option that takes one of two words: 0 for the first, 1 for the
 * second, or -1 after "prog: -k: 'x' is not first or second" (the tool
 * then prints its usage and exits 2). */
int opt_one_of(int flag, const char *arg, const char *first,
    const char *second);
/* The same, a word that is neither ending in the tool's usage(stderr, 2),
 * which does not return. */
int opt_word(int flag, const char *arg, const char *first, const char *second,
    void (*usage)(FILE *, int));

/*
 * The one format every double is printed in: integral values below 2^53
 * exactly ("%.0f": byte counts never lose a digit), others "%.12g"; "-0"
 * is printed as "0".  Outputs are byte-stable.  buf must hold NUMFMT_LEN
 * bytes.
 */
#define NUMFMT_LEN 32
const char *numfmt(char *buf, double v);

/*
 * Atomic output.  outfile_open(path) opens "path.tmp.PID" (standard output,
 * path NULL or "-", is kept in memory until the commit; a symbolic link, a
 * device or a pipe is written in place, as a rename would replace it; a
 * directory is refused); outfile_commit() checks every write, closes and
 * renames into place; outfile_commit_all() does so for a tool's several
 * outputs, none put in place unless all were written; outfile_abort()
 * removes the temporary file, as exit() and a fatal signal do for any not
 * committed.  So a failed run leaves no partial output behind, and a tool
 * that opens its outputs first learns of a bad path before its work.
 */
struct outfile {
	FILE *fp;
	char *path;		/* NULL for stdout */
	char *tmp;		/* NULL when written in place */
	char *mem;		/* stdout's text until the commit */
	size_t memlen;
};
int outfile_open(struct outfile *o, const char *path, struct pl_err *err);
int outfile_commit(struct outfile *o, struct pl_err *err);
int outfile_commit_all(struct outfile *const *o, size_t n, struct pl_err *err);
void outfile_abort(struct outfile *o);

/* Memory helpers that exit on exhaustion (tool and library alike: an
 * allocation failure is not an input error to be reported gracefully). */
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
/* The offset of the first byte of s[0..len) that is not well-formed UTF-8
 * (RFC 3629: no overlong form, surrogate or code point past U+10FFFF), or
 * len when all of it is. */
size_t utf8_invalid_at(const char *s, size_t len);
/* How many of paths[0..n) (NULL: not given) are "-", standard input,
 * which a run can read once. */
size_t stdin_count(const char *const *paths, size_t n);
/* A new string, printf-formatted. */
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *xvasprintf(const char *fmt, va_list ap) __attribute__((format(printf, 1,
    0)));

/* Read a whole file ("-" or NULL: stdin) into a NUL-terminated buffer,
 * refusing one of more than READ_FILE_MAX bytes (no table or config of
 * ours comes near; /dev/zero would never end). */
#define READ_FILE_MAX (16L << 20)
int read_file(const char *path, char **buf, size_t *len, struct pl_err *err);
/* Same, with a smaller cap of max_bytes (at most READ_FILE_MAX). */
int read_file_max(const char *path, char **buf, size_t *len, long max_bytes,
    struct pl_err *err);

/* Seconds on the monotonic clock, for the timing columns. */
double monotonic_s(void);

/* The greatest common divisor of two non-negative numbers (gcd(a, 0) is
 * a). */
long gcd_long(long a, long b);

#endif
