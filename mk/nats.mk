# ---------------------------------------------------------------------------
# libripple-nats: Ripple signals through a NATS server (Include/ripple_nats.h,
# Sources/RippleNATS/*.c), a C library over the public API of libripple and
# Debian's libnats (nats.c). libripple itself does not depend on it.
#
#   make nats             build/lib/libripple-nats.so.$(VERSION)
#   make nats-deps        nats-server, libnats-dev, openssl (Debian) and a
#                         virtualenv with nats-py and msgpack (PyPI) for the
#                         interop test
#   make check-nats       the tests (Tests/nats/run.py starts and stops every
#                         nats-server itself on free loopback ports), plain,
#                         under valgrind and ASan; in make check
#   make bench-nats       the bench rows beside libnats used directly
NATS_LIBNAME  := libripple-nats.so
NATS_SONAME   := $(NATS_LIBNAME).$(MAJOR)
NATS_REALNAME := $(NATS_LIBNAME).$(VERSION)
NATS_LIB      := $(OUT)/lib/$(NATS_REALNAME)
NATS_HEADER   := Include/ripple_nats.h
NATS_SRC      := $(wildcard Sources/RippleNATS/*.c)
NATS_DEPS_H   := $(wildcard Sources/RippleNATS/*.h) $(NATS_HEADER) $(HEADER)
NATS_CFLAGS   := -O2 -g -gdwarf-4 $(WARN) -D_GNU_SOURCE -fPIC -fvisibility=hidden -IInclude
NATS_VENV     := $(OUT)/nats-venv
NATS_PY       := $(NATS_VENV)/bin/python

# The C library is not part of the Swift build: keep its sources out of the
# list that triggers `swift build`, and the NATS examples out of the plain
# example loop (they need a server; make demo runs them with one, below).
SOURCES  := $(filter-out Sources/RippleNATS/%,$(SOURCES))
EXAMPLES := $(filter-out nats_%,$(EXAMPLES))

.PHONY: nats nats-deps check-nats bench-nats demo-nats

# Debian packages (name:a file it installs) and the PyPI modules the tests
# use; idempotent.
NATS_DEBS := nats-server:/usr/sbin/nats-server libnats-dev:/usr/include/nats/nats.h openssl:/usr/bin/openssl \
             python3-venv:/usr/share/doc/python3-venv
nats-deps:
	@missing=""; for pair in $(NATS_DEBS); do pkg=$${pair%%:*}; f=$${pair#*:}; \
	  test -e $$f || missing="$$missing $$pkg"; done; \
	if [ -n "$$missing" ]; then echo "installing:$$missing"; \
	  if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi; \
	  $$SUDO apt-get -o DPkg::Lock::Timeout=300 update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get -o DPkg::Lock::Timeout=300 \
	    install -y -qq --no-install-recommends $$missing >/dev/null || exit 1; fi
	@$(NATS_PY) -c 'import nats, msgpack' 2>/dev/null || { echo "installing: nats-py msgpack (PyPI, in $(NATS_VENV))"; \
	  rm -rf $(NATS_VENV) && $(PYTHON) -m venv $(NATS_VENV) && \
	  $(NATS_VENV)/bin/pip install -q --disable-pip-version-check nats-py msgpack; }

$(NATS_LIB): $(NATS_SRC) $(NATS_DEPS_H) $(LIB) | nats-deps
	@mkdir -p $(OUT)/lib
	$(CC) $(NATS_CFLAGS) -shared $(NATS_SRC) -o $@ -Wl,-soname,$(NATS_SONAME) -Wl,--build-id=sha1 -Wl,-z,now -Wl,-z,relro \
	    -Wl,--no-undefined -L$(OUT)/lib -lripple -lnats -lpthread
	ln -sf $(NATS_REALNAME) $(OUT)/lib/$(NATS_SONAME)
	ln -sf $(NATS_SONAME) $(OUT)/lib/$(NATS_LIBNAME)

nats: $(NATS_LIB)

# Test programs: Tests/nats/*.c against the built libraries; the ASan build
# compiles the library's sources in.
NATS_TESTS := $(patsubst Tests/nats/%.c,%,$(wildcard Tests/nats/*.c))
NATS_TEST_LINK = -L$(OUT)/lib -lripple-nats -lripple -lnats -lpthread -Wl,-rpath,$(CURDIR)/$(OUT)/lib
$(OUT)/nats/%: Tests/nats/%.c $(wildcard Tests/nats/*.h) $(NATS_HEADER) $(NATS_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(TEST_CFLAGS) -ITests/nats $< $(NATS_TEST_LINK) -o $@
$(OUT)/nats-asan/%: Tests/nats/%.c $(wildcard Tests/nats/*.h) $(NATS_HEADER) $(NATS_SRC) $(NATS_DEPS_H) $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(TEST_CFLAGS) -ITests/nats -D_GNU_SOURCE -fsanitize=address,undefined -fno-omit-frame-pointer -fuse-ld=lld \
	    $< $(NATS_SRC) -L$(OUT)/lib -lripple -lnats -lpthread -Wl,-rpath,$(CURDIR)/$(OUT)/lib -o $@
$(OUT)/nats/examples/%: examples-c/%.c $(NATS_HEADER) $(NATS_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(WARN) -IInclude $< $(NATS_TEST_LINK) -o $@

# TSan: the test programs with the library's sources against the TSan build
# of libripple that `make tsan` makes (make check runs tsan first; alone,
# check-nats runs the TSan variant when that library is there).
NATS_TSAN_BINS := $(addprefix $(OUT)/nats-tsan/,$(NATS_TESTS))
$(OUT)/nats-tsan/%: Tests/nats/%.c $(wildcard Tests/nats/*.h) $(NATS_HEADER) $(NATS_SRC) $(NATS_DEPS_H)
	@mkdir -p $(dir $@)
	$(CC) $(TEST_CFLAGS) -ITests/nats -D_GNU_SOURCE -fsanitize=thread $< $(NATS_SRC) -L$(TSAN_SCRATCH)/release -lripple \
	    -lnats -lpthread -L$(SWIFT_LIBDIR) -ldispatch -lBlocksRuntime -Wl,-rpath,$(SWIFT_LIBDIR) \
	    -Wl,-rpath,$(CURDIR)/$(TSAN_SCRATCH)/release -o $@

NATS_EXAMPLES := $(patsubst examples-c/%.c,%,$(wildcard examples-c/nats_*.c))
NATS_BINS := $(addprefix $(OUT)/nats/,$(NATS_TESTS)) $(addprefix $(OUT)/nats-asan/,$(NATS_TESTS)) \
             $(addprefix $(OUT)/nats/examples/,$(NATS_EXAMPLES))
NATS_RUN = NATS_OUT=$(CURDIR)/$(OUT) NATS_PY=$(CURDIR)/$(NATS_PY) NATS_VG_LIB=$(CURDIR)/$(VG_LIB) \
           NATS_VALGRIND="$(VALGRIND)" NATS_LSAN=$(CURDIR)/Tests/lsan_check.sh timeout --kill-after=10 900 $(PYTHON) Tests/nats/run.py

check-nats: nats-deps $(NATS_BINS)
	@mkdir -p $(VG_LIB) && objcopy --strip-debug $(LIB) $(VG_LIB)/$(SONAME)
	@if [ -f $(TSAN_SCRATCH)/release/libripple.so ]; then $(MAKE) --no-print-directory $(NATS_TSAN_BINS) || exit 1; \
	  else echo "check-nats: no TSan build of libripple (make tsan): the TSan variants are skipped"; fi
	NATS_TSAN=$$(test -f $(TSAN_SCRATCH)/release/libripple.so && echo $(CURDIR)/$(OUT)/nats-tsan) $(NATS_RUN) $(NATS_ONLY)

CHECK_EXTRA += check-nats

# ---------------------------------------------------------------------------
# Install (make install-nats / uninstall-nats, same variables as install):
# the library stripped, ripple_nats.h, ripple-nats.pc, the CMake component
# Ripple-nats.cmake (find_package(Ripple COMPONENTS nats) -> Ripple::nats)
# and man pages made from the header. libripple itself comes from make install.
NATS_MANOUT := $(OUT)/man-nats
NATS_MAN_ARGS := --name ripple-nats --summary "Ripple signals across processes and machines through NATS and JetStream"
.PHONY: install-nats uninstall-nats

$(NATS_MANOUT)/ripple-nats.3: $(NATS_HEADER) pkg/manpages.py
	$(MANGEN) $(NATS_HEADER) $(NATS_MANOUT) --version $(VERSION) $(NATS_MAN_ARGS)

install-nats: $(NATS_LIB) $(NATS_MANOUT)/ripple-nats.3
	$(INSTALL) -d $(DESTDIR)$(libdir) $(DESTDIR)$(includedir) $(DESTDIR)$(pkgconfigdir) $(DESTDIR)$(cmakedir) $(DESTDIR)$(man3dir)
	objcopy --strip-unneeded --remove-section=.comment $(NATS_LIB) $(DESTDIR)$(libdir)/$(NATS_REALNAME)
	chmod 0644 $(DESTDIR)$(libdir)/$(NATS_REALNAME)
	ln -sf $(NATS_REALNAME) $(DESTDIR)$(libdir)/$(NATS_SONAME)
	ln -sf $(NATS_SONAME) $(DESTDIR)$(libdir)/$(NATS_LIBNAME)
	$(INSTALL) -m 0644 $(NATS_HEADER) $(DESTDIR)$(includedir)/ripple_nats.h
	sed -e 's|@PREFIX@|$(prefix)|g' -e 's|@LIBDIR@|$(libdir)|g' -e 's|@INCLUDEDIR@|$(includedir)|g' \
	    -e 's|@VERSION@|$(VERSION)|g' pkg/ripple-nats.pc.in > $(DESTDIR)$(pkgconfigdir)/ripple-nats.pc
	librel=$$(realpath -m --relative-to=$(prefix) $(libdir)); increl=$$(realpath -m --relative-to=$(prefix) $(includedir)); \
	up=$$(realpath -m --relative-to=$(cmakedir) $(prefix)); \
	sed -e "s|@LIBREL@|$$librel|g" -e "s|@INCLUDEREL@|$$increl|g" -e "s|@PREFIX_FROM_CMAKEDIR@|$$up|g" \
	    -e 's|@VERSION@|$(VERSION)|g' -e 's|@MAJOR@|$(MAJOR)|g' pkg/Ripple-nats.cmake.in > $(DESTDIR)$(cmakedir)/Ripple-nats.cmake
	chmod 0644 $(DESTDIR)$(pkgconfigdir)/ripple-nats.pc $(DESTDIR)$(cmakedir)/Ripple-nats.cmake
	for f in $(NATS_MANOUT)/*.3; do \
	  if [ -L "$$f" ]; then ln -sf "$$(readlink "$$f")" "$(DESTDIR)$(man3dir)/$${f##*/}"; \
	  else $(INSTALL) -m 0644 "$$f" "$(DESTDIR)$(man3dir)/"; fi || exit 1; done
	@if [ -z "$(DESTDIR)" ] && [ -n "$(LDCONFIG)" ] && [ "$$(id -u)" = 0 ] && command -v $(LDCONFIG) >/dev/null; then $(LDCONFIG) 2>/dev/null || true; fi

