/*
 * model-import - a Hugging Face config.json as a nestplan model config:
 * Llama, Mistral, Mixtral, Qwen2, Qwen3, Qwen3-MoE and GPT-NeoX, every
 * field with the config.json line it comes from; what the model config
 * cannot describe is refused with the reason, what it describes only
 * roughly is said in the description.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>
#include <libxml/xmlwriter.h>

#include "base/util.h"
#include "base/xmlio.h"
#include "model/config.h"

static void
usage(FILE *fp, int status)
{
	fprintf(fp, "usage: model-import [-h] [-n name] [-s seq_len] [-o file] "
	    "config.json\n");
	if (fp == stdout)
		fputs("  -n name     the model's name (default: the folder "
		    "config.json is in)\n"
		    "  -s seq_len  the training sequence (default: "
		    "max_position_embeddings)\n"
		    "  -o file     write the model config there (default: "
		    "standard output)\n"
		    "  -h, --help  this text; man model-import for the "
		    "architectures and fields\n", fp);
	usage_exit(fp, status);
}

/* The architectures, as config.json's model_type names them. */
enum family { F_LLAMA, F_MISTRAL, F_MIXTRAL, F_QWEN2, F_QWEN3, F_QWEN3_MOE,
	F_GPT_NEOX, F_DEEPSEEK_V2, F_DEEPSEEK_V3, F_N };
static const char *const family_types[F_N] = {
	"llama", "mistral", "mixtral", "qwen2", "qwen3", "qwen3_moe", "gpt_neox",
	"deepseek_v2", "deepseek_v3"
};

/* The input: its text (for line numbers) and its parsed object. */
struct input {
	const char *path;
	char *text;
	json_t *root;
};

/* The line a key first appears on ("key":), or 0. */
static size_t
line_of(const struct input *in, const char *key)
{
	char pat[128];
	const char *at;
	size_t line = 1;

	snprintf(pat, sizeof pat, "\"%s\"", key);
	if ((at = strstr(in->text, pat)) == NULL)
		return 0;
	for (const char *c = in->text; c < at; c++)
		line += *c == '\n';
	return line;
}

static void bad(const struct input *in, const char *key, const char *fmt,
    ...) __attribute__((format(printf, 3, 4), noreturn));

/* "model-import: FILE:LINE: field 'KEY': ..." and exit 1. */
static void
bad(const struct input *in, const char *key, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	die("%s:%zu: field '%s': %s", in->path, line_of(in, key), key, msg);
}

/* A positive whole number, required (dflt < 0) or defaulted. */
static long
whole(const struct input *in, const char *key, long dflt)
{
	json_t *v = json_object_get(in->root, key);

	if (v == NULL || json_is_null(v)) {
		if (dflt < 0)
			die("%s: no field '%s'", in->path, key);
		return dflt;
	}
	if (!json_is_integer(v) || json_integer_value(v) < 1 ||
	    json_integer_value(v) > 1000000000000LL)
		bad(in, key, "not a positive whole number");
	return (long)json_integer_value(v);
}

/* A whole number, 0 or more; 0 when absent or null. */
static long
count(const struct input *in, const char *key)
{
	json_t *v = json_object_get(in->root, key);

	if (v == NULL || json_is_null(v))
		return 0;
	if (!json_is_integer(v) || json_integer_value(v) < 0 ||
	    json_integer_value(v) > 1000000000000LL)
		bad(in, key, "not a whole number");
	return (long)json_integer_value(v);
}

static double
number(const struct input *in, const char *key, double dflt)
{
	json_t *v = json_object_get(in->root, key);

	if (v == NULL || json_is_null(v))
		return dflt;
	if (!json_is_number(v) || !(json_number_value(v) >= 0))
		bad(in, key, "not a non-negative number");
	return json_number_value(v);
}

