/* t-config.c - the paper's configs load, and their parameter counts match
 * the published totals within 1%. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "model/config.h"
#include "tap.h"

static void
params(const char *name, double published, double rel)
{
	struct model_cfg m;
	struct pl_err err;
	char path[256], label[128];

	snprintf(path, sizeof(path), "configs/models/%s.xml", name);
	snprintf(label, sizeof(label), "%s loads", name);
	if (!OK(model_load(&m, path, &err) == 0, label)) {
		printf("#   %s:%zu: %s\n", err.file, err.line, err.msg);
		return;
	}
	snprintf(label, sizeof(label), "%s has %.4g parameters", name, published);
	EQ_DBL(model_parameters(&m), published, rel, label);
}

static void
networks(void)
{
	static const struct { const char *name; long devices; } want[] = {
		{ "fattree-tpuv4-64", 64 }, { "fattree-tpuv4-1024", 1024 },
		{ "spineleaf-h100-128", 128 }, { "spineleaf-h100-1024", 1024 },
		{ "spineleaf-v100-8", 8 }, { "spineleaf-v100-16", 16 },
		{ "torus-tpuv4-1024", 1024 },
		/* the sizes their designs publish: DeepSeek's multi-plane fat
		 * tree at most 16,384 GPUs (ISCA'25), 64 NVL72 racks in 8
		 * scalable units of 576 */
		{ "deepseek-h800-16384", 16384 }, { "gb200-nvl72-4608", 4608 },
	};
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		struct network n;
		struct pl_err err;
		char path[256];

		snprintf(path, sizeof(path), "configs/networks/%s.xml",
		    want[i].name);
		OK(network_load(&n, path, &err) == 0, want[i].name);
		EQ_INT(n.ndevices, want[i].devices, path);
	}
}

/*
 * Megatron-LM's FLOP count (model_step_flops) against SC'21's closed forms
 * for GPT-3 175B (Narayanan et al., Eq. 3, its Table 1 row: B 1,536, s
 * 2,048, l 96, h 12,288, V 51,200): 96 B s l h^2 (1 + s/6h + V/16lh)
 * with full recomputation, 72 B s l h^2 (1 + s/6h + V/12lh) without.
 */
static void
step_flops(void)
{
	struct model_cfg m;
	struct pl_err err;
	double B = 1536, s = 2048, l = 96, h = 12288, V = 51200;

	if (!OK(model_load(&m, "configs/models/gpt3-175b.xml", &err) == 0,
	    "gpt3-175b loads"))
		return;
	m.vocab = (long)V;
	EQ_DBL(model_step_flops(&m, B, 1, 0), 96 * B * s * l * h * h * (1 +
	    s / (6 * h) + V / (16 * l * h)), 1e-12, "SC'21 Eq. 3, full "
	    "recomputation (HFU's count)");
	EQ_DBL(model_step_flops(&m, B, 0, 0), 72 * B * s * l * h * h * (1 +
	    s / (6 * h) + V / (12 * l * h)), 1e-12, "without (MFU's count)");
	/* selective reruns the attention core's forward: s/3h of 12 B s l
	 * h^2 more, 4 B s^2 l h */
	EQ_DBL(model_step_flops(&m, B, 0, 1) - model_step_flops(&m, B, 0, 0),
	    4 * B * s * s * l * h, 1e-9, "selective: the core's forward again");
	/* heads twice as wide (head_dim 256, queries 2h wide), counted
	 * product by product: q, k, v 2 h (3 q), the core 2 s q twice, o
	 * 2 q h, the MLP 2 h 4h twice; three passes; the head 2 h V */
	{
		double q = 2 * h, f = 4 * h;
		double layer = 2 * h * 3 * q + 2 * 2 * s * q + 2 * q * h +
		    2 * 2 * h * f;

		m.head_dim = 256;
		EQ_DBL(model_step_flops(&m, B, 0, 0), 3 * B * s * (l * layer +
		    2 * h * V), 1e-12, "head_dim 256: the products' sum");
	}
	/* DeepSeek-V3 (its report's Sec. 4.2), product by product as
	 * core_v0.15.0 counts them (its two rank norms a multiply an
	 * element), the core whole: 3 dense layers, 58 expert layers (8
	 * routed experts and the shared one) and the prediction module's
	 * expert layer, its norms and 2h x h projection, two sets of logits */
	if (OK(model_load(&m, "configs/models/deepseek-v3.xml", &err) == 0,
	    "deepseek-v3 loads")) {
		double S = 4096, H = 7168, A = 128, qr = 1536, kvr = 512;
		double rope = 64, nope = 128, vd = 128, Vd = 129280;
		double attn = H * qr + qr + qr * A * (nope + rope) +
		    H * (kvr + rope) + kvr + kvr * A * (nope + vd) + A * vd * H;
		double core = S * A * (nope + rope + vd);
		double dense = attn + core + 3 * H * 18432;
		double moe = attn + core + 9 * 3 * H * 2048;

		EQ_DBL(model_step_flops(&m, 1, 0, 0), 6 * S * (3 * dense +
		    59 * moe + 3 * H + 2 * H * H + 2 * Vd * H), 1e-12,
		    "DeepSeek-V3: the products' sum");
	}
}

