#!/bin/sh
# Every golden bad-input case (tests/TOOL/bad-*.args, exit 1) again with
# -o into an empty folder (where its form takes -o): exit 1, one line on stderr naming the tool and
# the file, and nothing written, not even a temporary file; within 1 s of
# CPU time and (outside the sanitizer build) 100 MB of address space.
set -u
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
n=0
case $BIN in *san*) limit= ;; *) limit=102400 ;; esac
for args in tests/*/bad-*.args; do
	case_=${args%.args}
	[ "$(cat "$case_.rc" 2>/dev/null)" = 1 ] || continue
	tool=$(basename "$(dirname "$args")")
	mkdir "$tmp/out"
	TESTDIR=$tmp/out
	eval "set -- $(cat "$args")"
	# the forms that write no output (compare-baselines -R, sweep -P
	# and -L) take no -o
	case "$tool: $* " in
	"compare-baselines: -R "* | "sweep: "*"-P "* | "sweep: "*"-L "*) out= ;;
	*) out=$tmp/out/result ;;
	esac
	( ulimit -t 1
	  [ -n "$limit" ] && ulimit -v "$limit"
	  exec "$BIN/$tool" ${out:+-o "$out"} "$@" ) \
	    < /dev/null > "$tmp/stdout" 2> "$tmp/stderr"
	rc=$?
	n=$((n + 1))
	why=
	[ $rc -eq 1 ] || why="exit $rc"
	[ "$(wc -l < "$tmp/stderr")" -eq 1 ] || why="$why; stderr is not one line"
	grep -q "^$tool: [^ ]" "$tmp/stderr" || why="$why; no '$tool: file' message"
	[ -s "$tmp/stdout" ] && why="$why; wrote to stdout"
	[ -z "$(ls -A "$tmp/out")" ] || why="$why; left $(ls -A "$tmp/out" | head -n 3 | tr '\n' ' ')"
	if [ -n "$why" ]; then
		echo "$case_: ${why#; }" >&2
		head -n 3 "$tmp/stderr" >&2
		fail=1
	fi
	rm -rf "$tmp/out"
done
[ $n -ge 40 ] || { echo "only $n bad-input cases" >&2; fail=1; }
exit $fail
