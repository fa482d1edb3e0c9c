# Event-loop adapters: Include/ripple_glib.h, ripple_uv.h, ripple_event.h,
# header-only glue that drives a run loop from GLib, libuv or libevent.
#   make loops-deps     Debian's -dev packages of the three host libraries
#   make loops-check    each adapter's test (Tests/loops/test_<host>.c) built
#                       against the staged install and the real host library:
#                       plain, under ASan (+UBSan, LeakSanitizer), TSan and
#                       valgrind, each with the watchdog (make check runs it)
# The headers are installed with ripple.h (install-loops / uninstall-loops run
# with make install / uninstall), so they are in libripple-dev too, and
# get man pages (pkg/manpages.py) and the Doxygen reference (pkg/Doxyfile).
LOOP_HOSTS   := glib uv event
LOOP_HEADERS := $(foreach h,$(LOOP_HOSTS),Include/ripple_$(h).h)
# Each host's pkg-config package and Debian -dev package.
LOOP_PC_glib  := glib-2.0
LOOP_PC_uv    := libuv
LOOP_PC_event := libevent
LOOP_DEBS     := libglib2.0-dev libuv1-dev libevent-dev
LOOP_OUT      := $(OUT)/loops
# uv.h needs POSIX declarations that a strict -std=c11 leaves out.
LOOP_CFLAGS   := -O1 -g -gdwarf-4 -Wall -Wextra -Werror -std=c11 -D_POSIX_C_SOURCE=200809L -ITests/c

.PHONY: loops-deps loops-check install-loops uninstall-loops
loops-deps: deps
	@pkg-config --exists $(foreach h,$(LOOP_HOSTS),$(LOOP_PC_$(h))) || { echo "installing: $(LOOP_DEBS)"; \
	  if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi; \
	  $$SUDO apt-get -o DPkg::Lock::Timeout=300 update -qq && DEBIAN_FRONTEND=noninteractive \
	    $$SUDO apt-get -o DPkg::Lock::Timeout=300 install -y -qq --no-install-recommends $(LOOP_DEBS) >/dev/null; }

install: install-loops
install-loops:
	$(INSTALL) -d $(DESTDIR)$(includedir)
	$(INSTALL) -m 0644 $(LOOP_HEADERS) $(DESTDIR)$(includedir)/

uninstall: uninstall-loops
uninstall-loops:
	rm -f $(addprefix $(DESTDIR)$(includedir)/,$(notdir $(LOOP_HEADERS)))

# The man pages are made from the adapter headers too.
$(OUT)/man/ripple.3: $(LOOP_HEADERS)

# Built against the staged headers (as a user would, through pkg-config) and
# linked to build/lib, like the other C tests; ASan links the same library.
LOOP_PKG = PKG_CONFIG_PATH=$(STAGE)/lib/pkgconfig pkg-config
loops-check: loops-deps stage
	@mkdir -p $(LOOP_OUT) $(VG_LIB) && objcopy --strip-debug $(LIB) $(VG_LIB)/$(SONAME)
	@for h in $(LOOP_HOSTS); do \
	  case $$h in glib) pc=$(LOOP_PC_glib);; uv) pc=$(LOOP_PC_uv);; event) pc=$(LOOP_PC_event);; esac; \
	  flags="$$($(LOOP_PKG) --cflags ripple $$pc) Tests/loops/test_$$h.c -L$(OUT)/lib -lripple $$(pkg-config --libs $$pc) -lpthread -Wl,-rpath,$(CURDIR)/$(OUT)/lib"; \
	  $(CC) $(LOOP_CFLAGS) $$flags -o $(LOOP_OUT)/test_$$h || exit 1; \
	  $(CC) $(LOOP_CFLAGS) -fsanitize=address,undefined -fno-omit-frame-pointer -fuse-ld=lld $$flags -o $(LOOP_OUT)/test_$${h}_asan || exit 1; \
	  echo "--- loops $$h"; $(WATCHDOG) $(LOOP_OUT)/test_$$h || exit 1; \
	  echo "--- loops asan $$h"; $(WATCHDOG) Tests/lsan_check.sh $(LOOP_OUT)/test_$${h}_asan >/dev/null || exit 1; \
	  echo "--- loops valgrind $$h"; RIPPLE_TEST_QUICK=1 LD_LIBRARY_PATH=$(CURDIR)/$(VG_LIB) $(WATCHDOG) $(VALGRIND) \
	    $(LOOP_OUT)/test_$$h >/dev/null || exit 1; done
	@for f in rpl_glib_attach rpl_uv_attach rpl_event_attach; do \
	  case "$$(MANPATH=$(STAGE)/share/man man -w $$f)" in $(STAGE)/share/man/man3/ripple_*.3) ;; \
	  *) echo "man cannot find $$f in the staged install"; exit 1;; esac; done
	@echo "loops-check: the GLib, libuv and libevent adapters pass (plain, ASan, TSan, valgrind), installed with man pages"

