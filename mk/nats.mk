# ---------------------------------------------------------------------------
# libripple-nats: Ripple signals through a NATS server (Include/ripple_nats.h,
# Sources/RippleNATS/*.c), a C library over the public API of libripple and
# Debian's libnats (nats.c). libripple itself does not depend on it. Its
# packages (nats-server, libnats-dev, openssl; nats-py, msgpack) are listed in
# scripts/deps/nats.apt and nats.pip, so make deps installs them.
#
#   make nats                build/lib/libripple-nats.so.$(VERSION)
#   make check-nats          the tests: Tests/nats/run.py starts and stops every
#                            nats-server itself on free loopback ports; each
#                            program plain, under valgrind, ASan and TSan, and
#                            the Python, C++ and Rust bindings' NATS tests
#                            against the staged install (cases python, cpp,
#                            rust; NATS_ONLY="core jetstream" runs some cases),
#                            and the API fuzzer for FUZZ_CHECK_SECONDS (case fuzz)
#   make fuzz-nats [FUZZ_SECONDS=600]
#                            the API-sequence fuzzer of libripple-nats
#                            (Tests/fuzz/fuzz_nats.c) against servers run.py
#                            starts; corpus in build/fuzz-nats/corpus, after
#                            the committed inputs of Tests/fuzz/nats
#   make install-nats        beside make install (same directory variables);
#   make uninstall-nats      scripts/install.sh install-nats holds the layout
#   make check-install-nats  pkg-config, CMake component, man pages, uninstall
#   make deb-nats            libripple-nats$(MAJOR), libripple-nats-dev (lintian)
#   make bench-nats          the bench rows beside libnats used directly
# make check runs check-nats, check-install-nats, deb-nats and
# check-header-nats; make demo runs the two NATS examples (demo-nats).
NATS_LIBNAME  := libripple-nats.so
NATS_SONAME   := $(NATS_LIBNAME).$(MAJOR)
NATS_REALNAME := $(NATS_LIBNAME).$(VERSION)
NATS_LIB      := $(OUT)/lib/$(NATS_REALNAME)
NATS_HEADER   := Include/ripple_nats.h
NATS_SRC      := $(wildcard Sources/RippleNATS/*.c)
NATS_DEPS_H   := $(wildcard Sources/RippleNATS/*.h) $(NATS_HEADER) $(HEADER)
NATS_CFLAGS   := -O2 -g -gdwarf-4 $(WARN) -D_GNU_SOURCE -fPIC -fvisibility=hidden -IInclude
NATS_MANOUT   := $(OUT)/man-nats
NATS_MAN_ARGS := --name ripple-nats --summary "Ripple signals across processes and machines through NATS and JetStream"

# The C library is not part of the Swift build, and the NATS examples need a
# server: they run in demo-nats, not in the plain example loop.
SOURCES  := $(filter-out Sources/RippleNATS/%,$(SOURCES))
EXAMPLES := $(filter-out nats_%,$(EXAMPLES))

.PHONY: nats check-nats fuzz-nats install-nats uninstall-nats check-install-nats deb-nats bench-nats demo-nats check-header-nats

$(NATS_LIB): $(NATS_SRC) $(NATS_DEPS_H) $(LIB) | $(DEPS_OK)
	@mkdir -p $(OUT)/lib
	$(CC) $(NATS_CFLAGS) -shared $(NATS_SRC) -o $@ -Wl,-soname,$(NATS_SONAME) -Wl,--build-id=sha1 -Wl,-z,now -Wl,-z,relro \
	    -Wl,--no-undefined -L$(OUT)/lib -lripple -lnats -lpthread
	ln -sf $(NATS_REALNAME) $(OUT)/lib/$(NATS_SONAME)
	ln -sf $(NATS_SONAME) $(OUT)/lib/$(NATS_LIBNAME)
nats: $(NATS_LIB)

# ---------------------------------------------------------------------------
# Test programs (Tests/nats/*.c): against the built libraries; under ASan and
# TSan with the library's sources compiled in (TSan: against the TSan flavour
# of libripple).
NATS_TESTS := $(patsubst Tests/nats/%.c,%,$(wildcard Tests/nats/*.c))
NATS_TEST_H := $(wildcard Tests/nats/*.h) $(NATS_HEADER)
NATS_LINK   = -L$(OUT)/lib -lripple-nats -lripple -lnats -lpthread -Wl,-rpath,$(CURDIR)/$(OUT)/lib
$(OUT)/nats/%: Tests/nats/%.c $(NATS_TEST_H) $(NATS_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(TEST_CFLAGS) -ITests/nats $< $(NATS_LINK) -o $@
$(OUT)/nats-asan/%: Tests/nats/%.c $(NATS_TEST_H) $(NATS_SRC) $(NATS_DEPS_H) $(LIB) | $(DEPS_OK)
	@mkdir -p $(dir $@)
	$(CC) $(ASAN_CFLAGS) -ITests/nats -D_GNU_SOURCE $< $(NATS_SRC) -L$(OUT)/lib -lripple -lnats -lpthread \
	    -Wl,-rpath,$(CURDIR)/$(OUT)/lib -o $@
$(OUT)/nats-tsan/%: Tests/nats/%.c $(NATS_TEST_H) $(NATS_SRC) $(NATS_DEPS_H) $(TSAN_LIB) | $(DEPS_OK)
	@mkdir -p $(dir $@)
	$(CC) $(TSAN_CFLAGS) -ITests/nats -D_GNU_SOURCE $< $(NATS_SRC) -lnats $(TSAN_LINK) -o $@

# The examples, built like the others: against the staged install (with
# libripple-nats installed into it too), through pkg-config.
NATS_EXAMPLES := $(patsubst examples-c/%.c,%,$(wildcard examples-c/nats_*.c))
NATS_STAGE_OK := $(OUT)/.stage-nats-ok
$(NATS_STAGE_OK): $(STAGE_OK) $(NATS_LIB) $(NATS_MANOUT)/ripple-nats.3 scripts/install.sh bindings/cpp/ripple_nats.hpp pkg/ripple-nats.pc.in pkg/Ripple-nats.cmake.in
	$(NATS_INSTALL_SH) install-nats prefix=$(STAGE) LDCONFIG= >/dev/null
	@touch $@
$(OUT)/nats/examples/%: examples-c/%.c $(NATS_STAGE_OK)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(WARN) $< $$($(PKG) --cflags --libs ripple-nats) -o $@

# The C++ binding's test (bindings/cpp/test_nats.cpp), like bindings/cpp's
# own: against the staged install (ripple.hpp, ripple_nats.hpp), under ASan
# and UBSan, as C++17 and C++20.
NATS_CPP_STDS := c++17 c++20
$(OUT)/nats/test_nats_c++%: bindings/cpp/test_nats.cpp bindings/cpp/check.hpp $(NATS_STAGE_OK)
	@mkdir -p $(dir $@)
	$(CXX) -std=c++$* -O1 -g -Wall -Wextra -Werror -pedantic -fsanitize=address,undefined -fno-omit-frame-pointer \
	    -fno-sanitize-recover=undefined -fuse-ld=lld -I$(STAGE)/include $< -L$(STAGE)/lib -lripple-nats -lripple -lpthread -o $@

# The API fuzzer (libFuzzer): the library's sources compiled in with the
# fuzzer's coverage, ASan and UBSan, against the FUZZ flavour of libripple
# (mk/reliability.mk's); it reaches the codec through the private header.
NATS_FUZZ_BIN := $(OUT)/fuzz/fuzz_nats
$(NATS_FUZZ_BIN): Tests/fuzz/fuzz_nats.c $(NATS_SRC) $(NATS_DEPS_H) $(FUZZ_LIB) | $(DEPS_OK)
	@mkdir -p $(dir $@)
	$(CC) -O1 -g $(WARN) -D_GNU_SOURCE -IInclude -ISources/RippleNATS -fsanitize=fuzzer,address,undefined -fuse-ld=lld \
	    $< $(NATS_SRC) -L$(FUZZ_LIBDIR) -lripple -lnats -lpthread -lm -Wl,-rpath,$(CURDIR)/$(FUZZ_LIBDIR) \
	    -Wl,-rpath,$(SWIFT_LIBDIR) -o $@

NATS_BINS := $(NATS_FUZZ_BIN) $(addprefix $(OUT)/nats/test_nats_,$(NATS_CPP_STDS)) $(addprefix $(OUT)/nats/,$(NATS_TESTS)) $(addprefix $(OUT)/nats-asan/,$(NATS_TESTS)) \
             $(addprefix $(OUT)/nats-tsan/,$(NATS_TESTS)) $(addprefix $(OUT)/nats/examples/,$(NATS_EXAMPLES))
NATS_RUN = NATS_OUT=$(CURDIR)/$(OUT) NATS_FUZZ_SECONDS=$(FUZZ_CHECK_SECONDS) NATS_STAGE_LIB=$(STAGE)/lib NATS_VG_LIB=$(CURDIR)/$(VG_LIB) NATS_VALGRIND="$(VALGRIND)" \
    NATS_LSAN=$(CURDIR)/Tests/lsan_check.sh NATS_TSAN=$(CURDIR)/$(OUT)/nats-tsan SWIFT_BACKTRACE=enable=no \
    timeout --kill-after=10 900 $(PYTHON) Tests/nats/run.py

check-nats: $(NATS_BINS) $(VG_SO) | $(DEPS_OK)
	$(NATS_RUN) $(NATS_ONLY)
CHECK_EXTRA += check-nats

fuzz-nats: $(NATS_FUZZ_BIN) | $(DEPS_OK)
	NATS_OUT=$(CURDIR)/$(OUT) NATS_FUZZ_SECONDS=$(FUZZ_SECONDS) NATS_FUZZ_CORPUS=$(CURDIR)/$(OUT)/fuzz-nats/corpus timeout --kill-after=10 $$(( $(FUZZ_SECONDS) + 600 )) \
	    $(PYTHON) Tests/nats/run.py fuzz

demo-nats: $(addprefix $(OUT)/nats/examples/,$(NATS_EXAMPLES)) | $(DEPS_OK)
	@echo "=== examples-c/nats_consumer + nats_producer (through a nats-server started for them) ==="
	@$(NATS_RUN) examples
demo: demo-nats

# ---------------------------------------------------------------------------
# Install: scripts/install.sh install-nats / uninstall-nats, with the man
# pages pkg/manpages.py makes from ripple_nats.h.
$(NATS_MANOUT)/ripple-nats.3: $(NATS_HEADER) pkg/manpages.py
	$(MANGEN) $(NATS_HEADER) $(NATS_MANOUT) --version $(VERSION) $(NATS_MAN_ARGS)
NATS_ENV = NATS_LIB=$(CURDIR)/$(NATS_LIB) NATS_LIBNAME=$(NATS_LIBNAME) NATS_SONAME=$(NATS_SONAME) \
    NATS_REALNAME=$(NATS_REALNAME) NATS_MANOUT=$(CURDIR)/$(NATS_MANOUT) NATS_HEADER=$(NATS_HEADER)
NATS_INSTALL_SH = $(NATS_ENV) $(INSTALL_SH)

install-nats: $(NATS_LIB) $(NATS_MANOUT)/ripple-nats.3
	$(NATS_INSTALL_SH) install-nats $(USER_INSTALL_VARS)
uninstall-nats:
	$(NATS_INSTALL_SH) uninstall-nats $(USER_INSTALL_VARS)

# A fresh prefix with libripple and libripple-nats: a C program builds with
# pkg-config and a CMake one with find_package(Ripple COMPONENTS nats), man
# finds a page for each exported function, and uninstall-nats takes back all
# it added.
NIT := $(CURDIR)/$(OUT)/nats-install-test
check-install-nats: $$(INSTALLED) $(NATS_LIB) $(NATS_MANOUT)/ripple-nats.3 | $(DEPS_OK)
	@rm -rf $(NIT) && mkdir -p $(NIT)
	@$(INSTALL_SH) install prefix=$(NIT)/prefix LDCONFIG= >/dev/null
	@$(NATS_INSTALL_SH) install-nats prefix=$(NIT)/prefix LDCONFIG= >/dev/null
	@P=$(NIT)/prefix; export PKG_CONFIG_PATH=$$P/lib/pkgconfig; \
	  $(CC) -Wall -Werror examples-c/nats_producer.c $$(pkg-config --cflags --libs ripple-nats) -o $(NIT)/producer && \
	  readelf -d $(NIT)/producer | grep -q 'NEEDED.*$(NATS_SONAME)' && \
	  ! readelf -S $$P/lib/$(NATS_REALNAME) | grep -qE '\.debug_info|\.symtab' && \
	  cmake -S Tests/nats/cmake -B $(NIT)/cmake -DCMAKE_PREFIX_PATH=$$P -DCMAKE_BUILD_TYPE=Release >/dev/null && \
	  cmake --build $(NIT)/cmake >/dev/null && env -i LD_LIBRARY_PATH=$$P/lib $(NIT)/cmake/nats_cmake_probe && \
	  case "$$(MANPATH=$$P/share/man man -w rpl_nats_stream_subscribe)" in $$P/share/man/man3/ripple-nats-*.3) ;; \
	    *) echo "man cannot find rpl_nats_stream_subscribe"; exit 1;; esac && \
	  nm -D --defined-only $$P/lib/$(NATS_REALNAME) | awk '$$3 ~ /^rpl_/ {print $$3}' | sort > $(NIT)/exported.txt && \
	  $(MANGEN) $(NATS_HEADER) --functions $(NATS_MAN_ARGS) | diff -u $(NIT)/exported.txt - || { echo "check-install-nats failed"; exit 1; }
	@$(NATS_INSTALL_SH) uninstall-nats prefix=$(NIT)/prefix >/dev/null
	@! find $(NIT)/prefix -name '*nats*' | grep -q . || { echo "uninstall-nats left:"; find $(NIT)/prefix -name '*nats*'; exit 1; }
	@echo "install-nats: pkg-config ripple-nats, find_package(Ripple COMPONENTS nats), man pages for all $$(wc -l < $(NIT)/exported.txt) functions; uninstall-nats removes them"
CHECK_EXTRA += check-install-nats

# Debian packages (pkg/mkdeb-nats.sh), checked with lintian like make deb's.
NATS_DEBDIR ?= $(OUT)/deb-nats
deb-nats: $$(INSTALLED) $(NATS_LIB) $(NATS_MANOUT)/ripple-nats.3 | $(DEPS_OK)
	$(call build-debs,$(NATS_DEBDIR),$(CURDIR)/$(OUT)/deb-nats-work,pkg/mkdeb-nats.sh,$(NATS_ENV))
CHECK_EXTRA += deb-nats

# The header compiles as C99 and C++, pedantic.
check-header-nats: | $(DEPS_OK)
	$(call compile-header,ripple_nats.h)
CHECK_EXTRA += check-header-nats

# ---------------------------------------------------------------------------
# make bench-nats: bench/nats/bench_nats.c against a nats-server that
# Tests/nats/run.py starts and stops.
$(OUT)/nats/bench_nats: bench/nats/bench_nats.c $(NATS_HEADER) $(NATS_LIB)
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -Wall -Wextra -Werror -IInclude $< $(NATS_LINK) -o $@
bench-nats: $(OUT)/nats/bench_nats | $(DEPS_OK)
	NATS_OUT=$(CURDIR)/$(OUT) $(PYTHON) Tests/nats/run.py bench
