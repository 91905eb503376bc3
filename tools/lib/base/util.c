/* util.c - errors, strict number parsing, atomic output. */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdatomic.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/util.h"

/* What a plain decimal number may contain (strtod and strtol take more). */
#define DECIMAL_CHARS "0123456789+-"

static void
replace_controls(char *s, char with)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			*s = with;
}

int
pl_errf(struct pl_err *err, const char *file, size_t line, const char *fmt, ...)
{
	va_list ap;

	if (err == NULL)
		return -1;
	snprintf(err->file, sizeof(err->file), "%s", file ? file : "");
	err->line = line;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	/* one line, whatever the input quoted in it held (a newline in an
	 * element's text, a libxml2 message of two lines, a control byte) */
	replace_controls(err->msg, ' ');
	replace_controls(err->file, '?');
	return -1;
}

const char *
pl_err_str(const struct pl_err *err, char *buf, size_t len)
{
	if (err->file[0] && err->line)
		snprintf(buf, len, "%s:%zu: %s", err->file, err->line, err->msg);
	else if (err->file[0])
		snprintf(buf, len, "%s: %s", err->file, err->msg);
	else
		snprintf(buf, len, "%s", err->msg);
	return buf;
}

int
pl_err_ref(struct pl_err *err, const char *file, size_t line,
    const char *what, const char *name)
{
	char inner[1400];

	pl_err_str(err, inner, sizeof(inner));
	return pl_errf(err, file, line, "%s '%s': %s", what, name, inner);
}

static void vwarn(const char *fmt, va_list ap)
    __attribute__((format(printf, 1, 0)));

static void
vwarn(const char *fmt, va_list ap)
{
	int saved = errno;
	size_t n = strlen(fmt);

	fprintf(stderr, "%s: ", program_invocation_short_name);
	vfprintf(stderr, fmt, ap);
	if (n > 0 && fmt[n - 1] == ':')
		fprintf(stderr, " %s", strerror(saved));
	fputc('\n', stderr);
}

void
die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vwarn(fmt, ap);
	va_end(ap);
	exit(1);
}

void
warnx(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vwarn(fmt, ap);
	va_end(ap);
}

void
die_err(const struct pl_err *err)
{
	char buf[1400];

	die("%s", pl_err_str(err, buf, sizeof(buf)));
}

int
parse_double(const char *s, double min, double max, double *out,
    char *why, size_t whylen)
{
	char *end;
	double v;

	if (s == NULL || *s == '\0') {
		snprintf(why, whylen, "missing number");
		return -1;
	}
	/* Plain decimal only: strtod would also take "0x10", "inf", "nan"
	 * and leading blanks, none of which a config or table means. */
	if (s[strspn(s, DECIMAL_CHARS "eE.")] != '\0') {
		snprintf(why, whylen, "invalid number '%s'", s);
		return -1;
	}
	errno = 0;
	v = strtod(s, &end);
	if (end == s || *end != '\0' || errno == ERANGE || !isfinite(v)) {
		snprintf(why, whylen, "invalid number '%s'", s);
		return -1;
	}
	if (v == 0)
		v = 0;		/* "-0" is zero, not a negative number */
	/* A value that rounds onto a bound is compared in long double,
	 * where 10^18 + 1 is not 10^18 (x86-64: 64-bit mantissa). */
	if (v != 0 && (v == min || v == max)) {
		long double lv = strtold(s, NULL);

		if (lv < (long double)min)
			v = nextafter(min, -INFINITY);
		else if (lv > (long double)max)
			v = nextafter(max, INFINITY);
	}
	if (v < min) {
		if (min == 0)
			snprintf(why, whylen, "negative: '%s'", s);
		else
			snprintf(why, whylen, "too small: '%s' (min %g)", s, min);
		return -1;
	}
	if (v > max) {
		snprintf(why, whylen, "too large: '%s' (max %g)", s, max);
		return -1;
	}
	*out = v;
	return 0;
}

