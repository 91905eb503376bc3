# A table larger than any real one is refused at its first row past the
# cap (file:line, nothing written), not read whole: a per-layer graph, an
# index or a stage table past 100,000 rows, an operator graph past
# 100,000 operators.  A table at the cap is read (its last row's error
# is the one reported).
set -u
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
fail=0
head="layer_id,kind,forward_s,backward_s,parameter_bytes,activation_bytes,input_bytes"
# n good rows, then one with nan
layers() { awk -v n="$1" -v h="$head" 'BEGIN { print h
	for (i = 0; i < n; i++) printf "%d,x,1,2,1,1,%d\n", i, i ? 1 : 0
	printf "%d,x,nan,2,1,1,1\n", n }'; }
expect() {	# what file:line: message-part
	if [ -e "$d/out" ]; then echo "$1: left an output"; fail=1; rm -f "$d/out"; fi
	grep -q "$2: $3" "$d/err" || { echo "$1: $(cat "$d/err")"; fail=1; }
}
printf 'stage,first_layer,last_layer,devices,zero_stage,zero_degree,position_from_end,microbatches\ns,0,0,1,0,1,1,1\n' > "$d/stages.csv"

layers 100000 > "$d/big.csv"	# 100,001 rows: one too many
"$BIN/memmodel" -M 1e12 -s "$d/stages.csv" -o "$d/out" "$d/big.csv" 2> "$d/err" &&
    { echo "memmodel: 100,001 rows accepted"; fail=1; }
expect memmodel "$d/big.csv:100002" "more than 100000 rows"
"$BIN/dpsolve" -a configs/accelerators/tpuv4.xml -n tests/dpsolve/tiny-net.xml \
    -B 8 -o "$d/out" "$d/big.csv" 2> "$d/err" &&
    { echo "dpsolve: 100,001 rows accepted"; fail=1; }
expect dpsolve "$d/big.csv:100002" "more than 100000 rows"

layers 99999 > "$d/cap.csv"	# 100,000 rows: read to the end
"$BIN/memmodel" -M 1e12 -s "$d/stages.csv" -o "$d/out" "$d/cap.csv" 2> "$d/err" &&
    { echo "memmodel: nan accepted"; fail=1; }
expect memmodel "$d/cap.csv:100001" "column 'forward_s': invalid number 'nan'"

# an index of 100,001 variants
awk 'BEGIN { print "file,t,e,c,sp,micro_batch_samples,width"
	for (i = 0; i <= 100000; i++) print "v.csv,1,1,1,0,1,1" }' > "$d/index.csv"
"$BIN/dpsolve" -a configs/accelerators/tpuv4.xml -n tests/dpsolve/tiny-net.xml \
    -B 8 -o "$d/out" "$d/index.csv" 2> "$d/err" &&
    { echo "dpsolve: an index of 100,001 rows accepted"; fail=1; }
expect "dpsolve index" "$d/index.csv:100002" "more than 100000 rows"

# an operator graph of 100,001 operators (a chain)
mkdir "$d/ops"
awk -v h="$(head -n 1 tests/graph-normalize/tiny/ops.csv)" 'BEGIN { print h
	for (i = 0; i <= 100000; i++) printf "%d,0,op%d,Add,%d,VC,1,1,1,1,1,0,1\n", i, i, i }' \
    > "$d/ops/ops.csv"
head -n 1 tests/graph-normalize/tiny/op_edges.csv > "$d/ops/op_edges.csv"
head -n 1 tests/graph-normalize/tiny/fused_edges.csv > "$d/ops/fused_edges.csv"
"$BIN/graph-normalize" -o "$d/out" "$d/ops" 2> "$d/err" &&
    { echo "graph-normalize: 100,001 operators accepted"; fail=1; }
expect graph-normalize "$d/ops/ops.csv:100002" "more than 100000 rows"
exit $fail
