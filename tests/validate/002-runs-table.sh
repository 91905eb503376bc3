# The runs table is read by its header: the same run with its columns in
# another order, CRLF line ends, a byte-order mark, a blank last line and
# the optional columns left out (their default, 0, where the row says
# nothing) comes out as the same row of results/validate.csv; sequence
# parallelism, the distributed optimizer and --tp-comm-overlap reach the
# published plan; TFLOP/s are turned into a step with the count of
# Megatron-LM for the model's shape, in the hardware or the model count, and a
# utilization (MFU, HFU) into TFLOP/s; seq_length prices the run at its
# own sequence; fp8_param_gather reaches the plan; torchtitan's FSDP2
# rows refuse Megatron's modes beside it.  A bad table stops with one line naming the
# file, the line and the field, exit 1, and writes nothing.
set -u
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
table=data/published/megatron-sc21-table1.csv
# sc21-1.7b, columns shuffled, p2p_scatter_gather and tp_grad_blocking
# left out (at t = 1 they change nothing), CRLF
awk -F, -v OFS=, 'NR <= 2 { print $18, $1, $3, $2, $4, $5, $6, $7, $8, $9,
    $10, $11, $12, $13, $14, $15, $19 }' "$table" | sed 's/$/\r/' > "$tmp/shuffled.csv"
sh tools/validate.sh "$BIN" "$tmp/a.csv" "$tmp/shuffled.csv" > /dev/null 2>&1 ||
    { echo "the shuffled table was refused"; fail=1; }
awk -F, -v OFS=, 'NR <= 2' "$table" > "$tmp/plain.csv"
sh tools/validate.sh "$BIN" "$tmp/b.csv" "$tmp/plain.csv" > /dev/null 2>&1 ||
    { echo "the one-run table was refused"; fail=1; }
cmp -s "$tmp/a.csv" "$tmp/b.csv" || { echo "column order or CRLF changed the result"; diff "$tmp/a.csv" "$tmp/b.csv"; fail=1; }

# sequence parallelism and the distributed optimizer, as columns
{ head -n 1 "$table" | sed 's/,measured_tflops/,sequence_parallel,distributed_optimizer,measured_tflops/'
  sed -n 5p "$table" | awk -F, -v OFS=, '{ $17 = $17 ",1,1"; print }'; } > "$tmp/sp.csv"
sh tools/validate.sh "$BIN" "$tmp/sp.out" "$tmp/sp.csv" > /dev/null 2>&1 ||
    { echo "the table with sequence_parallel was refused"; fail=1; }
grep -q '^measured,sc21-18.4b,.*,t8 p1 d32 b8 v1 sp distopt,yes,' "$tmp/sp.out" ||
    { echo "sp and the distributed optimizer not in the published plan"; cat "$tmp/sp.out"; fail=1; }

# a mode column on the same run: in the published plan, and a shorter
# step than the same plan without it.  The parameter gather's overlap
# hides behind the next step's forward pass; --tp-comm-overlap pipelines
# t = 8's collectives with sequence parallelism (refused without it, as
# Megatron-LM asserts: below)
mode_column() {	# short column what
	{ head -n 1 "$table" | sed "s/,measured_tflops/,sequence_parallel,distributed_optimizer,$2,measured_tflops/"
	  sed -n 5p "$table" | awk -F, -v OFS=, '{ $17 = $17 ",1,1,1"; print }'; } > "$tmp/$1.csv"
	VALIDATE_PLANS="$tmp/$1-plans" sh tools/validate.sh "$BIN" "$tmp/$1.out" "$tmp/$1.csv" > /dev/null 2>&1 ||
	    { echo "the table with $2 was refused"; fail=1; }
	grep -q "$2=\"1\"" "$tmp/$1-plans/sc21-18.4b.xml" ||
	    { echo "$2 not in the published plan"; fail=1; }
	awk -F, 'FNR == 2 { s[FILENAME] = $4 } END { exit !(s[ARGV[1]] < s[ARGV[2]]) }' \
	    "$tmp/$1.out" "$tmp/sp.out" ||
	    { echo "$3 did not shorten the step"; fail=1; }
}
mode_column pg overlap_param_gather "the parameter gather's overlap"
mode_column tpo tp_comm_overlap "--tp-comm-overlap"

# --recompute-method block as a column: 2 of the 18.4B run's 40 layers
# recomputed reach the published plan, and its step is shorter than full
# recomputation's; without full recomputation, or with more layers than a
# chunk holds, the row is refused (below, with the other bad tables)
{ head -n 1 "$table" | sed 's/,measured_tflops/,recompute_num_layers,measured_tflops/'
  sed -n 5p "$table" | awk -F, -v OFS=, '{ $17 = $17 ",2"; print }'; } > "$tmp/block.csv"
