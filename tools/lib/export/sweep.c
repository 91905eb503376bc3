/* sweep.c - load a sweep config and write its network points. */
#include <math.h>
#include <string.h>

#include <libxml/tree.h>

#include "base/xmlio.h"
#include "export/sweep.h"
#include "model/config.h"
#include "model/layers.h"

#define SWEEP_MAX_DEVICES (1L << 30)
/* The version of the networks sweep_apply writes: it is part of the
 * definition every point depends on (make sweep does not remake the
 * points when bin/sweep is merely relinked), so raise it whenever a
 * point's network would come out different. */
#define SWEEP_GENERATOR 1

static const char *const attribute_names[] = {
	"bandwidth_GBps", "latency_s", "oversubscription", "devices", NULL
};

/* The sweep table's own columns (tools/sweep.c writes them): a <vary>
 * may not take one's name, nor start with "elasticity_". */
static const char *const reserved_names[] = {
	"sweep", "model", "accelerator", "devices", "network", "plan", "t",
	"p", "d", "e", "c", "sp", "micro_batch_samples", "virtual_stages",
	"recompute", "distributed_optimizer", "zero_stage", "step_s",
	"throughput_samples_per_s", "relative_throughput",
	"peak_memory_bytes", NULL
};

const char *
sweep_attribute_name(int attribute)
{
	return attribute >= 0 && attribute <= SWEEP_DEVICES ?
	    attribute_names[attribute] : "?";
}

static size_t
line_of(xmlNodePtr n)
{
	return n ? (size_t)xmlGetLineNo(n) : 0;
}

/* A name, whole: longer ones would cut file names short and let two
 * sweeps share them. */
static int
copy_name(char *dst, size_t len, const char *src, const char *path,
    size_t line, const char *what, struct pl_err *err)
{
	if (src == NULL || strlen(src) >= len)
		return pl_errf(err, path, line, "%s: a name of at most %zu "
		    "characters", what, len - 1);
	memcpy(dst, src, strlen(src) + 1);
	return 0;
}

/* The whitespace-separated tokens of a string, each at most len - 1
 * bytes: their count, or -1 when there are more than max or one is
 * longer. */
static int
tokens(const char *text, char (*tok)[32], int max)
{
	int n = 0;

	for (const char *p = text; *p;) {
		size_t k = strspn(p, " \t\r\n");

		p += k;
		if (*p == '\0')
			break;
		k = strcspn(p, " \t\r\n");
		if (n == max || k >= 32)
			return -1;
		memcpy(tok[n], p, k);
		tok[n++][k] = '\0';
		p += k;
	}
	return n;
}

static int
read_devices(struct sweep_cfg *s, xmlNodePtr n, const char *path,
    struct pl_err *err)
{
	char tok[SWEEP_MAX_VALUES][32], why[128];
	char *text = xmlio_text(n);
	int count = tokens(text, tok, SWEEP_MAX_VALUES);

	free(text);
	if (count < 1)
		return pl_errf(err, path, line_of(n), "element 'devices': one to "
		    "%d cluster sizes of at most 31 characters", SWEEP_MAX_VALUES);
	for (int i = 0; i < count; i++) {
		if (parse_long(tok[i], 1, SWEEP_MAX_DEVICES, &s->devices[i], why,
		    sizeof(why)) < 0)
			return pl_errf(err, path, line_of(n), "element 'devices': "
			    "%s", why);
		for (int j = 0; j < i; j++)
			if (s->devices[j] == s->devices[i])
				return pl_errf(err, path, line_of(n), "element "
				    "'devices': %ld listed twice", s->devices[i]);
	}
	s->ndevices = count;
	return 0;
}

static int
read_vary(struct sweep_vary *v, xmlNodePtr n, const char *path,
    struct pl_err *err)
{
	/* the smallest value of each attribute, and the largest */
	static const double min[] = { 0, 0, 1, 1 };
	static const double max[] = { 1e9, 1e6, 1e6, SWEEP_MAX_DEVICES };
	char why[128];
	char *s;
	int count;