/* The A100 config with `extra` before its end, read. */
static void
a100_with(const char *extra, struct accel_cfg *a)
{
	struct pl_err err;
	FILE *fp = fopen("configs/accelerators/a100-80gb.xml", "r");
	char buf[16384], *end;
	size_t len = fp ? fread(buf, 1, sizeof(buf) - strlen(extra) - 1, fp) :
	    0;
	xmlDocPtr doc;

	if (fp)
		fclose(fp);
	buf[len] = '\0';
	if (!(end = strstr(buf, "</accelerator>"))) {
		printf("Bail out! a100-80gb.xml: no </accelerator>\n");
		exit(1);
	}
	memmove(end + strlen(extra), end, strlen(end) + 1);
	memcpy(end, extra, strlen(extra));
	doc = xmlReadMemory(buf, (int)strlen(buf), "a100-plus.xml", NULL,
	    XML_PARSE_NONET);
	OK(doc && accel_from_doc(a, doc, "a100-plus.xml", &err) == 0,
	    "the A100 config with flash kinds reads");
	xmlFreeDoc(doc);
}

/*
 * Fused attention's efficiency kinds: their default chain (flash <-
 * attention, flash backward <- flash, dropout <- flash, dropout backward
 * <- flash backward), worked on the A100 config (attention 0.5) with one
 * kind added; the graph records name them only where a config gives
 * them, so an A100 graph's record is as before and an H100 graph made
 * before them is told apart from one made after.
 */
static void
flash_kinds(void)
{
	struct accel_cfg a, h;
	struct pl_err err;
	char *line, *hline, *fresh, name[64], want[64], got[64];

	a100_with("<efficiency kind=\"flash_attention_backward\">0.4"
	    "</efficiency>\n", &a);
	EQ_DBL(a.efficiency[EFF_FLASH], 0.5, 0, "flash forward: the attention one");
	EQ_DBL(a.efficiency[EFF_FLASH_DROPOUT_BACKWARD], 0.4, 0,
	    "flash backward with dropout: the flash backward one");
	a100_with("<efficiency kind=\"flash_attention\">0.6</efficiency>\n", &a);
	EQ_DBL(a.efficiency[EFF_FLASH_BACKWARD], 0.6, 0,
	    "flash backward: the flash one");
	EQ_DBL(a.efficiency[EFF_FLASH_DROPOUT], 0.6, 0,
	    "flash forward with dropout: the flash one");
	EQ_DBL(a.efficiency[EFF_FLASH_DROPOUT_BACKWARD], 0.6, 0,
	    "flash backward with dropout: the flash backward one, in turn");
	EQ_DBL(a.efficiency[EFF_ATTENTION], 0.5, 0,
	    "the unfused products' attention one unchanged");
	OK(accel_load(&a, "configs/accelerators/a100-80gb.xml", &err) == 0 &&
	    accel_load(&h, "configs/accelerators/h100-80gb.xml", &err) == 0,
	    "a100 and h100");
	line = accel_config_line(&a);
	hline = accel_config_line(&h);
	OK(!strstr(line, "flash"), "an A100 record names no flash kind");
	OK(strstr(hline, " efficiency_flash_attention=0.734 ") &&
	    strstr(hline, " flash_fixed_keys=1200"),
	    "an H100 record names them");
	/* an H100 record without them (a graph made before): told apart */
	*strstr(hline, " efficiency_flash_attention=") = '\0';
	fresh = accel_config_line(&h);
	OK(config_line_diff(fresh, hline, name, want, got, sizeof name) == 1 &&
	    !strcmp(name, "efficiency_flash_attention"),
	    "a record made before the flash kinds is told apart");
	free(fresh);
	free(line);
	free(hline);
}

/*
 * FlashAttention-2's kinds: none on the A100 (no FA2 rate, no field in its
 * record), the forward one alone giving the other three (backward as
 * forward, dropout as without); a pass's kind without the forward one is
 * a slip, refused with its line; the H100's record names all four, so a
 * graph priced before they were measured is told apart.
 */
