/* config.c - load and check model, accelerator, network, experiment XML. */
#include <math.h>
#include <string.h>

#include <libxml/tree.h>

#include "base/xmlio.h"
#include "model/config.h"

#define GiB 1073741824.0
#define GB 1e9
/* The least rate a config may give, bytes or FLOPs a second: a kilobyte a
 * second is below any link or device, so less is a unit mistake. */
#define RATE_MIN 1e3

static size_t
line_of(xmlNodePtr n)
{
	return n ? (size_t)xmlGetLineNo(n) : 0;
}

static void
copy_name(char *dst, size_t len, xmlNodePtr node)
{
	char *s = xmlio_attr(node, "name");

	snprintf(dst, len, "%s", s ? s : "");
	free(s);
}

/* Index of the child's text in `choices`; the schema guarantees a match. */
static int
child_enum(xmlNodePtr parent, const char *name, const char *const *choices,
    int dflt)
{
	xmlNodePtr n = xmlio_child(parent, name);
	char *s;
	int v = dflt;

	if (n == NULL)
		return dflt;
	s = xmlio_text(n);
	for (int i = 0; choices[i]; i++)
		if (strcmp(s, choices[i]) == 0)
			v = i;
	free(s);
	return v;
}

/* A required positive integer child. */
static int
need_long(const char *file, xmlNodePtr parent, const char *name, long *dst,
    struct pl_err *err)
{
	int r = xmlio_child_long(file, parent, name, 1, dst, err);

	if (r > 0)
		return pl_errf(err, file, line_of(parent), "missing element '%s'",
		    name);
	return r;
}
#define NEED_LONG(file, root, name, dst) need_long(file, root, name, dst, err)

/* A required child holding a number > 0. */
static int
need_at_least(const char *file, xmlNodePtr parent, const char *name,
    double min, double *dst, struct pl_err *err)
{
	int r = xmlio_child_double(file, parent, name, 0, dst, err);

	if (r > 0)
		return pl_errf(err, file, line_of(parent), "missing element '%s'",
		    name);
	if (r == 0 && !(*dst > 0))
		return pl_errf(err, file, line_of(xmlio_child(parent, name)),
		    "element '%s': must be positive", name);
	if (r == 0 && *dst < min)
		return pl_errf(err, file, line_of(xmlio_child(parent, name)),
		    "element '%s': %g is below %g (a unit mistake?)", name,
		    *dst, min);
	return r;
}

/* An element of the model, to name in an error: `name`'s line, or the
 * root's where it is absent. */
static size_t
at(xmlNodePtr root, const char *name)
{
	xmlNodePtr n = xmlio_child(root, name);

	return line_of(n ? n : root);
}

/*
 * What latent attention and the experts' new elements need of each other
 * and of the rest: a latent model names its ranks and rotary width, has
 * a key/value head a query head and no biases; the experts' elements
 * need experts, the router's groups divide them and hold top_k.
 */
static int
latent_and_experts_check(const struct model_cfg *m, xmlNodePtr r,
    const char *path, struct pl_err *err)
{
	static const char *const latent_only[] = { "q_lora_rank",
	    "qk_rope_head_dim", "v_head_dim" };
	static const char *const experts_only[] = { "expert_ffn_hidden",
	    "shared_expert_ffn_hidden", "dense_layers", "router_groups",
	    "router_group_topk", "expert_imbalance" };

	if (m->kv_lora_rank == 0) {
		for (size_t i = 0; i < sizeof latent_only / sizeof *latent_only;
		    i++)
			if (xmlio_child(r, latent_only[i]))
				return pl_errf(err, path, at(r, latent_only[i]),
				    "element '%s': latent attention's, but no "
				    "kv_lora_rank", latent_only[i]);
	} else {
		if (!xmlio_child(r, "qk_rope_head_dim"))
			return pl_errf(err, path, at(r, "kv_lora_rank"), "element "
			    "'kv_lora_rank': latent attention needs "
			    "qk_rope_head_dim (its rotary key's width)");
		if (m->kv_heads != m->heads)
			return pl_errf(err, path, at(r, "kv_heads"), "element "
			    "'kv_heads': latent attention has a key/value head a "
			    "query head (%ld), not %ld", m->heads, m->kv_heads);
		if (m->qk_norm || m->bias || m->position != POS_ROTARY)
			return pl_errf(err, path, at(r, "kv_lora_rank"), "element "
			    "'kv_lora_rank': latent attention with %s",
			    m->qk_norm ? "qk_norm (its ranks have their own "
			    "norms)" : m->bias ? "biases" : "learned positions");
		if (m->architecture != ARCH_DECODER)
			return pl_errf(err, path, at(r, "kv_lora_rank"), "element "
			    "'kv_lora_rank': latent attention in an encoder");
	}
	if (m->experts == 1) {
		for (size_t i = 0; i < sizeof experts_only /
		    sizeof *experts_only; i++)
			if (xmlio_child(r, experts_only[i]))
				return pl_errf(err, path, at(r, experts_only[i]),
				    "element '%s': a mixture of experts', but "
				    "experts is 1", experts_only[i]);
	}
	if (m->dense_layers >= m->layers && m->experts > 1)
		return pl_errf(err, path, at(r, "dense_layers"), "element "
		    "'dense_layers': %ld of %ld layers, none left with experts",
		    m->dense_layers, m->layers);
	if (m->experts % m->router_groups)
		return pl_errf(err, path, at(r, "router_groups"), "element "
		    "'router_groups': %ld groups do not divide %ld experts",
		    m->router_groups, m->experts);
	if (m->router_group_topk > m->router_groups)
		return pl_errf(err, path, at(r, "router_group_topk"), "element "
		    "'router_group_topk': %ld of %ld groups",
		    m->router_group_topk, m->router_groups);
	if (m->top_k > m->router_group_topk * (m->experts / m->router_groups))
		return pl_errf(err, path, at(r, "router_group_topk"), "element "
		    "'router_group_topk': %ld groups of %ld experts cannot "
		    "hold top_k %ld", m->router_group_topk, m->experts /
		    m->router_groups, m->top_k);
	/* all of a step's tokens on one expert rank is the most there can be */
	if (m->expert_imbalance > (double)m->experts)
		return pl_errf(err, path, at(r, "expert_imbalance"), "element "
		    "'expert_imbalance': %g, more than the %ld experts (every "
		    "token on one)", m->expert_imbalance, m->experts);
	if (m->mtp_depth > 0 && m->architecture != ARCH_DECODER)
		return pl_errf(err, path, at(r, "mtp_depth"), "element "
		    "'mtp_depth': multi-token prediction in an encoder");
	if (m->mtp_depth > MODEL_MAX_LAYERS)
		return pl_errf(err, path, at(r, "mtp_depth"), "element "
		    "'mtp_depth': %ld, more than %d", m->mtp_depth,
		    MODEL_MAX_LAYERS);
	return 0;
}

int
word_index(const char *const *words, const char *word)
{
	for (int k = 0; word && words[k]; k++)
		if (strcmp(words[k], word) == 0)
			return k;
	return -1;
}

/* The model's enumerated elements' words, in the enums' order: what the
 * reader accepts and the config line writes. */
const char *const fp8_recipe_words[] = { "none", "delayed", "tensorwise",
	"blockwise", "mxfp8", "float8", "float8-tp", NULL };
