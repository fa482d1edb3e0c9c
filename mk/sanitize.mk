# The C tests under ASan+UBSan (the programs instrumented, against the release
# library) and under TSan (programs and runtime instrumented: the TSan flavour
# of mk/build.mk). The toolchain's TSan runtime intercepts libdispatch, so the
# TSan programs link the toolchain's libdispatch and BlocksRuntime too.
ASAN_CFLAGS := $(TEST_CFLAGS) -fsanitize=address,undefined -fno-omit-frame-pointer -fuse-ld=lld
TSAN_CFLAGS := $(TEST_CFLAGS) -fsanitize=thread
TSAN_LINK    = -L$(TSAN_LIBDIR) -lripple -lpthread -L$(SWIFT_LIBDIR) -ldispatch -lBlocksRuntime \
    -Wl,-rpath,$(SWIFT_LIBDIR) -Wl,-rpath,$(CURDIR)/$(TSAN_LIBDIR)
TSAN_ENV    := SWIFT_BACKTRACE=enable=no TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1"

.PHONY: asan tsan leak-selftest
$(OUT)/asan/%: Tests/c/%.c $(TEST_HEADERS) $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ASAN_CFLAGS) $< -L$(OUT)/lib -lripple -lpthread -Wl,-rpath,$(CURDIR)/$(OUT)/lib -o $@
run-asan-%: $(OUT)/asan/% FORCE
	@echo "--- asan $*" && $(WATCHDOG) Tests/lsan_check.sh $< >/dev/null
asan: $$(addprefix run-asan-,$$(C_TESTS))

$(OUT)/tsan/%: Tests/c/%.c $(TEST_HEADERS) $(TSAN_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(TSAN_CFLAGS) $< $(TSAN_LINK) -o $@
run-tsan-%: $(OUT)/tsan/% FORCE
	@echo "--- tsan $*" && RIPPLE_TEST_QUICK=1 $(TSAN_ENV) $(WATCHDOG) $< >/dev/null
tsan: $$(addprefix run-tsan-,$$(C_TESTS))

# The leak checkers above must see a reference cycle that a Swift side table
# reaches (suppressing side tables once hid every such cycle): a deliberate
# one (Tests/leak/leak_cycle.c leak) fails both, and the same program
# without the cycle passes both.
LEAK_ST := $(OUT)/leak-selftest
$(LEAK_ST)/leak_cycle: Tests/leak/leak_cycle.c $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(TEST_CFLAGS) $< -L$(OUT)/lib -lripple -Wl,-rpath,$(CURDIR)/$(OUT)/lib -o $@
$(LEAK_ST)/leak_cycle_asan: Tests/leak/leak_cycle.c $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ASAN_CFLAGS) $< -L$(OUT)/lib -lripple -Wl,-rpath,$(CURDIR)/$(OUT)/lib -o $@
leak-selftest: $(LEAK_ST)/leak_cycle $(LEAK_ST)/leak_cycle_asan $(VG_SO) | $(DEPS_OK)
	@$(WATCHDOG) Tests/lsan_check.sh $(LEAK_ST)/leak_cycle_asan >/dev/null 2>$(LEAK_ST)/asan-ok.log || { cat $(LEAK_ST)/asan-ok.log; exit 1; }
	@! $(WATCHDOG) Tests/lsan_check.sh $(LEAK_ST)/leak_cycle_asan leak >/dev/null 2>$(LEAK_ST)/asan-leak.log \
	  || { echo "LeakSanitizer did not report the deliberate cycle"; exit 1; }
	@grep -q 'lsan_check: [0-9]* leak record' $(LEAK_ST)/asan-leak.log || { cat $(LEAK_ST)/asan-leak.log; exit 1; }
	@LD_LIBRARY_PATH=$(CURDIR)/$(VG_LIB) $(WATCHDOG) $(VALGRIND) $(LEAK_ST)/leak_cycle >/dev/null
	@LD_LIBRARY_PATH=$(CURDIR)/$(VG_LIB) $(WATCHDOG) $(VALGRIND) $(LEAK_ST)/leak_cycle leak >/dev/null 2>$(LEAK_ST)/vg-leak.log; \
	  test $$? = 99 || { cat $(LEAK_ST)/vg-leak.log; echo "valgrind did not report the deliberate cycle"; exit 1; }
	@echo "leak-selftest: a deliberate cycle through a weakly referenced object fails valgrind and LeakSanitizer; without it both pass"
