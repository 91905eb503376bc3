# nestplan - one non-recursive Makefile: tools, results, plots, tests.
#
#   make            build the tools, then every results table and plot
#   make check      unit and golden tests, then again under ASan + UBSan
#   make clean      remove everything built
#
#   make artifact   the results tables again, priced by the paper artifact's
#                   cost model on its profiled costs (results/artifact/)
#   make regress    results/ against tests/expected/
#   make validate   the model against published runs (results/validate.csv)
#   make validate-heldout  and against partly published ones, not gated
#   make validate-sensitivity  how validate's errors move with the model's
#                   free parameters (results/validate-sensitivity.csv)
#   make fuzz       every input reader under libFuzzer, FUZZ_SECONDS each
#   make sweep SWEEP=name [ENGINE=slurm]
#                   a network co-design sweep (configs/sweeps/NAME.xml)
#
# Overridable: CC, CFLAGS, LDFLAGS, ARTIFACT (../shared/nest-artifact),
# FUZZ_CC (clang), FUZZ_SECONDS (60),
# DEVELOPER=1 (-Werror), V=1 (print each compile command).
.DELETE_ON_ERROR:
.SUFFIXES:
.DEFAULT_GOAL := all

CC       ?= cc
CFLAGS   ?= -O2 -g
LDFLAGS  ?=
ARTIFACT ?= ../shared/nest-artifact
SANITIZE_FLAGS = -fsanitize=address,undefined -fno-omit-frame-pointer \
                 -fno-sanitize-recover=all

WARN = -Wall -Wextra -pedantic -Wstrict-prototypes -Wvla -Wwrite-strings \
       -Wshadow -Wformat=2
ifdef DEVELOPER
WARN += -Werror
endif

XML_CFLAGS  = $(shell pkg-config --cflags libxml-2.0 2>/dev/null)
XML_LIBS    = $(shell pkg-config --libs libxml-2.0 2>/dev/null)
ALL_CFLAGS  = -std=c11 -D_POSIX_C_SOURCE=200809L $(WARN) $(XML_CFLAGS) \
              -Itools/lib $(CFLAGS)
LIBS        = -lcsv -lglpk $(XML_LIBS) -lm
# what one tool alone links: model-import reads JSON
TOOL_LIBS_model-import = -ljansson

TOOLS   = cost-matrix memmodel config-check graph-normalize dpsolve sweep \
          compare-baselines model-import pipesim
