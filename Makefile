# Ripple: build, install and test libripple.so (a Swift runtime behind a C ABI).
#
#   make                  build build/lib/libripple.so.$(VERSION) (release, static Swift runtime)
#   make demo             build, install into build/stage, compile and run the C examples
#   make check            every test: Swift, C (plain, valgrind, ASan, TSan), header, symbols, bindings
#   make bench            the benchmark table
#   make install PREFIX=/usr/local [DESTDIR=...]   /  make uninstall (same variables)
#   make deb [DEBDIR=build/deb]   Debian packages libripple0, libripple-dev (and -dbgsym)
#   make docs             HTML reference from ripple.h (Doxygen) in build/docs/html
#   make set-version      write $(VERSION) into the header, the Swift code and the Python package
#
# Every tool the targets need is installed on first use (deps), as on a fresh machine.

# The one place the version is stated: `make set-version` writes it into the
# header, the Swift code and the Python package, `make check-version` fails if
# they disagree, and the .pc, CMake and .deb files take it from here.
VERSION     := 0.1.0
MAJOR       := $(firstword $(subst ., ,$(VERSION)))
SWIFT       ?= swift
ifeq ($(origin CC),default)
CC          := clang
endif
ifeq ($(origin CXX),default)
CXX         := clang++
endif
CFLAGS      ?= -O2 -g -gdwarf-4
WARN        := -Wall -Wextra -Werror -std=c11
PYTHON      ?= python3

# GNU directory variables; PREFIX is accepted as an alias of prefix.
PREFIX      ?= /usr/local
prefix      ?= $(PREFIX)
exec_prefix ?= $(prefix)
libdir      ?= $(exec_prefix)/lib
includedir  ?= $(prefix)/include
pkgconfigdir ?= $(libdir)/pkgconfig
cmakedir    ?= $(libdir)/cmake/Ripple
datarootdir ?= $(prefix)/share
mandir      ?= $(datarootdir)/man
man3dir     ?= $(mandir)/man3
docdir      ?= $(datarootdir)/doc/ripple
rippledatadir ?= $(datarootdir)/ripple
# Separate debug info goes where gdb and valgrind look for it by build id
# (<debugdir>/.build-id/xx/rest.debug), as in Debian's -dbgsym packages.
debugdir    ?= $(prefix)/lib/debug
INSTALL     ?= install
LDCONFIG    ?= ldconfig

OUT         := build
SCRATCH     := .build-lib
LIBNAME     := libripple.so
SONAME      := $(LIBNAME).$(MAJOR)
REALNAME    := $(LIBNAME).$(VERSION)
LIB         := $(OUT)/lib/$(REALNAME)
STAGE       := $(CURDIR)/$(OUT)/stage

# The flags that shape the shipped artefact live here, not in Package.swift.
SWIFT_BUILD := $(SWIFT) build -c release --product ripple --scratch-path $(SCRATCH) \
    --disable-local-rpath -Xswiftc -static-stdlib -Xswiftc -no-toolchain-stdlib-rpath -Xswiftc -use-ld=lld \
    -Xcc -DRIPPLE_STATIC_SWIFT_RUNTIME \
    -Xlinker -soname -Xlinker $(SONAME) \
    -Xlinker --version-script -Xlinker $(CURDIR)/ripple.map \
    -Xswiftc -Xfrontend -Xswiftc -disable-implicit-concurrency-module-import \
    -Xswiftc -Xfrontend -Xswiftc -disable-implicit-string-processing-module-import
# The C target would get DWARF 5, which Debian's valgrind 3.19 cannot read
# (every Swift unit is DWARF 4 already); the build id names the debug file;
# symbols are bound at load time so the GOT can be read-only (Debian hardening).
SWIFT_BUILD += -Xcc -gdwarf-4 -Xlinker --build-id=sha1 -Xlinker -z -Xlinker now
# Size (stripped: 6.5 MB, nearly all the Swift runtime): SwiftPM's release link
# already passes --gc-sections; -Osize saved 0.6% but cost 15-25% on the cold
# send and subscribe rows of make bench; packed relocations (-z
# pack-relative-relocs) would save 6% but need glibc 2.36 at run time.

SOURCES     := $(shell find Sources -name '*.swift' -o -name '*.c' -o -name '*.h') Package.swift ripple.map Makefile
HEADER      := Include/ripple.h
STAMP       := $(SCRATCH)/.header-stamp

