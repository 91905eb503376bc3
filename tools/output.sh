# output.sh - how the shell tools put an output in place, as the C tools
# do (tools/lib/base/util.c, outfile_open): the output is written to a
# temporary file beside it, PATH.tmp.PID, and renamed over PATH only when
# complete, so a run that fails or is killed leaves PATH as it was (a
# temporary left by a killed run is removed by the next make: its process
# is gone).  rename replaces whatever PATH is, so only a regular file, or
# a new one, is replaced; a FIFO, a device, a folder or a symbolic link
# is refused with one line on standard error and exit 1, before any work
# is done.  Sourced by the tools:
#
#   . "$(dirname "$0")/output.sh"
#   out_check TOOL PATH...     refuse a non-regular output (exit 1)
#   out_commit TOOL PATH       rename PATH.tmp.PID (the file written) over
#                              PATH, checked again
#   out_cleanup PATH...        remove their PATH.tmp.PID (in a trap)

out_check() {	# tool path...
	_tool=$1
	shift
	for _p in "$@"; do
		if [ -L "$_p" ]; then
			_why="a symbolic link"
		elif [ -d "$_p" ]; then
			_why="a directory"
		elif [ -p "$_p" ]; then
			_why="a FIFO"
		elif [ -b "$_p" ] || [ -c "$_p" ]; then
			_why="a device"
		elif [ -e "$_p" ] && [ ! -f "$_p" ]; then
			_why="a socket"
		else
			continue
		fi
		echo "$_tool: cannot write '$_p': $_why, not a regular file" >&2
		exit 1
	done
}

out_commit() {	# tool path
	out_check "$1" "$2"
	mv -f "$2.tmp.$$" "$2"
}

out_cleanup() {	# path...
	for _p in "$@"; do
		rm -f "$_p.tmp.$$"
	done
}
