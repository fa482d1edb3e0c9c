# Ripple: build, install and test libripple.so (a Swift runtime behind a C ABI).
#
#   make                  build build/lib/libripple.so.$(VERSION) (release, static Swift runtime)
#   make demo             build, install into build/stage, compile and run the C examples
#   make test             the fast tier: C tests (plain), swift test, the bindings' unit tests
#   make deps             install every Debian and PyPI package a target needs (scripts/deps.sh)
#   make check            every test: Swift, C (plain, valgrind, ASan, TSan), header, symbols, bindings
#   make bench            the benchmark table
#   make install PREFIX=/usr/local [DESTDIR=...]   /  make uninstall (same variables)
#   make deb [DEBDIR=build/deb]   Debian packages libripple0, libripple-dev (and -dbgsym)
#   make docs             HTML reference from ripple.h (Doxygen) in build/docs/html
#   make set-version      write $(VERSION) into every copy (header, Swift, bindings, README, CMake examples)
#
# Every tool the targets need is installed on first use (deps), as on a fresh machine.

# The one place the version is stated: `make set-version` writes it into the
# header, the Swift code, the bindings and the docs, `make check-version` fails if
# they disagree, and the .pc, CMake and .deb files take it from here.
VERSION     := 0.2.0
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
bindir      ?= $(exec_prefix)/bin
libdir      ?= $(exec_prefix)/lib
includedir  ?= $(prefix)/include
pkgconfigdir ?= $(libdir)/pkgconfig
cmakedir    ?= $(libdir)/cmake/Ripple
datarootdir ?= $(prefix)/share
mandir      ?= $(datarootdir)/man
man1dir     ?= $(mandir)/man1
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
HEADER      := Include/ripple.h
SHELL       := /bin/bash

.PHONY: all check test clean FORCE
all: lib

# The rules live in mk/, one file per concern (deps, build, package, test,
# sanitize, reliability, api, checks, bindings, docs, abi, bench): -j-safe, and
# `make -n` only prints (no rule runs a recursive make). One test program in
# one variant: make run-<variant>-<test>, variant plain, valgrind, asan or tsan
# (e.g. make run-tsan-test_smoke); one binding: make bindings-check-<name>.
#
# The core files come first, in this order, since the others use their
# variables (LIB, STAGE, TEST_CFLAGS, WATCHDOG, TSAN_LIB, DEPS_OK...); then
# every other mk/*.mk, sorted. Each may append its suites to CHECK_EXTRA (run
# by make check), its fast ones to TEST_EXTRA (run by make test and make
# check), headers to INSTALL_HEADERS (installed beside ripple.h), and the
# example programs it builds into $(OUT)/examples (as a prerequisite of
# examples) to DEMO_EXTRA, which make demo runs after the others. Lists that
# a later file may still change (SOURCES, C_TESTS, EXAMPLES, INSTALL_HEADERS...)
# are read in prerequisites with $$(...), after every file is read.
.SECONDEXPANSION:
# Each job's output in one piece under make -j.
MAKEFLAGS += --output-sync=target
# make check alone runs its suites side by side, a job per core (a -j on the
# command line wins: make -j1 check runs them one after another).
ifeq ($(MAKECMDGOALS),check)
MAKEFLAGS += -j$(shell nproc)
endif
.DELETE_ON_ERROR:
# Test programs are built by pattern rules on the way to run-* targets: keep them.
.SECONDARY:
CHECK_EXTRA :=
TEST_EXTRA  :=
DEMO_EXTRA  :=
CORE_MK := $(addprefix mk/,deps.mk build.mk package.mk test.mk sanitize.mk reliability.mk \
    api.mk checks.mk bindings.mk docs.mk abi.mk bench.mk)
