# The Swift runtime, built by one macro per flavour, each into its own
# SwiftPM scratch directory and each at most once per make run:
#   RELEASE  .build-lib   the shipped library (static Swift runtime, SONAME, hardening)
#   TSAN     .build-tsan  -sanitize=thread, for the TSan tests and the stress run
#   FUZZ     .build-fuzz  ASan + libFuzzer coverage, for the API fuzzer
# (the debug flavour is `swift test`'s own build in .build, mk/test.mk).
# A flavour's library is $(<FLAVOUR>_LIB), its directory $(<FLAVOUR>_LIBDIR).

# The flags that shape the shipped artefact live here, not in Package.swift.
# Every flavour: lld, the export list, no implicit Concurrency or _StringProcessing
# import (the runtime uses neither), DWARF 4 for C (valgrind 3.19 cannot read
# DWARF 5; every Swift unit is DWARF 4 already).
RUNTIME_FLAGS := -Xswiftc -use-ld=lld -Xlinker --version-script -Xlinker $(CURDIR)/ripple.map \
    -Xswiftc -Xfrontend -Xswiftc -disable-implicit-concurrency-module-import \
    -Xswiftc -Xfrontend -Xswiftc -disable-implicit-string-processing-module-import -Xcc -gdwarf-4

# The release library: the Swift runtime linked in statically; the build id
# names the debug file; symbols bound at load time so the GOT can be read-only
# (Debian hardening).
# Size (stripped: 6.5 MB, nearly all the Swift runtime): SwiftPM's release link
# already passes --gc-sections; -Osize saved 0.6% but cost 15-25% on the cold
# send and subscribe rows of make bench; packed relocations (-z
# pack-relative-relocs) would save 6% but need glibc 2.36 at run time.
RELEASE_FLAGS := --disable-local-rpath -Xswiftc -static-stdlib -Xswiftc -no-toolchain-stdlib-rpath \
    -Xcc -DRIPPLE_STATIC_SWIFT_RUNTIME -Xlinker -soname -Xlinker $(SONAME) \
    -Xlinker --build-id=sha1 -Xlinker -z -Xlinker now
# Innermost loops start on a 64-byte line (LLVM's default is 16): where a
# loop like a subject's walk over its subscribers lands otherwise moves with
# unrelated code, and its time with it (the same loop, 100 subscribers in
# make bench, took 2.48 or 2.81 ns per delivery after a change elsewhere
# moved it by 144 bytes). Costs 21 KB of padding.
# SwiftPM does not rebuild when only flags change: make clean after editing.
ifeq ($(shell uname -m),x86_64)
RELEASE_FLAGS += -Xswiftc -Xllvm -Xswiftc -x86-experimental-pref-innermost-loop-alignment=6
endif
# TSan needs the runtime instrumented too (its atomics hand data between threads).
TSAN_FLAGS    := -Xswiftc -sanitize=thread
# Swift code gets libFuzzer's inline 8-bit counters through LLVM options
# (swiftc's own -sanitize-coverage gives trace-pc-guard, which libFuzzer dropped).
FUZZ_FLAGS    := -Xswiftc -sanitize=address -Xswiftc -sanitize-coverage=edge,trace-cmp \
    -Xswiftc -Xllvm -Xswiftc -sanitizer-coverage-inline-8bit-counters -Xswiftc -Xllvm -Xswiftc -sanitizer-coverage-pc-table \
    -Xcc -fsanitize=address -Xcc -fsanitize-coverage=edge,trace-cmp,inline-8bit-counters,pc-table

# What the Swift build reads (a suite with C sources of its own under Sources/
# takes them out of SOURCES; the rules read it after every mk/*.mk).
SOURCES := $(shell find Sources -name '*.swift' -o -name '*.c' -o -name '*.h') Package.swift ripple.map mk/build.mk
# SwiftPM does not rebuild Swift code when the header changes, so the
# @c @implementation check would be skipped: touch the sources instead (once,
# before any flavour builds; swift test waits for it too).
STAMP := $(OUT)/.header-stamp
$(STAMP): $(HEADER) Include/module.modulemap $(wildcard Sources/RippleSupport/include/*.h)
	@mkdir -p $(dir $@)
	@find Sources -name '*.swift' -exec touch {} +
	@find . -maxdepth 4 -path './.build*' -type d -name ModuleCache -prune -exec rm -rf {} +
	@touch $@

# $(call runtime,FLAVOUR,scratch directory): FLAVOUR_SCRATCH, FLAVOUR_LIBDIR,
# FLAVOUR_LIB and the rule that builds it with $(RUNTIME_FLAGS) $(FLAVOUR_FLAGS).
define runtime
$(1)_SCRATCH := $(2)
$(1)_LIBDIR  := $(2)/release
$(1)_LIB     := $(2)/release/$(LIBNAME)
CLEAN_DIRS   += $(2)
$(2)/release/$(LIBNAME): $(STAMP) $$$$(SOURCES) | $(DEPS_OK)
	$(SWIFT) build -c release --product ripple --scratch-path $(2) $(RUNTIME_FLAGS) $$($(1)_FLAGS)
	@touch $$@
endef
$(eval $(call runtime,RELEASE,$(SCRATCH)))
$(eval $(call runtime,TSAN,.build-tsan))
$(eval $(call runtime,FUZZ,.build-fuzz))
# The toolchain's Swift runtime libraries (the TSan flavour links them dynamically).
SWIFT_LIBDIR = $(shell dirname $$(dirname $$(readlink -f $$(command -v $(SWIFT)))))/lib/swift/linux

.PHONY: lib tsan-lib fuzz-lib
$(LIB): $(RELEASE_LIB)
	@mkdir -p $(OUT)/lib
	cp -f $< $@
	ln -sf $(REALNAME) $(OUT)/lib/$(SONAME)
	ln -sf $(SONAME) $(OUT)/lib/$(LIBNAME)
lib: $(LIB)
tsan-lib: $(TSAN_LIB)
fuzz-lib: $(FUZZ_LIB)
