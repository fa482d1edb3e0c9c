# What gets installed: the library stripped of everything a program does not
# need (--strip-unneeded), its debug info in a separate file that the library
# names through .gnu_debuglink, and man pages generated from the header.
# The layout itself is scripts/install.sh (used by install, stage,
# check-install and pkg/mkdeb.sh alike, so no rule runs a recursive make).
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

.PHONY: dist install uninstall stage examples demo deb check-deb check-install
dist: $(DIST)/$(REALNAME) $(MANOUT)/ripple.3
# The headers installed into includedir (a suite adds its own).
INSTALL_HEADERS := $(HEADER) bindings/cpp/ripple.hpp
INSTALLED = $(DIST)/$(REALNAME) $(MANOUT)/ripple.3 $(INSTALL_HEADERS) pkg/ripple.pc.in \
    pkg/RippleConfig.cmake.in pkg/RippleConfigVersion.cmake.in pkg/ripple.supp docs/behaviour.md scripts/install.sh \
    tools/ripple-trace tools/ripple-trace.1

# scripts/install.sh with what was built; then install|uninstall and settings.
BUILT_ENV  = VERSION=$(VERSION) MAJOR=$(MAJOR) LIBNAME=$(LIBNAME) SONAME=$(SONAME) REALNAME=$(REALNAME) \
    DIST=$(CURDIR)/$(DIST) MANOUT=$(CURDIR)/$(MANOUT) HEADERS="$(INSTALL_HEADERS)" PYTHON=$(PYTHON)
INSTALL_SH = $(BUILT_ENV) bash scripts/install.sh
# make install and uninstall pass the Makefile's GNU directory variables.
INSTALL_VARS := DESTDIR prefix exec_prefix bindir libdir includedir pkgconfigdir cmakedir datarootdir mandir \
    man1dir man3dir docdir rippledatadir debugdir INSTALL LDCONFIG
USER_INSTALL_VARS = $(foreach v,$(INSTALL_VARS),$(v)='$($(v))')

# Install / uninstall (DESTDIR only here, never baked into files).
install: dist
	$(INSTALL_SH) install $(USER_INSTALL_VARS)
uninstall:
	$(INSTALL_SH) uninstall $(USER_INSTALL_VARS)

# The staged install in build/stage that examples, probes and bindings build against.
STAGE_OK := $(OUT)/.stage-ok
$(STAGE_OK): $$(INSTALLED)
	rm -rf $(STAGE)
	$(INSTALL_SH) install prefix=$(STAGE) LDCONFIG=
	@touch $@
stage: $(STAGE_OK)

