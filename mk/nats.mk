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

NATS_EXAMPLES := $(patsubst examples-c/%.c,%,$(wildcard examples-c/nats_*.c))
NATS_BINS := $(addprefix $(OUT)/nats/,$(NATS_TESTS)) $(addprefix $(OUT)/nats-asan/,$(NATS_TESTS)) \
             $(addprefix $(OUT)/nats/examples/,$(NATS_EXAMPLES))
NATS_RUN = NATS_OUT=$(CURDIR)/$(OUT) NATS_PY=$(CURDIR)/$(NATS_PY) NATS_VG_LIB=$(CURDIR)/$(VG_LIB) \
           NATS_VALGRIND="$(VALGRIND)" NATS_LSAN=$(CURDIR)/Tests/lsan_check.sh timeout --kill-after=10 900 $(PYTHON) Tests/nats/run.py

check-nats: nats-deps $(NATS_BINS)
	@mkdir -p $(VG_LIB) && objcopy --strip-debug $(LIB) $(VG_LIB)/$(SONAME)
	$(NATS_RUN) $(NATS_ONLY)

CHECK_EXTRA += check-nats
