# Same inputs, same bytes: two runs of every tool give identical output.
set -u
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
for i in 1 2; do
	"$BIN/cost-matrix" configs/networks/torus-tpuv4-1024.xml > "$d/c$i" || exit 1
	"$BIN/memmodel" -M 1e4 -s tests/memmodel/stages.csv \
	    tests/memmodel/layers.csv > "$d/m$i" || exit 1
done
cmp "$d/c1" "$d/c2" && cmp "$d/m1" "$d/m2"
