# A tool with several outputs puts all of them in place or none: one
# that cannot be written stops the run before its work (no result, no
# temporary file, an existing output untouched), and standard output
# shows nothing of a run that fails half-way.
set -u
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
fail=0
dp() { "$BIN/dpsolve" -a configs/accelerators/h100-80gb.xml \
    -n tests/dpsolve/tiny-net.xml -B 16 "$@" tests/bad/three.csv; }
left() { [ -z "$(ls -A "$d/w")" ] || { echo "$1: left $(ls -A "$d/w")"; fail=1; }
	rm -rf "$d/w"; mkdir "$d/w"; }

mkdir "$d/w"
# dpsolve: -c into a missing folder, with -o and -T
dp -o "$d/w/p.xml" -c "$d/w/nodir/c.csv" -T "$d/w/t.csv" 2> "$d/err" &&
    { echo "dpsolve: unwritable -c accepted"; fail=1; }
grep -q "nodir/c.csv" "$d/err" || { echo "dpsolve: $(cat "$d/err")"; fail=1; }
left "dpsolve -c"
# -o a folder, with -T
dp -o "$d/w" -T "$d/w/t.csv" 2> "$d/err" &&
    { echo "dpsolve: a folder as -o accepted"; fail=1; }
left "dpsolve -o folder"
# an existing plan is left as it was
echo keep > "$d/w/p.xml"
dp -o "$d/w/p.xml" -c "$d/w/nodir/c.csv" 2> /dev/null
[ "$(cat "$d/w/p.xml")" = keep ] || { echo "dpsolve: -o clobbered"; fail=1; }
rm "$d/w/p.xml"
# and a good run writes all three
dp -o "$d/w/p.xml" -c "$d/w/c.csv" -T "$d/w/t.csv" || fail=1
for f in p.xml c.csv t.csv; do
	[ -s "$d/w/$f" ] || { echo "dpsolve: no $f"; fail=1; }
done
rm -f "$d/w"/*

# compare-baselines: the row and its plan together
"$BIN/compare-baselines" -x configs/experiments/v100.xml -m mixtral-scaled \
    -N 8 -b 1 -M manual -o "$d/w/nodir/r.csv" -c "$d/w/p.csv" 2> /dev/null &&
    { echo "compare-baselines: unwritable -o accepted"; fail=1; }
left "compare-baselines"

# graph-normalize: -w's model is not written when -o cannot be, and
# the ILP does not run first
"$BIN/graph-normalize" -a configs/accelerators/tpuv4.xml -t ilp \
    -w "$d/w/m.lp" -o "$d/w/nodir/x.csv" tests/graph-normalize/tiny 2> /dev/null &&
    { echo "graph-normalize: unwritable -o accepted"; fail=1; }
left "graph-normalize -w"

# standard output: nothing of a summary whose second model is bad
"$BIN/graph-normalize" -s configs/models/llama2-7b.xml \
    tests/configs/bad/model/truncated.xml > "$d/out" 2> /dev/null &&
    { echo "graph-normalize -s: bad model accepted"; fail=1; }
[ -s "$d/out" ] && { echo "graph-normalize -s: printed $(head -c 80 "$d/out")"; fail=1; }
exit $fail
