#!/bin/sh
# A per-layer graph records the model and the accelerator it was built
# from (model_config, accelerator_config), and dpsolve refuses an -A or
# -a that disagrees, naming the field: graphs built for an 8K-sequence
# copy of Llama3-70B priced with the 4K model (the user who edited
# seq_len and forgot to rebuild), and H100 graphs with the TPU's config;
# an edit that changes no field (the description) is accepted.
set -u
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
sed 's/<seq_len>4096</<seq_len>8192</; s/name="llama3-70b"/name="llama3-70b-8k"/' \
    configs/models/llama3-70b.xml > "$tmp/l8k.xml"
"$BIN/graph-normalize" -c "$tmp/l8k.xml" -a configs/accelerators/h100-80gb.xml \
    -V t=8 -o "$tmp/g.csv" || exit 1
run() {	# want-stderr dpsolve-args...
	want=$1
	shift
	"$BIN/dpsolve" -n configs/networks/spineleaf-h100-128.xml -B 64 "$@" \
	    "$tmp/g.csv" > /dev/null 2> "$tmp/err"
	rc=$?
	if [ -z "$want" ]; then
		[ $rc = 0 ] || { echo "dpsolve $*: exit $rc: $(cat "$tmp/err")"; fail=1; }
	elif [ $rc != 1 ] || [ "$(cat "$tmp/err")" != "$want" ]; then
		echo "dpsolve $*: exit $rc, stderr: $(cat "$tmp/err")"
		echo "  wanted: $want"
		fail=1
	fi
}
run "dpsolve: $tmp/g.csv:1: column 'model_config': built for llama3-70b-8k with seq_len 8192, but configs/models/llama3-70b.xml has seq_len 4096" \
    -A configs/models/llama3-70b.xml -a configs/accelerators/h100-80gb.xml
run "dpsolve: $tmp/g.csv:1: column 'accelerator_config': built for h100-80gb with memory_bytes 85899345920, but configs/accelerators/tpuv4.xml has memory_bytes 68719476736" \
    -a configs/accelerators/tpuv4.xml
sed 's|<description>[^<]*</description>|<description>another text</description>|' \
    "$tmp/l8k.xml" > "$tmp/l8k-text.xml"
run "" -A "$tmp/l8k-text.xml" -a configs/accelerators/h100-80gb.xml
exit $fail
