/*
 * xmlio.h - XML configs through libxml2, validated against our schemas.
 *
 * xmlio_load() parses a file with XML_PARSE_NONET (no network, ever) and
 * finds the config kind from the root element (or insists on one);
 * xmlio_validate() checks it against that kind's RELAX NG schema
 * (configs/schema/, built into the binary).  The config loaders read the
 * typed values first, whose errors are the most precise ("attribute
 * 'latency_s': negative: '-1'"), then validate for the structure.  Every
 * failure is one pl_err with file and line.
 *
 * The getters read a node's text or an attribute as a number, again with
 * "file:line: element 'x': reason" errors: the schema has already checked
 * the type, these checks keep the code honest if the schema is loosened.
 */
#ifndef NP_XMLIO_H
#define NP_XMLIO_H

#include <libxml/tree.h>

#include "base/util.h"

enum xmlio_kind {
	XMLIO_ANY = -1,
	XMLIO_MODEL,
	XMLIO_ACCELERATOR,
	XMLIO_NETWORK,
	XMLIO_EXPERIMENT,
	XMLIO_SWEEP,
	XMLIO_NKINDS
};

/* "model", "accelerator", "network", "experiment", "sweep". */
const char *xmlio_kind_name(enum xmlio_kind kind);

/* Parse `path` ("-": stdin) with no network and no entity expansion;
 * NULL with a one-line error on failure. */
xmlDocPtr xmlio_read(const char *path, struct pl_err *err);

/*
 * Parse `path` ("-": stdin).  With kind XMLIO_ANY the root element
 * decides; *found (may be NULL) receives the kind.  Returns the document
 * (xmlFreeDoc it) or NULL with err filled.
 */
xmlDocPtr xmlio_load(const char *path, enum xmlio_kind kind,
    enum xmlio_kind *found, struct pl_err *err);

/* Validate a loaded document against the schema of `kind`. */
int xmlio_validate(xmlDocPtr doc, const char *file, enum xmlio_kind kind,
    struct pl_err *err);

/* First element child of `parent` called `name`, or NULL. */
xmlNodePtr xmlio_child(xmlNodePtr parent, const char *name);

/* The trimmed text of a node, malloc'ed (never NULL). */
char *xmlio_text(xmlNodePtr node);

/* Attribute value, malloc'ed, or NULL when absent. */
char *xmlio_attr(xmlNodePtr node, const char *name);

/*
 * Numbers.  The child/attribute getters return 1 when the child or
 * attribute is absent (the value is left alone: set the default first),
 * 0 when read, -1 on error.
 */
int xmlio_child_double(const char *file, xmlNodePtr parent, const char *name,
    double min, double *out, struct pl_err *err);
int xmlio_child_long(const char *file, xmlNodePtr parent, const char *name,
    long min, long *out, struct pl_err *err);
int xmlio_attr_double(const char *file, xmlNodePtr node, const char *name,
    double min, double *out, struct pl_err *err);
int xmlio_attr_long(const char *file, xmlNodePtr node, const char *name,
    long min, long *out, struct pl_err *err);
/* Child text as a boolean ("true"/"1" or "false"/"0"). */
int xmlio_child_bool(const char *file, xmlNodePtr parent, const char *name,
    int *out, struct pl_err *err);

#endif