static int
flag(const struct input *in, const char *key, int dflt)
{
	json_t *v = json_object_get(in->root, key);

	if (v == NULL || json_is_null(v))
		return dflt;
	if (!json_is_boolean(v))
		bad(in, key, "not true or false");
	return json_is_true(v);
}

static const char *
text(const struct input *in, const char *key)
{
	json_t *v = json_object_get(in->root, key);

	if (v == NULL)
		return NULL;
	if (!json_is_string(v))
		bad(in, key, "not a string");
	return json_string_value(v);
}

/*
 * The model config being written: its elements and their sources, kept
 * until the end so the sources come first; libxml2's writer escapes
 * what a path or name may hold.
 */
#define OUT_MAX 48
struct out {
	char *source[OUT_MAX], *name[OUT_MAX], *value[OUT_MAX];
	size_t nsource, nelem;
};

static void
source(struct out *o, const char *fmt, ...) __attribute__((format(printf,
    2, 3)));

static void
source(struct out *o, const char *fmt, ...)
{
	va_list ap;

	if (o->nsource == OUT_MAX)
		die("more than %d sources", OUT_MAX);
	va_start(ap, fmt);
	o->source[o->nsource++] = xvasprintf(fmt, ap);
	va_end(ap);
}

static void
element(struct out *o, const struct input *in, const char *name,
    const char *key, const char *fmt, ...) __attribute__((format(printf, 5,
    6)));

/* One element, and a source naming the config.json line (key NULL: a
 * fixed choice of the architecture, which the caller sources). */
static void
element(struct out *o, const struct input *in, const char *name,
    const char *key, const char *fmt, ...)
{
	va_list ap;

	if (o->nelem == OUT_MAX)
		die("more than %d elements", OUT_MAX);
	va_start(ap, fmt);
	o->value[o->nelem] = xvasprintf(fmt, ap);
	va_end(ap);
	o->name[o->nelem++] = xstrdup(name);
	if (key)
		source(o, "%s: %s from '%s' (line %zu)", in->path, name, key,
		    line_of(in, key));
}

/*
 * The config as every tool will read it (the schema, then the reader's
 * own checks: a layer count, the heads against the hidden size), so what
 * is written is a config they accept; what they refuse is named with the
 * input's path.
 */
