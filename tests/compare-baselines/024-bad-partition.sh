# A published plan whose layer_partition is not p positive counts summing
# to the layers fails with the file, line and column, exit 1, and leaves
# no row file behind.  The artifact is linked into a scratch directory
# with one baseline_configs.csv row changed.
set -u
A=${ARTIFACT:-../shared/nest-artifact}
A=$(cd "$A" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
for f in "$A"/*; do
	ln -s "$f" "$tmp/$(basename "$f")"
done
for bad in "1 1 x" "1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 2 3"; do
	rm -f "$tmp/baseline_configs.csv"
	awk -F, -v OFS=, -v bad="$bad" '{ sub(/\r$/, "") } NR > 1 && $9 != "" && !done { $9 = bad; done = 1 } { print }' \
	    "$A/baseline_configs.csv" > "$tmp/baseline_configs.csv"
	line=$(awk -F, -v bad="$bad" '$9 == bad { print NR; exit }' "$tmp/baseline_configs.csv")
	"$BIN/compare-baselines" --compat nest -A "$tmp" \
	    -x configs/experiments/fig6.xml -m llama2-7b -N 256 -b 2 \
	    -M mcmc-published -o "$tmp/row.csv" 2> "$tmp/err"
	rc=$?
	[ $rc -eq 1 ] || { echo "'$bad': exit $rc, want 1"; fail=1; }
	grep -q "baseline_configs.csv:$line: column 'layer_partition'" "$tmp/err" ||
	    { echo "'$bad': message does not name the line:"; cat "$tmp/err"; fail=1; }
	[ "$(wc -l < "$tmp/err")" -eq 1 ] || { echo "'$bad': not one line"; fail=1; }
	[ ! -e "$tmp/row.csv" ] || { echo "'$bad': a row file was left"; fail=1; }
done
# the export's own uneven rows are read: 30 stages of 1 and 2 layers
"$BIN/compare-baselines" --compat nest -A "$A" -x configs/experiments/fig6.xml \
    -m llama2-7b -N 256 -b 2 -M mcmc-published -o "$tmp/row.csv" || fail=1
awk -F, 'NR == 2 { n = split($22, s, " "); exit !($6 == 30 && n == 30) }' \
    "$tmp/row.csv" || { echo "the uneven MCMC plan is not 30 stages"; fail=1; }
exit $fail
