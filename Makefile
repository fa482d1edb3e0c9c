# Ripple: build, install and test libripple.so (a Swift runtime behind a C ABI).
#
#   make                  build build/lib/libripple.so.$(VERSION) (release, static Swift runtime)
#   make demo             build, install into build/stage, compile and run the C examples
#   make check            every test: Swift, C (plain, valgrind, ASan, TSan), header, symbols, bindings
#   make bench            the benchmark table
#   make install PREFIX=/usr/local [DESTDIR=...]   /  make uninstall (same variables)
#
# Every tool the targets need is installed on first use (deps), as on a fresh machine.

VERSION     := 0.1.0
MAJOR       := 0
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

SOURCES     := $(shell find Sources -name '*.swift' -o -name '*.c' -o -name '*.h') Package.swift ripple.map Makefile
HEADER      := Include/ripple.h
STAMP       := $(SCRATCH)/.header-stamp

C_TESTS     := $(patsubst Tests/c/%.c,%,$(wildcard Tests/c/test_*.c))
EXAMPLES    := $(patsubst examples-c/%.c,%,$(wildcard examples-c/*.c))
CXX_EXAMPLES := $(patsubst examples-c/%.cpp,%,$(wildcard examples-c/*.cpp))
BENCH_SRC   := $(wildcard bench/*.c)

.PHONY: all lib deps install uninstall demo check bench clean swift-test c-tests \
        check-header check-symbols check-install valgrind asan tsan examples bindings-check FORCE \
        abi abi-deps abi-check abi-baseline fuzz fuzz-check stress-check soak

all: lib

# ---------------------------------------------------------------------------
# Tools a fresh machine may lack (Debian packages).
DEPS_BIN := valgrind:valgrind pkg-config:pkg-config cmake:cmake
deps:
	@missing=""; for pair in $(DEPS_BIN); do bin=$${pair%%:*}; pkg=$${pair#*:}; \
	  command -v $$bin >/dev/null 2>&1 || missing="$$missing $$pkg"; done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq --no-install-recommends $$missing >/dev/null; \
	fi

# ---------------------------------------------------------------------------
# The library. SwiftPM does not rebuild Swift code when the header changes, so
# the @c @implementation check would be skipped: touch the sources instead.
$(STAMP): $(HEADER) Include/module.modulemap
	@mkdir -p $(SCRATCH)
	@find Sources -name '*.swift' -exec touch {} +
	@touch $@

$(SCRATCH)/release/$(LIBNAME): $(STAMP) $(SOURCES)
	$(SWIFT_BUILD)
	@touch $@

$(LIB): $(SCRATCH)/release/$(LIBNAME)
	@mkdir -p $(OUT)/lib
	cp -f $< $@
	ln -sf $(REALNAME) $(OUT)/lib/$(SONAME)
	ln -sf $(SONAME) $(OUT)/lib/$(LIBNAME)

lib: $(LIB)

# ---------------------------------------------------------------------------
# Install / uninstall (DESTDIR only here, never baked into files).
install: $(LIB)
	$(INSTALL) -d $(DESTDIR)$(libdir) $(DESTDIR)$(includedir) $(DESTDIR)$(pkgconfigdir) $(DESTDIR)$(cmakedir)
	$(INSTALL) -m 0755 $(LIB) $(DESTDIR)$(libdir)/$(REALNAME)
	ln -sf $(REALNAME) $(DESTDIR)$(libdir)/$(SONAME)
	ln -sf $(SONAME) $(DESTDIR)$(libdir)/$(LIBNAME)
	$(INSTALL) -m 0644 $(HEADER) $(DESTDIR)$(includedir)/ripple.h
	sed -e 's|@PREFIX@|$(prefix)|g' -e 's|@LIBDIR@|$(libdir)|g' -e 's|@INCLUDEDIR@|$(includedir)|g' \
	    -e 's|@VERSION@|$(VERSION)|g' pkg/ripple.pc.in > $(DESTDIR)$(pkgconfigdir)/ripple.pc
	chmod 0644 $(DESTDIR)$(pkgconfigdir)/ripple.pc
	librel=$$(realpath -m --relative-to=$(prefix) $(libdir)); increl=$$(realpath -m --relative-to=$(prefix) $(includedir)); \
	sed -e "s|@LIBREL@|$$librel|g" -e "s|@INCLUDEREL@|$$increl|g" -e 's|@VERSION@|$(VERSION)|g' -e 's|@MAJOR@|$(MAJOR)|g' \
	    pkg/RippleConfig.cmake.in > $(DESTDIR)$(cmakedir)/RippleConfig.cmake
	sed -e 's|@VERSION@|$(VERSION)|g' -e 's|@MAJOR@|$(MAJOR)|g' \
	    pkg/RippleConfigVersion.cmake.in > $(DESTDIR)$(cmakedir)/RippleConfigVersion.cmake
	chmod 0644 $(DESTDIR)$(cmakedir)/RippleConfig.cmake $(DESTDIR)$(cmakedir)/RippleConfigVersion.cmake
	@# Refresh the loader cache for a real install as root. No directory argument:
	@# that would add $(libdir) to the system cache even when it is not a configured
	@# library directory (a build tree, a staging prefix).
	@if [ -z "$(DESTDIR)" ] && [ -n "$(LDCONFIG)" ] && [ "$$(id -u)" = 0 ] && command -v $(LDCONFIG) >/dev/null; then $(LDCONFIG) 2>/dev/null || true; fi

uninstall:
	rm -f $(DESTDIR)$(libdir)/$(REALNAME) $(DESTDIR)$(libdir)/$(SONAME) $(DESTDIR)$(libdir)/$(LIBNAME) \
	      $(DESTDIR)$(includedir)/ripple.h $(DESTDIR)$(pkgconfigdir)/ripple.pc \
	      $(DESTDIR)$(cmakedir)/RippleConfig.cmake $(DESTDIR)$(cmakedir)/RippleConfigVersion.cmake
	-rmdir $(DESTDIR)$(cmakedir) 2>/dev/null

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
	@for e in $(EXAMPLES) $(CXX_EXAMPLES); do \
	  echo "=== examples-c/$$e ==="; LD_LIBRARY_PATH=$(STAGE)/lib $(OUT)/examples/$$e || exit 1; echo; done
	@echo "=== examples-c/cmake (find_package(Ripple)) ==="; LD_LIBRARY_PATH=$(STAGE)/lib $(OUT)/cmake-example/cmake_example
	@for s in $(wildcard bindings/*/demo.sh); do echo; echo "=== $$s ==="; \
	  STAGE=$(STAGE) OUT=$(CURDIR)/$(OUT) SONAME=$(SONAME) CC=$(CC) CXX=$(CXX) PYTHON=$(PYTHON) bash $$s || exit 1; done

# ---------------------------------------------------------------------------
# C tests: Tests/c/test_*.c, each a program that exits 0 and prints
# "N passed, 0 failed". Built three ways: plain, ASan and TSan.
TEST_CFLAGS := -O1 -g -gdwarf-4 $(WARN) -IInclude -ITests/c
$(OUT)/tests/%: Tests/c/%.c Tests/c/check.h $(HEADER) $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(TEST_CFLAGS) $< -L$(OUT)/lib -lripple -lpthread -Wl,-rpath,$(CURDIR)/$(OUT)/lib -o $@

# Every test program runs under a watchdog, so a hang fails the run instead
# of stalling it (timeout exits 124; a second signal follows if TERM is ignored).
TEST_TIMEOUT ?= 300
WATCHDOG    = timeout --kill-after=10 $(TEST_TIMEOUT)

c-tests: $(addprefix $(OUT)/tests/,$(C_TESTS))
	@for t in $(C_TESTS); do echo "--- $$t"; $(WATCHDOG) $(OUT)/tests/$$t || exit 1; done

VALGRIND := valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite --show-leak-kinds=definite \
    --suppressions=$(CURDIR)/Tests/valgrind.supp
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
	  echo "--- asan $$t"; ASAN_OPTIONS=detect_leaks=1 LSAN_OPTIONS=suppressions=$(CURDIR)/Tests/lsan.supp $(WATCHDOG) $(OUT)/asan/$$t >/dev/null || exit 1; done

# TSan needs the runtime instrumented too (its atomics hand data between
# threads), so the library is rebuilt with -sanitize=thread for this run.
# The toolchain's TSan runtime intercepts libdispatch, so the test programs
# link the toolchain's libdispatch and BlocksRuntime too.
TSAN_SCRATCH := .build-tsan
SWIFT_LIBDIR = $(shell dirname $$(dirname $$(readlink -f $$(command -v $(SWIFT)))))/lib/swift/linux
tsan:
	$(SWIFT) build -c release --product ripple --scratch-path $(TSAN_SCRATCH) -Xswiftc -sanitize=thread -Xswiftc -use-ld=lld \
	    -Xlinker --version-script -Xlinker $(CURDIR)/ripple.map \
	    -Xswiftc -Xfrontend -Xswiftc -disable-implicit-concurrency-module-import
	@mkdir -p $(OUT)/tsan
	@for t in $(C_TESTS); do \
	  $(CC) $(TEST_CFLAGS) -fsanitize=thread Tests/c/$$t.c -L$(TSAN_SCRATCH)/release -lripple -lpthread \
	    -L$(SWIFT_LIBDIR) -ldispatch -lBlocksRuntime -Wl,-rpath,$(SWIFT_LIBDIR) \
	    -Wl,-rpath,$(CURDIR)/$(TSAN_SCRATCH)/release -o $(OUT)/tsan/$$t || exit 1; \
	  echo "--- tsan $$t"; RIPPLE_TEST_QUICK=1 TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1" $(WATCHDOG) $(OUT)/tsan/$$t >/dev/null || exit 1; done

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
	@clang -E -P -IInclude $(HEADER) | grep -oE '\brpl_[a-z0-9_]+ *\(' | tr -d ' (' | sort -u > $(OUT)/header-syms.txt
	@nm -D --defined-only $(LIB) | awk '$$3 != "" {sub(/@.*/,"",$$3); print $$3}' | grep -v '^RIPPLE_' | sort -u > $(OUT)/lib-syms.txt
	@diff -u $(OUT)/header-syms.txt $(OUT)/lib-syms.txt && echo "symbols: $$(wc -l < $(OUT)/lib-syms.txt) rpl_* exported, all declared"
	@! readelf -d $(LIB) | grep -E 'NEEDED.*libswift|RUNPATH|RPATH' || { echo "unexpected NEEDED/RUNPATH"; exit 1; }
	@readelf -d $(LIB) | grep -q 'SONAME.*\[$(SONAME)\]'

# A fresh prefix, a program built with pkg-config, run with only that lib dir.
check-install: deps $(LIB)
	@rm -rf $(OUT)/install-test && mkdir -p $(OUT)/install-test
	$(MAKE) --no-print-directory install prefix=/usr/local DESTDIR=$(CURDIR)/$(OUT)/install-test/destdir >/dev/null
	@test -L $(OUT)/install-test/destdir/usr/local/lib/$(SONAME) && test -f $(OUT)/install-test/destdir/usr/local/lib/pkgconfig/ripple.pc
	$(MAKE) --no-print-directory uninstall prefix=/usr/local DESTDIR=$(CURDIR)/$(OUT)/install-test/destdir >/dev/null
	@test -z "$$(find $(OUT)/install-test/destdir -type f -o -type l)" || { echo "uninstall left files"; exit 1; }
	$(MAKE) --no-print-directory install PREFIX=$(CURDIR)/$(OUT)/install-test/prefix LDCONFIG= >/dev/null
	P=$(CURDIR)/$(OUT)/install-test/prefix; PKG_CONFIG_PATH=$$P/lib/pkgconfig; export PKG_CONFIG_PATH; \
	  $(CC) -Wall -Werror Tests/install/consumer.c $$(pkg-config --cflags --libs ripple) -o $(OUT)/install-test/consumer && \
	  env -i LD_LIBRARY_PATH=$$P/lib $(OUT)/install-test/consumer
	@echo "install: OK"

swift-test:
	$(SWIFT) test --scratch-path .build 2>&1 | tail -n 25; exit $${PIPESTATUS[0]}

# Each binding brings bindings/<name>/check.sh (and demo.sh), run against the staged install.
bindings-check: stage
	@for s in $(wildcard bindings/*/check.sh); do echo "--- $$s"; \
	  STAGE=$(STAGE) OUT=$(CURDIR)/$(OUT) SONAME=$(SONAME) CC=$(CC) CXX=$(CXX) PYTHON=$(PYTHON) bash $$s || exit 1; done

SHELL := /bin/bash
check: deps lib check-header check-symbols c-tests check-install swift-test valgrind asan tsan bindings-check \
       fuzz-check stress-check abi-check
	@echo "make check: all passed"

# ---------------------------------------------------------------------------
# Reliability: the API-sequence fuzzer (Tests/fuzz) and the stress program
# (Tests/stress); each run is under a watchdog.
#   make fuzz [FUZZ_SECONDS=600]    libFuzzer against an ASan + coverage build
#                                   of the library; corpus in build/fuzz/corpus
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
FUZZ_ENV     := SWIFT_BACKTRACE=enable=no ASAN_OPTIONS=detect_leaks=1:quarantine_size_mb=64 \
    LSAN_OPTIONS=suppressions=$(CURDIR)/Tests/lsan.supp

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
	    -timeout=30 -rss_limit_mb=4096 -print_final_stats=1 -artifact_prefix=artifacts/ corpus 2>&1 | \
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
	@echo "Python binding (bindings/python/bench.py):"
	RIPPLE_LIBRARY=$(STAGE)/lib/$(SONAME) PYTHONPATH=$(CURDIR)/bindings/python $(PYTHON) bindings/python/bench.py

clean:
	rm -rf $(OUT) $(SCRATCH) $(TSAN_SCRATCH) $(FUZZ_SCRATCH)