uninstall-nats:
	rm -f $(DESTDIR)$(libdir)/$(NATS_REALNAME) $(DESTDIR)$(libdir)/$(NATS_SONAME) $(DESTDIR)$(libdir)/$(NATS_LIBNAME) \
	      $(DESTDIR)$(includedir)/ripple_nats.h $(DESTDIR)$(pkgconfigdir)/ripple-nats.pc $(DESTDIR)$(cmakedir)/Ripple-nats.cmake
	names=$$($(MANGEN) $(NATS_HEADER) --list $(NATS_MAN_ARGS)) && cd $(DESTDIR)$(man3dir) 2>/dev/null && rm -f $$names || true
	@rmdir $(DESTDIR)$(cmakedir) 2>/dev/null || true

# Installed: C and CMake programs build against the staged prefix (with
# libripple's own install) through pkg-config and find_package(Ripple
# COMPONENTS nats), man finds the pages, uninstall-nats takes it all back.
NIT := $(CURDIR)/$(OUT)/nats-install-test
.PHONY: check-install-nats
check-install-nats: $(NATS_LIB)
	@rm -rf $(NIT) && mkdir -p $(NIT)
	@$(MAKE) --no-print-directory install install-nats PREFIX=$(NIT)/prefix LDCONFIG= >/dev/null
	@P=$(NIT)/prefix; export PKG_CONFIG_PATH=$$P/lib/pkgconfig; \
	  $(CC) -Wall -Werror examples-c/nats_producer.c $$(pkg-config --cflags --libs ripple-nats) -o $(NIT)/producer && \
	  readelf -d $(NIT)/producer | grep -q 'NEEDED.*libripple-nats.so.$(MAJOR)' && \
	  cmake -S Tests/nats/cmake -B $(NIT)/cmake -DCMAKE_PREFIX_PATH=$$P -DCMAKE_BUILD_TYPE=Release >/dev/null && \
	  cmake --build $(NIT)/cmake >/dev/null && \
	  env -i LD_LIBRARY_PATH=$$P/lib $(NIT)/cmake/nats_cmake_probe && \
	  case "$$(MANPATH=$$P/share/man man -w rpl_nats_stream_subscribe)" in $$P/share/man/man3/ripple-nats-*.3) ;; \
	    *) echo "man cannot find rpl_nats_stream_subscribe"; exit 1;; esac && \
	  nm -D --defined-only $$P/lib/$(NATS_REALNAME) | awk '$$3 ~ /^rpl_/ {print $$3}' | sort > $(NIT)/exported.txt && \
	  $(MANGEN) $(NATS_HEADER) --functions $(NATS_MAN_ARGS) | diff -u $(NIT)/exported.txt - || { echo "check-install-nats failed"; exit 1; }
	@$(MAKE) --no-print-directory uninstall-nats PREFIX=$(NIT)/prefix >/dev/null
	@! find $(NIT)/prefix -name '*nats*' | grep -q . || { echo "uninstall-nats left:"; find $(NIT)/prefix -name '*nats*'; exit 1; }
	@echo "install-nats: pkg-config ripple-nats, find_package(Ripple COMPONENTS nats), man pages for all $$(wc -l < $(NIT)/exported.txt) functions; uninstall-nats removes them"