VALIDATE_PLANS="$tmp/block-plans" sh tools/validate.sh "$BIN" "$tmp/block.out" "$tmp/block.csv" > /dev/null 2>&1 ||
    { echo "the table with recompute_num_layers was refused"; fail=1; }
grep -q 'recompute_layers="2"' "$tmp/block-plans/sc21-18.4b.xml" ||
    { echo "recompute_num_layers not in the published plan"; fail=1; }
{ head -n 1 "$table"; sed -n 5p "$table"; } > "$tmp/full.csv"
sh tools/validate.sh "$BIN" "$tmp/full.out" "$tmp/full.csv" > /dev/null 2>&1 || fail=1
awk -F, 'FNR == 2 { s[FILENAME] = $4 } END { exit !(s[ARGV[1]] < s[ARGV[2]]) }' \
    "$tmp/block.out" "$tmp/full.out" ||
    { echo "block recomputation of 2 layers did not shorten full recomputation's step"; fail=1; }
# and its 135 TFLOP/s count 2 of the 40 layers' forward passes again, not
# all: by hand 12 B s l h^2 ((1 + 2/120) (2 + s/h + 4) + V/2lh) /
# (135e12 x 256) = 7.194166 s (full recomputation's count: 9.399297 s)
awk -F, 'FNR == 2 { d = $3 / 7.19416566451769 - 1; if (d < 0) d = -d
	if (d > 1e-6) { print "block: measured " $3 " s from 135 TFLOP/s, by hand 7.194166"; exit 1 } }' \
    "$tmp/block.out" || fail=1

bad() {	# name expected-message: the table in $tmp/bad.csv
	if sh tools/validate.sh "$BIN" "$tmp/bad.out" "$tmp/bad.csv" > /dev/null 2> "$tmp/err"; then
		echo "$1: accepted"; fail=1; return
	fi
	[ "$(wc -l < "$tmp/err")" -eq 1 ] && grep -q "$2" "$tmp/err" ||
	    { echo "$1: wanted one line with '$2', got:"; cat "$tmp/err"; fail=1; }
	[ ! -e "$tmp/bad.out" ] || { echo "$1: left an output"; fail=1; }
}
sed 's/,micro_batch_samples,/,micro_batch,/' "$tmp/plain.csv" > "$tmp/bad.csv"
bad "missing column" "bad.csv:1: no column \"micro_batch_samples\""
sed '2s/,32,1,1,32,/,33,1,1,32,/' "$tmp/plain.csv" > "$tmp/bad.csv"
bad "t p d not devices" "bad.csv:2: t p d = 32, not devices 33"
sed '2s/,sc21-gpt-1.7b,/,gpt-nine,/' "$tmp/plain.csv" > "$tmp/bad.csv"
bad "unknown model" "bad.csv:2: models \"gpt-nine\": no configs/models/gpt-nine.xml"
sed '2s/,full,/,some,/' "$tmp/plain.csv" > "$tmp/bad.csv"
bad "unknown recomputation" "bad.csv:2: recompute \"some\" is not one of"
sed '2s/,512,16,/,512,-16,/' "$tmp/plain.csv" > "$tmp/bad.csv"
bad "negative micro-batch" "bad.csv:2: micro_batch_samples \"-16\""
sed '2s/,137,/,nan,/' "$tmp/plain.csv" > "$tmp/bad.csv"
bad "NaN throughput" "bad.csv:2: measured_tflops_per_gpu \"nan\""
{ cat "$tmp/plain.csv"; sed -n 2p "$tmp/plain.csv"; } > "$tmp/bad.csv"
bad "a run twice" "bad.csv:3: run \"sc21-1.7b\" twice"
sed '2s/,full,/,none full,/' "$tmp/plain.csv" > "$tmp/bad.csv"
bad "two words for one" "bad.csv:2: recompute \"none full\" is not one of"
sed '1s/,t,p,/,t,p,t,/; 2s/,1,1,32,512/,1,1,1,32,512/' "$tmp/plain.csv" > "$tmp/bad.csv"
bad "a column twice" "bad.csv:1: column \"t\" twice"
sed '2s/,32,1,1,32,/,160,1,5,32,/' "$tmp/plain.csv" > "$tmp/bad.csv"
bad "layers over p" "bad.csv:2: p 5: the model's 24 layers do not split evenly"
sed '2s/,1,1,1,135,/,1,0,1,135,/' "$tmp/pg.csv" > "$tmp/bad.csv"
bad "param gather without distopt" "bad.csv:2: overlap_param_gather 1 needs distributed_optimizer 1"
awk -F, -v OFS=, 'NR == 2 { $13 = 0 } { print }' "$tmp/pg.csv" > "$tmp/bad.csv"
bad "param gather without grad overlap" "bad.csv:2: overlap_param_gather 1 needs overlap_grad_reduce 1"
sed '2s/,1,1,1,135,/,0,1,1,135,/' "$tmp/tpo.csv" > "$tmp/bad.csv"
bad "tp overlap without sp" "bad.csv:2: tp_comm_overlap 1 needs sequence_parallel 1"
# torchtitan's FSDP2 and per-operator checkpointing (data/heldout)
tt=data/heldout/torchtitan-h100.csv
sed -n '1,2p' "$tt" | sed '2s/,local,0,0,0,0,resharded,/,local,0,1,0,0,resharded,/' > "$tmp/bad.csv"
bad "FSDP2 beside the distributed optimizer" "bad.csv:2: fsdp resharded: FSDP2 replaces Megatron's data parallelism"
sed -n '1,2p' "$tt" | sed '2s/,resharded,/,none,/' > "$tmp/bad.csv"
bad "per operator without FSDP2" "bad.csv:2: recompute op: torchtitan's per-operator checkpointing runs beside FSDP2"
sed -n '1,2p' "$tt" | sed '2s/,op,/,selective,/' > "$tmp/bad.csv"
bad "Megatron's selective beside FSDP2" "bad.csv:2: recompute selective: Megatron's, not beside FSDP2"
sed -n '1,2p' "$tt" | sed '2s/,resharded,/,sharded,/' > "$tmp/bad.csv"
bad "unknown FSDP2 mode" "bad.csv:2: fsdp \"sharded\" is not one of: none resharded kept"
sed -n '1,2p' "$tt" | sed '1s/,fsdp,/,fsdp,fsdp_shard,/; 2s/,resharded,/,resharded,3,/' > "$tmp/bad.csv"
bad "HSDP's groups not dividing d" "bad.csv:2: fsdp_shard 3: HSDP needs fsdp and a shard group dividing d 8"
sed -n '1,2p' "$tt" | sed '2s/,8192,fa2,/,8192,fa3,/' > "$tmp/bad.csv"
bad "unknown attention kernel" "bad.csv:2: attention_kernel \"fa3\" is not one of: fused fa2"
sed -n '1,2p' "$tt" | sed '2s/,h100-96gb-hbm2e,/,a100-80gb,/' > "$tmp/bad.csv"
bad "FlashAttention-2 without its rate" "bad.csv:2: attention_kernel fa2: accelerator \"a100-80gb\" has no FlashAttention-2 rate"
rm -f "$tmp/bad.csv"
bad "missing table" "bad.csv: cannot read the runs table"

