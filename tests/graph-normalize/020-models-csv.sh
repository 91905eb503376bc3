# results/models.csv (graph-normalize -s): parameter counts within 1% of the
# published totals, the analytic graph's own count equal to the closed form,
# activation bytes per layer equal to Korthikanti et al.'s sbh(34 + 5as/h)
# for the models trained with dropout and a 4h-wide MLP (the form assumes
# both; with flash attention 34sbh and the log-sum-exp), and forward FLOPs
# per token within 0.5% of Narayanan et al.'s 24h^2 L (1 + s/6h) + 2hV
# (causal flash attention: s/12h; the rest is the norms', softmaxes' and
# other vector work, which their count leaves out).  Today's mixtures of
# experts against their reports and cards, total and active: DeepSeek-V3
# (latent attention, shared experts, three dense layers, a multi-token
# prediction module), Qwen3-235B-A22B and Qwen3-30B-A3B.
set -u
out=$(mktemp)
trap 'rm -f "$out"' EXIT
"$BIN/graph-normalize" -s -o "$out" configs/models/*.xml || exit 1
awk -F, '
function near(got, want, rel) { d = got - want; if (d < 0) d = -d; return d <= rel * want }
NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
{
	m = $c["model"]; p = $c["parameters"]; seen[m] = 1
	pub["bertlarge"] = 335e6; pub["llama2-7b"] = 6.74e9
	pub["llama3-70b"] = 70.6e9; pub["gpt3-175b"] = 175e9
	pub["mixtral-8x7b"] = 46.7e9; pub["gpt3-35b"] = 35e9
	pub["mixtral-scaled"] = 790e6; pub["llama3-405b"] = 405e9
	pub["mixtral-8x22b"] = 141e9
	# Llama 3 8B (Grattafiori et al. 2024, Table 3; its model card 8.03B)
	pub["llama3-8b"] = 8.03e9
	# Qwen3 Technical Report (2025): 235B total; the model card 30.5B
	pub["qwen3-235b-a22b"] = 235e9; pub["qwen3-30b-a3b"] = 30.5e9
	# DeepSeek-V3 Technical Report (2024): 671B, 37B activated; its
	# README: the hub holds 685B, 671B of the main model and 14B of the
	# prediction module, which stores its own copies of the embedding and
	# the output head (2 V h).  The main model is checked to the unit
	# (671.0x), the active count cut to the figures given (37.x, as the
	# Qwen3 cards cut 3.35B to 3.3B), the hub total to the nearest
	# billion (its FP8 block scales, one fp32 a 128 x 128 tile, add
	# about 0.04B to the weights counted here)
	if (m == "deepseek-v3") {
		main = p - $c["mtp_parameters"]; pub[m] = p
		if (main < 671e9 || main >= 672e9) { print m ": main model " main ", published 671B"; bad = 1 }
		hub = p + 2 * 129280 * $c["hidden"]
		if (!near(hub, 685e9, 0.55e9 / 685e9)) { print m ": " hub " on the hub, published 685B"; bad = 1 }
		act_lo = 37e9; act_hi = 38e9
	}
	if (m == "qwen3-235b-a22b") { act_lo = 22e9; act_hi = 23e9 }
	if (m == "qwen3-30b-a3b") { act_lo = 3.3e9; act_hi = 3.4e9 }
	if (m ~ /^(deepseek-v3|qwen3-)/) {
		a = $c["active_parameters"]; frontier++
		if (a < act_lo || a >= act_hi) { print m ": " a " active, published " act_lo; bad = 1 }
	} else if ($c["mtp_parameters"] != 0 || $c["experts"] == 1 && $c["active_parameters"] != p) {
		print m ": active " $c["active_parameters"] " or prediction " $c["mtp_parameters"] " wrong for its kind"; bad = 1
	}
	# Korthikanti et al. 2022, Table 3: the sizes its models are named by
	pub["korthikanti-gpt-22b"] = 22e9; pub["korthikanti-gpt-175b"] = 175e9
	# the models of Megatron-LM SC21 Table 1: its own count (Section 5.1),
	# 12 l h^2 (1 + 13/(12h) + (V + s)/(12 l h)), which its table rounds
	if (m ~ /^sc21-gpt-/) {
		h0 = $c["hidden"]; l0 = $c["layers"]; s0 = $c["seq_len"]
		pub[m] = 12 * l0 * h0 * h0 * (1 + 13 / (12 * h0) + (51200 + s0) / (12 * l0 * h0))
	}
	# the H100 weak-scaling table of Megatron-LM (2024) names its models by
	# sizes rounded to two figures (1.7B for 1.754B, 32B for 31.5B)
	tol = 0.01
	if (m ~ /^mlm24-gpt-/) {
		x = m; sub(/^mlm24-gpt-/, "", x); sub(/b$/, "", x)
		pub[m] = x * 1e9; tol = 0.035; mlm24++
	}
	if (!(m in pub)) { print m ": no published total"; bad = 1; next }
	sc21 += m ~ /^sc21-gpt-/
	if (!near(p, pub[m], tol)) { print m ": " p " parameters, published " pub[m]; bad = 1 }
	if ($c["graph_parameters"] != p) { print m ": graph has " $c["graph_parameters"] ", closed form " p; bad = 1 }
	s = $c["seq_len"]; h = $c["hidden"]; a = $c["heads"]; L = $c["layers"]
	if (m == "bertlarge" || m == "gpt3-175b") checked++
	if ((m == "bertlarge" || m ~ /^gpt3/) && $c["ffn_hidden"] == 4 * h) {
		# the GPT-3 decoders train with causal flash attention (the
		# config default): no s x s tensor kept, only the fp32
		# log-sum-exp (4 bytes a query and head), and half the scores
		flash = m ~ /^gpt3/
		want = flash ? s * h * 34 + 4 * a * s : s * h * (34 + 5 * a * s / h)
		if ($c["activation_bytes_per_layer"] != want) { print m ": activations " $c["activation_bytes_per_layer"] ", want " want; bad = 1 }
		V = (m == "bertlarge") ? 30522 : 50257
		f = 24 * h * h * L * (1 + s / ((flash ? 12 : 6) * h)) + 2 * h * V
		if (!near($c["flops_per_token_fwd"], f, 0.005)) { print m ": FLOPs/token " $c["flops_per_token_fwd"] ", Narayanan " f; bad = 1 }
	}
}
END {
	for (m in pub) if (!(m in seen)) { print m ": missing"; bad = 1 }
	if (sc21 != 10) { print sc21 " of the 10 SC21 models checked"; bad = 1 }
	if (mlm24 != 9) { print mlm24 " of the 9 H100 weak-scaling models checked"; bad = 1 }
	if (checked != 2) { print "bertlarge and gpt3-175b not both checked"; bad = 1 }
	if (frontier != 3) { print frontier " of the 3 frontier models checked"; bad = 1 }
	exit bad
}' "$out"