int
fp8_recipe_of(const char *word)
{
	return word_index(fp8_recipe_words, word);
}

const char *const attention_kernel_words[] = { "fused", "fa2", NULL };
int
attention_kernel_of(const char *word)
{
	return word_index(attention_kernel_words, word);
}

int
accel_runs_fp8(const struct accel_cfg *a, int recipe)
{
	if (FP8_TORCHAO(recipe))
		recipe = FP8_TENSORWISE;
	return recipe > FP8_NONE && recipe < FP8_NRECIPES &&
	    (a->fp8_recipes & 1u << recipe);
}

/* Bytes an element of an FP8 cast moves, by recipe: Transformer Engine's
 * fused cast-transpose reads the bf16 tensor and writes it in FP8 and
 * transposed in FP8 (Hopper's FP8 products take only the "TN" layout, so
 * the weight gradient needs the transposed copy): 2 + 1 + 1.  Current
 * (tensorwise) scaling reads the tensor once more for its amax first;
 * delayed scaling takes the scale from past amaxes.  Block scales add
 * their scales: blockwise 4 bytes a 128 elements, twice (1x128 rows and
 * the transposed copy's); MXFP8 one byte a 32 elements, rowwise and
 * columnwise.  torchao's (float8) under torch.compile: the amax reduction
 * fused into the op that makes the tensor, then one kernel writing both
 * layouts, 2 + 1 + 1 (torchao's roofline_utils.py at eab345c, "fused"
 * activations and gradients). */
double
fp8_cast_bytes(int recipe)
{
	switch (recipe) {
	case FP8_TENSORWISE: return 6;
	case FP8_BLOCKWISE: return 4 + 2 * 4.0 / 128;
	case FP8_MXFP8: return 4 + 2 * 1.0 / 32;
	default: return 4;
	}
}

static const char *const arch_words[] = { "encoder", "decoder", NULL };
static const char *const norm_words[] = { "layernorm", "rmsnorm", NULL };
static const char *const act_words[] = { "gelu", "silu", "relu", NULL };
static const char *const mlp_words[] = { "dense", "gated", NULL };
static const char *const pos_words[] = { "learned", "rotary", NULL };

int
model_from_doc(struct model_cfg *m, xmlDocPtr doc, const char *path,
    struct pl_err *err)
{
	xmlNodePtr r;
	int ret = -1;

	memset(m, 0, sizeof(*m));
	r = xmlDocGetRootElement(doc);
	copy_name(m->name, sizeof(m->name), r);
	m->architecture = child_enum(r, "architecture", arch_words,
	    ARCH_DECODER);
	m->norm = child_enum(r, "norm", norm_words, NORM_LAYERNORM);
	m->activation = child_enum(r, "activation", act_words, ACT_GELU);
	m->mlp = child_enum(r, "mlp", mlp_words, MLP_DENSE);
	m->position = child_enum(r, "position", pos_words, POS_LEARNED);
	if (NEED_LONG(path, r, "layers", &m->layers) ||
	    NEED_LONG(path, r, "hidden", &m->hidden) ||
	    NEED_LONG(path, r, "heads", &m->heads) ||
	    NEED_LONG(path, r, "ffn_hidden", &m->ffn_hidden) ||
	    NEED_LONG(path, r, "vocab", &m->vocab) ||
	    NEED_LONG(path, r, "seq_len", &m->seq_len))
		goto done;
	m->kv_heads = m->heads;
	m->head_dim = m->hidden / m->heads;
	m->max_positions = m->seq_len;
	m->experts = m->top_k = 1;
	m->rope_theta = 10000;
	m->causal = m->flash_attention = m->architecture == ARCH_DECODER;
	if (xmlio_child_long(path, r, "kv_heads", 1, &m->kv_heads, err) < 0 ||
	    xmlio_child_long(path, r, "head_dim", 1, &m->head_dim, err) < 0 ||
	    xmlio_child_long(path, r, "max_positions", 1, &m->max_positions,
	    err) < 0 ||
	    xmlio_child_long(path, r, "type_vocab", 0, &m->type_vocab, err) < 0 ||
	    xmlio_child_long(path, r, "experts", 1, &m->experts, err) < 0 ||
	    xmlio_child_long(path, r, "top_k", 1, &m->top_k, err) < 0 ||
	    xmlio_child_long(path, r, "rope_theta", 1, &m->rope_theta,
	    err) < 0 ||
	    xmlio_child_bool(path, r, "tied_embeddings", &m->tied_embeddings,
	    err) < 0 ||
	    xmlio_child_bool(path, r, "bias", &m->bias, err) < 0 ||
	    xmlio_child_bool(path, r, "pooler", &m->pooler, err) < 0 ||
	    xmlio_child_bool(path, r, "dropout", &m->dropout, err) < 0 ||
	    xmlio_child_bool(path, r, "causal", &m->causal, err) < 0 ||
	    xmlio_child_bool(path, r, "qk_norm", &m->qk_norm, err) < 0 ||
	    xmlio_child_bool(path, r, "flash_attention", &m->flash_attention,
	    err) < 0)
		goto done;
	m->expert_ffn_hidden = m->ffn_hidden;
	m->v_head_dim = m->head_dim;
	m->router_groups = m->router_group_topk = 1;
	m->expert_imbalance = 1;
	if (xmlio_child_long(path, r, "q_lora_rank", 1, &m->q_lora_rank,
	    err) < 0 ||
	    xmlio_child_long(path, r, "kv_lora_rank", 1, &m->kv_lora_rank,
	    err) < 0 ||
	    xmlio_child_long(path, r, "qk_rope_head_dim", 1,
	    &m->qk_rope_head_dim, err) < 0 ||
	    xmlio_child_long(path, r, "v_head_dim", 1, &m->v_head_dim,
	    err) < 0 ||
	    xmlio_child_long(path, r, "expert_ffn_hidden", 1,
	    &m->expert_ffn_hidden, err) < 0 ||
	    xmlio_child_long(path, r, "shared_expert_ffn_hidden", 1,
	    &m->shared_expert_ffn_hidden, err) < 0 ||
	    xmlio_child_long(path, r, "dense_layers", 0, &m->dense_layers,
	    err) < 0 ||
	    xmlio_child_long(path, r, "router_groups", 1, &m->router_groups,
	    err) < 0 ||
	    xmlio_child_long(path, r, "router_group_topk", 1,
	    &m->router_group_topk, err) < 0 ||
	    xmlio_child_long(path, r, "mtp_depth", 0, &m->mtp_depth, err) < 0 ||
	    xmlio_child_double(path, r, "expert_imbalance", 1,
	    &m->expert_imbalance, err) < 0)
		goto done;
	if (latent_and_experts_check(m, r, path, err) < 0)
		goto done;
	/* the deepest transformers have a few hundred layers; a layer
	 * graph (and a plan search) is linear in them */
	if (m->layers > MODEL_MAX_LAYERS) {
		pl_errf(err, path, line_of(xmlio_child(r, "layers")), "element "
		    "'layers': %ld, more than %d", m->layers,
		    MODEL_MAX_LAYERS);
		goto done;
	}
	if (xmlio_child(r, "head_dim") && m->head_dim > 1000000) {
		pl_errf(err, path, line_of(xmlio_child(r, "head_dim")), "element "
		    "'head_dim': %ld, more than 1,000,000", m->head_dim);
		goto done;
	}
	/* without head_dim the heads split the hidden size */
	if (!xmlio_child(r, "head_dim") && m->hidden % m->heads != 0) {
		pl_errf(err, path, line_of(xmlio_child(r, "heads")), "element "
		    "'heads': %ld heads do not divide hidden %ld", m->heads,
		    m->hidden);
		goto done;
	}
	if (m->heads % m->kv_heads != 0) {
		pl_errf(err, path, line_of(xmlio_child(r, "kv_heads")), "element "
		    "'kv_heads': %ld kv heads do not divide %ld heads",
		    m->kv_heads, m->heads);
		goto done;
	}
	if (m->position != POS_ROTARY && xmlio_child(r, "rope_theta")) {
		pl_errf(err, path, line_of(xmlio_child(r, "rope_theta")),
		    "element 'rope_theta': a rotary base with learned "
		    "positions");
		goto done;
	}
	if (m->top_k > m->experts) {
		pl_errf(err, path, line_of(xmlio_child(r, "top_k")), "element "
		    "'top_k': %ld exceeds the %ld experts", m->top_k, m->experts);
		goto done;
	}
	if (m->position == POS_LEARNED && m->max_positions < m->seq_len) {
		pl_errf(err, path, line_of(xmlio_child(r, "max_positions")),
		    "element 'max_positions': %ld learned positions cannot hold "
		    "seq_len %ld", m->max_positions, m->seq_len);
		goto done;
	}
	ret = xmlio_validate(doc, path, XMLIO_MODEL, err);
done:
	return ret;
}