	memset(v, 0, sizeof(*v));
	v->line = line_of(n);
	s = xmlio_attr(n, "name");
	if (copy_name(v->name, sizeof(v->name), s, path, v->line, "vary",
	    err) < 0) {
		free(s);
		return -1;
	}
	free(s);
	for (int i = 0; reserved_names[i]; i++)
		if (strcmp(v->name, reserved_names[i]) == 0 ||
		    strncmp(v->name, "elasticity_", 11) == 0)
			return pl_errf(err, path, v->line, "vary '%s': the name "
			    "of a column of the sweep table", v->name);
	s = xmlio_attr(n, "attribute");
	v->attribute = -1;
	for (int i = 0; s && attribute_names[i]; i++)
		if (strcmp(s, attribute_names[i]) == 0)
			v->attribute = i;
	free(s);
	if (v->attribute < 0)
		return pl_errf(err, path, v->line, "vary '%s': attribute 'attribute'"
		    ": one of bandwidth_GBps, latency_s, oversubscription, "
		    "devices", v->name);
	s = xmlio_attr(n, "levels");
	count = tokens(s ? s : "", v->level, NET_MAX_LEVELS);
	free(s);
	if (count < 1)
		return pl_errf(err, path, v->line, "vary '%s': attribute 'levels':"
		    " one to %d level names", v->name, NET_MAX_LEVELS);
	for (int i = 0; i < count; i++)
		for (int j = 0; j < i; j++)
			if (strcmp(v->level[i], v->level[j]) == 0)
				return pl_errf(err, path, v->line, "vary '%s': "
				    "level '%s' listed twice", v->name,
				    v->level[i]);
	v->nlevels = count;
	s = xmlio_text(n);
	count = tokens(s, v->text, SWEEP_MAX_VALUES);
	free(s);
	if (count < 1)
		return pl_errf(err, path, v->line, "vary '%s': one to %d values of "
		    "at most 31 characters", v->name, SWEEP_MAX_VALUES);
	for (int i = 0; i < count; i++) {
		double *x = &v->value[i];

		/* the value goes into file and network names as written */
		if (v->text[i][strspn(v->text[i], "0123456789.eE-")] != '\0')
			return pl_errf(err, path, v->line, "vary '%s': value "
			    "'%s': write it with digits, '.', 'e', 'E' and '-' only "
			    "(it names files)", v->name, v->text[i]);

		if (v->attribute == SWEEP_DEVICES) {
			long d;

			if (parse_long(v->text[i], 1, SWEEP_MAX_DEVICES, &d, why,
			    sizeof(why)) < 0)
				return pl_errf(err, path, v->line, "vary '%s': %s",
				    v->name, why);
			*x = (double)d;
		} else if (parse_double(v->text[i], min[v->attribute],
		    max[v->attribute], x, why, sizeof(why)) < 0) {
			return pl_errf(err, path, v->line, "vary '%s': %s",
			    v->name, why);
		}
		/* every attribute varied is >= 0: a sign would only name a
		 * file "-0" (an output never holds -0) */
		if (v->text[i][0] == '-')
			return pl_errf(err, path, v->line, "vary '%s': value "
			    "'%s': a sign; the values are not negative",
			    v->name, v->text[i]);
		if (v->attribute == SWEEP_BANDWIDTH && !(*x > 0))
			return pl_errf(err, path, v->line, "vary '%s': bandwidth "
			    "must be positive: '%s'", v->name, v->text[i]);
		for (int j = 0; j < i; j++)
			if (v->value[j] == *x)
				return pl_errf(err, path, v->line, "vary '%s': value "
				    "'%s' listed twice", v->name, v->text[i]);
	}
	v->nvalues = count;
	return 0;
}

/* A heat-map axis: a vary's index or SWEEP_AXIS_DEVICES; -2 if unknown. */
static int
axis_of(const struct sweep_cfg *s, const char *name)
{
	if (strcmp(name, "devices") == 0)
		return SWEEP_AXIS_DEVICES;
	for (int v = 0; v < s->nvary; v++)
		if (strcmp(s->vary[v].name, name) == 0)
			return v;
	return -2;
}

static int
read_heatmap(struct sweep_cfg *s, xmlNodePtr n, const char *path,
    struct pl_err *err)
{
	char *x, *y;
	int ret = 0;

