# C tests: Tests/c/test_*.c, each a program that exits 0 and prints
# "N passed, 0 failed". Each is built per variant (mk/sanitize.mk adds asan and
# tsan) and run by a pattern rule, run-<variant>-<test>, so make -j runs them
# side by side and one can be run alone (make run-valgrind-test_smoke).
C_TESTS      := $(patsubst Tests/c/%.c,%,$(wildcard Tests/c/test_*.c))
TEST_HEADERS := $(wildcard Tests/c/*.h) $(HEADER)
TEST_CFLAGS  := -O1 -g -gdwarf-4 $(WARN) -IInclude -ITests/c
# Every test program runs under a watchdog, so a hang fails the run instead
# of stalling it (timeout exits 124; a second signal follows if TERM is ignored).
TEST_TIMEOUT ?= 300
WATCHDOG      = timeout --kill-after=10 $(TEST_TIMEOUT)

.PHONY: c-tests valgrind swift-test
$(OUT)/tests/%: Tests/c/%.c $(TEST_HEADERS) $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(TEST_CFLAGS) $< -L$(OUT)/lib -lripple -lpthread -Wl,-rpath,$(CURDIR)/$(OUT)/lib -o $@
run-plain-%: $(OUT)/tests/% FORCE
	@echo "--- $*" && $(WATCHDOG) $<
c-tests: $$(addprefix run-plain-,$$(C_TESTS))

# --fair-sched=yes: valgrind runs one thread at a time, and its default hand-off
# lets threads that send in a loop keep the CPU for minutes while the thread
# that subscribes (and the test's own watchdog) waits; the fair scheduler
# hands the CPU round, as the kernel does outside valgrind.
# Indirect leaks count: the one suppression (Tests/valgrind.supp) matches only
# the side table of a weakly referenced object alive at exit, and a leaked
# cycle that such a side table reaches shows up as indirect leaks.
VALGRIND := valgrind -q --fair-sched=yes --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect \
    --show-leak-kinds=definite,indirect --suppressions=$(CURDIR)/Tests/valgrind.supp
# Valgrind 3.19 cannot read the DWARF of the statically linked Swift runtime,
# so it runs against a copy of the library without debug sections (symbols stay).
VG_LIB   := $(OUT)/valgrind-lib
VG_SO    := $(VG_LIB)/$(SONAME)
$(VG_SO): $(LIB)
	@mkdir -p $(dir $@)
	objcopy --strip-debug $< $@
run-valgrind-%: $(OUT)/tests/% $(VG_SO) FORCE | $(DEPS_OK)
	@echo "--- valgrind $*" && RIPPLE_TEST_QUICK=1 LD_LIBRARY_PATH=$(CURDIR)/$(VG_LIB) $(WATCHDOG) $(VALGRIND) $< >/dev/null
run-valgrind-example-%: $(OUT)/examples/% $(VG_SO) FORCE | $(DEPS_OK)
	@echo "--- valgrind examples-c/$*" && LD_LIBRARY_PATH=$(CURDIR)/$(VG_LIB) $(WATCHDOG) $(VALGRIND) $< >/dev/null
valgrind: $$(addprefix run-valgrind-,$$(C_TESTS)) $$(addprefix run-valgrind-example-,$$(EXAMPLES))

# The Swift suites, on swift test's own (debug) build of the runtime.
CLEAN_DIRS += .build
swift-test: $(STAMP) | $(DEPS_OK)
	$(SWIFT) test --scratch-path .build 2>&1 | tail -n 25; exit $${PIPESTATUS[0]}