int
model_load(struct model_cfg *m, const char *path, struct pl_err *err)
{
	xmlDocPtr doc = xmlio_load(path, XMLIO_MODEL, NULL, err);
	int ret;

	if (doc == NULL)
		return -1;
	ret = model_from_doc(m, doc, path, err);
	xmlFreeDoc(doc);
	return ret;
}

double
model_step_flops(const struct model_cfg *m, double samples,
    double rerun_share, int selective_rerun)
{
	double s = (double)m->seq_len, h = (double)m->hidden;
	double A = (double)m->heads, V = (double)m->vocab;
	double g = m->mlp == MLP_GATED ? 1.5 : 1;
	double r = 1 + rerun_share / 3;
	double proj, core, dense_mlp, moe_mlp, n_dense, n_moe, mtp, macs;

	/* multiply-accumulates a token, forward: the attention's
	 * projections and its core (the whole score matrix and the context,
	 * as core_r0.8.0 counts them) */
	if (m->kv_lora_rank > 0) {
		/* core_v0.15.0's count for latent attention: the ranks' norms
		 * as a multiply an element */
		double qr = (double)m->q_lora_rank, kvr = (double)m->kv_lora_rank;
		double rope = (double)m->qk_rope_head_dim;
		double qk = (double)m->head_dim + rope, vd = (double)m->v_head_dim;

		proj = (qr > 0 ? qr * (h + A * qk + 1) : h * A * qk) +
		    kvr * (h + A * ((double)m->head_dim + vd) + 1) + h * rope +
		    A * vd * h;
		core = s * A * (qk + vd);
	} else {
		double q = A * (double)m->head_dim;

		proj = 2 * h * q * (1 + (double)m->kv_heads / A);
		core = 2 * s * q;
	}
	/* the MLPs: dense, or top_k routed experts and the shared ones */
	dense_mlp = 2 * h * (double)m->ffn_hidden * g;
	moe_mlp = 2 * h * g * ((double)m->top_k * (double)m->expert_ffn_hidden +
	    (double)m->shared_expert_ffn_hidden);
	n_dense = (double)(m->experts > 1 ? m->dense_layers : m->layers);
	n_moe = (double)m->layers - n_dense;
	/* a multi-token prediction module's layer is of the last layer's
	 * kind; its norms and 2h x h projection beside it */
	mtp = (double)m->mtp_depth;
	if (model_layer_is_moe(m, m->layers - 1))
		n_moe += mtp;
	else
		n_dense += mtp;
	macs = r * ((n_dense + n_moe) * (proj + core) + n_dense * dense_mlp +
	    n_moe * moe_mlp);
	if (selective_rerun)
		macs += (n_dense + n_moe) * core / 3;
	macs += mtp * (3 * h + 2 * h * h) + (mtp + 1) * V * h;
	/* forward, and backward's two products a forward one; 2 FLOPs a
	 * multiply-accumulate */
	return 6 * samples * s * macs;
}

double
accel_memory_reserve_bytes(const struct accel_cfg *a)
{
	return RESERVE_CONTEXT_BYTES + RESERVE_NCCL_BYTES +
	    RESERVE_FRAGMENTATION * a->memory_bytes;
}

double
accel_memory_Bps(const struct accel_cfg *a)
{
	return a->memory_bandwidth_Bps * a->efficiency[EFF_MEMORY];
}

double
accel_tp_comm_sm_share(const struct accel_cfg *a)
{
	if (a->gemm_units <= TE_UB_COMM_SMS)
		return 0;
	return (double)TE_UB_COMM_SMS / (double)a->gemm_units;
}

char *
model_config_line(const struct model_cfg *m)
{
	char imb[NUMFMT_LEN];

	numfmt(imb, m->expert_imbalance);
	return xasprintf("architecture=%s layers=%ld hidden=%ld heads=%ld "
	    "kv_heads=%ld head_dim=%ld ffn_hidden=%ld vocab=%ld seq_len=%ld "
	    "max_positions=%ld type_vocab=%ld experts=%ld top_k=%ld norm=%s "
	    "activation=%s mlp=%s position=%s tied_embeddings=%d bias=%d "
	    "pooler=%d dropout=%d causal=%d flash_attention=%d qk_norm=%d "
	    "q_lora_rank=%ld kv_lora_rank=%ld qk_rope_head_dim=%ld "
	    "v_head_dim=%ld expert_ffn_hidden=%ld shared_expert_ffn_hidden=%ld "
	    "dense_layers=%ld router_groups=%ld router_group_topk=%ld "
	    "mtp_depth=%ld expert_imbalance=%s",
	    arch_words[m->architecture], m->layers, m->hidden, m->heads,
	    m->kv_heads, m->head_dim, m->ffn_hidden, m->vocab, m->seq_len,
	    m->max_positions, m->type_vocab, m->experts, m->top_k,
	    norm_words[m->norm], act_words[m->activation], mlp_words[m->mlp],
	    pos_words[m->position],
	    m->tied_embeddings, m->bias, m->pooler, m->dropout, m->causal,
	    m->flash_attention, m->qk_norm, m->q_lora_rank, m->kv_lora_rank,
	    m->qk_rope_head_dim, m->v_head_dim, m->expert_ffn_hidden,
	    m->shared_expert_ffn_hidden, m->dense_layers, m->router_groups,
	    m->router_group_topk, m->mtp_depth, imb);
}

static char *accel_config_line_base(const struct accel_cfg *a);

/* The efficiency kinds' names, in config.h's EFF_* order: the config's
 * <efficiency kind> words and, after "efficiency_", the config line's. */
static const char *const efficiency_kinds[EFF_NKINDS + 1] = {
	"matmul", "attention", "vector", "memory", "fp8_matmul",
	"fp8_block_matmul", "flash_attention", "flash_attention_backward",
	"flash_attention_dropout", "flash_attention_dropout_backward",
	"fa2_attention", "fa2_attention_backward", "fa2_attention_dropout",
	"fa2_attention_dropout_backward", NULL
};

