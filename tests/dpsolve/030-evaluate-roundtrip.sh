# A solved plan, read back with -E, re-evaluates to the same bytes: the
# DP reports the evaluator's own numbers.  Also -c writes the same stages
# as -f csv.
set -eu
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
opts="-a configs/accelerators/tpuv4.xml -n tests/dpsolve/tiny-net.xml -B 16"
"$BIN/dpsolve" $opts -c "$tmp/a.csv" -o "$tmp/a.xml" tests/dpsolve/tiny.csv
"$BIN/dpsolve" $opts -E "$tmp/a.xml" -o "$tmp/b.xml" tests/dpsolve/tiny.csv
cmp "$tmp/a.xml" "$tmp/b.xml"
"$BIN/dpsolve" $opts -f csv -o "$tmp/b.csv" tests/dpsolve/tiny.csv
cmp "$tmp/a.csv" "$tmp/b.csv"
grep -q '<result step_s=' "$tmp/a.xml"
