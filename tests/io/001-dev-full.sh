# Every tool reports a write error on a full device and exits 1.
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
rm -rf "$TMPDIR_"
exit $fail
