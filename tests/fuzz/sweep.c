/* sweep.c - fuzz the sweep config reader (sweep_load: libxml2, our schema,
 * then the rules a schema cannot state) and, on every sweep it accepts,
 * sweep_apply: its first and last points written into a fixed base
 * network (levels node, leaf, spine), which must then read back as a
 * valid network or fail with one line. */
#include <libxml/parser.h>

#include "export/sweep.h"
#include "fuzz.h"
#include "model/config.h"

static const char base_xml[] =
    "<?xml version=\"1.0\"?>\n"
    "<network name=\"base\">\n"
    "  <description>the fuzzed sweeps' base</description>\n"
    "  <level name=\"node\" fanout=\"8\" bandwidth_GBps=\"450\" latency_s=\"3e-6\"/>\n"
    "  <level name=\"leaf\" fanout=\"16\" bandwidth_GiBps=\"50\" latency_s=\"5e-6\"/>\n"
    "  <level name=\"spine\" fanout=\"32\" bandwidth_GBps=\"50\" latency_s=\"1e-5\" oversubscription=\"2\"/>\n"
    "</network>\n";

static void
apply(const struct sweep_cfg *s, long k, long devices)
{
	xmlDocPtr doc = xmlReadMemory(base_xml, (int)sizeof(base_xml) - 1,
	    "base.xml", NULL, XML_PARSE_NONET);
	int idx[SWEEP_MAX_VARY];
	struct network net;
	struct pl_err err;
	int rc;

	sweep_point_values(s, k, idx);
	rc = sweep_apply(s, "sweep.xml", idx, devices, doc, "base.xml", &err);
	fuzz_expect(rc, &err);
	if (rc == 0)
		fuzz_expect(network_from_doc(&net, doc, "base.xml", &err), &err);
	xmlFreeDoc(doc);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct sweep_cfg cfg;
	struct pl_err err;
	int rc = sweep_load(&cfg, fuzz_file("sweep.xml", data, size), &err);

	fuzz_expect(rc, &err);
	if (rc == 0) {
		apply(&cfg, 0, cfg.devices[0]);
		apply(&cfg, sweep_net_points(&cfg) - 1,
		    cfg.devices[cfg.ndevices - 1]);
	}
	return 0;
}