	if (n == NULL) {	/* the first two parameters */
		s->heat_x = 0;
		s->heat_y = s->nvary > 1 ? 1 : SWEEP_AXIS_DEVICES;
		return 0;
	}
	x = xmlio_attr(n, "x");
	y = xmlio_attr(n, "y");
	s->heat_x = axis_of(s, x ? x : "");
	s->heat_y = axis_of(s, y ? y : "");
	if (s->heat_x == -2 || s->heat_y == -2)
		ret = pl_errf(err, path, line_of(n), "element 'heatmap': no vary "
		    "called '%s' (nor 'devices')", s->heat_x == -2 ? x : y);
	else if (s->heat_x == s->heat_y)
		ret = pl_errf(err, path, line_of(n), "element 'heatmap': x and y "
		    "are both '%s'", x);
	free(x);
	free(y);
	return ret;
}

/* A <model name="x"/> (by attribute) or <accelerator>x</accelerator> (by
 * text), once each. */
static int
add_ref(struct sweep_ref *list, int *n, const char *what, xmlNodePtr node,
    int by_attribute, const char *path, struct pl_err *err)
{
	char *name = by_attribute ? xmlio_attr(node, "name") : xmlio_text(node);

	if (*n == SWEEP_MAX_VALUES) {
		free(name);
		return pl_errf(err, path, line_of(node), "more than %d %ss",
		    SWEEP_MAX_VALUES, what);
	}
	if (copy_name(list[*n].name, sizeof(list[*n].name), name, path,
	    line_of(node), what, err) < 0) {
		free(name);
		return -1;
	}
	free(name);
	list[*n].line = line_of(node);
	for (int i = 0; i < *n; i++)
		if (strcmp(list[i].name, list[*n].name) == 0)
			return pl_errf(err, path, list[*n].line, "%s '%s' listed "
			    "twice", what, list[i].name);
	(*n)++;
	return 0;
}

int
sweep_from_doc(struct sweep_cfg *s, xmlDocPtr doc, const char *path,
    struct pl_err *err)
{
	xmlNodePtr r = xmlDocGetRootElement(doc);
	char *name;
	long largest = 0;
	int ret;

	memset(s, 0, sizeof(*s));
	/* the batch's numbers before the structure: the schema's message
	 * for a bad number inside its interleave names neither */
	s->micro_batch = 1;
	if (xmlio_child_long(path, r, "global_batch_samples", 1,
	    &s->global_batch, err) < 0 ||
	    xmlio_child_long(path, r, "micro_batch_samples", 1, &s->micro_batch,
	    err) < 0 ||
	    xmlio_child_double(path, r, "device_memory_bytes", 1,
	    &s->memory_bytes, err) < 0)
		return -1;
	if (s->global_batch > 0 && s->micro_batch > s->global_batch)
		return pl_errf(err, path, line_of(xmlio_child(r,
		    "micro_batch_samples")), "element 'micro_batch_samples': "
		    "%ld, more than the global batch of %ld", s->micro_batch,
		    s->global_batch);
	if (s->micro_batch > LAYERS_MAX_WIDTH)
		return pl_errf(err, path, line_of(xmlio_child(r,
		    "micro_batch_samples")), "element 'micro_batch_samples': "
		    "%ld, more than %ld", s->micro_batch, (long)LAYERS_MAX_WIDTH);
	/* the structure first: then every element below is there */
	if (xmlio_validate(doc, path, XMLIO_SWEEP, err) < 0)
		return -1;
	name = xmlio_attr(r, "name");
	ret = copy_name(s->name, sizeof(s->name), name, path, line_of(r),
	    "sweep", err);
	free(name);
	s->network_line = line_of(xmlio_child(r, "network"));
	name = xmlio_text(xmlio_child(r, "network"));
	if (ret == 0)
		ret = copy_name(s->network, sizeof(s->network), name, path,
		    s->network_line, "element 'network'", err);
	free(name);
	if (ret < 0)
		return -1;
	if (read_devices(s, xmlio_child(r, "devices"), path, err) < 0)
		return -1;
	for (int k = 0; k < s->ndevices; k++)
		if (s->devices[k] > largest)
			largest = s->devices[k];
	for (xmlNodePtr n = r->children; n; n = n->next) {
		if (n->type != XML_ELEMENT_NODE)
			continue;
		if (xmlStrcmp(n->name, BAD_CAST "vary") == 0) {
			struct sweep_vary *v = &s->vary[s->nvary];

			if (s->nvary == SWEEP_MAX_VARY)
				return pl_errf(err, path, line_of(n), "more than %d "
				    "<vary> elements", SWEEP_MAX_VARY);
			if (read_vary(v, n, path, err) < 0)
				return -1;
			/* a level holds no more devices than the largest
			 * cluster (a smaller one plans on its first devices) */
			for (int i = 0; v->attribute == SWEEP_DEVICES &&
			    i < v->nvalues; i++)
				if (v->value[i] > (double)largest)
					return pl_errf(err, path, v->line,
					    "vary '%s': value '%s': a level of "
					    "more devices than the largest "
					    "cluster, %ld", v->name, v->text[i],
					    largest);
			for (int w = 0; w < s->nvary; w++) {
				const struct sweep_vary *u = &s->vary[w];

				if (strcmp(u->name, v->name) == 0)
					return pl_errf(err, path, v->line, "vary "
					    "'%s': the name of the vary on line "
					    "%zu too", v->name, u->line);
				if (u->attribute != v->attribute)
					continue;
				for (int i = 0; i < v->nlevels; i++)
					for (int j = 0; j < u->nlevels; j++)
						if (strcmp(v->level[i],
						    u->level[j]) == 0)
							return pl_errf(err, path,
							    v->line, "vary '%s': "
							    "%s of level '%s' is "
							    "varied on line %zu "
							    "too", v->name,
							    attribute_names[
							    v->attribute],
							    v->level[i], u->line);
			}
			s->nvary++;
		} else if (xmlStrcmp(n->name, BAD_CAST "model") == 0) {
			if (add_ref(s->model, &s->nmodels, "model", n, 1, path,
			    err) < 0)
				return -1;
		} else if (xmlStrcmp(n->name, BAD_CAST "accelerator") == 0) {
			if (add_ref(s->accel, &s->naccels, "accelerator", n, 0,
			    path, err) < 0)
				return -1;
		}
	}
	return read_heatmap(s, xmlio_child(r, "heatmap"), path, err);
}

