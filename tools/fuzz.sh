#!/bin/sh
# make fuzz: run every libFuzzer harness of tests/fuzz, report executions.
#   usage: tools/fuzz.sh --toolchain CC
#          tools/fuzz.sh --run SECONDS NAME...
#          tools/fuzz.sh --merge NAME...
#
# --toolchain checks that CC builds a libFuzzer program (clang and its
# runtime, Debian's clang and libclang-rt-N-dev); as root it installs them,
# otherwise it stops with the apt-get line.
#
# --run gives each harness SECONDS on one core, its growing corpus in
# build/fuzz/corpus/NAME seeded from the saved one (tests/fuzz/corpus/NAME),
# then prints one row a harness (executions, new inputs, crashes) and adds
# it to build/fuzz/campaign.csv, the running total over every run.  A crash
# is copied into tests/fuzz/corpus/NAME, where make check replays it, and
# fails the run.
#
# --merge adds to tests/fuzz/corpus/NAME only the inputs of
# build/fuzz/corpus/NAME that reach code the saved corpus does not.
set -u
top=build/fuzz

case ${1:-} in
--toolchain)
	cc=${2:-clang}
	t=$(mktemp -d)
	trap 'rm -rf "$t"' EXIT
	printf '#include <stdint.h>\n#include <stddef.h>\nint LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }\n' > "$t/f.c"
	if "$cc" -fsanitize=fuzzer,address,undefined -o "$t/f" "$t/f.c" \
	    >/dev/null 2>&1; then
		exit 0
	fi
	if command -v apt-cache >/dev/null 2>&1; then
		v=$(apt-cache depends clang 2>/dev/null |
		    sed -n 's/.*Depends: clang-\([0-9][0-9]*\)$/\1/p' | head -n 1)
	fi
	pkgs="clang libclang-rt-${v:-14}-dev"
	if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
		echo "fuzz: installing $pkgs"
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
		    --no-install-recommends $pkgs >/dev/null || exit 1
		"$cc" -fsanitize=fuzzer,address,undefined -o "$t/f" "$t/f.c" &&
		    exit 0
	fi
	echo "fuzz: $cc cannot build a libFuzzer harness; run: apt-get install $pkgs" >&2
	exit 1 ;;
--run)
	secs=$2
	shift 2
	mode=run ;;
--merge)
	shift
	mode=merge ;;
*)
	echo "usage: tools/fuzz.sh --toolchain CC | --run SECONDS NAME... | --merge NAME..." >&2
	exit 2 ;;
esac