int
parse_long(const char *s, long min, long max, long *out, char *why, size_t whylen)
{
	char *end;
	long v;

	if (s == NULL || *s == '\0') {
		snprintf(why, whylen, "missing number");
		return -1;
	}
	if (s[strspn(s, DECIMAL_CHARS)] != '\0') {
		snprintf(why, whylen, "invalid integer '%s'", s);
		return -1;
	}
	errno = 0;
	v = strtol(s, &end, 10);
	if (end == s || *end != '\0' || errno == ERANGE) {
		snprintf(why, whylen, "invalid integer '%s'", s);
		return -1;
	}
	if (v < min) {
		if (min == 0)
			snprintf(why, whylen, "negative: '%s'", s);
		else
			snprintf(why, whylen, "too small: '%s' (min %ld)", s, min);
		return -1;
	}
	if (v > max) {
		snprintf(why, whylen, "too large: '%s' (max %ld)", s, max);
		return -1;
	}
	*out = v;
	return 0;
}

void
usage_exit(FILE *fp, int status)
{
	if (fp == stdout) {
		errno = 0;
		if (fflush(stdout) != 0 || ferror(stdout) || fclose(stdout) != 0)
			die("write error on 'standard output': %s",
			    strerror(errno ? errno : EIO));
	}
	exit(status);
}

int
opt_first_outside(const unsigned char seen[OPT_SEEN_MAX], const char *allowed)
{
	for (int c = 1; c < OPT_SEEN_MAX; c++)
		if (seen[c] && strchr(allowed, c) == NULL)
			return c;
	return 0;
}

int
wants_help(int argc, char *const argv[])
{
	for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
		if (strcmp(argv[i], "--help") == 0)
			return 1;
	return 0;
}

void
bad_option(int ch)
{
	if (ch == ':')
		warnx("-%c: needs an argument", optopt);
	else
		warnx("-%c: unknown option", optopt);
}

double
opt_double(int flag, const char *arg, double min, double max)
{
	char why[256];
	double v;

	if (parse_double(arg, min, max, &v, why, sizeof(why)) < 0) {
		warnx("-%c: %s", flag, why);
		exit(2);
	}
	return v;
}

const char *
opt_progress(int flag, const char *arg)
{
	const char *slash = strchr(arg, '/');
	char k[32];
	long kv, nv;
	char why[128];

	if (slash == NULL || (size_t)(slash - arg) >= sizeof k ||
	    strspn(arg, "0123456789") != (size_t)(slash - arg) ||
	    strspn(slash + 1, "0123456789") != strlen(slash + 1))
		goto bad;
	memcpy(k, arg, (size_t)(slash - arg));
	k[slash - arg] = '\0';
	if (parse_long(k, 1, LONG_MAX, &kv, why, sizeof why) < 0 ||
	    parse_long(slash + 1, 1, LONG_MAX, &nv, why, sizeof why) < 0 ||
	    kv > nv)
		goto bad;
	return arg;
bad:
	warnx("-%c: '%s' is not K/N (whole numbers, 1 <= K <= N)", flag, arg);
	exit(2);
}

int
opt_one_of(int flag, const char *arg, const char *first, const char *second)
{
	if (strcmp(arg, first) == 0)
		return 0;
	if (strcmp(arg, second) == 0)
		return 1;
	warnx("-%c: '%s' is not %s or %s", flag, arg, first, second);
	return -1;
}

int
opt_word(int flag, const char *arg, const char *first, const char *second,
    void (*usage)(FILE *, int))
{
	int k = opt_one_of(flag, arg, first, second);

	if (k < 0)
		usage(stderr, 2);
	return k;
}

long
opt_long(int flag, const char *arg, long min, long max)
{
	char why[256];
	long v;

	if (parse_long(arg, min, max, &v, why, sizeof(why)) < 0) {
		warnx("-%c: %s", flag, why);
		exit(2);
	}
	return v;
}

