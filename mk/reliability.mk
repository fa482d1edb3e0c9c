# Reliability: the API-sequence fuzzer (Tests/fuzz) and the stress program
# (Tests/stress); each run is under a watchdog.
#   make fuzz [FUZZ_SECONDS=600]    libFuzzer against the FUZZ flavour (ASan +
#                                   coverage) of the library; corpus in build/fuzz/corpus,
#                                   after the inputs of past findings (Tests/fuzz/regressions)
#   make fuzz-check                 the same for FUZZ_CHECK_SECONDS (60), in make check
#   make stress-check               STRESS_THREADS (8) threads for STRESS_SECONDS (20)
#                                   against the TSan flavour, in make check
#   make soak [SOAK_SECONDS=600]    the stress program against the shipped library
FUZZ_SECONDS       ?= 600
FUZZ_CHECK_SECONDS ?= 60
STRESS_SECONDS     ?= 20
STRESS_THREADS     ?= 8
SOAK_SECONDS       ?= 600
FUZZ_BIN     := $(OUT)/fuzz/fuzz_api
# SWIFT_BACKTRACE: the Swift runtime's own crash handler would take the fatal
# signal first (and can hang on it): leave crashes to libFuzzer and the sanitizers.
# No leak suppressions: every input ends with every handle released, and the
# fuzzer then checks that the live-object count is back where it started
# (a cycle anywhere among runtime objects fails it), beside LeakSanitizer.
FUZZ_ENV     := SWIFT_BACKTRACE=enable=no ASAN_OPTIONS=detect_leaks=1:quarantine_size_mb=64

.PHONY: fuzz fuzz-check stress-check soak
$(FUZZ_BIN): Tests/fuzz/fuzz_api.c $(HEADER) $(FUZZ_LIB)
	@mkdir -p $(dir $@)
	$(CC) -O1 -g $(WARN) -IInclude -fsanitize=fuzzer,address,undefined -fuse-ld=lld $< \
	    -L$(FUZZ_LIBDIR) -lripple -lm -Wl,-rpath,$(CURDIR)/$(FUZZ_LIBDIR) \
	    -Wl,-rpath,$(SWIFT_LIBDIR) -o $@

define run-fuzz
	@mkdir -p $(OUT)/fuzz/corpus $(OUT)/fuzz/artifacts
	cd $(OUT)/fuzz && { $(FUZZ_ENV) timeout --kill-after=10 $$(( $(1) + 180 )) ./fuzz_api -max_total_time=$(1) \
	    -timeout=30 -rss_limit_mb=4096 -print_final_stats=1 -artifact_prefix=artifacts/ corpus $(CURDIR)/Tests/fuzz/regressions \
	    > fuzz.log 2>&1; rc=$$?; \
	    grep -E '^(#[0-9]+[[:space:]]+DONE|Done |stat::number_of_executed_units|INFO: Loaded)|ERROR|SUMMARY|fuzz_api:|Test unit' fuzz.log; \
	    if [ $$rc -ne 0 ]; then echo "fuzz: exit $$rc; the report, from $(OUT)/fuzz/fuzz.log:"; \
	      grep -v -E '^#[0-9]+[[:space:]]' fuzz.log | tail -120; fi; exit $$rc; }
endef

fuzz: $(FUZZ_BIN)
	$(call run-fuzz,$(FUZZ_SECONDS))

fuzz-check: $(FUZZ_BIN)
	$(call run-fuzz,$(FUZZ_CHECK_SECONDS))

# The stress program alone against the TSan flavour (not the TSan test suite).
$(OUT)/tsan/stress: Tests/stress/stress.c $(HEADER) $(TSAN_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(TSAN_CFLAGS) $< $(TSAN_LINK) -o $@
stress-check: $(OUT)/tsan/stress
	$(TSAN_ENV) timeout --kill-after=10 $$(( $(STRESS_SECONDS) + 120 )) $< $(STRESS_SECONDS) $(STRESS_THREADS)

$(OUT)/stress/stress: Tests/stress/stress.c $(HEADER) $(LIB)
	@mkdir -p $(dir $@)
	$(CC) -O2 -g $(WARN) -IInclude $< -L$(OUT)/lib -lripple -lpthread -Wl,-rpath,$(CURDIR)/$(OUT)/lib -o $@
soak: $(OUT)/stress/stress
	timeout --kill-after=10 $$(( $(SOAK_SECONDS) + 120 )) $< $(SOAK_SECONDS) $(STRESS_THREADS)