# Seeds, read afresh from configs/ and tests/ at every run: the configs
# and golden cases each reader is given, good and bad.
seed() {	# name work-folder
	case $1 in
	network|model|accelerator|experiment)
		files="configs/${1}s/*.xml tests/configs/bad/$1/*.xml" ;;
	csv)	files="tests/*/*.csv tests/graph-normalize/*/*.csv" ;;
	layers)	files="tests/memmodel/*.csv tests/dpsolve/tiny*.csv
		    results/layers/h100-80gb/mixtral-8x7b/b1/b1-t1-sp0-e1-c1.csv"
		# the experts' layouts: a batch split with a fold, and an
		# expert tensor group below t (its own collective kinds)
		printf 'layer_id,forward_s,backward_s,parameter_bytes,activation_bytes,input_bytes,context_all_gather_bytes,t,e,c,sp,micro_batch_samples,ep_batch,ep_fold\n0,1,2,10,20,0,5,1,4,1,0,2,1,2\n1,1,2,10,20,4,5,1,4,1,0,2,1,2\n' > "$2/seed-fold"
		printf 'layer_id,forward_s,backward_s,parameter_bytes,activation_bytes,input_bytes,expert_all_gather_bytes,expert_reduce_scatter_bytes,t,e,c,sp,micro_batch_samples,expert_t,tp_overlap\n0,1,2,10,20,0,5,5,4,1,1,1,1,2,c:5:1:2\n1,1,2,10,20,4,0,0,4,1,1,1,1,2,r:3:1:2\n' > "$2/seed-etp"
		# the combined 1F1B's five columns (expert and combine times)
		printf 'layer_id,forward_s,backward_s,weight_gradient_s,expert_forward_s,expert_backward_s,expert_weight_gradient_s,combine_forward_s,combine_backward_s,parameter_bytes,activation_bytes,input_bytes,all_to_all_bytes,t,e,c,sp,micro_batch_samples\n0,1,2,1,0.5,1,0.4,0.1,0.2,10,20,0,5,1,4,1,0,1\n1,1,2,1,0.5,1,0.4,0.1,0.2,10,20,4,5,1,4,1,0,1\n' > "$2/seed-ep-overlap" ;;
	edges)	files="tests/memmodel/edges*.csv" ;;
	speeds)	files="data/variability/*.csv"
		printf 'relative_time\n1\n1.5\n1\n' > "$2/seed-three" ;;
	stages)	files="tests/memmodel/stages*.csv" ;;
	plan)	files="tests/dpsolve/*.xml"
		printf '<plan micro_batch_samples="4"><parallelism p="1" d="2" t="1" sp="0" e="8" c="1" recompute="0" ep_batch="1" ep_fold="2" expert_t="1"/><stage first_layer="-1" last_layer="2" zero_stage="0" zero_degree="1"/></plan>\n' > "$2/seed-fold"
		# FSDP2 and HSDP (plan attributes fsdp, fsdp_shard)
		printf '<plan micro_batch_samples="1"><parallelism p="1" d="4" t="1" sp="0" e="1" c="1" recompute="0" fsdp="1" fsdp_shard="2"/><stage first_layer="-1" last_layer="2" zero_stage="0" zero_degree="1"/></plan>\n' > "$2/seed-fsdp"
		# a plan priced with stragglers (its root's straggler_factor)
		printf '<plan micro_batch_samples="1" straggler_factor="1.25"><parallelism p="1" d="2" t="1" sp="0" e="1" c="1" recompute="0"/><stage first_layer="-1" last_layer="2" zero_stage="0" zero_degree="1"/></plan>\n' > "$2/seed-straggler"
		# Megatron-Core's combined 1F1B (the attribute ep_overlap)
		printf '<plan micro_batch_samples="1"><parallelism p="1" d="2" t="1" sp="0" e="1" c="1" recompute="0" virtual_stages="2" ep_overlap="1"/><stage first_layer="-1" last_layer="0" zero_stage="0" zero_degree="1"/><stage first_layer="1" last_layer="2" zero_stage="0" zero_degree="1"/></plan>\n' > "$2/seed-ep-overlap" ;;
	sweep)	files="configs/sweeps/*.xml tests/sweep/*.xml tests/bad/sweep-*.xml" ;;
	index)	printf 'file,t,e,c,sp,micro_batch_samples,width\na.csv,1,1,1,0,1,1\nb.csv,2,1,1,0,1,2\n' > "$2/seed-index"
		printf 'file,t,e,c,sp,micro_batch_samples,width,ep_batch,expert_t,fp8_recipe,ep_fold\na.csv,1,4,1,0,2,4,1,1,none,2\n' > "$2/seed-fold"
		files="results/layers/h100-80gb/llama2-7b/b1/index.csv" ;;
	opgraph)
		for d in tests/graph-normalize/*/; do
			{ cat "$d/ops.csv"; echo ----; cat "$d/op_edges.csv"
			  echo ----; cat "$d/fused_edges.csv"; } \
			    > "$2/seed-$(basename "$d")" 2>/dev/null
		done
		files= ;;
	esac
	for f in $files; do
		[ -f "$f" ] && cp "$f" "$2/seed-$(echo "$f" | tr / _)"
	done
	return 0
}

# The harnesses write each input to a scratch file (the readers take a
# path); on a memory file system that costs a third less time an input.
if [ -z "${TMPDIR:-}" ] && [ -d /dev/shm ] && [ -w /dev/shm ]; then
	TMPDIR=/dev/shm
	export TMPDIR
fi
campaign=$top/campaign.csv
[ -f "$campaign" ] || echo "harness,seconds,executions,crashes" > "$campaign"
status=0
[ "$mode" = run ] && printf '%-12s %8s %12s %10s %8s\n' harness seconds \
    executions execs_per_s crashes
for name in "$@"; do
	bin=$top/fuzz-$name
	work=$top/corpus/$name
	saved=tests/fuzz/corpus/$name
	mkdir -p "$work" "$saved" "$top/crashes"
	if [ "$mode" = merge ]; then
		before=$(ls "$saved" | wc -l)
		"$bin" -merge=1 "$saved" "$work" > "$top/$name.merge.log" 2>&1 ||
		    { tail -n 20 "$top/$name.merge.log"; exit 1; }
		echo "fuzz: $name: saved corpus $before -> $(ls "$saved" | wc -l) inputs"
		continue
	fi
	log=$top/$name.log
	seed "$name" "$work"
	"$bin" -max_total_time="$secs" -print_final_stats=1 -timeout=10 \
	    -rss_limit_mb=1024 -max_len=65536 \
	    -artifact_prefix="$top/crashes/$name-" "$work" "$saved" \
	    > "$log" 2>&1
	rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
	crashes=0
	# crashes and leaks become replay cases; a slow or large input
	# (timeout-, oom-, slow-unit-) stays in build/fuzz/crashes, reported
	for c in "$top/crashes/$name-"*; do
		[ -f "$c" ] || continue
		case ${c#"$top/crashes/$name-"} in
		crash-* | leak-*) ;;
		*) echo "fuzz: $name: $c (see $log)" >&2
		   crashes=$((crashes + 1))
		   continue ;;
		esac
		sum=$(cksum < "$c" | cut -d' ' -f1)
		cp "$c" "$saved/crash-$sum"
		rm -f "$c"
		crashes=$((crashes + 1))
		echo "fuzz: $name: a crash, saved as $saved/crash-$sum (see $log)" >&2
	done
	[ $rc -ne 0 ] && [ $crashes -eq 0 ] && crashes=1 &&
	    echo "fuzz: $name: exit $rc (see $log)" >&2
	[ $crashes -gt 0 ] && status=1
	printf '%-12s %8d %12d %10d %8d\n' "$name" "$secs" "${execs:-0}" \
	    $(( ${execs:-0} / (secs > 0 ? secs : 1) )) "$crashes"
	echo "$name,$secs,${execs:-0},$crashes" >> "$campaign"
done
if [ "$mode" = run ]; then
	echo "# campaign so far ($campaign): harness, executions, crashes"
	awk -F, 'NR > 1 { e[$1] += $3; c[$1] += $4; s[$1] += $2 }
	    END { for (h in e) printf "%-12s %8d s %12d executions %4d crashes\n", h, s[h], e[h], c[h] }' \
	    "$campaign" | sort
fi
exit $status