const char *
numfmt(char *buf, double v)
{
	if (v == 0)
		v = 0;		/* folds -0 into 0 */
	if (v == floor(v) && fabs(v) < 9007199254740992.0)	/* 2^53 */
		snprintf(buf, NUMFMT_LEN, "%.0f", v);	/* byte counts, exactly */
	else
		snprintf(buf, NUMFMT_LEN, "%.12g", v);
	return buf;
}

/*
 * The temporary files being written, for the signal handler: a tool
 * stopped by make's ^C (SIGINT, SIGTERM, SIGHUP), a CPU or file-size
 * limit (SIGXCPU, SIGXFSZ) or a closed pipe removes them before it dies,
 * so an interrupted run leaves neither a result nor a .tmp file.
 */
#define PENDING_MAX 16
static char pending[PENDING_MAX][4096];
static volatile sig_atomic_t pending_used[PENDING_MAX];

static void
on_fatal_signal(int sig)
{
	for (int i = 0; i < PENDING_MAX; i++)
		if (pending_used[i])
			unlink(pending[i]);
	signal(sig, SIG_DFL);
	raise(sig);
}

/* A tool that stops with exit() (die(), a bad input found after the
 * outputs were opened) removes them too. */
static void
remove_pending(void)
{
	for (int i = 0; i < PENDING_MAX; i++)
		if (pending_used[i]) {
			unlink(pending[i]);
			pending_used[i] = 0;
		}
}

static void
pending_add(const char *tmp)
{
	static int handlers;

	if (!handlers) {
		static const int sigs[] = { SIGINT, SIGTERM, SIGHUP,
			SIGXCPU, SIGXFSZ, SIGPIPE };
		struct sigaction sa;

		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_fatal_signal;
		sigemptyset(&sa.sa_mask);
		for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
			struct sigaction old;

			/* a signal ignored by the caller (nohup) stays so */
			if (sigaction(sigs[i], NULL, &old) == 0 &&
			    old.sa_handler != SIG_IGN)
				sigaction(sigs[i], &sa, NULL);
		}
		atexit(remove_pending);
		handlers = 1;
	}
	for (int i = 0; i < PENDING_MAX; i++)
		if (!pending_used[i] && strlen(tmp) < sizeof(pending[i])) {
			strcpy(pending[i], tmp);
			/* the name is whole before the handler may read it */
			atomic_signal_fence(memory_order_seq_cst);
			pending_used[i] = 1;
			return;
		}
}

static void
pending_remove(const char *tmp)
{
	for (int i = 0; i < PENDING_MAX; i++)
		if (pending_used[i] && strcmp(pending[i], tmp) == 0)
			pending_used[i] = 0;
}

int
outfile_open(struct outfile *o, const char *path, struct pl_err *err)
{
	size_t n;

	struct stat st;

	memset(o, 0, sizeof(*o));
	if (path != NULL && *path == '\0')
		return pl_errf(err, NULL, 0, "cannot write '': an empty file "
		    "name");
	/* standard output is kept in memory until the commit, so a run
	 * that fails half-way prints nothing of its result */
	if (path == NULL || strcmp(path, "-") == 0) {
		o->fp = open_memstream(&o->mem, &o->memlen);
		if (o->fp == NULL)
			return pl_errf(err, NULL, 0, "cannot buffer standard "
			    "output: %s", strerror(errno));
		return 0;
	}
	/* Only a regular file (or a new one) is replaced by rename.  A
	 * symbolic link, a device or a pipe (-o /dev/null, -o /dev/stderr)
	 * is written in place: renaming over it would replace it. */
	if (lstat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
		if (S_ISDIR(st.st_mode))
			return pl_errf(err, NULL, 0, "cannot write '%s': a "
			    "directory", path);
		o->fp = fopen(path, "w");
		if (o->fp == NULL)
			return pl_errf(err, NULL, 0, "cannot open '%s': %s", path,
			    strerror(errno));
		o->path = xstrdup(path);	/* for messages; no tmp, no rename */
		return 0;
	}
	n = strlen(path) + 32;
	o->path = xstrdup(path);
	o->tmp = xmalloc(n);
	snprintf(o->tmp, n, "%s.tmp.%ld", path, (long)getpid());
	pending_add(o->tmp);
	o->fp = fopen(o->tmp, "w");
	if (o->fp == NULL) {
		pl_errf(err, NULL, 0, "cannot open '%s': %s", path, strerror(errno));
		pending_remove(o->tmp);
		free(o->path);
		free(o->tmp);
		o->path = o->tmp = NULL;
		return -1;
	}
	return 0;
}

