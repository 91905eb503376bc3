#!/bin/sh
# bench.sh - solve time and peak memory of dpsolve (make bench).
#   usage: tools/bench.sh BINDIR OUT.csv
# Every cell of fig5 (5 models x 64..1024 devices of the TPUv4 fat-tree)
# and the same models on 4096 and 16384 devices; one dpsolve process a
# cell, its own -T statistics (solve time, peak RSS).  Prints a table and
# the targets of issue 4; writes OUT.csv.
set -eu
BIN=$1
OUT=$2
MODELS="bertlarge llama2-7b llama3-70b gpt3-175b mixtral-8x7b"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "setup,model,devices,solve_s,peak_rss_bytes,cells,cells_searched,step_s" > "$tmp/bench.csv"
for n in 64 128 256 512 1024 4096 16384; do
	for m in $MODELS; do
		"$BIN/dpsolve" -a configs/accelerators/tpuv4.xml \
		    -n configs/networks/fattree-tpuv4-$n.xml -m "$m" \
		    -T "$tmp/st.csv" -o "$tmp/plan.xml" \
		    results/layers/tpuv4/$m/b1/index.csv
		step=$(sed -n 's/.*<result step_s="\([^"]*\)".*/\1/p' "$tmp/plan.xml")
		tail -n 1 "$tmp/st.csv" | awk -F, -v n="$n" -v m="$m" -v s="$step" \
		    '{ printf "fattree-tpuv4,%s,%s,%s,%s,%s,%s,%s\n", m, n, $1, $2, $3, $4, s }' \
		    >> "$tmp/bench.csv"
	done
done
awk -F, 'NR == 1 { printf "%-14s %-13s %7s %9s %9s %9s\n", "setup", "model", "devices", "solve_s", "rss_MB", "cells"; next }
	{ printf "%-14s %-13s %7d %9.3f %9.1f %9d\n", $1, $2, $3, $4, $5 / 1048576, $7
	  if ($3 <= 1024) grid += $4
	  if ($2 == "gpt3-175b" && $3 == 1024) g1024 = $4
	  if ($3 == 16384 && $4 > big) big = $4
	  if ($5 > rss) rss = $5 }
	END {
	  printf "\ntarget                               measured   limit  met\n"
	  printf "fig5 grid (25 cells), total s     %10.3f %7s  %s\n", grid, "10", grid < 10 ? "yes" : "NO"
	  printf "gpt3-175b at 1024 devices, s      %10.3f %7s  %s\n", g1024, "1", g1024 < 1 ? "yes" : "NO"
	  printf "slowest cell at 16384 devices, s  %10.3f %7s  %s\n", big, "60", big < 60 ? "yes" : "NO"
	  printf "peak RSS of any cell, MB          %10.1f %7s  %s\n", rss / 1048576, "500", rss < 500 * 1048576 ? "yes" : "NO"
	}' "$tmp/bench.csv"
mv "$tmp/bench.csv" "$OUT"
