# Every tool reports a write error on a full device and exits 1: its
# output (-o - or none), and its help text (-h and --help, as coreutils
# close_stdout: a help that was not printed is not a success).
set -u
fail=0
check() {	# tool args...
	tool=$1; shift
	"$BIN/$tool" "$@" > /dev/full 2> "$TMPDIR_/err"
	rc=$?
	if [ $rc -ne 1 ] || ! grep -q "write error" "$TMPDIR_/err"; then
		echo "$tool: exit $rc, stderr: $(cat "$TMPDIR_/err")"
		fail=1
	fi
}
TMPDIR_=$(mktemp -d)
check cost-matrix configs/networks/fattree-tpuv4-64.xml
check memmodel -M 1e4 -s tests/memmodel/stages.csv tests/memmodel/layers.csv
check config-check configs/models/llama2-7b.xml
# -o on a device writes in place and reports the error; the device stays
"$BIN/cost-matrix" -o /dev/full configs/networks/fattree-tpuv4-64.xml 2> "$TMPDIR_/err"
rc=$?
[ $rc -eq 1 ] && grep -q "write error on '/dev/full'" "$TMPDIR_/err" ||
    { echo "-o /dev/full: exit $rc: $(cat "$TMPDIR_/err")"; fail=1; }
[ -c /dev/full ] || { echo "/dev/full is no longer a device"; fail=1; }
check graph-normalize tests/graph-normalize/tiny
for tool in cost-matrix memmodel config-check graph-normalize dpsolve sweep \
    compare-baselines; do
	check "$tool" -h
	check "$tool" --help
done
rm -rf "$TMPDIR_"
exit $fail
