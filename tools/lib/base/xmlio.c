/* xmlio.c - XML configs through libxml2 with RELAX NG validation. */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

#include <libxml/parser.h>
#include <libxml/relaxng.h>

#include "base/xmlio.h"

/* Generated from configs/schema/ *.rng by tools/embed-schemas.sh. */
extern const char np_schema_model[], np_schema_accelerator[],
    np_schema_network[], np_schema_experiment[], np_schema_sweep[];

static const char *const kind_names[XMLIO_NKINDS] = {
	"model", "accelerator", "network", "experiment", "sweep"
};

const char *
xmlio_kind_name(enum xmlio_kind kind)
{
	return kind >= 0 && kind < XMLIO_NKINDS ? kind_names[kind] : "config";
}

static const char *
schema_text(enum xmlio_kind kind)
{
	switch (kind) {
	case XMLIO_MODEL: return np_schema_model;
	case XMLIO_ACCELERATOR: return np_schema_accelerator;
	case XMLIO_NETWORK: return np_schema_network;
	case XMLIO_EXPERIMENT: return np_schema_experiment;
	case XMLIO_SWEEP: return np_schema_sweep;
	default: return NULL;
	}
}

/* libxml2 messages end in a newline (and some have one inside, which
 * pl_errf flattens); ours are one line. */
static void
set_xml_err(struct pl_err *err, const char *file, const xmlError *e,
    const char *fallback)
{
	char msg[600];
	size_t n;

	snprintf(msg, sizeof(msg), "%s", e && e->message ? e->message : fallback);
	for (n = strlen(msg); n > 0 && isspace((unsigned char)msg[n - 1]); n--)
		msg[n - 1] = '\0';
	pl_errf(err, file, e && e->line > 0 ? (size_t)e->line : 0, "%s", msg);
}

/* The first validation error wins; later ones are usually consequences. */
struct first_error {
	int seen;
	long line;
	char msg[700];
};

/* Line of the first element called `name` that repeats an earlier
 * sibling's name (libxml2 gives no node for "Extra element x"). */
static long
repeated_line(xmlNodePtr parent, const char *name)
{
	for (xmlNodePtr n = parent ? parent->children : NULL; n; n = n->next) {
		if (n->type != XML_ELEMENT_NODE)
			continue;
		if (xmlStrcmp(n->name, BAD_CAST name) == 0)
			for (xmlNodePtr m = parent->children; m != n; m = m->next)
				if (m->type == XML_ELEMENT_NODE &&
				    xmlStrcmp(m->name, n->name) == 0)
					return xmlGetLineNo(n);
		if (n->children) {
			long l = repeated_line(n, name);

			if (l > 0)
				return l;
		}
	}
	return 0;
}

static void
on_valid_error(void *data, xmlErrorPtr e)
{
	struct first_error *fe = data;
	xmlNodePtr node = e->node;
	char msg[600];
	size_t n;

	if (fe->seen)
		return;
	fe->seen = 1;
	snprintf(msg, sizeof(msg), "%s", e->message ? e->message : "");
	for (n = strlen(msg); n > 0 && isspace((unsigned char)msg[n - 1]); n--)
		msg[n - 1] = '\0';
	fe->line = e->line;
	if (node && node->type == XML_ELEMENT_NODE) {
		char *text = xmlio_text(node);

		if (fe->line == 0)
			fe->line = xmlGetLineNo(node);
		if (strncmp(msg, "Error validating value", 22) == 0)
			snprintf(fe->msg, sizeof(fe->msg), "element '%s': invalid "
			    "value '%.200s'", (const char *)node->name, text);
		else
			snprintf(fe->msg, sizeof(fe->msg), "element '%s': %s",
			    (const char *)node->name, msg);
		free(text);
	} else {
		snprintf(fe->msg, sizeof(fe->msg), "%s", msg);
	}
}

static xmlRelaxNGPtr compiled[XMLIO_NKINDS];
static xmlDocPtr schema_docs[XMLIO_NKINDS];	/* the same, as a tree */

/* Whether a schema's tree has a <what name="name"> (what: "element" or
 * "attribute"; our schemas name every element and attribute so, and use
 * no wildcard). */