# tools/lib/FAMILY/*.[ch], each family using only those before it: base
# (errors, numbers, atomic output, CSV, XML), model (configs, the cost and
# memory models, the evaluator), graph (per-layer graphs), io (plan,
# index and stage files), search (the DP, the baselines), artifact (the
# paper artifact's world), export (Megatron launches, sweeps), sim (a
# pipeline schedule's step, simulated: pipesim)
LIBSRC  = $(wildcard tools/lib/*/*.c)
LIBHDR  = $(wildcard tools/lib/*/*.h)
SCHEMAS = $(wildcard configs/schema/*.rng)
UNITS   = $(patsubst tests/unit/%.c,%,$(wildcard tests/unit/t-*.c)) \
          $(addprefix t-fuzz-,$(FUZZERS))
# The fuzz harnesses (tests/fuzz/NAME.c), each replayed over its saved
# corpus by make check (t-fuzz-NAME) and run by make fuzz.
FUZZERS     = $(filter-out fuzz replay,$(patsubst tests/fuzz/%.c,%,\
              $(wildcard tests/fuzz/*.c)))
FUZZ_COMMON = tests/fuzz/fuzz.c tests/fuzz/replay.c tests/fuzz/fuzz.h
FUZZ_CC     ?= clang
FUZZ_SECONDS ?= 60
FUZZ_FLAGS  = -fsanitize=fuzzer-no-link,address,undefined \
              -fno-omit-frame-pointer -fno-sanitize-recover=all

# Every recipe writes its target under a temporary name beside it
# ($(TMP): the target, .tmp. and the shell's process number) and renames
# it into place when complete, so a build killed even by SIGKILL leaves
# no half-written object or tool with a new time stamp; the next make
# removes such temporaries (tools/stale-temps.sh, below), and a recipe
# stopped by ^C or SIGTERM removes its own at once (KEEP_TMP_TIDY).
TMP = $@.tmp.$$$$
KEEP_TMP_TIDY = trap 'rm -f $(TMP)' INT TERM HUP;

# A line a compiled target ("  CC build/rel/lib/base/util.o"); V=1 prints
# the commands themselves.
ifeq ($(V),1)
Q =
say = @:
else
Q = @
say = @printf '  %-4s %s\n' $(1) $@
endif

# Three builds from one set of rules: build/rel (bin/), build/san
# (AddressSanitizer + UndefinedBehaviorSanitizer, for make check) and
# build/fuzz (clang's libFuzzer coverage, make fuzz only): $(1) the
# build, $(2) its flags, $(3) where its tools go, $(4) its compiler.
define variant
$(1)_LIBOBJ = $$(patsubst tools/lib/%.c,build/$(1)/lib/%.o,$$(LIBSRC)) \
              build/$(1)/lib/schemas.o
build/$(1)/lib/%.o: tools/lib/%.c $$(LIBHDR) | build/deps.ok
	@mkdir -p $$(@D)
	$$(call say,CC)
	$$(Q)$$(KEEP_TMP_TIDY) $(4) $$(ALL_CFLAGS) $(2) -c -o $$(TMP) $$< && mv -f $$(TMP) $$@
build/$(1)/lib/schemas.c: tools/embed-schemas.sh $$(SCHEMAS)
	@mkdir -p $$(@D)
	$$(call say,GEN)
	$$(Q)$$(KEEP_TMP_TIDY) sh tools/embed-schemas.sh $$(SCHEMAS) > $$(TMP) && mv -f $$(TMP) $$@
build/$(1)/lib/schemas.o: build/$(1)/lib/schemas.c
	$$(call say,CC)
	$$(Q)$$(KEEP_TMP_TIDY) $(4) $$(ALL_CFLAGS) $(2) -c -o $$(TMP) $$< && mv -f $$(TMP) $$@
build/$(1)/libnestplan.a: $$($(1)_LIBOBJ)
	$$(call say,AR)
	$$(Q)$$(KEEP_TMP_TIDY) $$(AR) rcs $$(TMP) $$^ && mv -f $$(TMP) $$@
build/$(1)/%.o: tools/%.c $$(LIBHDR) | build/deps.ok
	@mkdir -p $$(@D)
	$$(call say,CC)
	$$(Q)$$(KEEP_TMP_TIDY) $(4) $$(ALL_CFLAGS) $(2) -c -o $$(TMP) $$< && mv -f $$(TMP) $$@
$(3)/%: build/$(1)/%.o build/$(1)/libnestplan.a
	@mkdir -p $$(@D)
	$$(call say,LD)
	$$(Q)$$(KEEP_TMP_TIDY) $(4) $$(ALL_CFLAGS) $(2) $$(LDFLAGS) -o $$(TMP) $$^ $$(TOOL_LIBS_$$*) $$(LIBS) && \
	    mv -f $$(TMP) $$@
build/$(1)/tests/%: tests/unit/%.c $$(wildcard tests/unit/*.h) \
    build/$(1)/libnestplan.a
	@mkdir -p $$(@D)
	$$(call say,LD)
	$$(Q)$$(KEEP_TMP_TIDY) $(4) $$(ALL_CFLAGS) $(2) -Itests/unit $$(LDFLAGS) -o $$(TMP) $$< \
	    build/$(1)/libnestplan.a $$(LIBS) && mv -f $$(TMP) $$@
build/$(1)/tests/t-fuzz-%: tests/fuzz/%.c $$(FUZZ_COMMON) \
    build/$(1)/libnestplan.a
	@mkdir -p $$(@D)
	$$(call say,LD)
	$$(Q)$$(KEEP_TMP_TIDY) $(4) $$(ALL_CFLAGS) $(2) -Itests/fuzz -DFUZZ_NAME='"$$*"' $$(LDFLAGS) \
	    -o $$(TMP) $$< tests/fuzz/fuzz.c tests/fuzz/replay.c \
	    build/$(1)/libnestplan.a $$(LIBS) && mv -f $$(TMP) $$@
endef
$(eval $(call variant,rel,,bin,$(CC)))
$(eval $(call variant,san,$(SANITIZE_FLAGS),build/san/bin,$(CC)))
$(eval $(call variant,fuzz,$(FUZZ_FLAGS),build/fuzz/bin,$(FUZZ_CC)))

BINS      = $(addprefix bin/,$(TOOLS))
SAN_BINS  = $(addprefix build/san/bin/,$(TOOLS))
UNIT_BINS = $(addprefix build/rel/tests/,$(UNITS))
SAN_UNITS = $(addprefix build/san/tests/,$(UNITS))
.SECONDARY:

# The stamp is written only when every check passed, and goes stale when
# a package the build uses is added, removed or upgraded: build/deps.sig,
# dpkg's record of those packages (tools/deps.sh --signature), is
# rewritten as make starts only where it changed, and again when the
# check passed (which may have installed some), so that a package the
# build does not use (make check's Slurm) leaves the stamp alone and a
# second make runs nothing.  A failed first run is checked again by the
# next make, without make clean.
ifeq ($(filter clean,$(MAKECMDGOALS)),)
$(shell mkdir -p build && sh tools/deps.sh --signature > build/deps.sig.tmp.$$$$ && \
    { cmp -s build/deps.sig.tmp.$$$$ build/deps.sig && \
      rm -f build/deps.sig.tmp.$$$$ || mv -f build/deps.sig.tmp.$$$$ build/deps.sig; })
endif
build/deps.ok: tools/deps.sh build/deps.sig
	@mkdir -p $(@D)
	sh tools/deps.sh $(CC)
	@sh tools/deps.sh --signature > build/deps.sig.tmp.$$$$ && \
	    mv -f build/deps.sig.tmp.$$$$ build/deps.sig
	@touch $@

# ---- results ------------------------------------------------------------
NETWORKS = $(patsubst configs/networks/%.xml,%,$(wildcard configs/networks/*.xml))
CONFIGS  = $(wildcard configs/models/*.xml configs/accelerators/*.xml \
                      configs/networks/*.xml configs/experiments/*.xml \
                      configs/sweeps/*.xml)
COSTS    = $(patsubst %,results/costs/%.csv,$(NETWORKS))

results/costs/%.csv: configs/networks/%.xml bin/cost-matrix
	@mkdir -p $(@D)
	bin/cost-matrix -o $@ $<

# Every config validated, with a one-row summary each.
results/configs.csv: $(CONFIGS) bin/config-check
	@mkdir -p $(@D)
	bin/config-check -C configs -o $@ $(CONFIGS)

# ---- analytic per-layer graphs (the embedded default) --------------------
# One set per accelerator, model and micro-batch size an experiment names:
# every variant (t, sp, e, c) in results/layers/ACCEL/MODEL/bB/, indexed by
# index.csv.  The list comes from the experiment configs (config-check -M).
EXPERIMENTS = $(wildcard configs/experiments/*.xml)
# A hard include: if its tools fail to build, make stops on that compile
# error (with -include it went on and ended on a misleading "No rule to
# make target").
ifeq ($(filter clean,$(MAKECMDGOALS)),)
include build/experiments.mk
endif
# (-C: each experiment's accelerator, models and networks checked too)
build/experiments.mk: $(EXPERIMENTS) $(CONFIGS) bin/config-check
	@mkdir -p $(@D)
	$(call say,GEN)
	$(Q)bin/config-check -C configs -M -o $@ $(EXPERIMENTS)

set_word = $(word $2,$(subst /, ,$1))
.SECONDEXPANSION:
results/layers/%/index.csv: configs/accelerators/$$(call set_word,$$*,1).xml \
    configs/models/$$(call set_word,$$*,2).xml bin/graph-normalize
	@mkdir -p $(@D)
	bin/graph-normalize -D $(@D) -a configs/accelerators/$(call set_word,$*,1).xml \
	    -c configs/models/$(call set_word,$*,2).xml \
	    -V b=$(patsubst b%,%,$(call set_word,$*,3)) -o $@

# One row per model: parameters (closed form and from the graph), FLOPs per
# token, activation bytes per layer at b = 1, t = 1.
results/models.csv: $(wildcard configs/models/*.xml) bin/graph-normalize
	@mkdir -p $(@D)
	bin/graph-normalize -s -o $@ $(wildcard configs/models/*.xml)

# ---- plots (gnuplot; PNG and SVG) ---------------------------------------
FIGURES = fig5 fig6 fig7 table4
PLACED  = bertlarge llama2-7b llama3-70b gpt3-175b mixtral-8x7b
PLOTS   = $(foreach f,$(FIGURES),plots/$f.png plots/$f.svg) \
          $(foreach m,$(PLACED),plots/placement-$m.png plots/placement-$m.svg)

plots/%.png plots/%.svg: results/%.csv tools/plot.sh
	@sh tools/plot.sh $* results plots
	@echo "plots/$*.png plots/$*.svg"
# the NEST plans at 1,024 devices come with the fig5 rows (.plan.csv)
plots/placement-%.png plots/placement-%.svg: results/fig5.csv tools/plot.sh
	@sh tools/plot.sh placement results plots $*
	@echo "plots/placement-$*.png plots/placement-$*.svg"

# ---- benchmark (not part of all: timings are the machine's) ------------
BENCH_LAYERS = $(foreach m,bertlarge llama2-7b llama3-70b gpt3-175b mixtral-8x7b,\
                 results/layers/tpuv4/$m/b1/index.csv) \
               $(foreach m,llama3-405b gpt3-175b mixtral-8x22b,\
                 results/layers/h100-80gb/$m/b1/index.csv) \
               results/layers/a100-80gb/sc21-gpt-1008b/b1/index.csv \
               results/layers/h800-80gb/deepseek-v3/b1/index.csv \
               results/layers/gb200/qwen3-235b-a22b/b1/index.csv
.PHONY: bench
bench: bin/dpsolve bin/pipesim $(BENCH_LAYERS)
	sh tools/bench.sh bin results/bench.csv

# ---- make validate: the model against published runs --------------------
# Every run of data/published/*.csv priced as it was run (tools/validate.sh);
# not part of all (the README's numbers come from it), part of make check
# as tests/validate/.
VALIDATE_RUNS = $(wildcard data/published/*.csv)
results/validate.csv: $(VALIDATE_RUNS) tools/validate.sh bin/dpsolve \
    bin/graph-normalize bin/memmodel bin/pipesim tools/plot.sh \
    $(wildcard configs/models/*.xml configs/accelerators/*.xml \
    configs/networks/*.xml \
    data/variability/*.csv)
	@mkdir -p $(@D)
	VALIDATE_GANTT=plots/gantt sh tools/validate.sh bin $@ $(VALIDATE_RUNS)
plots/validate.png plots/validate.svg: results/validate.csv tools/plot.sh
	@sh tools/plot.sh validate results plots
	@echo "plots/validate.png plots/validate.svg"
.PHONY: validate
validate: results/validate.csv plots/validate.png
	@sh tools/validate.sh --summary results/validate.csv

# make validate-heldout: runs whose plans are only partly published, or
# that ran on another runtime (data/heldout/*.csv, each row's source says
# what was assumed), priced the same way and reported, not held to the
# targets (README, "Where the model is not yet right").
HELDOUT_RUNS = $(wildcard data/heldout/*.csv)
results/validate-heldout.csv: $(HELDOUT_RUNS) tools/validate.sh bin/dpsolve \
    bin/graph-normalize bin/memmodel bin/pipesim tools/plot.sh \
    $(wildcard configs/models/*.xml configs/accelerators/*.xml \
    configs/networks/*.xml \
    data/variability/*.csv)
	@mkdir -p $(@D)
	VALIDATE_GANTT=plots/gantt sh tools/validate.sh bin $@ $(HELDOUT_RUNS)
plots/validate-heldout.png plots/validate-heldout.svg: results/validate-heldout.csv tools/plot.sh
	@sh tools/plot.sh validate-heldout results plots
	@echo "plots/validate-heldout.png plots/validate-heldout.svg"
.PHONY: validate-heldout
validate-heldout: results/validate-heldout.csv plots/validate-heldout.png
	@sh tools/validate.sh --summary results/validate-heldout.csv

# make validate-sensitivity: the published runs priced again with each free
# parameter (the accelerators' efficiencies, the networks' bandwidths)
# scaled by 0.9 and 1.1 on its own (tools/validate-sensitivity.sh); a
# line a setting.
results/validate-sensitivity.csv: $(VALIDATE_RUNS) tools/validate.sh \
    tools/validate-sensitivity.sh bin/dpsolve bin/graph-normalize \
    bin/memmodel $(wildcard configs/models/*.xml \
    configs/accelerators/*.xml configs/networks/*.xml)
	@mkdir -p $(@D)
	sh tools/validate-sensitivity.sh bin $@ $(VALIDATE_RUNS)
.PHONY: validate-sensitivity
validate-sensitivity: results/validate-sensitivity.csv
	@sh tools/validate-sensitivity.sh --summary results/validate-sensitivity.csv

# ---- make plan: one question, answered --------------------------------------
# make plan MODEL=m CLUSTER=n GPUS=g BATCH=b [ACCEL=a] [MBS="1 2 4 8"]
# [PLAN_FLAGS=...]: the model's per-layer graphs on the accelerator, one
# set a micro-batch size (built once, under $(PLAN_LAYERS)), dpsolve's
# plan over the first g devices of the network for a global batch of b,
# its summary and its Megatron-LM launch (the same search in each
# format, seconds, so that -k's table is in all three), printed and kept in
# results/plans/m-n-ggpus-b/.  MODEL, CLUSTER and ACCEL are names in
# configs/ or paths to XML files.  The search runs every time, so
# PLAN_FLAGS always take effect.
ACCEL       ?= h100-80gb
MBS         ?= 1 2 4 8
# FP8=delayed|tensorwise|blockwise|mxfp8: every layout also searched with
# Transformer Engine's linear layers in FP8 under that recipe (the
# accelerator's <fp8> must list it); FP8=float8: torchao's Float8Linear,
# torchtitan's, beside FSDP2 alone (PLAN_FLAGS='-X torchtitan', or '-X
# none -I only'; float8-tp: with its float8 tensor parallelism, which
# torchtitan v0.2.2 does not run); empty: bf16 alone
FP8         ?=
# ATTN=fa2: the fused attention priced at FlashAttention-2's rate
# (graph-normalize -V attn=fa2; the accelerator's fa2_attention
# efficiencies), for a stack that runs it (Megatron's --attention-backend
# flash, which the launch then says; torchtitan of 2024-25 on Hopper);
# empty or fused: the device's own kernel (cuDNN's on Hopper)
ATTN        ?=
comma       := ,
PLAN_FLAGS  ?=
PLAN_RESULTS ?= results/plans
PLAN_LAYERS ?= $(PLAN_RESULTS)/layers
plan_xml     = $(if $(filter %.xml,$1),$1,configs/$2/$1.xml)
PLAN_MODEL   = $(call plan_xml,$(MODEL),models)
PLAN_NET     = $(call plan_xml,$(CLUSTER),networks)
PLAN_ACCEL   = $(call plan_xml,$(ACCEL),accelerators)
plan_name    = $(basename $(notdir $1))
PLAN_DIR     = $(PLAN_RESULTS)/$(call plan_name,$(MODEL))-$(call \
               plan_name,$(CLUSTER))-$(GPUS)gpus-$(BATCH)$(plan_attn)$(if \
               $(FP8),-fp8-$(FP8))
plan_attn    = $(if $(filter fa2,$(ATTN)),-attn-fa2)
# the micro-batch sizes a batch of BATCH holds
PLAN_MBS     = $(if $(filter plan,$(MAKECMDGOALS)),$(shell for b in $(MBS); \
               do [ "$$b" -le "$(BATCH)" ] 2>/dev/null && echo $$b; done))
PLAN_GRAPHS  = $(foreach b,$(PLAN_MBS),$(PLAN_LAYERS)/$(call \
               plan_name,$(ACCEL))/$(call plan_name,$(MODEL))/b$b$(plan_attn)$(if \
               $(FP8),-fp8-$(FP8))/index.csv)
PLAN_ARGS    = -A $(PLAN_MODEL) -a $(PLAN_ACCEL) -n $(PLAN_NET) \
               -N $(GPUS) -B $(BATCH) $(PLAN_FLAGS)
ifneq ($(filter plan,$(MAKECMDGOALS)),)
plan_example = make plan MODEL=llama3-70b CLUSTER=spineleaf-h100-128 GPUS=128 BATCH=1024
$(foreach v,MODEL CLUSTER GPUS BATCH,$(if $($v),,$(error make plan needs \
    $v=..., as in: $(plan_example))))
$(foreach f,$(PLAN_MODEL) $(PLAN_NET) $(PLAN_ACCEL),$(if $(wildcard $f),,\
    $(error make plan: no $f (a name in configs/, or a path to an .xml))))
$(foreach v,GPUS BATCH $(if $(MBS),,MBS),$(if $(shell printf %s '$($v)' | \
    grep -Ex '[1-9][0-9]{0,8}'),,$(error make plan: $v=$($v) is not a \
    whole number from 1 to 999999999)))
$(if $(FP8),$(if $(filter-out delayed tensorwise blockwise mxfp8 float8 \
    float8-tp,$(FP8)),$(error make plan: FP8=$(FP8) is not delayed, \
    tensorwise, blockwise, mxfp8, float8 or float8-tp)))
$(if $(filter-out fused fa2,$(ATTN)),$(error make plan: ATTN=$(ATTN) is \
    not fused or fa2))
$(foreach b,$(MBS),$(if $(shell printf %s '$b' | grep -Ex \
    '[1-9][0-9]{0,3}'),,$(error make plan: MBS holds '$b', not a \
    micro-batch size)))
endif
$(PLAN_LAYERS)/%/index.csv: $(PLAN_MODEL) $(PLAN_ACCEL) bin/graph-normalize
	@mkdir -p $(@D)
	$(call say,GEN)
	$(Q)bin/graph-normalize -D $(@D) -a $(PLAN_ACCEL) -c $(PLAN_MODEL) \
	    -V b=$(patsubst b%,%,$(firstword $(subst -, ,$(notdir \
	    $*))))$(if $(FP8),$(comma)fp8=$(FP8))$(if $(plan_attn),$(comma)attn=fa2) \
	    -o $@
.PHONY: plan
plan: $(PLAN_GRAPHS) bin/dpsolve
	@mkdir -p $(PLAN_DIR)
	@echo "  PLAN $(PLAN_DIR)/plan.xml"
	$(Q)bin/dpsolve $(PLAN_ARGS) -o $(PLAN_DIR)/plan.xml $(PLAN_GRAPHS)
	@bin/dpsolve $(PLAN_ARGS) -f summary -o $(PLAN_DIR)/summary.txt \
	    $(PLAN_GRAPHS)
	@bin/dpsolve $(PLAN_ARGS) -f megatron -o $(PLAN_DIR)/launch.sh \
	    $(PLAN_GRAPHS)
	@bin/dpsolve $(PLAN_ARGS) -f torchtitan -o $(PLAN_DIR)/job.toml \
	    $(PLAN_GRAPHS)
	@echo; cat $(PLAN_DIR)/summary.txt; echo
	@if grep -m 1 '<parallelism ' $(PLAN_DIR)/plan.xml | grep -q ' fsdp='; then \
	    sed -n '/^[^#]/,$$p' $(PLAN_DIR)/job.toml; else \
	    sed -n '/^[^#]/,$$p' $(PLAN_DIR)/launch.sh; fi
	@echo; echo "kept in $(PLAN_DIR)/: plan.xml, summary.txt, launch.sh" \
	    "(Megatron-LM), job.toml (torchtitan)"

# ---- make sweep: network co-design sweeps (configs/sweeps/) ---------------
# make sweep SWEEP=name: every point (model, cluster size, network) is its
# own target, so make -j fills the machine and only what changed is made
# again.  bin/sweep -M writes the fragment: a network per point
# ($(SWEEP_BUILD)), dpsolve's plan per point and model ($(SWEEP_RESULTS)),
# the plan priced on each neighbouring network (the sensitivity), the
# joined table and the heat maps ($(SWEEP_PLOTS)).  ENGINE=slurm runs the
# same targets as a Slurm job array (tools/sweep-slurm.sh; SWEEP_BLOCK
# points a task, SBATCH_FLAGS passed to sbatch), then joins here.
SWEEP_RESULTS ?= results/sweeps
SWEEP_BUILD   ?= build/sweeps
SWEEP_PLOTS   ?= plots/sweeps
SWEEP_LAYERS  ?= results/layers
SWEEP_BLOCK   ?= 4
# the plans searched (dpsolve -X): megatron, what Megatron-LM runs, or
# none, nestplan's whole space
SWEEP_FRAMEWORK ?= megatron
# the pipeline schedules searched (dpsolve -Y): 1f1b; with
# SWEEP_FRAMEWORK=none also zbh1, zbv, dualpipev, both or all
SWEEP_SCHEDULE ?= 1f1b
ENGINE        ?= local
# what killed runs left (their PATH.tmp.PID; see TMP), removed as make
# starts
ifeq ($(filter clean,$(MAKECMDGOALS)),)
$(shell sh tools/stale-temps.sh bin build results plots $(SWEEP_RESULTS) \
    $(SWEEP_BUILD) $(SWEEP_PLOTS))
endif
SWEEPS = $(patsubst configs/sweeps/%.xml,%,$(wildcard configs/sweeps/*.xml))
SWEEP_VARS = SWEEP=$(SWEEP) SWEEP_CONFIG=$(SWEEP_CONFIG) \
             SWEEP_FRAMEWORK=$(SWEEP_FRAMEWORK) \
             SWEEP_SCHEDULE=$(SWEEP_SCHEDULE) \
             SWEEP_RESULTS=$(SWEEP_RESULTS) SWEEP_BUILD=$(SWEEP_BUILD) \
             SWEEP_PLOTS=$(SWEEP_PLOTS) SWEEP_LAYERS=$(SWEEP_LAYERS)
.PHONY: sweep sweep-prereqs
ifdef SWEEP
SWEEP_CONFIG ?= configs/sweeps/$(SWEEP).xml
ifeq ($(wildcard $(SWEEP_CONFIG)),)
$(error SWEEP=$(SWEEP): no $(SWEEP_CONFIG); the sweeps: $(SWEEPS))
endif
# the fragment is named after the config's path: another config (an
# older file, say) gets its own
SWEEP_FRAGMENT = $(SWEEP_BUILD)/$(subst /,-,$(abspath $(SWEEP_CONFIG))).mk
ifeq ($(filter clean,$(MAKECMDGOALS)),)
include $(SWEEP_FRAGMENT)
# The definition every point depends on, written as make starts (whichever
# config is in use, whatever its time) and only when it changed, so that
# its time says when the points' networks last changed.  On the first
# run bin/sweep is made with the fragment, and make starts again.
ifneq ($(wildcard bin/sweep),)
ifneq ($(SWEEP_DEFINITION),)
$(shell mkdir -p $(dir $(SWEEP_DEFINITION)) && \
    bin/sweep -D -o $(SWEEP_DEFINITION) $(SWEEP_CONFIG))
endif
endif
endif
$(SWEEP_FRAGMENT): $(SWEEP_CONFIG) $(CONFIGS) bin/sweep
	@mkdir -p $(@D)
	bin/sweep -M -C configs -o $@ $(SWEEP_CONFIG)
$(SWEEP_PLOT_FILES) &: $(SWEEP_TABLE) tools/plot.sh
	@mkdir -p $(SWEEP_PLOTS)
	@sh tools/plot.sh sweep $(SWEEP_TABLE) $(SWEEP_PLOTS) $(SWEEP_HEAT_X) \
	    $(SWEEP_HEAT_Y)
	@echo "sweep $(SWEEP): plots $(SWEEP_PLOT_FILES)"
# what every point needs, made before a job array starts
sweep-prereqs: $(BINS) $(SWEEP_DEFINITION) $(SWEEP_LAYER_SETS) $(SWEEP_NETS)
ifeq ($(ENGINE),slurm)
sweep: sweep-prereqs tools/sweep-slurm.sh
	@SWEEP_BLOCK=$(SWEEP_BLOCK) sh tools/sweep-slurm.sh $(SWEEP_CONFIG) \
	    $(SWEEP_NAME) $(SWEEP_RESULTS) $(SWEEP_BUILD) "$(MAKE)" \
	    "-o build/deps.ok -o build/experiments.mk -o $(SWEEP_FRAGMENT) \
	    -o $(SWEEP_DEFINITION) $(addprefix -o ,$(BINS))" $(SWEEP_VARS)
	@$(MAKE) --no-print-directory $(SWEEP_VARS) ENGINE=local sweep
else ifeq ($(ENGINE),local)
sweep: $(SWEEP_TABLE) $(SWEEP_PLOT_FILES)
else
sweep:
	@echo "make sweep: ENGINE=$(ENGINE): local or slurm" >&2; exit 2
endif
else
sweep sweep-prereqs:
	@echo "make $@ SWEEP=name: one of $(SWEEPS) (configs/sweeps/)" >&2; exit 2
endif

# ---- the paper's artifact (profiled costs, read from $(ARTIFACT)) --------
# Graph directories are named <model>_mbs_...; each maps to our model config
# (for its layer count).
ART_GRAPHS := $(shell awk -F, 'NR > 1 { print $$1 "/" $$2 }' \
                $(ARTIFACT)/index.csv 2>/dev/null)
ART_LAYERS  = $(patsubst %,results/artifact/layers/%.csv,$(ART_GRAPHS))
ART_EDGES   = $(patsubst %,results/artifact/layers/%.edges.csv,$(ART_GRAPHS))
art_model = $(strip \
  $(if $(findstring /bertlarge_,/$(notdir $1)),bertlarge, \
  $(if $(findstring /megatronbert_,/$(notdir $1)),bertlarge, \
  $(if $(findstring /llama2_,/$(notdir $1)),llama2-7b, \
  $(if $(findstring /llama3_,/$(notdir $1)),llama3-70b, \
  $(if $(findstring /megatrongpt3_,/$(notdir $1)),gpt3-175b, \
  $(if $(findstring /mixtral_,/$(notdir $1)),mixtral-8x7b, \
  $(error no model config for artifact graph $1))))))))
art_inputs = $(addprefix $(ARTIFACT)/$1/,ops.csv op_edges.csv fused_edges.csv)

results/artifact/layers/%.edges.csv: $$(call art_inputs,$$*) \
    configs/models/$$(call art_model,$$*).xml bin/graph-normalize
	@mkdir -p $(@D)
	bin/graph-normalize -c configs/models/$(call art_model,$*).xml \
	    -e $@ -o /dev/null $(ARTIFACT)/$*
results/artifact/layers/%.csv: $$(call art_inputs,$$*) \
    configs/models/$$(call art_model,$$*).xml bin/graph-normalize
	@mkdir -p $(@D)
	bin/graph-normalize -c configs/models/$(call art_model,$*).xml \
	    -o $@ $(ARTIFACT)/$*

# The setups the paper ran with ILP layer times (setups.csv) also get
# per-layer graphs with -t ilp: ILP_SECONDS per block of each layer.
ILP_SECONDS ?= 1
ART_ILP_SETUPS := $(shell awk -F, 'NR > 1 && $$9 == "ilp" { print $$1 }' \
                    $(ARTIFACT)/setups.csv 2>/dev/null | sort -u)
ART_ILP = $(patsubst %,results/artifact/layers-ilp/%.csv,$(filter \
            $(addsuffix /%,$(ART_ILP_SETUPS)),$(ART_GRAPHS)))
results/artifact/layers-ilp/%.csv: $$(call art_inputs,$$*) \
    configs/models/$$(call art_model,$$*).xml \
    configs/accelerators/tpuv4.xml bin/graph-normalize
	@mkdir -p $(@D)
	bin/graph-normalize -t ilp -a configs/accelerators/tpuv4.xml \
	    -T $(ILP_SECONDS) -c configs/models/$(call art_model,$*).xml \
	    -o $@ $(ARTIFACT)/$*

# Our ILP layer times against the artifact's proven optima (not part of
# make check: it needs the ILP tables, about a minute to build).
artifact-check: $(ART_ILP)
	sh tools/ilp-check.sh $(ARTIFACT) results/artifact/layers-ilp

# The results tables again, priced by the artifact's own cost model on its
# own layer tables (compare-baselines --compat nest): one per experiment
# with an <artifact_setup>, rules from config-check -M.
ARTIFACT_INPUTS = $(wildcard $(ARTIFACT)/*.csv $(ARTIFACT)/*/*/layers.csv \
                    $(ARTIFACT)/*/*/layer_edges.csv)