static void
check_model(const char *path, const char *xml, int len)
{
	xmlDocPtr doc = xmlReadMemory(xml, len, "imported.xml", NULL,
	    XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
	struct model_cfg m;
	struct pl_err err;
	char msg[1024];

	if (doc == NULL)
		die("%s: libxml2 cannot read back the config it wrote", path);
	if (xmlio_validate(doc, "the config written", XMLIO_MODEL, &err) < 0 ||
	    model_from_doc(&m, doc, "the config written", &err) < 0)
		die("%s: imported, the model config is refused: %s", path,
		    pl_err_str(&err, msg, sizeof msg));
	xmlFreeDoc(doc);
}

/* The document: <model name=...>, description, sources, elements. */
static void
write_model(FILE *fp, const char *path, const char *model,
    const char *description, struct out *o)
{
	xmlBufferPtr buf = xmlBufferCreate();
	xmlTextWriterPtr w = buf ? xmlNewTextWriterMemory(buf, 0) : NULL;
	int bad = w == NULL;

	bad = bad || xmlTextWriterSetIndent(w, 1) < 0 ||
	    xmlTextWriterSetIndentString(w, BAD_CAST "  ") < 0 ||
	    xmlTextWriterStartDocument(w, NULL, "UTF-8", NULL) < 0 ||
	    xmlTextWriterStartElement(w, BAD_CAST "model") < 0 ||
	    xmlTextWriterWriteAttribute(w, BAD_CAST "name", BAD_CAST model) < 0 ||
	    xmlTextWriterWriteElement(w, BAD_CAST "description",
	    BAD_CAST description) < 0;
	for (size_t i = 0; i < o->nsource; i++) {
		bad = bad || xmlTextWriterWriteElement(w, BAD_CAST "source",
		    BAD_CAST o->source[i]) < 0;
		free(o->source[i]);
	}
	for (size_t i = 0; i < o->nelem; i++) {
		bad = bad || xmlTextWriterWriteElement(w, BAD_CAST o->name[i],
		    BAD_CAST o->value[i]) < 0;
		free(o->name[i]);
		free(o->value[i]);
	}
	bad = bad || xmlTextWriterEndDocument(w) < 0;
	if (w)
		xmlFreeTextWriter(w);	/* flushes into buf */
	if (bad || buf == NULL)
		die("libxml2 could not write the config");
	check_model(path, (const char *)xmlBufferContent(buf),
	    xmlBufferLength(buf));
	fwrite(xmlBufferContent(buf), 1, (size_t)xmlBufferLength(buf), fp);
	xmlBufferFree(buf);
}

static enum family
family_of(const struct input *in)
{
	const char *t = text(in, "model_type");

	if (t == NULL)
		die("%s: no field 'model_type'", in->path);
	for (int f = 0; f < F_N; f++)
		if (strcmp(t, family_types[f]) == 0)
			return (enum family)f;
	if (strcmp(t, "qwen2_moe") == 0)
		bad(in, "model_type", "'qwen2_moe': a gate on the shared "
		    "expert's output, which the model config cannot describe "
		    "yet");
	bad(in, "model_type", "'%s' is not one of llama, mistral, mixtral, "
	    "qwen2, qwen3, qwen3_moe, gpt_neox, deepseek_v2, deepseek_v3", t);
}

/* An XML name (NCName) of the plain kind: a letter or _, then letters,
 * digits, '.', '_' and '-'; at most 100 characters (the model's name
 * attribute, its file and folder names). */
static int
is_model_name(const char *s)
{
	static const char letters[] = "abcdefghijklmnopqrstuvwxyz"
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZ_";
	size_t n = strlen(s);

	return n > 0 && n <= 100 && strchr(letters, s[0]) &&
	    strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "0123456789._-") == n;
}

struct opts {
	const char *name, *out, *file;
	long seq_len;
};

/*
 * Qwen3-MoE's dense layers (Qwen3MoeConfig): those listed in
 * mlp_only_layers, and with decoder_sparse_step k every layer but each
 * k-th.  The model config has its dense layers first: mlp_only_layers 0,
 * 1, ..., k-1 are k leading dense layers; any other pattern is refused.
 */
static long
leading_dense(const struct input *in, long layers)
{
	json_t *only = json_object_get(in->root, "mlp_only_layers");
	size_t k = only && json_is_array(only) ? json_array_size(only) : 0;

	for (size_t i = 0; i < k; i++) {
		json_t *x = json_array_get(only, i);

		if (!json_is_integer(x) || json_integer_value(x) != (json_int_t)i)
			bad(in, "mlp_only_layers", "dense layers among the "
			    "expert layers (the model config has its dense "
			    "layers first: 0, 1, ..., k-1)");
	}
	if (whole(in, "decoder_sparse_step", 1) != 1)
		bad(in, "decoder_sparse_step", "experts every %ld layers (the "
		    "model config has its dense layers first, then expert "
		    "layers)", whole(in, "decoder_sparse_step", 1));
	if ((long)k >= layers)
		bad(in, "mlp_only_layers", "%zu of %ld layers dense: no expert "
		    "layer left", k, layers);
	return (long)k;
}

/*
 * DeepSeek-V2 and -V3 (DeepseekV2Config, DeepseekV3Config): multi-head
 * latent attention (q_lora_rank null: queries projected whole, as in
 * V2-Lite), routed experts moe_intermediate_size wide beside
 * n_shared_experts shared ones of the same width, the first
 * first_k_dense_replace layers dense (intermediate_size), routing within
 * topk_group of n_group groups (topk_method group_limited_greedy, V2, or
 * noaux_tc, V3; greedy ignores the groups), num_nextn_predict_layers
 * multi-token prediction modules (V3).
 */
