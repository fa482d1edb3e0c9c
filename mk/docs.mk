# make docs: the HTML reference (Doxygen, from Debian's package), generated
# from ripple.h's own comments with docs/behaviour.md as the front page.
DOCS_OUT := $(CURDIR)/$(OUT)/docs
.PHONY: docs
docs: | $(DEPS_OK)
	@rm -rf $(DOCS_OUT) && mkdir -p $(DOCS_OUT)
	RIPPLE_VERSION=$(VERSION) DOCS_OUT=$(DOCS_OUT) doxygen pkg/Doxyfile
	@test -f $(DOCS_OUT)/html/index.html && grep -q rpl_signal_subscribe $(DOCS_OUT)/html/ripple_8h.html \
	  || { echo "make docs: no reference generated"; exit 1; }
	@if [ -s $(DOCS_OUT)/warnings.log ]; then cat $(DOCS_OUT)/warnings.log; fi
	@echo "docs: $(DOCS_OUT)/html/index.html"