C_TESTS     := $(patsubst Tests/c/%.c,%,$(wildcard Tests/c/test_*.c))
EXAMPLES    := $(patsubst examples-c/%.c,%,$(wildcard examples-c/*.c))
CXX_EXAMPLES := $(patsubst examples-c/%.cpp,%,$(wildcard examples-c/*.cpp))
BENCH_SRC   := $(wildcard bench/*.c)

.PHONY: all lib dist deps install uninstall demo check bench bench-python clean swift-test c-tests \
        check-header check-symbols check-install valgrind asan tsan examples bindings-check FORCE \
        abi abi-deps abi-check abi-baseline fuzz fuzz-check stress-check soak sdt-deps check-probes \
        dist set-version check-version deb deb-deps check-deb docs leak-selftest

all: lib

# One file per concern under mk/ (included here, before the rules that read
# their variables); each may append its suites to CHECK_EXTRA, and the
# example programs it builds into $(OUT)/examples (as a prerequisite of
# examples) to DEMO_EXTRA, which make demo runs after the others.
CHECK_EXTRA :=
DEMO_EXTRA :=
include $(sort $(wildcard mk/*.mk))

# ---------------------------------------------------------------------------
# Tools a fresh machine may lack (Debian packages).
DEPS_BIN := valgrind:valgrind pkg-config:pkg-config cmake:cmake gdb:gdb man:man-db objcopy:binutils
deps:
	@missing=""; for pair in $(DEPS_BIN); do bin=$${pair%%:*}; pkg=$${pair#*:}; \
	  command -v $$bin >/dev/null 2>&1 || missing="$$missing $$pkg"; done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq --no-install-recommends $$missing >/dev/null; \
	fi

# <sys/sdt.h> for the USDT probes (a header, so not in DEPS_BIN).
sdt-deps:
	@test -f /usr/include/sys/sdt.h || test -n "$$(ls /usr/include/*/sys/sdt.h 2>/dev/null)" || { \
	  echo "installing: systemtap-sdt-dev"; if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq --no-install-recommends systemtap-sdt-dev >/dev/null; }
deps: sdt-deps

# ---------------------------------------------------------------------------
# The library. SwiftPM does not rebuild Swift code when the header changes, so
# the @c @implementation check would be skipped: touch the sources instead.
$(STAMP): $(HEADER) Include/module.modulemap $(wildcard Sources/RippleSupport/include/*.h)
	@mkdir -p $(SCRATCH)
	@find Sources -name '*.swift' -exec touch {} +
	@find . -maxdepth 4 -path './.build*' -type d -name ModuleCache -prune -exec rm -rf {} +
	@touch $@

$(SCRATCH)/release/$(LIBNAME): $(STAMP) $(SOURCES) | sdt-deps
	$(SWIFT_BUILD)
	@touch $@

$(LIB): $(SCRATCH)/release/$(LIBNAME)
	@mkdir -p $(OUT)/lib
	cp -f $< $@
	ln -sf $(REALNAME) $(OUT)/lib/$(SONAME)
	ln -sf $(SONAME) $(OUT)/lib/$(LIBNAME)

lib: $(LIB)

# ---------------------------------------------------------------------------
# What gets installed: the library stripped of everything a program does not
# need (--strip-unneeded), its debug info in a separate file that the library
# names through .gnu_debuglink, and man pages generated from the header.
DIST     := $(OUT)/dist
MANOUT   := $(OUT)/man
MANGEN   := $(PYTHON) pkg/manpages.py
BUILD_ID  = $$(readelf -n $(1) | sed -n 's/^.*Build ID: *\([0-9a-f]*\).*$$/\1/p')

$(DIST)/$(REALNAME): $(LIB)
	@mkdir -p $(DIST)
	id=$(call BUILD_ID,$<); test -n "$$id" || { echo "no build id in $<"; exit 1; }; \
	rm -rf $(DIST)/debug && mkdir -p $(DIST)/debug/.build-id/$${id:0:2} && \
	dbg=$(DIST)/debug/.build-id/$${id:0:2}/$${id:2}.debug && \
	objcopy --only-keep-debug $< $$dbg && chmod 0644 $$dbg && \
	objcopy --strip-unneeded --remove-section=.comment --add-gnu-debuglink=$$dbg $< $@

$(MANOUT)/ripple.3: $(HEADER) pkg/manpages.py
	$(MANGEN) $(HEADER) $(MANOUT) --version $(VERSION)

dist: $(DIST)/$(REALNAME) $(MANOUT)/ripple.3

# ---------------------------------------------------------------------------
# Install / uninstall (DESTDIR only here, never baked into files).
install: dist
	$(INSTALL) -d $(DESTDIR)$(libdir) $(DESTDIR)$(includedir) $(DESTDIR)$(pkgconfigdir) $(DESTDIR)$(cmakedir) \
	    $(DESTDIR)$(man3dir) $(DESTDIR)$(rippledatadir) $(DESTDIR)$(docdir)
	$(INSTALL) -m 0644 $(DIST)/$(REALNAME) $(DESTDIR)$(libdir)/$(REALNAME)
	ln -sf $(REALNAME) $(DESTDIR)$(libdir)/$(SONAME)
	ln -sf $(SONAME) $(DESTDIR)$(libdir)/$(LIBNAME)
	cd $(DIST)/debug && find .build-id -name '*.debug' | while read -r f; do \
	  $(INSTALL) -D -m 0644 "$$f" "$(DESTDIR)$(debugdir)/$$f" || exit 1; done
	$(INSTALL) -m 0644 $(HEADER) $(DESTDIR)$(includedir)/ripple.h
	$(INSTALL) -m 0644 bindings/cpp/ripple.hpp $(DESTDIR)$(includedir)/ripple.hpp
	sed -e 's|@PREFIX@|$(prefix)|g' -e 's|@LIBDIR@|$(libdir)|g' -e 's|@INCLUDEDIR@|$(includedir)|g' \
	    -e 's|@VERSION@|$(VERSION)|g' pkg/ripple.pc.in > $(DESTDIR)$(pkgconfigdir)/ripple.pc
	chmod 0644 $(DESTDIR)$(pkgconfigdir)/ripple.pc
	librel=$$(realpath -m --relative-to=$(prefix) $(libdir)); increl=$$(realpath -m --relative-to=$(prefix) $(includedir)); \
	up=$$(realpath -m --relative-to=$(cmakedir) $(prefix)); \
	sed -e "s|@LIBREL@|$$librel|g" -e "s|@INCLUDEREL@|$$increl|g" -e "s|@PREFIX_FROM_CMAKEDIR@|$$up|g" \
	    -e 's|@VERSION@|$(VERSION)|g' -e 's|@MAJOR@|$(MAJOR)|g' \
	    pkg/RippleConfig.cmake.in > $(DESTDIR)$(cmakedir)/RippleConfig.cmake
	sed -e 's|@VERSION@|$(VERSION)|g' -e 's|@MAJOR@|$(MAJOR)|g' \
	    pkg/RippleConfigVersion.cmake.in > $(DESTDIR)$(cmakedir)/RippleConfigVersion.cmake
	chmod 0644 $(DESTDIR)$(cmakedir)/RippleConfig.cmake $(DESTDIR)$(cmakedir)/RippleConfigVersion.cmake
	for f in $(MANOUT)/*.3; do \
	  if [ -L "$$f" ]; then ln -sf "$$(readlink "$$f")" "$(DESTDIR)$(man3dir)/$${f##*/}"; \
	  else $(INSTALL) -m 0644 "$$f" "$(DESTDIR)$(man3dir)/"; fi || exit 1; done
	$(INSTALL) -m 0644 pkg/ripple.supp $(DESTDIR)$(rippledatadir)/ripple.supp
	$(INSTALL) -m 0644 docs/behaviour.md $(DESTDIR)$(docdir)/behaviour.md
	@# Refresh the loader cache for a real install as root. No directory argument:
	@# that would add $(libdir) to the system cache even when it is not a configured
	@# library directory (a build tree, a staging prefix).
	@if [ -z "$(DESTDIR)" ] && [ -n "$(LDCONFIG)" ] && [ "$$(id -u)" = 0 ] && command -v $(LDCONFIG) >/dev/null; then $(LDCONFIG) 2>/dev/null || true; fi

# The debug file is found through the installed library's build id, so it is
# removed first; directories go only when empty (they may be shared).
uninstall:
	@lib=$(DESTDIR)$(libdir)/$(REALNAME); if [ -f "$$lib" ]; then id=$(call BUILD_ID,$$lib); \
	  if [ -n "$$id" ]; then rm -f $(DESTDIR)$(debugdir)/.build-id/$${id:0:2}/$${id:2}.debug; \
	    rmdir --ignore-fail-on-non-empty $(DESTDIR)$(debugdir)/.build-id/$${id:0:2} $(DESTDIR)$(debugdir)/.build-id $(DESTDIR)$(debugdir) 2>/dev/null || true; fi; fi
	rm -f $(DESTDIR)$(libdir)/$(REALNAME) $(DESTDIR)$(libdir)/$(SONAME) $(DESTDIR)$(libdir)/$(LIBNAME) \
	      $(DESTDIR)$(includedir)/ripple.h $(DESTDIR)$(includedir)/ripple.hpp $(DESTDIR)$(pkgconfigdir)/ripple.pc \
	      $(DESTDIR)$(cmakedir)/RippleConfig.cmake $(DESTDIR)$(cmakedir)/RippleConfigVersion.cmake \
	      $(DESTDIR)$(rippledatadir)/ripple.supp $(DESTDIR)$(docdir)/behaviour.md
	names=$$($(MANGEN) $(HEADER) --list) && cd $(DESTDIR)$(man3dir) 2>/dev/null && rm -f $$names || true
	-rmdir $(DESTDIR)$(cmakedir) $(DESTDIR)$(rippledatadir) $(DESTDIR)$(docdir) 2>/dev/null

# ---------------------------------------------------------------------------
# Examples, built against the *installed* library through pkg-config.
stage: $(LIB)
	@rm -rf $(STAGE)
	@$(MAKE) --no-print-directory install PREFIX=$(STAGE) prefix=$(STAGE) LDCONFIG= >/dev/null

PKG = PKG_CONFIG_PATH=$(STAGE)/lib/pkgconfig pkg-config

examples: deps stage
	@mkdir -p $(OUT)/examples
	@for e in $(EXAMPLES); do \
	  $(CC) $(CFLAGS) $(WARN) examples-c/$$e.c $$($(PKG) --cflags --libs ripple) -lpthread -o $(OUT)/examples/$$e || exit 1; done
	@for e in $(CXX_EXAMPLES); do \
	  $(CXX) -O2 -g -std=c++17 -Wall -Wextra -Werror -Ibindings/cpp examples-c/$$e.cpp $$($(PKG) --cflags --libs ripple) -lpthread -o $(OUT)/examples/$$e || exit 1; done
	@rm -rf $(OUT)/cmake-example && cmake -S examples-c/cmake -B $(OUT)/cmake-example -DCMAKE_PREFIX_PATH=$(STAGE) -DCMAKE_BUILD_TYPE=Release >/dev/null \
	  && cmake --build $(OUT)/cmake-example >/dev/null

demo: examples
	@for e in $(EXAMPLES) $(CXX_EXAMPLES) $(DEMO_EXTRA); do \
	  echo "=== examples-c/$$e ==="; LD_LIBRARY_PATH=$(STAGE)/lib $(OUT)/examples/$$e || exit 1; echo; done
	@echo "=== examples-c/cmake (find_package(Ripple)) ==="; LD_LIBRARY_PATH=$(STAGE)/lib $(OUT)/cmake-example/cmake_example
	@for s in $(wildcard bindings/*/demo.sh); do echo; echo "=== $$s ==="; \
	  STAGE=$(STAGE) OUT=$(CURDIR)/$(OUT) SONAME=$(SONAME) CC=$(CC) CXX=$(CXX) PYTHON=$(PYTHON) bash $$s || exit 1; done

# ---------------------------------------------------------------------------
# C tests: Tests/c/test_*.c, each a program that exits 0 and prints
# "N passed, 0 failed". Built three ways: plain, ASan and TSan.
TEST_CFLAGS := -O1 -g -gdwarf-4 $(WARN) -IInclude -ITests/c
$(OUT)/tests/%: Tests/c/%.c $(wildcard Tests/c/*.h) $(HEADER) $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(TEST_CFLAGS) $< -L$(OUT)/lib -lripple -lpthread -Wl,-rpath,$(CURDIR)/$(OUT)/lib -o $@

# Every test program runs under a watchdog, so a hang fails the run instead
# of stalling it (timeout exits 124; a second signal follows if TERM is ignored).
TEST_TIMEOUT ?= 300
WATCHDOG    = timeout --kill-after=10 $(TEST_TIMEOUT)

c-tests: $(addprefix $(OUT)/tests/,$(C_TESTS))
	@for t in $(C_TESTS); do echo "--- $$t"; $(WATCHDOG) $(OUT)/tests/$$t || exit 1; done

# Indirect leaks count: the one suppression (Tests/valgrind.supp) matches only
# the side table of a weakly referenced object alive at exit, and a leaked
# cycle that such a side table reaches shows up as indirect leaks.
VALGRIND := valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect \
    --show-leak-kinds=definite,indirect --suppressions=$(CURDIR)/Tests/valgrind.supp
# Valgrind 3.19 cannot read the DWARF of the statically linked Swift runtime,
# so it runs against a copy of the library without debug sections (symbols stay).
VG_LIB := $(OUT)/valgrind-lib
valgrind: deps c-tests examples
	@mkdir -p $(VG_LIB) && objcopy --strip-debug $(LIB) $(VG_LIB)/$(SONAME)
	@for t in $(C_TESTS); do echo "--- valgrind $$t"; RIPPLE_TEST_QUICK=1 LD_LIBRARY_PATH=$(CURDIR)/$(VG_LIB) $(WATCHDOG) $(VALGRIND) $(OUT)/tests/$$t >/dev/null || exit 1; done
	@for e in $(EXAMPLES); do echo "--- valgrind examples-c/$$e"; LD_LIBRARY_PATH=$(CURDIR)/$(VG_LIB) $(WATCHDOG) $(VALGRIND) $(OUT)/examples/$$e >/dev/null || exit 1; done

asan: $(LIB)
	@mkdir -p $(OUT)/asan
	@for t in $(C_TESTS); do \
	  $(CC) $(TEST_CFLAGS) -fsanitize=address,undefined -fno-omit-frame-pointer -fuse-ld=lld Tests/c/$$t.c -L$(OUT)/lib -lripple -lpthread \
	    -Wl,-rpath,$(CURDIR)/$(OUT)/lib -o $(OUT)/asan/$$t || exit 1; \
	  echo "--- asan $$t"; $(WATCHDOG) Tests/lsan_check.sh $(OUT)/asan/$$t >/dev/null || exit 1; done

# The leak checkers above must see a reference cycle that a Swift side table
# reaches (suppressing side tables once hid every such cycle): a deliberate
# one (Tests/leak/leak_cycle.c leak) fails both, and the same program
# without the cycle passes both.
LEAK_ST := $(OUT)/leak-selftest
leak-selftest: deps $(LIB)
	@mkdir -p $(LEAK_ST) $(VG_LIB) && objcopy --strip-debug $(LIB) $(VG_LIB)/$(SONAME)
	@$(CC) $(TEST_CFLAGS) Tests/leak/leak_cycle.c -L$(OUT)/lib -lripple -Wl,-rpath,$(CURDIR)/$(OUT)/lib -o $(LEAK_ST)/leak_cycle
	@$(CC) $(TEST_CFLAGS) -fsanitize=address,undefined -fno-omit-frame-pointer -fuse-ld=lld Tests/leak/leak_cycle.c \
	    -L$(OUT)/lib -lripple -Wl,-rpath,$(CURDIR)/$(OUT)/lib -o $(LEAK_ST)/leak_cycle_asan
	@$(WATCHDOG) Tests/lsan_check.sh $(LEAK_ST)/leak_cycle_asan >/dev/null 2>$(LEAK_ST)/asan-ok.log || { cat $(LEAK_ST)/asan-ok.log; exit 1; }
	@! $(WATCHDOG) Tests/lsan_check.sh $(LEAK_ST)/leak_cycle_asan leak >/dev/null 2>$(LEAK_ST)/asan-leak.log \
	  || { echo "LeakSanitizer did not report the deliberate cycle"; exit 1; }
	@grep -q 'lsan_check: [0-9]* leak record' $(LEAK_ST)/asan-leak.log || { cat $(LEAK_ST)/asan-leak.log; exit 1; }
	@LD_LIBRARY_PATH=$(CURDIR)/$(VG_LIB) $(WATCHDOG) $(VALGRIND) $(LEAK_ST)/leak_cycle >/dev/null
	@LD_LIBRARY_PATH=$(CURDIR)/$(VG_LIB) $(WATCHDOG) $(VALGRIND) $(LEAK_ST)/leak_cycle leak >/dev/null 2>$(LEAK_ST)/vg-leak.log; \
	  test $$? = 99 || { cat $(LEAK_ST)/vg-leak.log; echo "valgrind did not report the deliberate cycle"; exit 1; }
	@echo "leak-selftest: a deliberate cycle through a weakly referenced object fails valgrind and LeakSanitizer; without it both pass"

# TSan needs the runtime instrumented too (its atomics hand data between
# threads), so the library is rebuilt with -sanitize=thread for this run.
# The toolchain's TSan runtime intercepts libdispatch, so the test programs
# link the toolchain's libdispatch and BlocksRuntime too.
TSAN_SCRATCH := .build-tsan
SWIFT_LIBDIR = $(shell dirname $$(dirname $$(readlink -f $$(command -v $(SWIFT)))))/lib/swift/linux
# tsan-lib builds only the instrumented library (for suites in mk/*.mk too).
TSAN_LINK = -L$(TSAN_SCRATCH)/release -lripple -lpthread -L$(SWIFT_LIBDIR) -ldispatch -lBlocksRuntime \
    -Wl,-rpath,$(SWIFT_LIBDIR) -Wl,-rpath,$(CURDIR)/$(TSAN_SCRATCH)/release
TSAN_ENV  = TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1"
.PHONY: tsan-lib
tsan-lib:
	$(SWIFT) build -c release --product ripple --scratch-path $(TSAN_SCRATCH) -Xswiftc -sanitize=thread -Xswiftc -use-ld=lld \
	    -Xlinker --version-script -Xlinker $(CURDIR)/ripple.map \
	    -Xswiftc -Xfrontend -Xswiftc -disable-implicit-concurrency-module-import

tsan: tsan-lib
	@mkdir -p $(OUT)/tsan
	@for t in $(C_TESTS); do \
	  $(CC) $(TEST_CFLAGS) -fsanitize=thread Tests/c/$$t.c $(TSAN_LINK) -o $(OUT)/tsan/$$t || exit 1; \
	  echo "--- tsan $$t"; RIPPLE_TEST_QUICK=1 $(TSAN_ENV) $(WATCHDOG) $(OUT)/tsan/$$t >/dev/null || exit 1; done

# ---------------------------------------------------------------------------
# Static checks of the artefact.
check-header:
	@mkdir -p $(OUT)/hdr
	@echo '#include <ripple.h>' > $(OUT)/hdr/h.c && cp $(OUT)/hdr/h.c $(OUT)/hdr/h.cpp
	clang -std=c99 -pedantic -Wall -Wextra -Werror -fsyntax-only -IInclude $(OUT)/hdr/h.c
	gcc -std=c99 -pedantic -Wall -Wextra -Werror -fsyntax-only -IInclude $(OUT)/hdr/h.c
	clang++ -std=c++11 -pedantic -Wall -Wextra -Werror -fsyntax-only -IInclude $(OUT)/hdr/h.cpp
	g++ -std=c++17 -pedantic -Wall -Wextra -Werror -fsyntax-only -IInclude $(OUT)/hdr/h.cpp
	@grep -q 'RPL_VERSION_STRING "$(VERSION)"' $(HEADER) || { echo "header version is not $(VERSION)"; exit 1; }

# Every function the header declares is exported, and nothing else is.
check-symbols: $(LIB)
	@clang -E -P -IInclude $(HEADER) | tr '\n' ' ' | grep -oP '\brpl_[a-z0-9_]+(?= *\((?! *\*))' | sort -u > $(OUT)/header-syms.txt
	@nm -D --defined-only $(LIB) | awk '$$3 != "" {sub(/@.*/,"",$$3); print $$3}' | grep -v '^RIPPLE_' | sort -u > $(OUT)/lib-syms.txt
	@diff -u $(OUT)/header-syms.txt $(OUT)/lib-syms.txt && echo "symbols: $$(wc -l < $(OUT)/lib-syms.txt) rpl_* exported, all declared"
	@! readelf -d $(LIB) | grep -E 'NEEDED.*libswift|RUNPATH|RPATH' || { echo "unexpected NEEDED/RUNPATH"; exit 1; }
	@readelf -d $(LIB) | grep -q 'SONAME.*\[$(SONAME)\]'

