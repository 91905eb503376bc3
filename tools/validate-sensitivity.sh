#!/bin/sh
# validate-sensitivity.sh - how make validate's errors move with the
# model's free parameters (make validate-sensitivity; README, "How far to
# trust the numbers").
#
#   sh tools/validate-sensitivity.sh BINDIR OUT.csv runs.csv ...
#   sh tools/validate-sensitivity.sh --summary OUT.csv
#
# The parameters no source pins down exactly: the accelerators'
# efficiencies (matmul, attention, vector, memory: each a share of a peak
# rate) and the networks' bandwidths (every level of every network), each
# scaled by 0.9 and by 1.1 on its own in a copy of configs/ (the models
# untouched), and the runs priced again by tools/validate.sh.  OUT.csv has
# a row a run and setting (parameter, factor, run, predicted_s,
# error_pct; "none" and 1 the model as it is); printed (and by --summary),
# a line a setting: the median and worst |error| of the runs' step times.  An efficiency
# scaled past 1 is refused rather than clipped.
set -eu

# A line a setting: the median and worst |error| of its runs.
summary() {
	awk -F, 'NR > 1 { key = $1 " " $2
		if (!(key in n)) order[++settings] = key
		e = $5 < 0 ? -$5 : $5; err[key, ++n[key]] = e
		if (e > worst[key]) { worst[key] = e; wrun[key] = $3 } }
		END {
		  for (s = 1; s <= settings; s++) {
		    key = order[s]; m = n[key]
		    for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++)
		        if (err[key, j] < err[key, i]) { x = err[key, i]; err[key, i] = err[key, j]; err[key, j] = x }
		    med = m % 2 ? err[key, (m + 1) / 2] : (err[key, m / 2] + err[key, m / 2 + 1]) / 2
		    split(key, pk, " ")
		    printf "validate-sensitivity: %-9s x %-3s %d runs, median |err| %.1f%%, worst %.1f%% (%s)\n",
		        pk[1], pk[2], m, med, worst[key], wrun[key] } }' "$1"
}
if [ "${1:-}" = --summary ]; then
	summary "$2"
	exit 0
fi
[ $# -gt 2 ] || { echo "usage: validate-sensitivity.sh BINDIR OUT.csv runs.csv ..." >&2; exit 2; }
BIN=$1
OUT=$2
shift 2
. "$(dirname "$0")/output.sh"
out_check validate-sensitivity "$OUT"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"; out_cleanup "$OUT"' EXIT
trap 'exit 1' INT TERM HUP
here=$(pwd)

# configs/ with one parameter scaled: $1 parameter, $2 factor, $3 the copy
scaled() {
	mkdir -p "$3"
	for d in configs/*/; do
		d=${d%/}
		case ${d#configs/} in
		accelerators|networks) cp -R "$d" "$3/" ;;
		*) ln -s "$here/$d" "$3/${d#configs/}" ;;
		esac
	done
	case $1 in
	none) ;;
	network)
		for f in "$3"/networks/*.xml; do
			awk -v k="$2" '{
				while (match($0, /bandwidth_GBps="[0-9.eE+-]+"/)) {
					v = substr($0, RSTART + 16, RLENGTH - 17)
					printf "%s", substr($0, 1, RSTART - 1) "bandwidth_GBps=\"" sprintf("%.17g", v * k) "\""
					$0 = substr($0, RSTART + RLENGTH)
				}
				print }' "$f" > "$f.new" && mv "$f.new" "$f"
		done ;;
	*)
		for f in "$3"/accelerators/*.xml; do
			awk -v kind="$1" -v k="$2" -v f="$f" '{
				tag = "<efficiency kind=\"" kind "\">"
				if ((i = index($0, tag)) > 0) {
					rest = substr($0, i + length(tag))
					v = substr(rest, 1, index(rest, "<") - 1) * k
					if (v > 1) { printf "validate-sensitivity: %s: %s efficiency %g above 1\n", f, kind, v > "/dev/stderr"; exit 1 }
					$0 = substr($0, 1, i - 1) tag sprintf("%.17g", v) substr(rest, index(rest, "<"))
				}
				print }' "$f" > "$f.new" && mv "$f.new" "$f"
		done ;;
	esac
}

echo "parameter,factor,run,predicted_s,error_pct" > "$tmp/out.csv"
for setting in "none 1" "matmul 0.9" "matmul 1.1" "attention 0.9" \
    "attention 1.1" "vector 0.9" "vector 1.1" "memory 0.9" "memory 1.1" \
    "network 0.9" "network 1.1"; do
	param=${setting% *} factor=${setting#* }
	scaled "$param" "$factor" "$tmp/configs-$param-$factor"
	VALIDATE_CONFIGS="$tmp/configs-$param-$factor" \
	    VALIDATE_SPEEDS= sh tools/validate.sh "$BIN" "$tmp/v.csv" "$@" > /dev/null \
	    2> "$tmp/err" || { cat "$tmp/err" >&2; exit 1; }
	awk -F, -v p="$param" -v k="$factor" 'NR > 1 && $1 == "measured" {
		printf "%s,%s,%s,%s,%s\n", p, k, $2, $4, $6 }' "$tmp/v.csv" >> "$tmp/out.csv"
done
cp "$tmp/out.csv" "$OUT.tmp.$$"
out_commit validate-sensitivity "$OUT"
summary "$OUT"