# a byte-order mark and a blank last line, as editors write them: accepted
{ printf '\357\273\277'; cat "$tmp/plain.csv"; echo; } > "$tmp/bom.csv"
sh tools/validate.sh "$BIN" "$tmp/c.csv" "$tmp/bom.csv" > /dev/null 2>&1 &&
    cmp -s "$tmp/c.csv" "$tmp/b.csv" ||
    { echo "a byte-order mark or a blank line changed the result"; fail=1; }

# the measurement in the forms a publication gives it.  sc21-1.7b:
# B 512, s 2048, l 24, h 2304, V 51200, 32 GPUs at 137 TFLOP/s under full
# recomputation, F = 96 B s l h^2 (1 + s/6h + V/16lh) = 1.5467e16 FLOPs,
# a step of F / (137e12 x 32) = 3.52802 s; the same step as a time, and
# as 512 x 2048 / (3.52802 x 32) = 9287.9 tokens a second a GPU
measure_file() {	# name want: the table $tmp/name.csv gives that step
	sh tools/validate.sh "$BIN" "$tmp/$1.out" "$tmp/$1.csv" > /dev/null 2> "$tmp/err" ||
	    { echo "$1: refused"; cat "$tmp/err"; fail=1; return; }
	awk -F, -v want="$2" -v what="$1" 'NR == 2 { d = $3 - want; if (d < 0) d = -d
		if (d > 1e-5 * want) { print what ": published step " $3 " s, not " want; exit 1 } }' \
	    "$tmp/$1.out" || fail=1
}
measure() {	# name column value step: sc21-1.7b with only that measurement
	{ head -n 1 "$tmp/plain.csv" | sed "s/,measured_tflops_per_gpu,/,$2,/"
	  sed -n 2p "$tmp/plain.csv" | sed "s/,137,/,$3,/"; } > "$tmp/$1.csv"
	measure_file "$1" "$4"
}
measure tflops measured_tflops_per_gpu 137 3.52802
measure step measured_step_s 3.52802 3.52802
measure tokens measured_tokens_per_s_per_gpu 9287.9 3.52802
# without full recomputation the count has no second forward pass:
# 72 B s l h^2 (1 + s/6h + V/12lh) = 1.1786e16 FLOPs, 2.68834 s
sed -i '2s/,full,/,none,/' "$tmp/plain.csv"
measure no-recompute measured_tflops_per_gpu 137 2.68834
sed -i '2s/,none,/,full,/' "$tmp/plain.csv"
# the count of a Megatron-Core log (flops_count model) leaves the
# recomputed forward out: 137 TFLOP/s under full recomputation is then
# the 2.68834 s above; a utilization is a share of the accelerator's
# 312 TFLOP/s: an MFU of 50% is F / (156e12 x 32) = 2.36091 s and an HFU
# of 50% (SC'21's count) 1.5467e16 / (156e12 x 32) = 3.09832 s; with
# selective recomputation the hardware count adds the attention core's
# forward pass, a third of s/h: 72 B s l h^2 (1 + 2s/9h + V/12lh) =
# 1.22609e16 FLOPs, 2.79668 s at 137 TFLOP/s
counted() {	# name count: sc21-1.7b at 137 TFLOP/s counted that way
	{ head -n 1 "$tmp/plain.csv" | sed 's/,measured_tflops_per_gpu,/,flops_count,measured_tflops_per_gpu,/'
	  sed -n 2p "$tmp/plain.csv" | sed "s/,137,/,$2,137,/"; } > "$tmp/$1.csv"
}
counted model-count model
measure_file model-count 2.68834
counted hardware-count hardware
measure_file hardware-count 3.52802
measure mfu measured_mfu_pct 50 2.36091
measure hfu measured_hfu_pct 50 3.09832
sed '2s/,full,/,selective,/' "$tmp/hardware-count.csv" > "$tmp/selective-count.csv"
measure_file selective-count 2.79668
sed '2s/,hardware,137,/,model,137,/' "$tmp/selective-count.csv" > "$tmp/selective-model.csv"
measure_file selective-model 2.68834
sed '2s/,hardware,/,peak,/' "$tmp/hardware-count.csv" > "$tmp/bad.csv"
bad "unknown count" "bad.csv:2: flops_count \"peak\" is not one of: hardware model"
{ head -n 1 "$tmp/plain.csv" | sed 's/,measured_tflops_per_gpu,/,flops_count,measured_hfu_pct,/'
  sed -n 2p "$tmp/plain.csv" | sed 's/,137,/,model,50,/'; } > "$tmp/bad.csv"
