#!/bin/sh
# ^C at any point leaves nothing a later make takes as done: make builds
# the fig5 table and plots in a workspace of its own, is interrupted
# (SIGINT to its whole process group, as a terminal's ^C) three times at
# different points, each time leaving no temporary file behind, then
# finishes; the table must be what make regress expects and the plots
# whole.  Only with the release tools (BIN=bin): the Makefile runs those.
set -u
[ "$BIN" = bin ] || exit 0
command -v setsid >/dev/null 2>&1 && command -v perl >/dev/null 2>&1 ||
    { echo "# no setsid or perl: skipped"; exit 0; }
top=$(pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
w=$tmp/w
mkdir -p "$w/build" "$w/results" "$w/plots"
for f in configs tools data tests Makefile bin; do
	ln -s "$top/$f" "$w/$f"
done
# the compiled tree as it is (timestamps kept, so make rebuilds nothing
# of it); results and rows from scratch
cp -pR build/rel build/deps.ok build/experiments.mk "$w/build/"
art=${ARTIFACT:-../shared/nest-artifact}
case $art in /*) ;; *) art=$top/$art ;; esac
goals="results/fig5.csv plots/fig5.png plots/placement-bertlarge.png"

n_stopped=0
for delay in 1 2 3; do
	# a background job of a script starts with SIGINT ignored, which
	# make would keep; perl (perl-base, in every Debian) restores it
	( cd "$w" && MAKEFLAGS= MAKELEVEL= exec setsid perl -e '$SIG{INT} = "DEFAULT"; exec @ARGV' \
	    make -s -j2 ARTIFACT="$art" $goals > "$tmp/make.log" 2>&1 ) &
	pid=$!
	sleep "$delay"
	# setsid made make the leader of its own process group, $pid
	kill -s INT -- "-$pid" 2>/dev/null
	wait $pid
	rc=$?
	[ $rc -ne 0 ] && n_stopped=$((n_stopped + 1))
	left=$(find "$w/results" "$w/plots" "$w/build/rows" -name '*.tmp*' \
	    2>/dev/null | head -n 3)
	if [ -n "$left" ]; then
		echo "interrupted after $delay s, left: $left" >&2
		exit 1
	fi
done
# a machine so fast that make finished first has tested nothing
[ $n_stopped -gt 0 ] || { echo "make was never interrupted" >&2; exit 1; }
( cd "$w" && MAKEFLAGS= MAKELEVEL= make -s -j2 ARTIFACT="$art" $goals ) > "$tmp/make.log" 2>&1 ||
    { cat "$tmp/make.log" >&2; exit 1; }
bin/compare-baselines -R -t 1e-9 tests/expected/fig5.csv "$w/results/fig5.csv" ||
    exit 1
for p in fig5 placement-bertlarge; do
	head -c 8 "$w/plots/$p.png" | od -An -c | grep -q 'P   N   G' ||
	    { echo "plots/$p.png is not a whole PNG" >&2; exit 1; }
	tail -c 16 "$w/plots/$p.svg" | grep -q '</svg>' ||
	    { echo "plots/$p.svg is cut short" >&2; exit 1; }
done
exit 0