static int
schema_names(xmlNodePtr n, const char *what, const xmlChar *name)
{
	for (; n; n = n->next) {
		if (n->type != XML_ELEMENT_NODE)
			continue;
		if (xmlStrcmp(n->name, BAD_CAST what) == 0) {
			xmlChar *v = xmlGetProp(n, BAD_CAST "name");
			int same = v && xmlStrcmp(v, name) == 0;

			xmlFree(v);
			if (same)
				return 1;
		}
		if (schema_names(n->children, what, name))
			return 1;
	}
	return 0;
}

/* The first element, in document order, whose name or one of whose
 * attributes' names the schema never mentions (*attr: that attribute, or
 * NULL); NULL if none.  libxml2's RELAX NG messages for such an element
 * inside <interleave> name what it expected instead, at the parent. */
static xmlNodePtr
unknown_name(xmlNodePtr n, xmlNodePtr schema, const xmlChar **attr)
{
	for (; n; n = n->next) {
		xmlNodePtr m;

		if (n->type != XML_ELEMENT_NODE)
			continue;
		*attr = NULL;
		if (!schema_names(schema, "element", n->name))
			return n;
		for (xmlAttrPtr a = n->properties; a; a = a->next)
			if (!schema_names(schema, "attribute", a->name)) {
				*attr = a->name;
				return n;
			}
		if ((m = unknown_name(n->children, schema, attr)) != NULL)
			return m;
	}
	return NULL;
}

int
xmlio_validate(xmlDocPtr doc, const char *file, enum xmlio_kind kind,
    struct pl_err *err)
{
	const char *text = schema_text(kind);
	xmlRelaxNGParserCtxtPtr pctx;
	xmlRelaxNGPtr schema;
	xmlRelaxNGValidCtxtPtr vctx;
	struct first_error fe;
	int ret;

	memset(&fe, 0, sizeof(fe));
	/* compiled once a process: compiling costs far more than validating
	 * (a tool reading many configs, the fuzz harnesses) */
	if ((schema = compiled[kind]) == NULL) {
		pctx = xmlRelaxNGNewMemParserCtxt(text, (int)strlen(text));
		schema = pctx ? xmlRelaxNGParse(pctx) : NULL;
		if (pctx)
			xmlRelaxNGFreeParserCtxt(pctx);
		if (schema == NULL)
			return pl_errf(err, NULL, 0, "internal error: %s schema "
			    "does not compile", xmlio_kind_name(kind));
		compiled[kind] = schema;
	}
	vctx = xmlRelaxNGNewValidCtxt(schema);
	xmlRelaxNGSetValidStructuredErrors(vctx, on_valid_error, &fe);
	ret = xmlRelaxNGValidateDoc(vctx, doc);
	xmlRelaxNGFreeValidCtxt(vctx);
	if (ret == 0)
		return 0;
	if (schema_docs[kind] == NULL)
		schema_docs[kind] = xmlReadMemory(text, (int)strlen(text),
		    "schema.rng", NULL, XML_PARSE_NONET | XML_PARSE_NOERROR |
		    XML_PARSE_NOWARNING);
	if (schema_docs[kind] != NULL) {
		const xmlChar *attr;
		xmlNodePtr bad = unknown_name(xmlDocGetRootElement(doc),
		    xmlDocGetRootElement(schema_docs[kind]), &attr);
		long line = bad ? xmlGetLineNo(bad) : 0;

		if (bad && attr)
			return pl_errf(err, file, line > 0 ? (size_t)line : 0,
			    "not a valid %s config: element '%s': unknown "
			    "attribute '%s'", xmlio_kind_name(kind),
			    (const char *)bad->name, (const char *)attr);
		if (bad)
			return pl_errf(err, file, line > 0 ? (size_t)line : 0,
			    "not a valid %s config: unknown element '%s'",
			    xmlio_kind_name(kind), (const char *)bad->name);
	}
	if (!fe.seen)
		snprintf(fe.msg, sizeof(fe.msg), "does not match the schema");
	if (fe.line == 0 && strncmp(fe.msg, "Extra element ", 14) == 0) {
		char name[128];

		if (sscanf(fe.msg + 14, "%127s", name) == 1)
			fe.line = repeated_line((xmlNodePtr)doc, name);
		if (fe.line > 0)
			snprintf(fe.msg, sizeof(fe.msg), "element '%s': repeated "
			    "or not allowed here", name);
	}
	return pl_errf(err, file, fe.line > 0 ? (size_t)fe.line : 0,
	    "not a valid %s config: %s", xmlio_kind_name(kind), fe.msg);
}