static void
deepseek_elements(struct out *o, const struct input *in, long heads,
    long kv, long experts, long top_k)
{
	long layers = whole(in, "num_hidden_layers", -1);
	long qr = count(in, "q_lora_rank");
	long expert_ffn = whole(in, "moe_intermediate_size", -1);
	long shared = count(in, "n_shared_experts");
	long dense = count(in, "first_k_dense_replace");
	long groups = whole(in, "n_group", 1), group_topk = whole(in,
	    "topk_group", 1);
	long mtp = count(in, "num_nextn_predict_layers");
	const char *method = text(in, "topk_method");

	if (kv != heads)
		bad(in, "num_key_value_heads", "%ld, where latent attention "
		    "has a key/value head a query head (%ld)", kv, heads);
	if (whole(in, "moe_layer_freq", 1) != 1)
		bad(in, "moe_layer_freq", "experts every %ld layers (the model "
		    "config has leading dense layers, then expert layers)",
		    whole(in, "moe_layer_freq", 1));
	if (dense >= layers)
		bad(in, "first_k_dense_replace", "%ld of %ld layers dense: no "
		    "expert layer left", dense, layers);
	if (method && strcmp(method, "greedy") == 0)
		groups = group_topk = 1;
	if (experts % groups)
		bad(in, "n_group", "%ld groups do not divide %ld experts",
		    groups, experts);
	if (group_topk > groups)
		bad(in, "topk_group", "%ld groups of %ld", group_topk, groups);
	if (top_k > group_topk * (experts / groups))
		bad(in, "topk_group", "%ld groups of %ld experts cannot hold "
		    "%ld experts a token", group_topk, experts / groups, top_k);
	if (qr > 0)
		element(o, in, "q_lora_rank", "q_lora_rank", "%ld", qr);
	element(o, in, "kv_lora_rank", "kv_lora_rank", "%ld",
	    whole(in, "kv_lora_rank", -1));
	element(o, in, "qk_rope_head_dim", "qk_rope_head_dim", "%ld",
	    whole(in, "qk_rope_head_dim", -1));
	element(o, in, "v_head_dim", "v_head_dim", "%ld",
	    whole(in, "v_head_dim", -1));
	element(o, in, "expert_ffn_hidden", "moe_intermediate_size", "%ld",
	    expert_ffn);
	if (shared > 0) {
		element(o, in, "shared_expert_ffn_hidden", NULL, "%ld",
		    shared * expert_ffn);
		source(o, "%s: shared_expert_ffn_hidden, 'n_shared_experts' "
		    "(line %zu) x 'moe_intermediate_size' (line %zu)", in->path,
		    line_of(in, "n_shared_experts"),
		    line_of(in, "moe_intermediate_size"));
	}
	if (dense > 0)
		element(o, in, "dense_layers", "first_k_dense_replace", "%ld",
		    dense);
	if (groups > 1) {
		element(o, in, "router_groups", "n_group", "%ld", groups);
		element(o, in, "router_group_topk", "topk_group", "%ld",
		    group_topk);
	}
	if (mtp > 0)
		element(o, in, "mtp_depth", "num_nextn_predict_layers", "%ld",
		    mtp);
}