# The five USDT probes (provider ripple) are in the built and the installed
# library, with semaphores, so perf/bpftrace can attach to a running program.
PROBES := subscribe next error completed dispose
check-probes: stage
	@for lib in $(LIB) $(STAGE)/lib/$(REALNAME); do \
	  readelf -n $$lib > $(OUT)/probes.txt; \
	  for p in $(PROBES); do \
	    grep -A2 'Provider: ripple' $(OUT)/probes.txt | grep -q "Name: $$p$$" || { echo "$$lib: no USDT probe ripple:$$p"; exit 1; }; done; \
	  test "$$(grep -A2 'Provider: ripple' $(OUT)/probes.txt | grep -c 'Semaphore: 0x0*[1-9a-f]')" = 5 || { echo "$$lib: probes without semaphores"; exit 1; }; \
	done; echo "probes: ripple:{$$(echo $(PROBES) | tr ' ' ,)} in the built and the installed library"

# A staged install holds everything it should and uninstall takes it all back;
# then a fresh prefix: C and C++ programs built with pkg-config run with only
# that lib dir, under Debian's valgrind too (no suppressions for the small
# program; a threaded example needs only the installed ripple.supp), gdb finds
# the separate debug info, man finds the pages, and every exported function
# has one.
IT := $(CURDIR)/$(OUT)/install-test
check-install: deps $(LIB)
	@rm -rf $(IT) && mkdir -p $(IT)
	$(MAKE) --no-print-directory install prefix=/usr/local DESTDIR=$(IT)/destdir >/dev/null
	@D=$(IT)/destdir/usr/local; for f in lib/$(REALNAME) include/ripple.h include/ripple.hpp lib/pkgconfig/ripple.pc \
	    lib/cmake/Ripple/RippleConfig.cmake share/man/man3/ripple.3 share/man/man3/rpl_signal_subscribe.3 \
	    share/ripple/ripple.supp share/doc/ripple/behaviour.md; do test -e $$D/$$f || { echo "install did not add $$f"; exit 1; }; done; \
	test -L $$D/lib/$(SONAME) && test -L $$D/share/man/man3/rpl_signal_subscribe.3; \
	test -n "$$(find $$D/lib/debug/.build-id -name '*.debug')" || { echo "no debug file under lib/debug/.build-id"; exit 1; }; \
	! readelf -S $$D/lib/$(REALNAME) | grep -qE '\.debug_info|\.symtab' || { echo "installed library is not stripped"; exit 1; }; \
	readelf -S $$D/lib/$(REALNAME) | grep -q '\.gnu_debuglink' || { echo "installed library has no .gnu_debuglink"; exit 1; }; \
	size=$$(stat -c %s $$D/lib/$(REALNAME)); test $$size -lt 8388608 || { echo "installed library is $$size bytes (limit 8 MiB)"; exit 1; }; \
	echo "installed library: $$size bytes, stripped, debug info in lib/debug/.build-id"
	$(MAKE) --no-print-directory uninstall prefix=/usr/local DESTDIR=$(IT)/destdir >/dev/null
	@test -z "$$(find $(IT)/destdir -type f -o -type l)" || { echo "uninstall left files:"; find $(IT)/destdir -type f -o -type l; exit 1; }
	@test -z "$$(find $(IT)/destdir -iname '*ripple*')" || { echo "uninstall left directories:"; find $(IT)/destdir -iname '*ripple*'; exit 1; }
	@test ! -e $(IT)/destdir/usr/local/lib/debug || { echo "uninstall left lib/debug"; exit 1; }
	$(MAKE) --no-print-directory install PREFIX=$(IT)/prefix LDCONFIG= >/dev/null
	P=$(IT)/prefix; PKG_CONFIG_PATH=$$P/lib/pkgconfig; export PKG_CONFIG_PATH; \
	  $(CC) -Wall -Werror Tests/install/consumer.c $$(pkg-config --cflags --libs ripple) -o $(IT)/consumer && \
	  env -i LD_LIBRARY_PATH=$$P/lib $(IT)/consumer && \
	  $(CC) -Wall -Werror Tests/install/consumer.c $$(pkg-config --cflags --libs ripple) \
	    -Wl,-rpath,$$(pkg-config --variable=libdir ripple) -o $(IT)/consumer-rpath && env -i $(IT)/consumer-rpath && \
	  $(CXX) -std=c++17 -Wall -Wextra -Werror Tests/install/consumer.cpp $$(pkg-config --cflags --libs ripple) -o $(IT)/consumer-cpp && \
	  env -i LD_LIBRARY_PATH=$$P/lib $(IT)/consumer-cpp && \
	  $(CC) -O2 examples-c/schedulers.c $$(pkg-config --cflags --libs ripple) -lpthread -o $(IT)/schedulers
	@P=$(IT)/prefix; echo "valgrind (default leak kinds) on the installed library:"; \
	  LD_LIBRARY_PATH=$$P/lib valgrind -q --leak-check=full --error-exitcode=99 $(IT)/consumer >/dev/null || exit 1; \
	  LD_LIBRARY_PATH=$$P/lib valgrind -q --leak-check=full --error-exitcode=99 --suppressions=$$P/share/ripple/ripple.supp \
	    $(IT)/schedulers >/dev/null || exit 1; \
	  echo "valgrind reads the library's DWARF (the debug file is this library's debug sections):"; \
	  LD_LIBRARY_PATH=$(CURDIR)/$(OUT)/lib valgrind --leak-check=full --error-exitcode=99 $(IT)/consumer > $(IT)/vg-dwarf.log 2>&1 \
	    && ! grep -q "Giving up" $(IT)/vg-dwarf.log || { cat $(IT)/vg-dwarf.log; exit 1; }
	@P=$(IT)/prefix; gdb -batch -nx -iex "set debug-file-directory $$P/lib/debug" -ex "info line rpl_signal_subscribe" \
	    $$P/lib/$(REALNAME) 2>/dev/null | grep -q '^Line [0-9]* of ".*\.swift"' || { echo "gdb found no line info in the debug file"; exit 1; }; \
	  echo "gdb: line info from lib/debug"; \
	  case "$$(MANPATH=$$P/share/man man -w rpl_signal_map)" in $$P/share/man/man3/ripple-*.3) ;; *) echo "man cannot find rpl_signal_map"; exit 1;; esac; \
	  nm -D --defined-only $$P/lib/$(REALNAME) | awk '$$3 ~ /^rpl_/ {sub(/@.*/,"",$$3); print $$3}' | sort -u > $(IT)/exported.txt; \
	  $(MANGEN) $(HEADER) --functions | diff -u $(IT)/exported.txt - || { echo "exported functions and man pages differ"; exit 1; }; \
	  echo "man: a page for each of $$(wc -l < $(IT)/exported.txt) exported functions"
	@echo "install: OK"

