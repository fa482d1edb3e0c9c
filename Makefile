# Ripple: build, install and test libripple.so (a Swift runtime behind a C ABI).
#
#   make                  build build/lib/libripple.so.$(VERSION) (release, static Swift runtime)
#   make demo             build, install into build/stage, compile and run the C examples
#   make test             the fast tier: C tests (plain), swift test, the bindings' unit tests
#   make check            every test: Swift, C (plain, valgrind, ASan, TSan), header, symbols, bindings
#   make bench            the benchmark table
#   make install PREFIX=/usr/local [DESTDIR=...]   /  make uninstall (same variables)
#   make deb [DEBDIR=build/deb]   Debian packages libripple0, libripple-dev (and -dbgsym)
#   make docs             HTML reference from ripple.h (Doxygen) in build/docs/html
#   make deps             install every Debian and PyPI package a target needs
#   make set-version      write $(VERSION) into the header, the Swift code and the Python package
#
# The rules live in mk/, one file per concern; `make -j2 check` is safe, and
# `make -n` only prints. One test program in one variant: make run-<variant>-<test>
# (variant: plain, valgrind, asan, tsan; e.g. make run-tsan-test_smoke).

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
SHELL       := /bin/bash

# Install prefix (GNU directory variables: scripts/install.sh; PREFIX is an
# alias of prefix).
PREFIX      ?= /usr/local
prefix      ?= $(PREFIX)

OUT         := build
LIBNAME     := libripple.so
SONAME      := $(LIBNAME).$(MAJOR)
REALNAME    := $(LIBNAME).$(VERSION)
LIB         := $(OUT)/lib/$(REALNAME)
STAGE       := $(CURDIR)/$(OUT)/stage
HEADER      := Include/ripple.h

.PHONY: all check test FORCE
# Each job's output in one piece under make -j.
MAKEFLAGS += --output-sync=target
.DELETE_ON_ERROR:
# Test programs are built by pattern rules on the way to run-* targets: keep them.
.SECONDARY:
all: lib

# One file per concern under mk/. The core ones come first, in this order,
# since the others use their variables (LIB, STAGE, TEST_CFLAGS, WATCHDOG,
# TSAN_LIB...) in their prerequisites; then every other mk/*.mk, sorted. Each
# may append its suites to CHECK_EXTRA (run by make check) and its fast ones to
# TEST_EXTRA (run by make test and make check).
CHECK_EXTRA :=
TEST_EXTRA  :=
CORE_MK := $(addprefix mk/,deps.mk build.mk package.mk test.mk sanitize.mk reliability.mk \
    checks.mk bindings.mk docs.mk abi.mk bench.mk)
include $(CORE_MK)
include $(filter-out $(CORE_MK),$(sort $(wildcard mk/*.mk)))

# The fast tier: what a change to one operator needs (a few minutes).
test: lib c-tests swift-test $(TEST_EXTRA)
	@echo "make test: all passed"

# Everything, as CI runs it (.ci/run).
check: lib check-header check-symbols check-probes check-version check-install check-deb docs \
       c-tests swift-test valgrind asan leak-selftest tsan stress-check fuzz-check bindings-check abi-check \
       $(TEST_EXTRA) $(CHECK_EXTRA)
	@echo "make check: all passed"

clean:
	rm -rf $(OUT) $(CLEAN_DIRS)
FORCE:
