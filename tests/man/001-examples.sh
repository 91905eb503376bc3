# Every EXAMPLES line (.Dl) of every manual page runs and succeeds, and
# every flag of each SYNOPSIS appears in the tool's usage line.
# Examples run in a scratch folder that mirrors the repository (and
# ../shared), so what they write stays under this test's temporary folder.
set -u
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
top=$(pwd)
BIN=$(cd "$BIN" && pwd)
mkdir "$tmp/run"
for entry in bin configs tests tools results; do
	ln -s "$top/$entry" "$tmp/run/$entry"
done
[ -d ../shared ] && ln -s "$(cd ../shared && pwd)" "$tmp/shared"
for page in tools/*.1; do
	tool=$(basename "$page" .1)
	sed -n '/^\.Sh EXAMPLES/,/^\.Sh /s/^\.Dl //p' "$page" > "$tmp/cmds"
	[ -s "$tmp/cmds" ] || { echo "$page: no examples"; fail=1; }
	while IFS= read -r cmd; do
		cmd=$(printf '%s' "$cmd" | sed "s|^bin/|$BIN/|")
		if ! (cd "$tmp/run" && sh -c "$cmd") > /dev/null 2> "$tmp/err"; then
			echo "$page: failed: $cmd"; cat "$tmp/err"; fail=1
		fi
	done < "$tmp/cmds"
	usage=$("$BIN/$tool" -h)
	printf '%s\n' "$usage" > "$tmp/help"
	"$BIN/$tool" --help | cmp -s - "$tmp/help" ||
	    { echo "$tool: --help is not -h"; fail=1; }
	for flag in $(sed -n '/^\.Sh SYNOPSIS/,/^\.Sh DESC/s/^\.\(Op \)\{0,1\}Fl \([A-Za-z]\).*/\2/p' "$page"); do
		# -f, or f inside a bundle such as [-hv], then a space or ]
		printf '%s\n' "$usage" |
		    grep -Eq -- "(^| |\[)-[A-Za-z]*$flag[A-Za-z]*( |\]|$)" ||
		    { echo "$page: -$flag in SYNOPSIS but not in '$usage'"; fail=1; }
	done
done
exit $fail
