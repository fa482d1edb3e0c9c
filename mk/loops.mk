# Event-loop adapters: Include/ripple_glib.h, ripple_uv.h, ripple_event.h,
# header-only glue that drives a run loop from GLib, libuv or libevent.
#   make loops-deps     Debian's -dev packages of the three host libraries
#   make loops-check    each adapter's test (Tests/loops/test_<host>.c) built
#                       against the staged install and the real host library:
#                       plain, under ASan (+UBSan, LeakSanitizer) and under
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
	@echo "loops-check: the GLib, libuv and libevent adapters pass (plain, ASan, valgrind)"

CHECK_EXTRA += loops-check