# And under TSan, against the instrumented library (tsan-lib): the host
# loop's thread and the threads that schedule on the run loop.
loops-check: loops-check-tsan
.PHONY: loops-check-tsan
loops-check-tsan: loops-deps stage tsan-lib
	@mkdir -p $(LOOP_OUT)
	@for h in $(LOOP_HOSTS); do \
	  case $$h in glib) pc=$(LOOP_PC_glib);; uv) pc=$(LOOP_PC_uv);; event) pc=$(LOOP_PC_event);; esac; \
	  $(CC) $(LOOP_CFLAGS) -fsanitize=thread $$($(LOOP_PKG) --cflags ripple $$pc) Tests/loops/test_$$h.c \
	    $$(pkg-config --libs $$pc) $(TSAN_LINK) -o $(LOOP_OUT)/test_$${h}_tsan || exit 1; \
	  echo "--- loops tsan $$h"; RIPPLE_TEST_QUICK=1 $(TSAN_ENV) $(WATCHDOG) $(LOOP_OUT)/test_$${h}_tsan >/dev/null || exit 1; done

# Each adapter header on its own is strict C99 and C++11, warning-free, with
# both compilers.
loops-check: loops-check-headers
.PHONY: loops-check-headers
loops-check-headers: loops-deps
	@mkdir -p $(LOOP_OUT)/hdr
	@for h in $(LOOP_HOSTS); do \
	  case $$h in glib) pc=$(LOOP_PC_glib);; uv) pc=$(LOOP_PC_uv);; event) pc=$(LOOP_PC_event);; esac; \
	  f=$(LOOP_OUT)/hdr/$$h; printf '#include <ripple_%s.h>\n' $$h > $$f.c && cp $$f.c $$f.cpp; \
	  strict="-pedantic -Wall -Wextra -Werror -Wshadow -fsyntax-only -IInclude $$(pkg-config --cflags $$pc)"; \
	  for cc in clang gcc; do $$cc -std=c99 -D_POSIX_C_SOURCE=200809L $$strict -Wstrict-prototypes -Wmissing-prototypes $$f.c || exit 1; done; \
	  clang++ -std=c++11 $$strict $$f.cpp && g++ -std=c++17 $$strict $$f.cpp || exit 1; done
	@echo "loops-check-headers: ripple_{$$(echo $(LOOP_HOSTS) | tr ' ' ,)}.h compile alone as C99 and C++11/17 (clang, gcc)"

CHECK_EXTRA += loops-check

# The examples (examples-c/loops/*.c, one per host loop that has one), built
# like the other examples against the staged install through pkg-config, run
# by make demo and, under valgrind, by loops-check.
LOOP_EXAMPLES := glib_progress uv_heartbeat
LOOP_EX_PC_glib_progress := $(LOOP_PC_glib)
LOOP_EX_PC_uv_heartbeat  := $(LOOP_PC_uv)
DEMO_EXTRA += $(addprefix loops/,$(LOOP_EXAMPLES))
.PHONY: examples-loops
examples: examples-loops
examples-loops: loops-deps stage
	@mkdir -p $(OUT)/examples/loops
	@$(foreach e,$(LOOP_EXAMPLES),$(CC) $(CFLAGS) $(WARN) examples-c/loops/$(e).c \
	  $$($(PKG) --cflags --libs ripple $(LOOP_EX_PC_$(e))) -lpthread -o $(OUT)/examples/loops/$(e) &&) true

loops-check: loops-check-examples
.PHONY: loops-check-examples
loops-check-examples: examples-loops
	@mkdir -p $(VG_LIB) && objcopy --strip-debug $(LIB) $(VG_LIB)/$(SONAME)
	@for e in $(LOOP_EXAMPLES); do echo "--- valgrind examples-c/loops/$$e"; \
	  LD_LIBRARY_PATH=$(CURDIR)/$(VG_LIB) $(WATCHDOG) $(VALGRIND) $(OUT)/examples/loops/$$e >/dev/null || exit 1; done