/* Close and check one output, its result not yet in place: 0, or -1 with
 * its temporary file removed. */
static int
outfile_close(struct outfile *o, struct pl_err *err)
{
	const char *name = o->path ? o->path : "standard output";
	int bad;

	errno = 0;
	bad = fflush(o->fp) != 0 || ferror(o->fp);
	bad |= fclose(o->fp) != 0;
	o->fp = NULL;
	if (bad) {
		pl_errf(err, NULL, 0, "write error on '%s': %s", name,
		    strerror(errno ? errno : EIO));
		if (o->tmp)
			unlink(o->tmp);
	}
	return bad ? -1 : 0;
}

/* Put a closed output in place: rename its file, or print what was kept
 * for standard output (which is closed too, so a late write error is
 * still seen). */
static int
outfile_publish(struct outfile *o, struct pl_err *err)
{
	int bad = 0;

	if (o->tmp && rename(o->tmp, o->path) != 0) {
		pl_errf(err, NULL, 0, "cannot rename '%s' to '%s': %s", o->tmp,
		    o->path, strerror(errno));
		unlink(o->tmp);
		bad = 1;
	}
	if (o->mem) {
		errno = 0;
		if (fwrite(o->mem, 1, o->memlen, stdout) != o->memlen ||
		    fflush(stdout) != 0 || ferror(stdout) ||
		    fclose(stdout) != 0) {
			pl_errf(err, NULL, 0, "write error on 'standard output': "
			    "%s", strerror(errno ? errno : EIO));
			bad = 1;
		}
	}
	return bad ? -1 : 0;
}

static void
outfile_release(struct outfile *o)
{
	if (o->tmp)
		pending_remove(o->tmp);
	free(o->path);
	free(o->tmp);
	free(o->mem);
	memset(o, 0, sizeof(*o));
}

int
outfile_commit_all(struct outfile *const *o, size_t n, struct pl_err *err)
{
	int bad = 0;

	/* every output closed and checked before any is put in place */
	for (size_t i = 0; i < n; i++)
		if (!bad)
			bad = outfile_close(o[i], err) < 0;
		else
			outfile_abort(o[i]);
	if (bad) {
		for (size_t i = 0; i < n; i++)
			if (o[i]->tmp)
				unlink(o[i]->tmp);
	} else
		for (size_t i = 0; i < n; i++)
			if (outfile_publish(o[i], err) < 0)
				bad = 1;
	for (size_t i = 0; i < n; i++)
		outfile_release(o[i]);
	return bad ? -1 : 0;
}

int
outfile_commit(struct outfile *o, struct pl_err *err)
{
	return outfile_commit_all(&o, 1, err);
}

void
outfile_abort(struct outfile *o)
{
	if (o->fp)
		fclose(o->fp);
	if (o->tmp)
		unlink(o->tmp);
	outfile_release(o);
}

void *
xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (p == NULL)
		die("out of memory");
	return p;
}

void *
xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (p == NULL)
		die("out of memory");
	return p;
}

void *
xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (p == NULL)
		die("out of memory");
	return p;
}

char *
xstrdup(const char *s)
{
	char *p = strdup(s);

	if (p == NULL)
		die("out of memory");
	return p;
}

