# make check's subset of make regress: the v100 and table7 experiments
# (10 rows, every method status among them) computed afresh from the
# configs must equal tests/expected/ (plans exactly, numbers to 1e-6);
# and a deliberately perturbed cost - the V100 nodes' link 10% slower -
# must be caught, with the moved cell named.
set -eu
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

layers() {	# configs-dir accelerator model
	mkdir -p "$tmp/layers/$2/$3/b1"
	"$BIN/graph-normalize" -D "$tmp/layers/$2/$3/b1" \
	    -a "$1/accelerators/$2.xml" -c "$1/models/$3.xml" -V b=1 \
	    -o "$tmp/layers/$2/$3/b1/index.csv"
}

table() {	# configs-dir experiment out.csv: every cell, then the join
	rows=
	exp=$1/experiments/$2.xml
	for m in $(sed -n 's/.*<model name="\([^"]*\)".*/\1/p' "$exp"); do
		for n in $(sed -n 's/.*<cluster devices="\([0-9]*\)".*/\1/p' "$exp"); do
			for meth in $(sed -n 's/.*<methods>\(.*\)<\/methods>.*/\1/p' "$exp"); do
				r=$tmp/rows/$2-$m-$n-$meth.csv
				mkdir -p "$tmp/rows"
				"$BIN/compare-baselines" -C "$1" -L "$tmp/layers" \
				    -x "$exp" -m "$m" -N "$n" -b 1 -M "$meth" -o "$r"
				rows="$rows $r"
			done
		done
	done
	"$BIN/compare-baselines" -J -o "$3" $rows 2>/dev/null
}

layers configs v100-32gb mixtral-scaled
layers configs tpuv4 llama3-70b
layers configs tpuv4 bertlarge
for e in v100 table7; do
	table configs $e "$tmp/$e.csv"
	"$BIN/compare-baselines" -R tests/expected/$e.csv "$tmp/$e.csv"
done

# the perturbation: the node level of both V100 networks 10% slower
cp -r configs "$tmp/configs"
for f in "$tmp"/configs/networks/spineleaf-v100-*.xml; do
	sed 's/bandwidth_GBps="300"/bandwidth_GBps="270"/' "$f" > "$f.new"
	mv "$f.new" "$f"
done
! cmp -s configs/networks/spineleaf-v100-8.xml \
    "$tmp/configs/networks/spineleaf-v100-8.xml"
table "$tmp/configs" v100 "$tmp/v100-slow.csv"
if "$BIN/compare-baselines" -R tests/expected/v100.csv "$tmp/v100-slow.csv" \
    > "$tmp/diff" 2>&1; then
	echo "a 10% slower node link went unnoticed" >&2
	exit 1
fi
grep -q 'mixtral-scaled 8 devices, b = 1, nest: throughput_samples_per_s was' \
    "$tmp/diff"
