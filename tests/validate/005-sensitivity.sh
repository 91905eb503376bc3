# make validate-sensitivity on three published runs (SC'21's 1.7B, data
# parallel; Korthikanti et al.'s 22B, tensor parallel, and 175B, pipelined).
# Scaling one rate r (an efficiency, or every network bandwidth) by k
# scales the time of each term it sets by 1/k, and a step is a sum of such
# terms, fill and drain included, less what overlap hides (a window set by
# other terms), so a step at k = 0.9 is at least the model's and at most
# 1/0.9 of it, and at k = 1.1 at most the model's and at least 1/1.1 of it.
# The model as it is ("none") prices each run as make validate does; the
# matmul efficiency moves every run, the network's bandwidth the tensor-
# and pipeline-parallel ones.
set -u
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
{
	head -n 1 data/published/megatron-sc21-table1.csv
	grep '^sc21-1.7b,' data/published/megatron-sc21-table1.csv
} > "$tmp/sc21.csv"
{
	head -n 1 data/published/korthikanti-2022-table5.csv
	grep -E '^k22-(22b-selective|175b-full),' data/published/korthikanti-2022-table5.csv
} > "$tmp/k22.csv"
sh tools/validate-sensitivity.sh "$BIN" "$tmp/s.csv" "$tmp/sc21.csv" \
    "$tmp/k22.csv" > "$tmp/summary" 2> "$tmp/err" || { cat "$tmp/err"; exit 1; }
cat "$tmp/summary"
sh tools/validate.sh "$BIN" "$tmp/v.csv" "$tmp/sc21.csv" "$tmp/k22.csv" \
    > /dev/null 2>&1 || { echo "validate.sh failed"; exit 1; }
awk -F, '
FNR == 1 { f++; next }
f == 1 && $1 == "measured" { want[$2] = $4; next }
f == 2 { p[$1, $2, $3] = $4; runs[$3] = 1; if ($1 != "none") params[$1] = 1 }
END {
	for (r in want) if (p["none", 1, r] != want[r]) {
		print r ": " p["none", 1, r] " s here, " want[r] " s in make validate"; bad = 1 }
	for (r in runs) for (q in params) {
		mid = p["none", 1, r]; lo = p[q, 0.9, r]; hi = p[q, 1.1, r]
		if (!(lo >= mid * (1 - 1e-5) && lo <= mid / 0.9 * (1 + 1e-5))) {
			printf "%s, %s x 0.9: %s s against %s\n", r, q, lo, mid; bad = 1 }
		if (!(hi <= mid * (1 + 1e-5) && hi >= mid / 1.1 * (1 - 1e-5))) {
			printf "%s, %s x 1.1: %s s against %s\n", r, q, hi, mid; bad = 1 }
	}
	n = 0
	for (r in runs) n++
	if (n != 3) { print n " runs, not 3"; bad = 1 }
	for (r in runs) if (!(p["matmul", 0.9, r] > p["none", 1, r] * 1.01)) {
		print r ": the matmul efficiency does not move it"; bad = 1 }
	for (r in runs) if (r != "sc21-1.7b" && !(p["network", 0.9, r] > p["none", 1, r] * 1.001)) {
		print r ": the network does not move it"; bad = 1 }
	exit bad
}' "$tmp/v.csv" "$tmp/s.csv"