int
sweep_load(struct sweep_cfg *s, const char *path, struct pl_err *err)
{
	xmlDocPtr doc = xmlio_load(path, XMLIO_SWEEP, NULL, err);
	int ret;

	if (doc == NULL)
		return -1;
	ret = sweep_from_doc(s, doc, path, err);
	xmlFreeDoc(doc);
	return ret;
}

long
sweep_net_points(const struct sweep_cfg *s)
{
	long n = 1;

	for (int v = 0; v < s->nvary; v++)
		n *= s->vary[v].nvalues;
	return n;
}

void
sweep_point_values(const struct sweep_cfg *s, long k, int *idx)
{
	for (int v = s->nvary - 1; v >= 0; v--) {
		idx[v] = (int)(k % s->vary[v].nvalues);
		k /= s->vary[v].nvalues;
	}
}

long
sweep_point_number(const struct sweep_cfg *s, const int *idx)
{
	long k = 0;

	for (int v = 0; v < s->nvary; v++)
		k = k * s->vary[v].nvalues + idx[v];
	return k;
}

void
sweep_definition(const struct sweep_cfg *s, char *buf, size_t len)
{
	char mem[NUMFMT_LEN];
	size_t used = (size_t)snprintf(buf, len, "generator %d\nsweep %s\n"
	    "network %s\nglobal_batch_samples %ld\nmicro_batch_samples %ld\n"
	    "device_memory_bytes %s\n", SWEEP_GENERATOR, s->name, s->network,
	    s->global_batch, s->micro_batch, numfmt(mem, s->memory_bytes));

	for (int v = 0; v < s->nvary && used < len; v++) {
		const struct sweep_vary *y = &s->vary[v];

		used += (size_t)snprintf(buf + used, len - used, "vary %s %s",
		    y->name, attribute_names[y->attribute]);
		for (int i = 0; i < y->nlevels && used < len; i++)
			used += (size_t)snprintf(buf + used, len - used, " %s",
			    y->level[i]);
		if (used < len)
			used += (size_t)snprintf(buf + used, len - used, "\n");
	}
}