bad "HFU counted as the model" "bad.csv:2: flops_count model with measured_hfu_pct: measured_hfu_pct counts the hardware FLOPs"
{ head -n 1 "$tmp/plain.csv" | sed 's/,measured_tflops_per_gpu,/,flops_count,measured_step_s,/'
  sed -n 2p "$tmp/plain.csv" | sed 's/,137,/,model,3.5,/'; } > "$tmp/bad.csv"
bad "a count for a step" "bad.csv:2: flops_count model with measured_step_s: it says how FLOPs were counted"
sed '1s/,measured_tflops_per_gpu,/,measured_mfu_pct,/; 2s/,137,/,101,/' "$tmp/plain.csv" > "$tmp/bad.csv"
bad "MFU above 100" "bad.csv:2: measured_mfu_pct \"101\" is above 100"

{ head -n 1 "$tmp/plain.csv" | sed 's/,measured_tflops_per_gpu,/,measured_step_s,measured_tflops_per_gpu,/'
  sed -n 2p "$tmp/plain.csv" | sed 's/,137,/,3.5,137,/'; } > "$tmp/bad.csv"
bad "two measurements" "bad.csv:2: both measured_step_s and measured_tflops_per_gpu"
sed '1s/,measured_tflops_per_gpu,/,measured_mfu,/' "$tmp/plain.csv" > "$tmp/bad.csv"
bad "no measurement column" "bad.csv:1: no measurement column"
{ head -n 1 "$tmp/plain.csv" | sed 's/,measured_tflops_per_gpu,/,measured_step_s,measured_tflops_per_gpu,/'
  sed -n 2p "$tmp/plain.csv" | sed 's/,137,/,,,/'; } > "$tmp/bad.csv"
bad "no measurement in the row" "bad.csv:2: no measurement"
sed '2s/,137,/,-3,/' "$tmp/plain.csv" > "$tmp/bad.csv"
bad "negative throughput" "bad.csv:2: measured_tflops_per_gpu \"-3\" is not a positive number"

# a run whose batch is smaller than some micro-batch dpsolve may try
# (one GPU, 4 samples): its own plan only from the micro-batches that fit
sed '2s/,32,1,1,32,512,16,/,1,1,1,1,4,4,/' "$tmp/plain.csv" > "$tmp/small.csv"
sh tools/validate.sh "$BIN" "$tmp/small.out" "$tmp/small.csv" > /dev/null 2> "$tmp/err" ||
    { echo "a 4-sample batch was refused:"; cat "$tmp/err"; fail=1; }