# ---------------------------------------------------------------------------
# The version: VERSION above is the source; these files carry copies that
# `make set-version` rewrites and `make check-version` compares (one sed
# expression per file serves both, so they cannot drift apart).
V_PARTS     = $(subst ., ,$(VERSION))
VERSION_SED_$(HEADER) = -e 's/^(\#define RPL_VERSION_MAJOR ).*/\1$(word 1,$(V_PARTS))/' \
    -e 's/^(\#define RPL_VERSION_MINOR ).*/\1$(word 2,$(V_PARTS))/' \
    -e 's/^(\#define RPL_VERSION_PATCH ).*/\1$(word 3,$(V_PARTS))/' \
    -e 's/^(\#define RPL_VERSION_STRING ).*/\1"$(VERSION)"/'
VERSION_SED_Sources/RippleC/Handles.swift = -e 's/(staticCString\(")[^"]*("\)  \/\/ RPL_VERSION_STRING)/\1$(VERSION)\2/'
VERSION_SED_bindings/python/pyproject.toml = -e 's/^version = ".*"/version = "$(VERSION)"/'
VERSION_SED_bindings/python/ripple/__init__.py = -e 's/^__version__ = ".*"/__version__ = "$(VERSION)"/'
VERSION_FILES := $(HEADER) Sources/RippleC/Handles.swift bindings/python/pyproject.toml bindings/python/ripple/__init__.py