ART_FIGURES = fig5 fig6 fig7
ART_PLOTS   = $(foreach f,$(ART_FIGURES),plots/artifact/$f.png plots/artifact/$f.svg)
plots/artifact/%.png plots/artifact/%.svg: results/artifact/%.csv tools/plot.sh
	@sh tools/plot.sh $* results/artifact plots/artifact
	@echo "plots/artifact/$*.png plots/artifact/$*.svg"

artifact: $(ARTIFACT_TABLES) $(ART_PLOTS) $(ART_LAYERS) $(ART_EDGES) $(ART_ILP)
	@test -n "$(ART_GRAPHS)" || \
	    { echo "no artifact export at $(ARTIFACT) (make ARTIFACT=...)"; exit 1; }

# ---- regression: results/ against tests/expected/ ------------------------
# Plans exactly, throughput, speedup, step and memory within REGRESS_TOL
# (relative), timings not at all.  make regress-update takes the current
# results as the new expectation, table by table where make regress
# finds one moved (so a timing alone moves none; review the diff before
# committing it).
REGRESS_TOL ?= 1e-6
REGRESS_TABLES = $(RESULT_TABLES) $(if $(ART_GRAPHS),$(ARTIFACT_TABLES))
.PHONY: regress regress-update
regress: $(REGRESS_TABLES) bin/compare-baselines
	@fail=0; for t in $(REGRESS_TABLES); do \
	    bin/compare-baselines -R -t $(REGRESS_TOL) \
	        tests/expected/$${t#results/} $$t || fail=1; \
	done; \
	if [ $$fail = 0 ]; then echo "regress: every table as expected"; fi; \
	exit $$fail
regress-update: $(REGRESS_TABLES) bin/compare-baselines
	@for t in $(REGRESS_TABLES); do \
	    e=tests/expected/$${t#results/}; \
	    if [ -f $$e ] && bin/compare-baselines -R -t $(REGRESS_TOL) \
	        $$e $$t > /dev/null 2>&1; then continue; fi; \
	    mkdir -p $$(dirname $$e) && cp $$t $$e || exit 1; \
	    echo "regress-update: $$e"; \
	done

.PHONY: all tools results artifact artifact-check check check-rel check-san clean \
        fuzz fuzz-merge
all: tools results
tools: $(BINS)
results: $(COSTS) results/configs.csv results/models.csv $(LAYER_SETS) \
         $(RESULT_TABLES) $(PLOTS)

# ---- fuzzing --------------------------------------------------------------
# make fuzz: every harness for FUZZ_SECONDS with clang's libFuzzer, its
# corpus growing in build/fuzz/corpus, a crash copied to tests/fuzz/corpus
# (make check replays it from then on); make fuzz-merge adds the inputs
# that reached new code to the saved corpora.
FUZZ_BINS = $(addprefix build/fuzz/fuzz-,$(FUZZERS))
build/fuzz/fuzz-%: tests/fuzz/%.c tests/fuzz/fuzz.c tests/fuzz/fuzz.h \
    build/fuzz/libnestplan.a
	$(call say,LD)
	$(Q)$(KEEP_TMP_TIDY) $(FUZZ_CC) $(ALL_CFLAGS) -fsanitize=fuzzer,address,undefined \
	    -fno-omit-frame-pointer -fno-sanitize-recover=all -Itests/fuzz \
	    -o $(TMP) $< tests/fuzz/fuzz.c build/fuzz/libnestplan.a $(LIBS) && \
	    mv -f $(TMP) $@
build/fuzz/toolchain.ok: tools/fuzz.sh
	@mkdir -p $(@D)
	sh tools/fuzz.sh --toolchain $(FUZZ_CC)
	@touch $@
$(FUZZ_BINS) build/fuzz/lib/schemas.o: | build/fuzz/toolchain.ok
$(fuzz_LIBOBJ): | build/fuzz/toolchain.ok
fuzz: $(FUZZ_BINS)
	sh tools/fuzz.sh --run $(FUZZ_SECONDS) $(FUZZERS)
fuzz-merge: $(FUZZ_BINS)
	sh tools/fuzz.sh --merge $(FUZZERS)

# ---- tests --------------------------------------------------------------
# What only the tests use (Slurm and munge for the Slurm test), installed
# as root; rechecked when the package set changes.
build/check-deps.ok: tools/deps.sh $(wildcard /var/lib/dpkg/status)
	@mkdir -p $(@D)
	@sh tools/deps.sh --check
	@touch $@

check: check-rel check-san
	@sh tests/summary.sh build/check-rel.tap build/check-san.tap

# a line a group as it ends (tests/run.sh); the whole TAP stays in
# build/check-*.tap, and what failed or was skipped is printed after
check-rel: $(BINS) $(UNIT_BINS) build/check-deps.ok
	@echo "# the suite ($(words $(wildcard tests/*/*.args tests/*/*.sh)) cases and $(words $(UNITS)) unit programs)"
	@LC_ALL=C ARTIFACT=$(ARTIFACT) sh tests/run.sh bin build/rel/tests > build/check-rel.tap; \
	    awk '/^not ok / || / # SKIP/ || (/^# / && !/ passed, /)' build/check-rel.tap

check-san: $(SAN_BINS) $(SAN_UNITS)
	@echo "# the same suite under AddressSanitizer + UndefinedBehaviorSanitizer"
	@LC_ALL=C ARTIFACT=$(ARTIFACT) ASAN_OPTIONS=detect_leaks=1 \
	    UBSAN_OPTIONS=print_stacktrace=1 \
	    sh tests/run.sh build/san/bin build/san/tests san > build/check-san.tap; \
	    awk '/^not ok / || / # SKIP/ || (/^# / && !/ passed, /)' build/check-san.tap

clean:
	rm -rf bin build results/costs results/configs.csv results/models.csv \
	    results/layers results/artifact $(RESULT_TABLES) plots/*.png \
	    results/validate.csv results/validate-heldout.csv results/sweeps plots/sweeps \
	    results/plans \
	    plots/*.svg plots/artifact