_Static_assert(READ_FILE_MAX + 65536 <= INT_MAX,
    "xmlCtxtReadMemory takes an int length");

/* libxml2's generic handler, which XML_PARSE_NOERROR does not reach
 * (encoding conversion errors): silent, the parser's own error is the
 * one reported. */
static void
no_generic_error(void *ctx, const char *msg, ...)
{
	(void)ctx;
	(void)msg;
}

/* No config or plan of ours comes near these; past them libxml2 2.9's
 * tree (some 400 bytes a node) and its duplicate-attribute check (a
 * comparison of every pair of an element's attributes) would cost
 * seconds and hundreds of MB before any check of ours ran. */
#define XMLIO_MAX_BYTES (1L << 20)
#define XMLIO_MAX_ATTRIBUTES 1000

/* The line of the first '<' followed by more than XMLIO_MAX_ATTRIBUTES
 * '=' before the next '<', or 0.  An attribute value holds no '<' (XML
 * 1.0, AttValue), so an element's attributes all lie in that stretch and
 * each has its '=' there: the count bounds theirs. */
static size_t
crowded_element_line(const char *buf, size_t len)
{
	size_t line = 1, tag_line = 0, eq = 0;

	for (size_t i = 0; i < len; i++) {
		if (buf[i] == '\n')
			line++;
		else if (buf[i] == '<') {
			tag_line = line;
			eq = 0;
		} else if (buf[i] == '=' && tag_line && ++eq > XMLIO_MAX_ATTRIBUTES)
			return tag_line;
	}
	return 0;
}

xmlDocPtr
xmlio_read(const char *path, struct pl_err *err)
{
	const int opts = XML_PARSE_NONET | XML_PARSE_NOERROR |
	    XML_PARSE_NOWARNING | XML_PARSE_NOCDATA | XML_PARSE_BIG_LINES;
	const char *file = path && strcmp(path, "-") != 0 ? path : "-";
	xmlParserCtxtPtr ctx;
	xmlDocPtr doc;
	char *buf;
	size_t len;	/* at most READ_FILE_MAX, an int (asserted above) */
	size_t crowded;

	xmlSetGenericErrorFunc(NULL, no_generic_error);
	if (read_file_max(strcmp(file, "-") == 0 ? NULL : file, &buf, &len,
	    XMLIO_MAX_BYTES, err) < 0)
		return NULL;
	/* XML reads a lone CR as a line end (section 2.11); libxml2 counts
	 * lines at LF only, so make them LFs first, unless the text is
	 * UTF-16 (a NUL among its first bytes), where a CR is two bytes */
	if (len < 4 || memchr(buf, '\0', 4) == NULL) {
		for (size_t i = 0; i < len; i++)
			if (buf[i] == '\r' && (i + 1 == len || buf[i + 1] != '\n'))
				buf[i] = '\n';
		if ((crowded = crowded_element_line(buf, len)) > 0) {
			free(buf);
			pl_errf(err, file, crowded, "an element with more than "
			    "%d attributes: no config or plan of ours has "
			    "that many", XMLIO_MAX_ATTRIBUTES);
			return NULL;
		}
	}
	ctx = xmlNewParserCtxt();
	if (ctx == NULL)
		die("out of memory");
	doc = xmlCtxtReadMemory(ctx, buf, (int)len, file, NULL, opts);
	free(buf);
	if (doc == NULL) {
		set_xml_err(err, file, xmlCtxtGetLastError(ctx), "cannot parse");
		xmlFreeParserCtxt(ctx);
		return NULL;
	}
	xmlFreeParserCtxt(ctx);
	return doc;
}

xmlDocPtr
xmlio_load(const char *path, enum xmlio_kind kind, enum xmlio_kind *found,
    struct pl_err *err)
{
	const char *file = path && strcmp(path, "-") != 0 ? path : "-";
	xmlDocPtr doc;
	xmlNodePtr root;
	int k;

	if ((doc = xmlio_read(path, err)) == NULL)
		return NULL;
	root = xmlDocGetRootElement(doc);
	for (k = 0; k < XMLIO_NKINDS; k++)
		if (root && xmlStrcmp(root->name, BAD_CAST kind_names[k]) == 0)
			break;
	if (k == XMLIO_NKINDS || (kind != XMLIO_ANY && k != (int)kind)) {
		pl_errf(err, file, root ? (size_t)xmlGetLineNo(root) : 1,
		    "root element '%s': expected <%s>", root ?
		    (const char *)root->name : "", kind == XMLIO_ANY ?
		    "model|accelerator|network|experiment|sweep" : kind_names[kind]);
		xmlFreeDoc(doc);
		return NULL;
	}
	if (found)
		*found = (enum xmlio_kind)k;
	return doc;
}