set-version:
	@$(foreach f,$(VERSION_FILES),sed -i -E $(VERSION_SED_$(f)) $(f) &&) echo "version $(VERSION) written to $(VERSION_FILES)"

check-version:
	@$(foreach f,$(VERSION_FILES),grep -qE '$(VERSION)' $(f) && sed -E $(VERSION_SED_$(f)) $(f) | diff -u $(f) - &&) \
	  echo "version: $(VERSION) everywhere ($(VERSION_FILES))" || { echo "version differs from the Makefile's $(VERSION): run make set-version"; exit 1; }

# ---------------------------------------------------------------------------
# Debian packages (pkg/mkdeb.sh): libripple$(MAJOR), libripple-dev and the
# -dbgsym package, checked with lintian (errors fail the build).
DEBDIR   ?= $(OUT)/deb
# The packages' Maintainer field (lintian rejects made-up mail hosts); a
# packager building their own sets DEB_MAINTAINER='Name <address>'.
DEB_MAINTAINER ?= Ripple maintainers <maintainers@users.noreply.a-seed-924565b8.example>
DEB_DEPS := dpkg-deb:dpkg dpkg-shlibdeps:dpkg-dev lintian:lintian
deb-deps:
	@$(MAKE) --no-print-directory deps DEPS_BIN="$(DEB_DEPS)"