static void
import(const struct opts *op, const struct input *in, FILE *fp)
{
	enum family f = family_of(in);
	int deepseek = f == F_DEEPSEEK_V2 || f == F_DEEPSEEK_V3;
	int neox = f == F_GPT_NEOX, moe = f == F_MIXTRAL || f == F_QWEN3_MOE ||
	    deepseek;
	long layers = whole(in, "num_hidden_layers", -1);
	long hidden = whole(in, "hidden_size", -1);
	long heads = whole(in, "num_attention_heads", -1);
	long kv = whole(in, "num_key_value_heads", heads);
	const char *head_dim_key = deepseek ? "qk_nope_head_dim" : "head_dim";
	long head_dim = whole(in, head_dim_key, deepseek ? -1 : hidden / heads);
	long vocab = whole(in, "vocab_size", -1);
	long maxpos = whole(in, "max_position_embeddings", -1);
	long seq = op->seq_len ? op->seq_len : maxpos;
	const char *act = text(in, "hidden_act");
	long qwen_dense = f == F_QWEN3_MOE ? leading_dense(in, layers) : 0;
	const char *ffn_key = f == F_QWEN3_MOE && qwen_dense == 0 ?
	    "moe_intermediate_size" : "intermediate_size";
	long ffn = whole(in, ffn_key, -1);
	long experts = 1, top_k = 1;
	const char *experts_key = f == F_MIXTRAL ? "num_local_experts" :
	    deepseek ? "n_routed_experts" : "num_experts";
	const char *theta_key = neox ? "rotary_emb_base" : "rope_theta";
	double theta = number(in, theta_key, 10000);
	int tied = flag(in, "tie_word_embeddings", 0);
	int bias = neox ? 1 : flag(in, "attention_bias", 0) ||
	    flag(in, "mlp_bias", 0);
	struct out o = { { NULL }, { NULL }, { NULL }, 0, 0 };
	const char *activation;
	char notes[1024] = "", *description, *ffn_text;

	/* what the model config cannot say */
	if (layers > MODEL_MAX_LAYERS)
		bad(in, "num_hidden_layers", "%ld, more than %d", layers,
		    MODEL_MAX_LAYERS);
	if (!json_object_get(in->root, head_dim_key) && hidden % heads)
		bad(in, "num_attention_heads", "%ld heads do not divide hidden "
		    "%ld, and there is no head_dim", heads, hidden);
	if (heads % kv)
		bad(in, "num_key_value_heads", "%ld does not divide %ld heads",
		    kv, heads);
	if (moe) {
		experts = whole(in, experts_key, -1);
		top_k = whole(in, "num_experts_per_tok", -1);
		if (top_k > experts)
			bad(in, "num_experts_per_tok", "%ld of %ld experts",
			    top_k, experts);
	}
	if (act == NULL)
		die("%s: no field 'hidden_act'", in->path);
	if (strcmp(act, "silu") == 0 || strcmp(act, "swish") == 0)
		activation = "silu";
	else if (strncmp(act, "gelu", 4) == 0)
		activation = "gelu";
	else if (strcmp(act, "relu") == 0)
		activation = "relu";
	else
		bad(in, "hidden_act", "'%s' is not silu, gelu or relu", act);
	if (seq < 1)
		die("-s: a sequence length");
	/* what it describes roughly: said, with the parameters it moves */
	if (!neox && flag(in, "attention_bias", 0) != flag(in, "mlp_bias", 0))
		snprintf(notes + strlen(notes), sizeof notes - strlen(notes),
		    " Biases are counted on every linear layer, where config."
		    "json has them on the %s only.", flag(in, "attention_bias",
		    0) ? "attention's" : "MLP's");
	if (f == F_QWEN2)
		snprintf(notes + strlen(notes), sizeof notes - strlen(notes),
		    " The query, key and value biases (%ld a layer) are left "
		    "out: the model config's bias is every linear layer's or "
		    "none.", hidden + 2 * kv * head_dim);
	if (json_is_object(json_object_get(in->root, "rope_scaling"))) {
		json_t *type = json_object_get(json_object_get(in->root,
		    "rope_scaling"), "rope_type");

		if (type == NULL)
			type = json_object_get(json_object_get(in->root,
			    "rope_scaling"), "type");
		snprintf(notes + strlen(notes), sizeof notes - strlen(notes),
		    " Rotary scaling (%s) changes no parameter or product.",
		    json_is_string(type) ? json_string_value(type) : "unnamed");
	}
	if (theta < 1 || theta != (double)(long)theta)
		bad(in, theta_key, "%g is not a whole rotary base", theta);
	if (neox)
		snprintf(notes + strlen(notes), sizeof notes - strlen(notes),
		    " Rotary on %.0f%% of each head and the parallel residual "
		    "change no parameter or product.", 100 * number(in,
		    "rotary_pct", 1));
	if (number(in, "sliding_window", 0) > 0 && flag(in,
	    "use_sliding_window", f == F_MISTRAL || f == F_MIXTRAL) &&
	    number(in, "sliding_window", 0) < (double)seq)
		bad(in, "sliding_window", "attention over %.0f of %ld tokens "
		    "(the model config's attention sees the whole sequence; "
		    "-s %.0f or less)", number(in, "sliding_window", 0), seq,
		    number(in, "sliding_window", 0));

	if (deepseek || qwen_dense > 0)
		ffn_text = xasprintf("%sFFN %ld in the dense layers and %ld an "
		    "expert", deepseek ? "latent attention, " : "", ffn,
		    whole(in, "moe_intermediate_size", -1));
	else
		ffn_text = xasprintf("FFN %ld%s", ffn, moe ? " an expert" : "");
	description = xasprintf("%s (Hugging Face %s, model_type %s): %ld "
	    "layers, hidden %ld, %ld heads, %ld key/value heads, %s, "
	    "sequence %ld.%s", op->name, in->path, family_types[f], layers,
	    hidden, heads, kv, ffn_text, seq, notes);
	free(ffn_text);
	element(&o, in, "architecture", NULL, "decoder");
	element(&o, in, "layers", "num_hidden_layers", "%ld", layers);
	element(&o, in, "hidden", "hidden_size", "%ld", hidden);
	element(&o, in, "heads", "num_attention_heads", "%ld", heads);
	if (json_object_get(in->root, "num_key_value_heads"))
		element(&o, in, "kv_heads", "num_key_value_heads", "%ld", kv);
	if (json_object_get(in->root, head_dim_key))
		element(&o, in, "head_dim", head_dim_key, "%ld", head_dim);
	element(&o, in, "ffn_hidden", ffn_key, "%ld", ffn);
	element(&o, in, "vocab", "vocab_size", "%ld", vocab);
	if (op->seq_len)
		source(&o, "seq_len: -s %ld (config.json's "
		    "max_position_embeddings is %ld)", seq, maxpos);
	element(&o, in, "seq_len", op->seq_len ? NULL :
	    "max_position_embeddings", "%ld", seq);
	if (moe) {
		element(&o, in, "experts", experts_key, "%ld", experts);
		element(&o, in, "top_k", "num_experts_per_tok", "%ld", top_k);
	}
	if (deepseek)
		deepseek_elements(&o, in, heads, kv, experts, top_k);
	if (qwen_dense > 0) {
		element(&o, in, "expert_ffn_hidden", "moe_intermediate_size",
		    "%ld", whole(in, "moe_intermediate_size", -1));
		element(&o, in, "dense_layers", "mlp_only_layers", "%ld",
		    qwen_dense);
	}
	element(&o, in, "norm", NULL, "%s", neox ? "layernorm" : "rmsnorm");
	element(&o, in, "activation", "hidden_act", "%s", activation);
	element(&o, in, "mlp", NULL, "%s", neox ? "dense" : "gated");
	element(&o, in, "position", NULL, "rotary");
	element(&o, in, "rope_theta", json_object_get(in->root, theta_key) ?
	    theta_key : NULL, "%.0f", theta);
	element(&o, in, "tied_embeddings", json_object_get(in->root,
	    "tie_word_embeddings") ? "tie_word_embeddings" : NULL, "%s",
	    tied ? "true" : "false");
	element(&o, in, "bias", NULL, "%s", bias ? "true" : "false");
	element(&o, in, "dropout", NULL, "false");
	element(&o, in, "causal", NULL, "true");
	if (f == F_QWEN3 || f == F_QWEN3_MOE)
		element(&o, in, "qk_norm", NULL, "true");
	element(&o, in, "flash_attention", NULL, "true");
	source(&o, "%s, as model_type %s: a decoder with %s, a "
	    "%s MLP, rotary positions, %s%s, trained without dropout, causal "
	    "flash attention%s", in->path, family_types[f],
	    neox ? "LayerNorm" : "RMSNorm", neox ? "dense (two-matrix)" :
	    "gated (SwiGLU)", bias ? "biases on the linear layers" :
	    "no biases", f == F_QWEN3 || f == F_QWEN3_MOE ? ", an RMSNorm "
	    "over each query and key head (Qwen3's q_norm and k_norm)" :
	    deepseek ? ", multi-head latent attention (its ranks' RMSNorms)" :
	    "",
	    tied ? "" : "; untied embeddings when config.json says nothing");
	write_model(fp, in->path, op->name, description, &o);
	free(description);
}

