#!/bin/sh
# The shell tools write their outputs as the C tools do (tools/output.sh):
# a FIFO, a device, a folder or a symbolic link given as an output is
# refused with one line and exit 1, before any work, and left as it was
# (renaming over it would have replaced it: a FIFO became a regular file,
# and as root a device node would have).  A golden case per tool; then
# validate's refusal of an empty and a header-only runs table, and a
# regular output replaced whole with no temporary left beside it.
set -u
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
runs=data/published/megatron-sc21-table1.csv
mkfifo "$tmp/fifo"
mkdir "$tmp/dir"
ln -s "$tmp/elsewhere" "$tmp/link"
kinds="fifo|a FIFO
dir|a directory
link|a symbolic link"
# a character device of our own (as /dev/null), where we may make one
mknod "$tmp/dev" c 1 3 2>/dev/null && kinds="$kinds
dev|a device"

state() {	# what a path is, to see it unchanged
	ls -ld "$1" | cut -c1
}

expect() {	# name rc-wanted err-wanted command...
	name=$1 want_rc=$2 want_err=$3
	shift 3
	"$@" > "$tmp/out" 2> "$tmp/err"
	rc=$?
	if [ "$rc" != "$want_rc" ] || [ "$(cat "$tmp/err")" != "$want_err" ]; then
		echo "$name: exit $rc, stderr:" >&2
		cat "$tmp/err" >&2
		echo "wanted exit $want_rc and: $want_err" >&2
		fail=1
	fi
}

echo "$kinds" | while IFS='|' read -r t why; do
	p=$tmp/$t
	before=$(state "$p")
	expect "validate $t" 1 "validate: cannot write '$p': $why, not a regular file" \
	    sh tools/validate.sh "$BIN" "$p" "$runs"
	expect "validate-sensitivity $t" 1 \
	    "validate-sensitivity: cannot write '$p': $why, not a regular file" \
	    sh tools/validate-sensitivity.sh "$BIN" "$p" "$runs"
	expect "bench $t" 1 "bench: cannot write '$p': $why, not a regular file" \
	    sh tools/bench.sh "$BIN" "$p"
	[ "$(state "$p")" = "$before" ] ||
	    { echo "$t: changed from $before to $(state "$p")" >&2; fail=1; }
	exit $fail
done || fail=1
# plot.sh writes FIGURE.png and FIGURE.svg into a folder
mkdir "$tmp/plots"
mkfifo "$tmp/plots/fig5.svg"
expect "plot fifo" 1 "plot: cannot write '$tmp/plots/fig5.svg': a FIFO, not a regular file" \
    sh tools/plot.sh fig5 tests/expected "$tmp/plots"
[ -p "$tmp/plots/fig5.svg" ] && [ ! -e "$tmp/plots/fig5.png" ] ||
    { echo "plot: the FIFO or the folder changed" >&2; ls -l "$tmp/plots" >&2; fail=1; }

# runs tables with no runs
: > "$tmp/empty.csv"
head -n 1 "$runs" > "$tmp/header.csv"
expect "validate empty" 1 "validate: $tmp/empty.csv: empty, not a runs table" \
    sh tools/validate.sh "$BIN" "$tmp/v.csv" "$tmp/empty.csv"
expect "validate header-only" 1 "validate: $tmp/header.csv:1: a header and no runs" \
    sh tools/validate.sh "$BIN" "$tmp/v.csv" "$tmp/header.csv"
[ -e "$tmp/v.csv" ] && { echo "validate wrote $tmp/v.csv for no runs" >&2; fail=1; }

# a regular file is replaced, whole, and nothing is left beside it
echo old > "$tmp/plots/fig7.png"
sh tools/plot.sh fig7 tests/expected "$tmp/plots" 2> "$tmp/err" ||
    { cat "$tmp/err" >&2; fail=1; }
head -c 8 "$tmp/plots/fig7.png" | od -An -c | grep -q 'P   N   G' ||
    { echo "plot: fig7.png not replaced by a PNG" >&2; fail=1; }
left=$(find "$tmp" -name '*.tmp*')
[ -z "$left" ] || { echo "left behind: $left" >&2; fail=1; }
exit $fail