void
sweep_point_stem(const struct sweep_cfg *s, const int *idx, char *buf,
    size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (int v = 0; v < s->nvary && used < len; v++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s-%s",
		    v ? "+" : "", s->vary[v].name, s->vary[v].text[idx[v]]);
}

int
sweep_parse_point(const struct sweep_cfg *s, const char *file,
    const char *text, int *idx, struct pl_err *err)
{
	const char *p = text;

	for (int v = 0; v < s->nvary; v++) {
		char *end;
		long i = strtol(p, &end, 10);

		if (end == p || i < 0 || i >= s->vary[v].nvalues ||
		    *end != (v + 1 < s->nvary ? '.' : '\0'))
			return pl_errf(err, file, 0, "-n %s: not a point of "
			    "sweep '%s' (%d value indices i.j..., each within "
			    "its <vary>)", text, s->name, s->nvary);
		idx[v] = (int)i;
		p = end + 1;
	}
	return 0;
}

static void
set_number(xmlNodePtr node, const char *attr, long value)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%ld", value);
	xmlSetProp(node, BAD_CAST attr, BAD_CAST buf);
}

void
sweep_network_name(const struct sweep_cfg *s, const int *idx, long devices,
    char *buf, size_t len)
{
	size_t used = (size_t)snprintf(buf, len, "%s-n%ld", s->name, devices);

	for (int v = 0; v < s->nvary && used < len; v++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s",
		    v ? "_" : "-", s->vary[v].text[idx[v]]);
}

/* The <source> that says how the point's network was made. */
static void
add_source(const struct sweep_cfg *s, const int *idx, long devices,
    const long *fanout, xmlNodePtr *level, int nl, xmlDocPtr doc)
{
	char text[2048];
	size_t used;
	xmlNodePtr src;

	used = (size_t)snprintf(text, sizeof(text), "A point of sweep '%s', "
	    "%ld devices: the network '%s' with", s->name, devices,
	    s->network);
	for (int v = 0; v < s->nvary && used < sizeof(text); v++) {
		const struct sweep_vary *y = &s->vary[v];

		used += (size_t)snprintf(text + used, sizeof(text) - used,
		    "%s %s %s (%s of", v ? ";" : "", y->name, y->text[idx[v]],
		    attribute_names[y->attribute]);
		for (int i = 0; i < y->nlevels && used < sizeof(text); i++)
			used += (size_t)snprintf(text + used, sizeof(text) - used,
			    " %s", y->level[i]);
		if (used < sizeof(text))
			used += (size_t)snprintf(text + used, sizeof(text) - used,
			    ")");
	}
	for (int i = 0; i < nl && used < sizeof(text); i++)
		used += (size_t)snprintf(text + used, sizeof(text) - used,
		    "%s %ld", i ? "," : "; level fanouts", fanout[i]);
	if (used < sizeof(text))
		snprintf(text + used, sizeof(text) - used, " (written by sweep).");
	src = xmlNewDocNode(doc, NULL, BAD_CAST "source", NULL);
	xmlNodeAddContent(src, BAD_CAST text);
	xmlAddPrevSibling(level[0], src);
	xmlAddPrevSibling(level[0], xmlNewDocText(doc, BAD_CAST "\n  "));
}

int
sweep_apply(const struct sweep_cfg *s, const char *sweep_path,
    const int *idx, long devices, xmlDocPtr base, const char *base_path,
    struct pl_err *err)
{
	xmlNodePtr r = xmlDocGetRootElement(base);
	xmlNodePtr level[NET_MAX_LEVELS];
	long fanout[NET_MAX_LEVELS];
	double size[NET_MAX_LEVELS];	/* devices under one unit of a level */
	long span = 1;
	char name[400];
	int nl = 0;