deb: deb-deps dist
	@DEBS=$$(VERSION=$(VERSION) MAJOR=$(MAJOR) SONAME=$(SONAME) REALNAME=$(REALNAME) DEBDIR=$(abspath $(DEBDIR)) \
	    WORK=$(CURDIR)/$(OUT)/deb-work MAKE="$(MAKE)" DEB_MAINTAINER="$(DEB_MAINTAINER)" bash pkg/mkdeb.sh) || exit 1; \
	for d in $$DEBS; do echo "$$d:"; dpkg-deb -f $$d Package Version Depends | sed 's/^/  /'; done; \
	echo "lintian:"; lintian --fail-on error --tag-display-limit 0 $$DEBS 2>&1 | sed 's/^/  /'; rc=$${PIPESTATUS[0]}; \
	test $$rc = 0 && echo "  no errors" || { echo "lintian reported errors"; exit 1; }

# The packages as a user gets them: unpacked, a C, a C++ and a CMake program
# build against -dev and run against the runtime package.
DT := $(CURDIR)/$(OUT)/deb-test
check-deb:
	@rm -rf $(DT)
	@$(MAKE) --no-print-directory deb DEBDIR=$(DT)/debs
	@MA=$$(dpkg-architecture -qDEB_HOST_MULTIARCH); R=$(DT)/root; mkdir -p $$R; \
	for d in $(DT)/debs/libripple$(MAJOR)_*.deb $(DT)/debs/libripple-dev_*.deb; do dpkg-deb -x $$d $$R || exit 1; done; \
	test "$$(dpkg-deb -f $(DT)/debs/libripple-dev_*.deb Depends)" = "libripple$(MAJOR) (= $(VERSION)-1)" || { echo "-dev must depend on the same runtime version"; exit 1; }; \
	for dep in libc6 libstdc++6 libgcc-s1; do dpkg-deb -f $(DT)/debs/libripple$(MAJOR)_*.deb Depends | grep -q "$$dep" || { echo "runtime does not depend on $$dep"; exit 1; }; done; \
	export PKG_CONFIG_PATH=$$R/usr/lib/$$MA/pkgconfig PKG_CONFIG_SYSROOT_DIR=$$R; \
	$(CC) -Wall -Werror Tests/install/consumer.c $$(pkg-config --cflags --libs ripple) -o $(DT)/consumer && \
	$(CXX) -std=c++17 -Wall -Werror Tests/install/consumer.cpp $$(pkg-config --cflags --libs ripple) -o $(DT)/consumer-cpp && \
	cmake -S examples-c/cmake -B $(DT)/cmake -DCMAKE_PREFIX_PATH=$$R/usr -DCMAKE_BUILD_TYPE=Release >/dev/null && \
	cmake --build $(DT)/cmake >/dev/null && \
	env -i LD_LIBRARY_PATH=$$R/usr/lib/$$MA $(DT)/consumer && env -i LD_LIBRARY_PATH=$$R/usr/lib/$$MA $(DT)/consumer-cpp && \
	env -i LD_LIBRARY_PATH=$$R/usr/lib/$$MA $(DT)/cmake/cmake_example >/dev/null && \
	echo "deb: C, C++ and CMake programs build against the unpacked libripple-dev and run"