xmlNodePtr
xmlio_child(xmlNodePtr parent, const char *name)
{
	for (xmlNodePtr n = parent->children; n; n = n->next)
		if (n->type == XML_ELEMENT_NODE &&
		    xmlStrcmp(n->name, BAD_CAST name) == 0)
			return n;
	return NULL;
}

static char *
trimmed_copy(const xmlChar *s)
{
	const char *b = s ? (const char *)s : "";
	size_t n;
	char *out;

	while (isspace((unsigned char)*b))
		b++;
	n = strlen(b);
	while (n > 0 && isspace((unsigned char)b[n - 1]))
		n--;
	out = xmalloc(n + 1);
	memcpy(out, b, n);
	out[n] = '\0';
	return out;
}

char *
xmlio_text(xmlNodePtr node)
{
	xmlChar *c = xmlNodeGetContent(node);
	char *s = trimmed_copy(c);

	xmlFree(c);
	return s;
}

char *
xmlio_attr(xmlNodePtr node, const char *name)
{
	xmlChar *c = xmlGetProp(node, BAD_CAST name);
	char *s;

	if (c == NULL)
		return NULL;
	s = trimmed_copy(c);
	xmlFree(c);
	return s;
}

/*
 * Parse `text` (freed here) of a node's element or attribute `name` as a
 * double (lout == NULL) or a long: 0, or -1 with "element 'x': reason".
 */
static int
parse_text(const char *file, xmlNodePtr node, const char *what,
    const char *name, char *text, double dmin, double *dout, long lmin,
    long *lout, struct pl_err *err)
{
	char why[256];
	int bad;

	if (lout)
		bad = parse_long(text, lmin, 1L << 40, lout, why, sizeof(why));
	else
		bad = parse_double(text, dmin, PL_NUMBER_MAX, dout, why,
		    sizeof(why));
	free(text);
	if (bad < 0)
		return pl_errf(err, file, (size_t)xmlGetLineNo(node), "%s '%s': %s",
		    what, name, why);
	return 0;
}

int
xmlio_child_double(const char *file, xmlNodePtr parent, const char *name,
    double min, double *out, struct pl_err *err)
{
	xmlNodePtr n = xmlio_child(parent, name);

	return n == NULL ? 1 : parse_text(file, n, "element", name,
	    xmlio_text(n), min, out, 0, NULL, err);
}

int
xmlio_child_long(const char *file, xmlNodePtr parent, const char *name,
    long min, long *out, struct pl_err *err)
{
	xmlNodePtr n = xmlio_child(parent, name);

	return n == NULL ? 1 : parse_text(file, n, "element", name,
	    xmlio_text(n), 0, NULL, min, out, err);
}

int
xmlio_attr_double(const char *file, xmlNodePtr node, const char *name,
    double min, double *out, struct pl_err *err)
{
	char *s = xmlio_attr(node, name);

	return s == NULL ? 1 : parse_text(file, node, "attribute", name, s,
	    min, out, 0, NULL, err);
}

int
xmlio_attr_long(const char *file, xmlNodePtr node, const char *name,
    long min, long *out, struct pl_err *err)
{
	char *s = xmlio_attr(node, name);

	return s == NULL ? 1 : parse_text(file, node, "attribute", name, s, 0,
	    NULL, min, out, err);
}

int
xmlio_child_bool(const char *file, xmlNodePtr parent, const char *name,
    int *out, struct pl_err *err)
{
	xmlNodePtr n = xmlio_child(parent, name);
	char *s;
	int ret = 0;

	if (n == NULL)
		return 1;
	s = xmlio_text(n);
	if (strcmp(s, "true") == 0 || strcmp(s, "1") == 0)
		*out = 1;
	else if (strcmp(s, "false") == 0 || strcmp(s, "0") == 0)
		*out = 0;
	else
		ret = pl_errf(err, file, (size_t)xmlGetLineNo(n),
		    "element '%s': not a boolean: '%s'", name, s);
	free(s);
	return ret;
}
