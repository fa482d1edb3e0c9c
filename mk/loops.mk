# Event-loop adapters: Include/ripple_glib.h, ripple_uv.h, ripple_event.h,
# header-only glue that drives a run loop from GLib, libuv or libevent. They
# are installed beside ripple.h (INSTALL_HEADERS: in libripple-dev too), with
# man pages (pkg/manpages.py reads the ripple_*.h beside ripple.h) and the
# Doxygen reference (pkg/Doxyfile); the host libraries come from
# scripts/deps/loops.apt.
#   make loops-check    each adapter's test (Tests/loops/test_<host>.c) built
#                       against the staged install and the real host library:
#                       plain, under ASan (+UBSan, LeakSanitizer), TSan and
#                       valgrind, each with the watchdog; each header alone as
#                       C99 and C++; the examples under valgrind; the man
#                       pages in the staged install (make check runs it;
#                       make test runs the plain variants)
#   make run-loops-<variant>-<host>   one of them (variant plain, asan, tsan,
#                       valgrind; host glib, uv, event)
LOOP_HOSTS    := glib uv event
LOOP_HEADERS  := $(foreach h,$(LOOP_HOSTS),Include/ripple_$(h).h)
INSTALL_HEADERS += $(LOOP_HEADERS)
$(MANOUT)/ripple.3: $(LOOP_HEADERS)
# Each host's pkg-config package.
LOOP_PC_glib  := glib-2.0
LOOP_PC_uv    := libuv
LOOP_PC_event := libevent
LOOP_OUT      := $(OUT)/loops
LOOP_TEST_SRC := $(wildcard Tests/loops/*.h) $(wildcard Tests/c/*.h)
# Built as a user would: the staged headers through pkg-config (no -IInclude).
# uv.h needs POSIX declarations that a strict -std=c11 leaves out.
LOOP_CFLAGS   := -O1 -g -gdwarf-4 $(WARN) -D_POSIX_C_SOURCE=200809L -ITests/c
LOOP_FLAGS     = $$($(PKG) --cflags ripple $(LOOP_PC_$*)) $< $$(pkg-config --libs $(LOOP_PC_$*))
LOOP_RELEASE   = -L$(OUT)/lib -lripple -lpthread -Wl,-rpath,$(CURDIR)/$(OUT)/lib

$(LOOP_OUT)/plain/test_%: Tests/loops/test_%.c $(LOOP_TEST_SRC) $(LIB) $(STAGE_OK) | $(DEPS_OK)
	@mkdir -p $(dir $@)
	$(CC) $(LOOP_CFLAGS) $(LOOP_FLAGS) $(LOOP_RELEASE) -o $@
$(LOOP_OUT)/asan/test_%: Tests/loops/test_%.c $(LOOP_TEST_SRC) $(LIB) $(STAGE_OK) | $(DEPS_OK)
	@mkdir -p $(dir $@)
	$(CC) $(LOOP_CFLAGS) -fsanitize=address,undefined -fno-omit-frame-pointer -fuse-ld=lld $(LOOP_FLAGS) $(LOOP_RELEASE) -o $@
$(LOOP_OUT)/tsan/test_%: Tests/loops/test_%.c $(LOOP_TEST_SRC) $(TSAN_LIB) $(STAGE_OK) | $(DEPS_OK)
	@mkdir -p $(dir $@)
	$(CC) $(LOOP_CFLAGS) -fsanitize=thread $(LOOP_FLAGS) $(TSAN_LINK) -o $@

.PHONY: loops-check loops-check-headers loops-check-examples
run-loops-plain-%: $(LOOP_OUT)/plain/test_% FORCE
	@echo "--- loops $*" && $(WATCHDOG) $<
run-loops-asan-%: $(LOOP_OUT)/asan/test_% FORCE
	@echo "--- loops asan $*" && $(WATCHDOG) Tests/lsan_check.sh $< >/dev/null
run-loops-tsan-%: $(LOOP_OUT)/tsan/test_% FORCE
	@echo "--- loops tsan $*" && RIPPLE_TEST_QUICK=1 $(TSAN_ENV) $(WATCHDOG) $< >/dev/null
run-loops-valgrind-%: $(LOOP_OUT)/plain/test_% $(VG_SO) FORCE
	@echo "--- loops valgrind $*" && RIPPLE_TEST_QUICK=1 LD_LIBRARY_PATH=$(CURDIR)/$(VG_LIB) $(WATCHDOG) $(VALGRIND) $< >/dev/null

# Each adapter header on its own is strict C99 and C++11/17, warning-free,
# with both compilers.
loops-check-headers: $(LOOP_HEADERS) | $(DEPS_OK)
	@mkdir -p $(LOOP_OUT)/hdr
	@for h in $(LOOP_HOSTS); do \
	  case $$h in glib) pc=$(LOOP_PC_glib);; uv) pc=$(LOOP_PC_uv);; event) pc=$(LOOP_PC_event);; esac; \
	  f=$(LOOP_OUT)/hdr/$$h; printf '#include <ripple_%s.h>\n' $$h > $$f.c && cp $$f.c $$f.cpp; \
	  strict="-pedantic -Wall -Wextra -Werror -Wshadow -fsyntax-only -IInclude $$(pkg-config --cflags $$pc)"; \
	  for cc in clang gcc; do $$cc -std=c99 -D_POSIX_C_SOURCE=200809L $$strict -Wstrict-prototypes -Wmissing-prototypes $$f.c || exit 1; done; \
	  clang++ -std=c++11 $$strict $$f.cpp && g++ -std=c++17 $$strict $$f.cpp || exit 1; done
	@echo "loops: ripple_{$$(echo $(LOOP_HOSTS) | tr ' ' ,)}.h compile alone as C99 and C++11/17 (clang, gcc)"

# The examples (examples-c/loops/*.c, one per host loop that has one), built
# like the other examples against the staged install through pkg-config (with
# their host's package too), run by make demo and, under valgrind, here.
LOOP_EXAMPLES := glib_progress uv_heartbeat
LOOP_EX_PC_glib_progress := $(LOOP_PC_glib)
LOOP_EX_PC_uv_heartbeat  := $(LOOP_PC_uv)
DEMO_EXTRA += $(addprefix loops/,$(LOOP_EXAMPLES))
$(OUT)/examples/loops/%: examples-c/loops/%.c $(STAGE_OK) | $(DEPS_OK)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(WARN) $< $$($(PKG) --cflags --libs ripple $(LOOP_EX_PC_$*)) -lpthread -o $@
examples: $(addprefix $(OUT)/examples/loops/,$(LOOP_EXAMPLES))
loops-check-examples: $(addprefix $(OUT)/examples/loops/,$(LOOP_EXAMPLES)) $(VG_SO)
	@for e in $(LOOP_EXAMPLES); do echo "--- valgrind examples-c/loops/$$e"; \
	  LD_LIBRARY_PATH=$(CURDIR)/$(VG_LIB) $(WATCHDOG) $(VALGRIND) $(OUT)/examples/loops/$$e >/dev/null || exit 1; done

LOOP_RUNS := $(foreach v,plain asan tsan valgrind,$(addprefix run-loops-$(v)-,$(LOOP_HOSTS)))
loops-check: $(LOOP_RUNS) loops-check-headers loops-check-examples $(STAGE_OK)
	@for f in rpl_glib_attach rpl_uv_attach rpl_event_attach; do \
	  case "$$(MANPATH=$(STAGE)/share/man man -w $$f)" in $(STAGE)/share/man/man3/ripple_*.3) ;; \
	  *) echo "man cannot find $$f in the staged install"; exit 1;; esac; done
	@echo "loops-check: the GLib, libuv and libevent adapters pass (plain, ASan, TSan, valgrind), installed with man pages"

CHECK_EXTRA += loops-check
TEST_EXTRA  += $(addprefix run-loops-plain-,$(LOOP_HOSTS))
