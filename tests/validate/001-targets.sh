# make validate as a regression guard: the model against the published
# runs of data/published/ (Megatron-LM SC'21 Table 1 on Selene, measured
# TFLOP/s turned into step times; Korthikanti et al. 2022 Table 5, their
# iteration times) and the ZeRO paper's memory points.
# Holds the targets: median |error| of the step time <= 10%,
# every run within 20%, every published plan fitting in memory, every
# memory point within 5%; and dpsolve's own plan at least as fast as the
# published one (it searches a space that holds it): within 1.3x of it
# with the run's own recomputation (the layout alone), and under 1.5x
# when it may also drop recomputation (SC'21's Figure 17: recomputation
# costs up to 33% of the throughput at small batches).  The column of
# the expected slowest GPU is filled for every run.
set -u
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
VALIDATE_SPEEDS=data/variability/sgemm-v100-longhorn.csv \
    sh tools/validate.sh "$BIN" "$tmp/validate.csv" data/published/*.csv \
    > "$tmp/summary" 2> "$tmp/progress" || { cat "$tmp/progress"; exit 1; }
cat "$tmp/summary"
awk -F, '
NR == 1 { next }
$1 == "measured" {
	e = $6 < 0 ? -$6 : $6; err[++n] = e
	if (e > 20) { print $2 ": |error| " e "% > 20%"; bad = 1 }
	if ($8 != "yes") { print $2 ": the published plan does not fit"; bad = 1 }
	if ($14 < 1 - 1e-9 || $14 > 1.3) { print $2 ": own layout " $14 "x the published"; bad = 1 }
	if ($11 < $14 - 1e-9 || $11 > 1.5) { print $2 ": own plan " $11 "x the published"; bad = 1 }
	# the column of the expected slowest GPU (never the prediction):
	# filled, and no faster than the prediction, as the slowest of a
	# run of GPUs is no faster than their mean, 1.0004 in
	# data/variability/sgemm-v100-longhorn.csv
	if ($21 == "" || $21 < $4) { print $2 ": straggler_step_s " $21 " under the prediction " $4; bad = 1 }
}
$1 == "memory" { e = $6 < 0 ? -$6 : $6; if (e > 5) { print $2 ": |error| " e "% > 5%"; bad = 1 } }
END {
	for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++)
		if (err[j] < err[i]) { x = err[i]; err[i] = err[j]; err[j] = x }
	med = n % 2 ? err[(n + 1) / 2] : (err[n / 2] + err[n / 2 + 1]) / 2
	if (n < 10) { print "only " n " runs"; bad = 1 }
	if (med > 10) { print "median |error| " med "% > 10%"; bad = 1 }
	exit bad
}' "$tmp/validate.csv"
