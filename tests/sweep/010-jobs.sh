#!/bin/sh
# make sweep gives the same bytes with -j1 and -j2; its table has a row a
# point with the plan's sensitivity; a second make remakes nothing; a
# changed value remakes only the points it touches.  Only with the
# release tools (BIN=bin): the Makefile runs those.
set -u
[ "$BIN" = bin ] || exit 0
. tests/sweep/lib.inc
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
sweep_make "$tmp/j1" -j1 sweep > "$tmp/j1.log" 2>&1 ||
    { cat "$tmp/j1.log"; exit 1; }
sweep_make "$tmp/j2" -j2 sweep > "$tmp/j2.log" 2>&1 ||
    { cat "$tmp/j2.log"; exit 1; }
sweep_same "$tmp/j1" "$tmp/j2" || exit 1
table=$tmp/j1/results/tiny.csv
# 1 model x 2 cluster sizes x 2 x 2 values = 8 rows, one progress line each
[ "$(tail -n +2 "$table" | wc -l)" -eq 8 ] || { echo "not 8 rows"; cat "$table"; exit 1; }
[ "$(grep -c '^\[[0-9]*/8\] sweep ' "$tmp/j1.log")" -eq 8 ] ||
    { echo "not 8 progress lines"; cat "$tmp/j1.log"; exit 1; }
grep -q '^sweep tiny: 8 points in ' "$tmp/j1.log" || { echo "no summary"; exit 1; }
head -n 1 "$table" | grep -q ',elasticity_leaf_GBps,elasticity_oversubscription$' ||
    { echo "no elasticity columns"; head -n 1 "$table"; exit 1; }
# a faster link never slows the same plan: elasticity >= 0 on bandwidth,
# <= 0 on oversubscription (each column found by its name)
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	$(c["elasticity_leaf_GBps"]) < 0 || $(c["elasticity_oversubscription"]) > 0 ||
	$(c["relative_throughput"]) > 1 { print "bad row: " $0; bad = 1 }
	END { exit bad }' "$table" || exit 1
for f in tiny-llama2-7b.png tiny-llama2-7b-plans.svg; do
	[ -s "$tmp/j1/plots/$f" ] || { echo "no plot $f"; exit 1; }
done
# nothing changed: nothing is made again
touch "$tmp/mark0"
sweep_make "$tmp/j1" sweep > "$tmp/again.log" 2>&1 || { cat "$tmp/again.log"; exit 1; }
made=$(find "$tmp/j1/results" "$tmp/j1/build" "$tmp/j1/plots" -type f -newer "$tmp/mark0")
[ -z "$made" ] || { echo "a second make sweep made again: $made"; exit 1; }
# a third oversubscription value: only the new points (and the pricings
# whose neighbour changed) are made; an old plan keeps its file, untouched
sed 's|>1 4</vary>|>1 4 8</vary>|' tests/sweep/tiny.xml > "$tmp/tiny3.xml"
old=$tmp/j1/results/tiny/llama2-7b/h100-80gb/n64/leaf_GBps-12.5+oversubscription-1.xml
[ -f "$old" ] || { echo "no $old"; exit 1; }
touch "$tmp/mark"
sweep_make "$tmp/j1" SWEEP_CONFIG="$tmp/tiny3.xml" sweep > "$tmp/j3.log" 2>&1 ||
    { cat "$tmp/j3.log"; exit 1; }
# 2 sizes x 2 bandwidths x the new value: 4 plans made
[ "$(grep -c '^\[[0-9]*/12\] sweep ' "$tmp/j3.log")" -eq 4 ] ||
    { echo "not 4 points planned:"; cat "$tmp/j3.log"; exit 1; }
[ -z "$(find "$old" -newer "$tmp/mark")" ] || { echo "an old plan was made again"; exit 1; }
[ "$(tail -n +2 "$tmp/j1/results/tiny.csv" | wc -l)" -eq 12 ] || { echo "not 12 rows"; exit 1; }
# a vary's levels changed, then changed back: every point is planned
# again each time (the definition file is rewritten; the old plans were
# made for the other network)
sed 's|levels="leaf" attribute|levels="leaf spine" attribute|' "$tmp/tiny3.xml" > "$tmp/both.xml"
for config in "$tmp/both.xml" "$tmp/tiny3.xml"; do
	sweep_make "$tmp/j1" SWEEP_CONFIG="$config" sweep > "$tmp/j4.log" 2>&1 ||
	    { cat "$tmp/j4.log"; exit 1; }
	[ "$(grep -c '^\[[0-9]*/12\] sweep ' "$tmp/j4.log")" -eq 12 ] ||
	    { echo "$config: not every point planned again:"; cat "$tmp/j4.log"; exit 1; }
done
exit 0