# context parallelism and the ends counted in the split (sc21-1.7b, 24
# layers): c 2 over 32 GPUs is t1 p1 c2 d16; with the ends counted,
# p 26 gives each of the graph's 26 rows (embedding, 24 layers, head) a
# stage of its own, which dpsolve -E accepts only if no row is missed or
# repeated
{ head -n 1 "$tmp/plain.csv" | sed 's/,d,/,c,d,ends_in_pipeline_split,/'
  sed -n 2p "$tmp/plain.csv" | sed 's/,32,1,1,32,/,32,1,1,2,16,0,/'
  sed -n 2p "$tmp/plain.csv" | sed 's/^sc21-1.7b,/ends-26,/; s/,32,1,1,32,512,16,/,26,1,26,1,1,1,26,1,/'
} > "$tmp/cp.csv"
sh tools/validate.sh "$BIN" "$tmp/cp.out" "$tmp/cp.csv" > /dev/null 2> "$tmp/err" ||
    { echo "the table with c and ends_in_pipeline_split was refused:"; cat "$tmp/err"; fail=1; }
grep -q '^measured,sc21-1.7b,.*,t1 p1 c2 d16 b16 v1,yes,' "$tmp/cp.out" ||
    { echo "c 2 not in the published plan"; cat "$tmp/cp.out"; fail=1; }
grep -q '^measured,ends-26,.*,t1 p26 d1 b1 v1 ends,yes,' "$tmp/cp.out" ||
    { echo "the 26-stage split with its ends"; cat "$tmp/cp.out"; fail=1; }
sed '3d' "$tmp/cp.csv" | sed '2s/,1,1,2,16,0,/,1,1,2,32,0,/' > "$tmp/bad.csv"
bad "t p c d not devices" "bad.csv:2: t p c d = 64, not devices 32"
sed '3d' "$tmp/cp.csv" | sed '2s/,32,1,1,2,16,0,/,32,1,4,1,8,1,/' > "$tmp/bad.csv"
bad "ends over p" "bad.csv:2: p 4: the model's 24 layers and its two ends do not split evenly"
sed '2d' "$tmp/cp.csv" | sed '2s/,26,1,26,1,1,1,26,1,1,/,26,1,26,1,1,1,26,1,2,/' > "$tmp/bad.csv"
bad "virtual stages over a stage" "bad.csv:2: virtual_stages 2: do not divide the 1 layers a stage"
sed '2s/,32,1,1,32,512,16,1,/,32,1,1,32,512,16,2,/' "$tmp/plain.csv" > "$tmp/bad.csv"
bad "interleaving one stage" "bad.csv:2: virtual_stages 2: interleaving needs p > 1"
sed '2s/,32,1,1,32,512,16,1,/,32,1,2,16,768,16,2,/' "$tmp/plain.csv" > "$tmp/bad.csv"
bad "interleaving, micro-batches over p" "bad.csv:2: virtual_stages 2: the 3 micro-batches are not a multiple of p 2"
sed '2s/,512,16,/,500,16,/' "$tmp/plain.csv" > "$tmp/bad.csv"
bad "batch over d b" "bad.csv:2: global_batch_samples 500 is not a multiple of d x micro_batch_samples = 512"

# the even split as priced (VALIDATE_PLANS; the embedding is row -1, the
# head row 24): with the ends counted, 24 layers and the two ends over
# p 2 are 13 rows a stage, -1..11 and 12..24; without, p 4 gives each
# stage 6 layers, the first the embedding and the last the head too
{ head -n 1 "$tmp/cp.csv"
  sed -n 2p "$tmp/cp.csv" | sed 's/^sc21-1.7b,/split-ends,/; s/,32,1,1,2,16,0,/,32,1,2,1,16,1,/'
  sed -n 2p "$tmp/cp.csv" | sed 's/^sc21-1.7b,/split-even,/; s/,32,1,1,2,16,0,/,32,1,4,1,8,0,/'
} > "$tmp/split.csv"
VALIDATE_PLANS=$tmp/plans sh tools/validate.sh "$BIN" "$tmp/split.out" "$tmp/split.csv" > /dev/null 2> "$tmp/err" ||
    { echo "the split table was refused:"; cat "$tmp/err"; fail=1; }
stages() { sed -n 's/.*<stage [^>]*first_layer="\([-0-9]*\)" last_layer="\([0-9]*\)".*/\1..\2/p' "$1" | tr '\n' ' '; }
[ "$(stages "$tmp/plans/split-ends.xml")" = "-1..11 12..24 " ] ||
    { echo "ends counted, p 2: stages $(stages "$tmp/plans/split-ends.xml"), want -1..11 12..24"; fail=1; }
