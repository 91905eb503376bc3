#!/bin/sh
# Run the whole suite and print TAP: C unit tests, golden cases and script
# cases.  Run from the top of the repository.
#   usage: tests/run.sh BINDIR UNITDIR [tag]
#
# Golden case tests/<tool>/<NNN-what>.args: runs BINDIR/<tool> with those
# arguments (shell words; paths relative to the repository), stdin from
# .in (or /dev/null), and compares stdout with .out, stderr with .err
# (absent: must be empty) and the exit status with .rc (absent: 0).
# An .args file may name $TESTDIR, an empty folder of the case's own.
# Script case tests/<dir>/<NNN-what>.sh: runs with BIN set; exit 0 passes,
# exit 77 skips (its last line of output says why); it keeps what it
# writes under its own mktemp -d folder.
#
# The TAP goes to standard output; standard error hears a line as each
# group ends (a unit binary, a tool's golden cases, a folder's scripts)
# with its counts and seconds, and the whole run's at the end.
set -u
BIN=$1
UNITDIR=$2
TAG=${3:-}
export BIN
n=0
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
started=$(date +%s)
group=
group_n=0
group_fail=0
group_start=$started

# progress GROUP: the tests that follow belong to GROUP; the group
# before it, if another, is over: its line on standard error
progress() {
	[ "$1" = "$group" ] && return
	if [ -n "$group" ]; then
		printf '# %s%-28s %4d ok' "$TAG${TAG:+ }" "$group" \
		    $((group_n - group_fail)) >&2
		[ $group_fail -gt 0 ] && printf ', %d FAILED' $group_fail >&2
		printf ' (%d s)\n' $(($(date +%s) - group_start)) >&2
	fi
	group=$1
	group_n=0
	group_fail=0
	group_start=$(date +%s)
}

report() {	# status name [diagnostics file]
	n=$((n + 1))
	group_n=$((group_n + 1))
	[ "$1" = ok ] || group_fail=$((group_fail + 1))
	if [ "$1" = ok ]; then
		echo "ok $n - $TAG${TAG:+ }$2"
	else
		fail=$((fail + 1))
		echo "not ok $n - $TAG${TAG:+ }$2"
		[ -n "${3:-}" ] && [ -s "$3" ] && sed 's/^/# /' "$3" | head -n 40
	fi
}

for t in "$UNITDIR"/t-*; do
	[ -x "$t" ] || continue
	name=unit/$(basename "$t")
	progress "$name"
	"$t" > "$tmp/unit.out" 2>&1
	rc=$?
	grep -E '^(not )?ok ' "$tmp/unit.out" | while IFS= read -r line; do
		echo "$line"
	done > "$tmp/unit.lines"
	while IFS= read -r line; do
		case $line in
		"not ok"*) report "not ok" "$name: ${line#not ok * - }" "$tmp/unit.out" ;;
		ok*) report ok "$name: ${line#ok * - }" ;;
		esac
	done < "$tmp/unit.lines"
	if [ $rc -ne 0 ] && ! grep -q '^not ok' "$tmp/unit.lines"; then
		report "not ok" "$name: exit status $rc" "$tmp/unit.out"
	fi
done

for args in tests/*/*.args; do
	[ -f "$args" ] || continue
	dir=$(dirname "$args")
	tool=$(basename "$dir")
	case_=${args%.args}
	name=$tool/$(basename "$case_")
	progress "$tool (golden)"
	in=/dev/null
	[ -f "$case_.in" ] && in=$case_.in
	# $TESTDIR in an .args file: an empty folder of this case's own
	TESTDIR=$tmp/case
	rm -rf "$TESTDIR" && mkdir "$TESTDIR"
	eval "set -- $(cat "$args")"
	"$BIN/$tool" "$@" < "$in" > "$tmp/out" 2> "$tmp/err"
	rc=$?
	want_rc=0
	[ -f "$case_.rc" ] && want_rc=$(cat "$case_.rc")
	: > "$tmp/diag"
	if [ -f "$case_.out" ]; then
		cmp -s "$tmp/out" "$case_.out" ||
		    diff "$case_.out" "$tmp/out" > "$tmp/diag"
	elif [ -s "$tmp/out" ]; then
		echo "unexpected stdout:" > "$tmp/diag"; cat "$tmp/out" >> "$tmp/diag"
	fi
	if [ -f "$case_.err" ]; then
		cmp -s "$tmp/err" "$case_.err" ||
		    { echo "stderr:"; diff "$case_.err" "$tmp/err"; } >> "$tmp/diag"
	elif [ -s "$tmp/err" ]; then
		{ echo "unexpected stderr:"; cat "$tmp/err"; } >> "$tmp/diag"
	fi
	[ "$rc" = "$want_rc" ] ||
	    echo "exit status $rc, want $want_rc" >> "$tmp/diag"
	if [ -s "$tmp/diag" ]; then
		report "not ok" "$name" "$tmp/diag"
	else
		report ok "$name"
	fi
done

for script in tests/*/*.sh; do
	[ -f "$script" ] || continue
	name=$(basename "$(dirname "$script")")/$(basename "$script" .sh)
	progress "$(basename "$(dirname "$script")") (scripts)"
	sh "$script" > "$tmp/diag" 2>&1
	case $? in
	0) report ok "$name" ;;
	77) report ok "$name # SKIP $(tail -n 1 "$tmp/diag")" ;;
	*) report "not ok" "$name" "$tmp/diag" ;;
	esac
done

progress ""
echo "1..$n"
echo "# $TAG${TAG:+: }$((n - fail)) passed, $fail failed"
echo "# $TAG${TAG:+: }$((n - fail)) passed, $fail failed in $(($(date +%s) - started)) s" >&2
[ $fail -eq 0 ]