# ---------------------------------------------------------------------------
# make docs: the HTML reference (Doxygen, from Debian's package), generated
# from ripple.h's own comments with docs/behaviour.md as the front page.
DOCS_OUT := $(CURDIR)/$(OUT)/docs
docs:
	@$(MAKE) --no-print-directory deps DEPS_BIN="doxygen:doxygen"
	@rm -rf $(DOCS_OUT) && mkdir -p $(DOCS_OUT)
	RIPPLE_VERSION=$(VERSION) DOCS_OUT=$(DOCS_OUT) doxygen pkg/Doxyfile
	@test -f $(DOCS_OUT)/html/index.html && grep -q rpl_signal_subscribe $(DOCS_OUT)/html/ripple_8h.html \
	  || { echo "make docs: no reference generated"; exit 1; }
	@if [ -s $(DOCS_OUT)/warnings.log ]; then cat $(DOCS_OUT)/warnings.log; fi
	@echo "docs: $(DOCS_OUT)/html/index.html"

swift-test:
	$(SWIFT) test --scratch-path .build 2>&1 | tail -n 25; exit $${PIPESTATUS[0]}

# Each binding brings bindings/<name>/check.sh (and demo.sh), run against the staged install.
bindings-check: stage
	@for s in $(wildcard bindings/*/check.sh); do echo "--- $$s"; \
	  STAGE=$(STAGE) OUT=$(CURDIR)/$(OUT) SONAME=$(SONAME) CC=$(CC) CXX=$(CXX) PYTHON=$(PYTHON) bash $$s || exit 1; done

SHELL := /bin/bash
# Suites kept in mk/*.mk add their targets to CHECK_EXTRA (run by make check, after the core ones).
check: deps lib check-header check-symbols check-probes check-version c-tests check-install check-deb docs swift-test valgrind \
       asan leak-selftest tsan bindings-check fuzz-check stress-check abi-check $(CHECK_EXTRA)
	@echo "make check: all passed"

# ---------------------------------------------------------------------------
# Reliability: the API-sequence fuzzer (Tests/fuzz) and the stress program
# (Tests/stress); each run is under a watchdog.
#   make fuzz [FUZZ_SECONDS=600]    libFuzzer against an ASan + coverage build
#                                   of the library; corpus in build/fuzz/corpus,
#                                   after the inputs of past findings (Tests/fuzz/regressions)
#   make fuzz-check                 the same for FUZZ_CHECK_SECONDS (60), in make check
#   make stress-check               STRESS_THREADS (8) threads for STRESS_SECONDS (20)
#                                   under TSan, in make check
#   make soak [SOAK_SECONDS=600]    the stress program against the shipped library
FUZZ_SECONDS       ?= 600
FUZZ_CHECK_SECONDS ?= 60
STRESS_SECONDS     ?= 20
STRESS_THREADS     ?= 8
SOAK_SECONDS       ?= 600
FUZZ_SCRATCH := .build-fuzz
FUZZ_BIN     := $(OUT)/fuzz/fuzz_api
# Swift code gets libFuzzer's inline 8-bit counters through LLVM options
# (swiftc's own -sanitize-coverage gives trace-pc-guard, which libFuzzer dropped).
FUZZ_SWIFT   := -Xswiftc -sanitize=address -Xswiftc -sanitize-coverage=edge,trace-cmp \
    -Xswiftc -Xllvm -Xswiftc -sanitizer-coverage-inline-8bit-counters -Xswiftc -Xllvm -Xswiftc -sanitizer-coverage-pc-table \
    -Xcc -fsanitize=address -Xcc -fsanitize-coverage=edge,trace-cmp,inline-8bit-counters,pc-table
# SWIFT_BACKTRACE: the Swift runtime's own crash handler would take the fatal
# signal first (and can hang on it): leave crashes to libFuzzer and the sanitizers.
# No leak suppressions: every input ends with every handle released, and the
# fuzzer then checks that the live-object count is back where it started
# (a cycle anywhere among runtime objects fails it), beside LeakSanitizer.
FUZZ_ENV     := SWIFT_BACKTRACE=enable=no ASAN_OPTIONS=detect_leaks=1:quarantine_size_mb=64

$(FUZZ_BIN): Tests/fuzz/fuzz_api.c $(HEADER) $(SOURCES)
	$(SWIFT) build -c release --product ripple --scratch-path $(FUZZ_SCRATCH) $(FUZZ_SWIFT) -Xswiftc -use-ld=lld \
	    -Xlinker --version-script -Xlinker $(CURDIR)/ripple.map \
	    -Xswiftc -Xfrontend -Xswiftc -disable-implicit-concurrency-module-import
	@mkdir -p $(dir $@)
	$(CC) -O1 -g $(WARN) -IInclude -fsanitize=fuzzer,address,undefined -fuse-ld=lld $< \
	    -L$(FUZZ_SCRATCH)/release -lripple -lm -Wl,-rpath,$(CURDIR)/$(FUZZ_SCRATCH)/release \
	    -Wl,-rpath,$(SWIFT_LIBDIR) -o $@

define run-fuzz
	@mkdir -p $(OUT)/fuzz/corpus $(OUT)/fuzz/artifacts
	cd $(OUT)/fuzz && $(FUZZ_ENV) timeout --kill-after=10 $$(( $(1) + 180 )) ./fuzz_api -max_total_time=$(1) \
	    -timeout=30 -rss_limit_mb=4096 -print_final_stats=1 -artifact_prefix=artifacts/ corpus $(CURDIR)/Tests/fuzz/regressions 2>&1 | \
	    grep -E '^(#[0-9]+[[:space:]]+DONE|Done |stat::number_of_executed_units|INFO: Loaded)|ERROR|SUMMARY|fuzz_api:|Test unit'; \
	    test $${PIPESTATUS[0]} -eq 0
endef

fuzz: $(FUZZ_BIN)
	$(call run-fuzz,$(FUZZ_SECONDS))

fuzz-check: $(FUZZ_BIN)
	$(call run-fuzz,$(FUZZ_CHECK_SECONDS))

stress-check: tsan
	@mkdir -p $(OUT)/tsan
	$(CC) $(TEST_CFLAGS) -fsanitize=thread Tests/stress/stress.c -L$(TSAN_SCRATCH)/release -lripple -lpthread \
	    -L$(SWIFT_LIBDIR) -ldispatch -lBlocksRuntime -Wl,-rpath,$(SWIFT_LIBDIR) \
	    -Wl,-rpath,$(CURDIR)/$(TSAN_SCRATCH)/release -o $(OUT)/tsan/stress
	SWIFT_BACKTRACE=enable=no TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1" timeout --kill-after=10 $$(( $(STRESS_SECONDS) + 120 )) \
	    $(OUT)/tsan/stress $(STRESS_SECONDS) $(STRESS_THREADS)

soak: $(LIB)
	@mkdir -p $(OUT)/stress
	$(CC) -O2 -g $(WARN) -IInclude Tests/stress/stress.c -L$(OUT)/lib -lripple -lpthread \
	    -Wl,-rpath,$(CURDIR)/$(OUT)/lib -o $(OUT)/stress/stress
	timeout --kill-after=10 $$(( $(SOAK_SECONDS) + 120 )) $(OUT)/stress/stress $(SOAK_SECONDS) $(STRESS_THREADS)

# ---------------------------------------------------------------------------
# ABI snapshots with libabigail. The library's DWARF is Swift, which
# libabigail ignores, so the types come from a C probe library with one
# `__typeof__(rpl_x) *abi_rpl_x` per exported function, typed by the header
# (@c @implementation makes the Swift side match it). The real .so gives the
# symbol list and versions.
#   make abi                      snapshot into build/abi/
#   make abi-check [BASELINE=abi] compare with a stored snapshot; fails on a
#                                 removed or changed function (added is fine)
#   make abi-baseline             store the current snapshot in abi/
ABI_OUT  := $(OUT)/abi
BASELINE ?= abi
abi-deps:
	@command -v abidw >/dev/null 2>&1 || { echo "installing: abigail-tools"; \
	  if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq --no-install-recommends abigail-tools >/dev/null; }

abi: abi-deps $(LIB)
	@mkdir -p $(ABI_OUT)
	@nm -D --defined-only $(LIB) | awk '$$3 ~ /^rpl_/ {sub(/@.*/,"",$$3); print $$3}' | sort -u > $(ABI_OUT)/symbols.txt
	@{ echo '/* generated by make abi: one typed pointer per exported function */'; echo '#include <ripple.h>'; \
	  while read -r f; do echo "__typeof__($$f) *abi_$$f = 0;"; done < $(ABI_OUT)/symbols.txt; } > $(ABI_OUT)/probe.c
	$(CC) -g -gdwarf-4 -O0 -shared -fPIC -IInclude $(ABI_OUT)/probe.c -o $(ABI_OUT)/libripple-probe.so
	abidw --no-show-locs --no-corpus-path --out-file $(ABI_OUT)/probe.abi $(ABI_OUT)/libripple-probe.so
	abidw --no-show-locs --no-corpus-path --out-file $(ABI_OUT)/libripple.abi $(LIB)
	@echo "abi: $$(wc -l < $(ABI_OUT)/symbols.txt) functions in $(ABI_OUT)/{probe,libripple}.abi"