static void
fa2_kinds(void)
{
	struct accel_cfg a, h;
	struct pl_err err;
	xmlDocPtr doc;
	const char *lone = "<?xml version=\"1.0\"?>\n<accelerator name=\"x\">"
	    "<memory_GiB>80</memory_GiB>"
	    "<peak_matmul_flops_per_s>1e15</peak_matmul_flops_per_s>"
	    "<peak_vector_flops_per_s>1e14</peak_vector_flops_per_s>"
	    "<memory_bandwidth_GBps>3000</memory_bandwidth_GBps>\n"
	    "<efficiency kind=\"fa2_attention_backward\">0.3</efficiency>"
	    "</accelerator>\n";
	char *line;

	OK(accel_load(&a, "configs/accelerators/a100-80gb.xml", &err) == 0 &&
	    !a.fa2, "the A100 has no FlashAttention-2 rate");
	line = accel_config_line(&a);
	OK(!strstr(line, "fa2"), "nor a field of it in its record");
	free(line);
	a100_with("<efficiency kind=\"fa2_attention\">0.4</efficiency>\n",
	    &a);
	OK(a.fa2, "fa2_attention gives the rate");
	EQ_DBL(a.efficiency[EFF_FA2_BACKWARD], 0.4, 0, "FA2 backward: forward's");
	EQ_DBL(a.efficiency[EFF_FA2_DROPOUT], 0.4, 0, "FA2 dropout: forward's");
	EQ_DBL(a.efficiency[EFF_FA2_DROPOUT_BACKWARD], 0.4, 0,
	    "FA2 backward with dropout: the backward one's, in turn");
	EQ_DBL(a.efficiency[EFF_FLASH], a.efficiency[EFF_ATTENTION], 0,
	    "the device's own fused kernel unchanged");
	doc = xmlReadMemory(lone, (int)strlen(lone), "lone.xml", NULL,
	    XML_PARSE_NONET);
	OK(doc && accel_from_doc(&a, doc, "lone.xml", &err) < 0 &&
	    strstr(err.msg, "'fa2_attention_backward' without kind "
	    "'fa2_attention'") && err.line == 3,
	    "a pass's FA2 kind alone is refused, with its line");
	xmlFreeDoc(doc);
	OK(accel_load(&h, "configs/accelerators/h100-80gb.xml", &err) == 0 &&
	    h.fa2, "the H100 has one");
	line = accel_config_line(&h);
	OK(strstr(line, " efficiency_fa2_attention=0.365 ") &&
	    strstr(line, " efficiency_fa2_attention_dropout_backward=0.307"),
	    "and its record names the four");
	free(line);
}

int
main(void)
{
	struct accel_cfg a;
	struct pl_err err;

	/* Published totals: Devlin et al. (BERT-Large 335M as commonly
	 * counted with the pooler), Touvron et al. (6.74B), Grattafiori et
	 * al. (70.6B), Brown et al. (175B), Jiang et al. (46.7B), and the
	 * paper's appendix for GPT3-35B (35B) and the scaled Mixtral (790M). */
	params("bertlarge", 335e6, 0.01);
	params("llama2-7b", 6.74e9, 0.01);
	params("llama3-70b", 70.6e9, 0.01);
	params("gpt3-175b", 175e9, 0.01);
	params("mixtral-8x7b", 46.7e9, 0.01);
	params("gpt3-35b", 35e9, 0.01);
	params("mixtral-scaled", 790e6, 0.01);
	/* Qwen3 Technical Report (2025): 235B (DeepSeek-V3's counts are
	 * checked in tests/graph-normalize/020) */
	params("qwen3-235b-a22b", 235e9, 0.01);
	networks();
	OK(accel_load(&a, "configs/accelerators/tpuv4.xml", &err) == 0, "tpuv4");
	EQ_DBL(a.memory_bytes, 64.0 * 1073741824.0, 0, "64 GiB");
	EQ_INT(a.tensor_cores, 8, "8 tensor cores");
	OK(accel_load(&a, "configs/accelerators/h100-80gb.xml", &err) == 0, "h100");
	EQ_DBL(a.peak_matmul_flops_per_s, 989.4e12, 0, "H100 dense BF16 peak");
	/* dpsolve's reserve: 667 MB + 1 GiB + 5% of 80 GiB = 6.036 GB */
	EQ_DBL(accel_memory_reserve_bytes(&a), 667e6 + 1073741824.0 + 0.05 *
	    80 * 1073741824.0, 1e-12, "the reserve of an 80 GiB GPU");
	step_flops();
	flash_kinds();
	fa2_kinds();
	return tap_done();
}