/* The efficiency kinds with a default, each the kind it defaults to, in
 * the order the defaults are taken (a default's own default first). */
static const int eff_defaults[][2] = {
	{ EFF_FP8_MATMUL, EFF_MATMUL },
	{ EFF_FP8_BLOCK_MATMUL, EFF_FP8_MATMUL },
	{ EFF_FLASH, EFF_ATTENTION },
	{ EFF_FLASH_BACKWARD, EFF_FLASH },
	{ EFF_FLASH_DROPOUT, EFF_FLASH },
	{ EFF_FLASH_DROPOUT_BACKWARD, EFF_FLASH_BACKWARD },
	{ EFF_FA2_BACKWARD, EFF_FA2 },
	{ EFF_FA2_DROPOUT, EFF_FA2 },
	{ EFF_FA2_DROPOUT_BACKWARD, EFF_FA2_BACKWARD },
};

/* Whether any of the default kernel's fused-attention kinds (the four
 * from EFF_FLASH) differs from its default. */
static int
flash_given(const struct accel_cfg *a)
{
	for (size_t i = 0; i < sizeof(eff_defaults) / sizeof(eff_defaults[0]);
	    i++)
		if (eff_defaults[i][0] >= EFF_FLASH &&
		    eff_defaults[i][0] <= EFF_FLASH_DROPOUT_BACKWARD &&
		    a->efficiency[eff_defaults[i][0]] !=
		    a->efficiency[eff_defaults[i][1]])
			return 1;
	return 0;
}

int
accel_has_fused_attention(const struct accel_cfg *a)
{
	return flash_given(a) || a->flash_fixed_keys > 0;
}

/* A config line `base` (freed) with the efficiency kinds first..last as
 * efficiency_<kind>=value fields. */
static char *
with_efficiencies(char *base, const struct accel_cfg *a, int first, int last)
{
	for (int k = first; k <= last; k++) {
		char v[NUMFMT_LEN], *line = xasprintf("%s efficiency_%s=%s",
		    base, efficiency_kinds[k], numfmt(v, a->efficiency[k]));

		free(base);
		base = line;
	}
	return base;
}

char *
accel_config_line(const struct accel_cfg *a)
{
	char b[13][NUMFMT_LEN], *base, *line;
	const double *e = a->efficiency;

	/* FP8's fields only where the device has FP8, fused attention's
	 * only where the config gives them: other graphs' records stay as
	 * they were */
	base = accel_config_line_base(a);
	if (a->peak_fp8_flops_per_s > 0) {
		line = xasprintf("%s peak_fp8_flops_per_s=%s "
		    "efficiency_fp8_matmul=%s efficiency_fp8_block_matmul=%s "
		    "fp8_recipes=%u", base,
		    numfmt(b[10], a->peak_fp8_flops_per_s),
		    numfmt(b[11], e[EFF_FP8_MATMUL]),
		    numfmt(b[12], e[EFF_FP8_BLOCK_MATMUL]), a->fp8_recipes);
		free(base);
		base = line;
	}
	if (accel_has_fused_attention(a)) {
		base = with_efficiencies(base, a, EFF_FLASH,
		    EFF_FLASH_DROPOUT_BACKWARD);
		line = xasprintf("%s flash_fixed_keys=%s", base,
		    numfmt(b[0], a->flash_fixed_keys));
		free(base);
		base = line;
	}
	if (a->fa2)
		base = with_efficiencies(base, a, EFF_FA2,
		    EFF_FA2_DROPOUT_BACKWARD);
	return base;
}

static char *
accel_config_line_base(const struct accel_cfg *a)
{
	char b[10][NUMFMT_LEN];

	return xasprintf("memory_bytes=%s peak_matmul_flops_per_s=%s "
	    "peak_vector_flops_per_s=%s memory_bandwidth_Bps=%s "
	    "tensor_cores=%ld vector_cores=%ld clock_Hz=%s "
	    "efficiency_matmul=%s efficiency_attention=%s "
	    "efficiency_vector=%s efficiency_memory=%s gemm_units=%ld "
	    "gemm_tile_m=%ld gemm_tile_n=%ld gemm_fixed_s=%s",
	    numfmt(b[0], a->memory_bytes),
	    numfmt(b[1], a->peak_matmul_flops_per_s),
	    numfmt(b[2], a->peak_vector_flops_per_s),
	    numfmt(b[3], a->memory_bandwidth_Bps), a->tensor_cores,
	    a->vector_cores, numfmt(b[4], a->clock_Hz),
	    numfmt(b[5], a->efficiency[EFF_MATMUL]),
	    numfmt(b[6], a->efficiency[EFF_ATTENTION]),
	    numfmt(b[7], a->efficiency[EFF_VECTOR]),
	    numfmt(b[8], a->efficiency[EFF_MEMORY]), a->gemm_units,
	    a->gemm_tile_m, a->gemm_tile_n, numfmt(b[9], a->gemm_fixed_s));
}

/* The next name=value pair of a line from *p: 1 with them copied, 0 at
 * the end. */
static int
next_pair(const char **p, char *name, char *value, size_t len)
{
	const char *s = *p, *eq, *end;

	s += strspn(s, " ");
	if (*s == '\0')
		return 0;
	end = s + strcspn(s, " ");
	eq = memchr(s, '=', (size_t)(end - s));
	if (eq == NULL)
		eq = end;
	snprintf(name, len, "%.*s", (int)(eq - s), s);
	snprintf(value, len, "%.*s", eq < end ? (int)(end - eq - 1) : 0,
	    eq < end ? eq + 1 : "");
	*p = end;
	return 1;
}

int
config_line_field(const char *line, const char *name, char *value,
    size_t len)
{
	char n[64], v[128];

	while (next_pair(&line, n, v, sizeof n))
		if (strcmp(n, name) == 0) {
			snprintf(value, len, "%s", v);
			return 0;
		}
	return -1;
}

int
config_line_diff(const char *want, const char *got, char *name,
    char *want_value, char *got_value, size_t len)
{
	const char *p = want;
	char n[64], v[128], g[128];

	while (next_pair(&p, n, v, sizeof n))
		if (config_line_field(got, n, g, sizeof g) < 0 ||
		    strcmp(v, g) != 0) {
			snprintf(name, len, "%s", n);
			snprintf(want_value, len, "%s", v);
			snprintf(got_value, len, "%s", config_line_field(got, n,
			    g, sizeof g) < 0 ? "-" : g);
			return 1;
		}
	p = got;
	while (next_pair(&p, n, g, sizeof n))
		if (config_line_field(want, n, v, sizeof v) < 0) {
			snprintf(name, len, "%s", n);
			snprintf(want_value, len, "-");
			snprintf(got_value, len, "%s", g);
			return 1;
		}
	return 0;
}

/* A norm's weights over `width` elements: LayerNorm's scale and shift,
 * RMSNorm's scale. */
static double
norm_weights(const struct model_cfg *m, double width)
{
	return m->norm == NORM_LAYERNORM ? 2 * width : width;
}

