/*
 * t-sweep.c - a sweep's points and the networks made of them.  The level
 * fanouts are worked out by hand from the rule of docs/formats.md (a level
 * keeps its size in devices, rounded to whole units of the level below;
 * the top level holds the cluster).
 */
#include <libxml/tree.h>

#include "base/xmlio.h"
#include "export/sweep.h"
#include "model/config.h"
#include "tap.h"

static const char base_xml[] =
    "<?xml version=\"1.0\"?>\n"
    "<network name=\"base\">\n"
    "  <description>8 a node, 16 nodes a leaf, 32 leaves</description>\n"
    "  <level name=\"node\" fanout=\"8\" bandwidth_GBps=\"450\" latency_s=\"3e-6\"/>\n"
    "  <level name=\"leaf\" fanout=\"16\" bandwidth_GiBps=\"50\" latency_s=\"5e-6\"/>\n"
    "  <level name=\"spine\" fanout=\"32\" bandwidth_GBps=\"50\" latency_s=\"1e-5\"/>\n"
    "</network>\n";

static const char sweep_xml[] =
    "<?xml version=\"1.0\"?>\n"
    "<sweep name=\"s\">\n"
    "  <description>test</description>\n"
    "  <network>base</network>\n"
    "  <accelerator>h100-80gb</accelerator>\n"
    "  <global_batch_samples>64</global_batch_samples>\n"
    "  <devices>1024 4096</devices>\n"
    "  <vary name=\"bw\" levels=\"leaf spine\" attribute=\"bandwidth_GBps\">12.5 100</vary>\n"
    "  <vary name=\"os\" levels=\"spine\" attribute=\"oversubscription\">1 2 8</vary>\n"
    "  <vary name=\"domain\" levels=\"node\" attribute=\"devices\">8 72 256</vary>\n"
    "  <model name=\"llama2-7b\"/>\n"
    "</sweep>\n";

/* The network of point idx at `devices`, as the tools would read it. */
static int
point_network(const struct sweep_cfg *s, const int *idx, long devices,
    struct network *net)
{
	xmlDocPtr doc = xmlReadMemory(base_xml, (int)sizeof(base_xml) - 1,
	    "base.xml", NULL, XML_PARSE_NONET);
	struct pl_err err;
	int ret = sweep_apply(s, "s.xml", idx, devices, doc, "base.xml", &err);

	if (ret == 0)
		ret = network_from_doc(net, doc, "base.xml", &err);
	if (ret < 0)
		printf("#   %s:%zu: %s\n", err.file, err.line, err.msg);
	xmlFreeDoc(doc);
	return ret;
}

static void
fanouts(const struct sweep_cfg *s, int bw, int os, int dom, long devices,
    long f0, long f1, long f2, const char *name)
{
	int idx[SWEEP_MAX_VARY] = { bw, os, dom };
	struct network net;
	char label[160];

	if (!OK(point_network(s, idx, devices, &net) == 0, name))
		return;
	snprintf(label, sizeof(label), "%s: fanouts %ld %ld %ld", name, f0, f1,
	    f2);
	if (!OK(net.nlevels == 3 && net.level[0].fanout == f0 &&
	    net.level[1].fanout == f1 && net.level[2].fanout == f2, label) &&
	    net.nlevels == 3)
		printf("#   got %ld %ld %ld\n", net.level[0].fanout,
		    net.level[1].fanout, net.level[2].fanout);
}

int
main(void)
{
	xmlDocPtr doc = xmlReadMemory(sweep_xml, (int)sizeof(sweep_xml) - 1,
	    "s.xml", NULL, XML_PARSE_NONET);
	int idx[SWEEP_MAX_VARY], back = 1;
	struct sweep_cfg s;
	struct network net;
	struct pl_err err;
	char stem[256];

	if (!OK(sweep_from_doc(&s, doc, "s.xml", &err) == 0, "sweep loads")) {
		printf("#   %s:%zu: %s\n", err.file, err.line, err.msg);
		return tap_done();
	}
	xmlFreeDoc(doc);
	EQ_INT(sweep_net_points(&s), 2 * 3 * 3, "2 x 3 x 3 network points");
	EQ_INT(s.heat_x, 0, "heat map x: the first vary");
	EQ_INT(s.heat_y, 1, "heat map y: the second");

	/* mixed radix, the first vary slowest: 13 = 1*9 + 1*3 + 1 */
	sweep_point_values(&s, 13, idx);
	OK(idx[0] == 1 && idx[1] == 1 && idx[2] == 1, "point 13 is (1, 1, 1)");
	for (long k = 0; k < sweep_net_points(&s); k++) {
		sweep_point_values(&s, k, idx);
		back &= sweep_point_number(&s, idx) == k;
	}
	OK(back, "every point's values give its number back");
	sweep_point_stem(&s, idx, stem, sizeof(stem));
	EQ_STR(stem, "bw-100+os-8+domain-256", "the last point's stem");
	OK(sweep_parse_point(&s, "s.xml", "1.2.0", idx, &err) == 0 &&
	    idx[0] == 1 && idx[1] == 2 && idx[2] == 0, "\"1.2.0\" parses");
	OK(sweep_parse_point(&s, "s.xml", "1.3.0", idx, &err) < 0,
	    "\"1.3.0\" is refused");
	OK(sweep_parse_point(&s, "s.xml", "1.2", idx, &err) < 0,
	    "\"1.2\" is refused");
	OK(sweep_parse_point(&s, "s.xml", "1.2.0.0", idx, &err) < 0,
	    "\"1.2.0.0\" is refused");

	/* the base sizes: 8, 128, 4096 devices */
	fanouts(&s, 0, 0, 0, 4096, 8, 16, 32, "base at 4096");
	fanouts(&s, 0, 0, 0, 1024, 8, 16, 8, "base at 1024: 8 leaves");
	/* domain 72: a leaf of round(128 / 72) = 2 domains (144 devices),
	 * ceil(1024 / 144) = 8 and ceil(4096 / 144) = 29 of them */
	fanouts(&s, 0, 0, 1, 1024, 72, 2, 8, "domain 72 at 1024");
	fanouts(&s, 0, 0, 1, 4096, 72, 2, 29, "domain 72 at 4096");
	/* domain 256 is larger than a leaf: leaves of one domain */
	fanouts(&s, 0, 0, 2, 1024, 256, 1, 4, "domain 256 at 1024");

	/* the values written in: bandwidth (GiB/s replaced), oversubscription */
	idx[0] = 0, idx[1] = 2, idx[2] = 0;
	if (OK(point_network(&s, idx, 1024, &net) == 0, "point (0, 2, 0)")) {
		EQ_DBL(net.level[0].bandwidth_Bps, 450e9, 1e-12,
		    "node bandwidth kept");
		EQ_DBL(net.level[1].bandwidth_Bps, 12.5e9, 1e-12,
		    "leaf bandwidth 12.5 GB/s (was 50 GiB/s)");
		EQ_DBL(net.level[2].bandwidth_Bps, 12.5e9, 1e-12,
		    "spine bandwidth 12.5 GB/s");
		EQ_DBL(net.level[2].oversubscription, 8, 0,
		    "spine oversubscription 8");
		EQ_DBL(net.level[1].oversubscription, 1, 0,
		    "leaf oversubscription 1");
		EQ_DBL(net.level[1].latency_s, 5e-6, 1e-12, "leaf latency kept");
		EQ_STR(net.name, "s-n1024-12.5_8_8", "named SWEEP-nN-VALUES");
	}
	return tap_done();
}
