# Static checks of the artefact: the header compiles everywhere, the exports
# are exactly the header's functions, the USDT probes are there. (The version
# checks, check-version and set-version, are in the Makefile, beside VERSION.)
.PHONY: check-header check-symbols check-probes set-version check-version
# $(call compile-header,name under Include/): it compiles alone as C99 and C++, pedantic.
define compile-header
	@mkdir -p $(OUT)/hdr
	@echo '#include <$(1)>' > $(OUT)/hdr/$(1).c && cp $(OUT)/hdr/$(1).c $(OUT)/hdr/$(1).cpp
	clang -std=c99 -pedantic -Wall -Wextra -Werror -fsyntax-only -IInclude $(OUT)/hdr/$(1).c
	gcc -std=c99 -pedantic -Wall -Wextra -Werror -fsyntax-only -IInclude $(OUT)/hdr/$(1).c
	clang++ -std=c++11 -pedantic -Wall -Wextra -Werror -fsyntax-only -IInclude $(OUT)/hdr/$(1).cpp
	g++ -std=c++17 -pedantic -Wall -Wextra -Werror -fsyntax-only -IInclude $(OUT)/hdr/$(1).cpp
endef
check-header: | $(DEPS_OK)
	$(call compile-header,ripple.h)
	@grep -q 'RPL_VERSION_STRING "$(VERSION)"' $(HEADER) || { echo "header version is not $(VERSION)"; exit 1; }

# Every function the header declares (the manifest, mk/api.mk) is exported,
# and nothing else is.
check-symbols: $(LIB) $(API_MANIFEST)
	@$(API_FUNCTIONS) | sort -u > $(OUT)/header-syms.txt
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