include $(CORE_MK)
include $(filter-out $(CORE_MK),$(sort $(wildcard mk/*.mk)))

# The fast tier: what a change to one operator needs (a few minutes).
test: lib check-generated c-tests swift-test bindings-test $$(TEST_EXTRA)
	@echo "make test: all passed"

# Everything, as CI runs it (.ci/run).
check: lib check-generated check-header check-symbols check-probes check-version check-install check-deb docs \
       c-tests swift-test valgrind asan leak-selftest tsan stress-check fuzz-check bindings-check abi-check \
       $$(TEST_EXTRA) $$(CHECK_EXTRA)
	@echo "make check: all passed"

clean:
	rm -rf $(OUT) $(CLEAN_DIRS)
FORCE:

# ---------------------------------------------------------------------------
# The version: VERSION above is the source; these files carry copies that
# `make set-version` rewrites and `make check-version` compares (one sed
# expression per file serves both, so they cannot drift apart). A file whose
# copy is not the whole version names what check-version looks for in
# VERSION_GREP_<file> (the CMake examples ask for MAJOR.MINOR).
V_PARTS     = $(subst ., ,$(VERSION))
V_MM        = $(word 1,$(V_PARTS)).$(word 2,$(V_PARTS))
VERSION_SED_$(HEADER) = -e 's/^(\#define RPL_VERSION_MAJOR ).*/\1$(word 1,$(V_PARTS))/' \
    -e 's/^(\#define RPL_VERSION_MINOR ).*/\1$(word 2,$(V_PARTS))/' \
    -e 's/^(\#define RPL_VERSION_PATCH ).*/\1$(word 3,$(V_PARTS))/' \
    -e 's/^(\#define RPL_VERSION_STRING ).*/\1"$(VERSION)"/'
VERSION_SED_Sources/RippleC/Handles.swift = -e 's/(staticCString\(")[^"]*("\)  \/\/ RPL_VERSION_STRING)/\1$(VERSION)\2/'
VERSION_SED_bindings/python/pyproject.toml = -e 's/^version = ".*"/version = "$(VERSION)"/'
VERSION_SED_bindings/python/ripple/__init__.py = -e 's/^__version__ = ".*"/__version__ = "$(VERSION)"/'
VERSION_SED_bindings/rust/Cargo.toml = -e 's/^version = ".*"/version = "$(VERSION)"/'
VERSION_SED_bindings/rust/Cargo.lock = -e 's/^version = "[^"]*"/version = "$(VERSION)"/'
VERSION_SED_bindings/rust/ripple/Cargo.toml = -e 's/^(ripple-sys = .*version = ")[^"]*(")/\1$(VERSION)\2/'
VERSION_SED_README.md = -e 's/libripple\.so\.[0-9]+\.[0-9]+\.[0-9]+/libripple.so.$(VERSION)/g' \
    -e 's/(find_package\(Ripple )[0-9]+\.[0-9]+( REQUIRED)/\1$(V_MM)\2/'
VERSION_SED_examples-c/cmake/CMakeLists.txt = -e 's/(find_package\(Ripple )[0-9]+\.[0-9]+( REQUIRED)/\1$(V_MM)\2/'
VERSION_SED_bindings/cpp/cmake/CMakeLists.txt = $(VERSION_SED_examples-c/cmake/CMakeLists.txt)
VERSION_GREP_examples-c/cmake/CMakeLists.txt = Ripple $(V_MM) REQUIRED
VERSION_GREP_bindings/cpp/cmake/CMakeLists.txt = Ripple $(V_MM) REQUIRED
VERSION_FILES := $(HEADER) Sources/RippleC/Handles.swift bindings/python/pyproject.toml bindings/python/ripple/__init__.py \
    bindings/rust/Cargo.toml bindings/rust/Cargo.lock bindings/rust/ripple/Cargo.toml \
    README.md examples-c/cmake/CMakeLists.txt bindings/cpp/cmake/CMakeLists.txt
# The files generated from the header (mk/api.mk: ripple-sys's constants,
# Python's declarations) take the header's version when set-version
# regenerates them. The rest take VERSION from here when built: the
# library's file name, the .pc and CMake package files, the .deb packages,
# the man pages and make docs.

set-version:
	@$(foreach f,$(VERSION_FILES),sed -i -E $(VERSION_SED_$(f)) $(f) &&) echo "version $(VERSION) written to $(VERSION_FILES)"
	$(GEN_API)

# Also pkg/deb/symbols, the record of the version each function first shipped
# in: it lists exactly the header's functions, and none is dated after
# VERSION (a program built against such a function would get a Depends that
# these very packages do not satisfy).
check-version: check-generated
	@$(foreach f,$(VERSION_FILES),grep -qF '$(or $(VERSION_GREP_$(f)),$(VERSION))' $(f) && sed -E $(VERSION_SED_$(f)) $(f) | diff -u $(f) - &&) \
	  echo "version: $(VERSION) everywhere ($(VERSION_FILES))" || { echo "version differs from the Makefile's $(VERSION): run make set-version"; exit 1; }
	@mkdir -p $(OUT)
	@clang -E -P -IInclude $(HEADER) | tr '\n' ' ' | grep -oP '\brpl_[a-z0-9_]+(?= *\((?! *\*))' | sort -u > $(OUT)/version-header-syms.txt
	@sed -n 's/^ \(rpl_[a-z0-9_]*\)@RIPPLE_$(MAJOR) .*/\1/p' pkg/deb/symbols | sort > $(OUT)/version-deb-syms.txt
	@diff -u $(OUT)/version-header-syms.txt $(OUT)/version-deb-syms.txt || { echo "pkg/deb/symbols does not list exactly the header's functions"; exit 1; }
	@sed -n 's/^ rpl_[a-z0-9_]*@RIPPLE_$(MAJOR) \(.*\)$$/\1/p' pkg/deb/symbols | sort -u | while read -r v; do \
	  dpkg --compare-versions "$$v" le "$(VERSION)" || { echo "pkg/deb/symbols dates a function $$v, after $(VERSION)"; exit 1; }; done
	@echo "pkg/deb/symbols: $$(wc -l < $(OUT)/version-deb-syms.txt) functions, each dated $(VERSION) or earlier"

