#!/bin/sh
# dpsolve -f summary, the plan in a person's terms: the model's size
# against its published count; its step's parts add
# up to the step; tokens a GPU are the samples' tokens over the GPUs;
# MFU's FLOPs are Megatron-LM's count worked out here from the model's
# numbers (12 B s L h^2 (1 + G/A + s/h + 3/2 f/h + V/2Lh) for a gated
# MLP); the cap is the device less dpsolve's reserve; the same lines
# head -f megatron's launch; and output to a pipe stays XML.
set -u
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
say() { echo "$*"; fail=1; }
"$BIN/graph-normalize" -D "$tmp/l2" -V b=1 -a configs/accelerators/h100-80gb.xml \
    -c configs/models/llama2-7b.xml -o "$tmp/l2/index.csv" || exit 1
run() {
	"$BIN/dpsolve" -A configs/models/llama2-7b.xml -a configs/accelerators/h100-80gb.xml \
	    -n configs/networks/spineleaf-h100-128.xml -B 256 "$@" "$tmp/l2/index.csv"
}
run -f summary > "$tmp/s.txt" || exit 1
cat "$tmp/s.txt"
awk '
/^step / { step = $2; sps = $4; tpg = $6 }
/ on [a-z0-9-]+: [0-9]+ GPUs, / {
	g = $0; sub(/.* on [^:]*: /, "", g); gpus = g + 0
	# the model size, against the 6.74B of Touvron et al. (its card)
	if (match($0, /[(][0-9.]+B parameters/)) size = substr($0, RSTART + 1) + 0
}
/^MFU / { mfu = $2 + 0; pflop = $0; sub(/.*count, /, "", pflop); pflop += 0 }
/^bottleneck:/ {
	line = $0
	gsub(/[(),+]/, " ", line); n = split(line, w, " ")
	for (i = 1; i < n; i++) {
		if (w[i] == "compute") c = w[i + 1]
		if (w[i] == "collectives") k = w[i + 1]
		if (w[i] == "p2p") q = w[i + 1]
		if (w[i] == "drain") b = w[i + 1]
		if (w[i] == "sync") y = w[i + 1]
	}
}
END {
	bad = 0
	parts = c + k + q + b + y
	if (parts < step * 0.999 || parts > step * 1.001) { print "parts " parts " of step " step; bad = 1 }
	if (size < 6.735 || size >= 6.745) { print "model size " size "B, published 6.74B"; bad = 1 }
	want = sps * 4096 / gpus
	if (tpg < want * 0.999 || tpg > want * 1.001) { print "tokens a GPU " tpg ", want " want; bad = 1 }
	# Llama 2 7B: L 32, h 4096, A = G 32, f 11008, V 32000, s 4096, B 256
	L = 32; h = 4096; f = 11008; V = 32000; s = 4096; B = 256
	F = 12 * B * s * L * h * h * (1 + 1 + s / h + 1.5 * f / h + V / (2 * L * h))
	if (pflop < F / 1e15 * 0.999 || pflop > F / 1e15 * 1.001) { print "PFLOP " pflop ", want " F / 1e15; bad = 1 }
	m = 100 * F / (step * gpus * 989.4e12)
	if (mfu < m - 0.1 || mfu > m + 0.1) { print "MFU " mfu ", want " m; bad = 1 }
	exit bad
}' "$tmp/s.txt" || say "summary numbers disagree"
# the cap: 80 GiB less 667 MB, 1 GiB and 4 GiB
grep -q 'under the cap of 74.4 GiB (80 GiB less 5.6 GiB for the CUDA context, NCCL and fragmentation)' "$tmp/s.txt" ||
    say "the cap: $(grep memory "$tmp/s.txt")"
run -M 8e10 -f summary | grep -q 'under the cap of 74.5 GiB$' || say "-M: the cap as given"
run -f megatron > "$tmp/m.sh" || say "megatron failed"
sed -n 's/^# //p' "$tmp/m.sh" | grep -v "nestplan's terms\|^Megatron-LM core\|cannot run\|the model's flags" |
    head -n "$(wc -l < "$tmp/s.txt")" | cmp -s - "$tmp/s.txt" ||
    say "the launch's header is not the summary"
run > "$tmp/p.xml"
head -c 5 "$tmp/p.xml" | grep -q '<?xml' || say "to a pipe: not XML"
exit $fail