[ "$(stages "$tmp/plans/split-even.xml")" = "-1..5 6..11 12..17 18..24 " ] ||
    { echo "even split, p 4: stages $(stages "$tmp/plans/split-even.xml"), want -1..5 6..11 12..17 18..24"; fail=1; }
awk -F, -v OFS=, 'NR == 2 { $12 = "none" } 1' "$tmp/block.csv" > "$tmp/bad.csv"
bad "block without full" "recompute_num_layers 2 needs recompute full"
awk -F, -v OFS=, 'NR == 2 { $18 = 41 } 1' "$tmp/block.csv" > "$tmp/bad.csv"
bad "block beyond a chunk" "recompute_num_layers 41: a model chunk has at most 40 layers"

# an uneven split, as Megatron-Core's --decoder-first-pipeline-num-layers
# and --decoder-last-pipeline-num-layers run it: sc21-1.7b's 24 layers
# over p 4 with 3 on the first stage and 5 on the last leave 8 each for
# the two others: -1..2 3..10 11..18 19..24 (the embedding on the first,
# the head, row 24, on the last); refused where the rest does not split
# evenly or beside the ends counted
{ head -n 1 "$tmp/plain.csv" | sed 's/,measured_tflops/,decoder_first_pipeline_num_layers,decoder_last_pipeline_num_layers,measured_tflops/'
  sed -n 2p "$tmp/plain.csv" | sed 's/,32,1,1,32,512,16,/,32,1,4,8,512,16,/' | awk -F, -v OFS=, '{ $17 = $17 ",3,5"; print }'; } > "$tmp/uneven.csv"
VALIDATE_PLANS="$tmp/uneven-plans" sh tools/validate.sh "$BIN" "$tmp/uneven.out" "$tmp/uneven.csv" > /dev/null 2> "$tmp/err" ||
    { echo "the uneven split was refused:"; cat "$tmp/err"; fail=1; }
[ "$(stages "$tmp/uneven-plans/sc21-1.7b.xml")" = "-1..2 3..10 11..18 19..24 " ] ||
    { echo "uneven split: stages $(stages "$tmp/uneven-plans/sc21-1.7b.xml"), want -1..2 3..10 11..18 19..24"; fail=1; }
grep -q '^measured,sc21-1.7b,.*,t1 p4 d8 b16 v1 first3 last5,yes,' "$tmp/uneven.out" ||
    { echo "the uneven split not named in the plan"; cat "$tmp/uneven.out"; fail=1; }
awk -F, -v OFS=, 'NR == 2 { $19 = 6 } 1' "$tmp/uneven.csv" > "$tmp/bad.csv"
bad "uneven rest" "bad.csv:2: p 4: 24 layers less the first stage's 3 and the last's 6 do not split evenly over the other 2"

# TFLOP/s in the count of Megatron-LM for a model that is not GPT-3's
# shape: Mixtral 8x7B (8 of 32 key/value heads, two experts of a gated
# MLP 14,336 wide a token, vocabulary 32,000, s = h = 4,096, 32 layers),
# batch 64 on 32 GPUs at 400 TFLOP/s.  By hand, F = 12 B s l h^2
# ((1 + 8/32 + 1) + 3.5 x 2 x 1.5 + 32000 / (2 x 32 x 4096)) =
# 2.1738994e16 FLOPs, a step of F / (400e12 x 32) = 1.698359 s; under
# full recomputation the layers count 4/3 times: 2.259110 s.
moe() {	# recompute measurement-column value
	printf 'run,model,accelerator,network,devices,t,p,d,global_batch_samples,micro_batch_samples,virtual_stages,recompute,overlap_grad_reduce,gradients,ddp,%s,source\n' "$2"
	printf 'moe,mixtral-8x7b,a100-80gb,selene-a100-4480,32,8,4,1,64,1,1,%s,0,fp32,local,%s,by hand\n' "$1" "$3"
}
for rc_step in none:1.69835891785728 full:2.25910984802304; do
	rc=${rc_step%%:*} step=${rc_step#*:}
	moe "$rc" measured_tflops_per_gpu 400 > "$tmp/moe-tf.csv"
	sh tools/validate.sh "$BIN" "$tmp/moe-tf.out" "$tmp/moe-tf.csv" > /dev/null 2>&1 ||
	    { echo "Mixtral in TFLOP/s ($rc) was refused"; fail=1; }
	awk -F, -v want="$step" -v rc="$rc" '$1 == "measured" { d = $3 / want - 1; if (d < 0) d = -d
		if (d > 1e-6) { print "Mixtral, " rc ": " $3 " s from 400 TFLOP/s, by hand " want; exit 1 } }' \
	    "$tmp/moe-tf.out" || fail=1
done