abi-check: abi
	@test -f $(BASELINE)/probe.abi || { echo "no baseline in $(BASELINE)/ (make abi-baseline)"; exit 1; }
	abidiff --no-added-syms $(BASELINE)/probe.abi $(ABI_OUT)/probe.abi
	abidiff --no-added-syms $(BASELINE)/libripple.abi $(ABI_OUT)/libripple.abi
	@echo "abi-check: compatible with $(BASELINE)/"

abi-baseline: abi
	@mkdir -p abi && cp $(ABI_OUT)/probe.abi $(ABI_OUT)/libripple.abi abi/
	@echo "baseline stored in abi/"

# ---------------------------------------------------------------------------
bench: $(LIB) stage
	@mkdir -p $(OUT)
	$(CC) -O2 -g -Wall -IInclude $(BENCH_SRC) -L$(OUT)/lib -lripple -lpthread -Wl,-rpath,$(CURDIR)/$(OUT)/lib -o $(OUT)/bench
	$(OUT)/bench
	@echo
	@echo "Python binding (bindings/python/bench.py; make bench-python compares with RxPY):"
	RIPPLE_HEADER=$(STAGE)/include/ripple.h CC=$(CC) $(PYTHON) bindings/python/_build_backend/ripple_backend.py \
	  $(OUT)/python-ext >/dev/null
	RIPPLE_LIBRARY=$(STAGE)/lib/$(SONAME) RIPPLE_CEXT_DIR=$(CURDIR)/$(OUT)/python-ext \
	  PYTHONPATH=$(CURDIR)/bindings/python $(PYTHON) bindings/python/bench.py

# Python binding against RxPY (not part of make check): a virtualenv with
# reactivex from PyPI and the binding pip-installed (so with its compiled core,
# built against the staged header); Ripple, RxPY and a plain loop on the same
# workloads and lambdas in one run, with the ratios Ripple / RxPY.
PY_BENCH_VENV = $(OUT)/python-bench-venv
bench-python: stage
	rm -rf $(PY_BENCH_VENV)
	$(PYTHON) -m venv $(PY_BENCH_VENV)
	$(PY_BENCH_VENV)/bin/pip install -q --disable-pip-version-check reactivex cffi
	RIPPLE_HEADER=$(STAGE)/include/ripple.h CC=$(CC) $(PY_BENCH_VENV)/bin/pip install -q --disable-pip-version-check \
	  --no-build-isolation bindings/python
	cd $(OUT) && RIPPLE_LIBRARY=$(STAGE)/lib/$(SONAME) $(CURDIR)/$(PY_BENCH_VENV)/bin/python $(CURDIR)/bindings/python/bench.py

# ripple.hpp against the C API (bench/bench_cpp.cpp), built with each C++
# compiler present: subject -> 1, map -> filter -> scan, 100 subscribers, each
# row next to its C baseline from the same run (target: within 10%).
BENCH_CXXS ?= g++ clang++
.PHONY: bench-cpp
bench-cpp: $(LIB)
	@mkdir -p $(OUT)
	@$(CC) -O2 -g -Wall -Werror -IInclude -c bench/bench_chain.c -o $(OUT)/bench_chain.o
	@for cxx in $(BENCH_CXXS); do \
	  if ! command -v $$cxx >/dev/null 2>&1; then echo "bench-cpp: no $$cxx, skipped"; continue; fi; \
	  $$cxx -O2 -g -std=c++17 -Wall -Wextra -Werror -IInclude -Ibindings/cpp bench/bench_cpp.cpp $(OUT)/bench_chain.o -L$(OUT)/lib -lripple -lpthread \
	    -Wl,-rpath,$(CURDIR)/$(OUT)/lib -o $(OUT)/bench_cpp_$$cxx && echo && $(OUT)/bench_cpp_$$cxx || exit 1; done
bench: bench-cpp

clean:
	rm -rf $(OUT) $(SCRATCH) $(TSAN_SCRATCH) $(FUZZ_SCRATCH)