CHECK_EXTRA += check-install-nats

# ---------------------------------------------------------------------------
# Debian packages libripple-nats$(MAJOR) and libripple-nats-dev
# (pkg/mkdeb-nats.sh), checked with lintian (errors fail the build).
NATS_DEBDIR ?= $(OUT)/deb-nats
.PHONY: deb-nats
deb-nats: deb-deps $(NATS_LIB)
	@DEBS=$$(VERSION=$(VERSION) MAJOR=$(MAJOR) NATS_SONAME=$(NATS_SONAME) NATS_REALNAME=$(NATS_REALNAME) \
	    DEBDIR=$(abspath $(NATS_DEBDIR)) WORK=$(CURDIR)/$(OUT)/deb-nats-work LIBDIR_BUILD=$(CURDIR)/$(OUT)/lib \
	    MAKE="$(MAKE)" DEB_MAINTAINER="$(DEB_MAINTAINER)" bash pkg/mkdeb-nats.sh) || exit 1; \
	for d in $$DEBS; do echo "$$d:"; dpkg-deb -f $$d Package Version Depends | sed 's/^/  /'; done; \
	echo "lintian:"; lintian --fail-on error --tag-display-limit 0 $$DEBS 2>&1 | sed 's/^/  /'; rc=$${PIPESTATUS[0]}; \
	test $$rc = 0 && echo "  no errors" || { echo "lintian reported errors"; exit 1; }