# expert parallelism as Megatron counts it (columns e, expert_split):
# Mixtral 8x7B on 128 GPUs at t 1 p 4.  Split by samples (the default),
# the 8 expert ranks are 8 of Megatron's d 32, each with its own sample:
# the planner's copy is 8 devices (d 4) with a micro-batch of 8, and the
# plan says so (ep_batch); folded, they are Megatron's c 8, sharing one
# sample: c 1 e 8 d 4 and a micro-batch of 1.  Split beside Megatron's
# c 2, they take both context ranks and 4 of the d 16 (Megatron-Core lays
# them over the context ranks first): a fold of 2 and 4 sample ranks, d 4
# and a micro-batch of 4.  Refused: e not dividing d (split) or c (fold),
# a split beside more context ranks than it has, a split named without e.
ep() {	# name c d e expert_split
	printf 'run,model,accelerator,network,devices,t,p,c,d,e,expert_split,global_batch_samples,micro_batch_samples,virtual_stages,recompute,overlap_grad_reduce,gradients,ddp,distributed_optimizer,measured_step_s,source\n'
	printf '%s,mixtral-8x7b,a100-80gb,selene-a100-4480,128,1,4,%s,%s,%s,%s,256,1,1,none,1,bf16,local,1,10,by hand\n' "$1" "$2" "$3" "$4" "$5"
}
{ ep split 1 32 8 ""; ep fold 8 4 8 fold | tail -n 1; ep both 2 16 8 "" | tail -n 1; } > "$tmp/ep.csv"
VALIDATE_PLANS="$tmp/ep-plans" sh tools/validate.sh "$BIN" "$tmp/ep.out" "$tmp/ep.csv" > /dev/null 2> "$tmp/err" ||
    { echo "the expert-parallel runs were refused:"; cat "$tmp/err"; fail=1; }
grep -q '^measured,split,.*,t1 p4 d32 e8 b1 v1 distopt,' "$tmp/ep.out" ||
    { echo "the split run's plan label"; cat "$tmp/ep.out"; fail=1; }
grep -q '^measured,fold,.*,t1 p4 c8 d4 e8 fold b1 v1 distopt,' "$tmp/ep.out" ||
    { echo "the folded run's plan label"; cat "$tmp/ep.out"; fail=1; }
grep -q 'micro_batch_samples="8"' "$tmp/ep-plans/split.xml" &&
    grep -q '<parallelism [^>]*d="4" t="1" sp="0" e="8" c="1" .*ep_batch="1"' "$tmp/ep-plans/split.xml" ||
    { echo "the split run priced as: $(cat "$tmp/ep-plans/split.xml")"; fail=1; }
grep -q '^measured,both,.*,t1 p4 c2 d16 e8 b1 v1 distopt,' "$tmp/ep.out" ||
    { echo "the split-and-folded run's plan label"; cat "$tmp/ep.out"; fail=1; }
grep -q 'micro_batch_samples="4"' "$tmp/ep-plans/both.xml" &&
    grep -q '<parallelism [^>]*d="4" t="1" sp="0" e="8" c="1" .*ep_batch="1" ep_fold="2"' "$tmp/ep-plans/both.xml" ||
    { echo "the split-and-folded run priced as: $(cat "$tmp/ep-plans/both.xml")"; fail=1; }
grep -q 'micro_batch_samples="1"' "$tmp/ep-plans/fold.xml" &&
    grep -q '<parallelism [^>]*d="4" t="1" sp="0" e="8" c="1" ' "$tmp/ep-plans/fold.xml" &&
    ! grep -q 'ep_batch' "$tmp/ep-plans/fold.xml" ||
    { echo "the folded run priced as: $(cat "$tmp/ep-plans/fold.xml")"; fail=1; }
{ ep split 1 32 8 "" | head -n 1; ep bad 1 32 8 "" | tail -n 1 | sed 's/,128,1,4,1,32,8,/,96,1,4,1,24,16,/'; } > "$tmp/bad.csv"
bad "e not dividing d" "bad.csv:2: e 16 does not divide d 24"
ep bad 16 2 8 "" > "$tmp/bad.csv"
bad "a split beside more c" "bad.csv:2: e 8 with c 16: a batch split beside context parallelism takes the c context ranks and e/c data-parallel ranks (e a multiple of c above it, e/c dividing d 2)"
ep bad 4 8 8 fold > "$tmp/bad.csv"
bad "e not dividing c" "bad.csv:2: e 8 does not divide c 4"
ep bad 1 32 1 batch > "$tmp/bad.csv"
bad "a split without e" "bad.csv:2: expert_split batch needs e > 1"
ep bad 1 32 16 "" > "$tmp/bad.csv"
bad "e above the experts" "bad.csv:2: e 16: does not divide the 8 experts of mixtral-8x7b"