/* One attention block's weights (its norm apart). */
static double
attention_parameters(const struct model_cfg *m)
{
	double h = (double)m->hidden, A = (double)m->heads;
	double q = A * (double)m->head_dim;
	double kv = (double)m->kv_heads * (double)m->head_dim;
	double w;

	if (m->kv_lora_rank > 0) {
		/* latent attention (DeepSeek-V2 Sec. 2.1): q down (q_lora_rank),
		 * its norm and up to heads x (head_dim + rope); kv down to
		 * kv_lora_rank plus the shared rotary key, its norm, up to the
		 * heads' keys (head_dim) and values; the output projection */
		double qr = (double)m->q_lora_rank, kvr = (double)m->kv_lora_rank;
		double rope = (double)m->qk_rope_head_dim;
		double qk = (double)m->head_dim + rope, vd = (double)m->v_head_dim;

		w = qr > 0 ? h * qr + norm_weights(m, qr) + qr * A * qk :
		    h * A * qk;
		w += h * (kvr + rope) + norm_weights(m, kvr) +
		    kvr * A * ((double)m->head_dim + vd);
		return w + A * vd * h;
	}
	/* q and o are h x q, k and v are h x kv; biases on q, k, v and o */
	w = 2 * h * q + 2 * h * kv + (m->bias ? q + 2 * kv + h : 0);
	if (m->qk_norm)		/* one norm over the query heads, one the key */
		w += 2 * norm_weights(m, (double)m->head_dim);
	return w;
}

/* One MLP `width` wide. */
static double
mlp_parameters(const struct model_cfg *m, double width)
{
	double h = (double)m->hidden;
	int gated = m->mlp == MLP_GATED;

	return (gated ? 3 : 2) * h * width +
	    (m->bias ? width * (gated ? 2 : 1) + h : 0);
}

/* One transformer layer's weights, with `experts` of its routed experts
 * counted (all of them, or the top_k a token uses). */
static double
layer_parameters(const struct model_cfg *m, int moe, double experts)
{
	double h = (double)m->hidden, w;

	w = attention_parameters(m) + 2 * norm_weights(m, h);
	if (!moe)
		return w + mlp_parameters(m, (double)m->ffn_hidden);
	w += experts * mlp_parameters(m, (double)m->expert_ffn_hidden);
	w += h * (double)m->experts;			/* the router */
	if (m->shared_expert_ffn_hidden > 0)
		w += mlp_parameters(m, (double)m->shared_expert_ffn_hidden);
	return w;
}

/* Multi-token prediction, a module a depth (DeepSeek-V3 Sec. 2.2): the
 * norms of the hidden state and of the next token's embedding, their
 * projection from 2h to h, a transformer layer of the last layer's kind
 * and its output norm; the embedding and output head are the model's. */
static double
mtp_parameters(const struct model_cfg *m, double experts)
{
	double h = (double)m->hidden;

	return (double)m->mtp_depth * (3 * norm_weights(m, h) + 2 * h * h +
	    layer_parameters(m, model_layer_is_moe(m, m->layers - 1),
	    experts));
}

static double
parameters(const struct model_cfg *m, int active)
{
	double h = (double)m->hidden;
	double experts = active ? (double)m->top_k : (double)m->experts;
	double dense = (double)(m->experts > 1 ? m->dense_layers : m->layers);
	double embed, total;

	embed = (double)m->vocab * h + (double)m->type_vocab * h;
	if (m->position == POS_LEARNED)
		embed += (double)m->max_positions * h;
	if (m->architecture == ARCH_ENCODER)
		embed += norm_weights(m, h);		/* embedding norm */
	total = dense * layer_parameters(m, 0, 0) + ((double)m->layers -
	    dense) * layer_parameters(m, 1, experts) + embed;
	if (m->architecture == ARCH_DECODER)
		total += norm_weights(m, h);		/* final norm */
	if (!m->tied_embeddings)
		total += (double)m->vocab * h;		/* output head */
	if (m->pooler)
		total += h * h + h;
	return total + mtp_parameters(m, experts);
}

double
model_parameters(const struct model_cfg *m)
{
	return parameters(m, 0);
}

double
model_active_parameters(const struct model_cfg *m)
{
	return parameters(m, 1) - mtp_parameters(m, (double)m->top_k);
}

double
model_mtp_parameters(const struct model_cfg *m)
{
	return mtp_parameters(m, (double)m->experts);
}

/* A required positive integer attribute. */
static int
attr_positive(const char *path, xmlNodePtr n, const char *name, long *out,
    struct pl_err *err)
{
	int r = xmlio_attr_long(path, n, name, 1, out, err);

	if (r > 0)
		return pl_errf(err, path, line_of(n), "element '%s': missing "
		    "attribute %s", (const char *)n->name, name);
	return r;
}

/* <fp8 peak_flops_per_s="..." recipes="delayed tensorwise ..."/>: the
 * rate and the recipes, each once and none of them "none". */
static int
fp8_element(const char *path, xmlNodePtr n, struct accel_cfg *a,
    struct pl_err *err)
{
	char *list, *tok, *save = NULL;
	int ret = 0;

	switch (xmlio_attr_double(path, n, "peak_flops_per_s", RATE_MIN,
	    &a->peak_fp8_flops_per_s, err)) {
	case 0:
		break;
	case 1:
		return pl_errf(err, path, line_of(n), "element 'fp8': needs "
		    "attribute 'peak_flops_per_s' (dense FP8 FLOP/s, at least "
		    "%g)", RATE_MIN);
	default:
		return -1;	/* the attribute's own message */
	}
	if ((list = xmlio_attr(n, "recipes")) == NULL)
		return pl_errf(err, path, line_of(n), "element 'fp8': needs "
		    "attribute 'recipes'");
	for (tok = strtok_r(list, " \t\n", &save); tok && ret == 0;
	    tok = strtok_r(NULL, " \t\n", &save)) {
		int k = fp8_recipe_of(tok);

		if (k <= FP8_NONE || FP8_TORCHAO(k))
			ret = pl_errf(err, path, line_of(n), "element 'fp8': "
			    "recipe '%s' is not delayed, tensorwise, blockwise "
			    "or mxfp8%s", tok, FP8_TORCHAO(k) ? " (torchao's "
			    "float8 runs where tensorwise does)" : "");
		else if (a->fp8_recipes & 1u << k)
			ret = pl_errf(err, path, line_of(n), "element 'fp8': "
			    "recipe '%s' given twice", tok);
		a->fp8_recipes |= 1u << k;
	}
	if (ret == 0 && a->fp8_recipes == 0)
		ret = pl_errf(err, path, line_of(n), "element 'fp8': no "
		    "recipe");
	free(list);
	return ret;
}

int
accel_from_doc(struct accel_cfg *a, xmlDocPtr doc, const char *path,
    struct pl_err *err)
{
	double gib = 0, gbps = 0, ghz = 0;
	xmlNodePtr r, n;
	unsigned seen = 0;	/* efficiency kinds given */
	size_t seen_line[EFF_NKINDS] = { 0 };
	int ret = -1;