CHECK_EXTRA += deb-nats

# ---------------------------------------------------------------------------
# make bench-nats: bench/nats/bench_nats.c against a nats-server that
# Tests/nats/run.py starts and stops (the rows beside libnats used directly).
.PHONY: bench-nats
$(OUT)/nats/bench_nats: bench/nats/bench_nats.c $(NATS_HEADER) $(NATS_LIB)
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -Wall -Wextra -Werror -IInclude $< $(NATS_TEST_LINK) -o $@
bench-nats: nats-deps $(OUT)/nats/bench_nats
	NATS_OUT=$(CURDIR)/$(OUT) $(PYTHON) Tests/nats/run.py bench

# ---------------------------------------------------------------------------
# make demo runs the two NATS examples too, against a server that
# Tests/nats/run.py starts for them; the header compiles as C99 and C++.
.PHONY: demo-nats check-header-nats
demo-nats: nats-deps $(addprefix $(OUT)/nats/examples/,$(NATS_EXAMPLES))
	@echo "=== examples-c/nats_consumer + nats_producer (through a nats-server started for them) ==="
	@NATS_OUT=$(CURDIR)/$(OUT) $(PYTHON) Tests/nats/run.py examples
demo: demo-nats

check-header-nats:
	@mkdir -p $(OUT)/hdr
	@echo '#include <ripple_nats.h>' > $(OUT)/hdr/hn.c && cp $(OUT)/hdr/hn.c $(OUT)/hdr/hn.cpp
	clang -std=c99 -pedantic -Wall -Wextra -Werror -fsyntax-only -IInclude $(OUT)/hdr/hn.c
	gcc -std=c99 -pedantic -Wall -Wextra -Werror -fsyntax-only -IInclude $(OUT)/hdr/hn.c
	clang++ -std=c++11 -pedantic -Wall -Wextra -Werror -fsyntax-only -IInclude $(OUT)/hdr/hn.cpp
	g++ -std=c++17 -pedantic -Wall -Wextra -Werror -fsyntax-only -IInclude $(OUT)/hdr/hn.cpp
CHECK_EXTRA += check-header-nats
