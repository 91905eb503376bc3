#!/bin/sh
# make from scratch, stopped at any point, by ^C or by SIGKILL (the OOM
# killer, a lost session), leaves nothing a later make takes as done:
# in a copy of the tree (the files git tracks or would, as a fresh clone
# has them), `make all` is interrupted four times at different points,
# twice by SIGINT to its whole process group (as a terminal's ^C) and
# twice by SIGKILL, then finishes.  Then: no temporary file is left (a
# killed run's are removed by the next make, tools/stale-temps.sh), the
# results tables are what make regress expects, every plot is whole, and
# a second make has nothing to do (make -q all exits 0: no target that
# is never written, no phony prerequisite, no time stamp out of order).
# Only with the release tools (BIN=bin): the Makefile runs those.
set -u
[ "$BIN" = bin ] || exit 0
command -v setsid >/dev/null 2>&1 && command -v perl >/dev/null 2>&1 ||
    { echo "# no setsid or perl: skipped"; exit 77; }
top=$(pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
w=$tmp/w
. tests/make/tree.inc
copy_tree "$w"
art=${ARTIFACT:-../shared/nest-artifact}
case $art in /*) ;; *) art=$top/$art ;; esac
export ARTIFACT="$art"

# Is any process of group $1 alive (not a zombie)?  From /proc, as a
# minimal system has no ps: fields 3 and 5 of /proc/PID/stat, after the
# name in parentheses, are the state and the group.
alive_in_group() {
	[ -d /proc/self ] || { sleep 1; return 1; }
	for st in /proc/[0-9]*/stat; do
		sed 's/.*) //' "$st" 2>/dev/null
	done | awk -v g="$1" '$3 == g && $1 !~ /^[ZX]/ { f = 1 } END { exit !f }'
}

stopped_int=0 stopped_kill=0
for round in INT:2 KILL:5 INT:9 KILL:14; do
	sig=${round%:*}
	# a background job of a script starts with SIGINT ignored, which
	# make would keep; perl (perl-base, in every Debian) restores it
	( cd "$w" && MAKEFLAGS= MAKELEVEL= exec setsid perl -e \
	    '$SIG{INT} = "DEFAULT"; exec @ARGV' make -s -j2 all ) \
	    > "$tmp/make.log" 2>&1 &
	pid=$!
	sleep "${round#*:}"
	# setsid made make the leader of its own process group, $pid
	kill -s "$sig" -- "-$pid" 2>/dev/null
	wait $pid
	rc=$?
	# every process of the stopped group gone (a link that gcc's
	# collect2 lets finish, a tool dying), as they are by the time anyone
	# runs make again; zombies, dead and not yet reaped, do not count
	n=0
	while alive_in_group "$pid" && [ $n -lt 100 ]; do
		sleep 0.1
		n=$((n + 1))
	done
	[ $rc -ne 0 ] || continue
	[ "$sig" = INT ] && stopped_int=$((stopped_int + 1))
	[ "$sig" = KILL ] && stopped_kill=$((stopped_kill + 1))
	# ^C: make and the tools clean up after themselves at once (a
	# link that gcc's collect2 lets finish after the recipe's shell
	# removed its temporary may leave a whole one in bin/ or build/,
	# which the next make removes, as after SIGKILL)
	if [ "$sig" = INT ]; then
		left=$(find "$w/results" "$w/plots" "$w/build/rows" \
		    "$w/build/artifact-rows" -name '*.tmp*' 2>/dev/null |
		    head -n 3)
		[ -z "$left" ] ||
		    { echo "interrupted after ${round#*:} s, left: $left" >&2; exit 1; }
	fi
done
# a machine so fast that make finished first has tested nothing
[ $stopped_int -gt 0 ] && [ $stopped_kill -gt 0 ] ||
    { echo "make was stopped $stopped_int times by SIGINT, $stopped_kill by SIGKILL" >&2; exit 1; }
( cd "$w" && MAKEFLAGS= MAKELEVEL= make -s -j2 all ) > "$tmp/make.log" 2>&1 ||
    { cat "$tmp/make.log" >&2; exit 1; }

left=$(find "$w" -name '*.tmp*' | head -n 3)
[ -z "$left" ] || { echo "left after the last make: $left" >&2; exit 1; }
for t in "$w"/tests/expected/*.csv; do
	bin/compare-baselines -R -t 1e-9 "$t" "$w/results/${t##*/}" || exit 1
done
n=0
for p in "$w"/plots/*.png; do
	head -c 8 "$p" | od -An -c | grep -q 'P   N   G' ||
	    { echo "${p#"$w"/} is not a whole PNG" >&2; exit 1; }
	tail -c 16 "${p%.png}.svg" | grep -q '</svg>' ||
	    { echo "${p#"$w"/}: its SVG is cut short" >&2; exit 1; }
	n=$((n + 1))
done
[ $n -gt 0 ] || { echo "no plots were drawn" >&2; exit 1; }
( cd "$w" && MAKEFLAGS= MAKELEVEL= make -q all ) ||
    { echo "make -q all: a second make would run:" >&2
      ( cd "$w" && MAKEFLAGS= MAKELEVEL= make -n all ) 2>&1 |
          head -n 10 >&2
      exit 1; }
exit 0