	memset(a, 0, sizeof(*a));
	r = xmlDocGetRootElement(doc);
	copy_name(a->name, sizeof(a->name), r);
	a->tensor_cores = a->vector_cores = 1;
	for (int k = 0; k < EFF_NKINDS; k++)
		a->efficiency[k] = 1;
	/* rates far below any device's are unit mistakes, and would make
	 * the times they divide overflow to inf */
	if (need_at_least(path, r, "memory_GiB", 1.0 / GiB, &gib, err) < 0 ||
	    need_at_least(path, r, "peak_matmul_flops_per_s", RATE_MIN,
	    &a->peak_matmul_flops_per_s, err) < 0 ||
	    need_at_least(path, r, "peak_vector_flops_per_s", RATE_MIN,
	    &a->peak_vector_flops_per_s, err) < 0 ||
	    need_at_least(path, r, "memory_bandwidth_GBps", RATE_MIN / GB,
	    &gbps, err) < 0 ||
	    xmlio_child_long(path, r, "tensor_cores", 1, &a->tensor_cores,
	    err) < 0 ||
	    xmlio_child_long(path, r, "vector_cores", 1, &a->vector_cores,
	    err) < 0 ||
	    xmlio_child_double(path, r, "clock_GHz", 0, &ghz, err) < 0)
		goto done;
	a->memory_bytes = gib * GiB;
	a->memory_bandwidth_Bps = gbps * GB;
	a->clock_Hz = ghz * 1e9;
	for (n = r->children; n; n = n->next) {
		char *kind;
		double v;
		int k;

		if (n->type != XML_ELEMENT_NODE ||
		    xmlStrcmp(n->name, BAD_CAST "efficiency") != 0)
			continue;
		kind = xmlio_attr(n, "kind");
		/* an unknown kind: the list's end (the schema refuses it) */
		if ((k = word_index(efficiency_kinds, kind)) < 0)
			k = EFF_NKINDS;
		free(kind);
		if (efficiency_kinds[k] && (seen & 1u << k)) {
			pl_errf(err, path, line_of(n), "element 'efficiency': "
			    "kind '%s' given twice", efficiency_kinds[k]);
			goto done;
		}
		if (efficiency_kinds[k]) {
			seen |= 1u << k;
			seen_line[k] = line_of(n);
		}
		{
			char *s = xmlio_text(n), why[256];
			int bad = parse_double(s, 1e-9, 1, &v, why, sizeof(why));

			free(s);
			if (bad < 0) {
				pl_errf(err, path, line_of(n), "element "
				    "'efficiency': %s", why);
				goto done;
			}
		}
		if (efficiency_kinds[k])
			a->efficiency[k] = v;
	}
	/* FlashAttention-2's kinds hang on its forward one: without it the
	 * device has no FA2 rate, and a pass's alone would be a slip */
	a->fa2 = (seen & 1u << EFF_FA2) != 0;
	for (int k = EFF_FA2_BACKWARD; k <= EFF_FA2_DROPOUT_BACKWARD; k++)
		if (!a->fa2 && (seen & 1u << k)) {
			pl_errf(err, path, seen_line[k], "element "
			    "'efficiency': kind '%s' without kind "
			    "'fa2_attention' (FlashAttention-2's forward "
			    "rate)", efficiency_kinds[k]);
			goto done;
		}
	/* a kind the config does not give takes its default's, in
	 * eff_defaults' order (FP8 products at the matmul efficiency, ...) */
	for (size_t i = 0; i < sizeof(eff_defaults) / sizeof(eff_defaults[0]);
	    i++)
		if (!(seen & 1u << eff_defaults[i][0]))
			a->efficiency[eff_defaults[i][0]] =
			    a->efficiency[eff_defaults[i][1]];
	if ((n = xmlio_child(r, "fp8")) != NULL &&
	    fp8_element(path, n, a, err) < 0)
		goto done;
	if ((n = xmlio_child(r, "gemm")) != NULL &&
	    (attr_positive(path, n, "units", &a->gemm_units, err) < 0 ||
	    attr_positive(path, n, "tile_m", &a->gemm_tile_m, err) < 0 ||
	    attr_positive(path, n, "tile_n", &a->gemm_tile_n, err) < 0 ||
	    xmlio_attr_double(path, n, "fixed_s", 0, &a->gemm_fixed_s,
	    err) < 0))
		goto done;
	if ((n = xmlio_child(r, "flash_attention")) != NULL &&
	    xmlio_attr_double(path, n, "fixed_keys", 0, &a->flash_fixed_keys,
	    err) < 0)
		goto done;
	ret = xmlio_validate(doc, path, XMLIO_ACCELERATOR, err);
done:
	return ret;
}

int
accel_load(struct accel_cfg *a, const char *path, struct pl_err *err)
{
	xmlDocPtr doc = xmlio_load(path, XMLIO_ACCELERATOR, NULL, err);
	int ret;

	if (doc == NULL)
		return -1;
	ret = accel_from_doc(a, doc, path, err);
	xmlFreeDoc(doc);
	return ret;
}

static int
bandwidth_attr(const char *path, xmlNodePtr n, const char *gb, const char *gib,
    double *out, struct pl_err *err)
{
	double v;
	int r;

	if ((r = xmlio_attr_double(path, n, gb, 0, &v, err)) < 0)
		return -1;
	if (r == 0) {
		*out = v * GB;
	} else {
		if ((r = xmlio_attr_double(path, n, gib, 0, &v, err)) != 0)
			return r < 0 ? -1 : pl_errf(err, path, line_of(n),
			    "missing attribute '%s'", gb);
		*out = v * GiB;
	}
	if (!(*out > 0))
		return pl_errf(err, path, line_of(n), "attribute '%s': "
		    "bandwidth must be positive", gb);
	if (*out < RATE_MIN)
		return pl_errf(err, path, line_of(n), "attribute '%s': "
		    "%g GB/s is below %g (a unit mistake?)", gb, *out / GB,
		    RATE_MIN / GB);
	return 0;
}

static int
algo_attr(xmlNodePtr n)
{
	char *s = xmlio_attr(n, "algorithm");
	int hd = s && strcmp(s, "halving-doubling") == 0;

	free(s);
	return hd ? NET_HALVING_DOUBLING : NET_RING;
}

/* "8 8 16" -> {8, 8, 16}; returns the count or -1. */
static int
parse_dims(const char *path, xmlNodePtr n, long *dims, struct pl_err *err)
{
	char *s = xmlio_attr(n, "dims"), *tok, *save = NULL;
	int nd = 0;

	/* the schema requires it, but validation runs after these reads
	 * (they give the more precise messages), so they must not trust it */
	if (s == NULL)
		return pl_errf(err, path, line_of(n), "element '%s': missing "
		    "attribute 'dims'", (const char *)n->name);

	for (tok = strtok_r(s, " \t\n", &save); tok;
	    tok = strtok_r(NULL, " \t\n", &save)) {
		char why[256];

		if (nd == 3) {
			free(s);
			return pl_errf(err, path, line_of(n), "attribute 'dims': "
			    "at most 3 dimensions");
		}
		if (parse_long(tok, 1, 1 << 20, &dims[nd++], why,
		    sizeof(why)) < 0) {
			free(s);
			return pl_errf(err, path, line_of(n), "attribute 'dims': "
			    "%s", why);
		}
	}
	free(s);
	if (nd == 0)
		return pl_errf(err, path, line_of(n), "attribute 'dims': empty");
	for (int i = nd; i < 3; i++)
		dims[i] = 1;
	return nd;
}

/* Hop diameter of a block inside the full torus (wraparound where the
 * block is the whole ring and the ring is longer than 2). */
