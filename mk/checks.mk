# Static checks of the artefact: the header compiles everywhere, the exports
# are exactly the header's functions, the USDT probes are there, and the
# version agrees in every file that states it.
.PHONY: check-header check-symbols check-probes set-version check-version
check-header: | $(DEPS_OK)
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
check-probes: $(STAGE_OK)
	@for lib in $(LIB) $(STAGE)/lib/$(REALNAME); do \
	  readelf -n $$lib > $(OUT)/probes.txt; \
	  for p in $(PROBES); do \
	    grep -A2 'Provider: ripple' $(OUT)/probes.txt | grep -q "Name: $$p$$" || { echo "$$lib: no USDT probe ripple:$$p"; exit 1; }; done; \
	  test "$$(grep -A2 'Provider: ripple' $(OUT)/probes.txt | grep -c 'Semaphore: 0x0*[1-9a-f]')" = 5 || { echo "$$lib: probes without semaphores"; exit 1; }; \
	done; echo "probes: ripple:{$$(echo $(PROBES) | tr ' ' ,)} in the built and the installed library"

# The version: VERSION in the Makefile is the source; these files carry copies
# that `make set-version` rewrites and `make check-version` compares (one sed
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
