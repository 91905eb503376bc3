#!/bin/sh
# CRLF line ends, a UTF-8 byte-order mark and "-0" are read the same as
# LF, no mark and "0": the same memory table, byte for byte.
set -u
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for f in layers stages; do
	printf '\357\273\277' > "$tmp/$f.csv"
	sed 's/$/\r/' tests/memmodel/$f.csv >> "$tmp/$f.csv"
done
# the first stage's zero_stage and recompute written as -0
sed -i '2s/,0,1,0,1f1b,/,-0,1,-0,1f1b,/' "$tmp/stages.csv"
grep -q -- ',-0,1,-0,' "$tmp/stages.csv" || { echo "no -0 in the input" >&2; exit 1; }
"$BIN/memmodel" -M 1e9 -s tests/memmodel/stages.csv tests/memmodel/layers.csv \
    > "$tmp/plain.out" || exit 1
"$BIN/memmodel" -M 1e9 -s "$tmp/stages.csv" "$tmp/layers.csv" \
    > "$tmp/crlf.out" || exit 1
cmp "$tmp/plain.out" "$tmp/crlf.out"