static long
diameter(const long *b, const long *full)
{
	long d = 0;

	for (int i = 0; i < 3; i++)
		d += (b[i] == full[i] && full[i] > 2) ? b[i] / 2 : b[i] - 1;
	return d;
}

/* Per-device bandwidth across the narrowest bisection of a block. */
static double
bisection_bw(const long *b, const long *full, double link)
{
	long vol = b[0] * b[1] * b[2];
	int cut = 0;

	for (int i = 1; i < 3; i++)
		if (b[i] > b[cut])
			cut = i;
	if (vol < 2)
		return link;
	{
		double links = (double)(vol / b[cut]) *
		    ((b[cut] == full[cut] && full[cut] > 2) ? 2 : 1);

		return links * link / ((double)vol / 2);
	}
}

/*
 * A torus maps to levels by hop distance (paper App. B.2): each <block>
 * is a level, the whole torus the last one.  Level l's latency is the hop
 * latency times the diameter it adds; its bandwidth is the per-device
 * share of the block's narrowest bisection.
 */
static int
torus_levels(struct network *net, const char *path, xmlNodePtr t,
    struct pl_err *err)
{
	long full[3], blk[NET_MAX_LEVELS][3], prevvol = 1, prevdiam = 0;
	double link, hop = 0;
	int nb = 0, nd;

	if ((nd = parse_dims(path, t, full, err)) < 0 ||
	    bandwidth_attr(path, t, "link_bandwidth_GBps",
	    "link_bandwidth_GiBps", &link, err) < 0 ||
	    xmlio_attr_double(path, t, "hop_latency_s", 0, &hop, err) < 0)
		return -1;
	for (xmlNodePtr n = t->children; n; n = n->next) {
		if (n->type != XML_ELEMENT_NODE)
			continue;
		if (nb == NET_MAX_LEVELS - 1)
			return pl_errf(err, path, line_of(n), "too many blocks");
		int bd = parse_dims(path, n, blk[nb], err);

		if (bd < 0)
			return -1;
		/* a block of fewer dimensions would be read as 1 in the
		 * rest: say each one, as the torus does */
		if (bd != nd)
			return pl_errf(err, path, line_of(n), "element '%s': "
			    "attribute 'dims': %d dimensions in a torus of %d",
			    (const char *)n->name, bd, nd);
		for (int i = 0; i < 3; i++) {
			long outer = nb ? blk[nb - 1][i] : 1;

			if (blk[nb][i] % outer != 0 || full[i] % blk[nb][i] != 0)
				return pl_errf(err, path, line_of(n), "block '%ld "
				    "%ld %ld' does not tile the level above and "
				    "below it", blk[nb][0], blk[nb][1],
				    blk[nb][2]);
		}
		copy_name(net->level[nb].name, sizeof(net->level[nb].name), n);
		net->level[nb].line = line_of(n);
		/* sweeps name levels: a name means one level ("torus" is
		 * the whole one's) */
		for (int j = 0; j <= nb; j++)
			if (strcmp(j < nb ? net->level[j].name : "torus",
			    net->level[nb].name) == 0)
				return pl_errf(err, path, line_of(n), "block "
				    "'%s' named twice", net->level[nb].name);
		nb++;
	}
	memcpy(blk[nb], full, sizeof(full));
	snprintf(net->level[nb].name, sizeof(net->level[nb].name), "torus");
	net->level[nb].line = line_of(t);
	net->nlevels = nb + 1;
	for (int l = 0; l <= nb; l++) {
		struct net_level *lv = &net->level[l];
		long vol = blk[l][0] * blk[l][1] * blk[l][2];
		long diam = diameter(blk[l], full);

		lv->fanout = vol / prevvol;
		lv->latency_s = hop * (double)(diam - prevdiam);
		lv->bandwidth_Bps = bisection_bw(blk[l], full, link);
		lv->oversubscription = 1;
		lv->algo = algo_attr(t);
		prevvol = vol;
		prevdiam = diam;
	}
	return 0;
}

int
network_from_doc(struct network *net, xmlDocPtr doc, const char *path,
    struct pl_err *err)
{
	xmlNodePtr r, t;
	int ret = -1, rc;

	memset(net, 0, sizeof(*net));
	r = xmlDocGetRootElement(doc);
	copy_name(net->name, sizeof(net->name), r);
	if (xmlio_attr_long(path, r, "host_devices", 1, &net->host_devices,
	    err) < 0)
		goto done;
	if ((t = xmlio_child(r, "torus")) != NULL) {
		if (torus_levels(net, path, t, err) < 0)
			goto done;
	} else {
		if (xmlio_child(r, "level") == NULL) {
			pl_errf(err, path, line_of(r), "no <level> or <torus> "
			    "element: a network needs at least one level");
			goto done;
		}
		for (xmlNodePtr n = r->children; n; n = n->next) {
			struct net_level *lv;

			if (n->type != XML_ELEMENT_NODE ||
			    xmlStrcmp(n->name, BAD_CAST "level") != 0)
				continue;
			if (net->nlevels == NET_MAX_LEVELS) {
				pl_errf(err, path, line_of(n), "more than %d "
				    "levels", NET_MAX_LEVELS);
				goto done;
			}
			lv = &net->level[net->nlevels++];
			lv->line = line_of(n);
			copy_name(lv->name, sizeof(lv->name), n);
			/* sweeps name levels: a name means one level */
			for (int j = 0; lv->name[0] && j < net->nlevels - 1; j++)
				if (strcmp(net->level[j].name, lv->name) == 0) {
					pl_errf(err, path, lv->line, "level '%s' "
					    "named twice", lv->name);
					goto done;
				}
			lv->oversubscription = 1;
			lv->algo = algo_attr(n);
			if (xmlio_attr_long(path, n, "fanout", 1, &lv->fanout,
			    err) < 0 ||
			    bandwidth_attr(path, n, "bandwidth_GBps",
			    "bandwidth_GiBps", &lv->bandwidth_Bps, err) < 0 ||
			    xmlio_attr_double(path, n, "latency_s", 0,
			    &lv->latency_s, err) < 0 ||
			    xmlio_attr_double(path, n, "oversubscription", 1,
			    &lv->oversubscription, err) < 0 ||
			    xmlio_attr_double(path, n, "protocol_overhead", 0,
			    &lv->protocol_overhead, err) < 0 ||
			    (rc = xmlio_attr_double(path, n, "nvls_efficiency",
			    0, &lv->nvls_efficiency, err)) < 0)
				goto done;
			/* 0 would read as no reduction in the fabric: say so */
			if (rc == 0 && !(lv->nvls_efficiency > 0)) {
				pl_errf(err, path, lv->line, "attribute "
				    "'nvls_efficiency': must be in (0, 1]; leave it "
				    "out where the switches do not reduce");
				goto done;
			}
		}
	}
	if ((ret = network_finish(net, path, err)) == 0)
		ret = xmlio_validate(doc, path, XMLIO_NETWORK, err);
done:
	return ret;
}

int
network_load(struct network *net, const char *path, struct pl_err *err)
{
	xmlDocPtr doc = xmlio_load(path, XMLIO_NETWORK, NULL, err);
	int ret;

	if (doc == NULL)
		return -1;
	ret = network_from_doc(net, doc, path, err);
	xmlFreeDoc(doc);
	return ret;
}

