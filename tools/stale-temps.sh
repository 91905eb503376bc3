#!/bin/sh
# stale-temps.sh - remove the temporaries of runs that were killed.
#
#   sh tools/stale-temps.sh DIR...
#
# The tools and the Makefile's recipes write every output as
# PATH.tmp.PID and rename it into place when complete (tools/output.sh,
# tools/lib/base/util.c, the Makefile's TMP), so a run killed by SIGKILL
# (the OOM killer, a lost session) leaves such a file and nothing half
# written under PATH.  make runs this as it starts: a temporary whose
# process no longer exists is removed; one of a running process (another
# make in the same tree) is left alone.
for dir in "$@"; do
	[ -d "$dir" ] || continue
	find "$dir" -name '*.tmp.[0-9]*' ! -type d 2>/dev/null
done | while IFS= read -r f; do
	pid=${f##*.tmp.}
	case $pid in *[!0-9]*) continue ;; esac
	if [ -r "/proc/$pid/stat" ]; then
		# alive unless a zombie (dead, not yet reaped)
		state=$(sed 's/.*) //' "/proc/$pid/stat" 2>/dev/null | cut -c1)
		case $state in Z | X | "") rm -f "$f" ;; esac
	elif [ ! -d /proc/self ]; then
		kill -0 "$pid" 2>/dev/null || rm -f "$f"	# no /proc
	else
		rm -f "$f"
	fi
done
exit 0