size_t
utf8_invalid_at(const char *s, size_t len)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0;

	while (i < len) {
		unsigned c = u[i];
		size_t n;
		unsigned lo = 0x80, hi = 0xBF;	/* the second byte's range */

		if (c < 0x80) {
			i++;
			continue;
		}
		if (c >= 0xC2 && c <= 0xDF)
			n = 1;
		else if (c >= 0xE0 && c <= 0xEF) {
			n = 2;
			if (c == 0xE0)
				lo = 0xA0;	/* overlong */
			else if (c == 0xED)
				hi = 0x9F;	/* surrogates */
		} else if (c >= 0xF0 && c <= 0xF4) {
			n = 3;
			if (c == 0xF0)
				lo = 0x90;	/* overlong */
			else if (c == 0xF4)
				hi = 0x8F;	/* past U+10FFFF */
		} else
			return i;
		if (len - i <= n || u[i + 1] < lo || u[i + 1] > hi)
			return i;
		for (size_t k = 2; k <= n; k++)
			if (u[i + k] < 0x80 || u[i + k] > 0xBF)
				return i;
		i += n + 1;
	}
	return len;
}

size_t
stdin_count(const char *const *paths, size_t n)
{
	size_t uses = 0;

	for (size_t i = 0; i < n; i++)
		uses += paths[i] && strcmp(paths[i], "-") == 0;
	return uses;
}

char *
xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *p;

	va_start(ap, fmt);
	p = xvasprintf(fmt, ap);
	va_end(ap);
	return p;
}

char *
xvasprintf(const char *fmt, va_list ap)
{
	va_list again;
	int n;
	char *p;

	va_copy(again, ap);
	n = vsnprintf(NULL, 0, fmt, ap);
	if (n < 0)
		die("xvasprintf: bad format");
	p = xmalloc((size_t)n + 1);
	vsnprintf(p, (size_t)n + 1, fmt, again);
	va_end(again);
	return p;
}

int
read_file_max(const char *path, char **buf, size_t *len, long max_bytes,
    struct pl_err *err)
{
	FILE *fp;
	char *b = NULL;
	size_t cap = 0, n = 0, r;
	int is_stdin = path == NULL || strcmp(path, "-") == 0;

	fp = is_stdin ? stdin : fopen(path, "rb");
	if (fp == NULL)
		return pl_errf(err, path, 0, "cannot open: %s", strerror(errno));
	for (;;) {
		if (cap - n < 65536) {	/* doubling, up to just past the cap */
			cap = cap ? cap * 2 : 65536 * 2;
			if (cap > (size_t)max_bytes + 65536)
				cap = (size_t)max_bytes + 65536;
			b = xrealloc(b, cap + 1);
		}
		r = fread(b + n, 1, cap - n, fp);
		n += r;
		if (r == 0)
			break;
		if (n > (size_t)max_bytes) {
			pl_errf(err, is_stdin ? "-" : path, 0, "larger than %ld "
			    "%s: not a table or config of ours",
			    max_bytes >= 1L << 20 ? max_bytes >> 20 : max_bytes >> 10,
			    max_bytes >= 1L << 20 ? "MB" : "KB");
			if (!is_stdin)
				fclose(fp);
			free(b);
			return -1;
		}
	}
	if (ferror(fp)) {
		pl_errf(err, is_stdin ? "-" : path, 0, "read error: %s",
		    strerror(errno));
		if (!is_stdin)
			fclose(fp);
		free(b);
		return -1;
	}
	if (!is_stdin)
		fclose(fp);
	b[n] = '\0';
	*buf = b;
	*len = n;
	return 0;
}

int
read_file(const char *path, char **buf, size_t *len, struct pl_err *err)
{
	return read_file_max(path, buf, len, READ_FILE_MAX, err);
}

double
monotonic_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

long
gcd_long(long a, long b)
{
	while (b) {
		long r = a % b;

		a = b;
		b = r;
	}
	return a;
}