# where a predicted step goes: the five parts sum to it, and the fill and
# drain over the busy slots is the interleaved 1F1B schedule's (p - 1) /
# (v m) (Narayanan et al. 2021, Section 2.2.2): sc21-145.6b, p 8, v 2,
# m = 2304 / (24 x 2) = 48 micro-batches: 7 / 96 = 0.0729167; the
# single-GPU-wide sc21-1.7b (t 1, p 1) has no collectives, no
# point-to-point traffic and no bubble
{ head -n 1 "$table"; sed -n 2p "$table"; sed -n 8p "$table"; } > "$tmp/parts.csv"
sh tools/validate.sh "$BIN" "$tmp/parts.out" "$tmp/parts.csv" > /dev/null 2> "$tmp/err" ||
    { echo "the two-run table was refused"; cat "$tmp/err"; fail=1; }
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
$1 == "measured" {
	busy = $c["compute_s"] + $c["collectives_s"] + $c["p2p_s"]
	sum = busy + $c["bubble_s"] + $c["exposed_sync_s"]
	if (sum / $c["predicted"] - 1 > 1e-5 || 1 - sum / $c["predicted"] > 1e-5) { print $2 ": the parts sum to " sum " s, the step is " $c["predicted"]; bad = 1 }
	if ($2 == "sc21-145.6b" && ($c["bubble_s"] / busy - 7 / 96 > 1e-5 || 7 / 96 - $c["bubble_s"] / busy > 1e-5)) { print $2 ": bubble over busy " $c["bubble_s"] / busy ", not 7/96"; bad = 1 }
	if ($2 == "sc21-1.7b" && ($c["collectives_s"] != 0 || $c["p2p_s"] != 0 || $c["bubble_s"] != 0)) { print $2 ": collectives, p2p or bubble at t 1 p 1"; bad = 1 }
	n++
}
END { if (n != 2) { print n " runs priced, not 2"; bad = 1 } exit bad }' "$tmp/parts.out" || fail=1

# seq_length: the run's sequence where it is not the model config's.
# Llama 3 8B's run on a DGX B200 (data/heldout, 8,192 tokens, the
# config's) told at 4,096: its published step is the batch's tokens over
# the measured rate, 128 x 4,096 / (30,624 x 8) = 2.1400 s (4.2800 at
# 8,192), and its priced step shorter than at 8,192
dense=data/heldout/megatron-bridge-dense.csv
{ head -n 1 "$dense"
  grep '^mbridge2511-llama3-8b-b200-fp8,' "$dense" |
      sed 's/,tensorwise,1,,30624,/,tensorwise,1,4096,30624,/'; } > "$tmp/seq.csv"
grep -q ',tensorwise,1,4096,30624,' "$tmp/seq.csv" ||
    { echo "seq_length: the row was not rewritten"; fail=1; }
grep '^mbridge2511-llama3-8b-b200-fp8,' "$dense" |
    { head -n 1 "$dense"; cat; } > "$tmp/seq8k.csv"
sh tools/validate.sh "$BIN" "$tmp/seq.out" "$tmp/seq.csv" > /dev/null 2>&1 &&
VALIDATE_PLANS="$tmp/seq8k-plans" sh tools/validate.sh "$BIN" "$tmp/seq8k.out" "$tmp/seq8k.csv" > /dev/null 2>&1 ||
    { echo "the table with seq_length was refused"; fail=1; }
awk -F, '$1 == "measured" { pub[FILENAME] = $3; got[FILENAME] = $4 }
END {
	a = ARGV[1]; b = ARGV[2]
	if (pub[a] < 2.13995 || pub[a] > 2.14005) { print "seq_length 4096: published step " pub[a] ", not 2.1400"; bad = 1 }
	if (pub[b] < 4.2799 || pub[b] > 4.2801) { print "8,192 tokens: published step " pub[b] ", not 4.2800"; bad = 1 }
	if (!(got[a] < got[b])) { print "seq_length 4096 priced " got[a] " s, not under 8,192'"'"'s " got[b]; bad = 1 }
	exit bad
}' "$tmp/seq.out" "$tmp/seq8k.out" || fail=1
# the run's --fp8-param-gather (column fp8_param_gather) reaches its plan;
# without an FP8 recipe the row is refused
grep -q 'fp8_param_gather="1"' "$tmp/seq8k-plans/mbridge2511-llama3-8b-b200-fp8.xml" ||
    { echo "fp8_param_gather not in the published plan"; fail=1; }
sed '2s/,tensorwise,1,,30624,/,none,1,,30624,/' "$tmp/seq8k.csv" > "$tmp/bad.csv"
grep -q ',none,1,,30624,' "$tmp/bad.csv" || { echo "fp8_param_gather: the row was not rewritten"; fail=1; }
bad "FP8 gather without FP8" "bad.csv:2: fp8_param_gather 1 needs an fp8_recipe and distributed_optimizer 1"

exit $fail