	if (xmlio_child(r, "torus") != NULL)
		return pl_errf(err, base_path, line_of(xmlio_child(r, "torus")),
		    "sweep '%s': a torus cannot be swept (its levels come from "
		    "its dims): write its levels out", s->name);
	for (xmlNodePtr n = r->children; n; n = n->next) {
		long f = 1;

		if (n->type != XML_ELEMENT_NODE ||
		    xmlStrcmp(n->name, BAD_CAST "level") != 0)
			continue;
		if (nl == NET_MAX_LEVELS)
			return pl_errf(err, base_path, line_of(n), "more than %d "
			    "levels", NET_MAX_LEVELS);
		if (xmlio_attr_long(base_path, n, "fanout", 1, &f, err) < 0)
			return -1;
		level[nl] = n;
		span = span > SWEEP_MAX_DEVICES / f ? SWEEP_MAX_DEVICES : span * f;
		size[nl++] = (double)span;
	}
	if (nl == 0)
		return pl_errf(err, base_path, line_of(r), "no <level> element");
	for (int v = 0; v < s->nvary; v++) {
		const struct sweep_vary *y = &s->vary[v];

		for (int i = 0; i < y->nlevels; i++) {
			int l;
			char *lname = NULL;

			for (l = 0; l < nl; l++) {
				lname = xmlio_attr(level[l], "name");
				if (lname && strcmp(lname, y->level[i]) == 0)
					break;
				free(lname);
			}
			if (l == nl)
				return pl_errf(err, sweep_path, y->line, "vary "
				    "'%s': the network '%s' has no level '%s'",
				    y->name, s->network, y->level[i]);
			free(lname);
			switch (y->attribute) {
			case SWEEP_DEVICES:
				if (l == nl - 1)
					return pl_errf(err, sweep_path, y->line,
					    "vary '%s': '%s' is the top level, "
					    "whose size is the cluster's "
					    "(<devices>)", y->name, y->level[i]);
				size[l] = y->value[idx[v]];
				break;
			case SWEEP_BANDWIDTH:
				xmlUnsetProp(level[l], BAD_CAST "bandwidth_GiBps");
				/* fall through */
			default:
				xmlSetProp(level[l], BAD_CAST
				    attribute_names[y->attribute],
				    BAD_CAST y->text[idx[v]]);
			}
		}
	}
	/* Each level keeps its size in devices, to a whole number of units
	 * of the level below; the top level holds the cluster. */
	span = 1;
	for (int l = 0; l < nl; l++) {
		double want = l == nl - 1 ? (double)devices : size[l];

		fanout[l] = l == nl - 1 ? (long)ceil(want / (double)span) :
		    lround(want / (double)span);
		if (fanout[l] < 1)
			fanout[l] = 1;
		span *= fanout[l];
		set_number(level[l], "fanout", fanout[l]);
	}
	sweep_network_name(s, idx, devices, name, sizeof(name));
	xmlSetProp(r, BAD_CAST "name", BAD_CAST name);
	add_source(s, idx, devices, fanout, level, nl, base);
	return 0;
}

/* Every config the sweep names, and its base network with the first
 * point's values written in (a level that does not exist is caught here,
 * before Make starts). */
int
sweep_check_refs(const struct sweep_cfg *s, const char *file, const char *dir,
    struct pl_err *err)
{
	char path[1024];
	struct accel_cfg a;
	struct model_cfg m;
	struct network net;
	int idx[SWEEP_MAX_VARY] = { 0 };
	xmlDocPtr doc;
	int ret;

	for (int i = 0; i < s->naccels; i++) {
		snprintf(path, sizeof(path), "%s/accelerators/%s.xml", dir,
		    s->accel[i].name);
		if (accel_load(&a, path, err) < 0)
			return pl_err_ref(err, file, s->accel[i].line,
			    "accelerator", s->accel[i].name);
	}
	for (int i = 0; i < s->nmodels; i++) {
		snprintf(path, sizeof(path), "%s/models/%s.xml", dir,
		    s->model[i].name);
		if (model_load(&m, path, err) < 0)
			return pl_err_ref(err, file, s->model[i].line, "model",
			    s->model[i].name);
	}
	snprintf(path, sizeof(path), "%s/networks/%s.xml", dir, s->network);
	if ((doc = xmlio_load(path, XMLIO_NETWORK, NULL, err)) == NULL)
		return pl_err_ref(err, file, s->network_line, "network",
		    s->network);
	if (network_from_doc(&net, doc, path, err) < 0) {
		xmlFreeDoc(doc);
		return pl_err_ref(err, file, s->network_line, "network",
		    s->network);
	}
	/* network_from_doc only reads the document; a level that does
	 * not exist is the sweep's own error */
	ret = sweep_apply(s, file, idx, s->devices[0], doc, path, err);
	xmlFreeDoc(doc);
	return ret;
}