# ---------------------------------------------------------------------------
# Examples, built against the *installed* library through pkg-config.
EXAMPLES     := $(patsubst examples-c/%.c,%,$(wildcard examples-c/*.c))
CXX_EXAMPLES := $(patsubst examples-c/%.cpp,%,$(wildcard examples-c/*.cpp))
PKG = PKG_CONFIG_PATH=$(STAGE)/lib/pkgconfig pkg-config
$(OUT)/examples/%: examples-c/%.c $(STAGE_OK)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(WARN) $< $$($(PKG) --cflags --libs ripple) -lpthread -o $@
$(OUT)/examples/%: examples-c/%.cpp $(STAGE_OK)
	@mkdir -p $(dir $@)
	$(CXX) -O2 -g -std=c++17 -Wall -Wextra -Werror -Ibindings/cpp $< $$($(PKG) --cflags --libs ripple) -lpthread -o $@
$(OUT)/cmake-example/cmake_example: $(wildcard examples-c/cmake/*) $(STAGE_OK)
	rm -rf $(dir $@) && cmake -S examples-c/cmake -B $(dir $@) -DCMAKE_PREFIX_PATH=$(STAGE) -DCMAKE_BUILD_TYPE=Release >/dev/null
	cmake --build $(dir $@) >/dev/null
examples: $$(addprefix $(OUT)/examples/,$$(EXAMPLES) $$(CXX_EXAMPLES)) $(OUT)/cmake-example/cmake_example

BINDING_ENV = STAGE=$(STAGE) OUT=$(CURDIR)/$(OUT) SONAME=$(SONAME) CC=$(CC) CXX=$(CXX) PYTHON=$(PYTHON)
demo: examples
	@for e in $(EXAMPLES) $(CXX_EXAMPLES) $(DEMO_EXTRA); do \
	  echo "=== examples-c/$$e ==="; LD_LIBRARY_PATH=$(STAGE)/lib $(OUT)/examples/$$e || exit 1; echo; done
	@echo "=== examples-c/cmake (find_package(Ripple)) ==="; LD_LIBRARY_PATH=$(STAGE)/lib $(OUT)/cmake-example/cmake_example
	@for s in $(wildcard bindings/*/demo.sh); do echo; echo "=== $$s ==="; $(BINDING_ENV) bash $$s || exit 1; done

# ---------------------------------------------------------------------------
# A staged install holds everything it should and uninstall takes it all back;
# then a fresh prefix: C and C++ programs built with pkg-config run with only
# that lib dir, under Debian's valgrind too (no suppressions for the small
# program; a threaded example needs only the installed ripple.supp), gdb finds
# the separate debug info, man finds the pages, and every exported function
# has one.
IT := $(CURDIR)/$(OUT)/install-test
check-install: $$(INSTALLED) | $(DEPS_OK)
	@rm -rf $(IT) && mkdir -p $(IT)
	$(INSTALL_SH) install prefix=/usr/local DESTDIR=$(IT)/destdir >/dev/null
	@D=$(IT)/destdir/usr/local; for f in lib/$(REALNAME) include/ripple.h include/ripple.hpp lib/pkgconfig/ripple.pc \
	    lib/cmake/Ripple/RippleConfig.cmake share/man/man3/ripple.3 share/man/man3/rpl_signal_subscribe.3 \
	    share/ripple/ripple.supp share/doc/ripple/behaviour.md bin/ripple-trace share/man/man1/ripple-trace.1; do \
	  test -e $$D/$$f || { echo "install did not add $$f"; exit 1; }; done; test -x $$D/bin/ripple-trace; \
	test -L $$D/lib/$(SONAME) && test -L $$D/share/man/man3/rpl_signal_subscribe.3; \
	test -n "$$(find $$D/lib/debug/.build-id -name '*.debug')" || { echo "no debug file under lib/debug/.build-id"; exit 1; }; \
	! readelf -S $$D/lib/$(REALNAME) | grep -qE '\.debug_info|\.symtab' || { echo "installed library is not stripped"; exit 1; }; \
	readelf -S $$D/lib/$(REALNAME) | grep -q '\.gnu_debuglink' || { echo "installed library has no .gnu_debuglink"; exit 1; }; \
	size=$$(stat -c %s $$D/lib/$(REALNAME)); test $$size -lt 8388608 || { echo "installed library is $$size bytes (limit 8 MiB)"; exit 1; }; \
	echo "installed library: $$size bytes, stripped, debug info in lib/debug/.build-id"
	$(INSTALL_SH) uninstall prefix=/usr/local DESTDIR=$(IT)/destdir >/dev/null
	@test -z "$$(find $(IT)/destdir -type f -o -type l)" || { echo "uninstall left files:"; find $(IT)/destdir -type f -o -type l; exit 1; }
	@test -z "$$(find $(IT)/destdir -iname '*ripple*')" || { echo "uninstall left directories:"; find $(IT)/destdir -iname '*ripple*'; exit 1; }
	@test ! -e $(IT)/destdir/usr/local/lib/debug || { echo "uninstall left lib/debug"; exit 1; }
	$(INSTALL_SH) install prefix=$(IT)/prefix LDCONFIG= >/dev/null
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
# Debian packages (pkg/mkdeb.sh): libripple$(MAJOR), libripple-dev and the
# -dbgsym package, checked with lintian (errors fail the build).
DEBDIR   ?= $(OUT)/deb
# The packages' Maintainer field (lintian rejects made-up mail hosts); a
# packager building their own sets DEB_MAINTAINER='Name <address>'.
DEB_MAINTAINER ?= Ripple maintainers <maintainers@users.noreply.a-seed-924565b8.example>
# $(call build-debs,directory for the .deb files,work directory[,script[,more environment]])
# (the script: pkg/mkdeb.sh unless given; mk/nats.mk passes pkg/mkdeb-nats.sh)
define build-debs
	@DEBS=$$($(BUILT_ENV) $(4) DEBDIR=$(abspath $(1)) WORK=$(2) DEB_MAINTAINER="$(DEB_MAINTAINER)" bash $(or $(3),pkg/mkdeb.sh)) || exit 1; \
	for d in $$DEBS; do echo "$$d:"; dpkg-deb -f $$d Package Version Depends | sed 's/^/  /'; done; \
	echo "lintian:"; lintian --fail-on error --tag-display-limit 0 $$DEBS 2>&1 | sed 's/^/  /'; rc=$${PIPESTATUS[0]}; \
	test $$rc = 0 && echo "  no errors" || { echo "lintian reported errors"; exit 1; }
endef
deb: $$(INSTALLED) | $(DEPS_OK)
	$(call build-debs,$(DEBDIR),$(CURDIR)/$(OUT)/deb-work)

# The packages as a user gets them: unpacked, a C, a C++ and a CMake program
# build against -dev and run against the runtime package.
DT := $(CURDIR)/$(OUT)/deb-test
check-deb: $$(INSTALLED) | $(DEPS_OK)
	@rm -rf $(DT)
	$(call build-debs,$(DT)/debs,$(DT)/work)
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
	@MA=$$(dpkg-architecture -qDEB_HOST_MULTIARCH); R=$(DT)/root; dpkg-deb -x $(DT)/debs/ripple-tools_*_all.deb $$R && \
	test "$$(dpkg-deb -f $(DT)/debs/ripple-tools_*_all.deb Depends)" = python3 && \
	env -i RIPPLE_TRACE=$(DT)/consumer.jsonl LD_LIBRARY_PATH=$$R/usr/lib/$$MA $(DT)/consumer >/dev/null && \
	$$R/usr/bin/ripple-trace $(DT)/consumer.jsonl -o $(DT)/consumer.html 2>/dev/null && grep -q 'id="trace-data"' $(DT)/consumer.html && \
	echo "deb: ripple-tools' ripple-trace draws the trace of a program run against the unpacked runtime"