int
main(int argc, char *argv[])
{
	struct opts op = { NULL, NULL, NULL, 0 };
	struct input in = { NULL, NULL, NULL };
	struct outfile out;
	struct pl_err err;
	json_error_t jerr;
	char *slash, *nul, name[128];
	size_t n;
	int ch;

	if (wants_help(argc, argv))
		usage(stdout, 0);
	opterr = 0;
	while ((ch = getopt(argc, argv, ":hn:o:s:")) != -1) {
		switch (ch) {
		case 'h': usage(stdout, 0); break;
		case 'n':
			if (!is_model_name(optarg)) {
				warnx("-n: '%s' is not a model name (a letter, "
				    "then letters, digits, . _ -)", optarg);
				usage(stderr, 2);
			}
			op.name = optarg;
			break;
		case 'o': op.out = optarg; break;
		case 's': op.seq_len = opt_long('s', optarg, 1, 1L << 24); break;
		default: bad_option(ch); usage(stderr, 2);
		}
	}
	if (optind != argc - 1) {
		warnx("needs one config.json");
		usage(stderr, 2);
	}
	in.path = argv[optind];
	if (outfile_open(&out, op.out, &err) < 0)
		die_err(&err);
	/* the text for line numbers, then jansson's parse of it */
	if (read_file(in.path, &in.text, &n, &err) < 0)
		die_err(&err);
	if ((nul = memchr(in.text, '\0', n)) != NULL) {
		size_t line = 1;

		for (const char *c = in.text; c < nul; c++)
			line += *c == '\n';
		die("%s:%zu: a NUL byte: not a text file", in.path, line);
	}
	in.root = json_loadb(in.text, n, JSON_REJECT_DUPLICATES, &jerr);
	if (in.root == NULL)
		die("%s:%d: not JSON: %s", in.path, jerr.line, jerr.text);
	if (!json_is_object(in.root))
		die("%s:1: not a JSON object", in.path);
	if (op.name == NULL) {	/* the folder the config sits in */
		snprintf(name, sizeof name, "%s", in.path);
		slash = strrchr(name, '/');
		if (slash == NULL)
			snprintf(name, sizeof name, ".");
		else {
			while (slash > name && slash[-1] == '/')
				slash--;	/* "dir//config.json" */
			*slash = '\0';
			if ((slash = strrchr(name, '/')) != NULL)
				memmove(name, slash + 1, strlen(slash + 1) + 1);
		}
		op.name = name;
		if (!is_model_name(name))
			die("%s: the folder's name '%s' is not a model name "
			    "(a letter, then letters, digits, . _ -): give one "
			    "with -n", in.path, name);
	}
	import(&op, &in, out.fp);
	if (outfile_commit(&out, &err) < 0)
		die_err(&err);
	json_decref(in.root);
	free(in.text);
	return 0;
}
