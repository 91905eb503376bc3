#!/bin/sh
# Qwen3-MoE with dense leading layers (mlp_only_layers 0 and 1: the
# published Qwen3-30B-A3B config.json with that one field changed,
# tests/configs/good/hf/): imported as two dense layers of
# intermediate_size (6,144) before 46 expert layers, its parameter count
# the published model's less two layers' experts and routers (128 x 3 h
# 768 + 128 h) plus two dense MLPs (3 h 6,144), worked out here; the
# launch-side flags follow from dense_layers (tests/dpsolve/040).
set -u
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$BIN/model-import" -s 4096 -n dense -o "$tmp/dense.xml" \
    tests/configs/good/hf/qwen3-moe-leading-dense.json || exit 1
"$BIN/model-import" -s 4096 -n moe -o "$tmp/moe.xml" \
    tests/model-import/hf/Qwen3-30B-A3B/config.json || exit 1
grep -q '<dense_layers>2</dense_layers>' "$tmp/dense.xml" &&
    grep -q '<ffn_hidden>6144</ffn_hidden>' "$tmp/dense.xml" &&
    grep -q '<expert_ffn_hidden>768</expert_ffn_hidden>' "$tmp/dense.xml" ||
    { echo "not two dense layers of 6144 before experts of 768:"; cat "$tmp/dense.xml"; exit 1; }
"$BIN/graph-normalize" -s -o "$tmp/s.csv" "$tmp/moe.xml" "$tmp/dense.xml" || exit 1
awk -F, 'NR == 1 { for (i = 1; i < NF + 1; i++) c[$i] = i; next }
	{ p[$c["model"]] = $c["parameters"]; g[$c["model"]] = $c["graph_parameters"] }
	END {
		h = 2048
		want = p["moe"] - 2 * (128 * 3 * h * 768 + 128 * h) + 2 * 3 * h * 6144
		if (p["dense"] != want) { print "dense: " p["dense"] ", want " want; exit 1 }
		if (g["dense"] != want) { print "dense graph: " g["dense"] ", want " want; exit 1 }
	}' "$tmp/s.csv"