/* Split a list element's text into tokens, copying each with `take`. */
static int
each_token(xmlNodePtr n, void (*take)(void *, const char *), void *ctx)
{
	char *s = xmlio_text(n), *tok, *save = NULL;
	int count = 0;

	for (tok = strtok_r(s, " \t\n", &save); tok;
	    tok = strtok_r(NULL, " \t\n", &save), count++)
		take(ctx, tok);
	free(s);
	return count;
}

struct token_sink {
	struct experiment_cfg *e;
	int overflow;
	int bad;
};

static void
take_mbs(void *ctx, const char *tok)
{
	struct token_sink *k = ctx;
	char why[128];
	long v;

	if (k->e->nmbs == EXP_MAX) {
		k->overflow = 1;
		return;
	}
	if (parse_long(tok, 1, 1 << 20, &v, why, sizeof(why)) < 0)
		k->bad = 1;
	else
		k->e->mbs[k->e->nmbs++] = v;
}

static void
take_method(void *ctx, const char *tok)
{
	struct token_sink *k = ctx;

	if (k->e->nmethods == EXP_MAX) {
		k->overflow = 1;
		return;
	}
	snprintf(k->e->methods[k->e->nmethods++], 32, "%s", tok);
}

int
experiment_from_doc(struct experiment_cfg *e, xmlDocPtr doc, const char *path,
    struct pl_err *err)
{
	static const char *const opt[] = { "adam", "sgd", NULL };
	static const char *const sched[] = { "1f1b", "gpipe", NULL };
	static const char *const grads[] = { "fp32", "bf16", NULL };
	struct token_sink sink = { e, 0, 0 };
	xmlNodePtr r, n;
	char *s;
	int ret = -1;

	memset(e, 0, sizeof(*e));
	r = xmlDocGetRootElement(doc);
	copy_name(e->name, sizeof(e->name), r);
	if (xmlio_child(r, "accelerator") == NULL) {
		pl_errf(err, path, line_of(r), "missing element 'accelerator'");
		goto done;
	}
	e->accelerator_line = line_of(xmlio_child(r, "accelerator"));
	s = xmlio_text(xmlio_child(r, "accelerator"));
	snprintf(e->accelerator, sizeof(e->accelerator), "%s", s);
	free(s);
	if (xmlio_child(r, "artifact_setup") != NULL) {
		s = xmlio_text(xmlio_child(r, "artifact_setup"));
		snprintf(e->artifact_setup, sizeof(e->artifact_setup), "%s", s);
		free(s);
	}
	e->optimizer = child_enum(r, "optimizer", opt, OPT_ADAM);
	e->schedule = child_enum(r, "schedule", sched, SCHED_1F1B);
	e->grad_bytes_per_param = child_enum(r, "gradients", grads, 0) ? 2 : 4;
	if (NEED_LONG(path, r, "global_batch_samples", &e->global_batch) ||
	    xmlio_child_long(path, r, "seed", 0, &e->seed, err) < 0)
		goto done;
	n = xmlio_child(r, "micro_batch_sizes");
	each_token(n, take_mbs, &sink);
	n = xmlio_child(r, "methods");
	each_token(n, take_method, &sink);
	if (sink.overflow || sink.bad) {
		pl_errf(err, path, line_of(n), "%s", sink.bad ? "element "
		    "'micro_batch_sizes': invalid size" : "more than 32 list items");
		goto done;
	}
	for (n = r->children; n; n = n->next) {
		if (n->type != XML_ELEMENT_NODE)
			continue;
		if (xmlStrcmp(n->name, BAD_CAST "cluster") == 0) {
			if (e->nclusters == EXP_MAX) {
				pl_errf(err, path, line_of(n), "more than %d "
				    "clusters", EXP_MAX);
				goto done;
			}
			s = xmlio_attr(n, "network");
			e->cluster[e->nclusters].line = line_of(n);
			snprintf(e->cluster[e->nclusters].network, 128, "%s",
			    s ? s : "");	/* missing: the schema says so */
			free(s);
			if (xmlio_attr_long(path, n, "devices", 1,
			    &e->cluster[e->nclusters++].devices, err) < 0)
				goto done;
		} else if (xmlStrcmp(n->name, BAD_CAST "model") == 0) {
			if (e->nmodels == EXP_MAX) {
				pl_errf(err, path, line_of(n), "more than %d "
				    "models", EXP_MAX);
				goto done;
			}
			copy_name(e->model[e->nmodels].name, 128, n);
			e->model[e->nmodels].line = line_of(n);
			e->model[e->nmodels].device_memory_bytes = 0;
			e->model[e->nmodels].max_width = 0;
			if (xmlio_attr_long(path, n, "max_width", 0,
			    &e->model[e->nmodels].max_width, err) < 0 ||
			    xmlio_attr_double(path, n, "device_memory_bytes", 1,
			    &e->model[e->nmodels++].device_memory_bytes, err) < 0)
				goto done;
		}
	}
	/* a micro-batch is part of the batch: a larger one has no plan */
	for (int i = 0; i < e->nmbs; i++)
		if (e->mbs[i] > e->global_batch) {
			pl_errf(err, path, line_of(xmlio_child(r,
			    "micro_batch_sizes")), "element "
			    "'micro_batch_sizes': %ld is larger than "
			    "global_batch_samples %ld", e->mbs[i],
			    e->global_batch);
			goto done;
		}
	/* a list names each thing once (a repeat would run its cells
	 * twice and list their targets twice) */
	for (int i = 0; i < e->nmbs; i++)
		for (int j = 0; j < i; j++)
			if (e->mbs[i] == e->mbs[j]) {
				pl_errf(err, path, line_of(xmlio_child(r,
				    "micro_batch_sizes")), "element "
				    "'micro_batch_sizes': %ld listed twice",
				    e->mbs[i]);
				goto done;
			}
	for (int i = 0; i < e->nmethods; i++)
		for (int j = 0; j < i; j++)
			if (strcmp(e->methods[i], e->methods[j]) == 0) {
				pl_errf(err, path, line_of(xmlio_child(r,
				    "methods")), "element 'methods': '%s' "
				    "listed twice", e->methods[i]);
				goto done;
			}
	for (int i = 0; i < e->nmodels; i++)
		for (int j = 0; j < i; j++)
			if (strcmp(e->model[i].name, e->model[j].name) == 0) {
				pl_errf(err, path, e->model[i].line, "model '%s' "
				    "listed twice", e->model[i].name);
				goto done;
			}
	for (int i = 0; i < e->nclusters; i++)
		for (int j = 0; j < i; j++)
			if (e->cluster[i].devices == e->cluster[j].devices &&
			    strcmp(e->cluster[i].network, e->cluster[j].network)
			    == 0) {
				pl_errf(err, path, e->cluster[i].line, "cluster of "
				    "%ld devices on "
				    "'%s' listed twice", e->cluster[i].devices,
				    e->cluster[i].network);
				goto done;
			}
	ret = xmlio_validate(doc, path, XMLIO_EXPERIMENT, err);
done:
	return ret;
}

int
experiment_load(struct experiment_cfg *e, const char *path, struct pl_err *err)
{
	xmlDocPtr doc = xmlio_load(path, XMLIO_EXPERIMENT, NULL, err);
	int ret;

	if (doc == NULL)
		return -1;
	ret = experiment_from_doc(e, doc, path, err);
	xmlFreeDoc(doc);
	return ret;
}
